/* prefetch-private.h: CtPrefetcher, the batch queue behind the Data and
 * ImageData layers, as Caffe's BasePrefetchingDataLayer: a thread loads
 * batches ahead into a ring of DEPTH buffers while the net computes, and
 * forward takes the oldest full one, copies it into the tops and hands the
 * buffer back. DEPTH 0 loads each batch inside forward instead; both give
 * the same batches in the same order.
 *
 * The thread starts at the first forward, not at setup, so that a net built
 * only to infer shapes starts none. A batch that fails to load carries its
 * error to the forward that takes it; loading stops there and every later
 * forward fails with the same error. */
#pragma once

#include <glib.h>

#include "layer.h"

G_BEGIN_DECLS

typedef struct {
  float *data;
  gsize capacity;     /* floats DATA can hold */
  gint64 shape[4];    /* N×C×H×W of this batch */
  float *labels;      /* N labels */
  gsize label_capacity;
  GError *error;      /* why the batch could not be loaded */
} CtPrefetchBatch;

/* Shape BATCH as N×C×H×W, growing its buffers; the loader fills them. */
void ct_prefetch_batch_shape (CtPrefetchBatch *batch, gint64 n, const gint64 chw[3]);

/* Fill BATCH with the next batch; runs on the prefetch thread. */
typedef gboolean (*CtPrefetchLoadFunc) (CtLayer *layer, CtPrefetchBatch *batch,
                                        GError **error);

typedef struct _CtPrefetcher CtPrefetcher;

CtPrefetcher *ct_prefetcher_new (CtLayer *layer, guint depth, CtPrefetchLoadFunc load);
/* Stops and joins the thread. */
void ct_prefetcher_free (CtPrefetcher *prefetcher);

/* The next batch into TOP[0] (data) and, when there, TOP[1] (labels, shape
 * N). */
gboolean ct_prefetcher_forward (CtPrefetcher *prefetcher, GPtrArray *top, GError **error);

/* The same, into the tops' GPU copies when GPU (a layer's forward on the GPU):
 * the batch goes from the loader's host buffer straight to the device, and
 * the tops' CPU copies are neither written nor read. */
gboolean ct_prefetcher_forward_on (CtPrefetcher *prefetcher, GPtrArray *top, gboolean gpu,
                                   GError **error);

G_END_DECLS
