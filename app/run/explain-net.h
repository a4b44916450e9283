/* explain-net.h: an explain input (explain.h) read from a CtNet after a
 * pass, for tests and tools. The values are the net's as they are now: a
 * blob that a later layer overwrote in place holds that layer's output. */
#pragma once

#include "explain.h"
#include "net.h"

G_BEGIN_DECLS

typedef struct {
  CtExplainLayer layer;
  GArray *arrays;  /* CtExplainArray: bottoms, tops, then parameters */
  GPtrArray *below; /* const Caffe__LayerParameter*, borrowed from the net */
} CtExplainNetLayer;

/* Fill OUT with layer LAYER_INDEX of NET (borrowing NET's memory: keep NET
 * unchanged while OUT is used). */
gboolean ct_explain_net_layer_init (CtExplainNetLayer *out, CtNet *net, guint layer_index,
                                    GError **error);
void ct_explain_net_layer_clear (CtExplainNetLayer *out);

G_END_DECLS
