/* runner-history.c: what the worker knows of each blob during a pass, and
 * the snapshot built from it.
 *
 * The net's observers, called by the engine before and after each layer,
 * keep that knowledge: which blobs hold data and diffs in this pass, which
 * statistics are stale, which layers wrote each blob (version i of a blob
 * is its value as writers[i]'s top: conv1, then relu1 in place), and the
 * copies of watched blobs that an in-place layer is about to overwrite.
 * Copies of past versions count against the history budget; one that
 * would go past it is not kept (the snapshot says the history was cut). */
#include <glib/gi18n-lib.h>

#include "runner-private.h"

static CtRunBlobTrack *
track_at (CtRunWorker *worker, guint blob_index)
{
  g_assert (blob_index < worker->n_blobs);
  return &worker->blobs[blob_index];
}

static void
mark_stale (CtRunBlobTrack *track)
{
  g_clear_pointer (&track->shown, g_ptr_array_unref);
}

static char *
version_label (CtRunWorker *worker, int layer_index)
{
  /* TRANSLATORS: a version of a blob, named by the layer that wrote it:
   * "after relu1" */
  return g_strdup_printf (_("after %s"),
                          ct_layer_get_name (ct_net_get_layer (worker->net, (guint) layer_index)));
}

/* The statistics of the blob as it is now, when they are: the copies made
 * before an in-place layer then need not compute them again. */
static CtBlobStats *
known_data_stats (CtRunBlobTrack *track)
{
  return track->data_dirty ? NULL : track->data_stats;
}

static CtBlobStats *
known_diff_stats (CtRunBlobTrack *track)
{
  return track->diff_dirty ? NULL : track->diff_stats;
}

static gboolean
fits_budget (CtRunWorker *worker, CtRunBlobTrack *track, gsize bytes)
{
  if (worker->history_bytes + bytes > worker->budget)
    {
      track->history_cut = TRUE;
      return FALSE;
    }
  worker->history_bytes += bytes;
  return TRUE;
}

/* Version V as the last snapshot handed it over (a new reference), when
 * that copy still holds what a new one would: the track is not stale (the
 * blob was not written since), and the version carries a diff exactly
 * when WITH_DIFF. NULL otherwise. Keeping the version an in-place layer is
 * about to overwrite then costs no copy when the window was shown it. */
static CtRunVersion *
shown_version (CtRunBlobTrack *track, guint v, gboolean with_diff)
{
  int writer = g_array_index (track->writers, int, v);

  /* The list skips versions not kept: find V by its writer, which writes
   * the blob once in a pass. */
  for (guint i = 0; track->shown != NULL && i < track->shown->len; i++)
    {
      CtRunVersion *version = track->shown->pdata[i];

      if (version->layer_index == writer)
        return (version->diff != NULL) == with_diff ? ct_run_version_ref (version) : NULL;
    }
  return NULL;
}

/* The current version sharing the data of the copy last handed over,
 * with DIFF (copied unless DIFF_COPY is, may be NULL) and DIFF_STATS, when
 * that copy still holds the data of writer WRITER's version; else NULL. */
static CtRunVersion *
current_version (CtRunWorker *worker, CtRunBlobTrack *track, int writer, const float *diff,
                 GBytes *diff_copy, CtBlobStats *diff_stats)
{
  if (track->current == NULL || track->current->layer_index != writer)
    return NULL;
  if (diff == NULL && track->current->diff == NULL)
    return ct_run_version_ref (track->current);
  return ct_run_version_with_diff_full (worker->spares, track->current, diff, diff_copy,
                                        diff_stats);
}

