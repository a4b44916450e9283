/* window-toasts.c: the window's toasts, paced for libadwaita 1.2. Errors
 * stay long enough to be read (ct_window_error_timeout) and go at once when
 * what failed starts again (ct_window_dismiss_error), so that the NaN
 * message of one run never sits over the next healthy one.
 *
 * libadwaita 1.2 aborts (show_toast: !info->widget) when a toast that it
 * put back for one of high priority comes up again while it is still
 * being hidden. Pacing in time cannot rule that out: a busy main loop runs
 * a timeout before the frame that ends the animation. So every toast is of
 * normal priority and the overlay never holds two: the window keeps its
 * own queue and gives the overlay the next toast once the one shown is
 * dismissed (by its timeout, its close button, or here: see
 * must_make_way). Adds and dismissals are also spaced by TOAST_SETTLE, so
 * that one animation is over before the next starts. */
#include "window-private.h"

#define TOAST_SETTLE (600 * G_TIME_SPAN_MILLISECOND)

static void run_ops (CtWindow *self);

static gboolean
run_ops_later (gpointer data)
{
  CtWindow *self = data;

  self->toast_source = 0;
  run_ops (self);
  return G_SOURCE_REMOVE;
}

static gboolean
is_error (AdwToast *toast)
{
  return g_object_get_data (G_OBJECT (toast), "ct-error") != NULL;
}

static void
toast_dismissed (AdwToast *toast, CtWindow *self)
{
  /* the overlay animates it away */
  self->toast_quiet_until = MAX (self->toast_quiet_until,
                                 g_get_monotonic_time () + TOAST_SETTLE);
  if (toast == self->shown_toast)
    {
      g_clear_object (&self->shown_toast);
      self->error_dismiss = FALSE;
    }
  run_ops (self);
}

/* Whether the toast shown must go now: its error was dismissed, or a new
 * error comes, or it is a routine toast and any other comes (the newest
 * news is the one to read; an error stays until read). */
static gboolean
must_make_way (CtWindow *self, AdwToast *next)
{
  if (self->shown_toast == NULL)
    return FALSE;
  if (is_error (self->shown_toast))
    return self->error_dismiss || (next != NULL && is_error (next));
  return next != NULL;
}

/* One operation on the overlay, if the last one's animation is over;
 * again later while some wait. */
static void
run_ops (CtWindow *self)
{
  gint64 now = g_get_monotonic_time ();
  AdwToast *next;

  if (self->toast_ops == NULL || self->toast_source != 0)
    return;
  next = g_queue_peek_head (self->toast_ops);
  /* the next toast waits for the one shown to be dismissed */
  if (self->shown_toast != NULL && !must_make_way (self, next))
    return;
  if (self->shown_toast == NULL && next == NULL)
    return;
  if (now < self->toast_quiet_until)
    {
      self->toast_source = g_timeout_add ((guint) ((self->toast_quiet_until - now) / 1000) + 1,
                                          run_ops_later, self);
      return;
    }
  self->toast_quiet_until = now + TOAST_SETTLE;
  if (self->shown_toast != NULL)
    {
      /* toast_dismissed comes back here */
      g_autoptr (AdwToast) shown = g_object_ref (self->shown_toast);

      adw_toast_dismiss (shown);
      return;
    }
  g_queue_pop_head (self->toast_ops);
  self->shown_toast = g_object_ref (next);
  g_signal_connect_object (next, "dismissed", G_CALLBACK (toast_dismissed), self, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, next);
  /* the toast after it may be one to take its place */
  run_ops (self);
}

void
ct_window_add_toast (CtWindow *self, AdwToast *toast)
{
  if (self->toast_ops == NULL)
    {
      g_object_unref (toast);
      return;
    }
  /* see above: a toast of high priority could make the overlay abort;
   * errors go ahead of the other toasts here instead */
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_NORMAL);
  if (is_error (toast))
    {
      GList *l = self->toast_ops->head;

      while (l != NULL && is_error (l->data))
        l = l->next;
      g_queue_insert_before (self->toast_ops, l, toast);
    }
  else
    g_queue_push_tail (self->toast_ops, toast);
  run_ops (self);
}

void
ct_window_show_toast (CtWindow *self, const char *message)
{
  AdwToast *toast = adw_toast_new (message);

  adw_toast_set_timeout (toast, 3);
  ct_window_add_toast (self, toast);
}

guint
ct_window_error_timeout (const char *message)
{
  /* about ten characters a second, read twice over by a class, with a
   * floor for the eye to find the toast and a ceiling so that a long
   * message does not sit over the work for minutes */
  glong length = g_utf8_strlen (message, -1);

  return (guint) CLAMP (5 + length / 10, 8, 25);
}

void
ct_window_show_error (CtWindow *self, const char *message)
{
  AdwToast *toast = adw_toast_new (message);

  adw_toast_set_timeout (toast, ct_window_error_timeout (message));
  g_object_set_data (G_OBJECT (toast), "ct-error", GINT_TO_POINTER (TRUE));
  ct_window_add_toast (self, toast);
}

void
ct_window_dismiss_error (CtWindow *self)
{
  if (self->toast_ops == NULL)
    return;
  /* the errors not shown yet are dropped, the one shown goes when the
   * overlay is quiet */
  for (GList *l = self->toast_ops->head; l != NULL;)
    {
      GList *following = l->next;

      if (is_error (l->data))
        {
          g_object_unref (l->data);
          g_queue_delete_link (self->toast_ops, l);
        }
      l = following;
    }
  self->error_dismiss = self->shown_toast != NULL && is_error (self->shown_toast);
  run_ops (self);
}

guint
ct_window_n_errors (CtWindow *self)
{
  guint n = ct_window_get_error_shown (self) != NULL;

  for (GList *l = self->toast_ops != NULL ? self->toast_ops->head : NULL; l != NULL; l = l->next)
    n += is_error (l->data);
  return n;
}

const char *
ct_window_get_error_shown (CtWindow *self)
{
  return self->shown_toast != NULL && is_error (self->shown_toast) && !self->error_dismiss
         ? adw_toast_get_title (self->shown_toast) : NULL;
}

void
ct_window_report_error (CtWindow *self, const char *what, const GError *error)
{
  g_autofree char *message = what != NULL ? g_strdup_printf ("%s: %s", what, error->message)
                                          : g_strdup (error->message);
  ct_window_show_error (self, message);
}

void
ct_window_toasts_dispose (CtWindow *self)
{
  g_clear_handle_id (&self->toast_source, g_source_remove);
  if (self->toast_ops != NULL)
    g_queue_free_full (g_steal_pointer (&self->toast_ops), g_object_unref);
  g_clear_object (&self->shown_toast);
}
