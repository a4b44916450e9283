/* window-toasts.c: the window's toasts, paced for libadwaita 1.2. Errors
 * stay long enough to be read (ct_window_error_timeout) and go at once when
 * what failed starts again (ct_window_dismiss_error), so that the NaN
 * message of one run never sits over the next healthy one.
 *
 * libadwaita 1.2 crashes when a toast is added or dismissed while the
 * overlay still animates an earlier add or dismissal (its replace animation
 * lasts 500 ms), and when a shown and a queued toast are dismissed together
 * (measured under Xvfb: a toast dismissed then another added 0-250 ms later
 * crashed 9 times in 9, 400 ms later never). So every add and every
 * dismissal waits until TOAST_SETTLE has passed since the one before, and
 * at most one error toast is ever in the overlay: a new error dismisses the
 * one shown, then comes up. */
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
error_dismissed (AdwToast *toast, CtWindow *self)
{
  /* by its timeout or its close button: the overlay animates it away */
  self->toast_quiet_until = MAX (self->toast_quiet_until,
                                 g_get_monotonic_time () + TOAST_SETTLE);
  if (toast == self->error_toast)
    {
      g_clear_object (&self->error_toast);
      self->error_dismiss = FALSE;
    }
  run_ops (self);
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
  if (now < self->toast_quiet_until)
    {
      if (self->error_dismiss || !g_queue_is_empty (self->toast_ops))
        self->toast_source = g_timeout_add ((guint) ((self->toast_quiet_until - now) / 1000) + 1,
                                            run_ops_later, self);
      return;
    }
  next = g_queue_peek_head (self->toast_ops);
  /* a new error takes the place of the one shown */
  if (self->error_toast != NULL && (self->error_dismiss || (next != NULL && is_error (next))))
    {
      g_autoptr (AdwToast) shown = g_steal_pointer (&self->error_toast);

      self->error_dismiss = FALSE;
      self->toast_quiet_until = now + TOAST_SETTLE;
      adw_toast_dismiss (shown);
      run_ops (self);
      return;
    }
  self->error_dismiss = FALSE;
  if (next == NULL)
    return;
  g_queue_pop_head (self->toast_ops);
  if (is_error (next))
    {
      self->error_toast = g_object_ref (next);
      g_signal_connect_object (next, "dismissed", G_CALLBACK (error_dismissed), self, 0);
    }
  self->toast_quiet_until = now + TOAST_SETTLE;
  adw_toast_overlay_add_toast (self->toast_overlay, next);
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
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
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
  self->error_dismiss = self->error_toast != NULL;
  run_ops (self);
}

guint
ct_window_n_errors (CtWindow *self)
{
  guint n = self->error_toast != NULL && !self->error_dismiss;

  for (GList *l = self->toast_ops != NULL ? self->toast_ops->head : NULL; l != NULL; l = l->next)
    n += is_error (l->data);
  return n;
}

const char *
ct_window_get_error_shown (CtWindow *self)
{
  return self->error_toast != NULL && !self->error_dismiss
         ? adw_toast_get_title (self->error_toast) : NULL;
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
  g_clear_object (&self->error_toast);
}
