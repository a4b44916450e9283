/* run-snapshot.c: CtRunSnapshot and CtRunVersion, the immutable copies the
 * runner's worker hands to the window. Both are atomically reference
 * counted: the worker creates them, the main context reads and drops them,
 * and versions and statistics that did not change are shared by
 * consecutive snapshots. */
#include <string.h>

#include "runner-private.h"

static void
layer_free (gpointer data)
{
  CtRunLayer *layer = data;

  g_free (layer->name);
  g_free (layer->type);
  g_free (layer->bottoms);
  g_free (layer->tops);
  g_clear_pointer (&layer->params, g_ptr_array_unref);
  g_free (layer);
}

CtRunLayer *
ct_run_layer_new (void)
{
  return g_new0 (CtRunLayer, 1);
}

static void
blob_free (gpointer data)
{
  CtRunBlob *blob = data;

  g_free (blob->name);
  g_free (blob->dims);
  ct_blob_stats_unref (blob->data_stats);
  ct_blob_stats_unref (blob->diff_stats);
  g_clear_pointer (&blob->versions, g_ptr_array_unref);
  g_free (blob);
}

CtRunBlob *
ct_run_blob_new (void)
{
  return g_new0 (CtRunBlob, 1);
}

static void
snapshot_clear (gpointer data)
{
  CtRunSnapshot *snapshot = data;

  g_array_unref (snapshot->stepped);
  g_strfreev (snapshot->reinitialised);
  g_clear_error (&snapshot->error);
  g_ptr_array_unref (snapshot->layers);
  g_ptr_array_unref (snapshot->blobs);
  g_hash_table_unref (snapshot->blob_index);
}

CtRunSnapshot *
ct_run_snapshot_new (void)
{
  CtRunSnapshot *snapshot = g_atomic_rc_box_new0 (CtRunSnapshot);

  snapshot->stepped = g_array_new (FALSE, FALSE, sizeof (int));
  snapshot->layers = g_ptr_array_new_with_free_func (layer_free);
  snapshot->blobs = g_ptr_array_new_with_free_func (blob_free);
  snapshot->blob_index = g_hash_table_new (g_str_hash, g_str_equal);
  snapshot->next_layer = 0;
  snapshot->phase = CAFFE__PHASE__TEST;
  return snapshot;
}

CtRunSnapshot *
ct_run_snapshot_ref (CtRunSnapshot *snapshot)
{
  return g_atomic_rc_box_acquire (snapshot);
}

void
ct_run_snapshot_unref (CtRunSnapshot *snapshot)
{
  if (snapshot != NULL)
    g_atomic_rc_box_release_full (snapshot, snapshot_clear);
}

guint64
ct_run_snapshot_get_serial (const CtRunSnapshot *snapshot)
{
  return snapshot->serial;
}

int
ct_run_snapshot_get_epoch (const CtRunSnapshot *snapshot)
{
  return snapshot->epoch;
}

CtRunPass
ct_run_snapshot_get_pass (const CtRunSnapshot *snapshot)
{
  return snapshot->pass;
}

int
ct_run_snapshot_get_next_layer (const CtRunSnapshot *snapshot)
{
  return snapshot->next_layer;
}

const int *
ct_run_snapshot_get_stepped (const CtRunSnapshot *snapshot, guint *len)
{
  *len = snapshot->stepped->len;
  return (const int *) (gpointer) snapshot->stepped->data;
}

gboolean
ct_run_snapshot_get_invalidated (const CtRunSnapshot *snapshot)
{
  return snapshot->invalidated;
}

const char *const *
ct_run_snapshot_get_reinitialised (const CtRunSnapshot *snapshot)
{
  return (const char *const *) snapshot->reinitialised;
}

float
ct_run_snapshot_get_loss (const CtRunSnapshot *snapshot)
{
  return snapshot->loss;
}

const GError *
ct_run_snapshot_get_error (const CtRunSnapshot *snapshot)
{
  return snapshot->error;
}

