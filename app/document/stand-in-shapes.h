/* stand-in-shapes.h: shape inference that goes past data layers whose
 * source cannot be read, with a shape standing in for their tops. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "net.h"

G_BEGIN_DECLS

/* Whether layers of TYPE read a source that may be missing (Data,
 * ImageData, HDF5Data: the classes that say reads_files); whether LAYER
 * is one, as inferred. */
gboolean ct_stand_in_reads_data (const char *type);
gboolean ct_stand_in_is_source (const CtNetShapeLayer *layer);

/* "64x1x28x28; 64": one shape per top, separated by ';'; ×, x, commas or
 * spaces between sizes. Each shape a GArray of gint64; NULL with ERROR when
 * TEXT is not a shape. */
GPtrArray *ct_stand_in_parse (const char *text, GError **error);

/* ct_net_infer_shapes, where a data layer that fails and has a stand-in in
 * STAND_INS (layer name -> text; NULL: none) gives its tops that shape
 * (with the batch size of its own text) and keeps its error. */
CtNetShapes *ct_net_infer_shapes_with_stand_ins (const Caffe__NetParameter *net,
                                                 const CtNetConfig *config,
                                                 GHashTable *stand_ins);

G_END_DECLS