/* Before in-place layer writes BLOB_INDEX: keep the version it overwrites. */
static void
keep_version (CtRunWorker *worker, guint blob_index)
{
  CtRunBlobTrack *track = track_at (worker, blob_index);
  CtBlob *blob = ct_net_get_blob (worker->net, blob_index);
  guint v = track->writers->len;
  const float *data;
  g_autofree char *label = NULL;

  int writer;

  if (!track->watched || !track->has_data || v == 0)
    return;
  v--;
  writer = g_array_index (track->writers, int, v);
  data = ct_blob_cpu_data (blob, NULL);
  if (data == NULL || !fits_budget (worker, track, (gsize) ct_blob_count (blob) * sizeof (float)))
    return;
  if (track->versions->len <= v)
    g_ptr_array_set_size (track->versions, (int) v + 1);
  ct_run_version_unref (track->versions->pdata[v]);
  track->versions->pdata[v] = shown_version (track, v, FALSE);
  if (track->versions->pdata[v] == NULL)
    track->versions->pdata[v] = current_version (worker, track, writer, NULL, NULL, NULL);
  if (track->versions->pdata[v] == NULL)
    {
      label = version_label (worker, writer);
      track->versions->pdata[v] = ct_run_version_new (worker->spares, label, writer,
                                                      ct_blob_get_shape (blob),
                                                      ct_blob_num_axes (blob), data,
                                                      known_data_stats (track), NULL, NULL);
    }
  mark_stale (track);
}

static int
version_of_layer (CtRunBlobTrack *track, guint layer_index)
{
  for (guint i = track->writers->len; i-- > 0;)
    if (g_array_index (track->writers, int, i) == (int) layer_index)
      return (int) i;
  return -1;
}

/* Before in-place LAYER_INDEX's backward overwrites BLOB_INDEX's diff: the
 * diff now is the gradient with respect to that layer's output. */
static void
freeze_diff (CtRunWorker *worker, guint blob_index, guint layer_index)
{
  CtRunBlobTrack *track = track_at (worker, blob_index);
  CtBlob *blob = ct_net_get_blob (worker->net, blob_index);
  gsize bytes = (gsize) ct_blob_count (blob) * sizeof (float);
  int m = version_of_layer (track, layer_index);
  const float *diff, *data;
  CtRunVersion *stored, *shown;

  if (!track->watched || !track->has_diff || m < 0)
    return;
  diff = ct_blob_cpu_diff (blob, NULL);
  if (diff == NULL)
    return;
  stored = (guint) m < track->versions->len ? track->versions->pdata[m] : NULL;
  /* The live diff is the gradient of version diff_version: the copy the
   * window was shown of version M holds it only when M is that one. */
  shown = m == track->diff_version ? shown_version (track, (guint) m, TRUE) : NULL;
  if (stored != NULL)
    {
      if (!fits_budget (worker, track, bytes))
        {
          g_clear_pointer (&shown, ct_run_version_unref);
          return;
        }
      if (shown != NULL && shown->data != stored->data)
        g_clear_pointer (&shown, ct_run_version_unref);
      track->versions->pdata[m] = shown != NULL
                                    ? shown
                                    : ct_run_version_with_diff (worker->spares, stored, diff,
                                                                known_diff_stats (track));
      ct_run_version_unref (stored);
    }
  else if ((guint) m + 1 == track->writers->len)
    {
      g_autofree char *label = NULL;

      data = ct_blob_cpu_data (blob, NULL);
      if (data == NULL || !fits_budget (worker, track, 2 * bytes))
        {
          g_clear_pointer (&shown, ct_run_version_unref);
          return;
        }
      g_ptr_array_set_size (track->versions, m + 1);
      if (shown == NULL)
        shown = current_version (worker, track, (int) layer_index, diff, NULL,
                                 known_diff_stats (track));
      if (shown == NULL)
        label = version_label (worker, (int) layer_index);
      track->versions->pdata[m] = shown != NULL
                                    ? shown
                                    : ct_run_version_new (worker->spares, label, (int) layer_index,
                                                          ct_blob_get_shape (blob),
                                                          ct_blob_num_axes (blob), data,
                                                          known_data_stats (track), diff,
                                                          known_diff_stats (track));
    }
  else
    g_clear_pointer (&shown, ct_run_version_unref);
  mark_stale (track);
}

