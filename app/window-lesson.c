/* window-lesson.c: a lesson in the window. The lesson panel takes the
 * palette's place while the lesson is open (a class follows steps rather
 * than building nets); each step's actions drive the window through what
 * its buttons and keys use: the run's actions (win.run-*), the phase
 * (win.phase), training (win.train-*), the solver form, the selection and
 * the inputs. Actions that take time (a step to a layer, training) are
 * waited for by polling the window's state, so that the next action sees
 * what the last one did. The lesson's state hangs on the window as object
 * data: CtWindow needs no field for it. */
#include <glib/gi18n-lib.h>

#include "heatmap-view.h"
#include "lesson-panel.h"
#include "window-lesson.h"
#include "window-private.h"

#define LESSON_KEY "ct-window-lesson"
#define POLL_MS 40

typedef struct {
  CtWindow *window;            /* owns this */
  CtLesson *lesson;
  CtLessonPanel *panel;
  GtkWidget *side;             /* the panel and the palette's pane, in a column */
  gboolean window_gone;        /* the window is being destroyed */
  guint index;
  guint next_action;           /* of the step's actions */
  guint poll;                  /* source waiting for the current action */
  int forward_steps;           /* taken by a step-to so far */
  gboolean started;            /* the current action has been started */
  gint64 target_iter;          /* where the training action's run ends */
  const char *error_before;    /* the training error shown when it began */
  gboolean seen_running;       /* the action's run has been seen running */
  int settled_polls;           /* polls in a row that saw it ended */
  char *last_error;
} Lesson;

static void unwrap_side (Lesson *l);
static Lesson *get_lesson (CtWindow *self);

static void
lesson_free (gpointer data)
{
  Lesson *l = data;

  g_clear_handle_id (&l->poll, g_source_remove);
  g_signal_handlers_disconnect_by_data (l->window, l);
  g_signal_handlers_disconnect_by_data (l->panel, l);
  if (!l->window_gone)
    unwrap_side (l);
  g_object_unref (l->panel);
  ct_lesson_free (l->lesson);
  g_free (l->last_error);
  g_free (l);
}

/* The panel out of the box it is in (the side column, or the bar above
 * the graph in presentation mode). */
static void
remove_panel (Lesson *l)
{
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (l->panel));

  if (GTK_IS_BOX (parent))
    gtk_box_remove (GTK_BOX (parent), GTK_WIDGET (l->panel));
}

/* In presentation mode the step is a bar across the top of the graph and
 * the large view, so that at 960×540 both keep their room; elsewhere it is
 * the column beside the graph. */
static void
place_panel (Lesson *l)
{
  GtkWidget *find_bar = GTK_WIDGET (l->window->find_bar);
  gboolean bar = l->window->presenting;

  if (ct_lesson_panel_get_compact (l->panel) == bar
      && gtk_widget_get_parent (GTK_WIDGET (l->panel)) != NULL)
    return;
  remove_panel (l);
  ct_lesson_panel_set_compact (l->panel, bar);
  gtk_widget_set_vexpand (GTK_WIDGET (l->panel), !bar);
  if (bar)
    gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (find_bar)),
                                GTK_WIDGET (l->panel), find_bar);
  else
    gtk_box_prepend (GTK_BOX (l->side), GTK_WIDGET (l->panel));
  /* the column holds only the palette's pane, hidden while presenting */
  gtk_widget_set_visible (l->side, !bar);
}

void
ct_window_lesson_presenting_changed (CtWindow *self)
{
  Lesson *l = get_lesson (self);

  if (l != NULL)
    place_panel (l);
}

/* The palette's pane goes back where window.ui put it. */
static void
unwrap_side (Lesson *l)
{
  GtkWidget *pane = ct_window_get_part (l->window, "palette_pane");
  GtkWidget *paned = gtk_widget_get_parent (l->side);

  g_object_ref (pane);
  gtk_box_remove (GTK_BOX (l->side), pane);
  remove_panel (l);
  if (GTK_IS_PANED (paned))
    gtk_paned_set_start_child (GTK_PANED (paned), pane);
  g_object_unref (pane);
  gtk_widget_set_visible (GTK_WIDGET (l->window->palette), TRUE);
}

