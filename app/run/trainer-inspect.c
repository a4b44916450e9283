/* trainer-inspect.c: what the trainer's worker reads of the live train
 * net: the update ratios after each update, the first non-finite value,
 * the step-through snapshot at a breakpoint, the followed blob, and the
 * files of an export. */
#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <time.h>

#include "runner-private.h"
#include "snapshot.h"
#include "text-format.h"
#include "trainer-private.h"

/* Update ratios */

gboolean
ct_train_inspect_ratios (CtTrainWorker *w, int iter)
{
  CtNet *net = ct_solver_get_net (w->solver);
  gboolean finite = TRUE;
  guint row = 0;
  double step = 0, weights = 0;
  int layer_now = -1;

  /* After the update each parameter's diff holds the step just applied
   * (the learning rate included) and its data the new weights: the ratio
   * is ‖diff‖ / ‖data‖ over the layer's own (not shared) blobs. */
  for (guint i = 0; i <= ct_net_n_params (net); i++)
    {
      guint layer = G_MAXUINT, index;

      if (i < ct_net_n_params (net))
        {
          if (ct_net_get_param_owner (net, i) >= 0)
            continue;
          ct_net_get_param_location (net, i, &layer, &index);
        }
      if (layer_now >= 0 && layer != (guint) layer_now)
        {
          CtTrainRatio ratio = { iter, row++, 0.0 };

          ratio.ratio = weights > 0 ? sqrt (step) / sqrt (weights) : (step > 0 ? INFINITY : 0);
          /* weights so large that their sum of squares overflows give
           * a ratio of 0: look for non-finite values then too */
          finite = finite && isfinite (ratio.ratio) && isfinite (weights);
          g_array_append_val (w->ratios, ratio);
          step = weights = 0;
        }
      if (i == ct_net_n_params (net))
        break;
      layer_now = (int) layer;
      step += ct_blob_sumsq_diff (ct_net_get_param_blob (net, i), NULL);
      weights += ct_blob_sumsq_data (ct_net_get_param_blob (net, i), NULL);
    }
  return finite;
}

/* Non-finite values */

GError *
ct_train_inspect_not_finite (CtNet *net)
{
  GError *found = NULL;

  /* the engine's CT_ENGINE_ERROR_NOT_FINITE, with the layer and blob as
   * data (error-place.h) */
  if (ct_net_check_finite (net, &found))
    return NULL;
  return found;
}

/* The breakpoint's snapshot */

static gboolean
blob_has_data (CtNet *net, guint blob, CtRunPass pass, int layer)
{
  if (pass == CT_RUN_PASS_BACKWARD)
    return TRUE;
  /* In forward, before LAYER: written by a layer below it, or an input
   * nobody writes. */
  for (guint l = 0; l < ct_net_n_layers (net); l++)
    {
      guint n_tops;
      const guint *tops = ct_net_get_top_ids (net, l, &n_tops);

      for (guint t = 0; t < n_tops; t++)
        if (tops[t] == blob)
          return (int) l < layer;
    }
  return TRUE;
}

static gboolean
blob_has_diff (CtNet *net, guint blob, CtRunPass pass, int layer)
{
  if (pass != CT_RUN_PASS_BACKWARD)
    return FALSE;
  for (guint l = (guint) layer + 1; l < ct_net_n_layers (net); l++)
    {
      guint n_bottoms;
      const guint *bottoms = ct_net_get_bottom_ids (net, l, &n_bottoms);

      for (guint b = 0; b < n_bottoms; b++)
        if (bottoms[b] == blob && ct_net_bottom_need_backward (net, l, b))
          return TRUE;
    }
  return FALSE;
}

