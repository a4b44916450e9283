/* top-activations.h: what one channel of a layer responds to: over a test
 * set, the images whose strongest response in the channel (its maximum
 * over the positions) is highest, with where it was and the patch of the
 * image that the unit there sees (its receptive field). */
#pragma once

#include <glib.h>

#include "analysis-error.h"
#include "analysis-net.h"
#include "net.h"
#include "receptive-field.h"
#include "sample-store.h"

G_BEGIN_DECLS

typedef struct {
  guint64 index;      /* the image's place in the test set */
  float value;        /* the channel's largest response to it */
  guint y, x;         /* where, in the channel's plane */
  int top, left, box_h, box_w; /* the patch, in the image (clipped) */
  float *image;       /* C × H × W: the image as the net saw it */
} CtTopActivation;

typedef struct {
  guint channels, height, width;    /* of the images */
  CtReceptiveField field;
  GArray *items;      /* CtTopActivation, strongest first; owns their images */
} CtTopActivations;

void ct_top_activations_free (CtTopActivations *top);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtTopActivations, ct_top_activations_free)

/* Run the net forward ITERATIONS times (its data layers reading the test
 * set) and keep the K images that excite channel CHANNEL of layer
 * LAYER_NAME's first top most. INPUT_NAME: the images' blob (NULL: the
 * net's first input, else "data"). */
CtTopActivations *ct_top_activations_run (CtNet *net, const char *input_name,
                                          const char *layer_name, guint channel, guint k,
                                          guint iterations, CtAnalysisProgressFunc progress,
                                          gpointer user_data, GError **error);

/* The same over the images of STORE (kept while a confusion matrix was
 * counted, so that an item's index is its place there), put into PATH's
 * input BATCH at a time; only the layers from PATH's first up to
 * LAYER_NAME run, so a first layer's channels take a fraction of a whole
 * pass. */
CtTopActivations *ct_top_activations_of_store (CtNet *net, const CtAnalysisPath *path,
                                               const CtSampleStore *store,
                                               const char *layer_name, guint channel, guint k,
                                               guint batch, CtAnalysisProgressFunc progress,
                                               gpointer user_data, GError **error);

/* The filter of output channel CHANNEL (C × H × W floats, owned) when
 * LAYER_NAME is a convolution that reads blob INPUT_BLOB itself (a first
 * layer, whose filters are pictures in the images' own pixels); NULL for
 * any other layer. */
float *ct_top_activations_filter (CtNet *net, guint input_blob, const char *layer_name,
                                  guint channel, guint *channels, guint *height, guint *width);

/* The patch of ITEM as C × box_h × box_w floats. */
float *ct_top_activation_patch (const CtTopActivations *top, const CtTopActivation *item);

G_END_DECLS