/* The panel goes above the palette's pane, in a column of their own: the
 * Training view hides the palette's pane, never the lesson. */
static void
wrap_side (Lesson *l)
{
  GtkWidget *pane = ct_window_get_part (l->window, "palette_pane");
  GtkWidget *paned = gtk_widget_get_parent (pane);

  l->side = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_size_request (l->side, 240, -1);
  g_object_ref (pane);
  gtk_paned_set_start_child (GTK_PANED (paned), l->side);
  gtk_box_append (GTK_BOX (l->side), pane);
  g_object_unref (pane);
  place_panel (l);
  /* a class follows the steps: the palette's room is the lesson's */
  gtk_widget_set_visible (GTK_WIDGET (l->window->palette), FALSE);
}

static Lesson *
get_lesson (CtWindow *self)
{
  return g_object_get_data (G_OBJECT (self), LESSON_KEY);
}

static void run_actions (Lesson *l);

/* win.lesson-next and win.lesson-back: while a lesson is open and its
 * step is done. */
void
ct_window_lesson_update_actions (CtWindow *self)
{
  Lesson *l = get_lesson (self);
  gboolean idle = l != NULL && l->poll == 0;
  GAction *next = g_action_map_lookup_action (G_ACTION_MAP (self), "lesson-next");
  GAction *back = g_action_map_lookup_action (G_ACTION_MAP (self), "lesson-back");

  if (next != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (next),
                                 idle && l->index + 1 < ct_lesson_n_steps (l->lesson));
  if (back != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (back), idle && l->index > 0);
}

/* An action that cannot be done: the step stops there, with a toast that
 * names the lesson's line. */
static void
action_failed (Lesson *l, const CtLessonAction *action, const char *message)
{
  g_autofree char *full = NULL;

  /* TRANSLATORS: %s is the lesson's file, %d its line, the last %s what went wrong */
  full = g_strdup_printf (_("%s:%d: the lesson’s step could not be done: %s"), l->lesson->path,
                          action->line, message);
  g_free (l->last_error);
  l->last_error = g_strdup (full);
  ct_window_show_error (l->window, full);
  l->next_action = G_MAXUINT;
}

static void
activate (CtWindow *self, const char *name, GVariant *param)
{
  g_action_group_activate_action (G_ACTION_GROUP (self), name, param);
}

/* The runner has answered everything asked and the window shows it. */
static gboolean
run_settled (CtWindow *self)
{
  return (self->runner == NULL || !ct_runner_is_busy (self->runner))
         && self->run_pending == NULL;
}

/* The run that the action started has ended: at its last iteration, or
 * stopped, or with a new error. After a restart the last run's end can
 * still be reported for a moment, with its own last iteration: an end
 * counts once the new run was seen running and the end has lasted
 * SETTLED_POLLS polls (the new run reports every iteration meanwhile). */
#define SETTLED_POLLS 10

static gboolean
train_settled (Lesson *l)
{
  CtTrainState state = ct_window_train_get_state (l->window);
  const char *error = ct_window_train_get_last_error (l->window);
  gboolean ended;

  if (state == CT_TRAIN_STATE_RUNNING || state == CT_TRAIN_STATE_PAUSED
      || state == CT_TRAIN_STATE_BREAK)
    l->seen_running = TRUE;
  if (error != NULL && error != l->error_before)
    ended = state != CT_TRAIN_STATE_RUNNING;
  else
    ended = l->seen_running
            && (state == CT_TRAIN_STATE_STOPPED
                || (state == CT_TRAIN_STATE_FINISHED
                    && ct_window_train_get_iter (l->window) >= l->target_iter));
  l->settled_polls = ended ? l->settled_polls + 1 : 0;
  return l->settled_polls >= SETTLED_POLLS;
}