double
ct_run_snapshot_get_compute_us (const CtRunSnapshot *snapshot)
{
  return snapshot->compute_us;
}

double
ct_run_snapshot_get_overhead_us (const CtRunSnapshot *snapshot)
{
  return snapshot->overhead_us;
}

Caffe__Phase
ct_run_snapshot_get_phase (const CtRunSnapshot *snapshot)
{
  return snapshot->phase;
}

guint
ct_run_snapshot_n_layers (const CtRunSnapshot *snapshot)
{
  return snapshot->layers->len;
}

const CtRunLayer *
ct_run_snapshot_get_layer (const CtRunSnapshot *snapshot, guint i)
{
  g_return_val_if_fail (i < snapshot->layers->len, NULL);
  return snapshot->layers->pdata[i];
}

guint
ct_run_snapshot_n_blobs (const CtRunSnapshot *snapshot)
{
  return snapshot->blobs->len;
}

const CtRunBlob *
ct_run_snapshot_get_blob (const CtRunSnapshot *snapshot, guint i)
{
  g_return_val_if_fail (i < snapshot->blobs->len, NULL);
  return snapshot->blobs->pdata[i];
}

const CtRunBlob *
ct_run_snapshot_find_blob (const CtRunSnapshot *snapshot, const char *name)
{
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (snapshot->blob_index, name));

  return index > 0 ? snapshot->blobs->pdata[index - 1] : NULL;
}

/* Versions */

static void
version_clear (gpointer data)
{
  CtRunVersion *version = data;

  g_free (version->label);
  g_free (version->dims);
  g_bytes_unref (version->data);
  g_clear_pointer (&version->diff, g_bytes_unref);
  ct_blob_stats_unref (version->data_stats);
  ct_blob_stats_unref (version->diff_stats);
}

CtRunVersion *
ct_run_version_ref (CtRunVersion *version)
{
  return g_atomic_rc_box_acquire (version);
}

void
ct_run_version_unref (CtRunVersion *version)
{
  if (version != NULL)
    g_atomic_rc_box_release_full (version, version_clear);
}

/* Spare buffers. A copy of a big blob (AlexNet's conv1 at batch 10 is
 * 11 MiB, GoogLeNet's first convolution 31 MiB) into memory fresh from the
 * system costs four times a copy into memory already mapped: the page
 * faults (5 ms against 1.3 for AlexNet's). The window lets a copy go a
 * step or a pass later, and the next copies of the same blob have the
 * same size; so a runner keeps the buffers of its big copies when they
 * are let go, up to SPARE_LIMIT bytes (the oldest freed first), for its
 * next copies of their size. A copy may outlive its runner (the window
 * holds the last snapshot): once the runner has closed its spares, what
 * comes back is freed. */
#define SPARE_MIN ((gsize) 1 << 20)
#define SPARE_LIMIT ((gsize) 256 << 20)

struct _CtRunSpares {
  gatomicrefcount ref;
  GMutex lock;
  GQueue kept;          /* Spare*, oldest first */
  gsize bytes;
  gboolean closed;
};

typedef struct {
  CtRunSpares *spares;  /* a reference */
  gsize size;
  gpointer memory;
} Spare;

CtRunSpares *
ct_run_spares_new (void)
{
  CtRunSpares *spares = g_new0 (CtRunSpares, 1);

  g_atomic_ref_count_init (&spares->ref);
  g_mutex_init (&spares->lock);
  g_queue_init (&spares->kept);
  return spares;
}

static void
spares_unref (CtRunSpares *spares)
{
  if (!g_atomic_ref_count_dec (&spares->ref))
    return;
  g_mutex_clear (&spares->lock);
  g_free (spares);
}

static void
spare_free (Spare *spare)
{
  spares_unref (spare->spares);
  g_free (spare->memory);
  g_free (spare);
}

static void spare_give_back (gpointer data);

