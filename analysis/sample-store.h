/* sample-store.h: the images of a test set as the net saw them (C × H × W
 * floats each, in test-set order), kept while a confusion matrix is
 * counted so that a view can show the images of a cell, or explain one of
 * them, without reading the data again. Keeping stops (and what was kept
 * is dropped) once the images would take more than a limit: a view then
 * says that the test set is too large to browse. */
#pragma once

#include <glib.h>

#include "blob.h"

G_BEGIN_DECLS

typedef struct {
  guint channels, height, width;
  guint64 count;       /* images kept */
  gsize max_bytes;
  gboolean overflow;   /* the limit was reached: nothing is kept */
  GByteArray *values;  /* count × C × H × W floats */
} CtSampleStore;

CtSampleStore *ct_sample_store_new (gsize max_bytes);
void ct_sample_store_free (CtSampleStore *store);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtSampleStore, ct_sample_store_free)

/* Append the N images of BLOB (N × C × H × W); an image size that differs
 * from the first batch's is an error. */
gboolean ct_sample_store_add (CtSampleStore *store, CtBlob *blob, GError **error);

/* Image INDEX (C × H × W floats), or NULL when it was not kept. */
const float *ct_sample_store_get (const CtSampleStore *store, guint64 index);

G_END_DECLS
