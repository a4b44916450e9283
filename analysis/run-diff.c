/* run-diff.c: the differences of two runs' settings, in words, from the
 * field-by-field comparison of net-diff.c applied to the two solvers and
 * to their nets. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "net-diff.h"
#include "run-diff.h"

/* Solver fields the window fills itself: the net trained and where its
 * snapshots go are not settings a run is told apart by. */
static gboolean
window_field (const char *path)
{
  static const char *const names[] = { "net", "train_net", "test_net", "net_param",
                                       "train_net_param", "test_net_param", "train_state",
                                       "test_state", "snapshot_prefix" };
  gsize len = strcspn (path, ".[");

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (strlen (names[i]) == len && strncmp (path, names[i], len) == 0)
      return TRUE;
  return FALSE;
}

/* The last part of a field's path: "num_output" of
 * "convolution_param.num_output". */
static const char *
short_field (const char *path)
{
  const char *dot = strrchr (path, '.');

  return dot != NULL ? dot + 1 : path;
}

/* A number as people write it (float fields come as "0.00999999978"),
 * anything else as it is. */
static char *
readable (const char *value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char *end = NULL;
  double v;

  if (value == NULL || *value == '\0')
    return g_strdup (value);
  v = g_ascii_strtod (value, &end);
  if (end == NULL || *end != '\0')
    return g_strdup (value);
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

/* "FIELD A→B", the values readable. */
static char *
change_text (const char *layer, const char *field, const char *a, const char *b)
{
  g_autofree char *ra = readable (a);
  g_autofree char *rb = readable (b);

  return layer != NULL ? g_strdup_printf ("%s %s %s→%s", layer, field, ra, rb)
                       : g_strdup_printf ("%s %s→%s", field, ra, rb);
}

static gboolean
is_batch_size (const CtNetDiffEntry *e)
{
  return e->kind == CT_NET_DIFF_CHANGED && e->layer_a != NULL
         && strcmp (short_field (e->field), "batch_size") == 0;
}

/* One change of the net, as a few words. */
static char *
net_change (const CtNetDiffEntry *e)
{
  switch (e->kind)
    {
    case CT_NET_DIFF_ADDED:
      /* TRANSLATORS: a layer the current run's net has and the earlier one's did not */
      return g_strdup_printf (_("%s added"), e->layer_b);
    case CT_NET_DIFF_REMOVED:
      /* TRANSLATORS: a layer the earlier run's net had and the current one's has not */
      return g_strdup_printf (_("%s removed"), e->layer_a);
    case CT_NET_DIFF_RENAMED:
      return g_strdup_printf (_("%s renamed %s"), e->layer_a, e->layer_b);
    case CT_NET_DIFF_CHANGED:
    default:
      return change_text (e->layer_a != NULL ? e->layer_a : "net", short_field (e->field),
                          e->value_a, e->value_b);
    }
}

static void
add_solver_lines (GPtrArray *lines, const Caffe__SolverParameter *earlier,
                  const Caffe__SolverParameter *current)
{
  g_autoptr (GPtrArray) entries = ct_net_diff_compute (&earlier->base, &current->base);

  for (guint i = 0; i < entries->len; i++)
    {
      const CtNetDiffEntry *e = entries->pdata[i];

      if (e->kind == CT_NET_DIFF_CHANGED && !window_field (e->field))
        g_ptr_array_add (lines, change_text (NULL, e->field, e->value_a, e->value_b));
    }
}

static void
add_net_lines (GPtrArray *lines, const Caffe__NetParameter *earlier,
               const Caffe__NetParameter *current)
{
  g_autoptr (GPtrArray) entries = ct_net_diff_compute (&earlier->base, &current->base);
  g_autoptr (GString) changes = g_string_new (NULL);

  for (guint i = 0; i < entries->len; i++)
    {
      const CtNetDiffEntry *e = entries->pdata[i];
      g_autofree char *change = NULL;

      if (is_batch_size (e))
        {
          /* TRANSLATORS: a data layer's batch size, earlier → now, then the layer */
          g_autofree char *a = readable (e->value_a);
          g_autofree char *b = readable (e->value_b);

          g_ptr_array_add (lines, g_strdup_printf (_("batch size %s→%s (%s)"), a, b,
                                                   e->layer_a));
          continue;
        }
      change = net_change (e);
      if (changes->len > 0)
        g_string_append (changes, ", ");
      g_string_append (changes, change);
    }
  if (changes->len > 0)
    /* TRANSLATORS: %s lists the changes, "conv1 num_output 20→50, conv3 added" */
    g_ptr_array_add (lines, g_strdup_printf (_("net changed: %s"), changes->str));
}

GPtrArray *
ct_run_diff_lines (const Caffe__SolverParameter *earlier, const Caffe__SolverParameter *current)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (earlier != NULL && current != NULL, lines);
  add_solver_lines (lines, earlier, current);
  if (earlier->net_param != NULL && current->net_param != NULL)
    add_net_lines (lines, earlier->net_param, current->net_param);
  return lines;
}

char *
ct_run_diff_summary (GPtrArray *lines, guint max_lines)
{
  g_autoptr (GString) text = g_string_new (NULL);

  if (lines == NULL || lines->len == 0)
    return NULL;
  for (guint i = 0; i < lines->len && i < max_lines; i++)
    {
      if (i > 0)
        g_string_append (text, ", ");
      g_string_append (text, lines->pdata[i]);
    }
  if (lines->len > max_lines)
    g_string_append (text, ", …");
  return g_string_free (g_steal_pointer (&text), FALSE);
}