static void
observe (CtNet *net, CtNetEvent event, guint layer_index, gpointer user_data)
{
  CtRunWorker *worker = user_data;
  guint n_bottoms, n_tops;
  const guint *bottoms = ct_net_get_bottom_ids (net, layer_index, &n_bottoms);
  const guint *tops = ct_net_get_top_ids (net, layer_index, &n_tops);
  gboolean computes = ct_net_layer_need_backward (net, layer_index);

  switch (event)
    {
    case CT_NET_EVENT_BEFORE_FORWARD:
      for (guint j = 0; j < n_tops && j < n_bottoms; j++)
        if (tops[j] == bottoms[j])
          keep_version (worker, tops[j]);
      break;
    case CT_NET_EVENT_AFTER_FORWARD:
      for (guint j = 0; j < n_tops; j++)
        {
          CtRunBlobTrack *track = track_at (worker, tops[j]);
          int writer = (int) layer_index;

          track->has_data = TRUE;
          track->data_dirty = TRUE;
          g_clear_pointer (&track->current, ct_run_version_unref);
          g_array_append_val (track->writers, writer);
          track->diff_version = (int) track->writers->len - 1;
          mark_stale (track);
        }
      break;
    case CT_NET_EVENT_BEFORE_BACKWARD:
      for (guint j = 0; computes && j < n_tops && j < n_bottoms; j++)
        if (tops[j] == bottoms[j])
          freeze_diff (worker, tops[j], layer_index);
      break;
    case CT_NET_EVENT_AFTER_BACKWARD:
      if (computes)
        ct_run_params_after_backward (worker, layer_index);
      for (guint j = 0; computes && j < n_bottoms; j++)
        {
          CtRunBlobTrack *track = track_at (worker, bottoms[j]);

          if (!ct_net_bottom_need_backward (net, layer_index, j))
            continue;
          track->has_diff = TRUE;
          track->diff_dirty = TRUE;
          if (j < n_tops && tops[j] == bottoms[j])
            track->diff_version = version_of_layer (track, layer_index) - 1;
          mark_stale (track);
        }
      break;
    default:
      break;
    }
}

void
ct_run_history_attach (CtRunWorker *worker)
{
  worker->n_blobs = ct_net_n_blobs (worker->net);
  worker->blobs = g_new0 (CtRunBlobTrack, worker->n_blobs);
  for (guint i = 0; i < worker->n_blobs; i++)
    {
      CtRunBlobTrack *track = &worker->blobs[i];

      track->writers = g_array_new (FALSE, FALSE, sizeof (int));
      track->versions = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_run_version_unref);
      track->watched = g_hash_table_contains (worker->watch, ct_net_get_blob_name (worker->net, i));
      track->diff_version = -1;
    }
  ct_net_add_observer (worker->net, observe, worker, NULL);
}

static void
clear_track (CtRunBlobTrack *track)
{
  track->has_data = track->has_diff = FALSE;
  track->data_dirty = track->diff_dirty = FALSE;
  g_clear_pointer (&track->data_stats, ct_blob_stats_unref);
  g_clear_pointer (&track->diff_stats, ct_blob_stats_unref);
  g_array_set_size (track->writers, 0);
  g_ptr_array_set_size (track->versions, 0);
  track->diff_version = -1;
  track->history_cut = FALSE;
  g_clear_pointer (&track->current, ct_run_version_unref);
  mark_stale (track);
}

void
ct_run_history_clear_pass (CtRunWorker *worker)
{
  for (guint i = 0; i < worker->n_blobs; i++)
    clear_track (&worker->blobs[i]);
  worker->history_bytes = 0;
}

void
ct_run_history_begin_backward (CtRunWorker *worker)
{
  for (guint i = 0; i < worker->n_blobs; i++)
    {
      CtRunBlobTrack *track = &worker->blobs[i];

      g_clear_pointer (&track->diff_stats, ct_blob_stats_unref);
      /* A loss's diff holds its weight from the start of backward. */
      track->has_diff = ct_net_blob_loss_weight (worker->net, i) != 0.0f;
      track->diff_dirty = track->has_diff;
      mark_stale (track);
    }
}

