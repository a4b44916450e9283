/* model-diff.h: what changed between two sets of weights (two snapshots of
 * one net, or a caffemodel and the live weights): per parameter blob,
 * matched by layer name and blob index, the relative change ‖Δw‖/‖w‖
 * (Δw = B − A, norms over the blob, w the first model's), the largest
 * change of one value and where; layers with weights in only one model;
 * blobs whose shapes differ. Equal means the same layers, shapes and
 * values, bit for bit. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"

G_BEGIN_DECLS

typedef struct {
  char *layer;
  guint blob_index;
  char *shape_a, *shape_b;   /* "20 1 5 5" */
  gboolean same_shape;
  gint64 count;
  double norm_a;             /* ‖w‖ */
  double norm_delta;         /* ‖Δw‖ */
  double relative;           /* ‖Δw‖ / ‖w‖; ‖Δw‖ when ‖w‖ is 0 */
  double max_abs_delta;      /* the largest |Δw| of one value */
  gint64 max_index;          /* its flat index in the blob */
  guint64 n_changed;         /* values that differ */
} CtModelDiffBlob;

typedef struct {
  GPtrArray *blobs;    /* CtModelDiffBlob*, in the first model's order */
  GPtrArray *only_a;   /* names of layers with weights in the first model only */
  GPtrArray *only_b;   /* and in the second only */
} CtModelDiff;

void ct_model_diff_free (CtModelDiff *diff);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtModelDiff, ct_model_diff_free)

CtModelDiff *ct_model_diff_compute (const Caffe__NetParameter *a, const Caffe__NetParameter *b,
                                    GError **error);
/* Two .caffemodel files (V1 models upgraded). Errors name the file. */
CtModelDiff *ct_model_diff_files (const char *path_a, const char *path_b, GError **error);

/* A .caffemodel, read and upgraded (V1 models); errors name the file. */
Caffe__NetParameter *ct_model_read (const char *path, GError **error);

gboolean ct_model_diff_is_equal (const CtModelDiff *diff);

/* The blobs ordered by relative change, largest first (borrowed pointers). */
GPtrArray *ct_model_diff_by_change (const CtModelDiff *diff);

/* A text report: one TSV line per blob ("layer	blob	shape	‖w‖	‖Δw‖	
 * ‖Δw‖/‖w‖	max |Δw|	at	changed"), then the layers in one model only and
 * the blobs whose shapes differ. Numbers in the C locale. */
char *ct_model_diff_to_text (const CtModelDiff *diff);

G_END_DECLS
