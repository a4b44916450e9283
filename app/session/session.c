/* session.c: see session.h. One group per part ([Net], [Weights],
 * [Solver], [Run], one [Series N] per plotted series); a reader checks
 * every value it takes, so that a cut or edited file is an error that
 * names the file, the group and the key, never a crash. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "atomic-write.h"
#include "session.h"

G_DEFINE_QUARK (ct-session-error-quark, ct_session_error)

#define VERSION 1

static void
series_free (gpointer data)
{
  CtSessionSeries *s = data;

  g_free (s->name);
  g_free (s->run_label);
  g_array_unref (s->xs);
  g_array_unref (s->ys);
  g_free (s);
}

CtSession *
ct_session_new (void)
{
  CtSession *session = g_new0 (CtSession, 1);

  session->series = g_ptr_array_new_with_free_func (series_free);
  session->net_text = g_strdup ("");
  session->phase = g_strdup ("both");
  session->view = g_strdup ("graph");
  session->step_pass = g_strdup ("none");
  session->step_next = -1;
  session->channel = -1;
  session->colormap = -1;
  return session;
}

void
ct_session_free (CtSession *session)
{
  if (session == NULL)
    return;
  g_free (session->net_text);
  g_free (session->net_path);
  g_free (session->net_title);
  g_free (session->base_dir);
  g_clear_pointer (&session->weights, g_bytes_unref);
  g_free (session->weights_name);
  g_free (session->solver_text);
  g_free (session->solver_path);
  g_free (session->phase);
  g_free (session->view);
  g_clear_pointer (&session->items, g_array_unref);
  g_free (session->input_path);
  g_free (session->step_pass);
  g_free (session->selected);
  g_free (session->blob);
  g_ptr_array_unref (session->series);
  g_free (session);
}

CtSessionSeries *
ct_session_add_series (CtSession *session, const char *name, const char *run_label,
                       const double *xs, const double *ys, gsize n)
{
  CtSessionSeries *s = g_new0 (CtSessionSeries, 1);

  s->name = g_strdup (name);
  s->run_label = g_strdup (run_label);
  s->visible = TRUE;
  s->xs = g_array_sized_new (FALSE, FALSE, sizeof (double), (guint) n);
  s->ys = g_array_sized_new (FALSE, FALSE, sizeof (double), (guint) n);
  g_array_append_vals (s->xs, xs, (guint) n);
  g_array_append_vals (s->ys, ys, (guint) n);
  g_ptr_array_add (session->series, s);
  return s;
}

static void
set_optional (GKeyFile *file, const char *group, const char *key, const char *value)
{
  if (value != NULL)
    g_key_file_set_string (file, group, key, value);
}

char *
ct_session_to_text (const CtSession *session, gsize *length)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();

  g_key_file_set_integer (file, "Session", "version", VERSION);
  g_key_file_set_string (file, "Net", "text", session->net_text);
  set_optional (file, "Net", "path", session->net_path);
  set_optional (file, "Net", "title", session->net_title);
  set_optional (file, "Net", "base-dir", session->base_dir);
  if (session->weights != NULL)
    {
      g_autofree char *data = g_base64_encode (g_bytes_get_data (session->weights, NULL),
                                               g_bytes_get_size (session->weights));

      set_optional (file, "Weights", "name", session->weights_name);
      g_key_file_set_string (file, "Weights", "data", data);
    }
  set_optional (file, "Solver", "text", session->solver_text);
  set_optional (file, "Solver", "path", session->solver_path);
  g_key_file_set_string (file, "Run", "phase", session->phase);
  g_key_file_set_string (file, "Run", "view", session->view);
  g_key_file_set_uint64 (file, "Run", "batch", session->batch);
  g_key_file_set_uint64 (file, "Run", "seed", session->seed);
  if (session->pace_ms > 0)
    g_key_file_set_uint64 (file, "Run", "pace_ms", session->pace_ms);
  if (session->items != NULL && session->items->len > 0)
    {
      g_autofree int *items = g_new (int, session->items->len);

      for (guint i = 0; i < session->items->len; i++)
        items[i] = (int) g_array_index (session->items, guint, i);
      g_key_file_set_integer_list (file, "Run", "items", items, session->items->len);
    }
  set_optional (file, "Run", "input-path", session->input_path);
  g_key_file_set_string (file, "Step", "pass", session->step_pass);
  g_key_file_set_integer (file, "Step", "next-layer", session->step_next);
  set_optional (file, "Step", "selected", session->selected);
  set_optional (file, "Inspector", "blob", session->blob);
  g_key_file_set_boolean (file, "Inspector", "diff", session->blob_diff);
  g_key_file_set_integer (file, "Inspector", "channel", session->channel);
  g_key_file_set_integer (file, "Inspector", "colormap", session->colormap);
  g_key_file_set_integer (file, "Inspector", "scale", session->scale);
  for (guint i = 0; i < session->series->len; i++)
    {
      const CtSessionSeries *s = g_ptr_array_index (session->series, i);
      g_autofree char *group = g_strdup_printf ("Series %u", i);

      g_key_file_set_string (file, group, "name", s->name);
      set_optional (file, group, "run-label", s->run_label);
      g_key_file_set_integer (file, group, "panel", s->panel);
      g_key_file_set_integer (file, group, "side", s->side);
      g_key_file_set_integer (file, group, "color", s->color);
      g_key_file_set_integer (file, group, "style", s->style);
      g_key_file_set_boolean (file, group, "faded", s->faded);
      g_key_file_set_boolean (file, group, "visible", s->visible);
      /* g_ascii_dtostr: the shortest text that reads back to the same
       * double, in any locale */
      if (s->xs->len > 0)
        {
          g_key_file_set_double_list (file, group, "xs", (double *) (void *) s->xs->data,
                                      s->xs->len);
          g_key_file_set_double_list (file, group, "ys", (double *) (void *) s->ys->data,
                                      s->ys->len);
        }
    }
  return g_key_file_to_data (file, length, NULL);
}

