/* memory-data.h: feeding a MemoryData layer from the program that runs the
 * net, as Caffe's MemoryDataLayer::Reset does. */
#pragma once

#include <glib.h>

#include "layer.h"

G_BEGIN_DECLS

/* Give LAYER (a MemoryData layer that is set up) N examples: DATA holds
 * N × channels × height × width floats and LABELS N floats (may be NULL:
 * labels 0). Both are copied. N must be a positive multiple of the
 * layer's batch_size; each forward then takes the next batch_size examples,
 * starting over after the last. */
gboolean ct_memory_data_layer_reset (CtLayer *layer, const float *data, const float *labels,
                                     gsize n, GError **error);

G_END_DECLS