void
ct_run_history_drop_unwatched (CtRunWorker *worker)
{
  worker->history_bytes = 0;
  for (guint i = 0; i < worker->n_blobs; i++)
    {
      CtRunBlobTrack *track = &worker->blobs[i];
      gboolean watched = g_hash_table_contains (worker->watch,
                                                ct_net_get_blob_name (worker->net, i));

      if (watched != track->watched)
        mark_stale (track);
      track->watched = watched;
      if (!watched)
        {
          g_ptr_array_set_size (track->versions, 0);
          track->history_cut = FALSE;
          g_clear_pointer (&track->current, ct_run_version_unref);
        }
      for (guint v = 0; v < track->versions->len; v++)
        if (track->versions->pdata[v] != NULL)
          worker->history_bytes += ct_run_version_bytes (track->versions->pdata[v]);
    }
}

/* A pass copies a watched blob once as each of its writers' top (conv1,
 * then relu1 in place), and its diff once per version in backward: two
 * buffers per writer, made ahead so that the first pass's copies go into
 * mapped pages. */
void
ct_run_history_prefill (CtRunWorker *worker)
{
  g_autofree guint *writers = g_new0 (guint, worker->n_blobs);

  for (guint l = 0; l < ct_net_n_layers (worker->net); l++)
    {
      guint n_tops;
      const guint *tops = ct_net_get_top_ids (worker->net, l, &n_tops);

      for (guint j = 0; j < n_tops; j++)
        writers[tops[j]]++;
    }
  for (guint i = 0; i < worker->n_blobs; i++)
    if (worker->blobs[i].watched)
      ct_run_spares_prefill (worker->spares,
                             (gsize) ct_blob_count (ct_net_get_blob (worker->net, i))
                               * sizeof (float),
                             2 * writers[i]);
}

void
ct_run_history_free_tracks (CtRunWorker *worker)
{
  for (guint i = 0; i < worker->n_blobs; i++)
    {
      CtRunBlobTrack *track = &worker->blobs[i];

      clear_track (track);
      g_array_unref (track->writers);
      g_ptr_array_unref (track->versions);
    }
  g_clear_pointer (&worker->blobs, g_free);
  worker->n_blobs = 0;
  worker->history_bytes = 0;
}

/* The versions of watched blob I as the window sees them now. DATA_COPY
 * and DIFF_COPY (may be NULL) are copies of the live data and diff that
 * refresh_stats made with their statistics, to take instead of copying
 * again. */
static GPtrArray *
shown_versions (CtRunWorker *worker, guint i, GBytes *data_copy, GBytes *diff_copy)
{
  CtRunBlobTrack *track = &worker->blobs[i];
  CtBlob *blob = ct_net_get_blob (worker->net, i);
  GPtrArray *shown = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_run_version_unref);
  const float *diff = NULL;
  guint k;

  if (!track->has_data || track->writers->len == 0)
    return shown;
  if (track->has_diff)
    diff = ct_blob_cpu_diff (blob, NULL);
  k = track->writers->len - 1;
  for (guint v = 0; v <= k; v++)
    {
      CtRunVersion *stored = v < track->versions->len ? track->versions->pdata[v] : NULL;
      gboolean live_diff = diff != NULL && (int) v == track->diff_version;

      /* refresh_stats has just brought the track's statistics up to date. */
      if (stored != NULL)
        g_ptr_array_add (shown, live_diff ? ct_run_version_with_diff_full (worker->spares,
                                                                           stored, diff,
                                                                           diff_copy,
                                                                           track->diff_stats)
                                          : ct_run_version_ref (stored));
      else if (v == k)
        {
          const float *data = ct_blob_cpu_data (blob, NULL);
          int writer = g_array_index (track->writers, int, v);
          CtRunVersion *version = current_version (worker, track, writer,
                                                   live_diff ? diff : NULL,
                                                   live_diff ? diff_copy : NULL,
                                                   live_diff ? track->diff_stats : NULL);

          if (version == NULL && data != NULL)
            {
              g_autofree char *label = version_label (worker, writer);

              version = ct_run_version_new_full (worker->spares, label, writer,
                                                 ct_blob_get_shape (blob),
                                                 ct_blob_num_axes (blob), data, data_copy,
                                                 track->data_stats, live_diff ? diff : NULL,
                                                 live_diff ? diff_copy : NULL,
                                                 live_diff ? track->diff_stats : NULL);
            }
          if (version != NULL)
            {
              g_ptr_array_add (shown, version);
              g_clear_pointer (&track->current, ct_run_version_unref);
              track->current = ct_run_version_ref (version);
            }
        }
    }
  return shown;
}