/* Errors of a value name the file, the group and the key. */
static gboolean
bad_value (GError **error, const char *name, const char *group, const char *key,
           const char *message)
{
  g_set_error (error, CT_SESSION_ERROR, CT_SESSION_ERROR_PARSE, "%s: [%s] %s: %s", name, group,
               key, message);
  return FALSE;
}

/* KEY of GROUP as a string, or NULL when it is not there. */
static gboolean
get_optional (GKeyFile *file, const char *name, const char *group, const char *key, char **out,
              GError **error)
{
  g_autoptr (GError) local = NULL;

  *out = NULL;
  if (!g_key_file_has_key (file, group, key, NULL))
    return TRUE;
  *out = g_key_file_get_string (file, group, key, &local);
  if (*out == NULL)
    return bad_value (error, name, group, key, local->message);
  return TRUE;
}

static gboolean
get_int (GKeyFile *file, const char *name, const char *group, const char *key, int min, int max,
         int *out, GError **error)
{
  g_autoptr (GError) local = NULL;
  int value = g_key_file_get_integer (file, group, key, &local);

  if (local != NULL)
    return bad_value (error, name, group, key, local->message);
  if (value < min || value > max)
    {
      g_autofree char *message = g_strdup_printf (_("%d is not between %d and %d"), value, min,
                                                  max);
      return bad_value (error, name, group, key, message);
    }
  *out = value;
  return TRUE;
}

static gboolean
read_series (GKeyFile *file, const char *name, const char *group, CtSession *session,
             GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *series_name = NULL;
  g_autofree char *run_label = NULL;
  g_autofree double *xs = NULL;
  g_autofree double *ys = NULL;
  gsize n_xs = 0, n_ys = 0;
  CtSessionSeries *s;
  int panel, side, color, style;
  gboolean faded, visible;

  series_name = g_key_file_get_string (file, group, "name", &local);
  if (series_name == NULL)
    return bad_value (error, name, group, "name", local->message);
  if (!get_optional (file, name, group, "run-label", &run_label, error)
      || !get_int (file, name, group, "panel", 0, 16, &panel, error)
      || !get_int (file, name, group, "side", 0, 1, &side, error)
      || !get_int (file, name, group, "color", 0, 6, &color, error)
      || !get_int (file, name, group, "style", 0, 4, &style, error))
    return FALSE;
  faded = g_key_file_get_boolean (file, group, "faded", &local);
  if (local != NULL)
    return bad_value (error, name, group, "faded", local->message);
  visible = g_key_file_get_boolean (file, group, "visible", &local);
  if (local != NULL)
    return bad_value (error, name, group, "visible", local->message);
  /* an empty series has no list at all */
  if (g_key_file_has_key (file, group, "xs", NULL))
    {
      xs = g_key_file_get_double_list (file, group, "xs", &n_xs, &local);
      if (local != NULL)
        return bad_value (error, name, group, "xs", local->message);
    }
  if (g_key_file_has_key (file, group, "ys", NULL))
    {
      ys = g_key_file_get_double_list (file, group, "ys", &n_ys, &local);
      if (local != NULL)
        return bad_value (error, name, group, "ys", local->message);
    }
  if (n_xs != n_ys)
    {
      g_autofree char *message = g_strdup_printf (_("%u x values but %u y values"),
                                                  (guint) MIN (n_xs, G_MAXUINT),
                                                  (guint) MIN (n_ys, G_MAXUINT));
      return bad_value (error, name, group, "ys", message);
    }
  for (gsize i = 0; i < n_xs; i++)
    if (!isfinite (xs[i]) || (i > 0 && xs[i] < xs[i - 1]))
      return bad_value (error, name, group, "xs",
                        _("the x values must be finite and never decrease"));
  s = ct_session_add_series (session, series_name, run_label, xs, ys, n_xs);
  s->panel = panel;
  s->side = side;
  s->color = color;
  s->style = style;
  s->faded = faded;
  s->visible = visible;
  return TRUE;
}

