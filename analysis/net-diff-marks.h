/* net-diff-marks.h: a net diff (net-diff.h) read per layer of the second
 * net, for marking its graph: each layer added, renamed or changed, with a
 * note saying how ("changed: convolution_param.num_output 20 → 50"), and
 * the layers removed, which the second net's graph cannot show. */
#pragma once

#include <glib.h>

#include "net-diff.h"

G_BEGIN_DECLS

typedef struct {
  char *layer;         /* in the second net; REMOVED: in the first */
  char *type;          /* REMOVED: the layer's type; NULL otherwise */
  CtNetDiffKind kind;  /* ADDED, RENAMED, CHANGED or REMOVED */
  char *note;          /* one line per change, translated */
} CtNetDiffMark;

/* One mark per layer the diff ENTRIES touches, in the order the entries
 * name them; changes to the net itself (no layer) are left out. */
GPtrArray *ct_net_diff_marks (GPtrArray *entries);

/* The colour a graph marks a layer with: green added, orange changed,
 * blue renamed, red removed (0..255). Colour-blind safe as a set: they
 * differ in lightness as well as hue. */
void ct_net_diff_kind_color (CtNetDiffKind kind, guint8 rgb[3]);

G_END_DECLS