static void
fill_layers (CtRunWorker *worker, CtRunSnapshot *snapshot)
{
  for (guint i = 0; i < ct_net_n_layers (worker->net); i++)
    {
      CtRunLayer *layer = ct_run_layer_new ();
      CtLayer *engine_layer = ct_net_get_layer (worker->net, i);
      const guint *ids;

      layer->name = g_strdup (ct_layer_get_name (engine_layer));
      layer->type = g_strdup (ct_layer_get_type (engine_layer));
      layer->state = g_array_index (worker->layer_state, CtRunLayerState, i);
      layer->need_backward = ct_net_layer_need_backward (worker->net, i);
      ids = ct_net_get_bottom_ids (worker->net, i, &layer->n_bottoms);
      layer->bottoms = g_memdup2 (ids, layer->n_bottoms * sizeof (guint));
      ids = ct_net_get_top_ids (worker->net, i, &layer->n_tops);
      layer->tops = g_memdup2 (ids, layer->n_tops * sizeof (guint));
      layer->params = ct_run_params_get (worker, i);
      g_ptr_array_add (snapshot->layers, layer);
    }
}

/* The statistics of the COUNT values at VALUES: those computed for this
 * snapshot from the same memory when there are, else new ones (added to
 * COMPUTED). Blobs share memory: a Split's tops (GoogLeNet's inception
 * outputs feed four branches: 8 million values summarised four times),
 * a Flatten's or Reshape's top and its bottom. In one snapshot the same
 * memory holds the same values, so one summary serves them all. */
static CtBlobStats *
stats_of (GHashTable *computed, const float *values, gint64 count, CtRunSpares *spares,
          GBytes **copy)
{
  CtBlobStats *stats = g_hash_table_lookup (computed, values);

  if (stats != NULL && stats->stats.count == count)
    return ct_blob_stats_ref (stats);
  if (copy != NULL)
    *copy = ct_run_copy_floats (spares, values, count, &stats);
  else
    stats = ct_blob_stats_compute (values, count);
  /* borrowed: the track keeps it while the snapshot is built */
  g_hash_table_replace (computed, (gpointer) values, stats);
  return stats;
}

/* Brings the track's statistics up to date. Of a watched blob whose
 * versions are to be handed over again, the live data and diff are
 * copied in the same pass that computes their statistics (*DATA_COPY and
 * *DIFF_COPY, new; else left NULL), for shown_versions to take: a big
 * blob is then read once for both (AlexNet's conv1: 11 MiB). A copy the
 * versions then do not take (the live diff belongs to no version shown)
 * is let go of. */