static gboolean
one_of (const char *value, const char *const *allowed)
{
  return value != NULL && g_strv_contains (allowed, value);
}

/* KEY of GROUP as an integer from MIN to MAX, or left as it is when the
 * key is not there (a session of an earlier Cortado). */
static gboolean
get_int_optional (GKeyFile *file, const char *name, const char *group, const char *key,
                  int min, int max, int *out, GError **error)
{
  if (!g_key_file_has_key (file, group, key, NULL))
    return TRUE;
  return get_int (file, name, group, key, min, max, out, error);
}

/* [Step] and [Inspector]: where the step-through stood, what the
 * inspector showed. */
static gboolean
read_view (GKeyFile *file, const char *name, CtSession *session, GError **error)
{
  static const char *const passes[] = { "none", "forward", "backward", NULL };
  g_autofree char *pass = NULL;

  if (!get_optional (file, name, "Step", "pass", &pass, error)
      || !get_int_optional (file, name, "Step", "next-layer", -1, 100000, &session->step_next,
                            error)
      || !get_optional (file, name, "Step", "selected", &session->selected, error)
      || !get_optional (file, name, "Inspector", "blob", &session->blob, error)
      || !get_int_optional (file, name, "Inspector", "channel", -1, G_MAXINT,
                            &session->channel, error)
      || !get_int_optional (file, name, "Inspector", "colormap", -1, 64, &session->colormap,
                            error)
      || !get_int_optional (file, name, "Inspector", "scale", 0, 64, &session->scale, error))
    return FALSE;
  if (pass != NULL)
    {
      if (!one_of (pass, passes))
        return bad_value (error, name, "Step", "pass", _("not none, forward or backward"));
      g_free (session->step_pass);
      session->step_pass = g_steal_pointer (&pass);
    }
  if (g_key_file_has_key (file, "Inspector", "diff", NULL))
    {
      g_autoptr (GError) local = NULL;

      session->blob_diff = g_key_file_get_boolean (file, "Inspector", "diff", &local);
      if (local != NULL)
        return bad_value (error, name, "Inspector", "diff", local->message);
    }
  return TRUE;
}