CtRunSnapshot *
ct_train_inspect_snapshot (CtTrainWorker *w, CtNet *net, CtRunPass pass, int layer)
{
  CtRunSnapshot *s = ct_run_snapshot_new ();

  s->serial = ++w->serial;
  s->pass = pass;
  s->phase = ct_net_get_phase (net);
  s->next_layer = layer;
  s->loss = w->loss;
  for (guint l = 0; l < ct_net_n_layers (net); l++)
    {
      CtRunLayer *rl = ct_run_layer_new ();
      CtLayer *cl = ct_net_get_layer (net, l);
      const guint *ids;

      rl->name = g_strdup (ct_layer_get_name (cl));
      rl->type = g_strdup (ct_layer_get_type (cl));
      rl->need_backward = ct_net_layer_need_backward (net, l);
      if (pass == CT_RUN_PASS_FORWARD)
        rl->state = (int) l < layer ? CT_RUN_LAYER_FORWARD_DONE : CT_RUN_LAYER_PENDING;
      else if ((int) l > layer)
        rl->state = rl->need_backward ? CT_RUN_LAYER_BACKWARD_DONE
                                      : CT_RUN_LAYER_BACKWARD_SKIPPED;
      else
        rl->state = CT_RUN_LAYER_FORWARD_DONE;
      ids = ct_net_get_bottom_ids (net, l, &rl->n_bottoms);
      rl->bottoms = g_memdup2 (ids, rl->n_bottoms * sizeof (guint));
      ids = ct_net_get_top_ids (net, l, &rl->n_tops);
      rl->tops = g_memdup2 (ids, rl->n_tops * sizeof (guint));
      /* Statistics of the weights (of their diffs once this pass's
       * backward computed them), no full copies. */
      rl->params = ct_run_params_build (net, l, rl->state == CT_RUN_LAYER_BACKWARD_DONE,
                                        FALSE);
      g_ptr_array_add (s->layers, rl);
    }
  for (guint b = 0; b < ct_net_n_blobs (net); b++)
    {
      CtRunBlob *rb = ct_run_blob_new ();
      CtBlob *blob = ct_net_get_blob (net, b);

      rb->name = g_strdup (ct_net_get_blob_name (net, b));
      rb->n_axes = ct_blob_num_axes (blob);
      rb->dims = g_memdup2 (ct_blob_get_shape (blob), rb->n_axes * sizeof (gint64));
      rb->count = ct_blob_count (blob);
      rb->has_data = blob_has_data (net, b, pass, layer);
      rb->has_diff = blob_has_diff (net, b, pass, layer);
      if (rb->has_data)
        rb->data_stats = ct_blob_stats_compute (ct_blob_cpu_data (blob, NULL), rb->count);
      if (rb->has_diff)
        {
          rb->diff_stats = ct_blob_stats_compute (ct_blob_cpu_diff (blob, NULL), rb->count);
          rb->health = ct_blob_stats_health (rb->data_stats, rb->diff_stats);
        }
      rb->watched = g_strcmp0 (rb->name, w->watch_name) == 0;
      rb->versions = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_run_version_unref);
      if (rb->watched && rb->has_data)
        {
          g_autofree char *label = g_strdup_printf (_("during iteration %d"),
                                                    ct_solver_get_iter (w->solver));

          g_ptr_array_add (rb->versions,
                           ct_run_version_new (NULL, label, layer, rb->dims, rb->n_axes,
                                               ct_blob_cpu_data (blob, NULL), rb->data_stats,
                                               rb->has_diff ? ct_blob_cpu_diff (blob, NULL)
                                                            : NULL,
                                               rb->diff_stats));
        }
      g_hash_table_insert (s->blob_index, rb->name, GUINT_TO_POINTER (b + 1));
      g_ptr_array_add (s->blobs, rb);
    }
  return s;
}

/* The followed blob */

/* The calling thread's CPU time: what a copy costs, whether or not the
 * thread is preempted meanwhile on a busy machine. */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return g_get_monotonic_time ();
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