static void
refresh_stats (CtRunWorker *worker, CtBlob *blob, CtRunBlobTrack *track, GHashTable *computed,
               GBytes **data_copy, GBytes **diff_copy)
{
  gboolean copies = track->watched && track->shown == NULL;

  if (track->has_data && (track->data_dirty || track->data_stats == NULL))
    {
      const float *data = ct_blob_cpu_data (blob, NULL);
      /* a copy of the current version only when it is not kept already */
      gboolean copy = copies && track->writers->len > 0 &&
                      (track->current == NULL ||
                       track->current->layer_index !=
                         g_array_index (track->writers, int, track->writers->len - 1));

      g_clear_pointer (&track->data_stats, ct_blob_stats_unref);
      if (data != NULL)
        track->data_stats = stats_of (computed, data, ct_blob_count (blob), worker->spares,
                                      copy ? data_copy : NULL);
      track->data_dirty = FALSE;
    }
  if (track->has_diff && (track->diff_dirty || track->diff_stats == NULL))
    {
      const float *diff = ct_blob_cpu_diff (blob, NULL);
      gboolean copy = copies && track->has_data && track->diff_version >= 0 &&
                      (guint) track->diff_version < track->writers->len;

      g_clear_pointer (&track->diff_stats, ct_blob_stats_unref);
      if (diff != NULL)
        track->diff_stats = stats_of (computed, diff, ct_blob_count (blob), worker->spares,
                                      copy ? diff_copy : NULL);
      track->diff_dirty = FALSE;
    }
}

static void
fill_blobs (CtRunWorker *worker, CtRunSnapshot *snapshot)
{
  g_autoptr (GHashTable) computed = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < worker->n_blobs; i++)
    {
      CtRunBlobTrack *track = &worker->blobs[i];
      CtBlob *engine_blob = ct_net_get_blob (worker->net, i);
      CtRunBlob *blob = ct_run_blob_new ();
      g_autoptr (GBytes) data_copy = NULL;
      g_autoptr (GBytes) diff_copy = NULL;

      refresh_stats (worker, engine_blob, track, computed, &data_copy, &diff_copy);
      blob->name = g_strdup (ct_net_get_blob_name (worker->net, i));
      blob->n_axes = ct_blob_num_axes (engine_blob);
      blob->dims = g_memdup2 (ct_blob_get_shape (engine_blob), blob->n_axes * sizeof (gint64));
      blob->count = ct_blob_count (engine_blob);
      blob->has_data = track->has_data && track->data_stats != NULL;
      blob->has_diff = track->has_diff && track->diff_stats != NULL;
      if (blob->has_data)
        blob->data_stats = ct_blob_stats_ref (track->data_stats);
      if (blob->has_diff)
        blob->diff_stats = ct_blob_stats_ref (track->diff_stats);
      if (blob->has_data && blob->has_diff)
        blob->health = ct_blob_stats_health (blob->data_stats, blob->diff_stats);
      blob->watched = track->watched;
      if (track->watched)
        {
          if (track->shown == NULL)
            track->shown = shown_versions (worker, i, data_copy, diff_copy);
          blob->versions = g_ptr_array_ref (track->shown);
        }
      blob->history_cut = track->history_cut;
      g_hash_table_insert (snapshot->blob_index, blob->name, GUINT_TO_POINTER (i + 1));
      g_ptr_array_add (snapshot->blobs, blob);
    }
}

CtRunSnapshot *
ct_run_history_snapshot (CtRunWorker *worker)
{
  CtRunSnapshot *snapshot = ct_run_snapshot_new ();

  snapshot->serial = ++worker->serial;
  snapshot->steps_done = worker->steps_done;
  snapshot->epoch = worker->command_epoch;
  snapshot->pass = worker->pass;
  snapshot->phase = worker->net != NULL ? ct_net_get_phase (worker->net) : CAFFE__PHASE__TEST;
  snapshot->next_layer = worker->next_layer;
  g_array_append_vals (snapshot->stepped, worker->stepped->data, worker->stepped->len);
  g_array_set_size (worker->stepped, 0);
  snapshot->invalidated = worker->invalidated;
  snapshot->reinitialised = g_steal_pointer (&worker->reinitialised);
  snapshot->loss = worker->loss;
  snapshot->error = g_steal_pointer (&worker->error);
  snapshot->compute_us = worker->compute_us;
  worker->compute_us = 0.0;
  if (worker->net != NULL)
    {
      fill_layers (worker, snapshot);
      fill_blobs (worker, snapshot);
    }
  return snapshot;
}
