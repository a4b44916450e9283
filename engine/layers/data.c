/* data.c: Data, batches of Datum records read in key order from an LMDB or
 * LevelDB database (data_param.source, backend), transformed by
 * transform_param, with the records' labels as an optional second top.
 * As in Caffe: the shape comes from the first record (setup peeks at it),
 * rand_skip skips a random number of records below it at the start, the
 * cursor wraps to the first record at the end, and a prefetch thread keeps
 * data_param.prefetch batches ready (0: load inside forward).
 *
 * Each batch takes its shape from its first record; a record of another
 * shape in the same batch, a corrupt record or an undecodable image stops
 * the forward with an error naming the database and the record's key.
 *
 * Trained data-parallel by N solvers (data-shard.h), solver R keeps only
 * the records whose position i in the reading order has i mod N == R, in
 * the TRAIN phase; the TEST phase reads every record (Caffe's rule). */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "data-shard.h"
#include "data-transformer.h"
#include "datum.h"
#include "db.h"
#include "engine-error.h"
#include "layer.h"
#include "prefetch-private.h"
#include "rng.h"

typedef struct {
  CtLayer parent;
  CtDb *db;
  CtDbCursor *cursor;
  CtDataTransformer *transformer;
  CtPrefetcher *prefetcher;
  guint batch_size;
  guint shard_rank;    /* this solver's share: records with offset % count == rank */
  guint shard_count;
  guint64 offset;      /* position of the cursor's record in the reading order */
} CtDataLayer;

static char *
record_name (CtDataLayer *self)
{
  g_autofree char *key = ct_db_cursor_key_text (self->cursor);

  /* TRANSLATORS: a database path and the key of one of its records */
  return g_strdup_printf (_("%s: record '%s'"), ct_db_get_path (self->db), key);
}

/* The current record's pixels and label; DATUM keeps them alive. */
static gboolean
read_record (CtDataLayer *self, Caffe__Datum **datum, CtPixels *pixels, int *label,
             char **where, GError **error)
{
  gsize length;
  const guint8 *value = ct_db_cursor_value (self->cursor, &length);

  *where = record_name (self);
  *datum = ct_datum_parse (value, length, *where, error);
  if (*datum == NULL)
    return FALSE;
  *label = (*datum)->label;
  return ct_datum_get_pixels (*datum, ct_data_transformer_get_color (self->transformer),
                              *where, pixels, error);
}

/* Move to the next record, back to the first after the last. */
static gboolean
advance (CtDataLayer *self, GError **error)
{
  if (!ct_db_cursor_next (self->cursor, error))
    return FALSE;
  self->offset++;
  if (!ct_db_cursor_valid (self->cursor))
    return ct_db_cursor_seek_first (self->cursor, error);
  return TRUE;
}

/* Move past the records another solver reads. */
static gboolean
skip_to_own (CtDataLayer *self, GError **error)
{
  while (self->offset % self->shard_count != self->shard_rank)
    if (!advance (self, error))
      return FALSE;
  return TRUE;
}