CtSession *
ct_session_from_text (const char *text, gsize length, const char *name, GError **error)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (CtSession) session = ct_session_new ();
  g_autoptr (GError) local = NULL;
  g_autofree char *weights = NULL;
  g_auto (GStrv) groups = NULL;
  static const char *const phases[] = { "train", "test", "both", NULL };
  static const char *const views[] = { "graph", "source", "training", NULL };
  int version;

  if (!g_key_file_load_from_data (file, text, length, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, CT_SESSION_ERROR, CT_SESSION_ERROR_PARSE, "%s: %s", name,
                   local->message);
      return NULL;
    }
  if (!g_key_file_has_group (file, "Session") || !g_key_file_has_group (file, "Net"))
    {
      g_set_error (error, CT_SESSION_ERROR, CT_SESSION_ERROR_MISSING,
                   _("%s: not a Cortado session (no [Session] and [Net])"), name);
      return NULL;
    }
  if (!get_int (file, name, "Session", "version", 1, G_MAXINT, &version, error))
    return NULL;
  if (version > VERSION)
    {
      g_set_error (error, CT_SESSION_ERROR, CT_SESSION_ERROR_VERSION,
                   _("%s: a session of a newer Cortado (version %d; this one reads %d)"), name,
                   version, VERSION);
      return NULL;
    }
  g_free (session->phase);
  g_free (session->view);
  g_free (session->net_text);
  session->phase = NULL;
  session->view = NULL;
  session->net_text = g_key_file_get_string (file, "Net", "text", &local);
  if (session->net_text == NULL)
    return bad_value (error, name, "Net", "text", local->message), NULL;
  if (!get_optional (file, name, "Net", "path", &session->net_path, error)
      || !get_optional (file, name, "Net", "title", &session->net_title, error)
      || !get_optional (file, name, "Net", "base-dir", &session->base_dir, error)
      || !get_optional (file, name, "Weights", "name", &session->weights_name, error)
      || !get_optional (file, name, "Weights", "data", &weights, error)
      || !get_optional (file, name, "Solver", "text", &session->solver_text, error)
      || !get_optional (file, name, "Solver", "path", &session->solver_path, error)
      || !get_optional (file, name, "Run", "phase", &session->phase, error)
      || !get_optional (file, name, "Run", "view", &session->view, error)
      || !get_optional (file, name, "Run", "input-path", &session->input_path, error))
    return NULL;
  if (weights != NULL)
    {
      gsize n = 0;
      guchar *bytes;

      /* g_base64_decode skips what is not base64: check first */
      for (const char *p = weights; *p != '\0'; p++)
        if (!g_ascii_isalnum (*p) && *p != '+' && *p != '/' && *p != '=')
          return bad_value (error, name, "Weights", "data", _("not base64")), NULL;
      if (strlen (weights) % 4 != 0)
        return bad_value (error, name, "Weights", "data", _("cut short")), NULL;
      bytes = g_base64_decode (weights, &n);
      session->weights = g_bytes_new_take (bytes, n);
    }
  if (session->phase == NULL)
    session->phase = g_strdup ("both");
  if (session->view == NULL)
    session->view = g_strdup ("graph");
  if (!one_of (session->phase, phases))
    return bad_value (error, name, "Run", "phase", _("not train, test or both")), NULL;
  if (!one_of (session->view, views))
    return bad_value (error, name, "Run", "view", _("not graph, source or training")), NULL;
  if (g_key_file_has_key (file, "Run", "batch", NULL))
    {
      guint64 batch = g_key_file_get_uint64 (file, "Run", "batch", &local);

      if (local != NULL || batch > G_MAXINT)
        return bad_value (error, name, "Run", "batch",
                          local != NULL ? local->message : _("too large")),
               NULL;
      session->batch = (guint) batch;
    }
  if (g_key_file_has_key (file, "Run", "seed", NULL))
    {
      session->seed = g_key_file_get_uint64 (file, "Run", "seed", &local);
      if (local != NULL)
        return bad_value (error, name, "Run", "seed", local->message), NULL;
    }
  if (g_key_file_has_key (file, "Run", "pace_ms", NULL))
    {
      guint64 pace_ms = g_key_file_get_uint64 (file, "Run", "pace_ms", &local);

      if (local != NULL || pace_ms > 60000)
        return bad_value (error, name, "Run", "pace_ms",
                          local != NULL ? local->message : _("more than a minute")),
               NULL;
      session->pace_ms = (guint) pace_ms;
    }
  if (g_key_file_has_key (file, "Run", "items", NULL))
    {
      gsize n = 0;
      g_autofree int *items = g_key_file_get_integer_list (file, "Run", "items", &n, &local);

      /* "items=" is an empty list, with no error */
      if (local != NULL)
        return bad_value (error, name, "Run", "items", local->message), NULL;
      session->items = g_array_new (FALSE, FALSE, sizeof (guint));
      for (gsize i = 0; i < n; i++)
        {
          guint item = (guint) items[i];

          if (items[i] < 0)
            return bad_value (error, name, "Run", "items", _("a negative item")), NULL;
          g_array_append_val (session->items, item);
        }
    }
  if (!read_view (file, name, session, error))
    return NULL;
  groups = g_key_file_get_groups (file, NULL);
  /* the series in their order, whatever the order of the groups */
  for (guint i = 0;; i++)
    {
      g_autofree char *group = g_strdup_printf ("Series %u", i);

      if (!g_key_file_has_group (file, group))
        break;
      if (!read_series (file, name, group, session, error))
        return NULL;
    }
  return g_steal_pointer (&session);
}

gboolean
ct_session_save (const CtSession *session, const char *path, GError **error)
{
  gsize length = 0;
  g_autofree char *text = ct_session_to_text (session, &length);

  return ct_file_write_atomic (path, text, length, error);
}

CtSession *
ct_session_load (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &text, &length, error))
    return NULL;
  return ct_session_from_text (text, length, path, error);
}

gboolean
ct_session_is_session_path (const char *path)
{
  return path != NULL && g_str_has_suffix (path, CT_SESSION_SUFFIX);
}