static CtHeatmapView *
find_heatmap (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      CtHeatmapView *found;

      if (CT_IS_HEATMAP_VIEW (child) && gtk_widget_get_visible (child))
        return CT_HEATMAP_VIEW (child);
      found = find_heatmap (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
set_solver_field (CtWindow *self, const char *path, const char *value)
{
  /* as if typed into the Training view's form */
  g_signal_emit_by_name (ct_solver_panel_get_form (self->solver_panel), "changed", path, value);
}

static int
n_layers (CtWindow *self)
{
  const Caffe__NetParameter *net = ct_document_get_net (self->document);

  return net != NULL ? (int) net->n_layer : 0;
}

/* Start ACTION, or go on waiting for it; TRUE when it is done. */
static gboolean
do_action (Lesson *l, const CtLessonAction *action)
{
  CtWindow *self = l->window;

  switch (action->verb)
    {
    case CT_LESSON_OPEN_EXAMPLE:
    case CT_LESSON_OPEN:
      /* another net in this window would drop the edits of this one */
      if (ct_window_has_unsaved_changes (self))
        {
          action_failed (l, action, _("the net shown has unsaved changes: save them "
                                      "(Ctrl+S), then go back a step and on again"));
          return TRUE;
        }
      break;
    default:
      break;
    }
  switch (action->verb)
    {
    case CT_LESSON_OPEN_EXAMPLE:
      if (!ct_window_load_example (self, action->text))
        action_failed (l, action, _("there is no such example"));
      return TRUE;
    case CT_LESSON_OPEN:
      {
        g_autoptr (GFile) file = g_file_new_for_path (action->text);

        if (ct_lesson_is_lesson_path (action->text))
          action_failed (l, action, _("a lesson cannot open another lesson"));
        else if (!ct_window_load_file (self, file))
          action_failed (l, action, _("the file did not open"));
        return TRUE;
      }
    case CT_LESSON_INPUT:
      ct_window_inputs_set_items (self, (const guint *) (void *) action->items->data,
                                  action->items->len);
      return TRUE;
    case CT_LESSON_PHASE:
      g_action_group_change_action_state (G_ACTION_GROUP (self), "phase",
                                          g_variant_new_string (action->text));
      return TRUE;
    case CT_LESSON_VIEW:
      adw_view_stack_set_visible_child_name (self->view_stack, action->text);
      return TRUE;
    case CT_LESSON_SELECT:
      {
        const char *ids[] = { action->text, NULL };

        if (ct_window_layer_for_id (self, action->text) < 0)
          {
            g_autofree char *message = g_strdup_printf (_("the net has no layer “%s”"),
                                                        action->text);
            action_failed (l, action, message);
            return TRUE;
          }
        ct_window_select (self, ids);
        return TRUE;
      }
    case CT_LESSON_STEP_TO:
      if (!l->started)
        {
          if (ct_window_layer_for_id (self, action->text) < 0)
            {
              g_autofree char *message = g_strdup_printf (_("the net has no layer “%s”"),
                                                          action->text);
              action_failed (l, action, message);
              return TRUE;
            }
          l->started = TRUE;
          l->forward_steps = 0;
        }
      if (!run_settled (self))
        return FALSE;
      if (self->run_current != NULL && g_str_equal (self->run_current, action->text)
          && l->forward_steps > 0)
        return TRUE;
      if (self->runner != NULL && l->forward_steps > 0 && self->run_snapshot != NULL
          && ct_run_snapshot_get_error (self->run_snapshot) != NULL)
        {
          action_failed (l, action, ct_run_snapshot_get_error (self->run_snapshot)->message);
          return TRUE;
        }
      /* a whole pass and the next one's start: the layer does not run */
      if (l->forward_steps > 2 * n_layers (self) + 2)
        {
          g_autofree char *message = g_strdup_printf (_("the forward pass never reaches “%s”"),
                                                      action->text);
          action_failed (l, action, message);
          return TRUE;
        }
      l->forward_steps++;
      activate (self, "run-forward", NULL);
      return FALSE;
    case CT_LESSON_FORWARD:
    case CT_LESSON_BACKWARD:
    case CT_LESSON_PASS:
    case CT_LESSON_RESET:
      if (!l->started)
        {
          static const char *const names[] = {
            [CT_LESSON_FORWARD] = "run-forward", [CT_LESSON_BACKWARD] = "run-backward",
            [CT_LESSON_PASS] = "run-pass", [CT_LESSON_RESET] = "run-reset",
          };

          l->started = TRUE;
          activate (self, names[action->verb], NULL);
          return FALSE;
        }
      return run_settled (self);
    case CT_LESSON_CHANNEL:
      {
        CtHeatmapView *heatmap;

        if (!run_settled (self))
          return FALSE;
        heatmap = find_heatmap (GTK_WIDGET (self->blob_panel));
        if (heatmap == NULL)
          {
            action_failed (l, action, _("no blob is shown: step to a layer first"));
            return TRUE;
          }
        ct_heatmap_view_set_zoom_channel (heatmap, (int) action->number);
        /* the inspector scrolls to the focused heatmap: the class sees it
         * even below the layer's explanation */
        gtk_widget_grab_focus (GTK_WIDGET (heatmap));
        return TRUE;
      }
    case CT_LESSON_SOLVER:
      set_solver_field (self, action->text, action->value);
      return TRUE;
    case CT_LESSON_TRAIN:
    case CT_LESSON_RESTART:
      if (!l->started)
        {
          g_autofree char *iterations = g_strdup_printf ("%" G_GINT64_FORMAT, action->number);

          l->started = TRUE;
          l->error_before = ct_window_train_get_last_error (self);
          l->seen_running = FALSE;
          l->settled_polls = 0;
          if (action->verb == CT_LESSON_TRAIN)
            l->target_iter = action->number;
          else
            {
              Caffe__SolverParameter *param = ct_solver_panel_dup_param (self->solver_panel);

              l->target_iter = param != NULL ? param->max_iter : 0;
              if (param != NULL)
                protobuf_c_message_free_unpacked (&param->base, NULL);
            }
          if (action->verb == CT_LESSON_TRAIN)
            {
              set_solver_field (self, "max_iter", iterations);
              /* a new run: not a resumed pause */
              if (ct_window_train_get_state (self) == CT_TRAIN_STATE_PAUSED)
                activate (self, "train-stop", NULL);
              activate (self, "train-toggle", NULL);
            }
          else
            activate (self, "train-restart", NULL);
          return FALSE;
        }
      if (!train_settled (l))
        return FALSE;
      if (ct_window_train_get_last_error (self) != NULL
          && ct_window_train_get_last_error (self) != l->error_before)
        action_failed (l, action, ct_window_train_get_last_error (self));
      return TRUE;
    default:
      return TRUE;
    }
}

static gboolean
poll_again (gpointer data)
{
  Lesson *l = data;

  l->poll = 0;
  run_actions (l);
  return G_SOURCE_REMOVE;
}

/* Do the step's actions from the next one on, until one has to wait. */
static void
run_actions (Lesson *l)
{
  const CtLessonStep *step = ct_lesson_get_step (l->lesson, l->index);

  while (l->next_action < step->actions->len)
    {
      const CtLessonAction *action = g_ptr_array_index (step->actions, l->next_action);

      if (!do_action (l, action))
        {
          l->poll = g_timeout_add (POLL_MS, poll_again, l);
          return;
        }
      if (l->next_action == G_MAXUINT)
        break;
      l->next_action++;
      l->started = FALSE;
    }
  l->started = FALSE;
  ct_lesson_panel_set_busy (l->panel, FALSE);
  ct_window_lesson_update_actions (l->window);
}

void
ct_window_lesson_go_to (CtWindow *self, guint index)
{
  Lesson *l = get_lesson (self);
  const CtLessonStep *step;

  g_return_if_fail (l != NULL && index < ct_lesson_n_steps (l->lesson));
  g_clear_handle_id (&l->poll, g_source_remove);
  step = ct_lesson_get_step (l->lesson, index);
  l->index = index;
  l->next_action = 0;
  l->started = FALSE;
  g_clear_pointer (&l->last_error, g_free);
  ct_lesson_panel_show_step (l->panel, l->lesson->title, index, ct_lesson_n_steps (l->lesson),
                             step->title, step->text);
  ct_lesson_panel_set_busy (l->panel, TRUE);
  ct_window_lesson_update_actions (self);
  run_actions (l);
}

static void
step_chosen (CtLessonPanel *panel, guint index, Lesson *l)
{
  ct_window_lesson_go_to (l->window, index);
}

static void
panel_closed (CtLessonPanel *panel, Lesson *l)
{
  ct_window_lesson_close (l->window);
}

void
ct_window_lesson_close (CtWindow *self)
{
  g_object_set_data (G_OBJECT (self), LESSON_KEY, NULL);
  ct_window_lesson_update_actions (self);
}

/* The window goes: nothing may wait on it any more. */
static void
window_destroyed (CtWindow *self, Lesson *l)
{
  l->window_gone = TRUE;
  g_object_set_data (G_OBJECT (self), LESSON_KEY, NULL);
}

static gboolean
show_lesson (CtWindow *self, CtLesson *lesson)
{
  Lesson *l = g_new0 (Lesson, 1);

  l->window = self;
  l->lesson = lesson;
  l->panel = g_object_ref_sink (ct_lesson_panel_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (l->panel), TRUE);
  g_signal_connect (l->panel, "step-chosen", G_CALLBACK (step_chosen), l);
  g_signal_connect (l->panel, "close", G_CALLBACK (panel_closed), l);
  /* one lesson at a time: the last one's panel goes */
  g_object_set_data (G_OBJECT (self), LESSON_KEY, NULL);
  g_signal_connect (self, "destroy", G_CALLBACK (window_destroyed), l);
  wrap_side (l);
  g_object_set_data_full (G_OBJECT (self), LESSON_KEY, l, lesson_free);
  ct_window_lesson_go_to (self, 0);
  return TRUE;
}

gboolean
ct_window_lesson_open (CtWindow *self, GFile *file)
{
  g_autoptr (GError) error = NULL;
  CtLesson *lesson;

  g_return_val_if_fail (CT_IS_WINDOW (self), FALSE);
  if (g_file_peek_path (file) == NULL)
    {
      ct_window_show_error (self, _("A lesson must be a local file"));
      return FALSE;
    }
  lesson = ct_lesson_load (g_file_peek_path (file), NULL, &error);
  if (lesson == NULL)
    {
      ct_window_report_error (self, _("Could not open the lesson"), error);
      return FALSE;
    }
  return show_lesson (self, lesson);
}

gboolean
ct_window_lesson_open_bundled (CtWindow *self, const char *id)
{
  g_autofree char *path = g_strconcat ("/io/github/cortado/Cortado/lessons/", id, ".lesson", NULL);
  g_autofree char *name = g_strconcat (id, ".lesson", NULL);
  g_autoptr (GBytes) bytes = g_resources_lookup_data (path, 0, NULL);
  g_autoptr (GError) error = NULL;
  CtLesson *lesson;

  if (bytes == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("There is no lesson called “%s”"), id);
      ct_window_show_error (self, message);
      return FALSE;
    }
  lesson = ct_lesson_parse (g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes),
                            name, NULL, NULL, &error);
  if (lesson == NULL)
    {
      ct_window_report_error (self, _("Could not open the lesson"), error);
      return FALSE;
    }
  return show_lesson (self, lesson);
}