static gboolean
load_batch (CtLayer *layer, CtPrefetchBatch *batch, GError **error)
{
  CtDataLayer *self = (CtDataLayer *) layer;
  gint64 first[3] = { 0 }, chw[3];
  gsize stride = 0;

  for (guint i = 0; i < self->batch_size; i++)
    {
      g_autoptr (Caffe__Datum) datum = NULL;
      g_auto (CtPixels) pixels = { 0 };
      g_autofree char *where = NULL;
      int label;

      if (!skip_to_own (self, error) ||
          !read_record (self, &datum, &pixels, &label, &where, error) ||
          !ct_data_transformer_shape (self->transformer, &pixels, chw, where, error))
        return FALSE;
      if (i == 0)
        {
          memcpy (first, chw, sizeof first);
          ct_prefetch_batch_shape (batch, self->batch_size, chw);
          stride = (gsize) (chw[0] * chw[1] * chw[2]);
        }
      else if (memcmp (first, chw, sizeof first) != 0)
        {
          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                       _("%s: gives a %" PRId64 "×%" PRId64 "×%"
                         PRId64 " image but the batch began with %" PRId64
                         "×%" PRId64 "×%" PRId64 " (channels×height×width)"),
                       where, chw[0], chw[1], chw[2], first[0], first[1], first[2]);
          return FALSE;
        }
      if (!ct_data_transformer_apply (self->transformer, &pixels, batch->data + i * stride,
                                      where, error))
        return FALSE;
      batch->labels[i] = (float) label;
      if (!advance (self, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
fail_data (CtLayer *layer, GError *local, GError **error)
{
  gboolean ok = ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, "%s", local->message);

  g_error_free (local);
  return ok;
}

/* Skip a random number of records below RAND_SKIP, wrapping around. */
static gboolean
skip_records (CtDataLayer *self, guint rand_skip, CtRng *rng, GError **error)
{
  guint skip;

  if (rand_skip == 0)
    return TRUE;
  skip = ct_rng_uint32 (rng) % rand_skip;
  g_debug ("layer '%s': skipping the first %u records", ct_layer_get_name (&self->parent),
           skip);
  while (skip-- > 0)
    if (!advance (self, error))
      return FALSE;
  return TRUE;
}

static gboolean
data_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtDataLayer *self = (CtDataLayer *) layer;
  const Caffe__DataParameter *p = layer->param->data_param;
  g_autoptr (CtRng) rng = ct_rng_new (layer->seed);
  g_autoptr (Caffe__Datum) datum = NULL;
  g_auto (CtPixels) pixels = { 0 };
  g_autofree char *where = NULL;
  GError *local = NULL;
  gint64 chw[3], dims[4];
  int label;

  if (p == NULL || p->source == NULL || *p->source == '\0')
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("data_param.source names no database"));
  if (!p->has_batch_size || p->batch_size == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("data_param.batch_size must be positive"));
  self->batch_size = p->batch_size;
  self->shard_rank = 0;
  self->shard_count = 1;
  if (layer->phase == CAFFE__PHASE__TRAIN)
    ct_data_shard_get (&self->shard_rank, &self->shard_count);
  self->transformer = ct_data_transformer_new (layer->param->transform_param, layer->phase,
                                               ct_rng_next_seed (rng), &local);
  if (self->transformer == NULL)
    return fail_data (layer, local, error);

  self->db = ct_db_open (p->source, (CtDbBackend) p->backend, CT_DB_READ, &local);
  if (self->db == NULL || (self->cursor = ct_db_cursor_new (self->db, &local)) == NULL)
    return fail_data (layer, local, error);
  if (!ct_db_cursor_valid (self->cursor))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("%s: the database holds no records"), p->source);
  if (!skip_records (self, p->rand_skip, rng, &local))
    return fail_data (layer, local, error);

  /* the top's shape from the first record, which the first batch reads again */
  if (!read_record (self, &datum, &pixels, &label, &where, &local) ||
      !ct_data_transformer_shape (self->transformer, &pixels, chw, where, &local))
    return fail_data (layer, local, error);
  dims[0] = self->batch_size;
  memcpy (dims + 1, chw, sizeof chw);
  if (!ct_blob_reshape (CT_TOP (top, 0), dims, 4, &local) ||
      (top->len > 1 && !ct_blob_reshape (CT_TOP (top, 1), dims, 1, &local)))
    return fail_data (layer, local, error);

  self->prefetcher = ct_prefetcher_new (layer, p->prefetch, load_batch);
  layer->seed = ct_rng_next_seed (rng);
  return TRUE;
}

/* Each forward shapes the tops from its batch. */
static gboolean
data_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return TRUE;
}

static gboolean
data_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  return ct_prefetcher_forward_on (((CtDataLayer *) layer)->prefetcher, top, gpu, error);
}

static void
data_finalize (CtLayer *layer)
{
  CtDataLayer *self = (CtDataLayer *) layer;

  /* the thread reads the cursor: stop it first */
  g_clear_pointer (&self->prefetcher, ct_prefetcher_free);
  g_clear_pointer (&self->cursor, ct_db_cursor_free);
  g_clear_pointer (&self->db, ct_db_free);
  g_clear_pointer (&self->transformer, ct_data_transformer_free);
}

/* Where the text gives the batch size (for the editor and the runner). */
static guint32 *
data_batch_size (Caffe__LayerParameter *param)
{
  return param->data_param != NULL ? &param->data_param->batch_size : NULL;
}

static const CtLayerExplanation data_explanation = {
  .summary = N_("Reads batches of records (an image and its label) from an LMDB or "
                "LevelDB database, one batch per forward pass, and transforms them "
                "(scale, mean, crop, mirror)."),
  .formula = N_("data[n] = transform(image of record n), label[n] = its class"),
  .parameters = N_("source: the database; batch_size: images per pass; backend: LMDB or "
                   "LEVELDB; transform_param: scale, mean, crop_size, mirror."),
  .gradient = N_("Data is given, not learned: no diff is computed for it."),
};

const CtLayerClass ct_data_layer_class = {
  .explanation = &data_explanation,
  .type = "Data",
  .family = CT_LAYER_FAMILY_DATA,
  .description = N_("Batches of Datum records from an LMDB or LevelDB database"),
  .instance_size = sizeof (CtDataLayer),
  .bottoms = CT_EXACTLY (0),
  .tops = CT_BETWEEN (1, 2),
  .setup = data_setup,
  .reshape = data_reshape,
  .forward = data_forward,
  .gpu_forward = TRUE,
  .finalize = data_finalize,
  .new_layer_text = "transform_param { scale: 0.00390625 }"
                    " data_param { source: \"train_lmdb\" batch_size: 64 backend: LMDB }",
  .is_data_source = TRUE,
  .reads_files = TRUE,
  .transforms_data = TRUE,
  .batch_size = data_batch_size,
  .name_prefix = "data",
};