void
ct_train_inspect_watch (CtTrainWorker *w, CtNet *net, int iter)
{
  CtBlob *blob = ct_net_blob_by_name (net, w->watch_name);
  gint64 start = thread_cpu_us ();
  CtTrainProgress *c;
  const float *data;

  if (blob == NULL || (data = ct_blob_cpu_data (blob, NULL)) == NULL)
    return;
  g_clear_pointer (&w->watch, ct_train_progress_unref);
  c = w->watch = ct_train_progress_new ();
  c->watch_name = g_strdup (w->watch_name);
  c->watch_iter = iter;
  c->watch_n_axes = ct_blob_num_axes (blob);
  c->watch_dims = g_memdup2 (ct_blob_get_shape (blob), c->watch_n_axes * sizeof (gint64));
  c->watch_data = g_bytes_new (data, (gsize) ct_blob_count (blob) * sizeof (float));
  c->watch_stats = ct_blob_stats_compute (data, ct_blob_count (blob));
  w->watch_cost_us = thread_cpu_us () - start;
  w->watch_train_us = 0;
  w->watch_held = FALSE;
}

/* Export */

/* The train net's definition as text. */
static char *
net_text (CtTrainWorker *w, GError **error)
{
  const Caffe__SolverParameter *p = ct_solver_get_param (w->solver);
  const char *path = p->train_net != NULL && *p->train_net ? p->train_net : p->net;
  g_autofree char *resolved = NULL;
  char *text = NULL;

  if (p->train_net_param != NULL)
    return ct_text_print (&p->train_net_param->base);
  if (p->net_param != NULL)
    return ct_text_print (&p->net_param->base);
  if (path == NULL)
    return ct_text_print (&ct_net_get_param (ct_solver_get_net (w->solver))->base);
  if (!g_file_test (path, G_FILE_TEST_EXISTS) && w->source_path != NULL &&
      !g_path_is_absolute (path))
    {
      g_autofree char *dir = g_path_get_dirname (w->source_path);

      resolved = g_build_filename (dir, path, NULL);
    }
  if (!g_file_get_contents (resolved != NULL ? resolved : path, &text, NULL, error))
    return NULL;
  return text;
}

gboolean
ct_train_export (CtTrainWorker *w, const char *folder, GError **error)
{
  CtNet *net = ct_solver_get_net (w->solver);
  const char *name = ct_net_get_name (net);
  int iter = ct_solver_get_iter (w->solver);
  g_autofree char *base = NULL;
  g_autofree char *net_path = NULL;
  g_autofree char *model = NULL;
  g_autofree char *state = NULL;
  g_autofree char *text = NULL;
  g_autofree char *absolute = NULL;
  CtSnapshotFormat binary = CAFFE__SOLVER_PARAMETER__SNAPSHOT_FORMAT__BINARYPROTO;

  if (name == NULL || *name == '\0')
    name = "net";
  if (g_mkdir_with_parents (folder, 0777) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   _("cannot create the folder '%s': %s"), folder, g_strerror (saved));
      return FALSE;
    }
  base = g_build_filename (folder, name, NULL);
  net_path = g_strconcat (base, ".prototxt", NULL);
  text = net_text (w, error);
  if (text == NULL || !g_file_set_contents (net_path, text, -1, error))
    return FALSE;
  model = ct_snapshot_model_filename (base, iter, binary);
  state = ct_snapshot_state_filename (base, iter, binary);
  /* The solverstate names its caffemodel by a path that works from any
   * working folder. */
  absolute = g_canonicalize_filename (model, NULL);
  if (!ct_snapshot_write_model (net, model, binary, FALSE, error) ||
      !ct_solver_state_write (state, binary, iter, absolute, w->current_step,
                              ct_solver_get_history (w->solver), error))
    return FALSE;
  g_ptr_array_add (w->files, g_steal_pointer (&net_path));
  g_ptr_array_add (w->files, g_steal_pointer (&model));
  g_ptr_array_add (w->files, g_steal_pointer (&state));
  return TRUE;
}