void
ct_window_open_lesson_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  ct_window_lesson_open_bundled (data, g_variant_get_string (param, NULL));
}

void
ct_window_lesson_next_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  Lesson *l = get_lesson (data);

  if (l != NULL && l->poll == 0 && l->index + 1 < ct_lesson_n_steps (l->lesson))
    ct_window_lesson_go_to (data, l->index + 1);
}

void
ct_window_lesson_back_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  Lesson *l = get_lesson (data);

  if (l != NULL && l->poll == 0 && l->index > 0)
    ct_window_lesson_go_to (data, l->index - 1);
}

const CtLesson *
ct_window_lesson_get (CtWindow *self)
{
  Lesson *l = get_lesson (self);

  return l != NULL ? l->lesson : NULL;
}

guint
ct_window_lesson_get_index (CtWindow *self)
{
  Lesson *l = get_lesson (self);

  return l != NULL ? l->index : 0;
}

gboolean
ct_window_lesson_is_busy (CtWindow *self)
{
  Lesson *l = get_lesson (self);

  return l != NULL && l->poll != 0;
}

const char *
ct_window_lesson_get_last_error (CtWindow *self)
{
  Lesson *l = get_lesson (self);

  return l != NULL ? l->last_error : NULL;
}

GtkWidget *
ct_window_lesson_get_panel (CtWindow *self)
{
  Lesson *l = get_lesson (self);

  return l != NULL ? GTK_WIDGET (l->panel) : NULL;
}