/* Frees the kept buffers; with CLOSE, keeps none from now on. */
static void
spares_empty (CtRunSpares *spares, gboolean close)
{
  GQueue dropped;

  g_mutex_lock (&spares->lock);
  dropped = spares->kept;
  g_queue_init (&spares->kept);
  spares->bytes = 0;
  spares->closed |= close;
  g_mutex_unlock (&spares->lock);
  g_queue_clear_full (&dropped, (GDestroyNotify) spare_free);
}

void
ct_run_spares_clear (CtRunSpares *spares)
{
  spares_empty (spares, FALSE);
}

void
ct_run_spares_close (CtRunSpares *spares)
{
  spares_empty (spares, TRUE);
  spares_unref (spares);
}

/* A buffer of SIZE bytes from SPARES, kept or new. */
static Spare *
spare_take (CtRunSpares *spares, gsize size)
{
  Spare *found = NULL;

  g_mutex_lock (&spares->lock);
  for (GList *l = spares->kept.head; l != NULL; l = l->next)
    if (((Spare *) l->data)->size == size)
      {
        found = l->data;
        g_queue_delete_link (&spares->kept, l);
        spares->bytes -= size;
        break;
      }
  g_mutex_unlock (&spares->lock);
  if (found == NULL)
    {
      found = g_new (Spare, 1);
      g_atomic_ref_count_inc (&spares->ref);
      found->spares = spares;
      found->size = size;
      found->memory = g_malloc (size);
    }
  return found;
}

/* The pages of a new buffer are mapped on their first write; a copy
 * into them cost four times one into pages already mapped (AlexNet's
 * conv1: 5 ms against 1.3). So when a run is built, or a blob is watched,
 * the buffers its first pass will copy into are made ahead (and their
 * pages written), in that command rather than in a step. They are the
 * buffers that pass would allocate anyway, and the spares never keep more
 * than SPARE_LIMIT bytes: prefilling stops there. */
void
ct_run_spares_prefill (CtRunSpares *spares, gsize size, guint n)
{
  guint have = ct_run_spares_n_kept (spares, size);

  if (size < SPARE_MIN)
    return;
  for (; have < n; have++)
    {
      Spare *spare;
      gboolean keep;

      g_mutex_lock (&spares->lock);
      keep = !spares->closed && spares->bytes + size <= SPARE_LIMIT;
      g_mutex_unlock (&spares->lock);
      if (!keep)
        return;
      spare = g_new (Spare, 1);
      g_atomic_ref_count_inc (&spares->ref);
      spare->spares = spares;
      spare->size = size;
      spare->memory = g_malloc (size);
      /* one write per page maps it; the system hands pages zeroed */
      for (gsize at = 0; at < size; at += 4096)
        ((volatile guint8 *) spare->memory)[at] = 0;
      spare_give_back (spare);
    }
}

guint
ct_run_spares_n_kept (CtRunSpares *spares, gsize size)
{
  guint n = 0;

  g_mutex_lock (&spares->lock);
  for (GList *l = spares->kept.head; l != NULL; l = l->next)
    n += ((Spare *) l->data)->size == size;
  g_mutex_unlock (&spares->lock);
  return n;
}

/* A copy's GBytes let go (in any thread): keep its buffer. */
static void
spare_give_back (gpointer data)
{
  Spare *spare = data;
  CtRunSpares *spares = spare->spares;
  GQueue dropped = G_QUEUE_INIT;

  g_mutex_lock (&spares->lock);
  if (spares->closed)
    g_queue_push_tail (&dropped, spare);
  else
    {
      g_queue_push_tail (&spares->kept, spare);
      spares->bytes += spare->size;
    }
  while (spares->bytes > SPARE_LIMIT)
    {
      Spare *oldest = g_queue_pop_head (&spares->kept);

      spares->bytes -= oldest->size;
      g_queue_push_tail (&dropped, oldest);
    }
  g_mutex_unlock (&spares->lock);
  g_queue_clear_full (&dropped, (GDestroyNotify) spare_free);
}

GBytes *
ct_run_copy_floats (CtRunSpares *spares, const float *values, gint64 count, CtBlobStats **stats)
{
  gsize size = (gsize) count * sizeof (float);
  float *memory;
  Spare *spare;

  if (spares == NULL || size < SPARE_MIN)
    {
      if (stats == NULL)
        return g_bytes_new (values, size);
      memory = g_malloc (size);
      *stats = ct_blob_stats_compute_copy (values, count, memory);
      return g_bytes_new_take (memory, size);
    }
  spare = spare_take (spares, size);
  if (stats != NULL)
    *stats = ct_blob_stats_compute_copy (values, count, spare->memory);
  else
    memcpy (spare->memory, values, size);
  return g_bytes_new_with_free_func (spare->memory, size, spare_give_back, spare);
}

/* COPY (a new reference) when given, else a copy of the COUNT floats at
 * VALUES; *STATS: KNOWN (referenced) when given, else computed from
 * VALUES (in the same pass when copied here). */
static GBytes *
copy_of (CtRunSpares *spares, const float *values, gint64 count, GBytes *copy,
         CtBlobStats *known, CtBlobStats **stats)
{
  if (known != NULL)
    *stats = ct_blob_stats_ref (known);
  if (copy != NULL)
    {
      if (known == NULL)
        *stats = ct_blob_stats_compute (values, count);
      return g_bytes_ref (copy);
    }
  return ct_run_copy_floats (spares, values, count, known != NULL ? NULL : stats);
}

CtRunVersion *
ct_run_version_new_full (CtRunSpares *spares, const char *label, int layer_index,
                         const gint64 *dims, guint n_axes, const float *data, GBytes *data_copy,
                         CtBlobStats *data_stats, const float *diff, GBytes *diff_copy,
                         CtBlobStats *diff_stats)
{
  CtRunVersion *version = g_atomic_rc_box_new0 (CtRunVersion);
  gint64 count = 1;

  for (guint i = 0; i < n_axes; i++)
    count *= dims[i];
  version->label = g_strdup (label);
  version->layer_index = layer_index;
  version->n_axes = n_axes;
  version->dims = g_memdup2 (dims, n_axes * sizeof (gint64));
  version->count = count;
  version->data = copy_of (spares, data, count, data_copy, data_stats, &version->data_stats);
  if (diff != NULL)
    version->diff = copy_of (spares, diff, count, diff_copy, diff_stats, &version->diff_stats);
  return version;
}

CtRunVersion *
ct_run_version_new (CtRunSpares *spares, const char *label, int layer_index,
                    const gint64 *dims, guint n_axes, const float *data,
                    CtBlobStats *data_stats, const float *diff, CtBlobStats *diff_stats)
{
  return ct_run_version_new_full (spares, label, layer_index, dims, n_axes, data, NULL,
                                  data_stats, diff, NULL, diff_stats);
}

CtRunVersion *
ct_run_version_with_diff_full (CtRunSpares *spares, CtRunVersion *source, const float *diff,
                               GBytes *diff_copy, CtBlobStats *diff_stats)
{
  CtRunVersion *version = g_atomic_rc_box_new0 (CtRunVersion);

  version->label = g_strdup (source->label);
  version->layer_index = source->layer_index;
  version->n_axes = source->n_axes;
  version->dims = g_memdup2 (source->dims, source->n_axes * sizeof (gint64));
  version->count = source->count;
  version->data = g_bytes_ref (source->data);
  version->data_stats = ct_blob_stats_ref (source->data_stats);
  if (diff != NULL)
    version->diff = copy_of (spares, diff, source->count, diff_copy, diff_stats,
                             &version->diff_stats);
  return version;
}

CtRunVersion *
ct_run_version_with_diff (CtRunSpares *spares, CtRunVersion *source, const float *diff,
                          CtBlobStats *diff_stats)
{
  return ct_run_version_with_diff_full (spares, source, diff, NULL, diff_stats);
}

gsize
ct_run_version_bytes (const CtRunVersion *version)
{
  gsize bytes = g_bytes_get_size (version->data);

  if (version->diff != NULL)
    bytes += g_bytes_get_size (version->diff);
  return bytes;
}
