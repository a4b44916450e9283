/* receptive-field.h: which input pixels a unit of a layer's output sees.
 * Along the chain of layers from the input to the blob, each convolution
 * or pooling of kernel k, stride s, padding p and dilation d turns the
 * field's size r, the distance j between neighbouring units' fields and
 * the centre c0 of the first unit's field into
 *   r' = r + (k − 1)·d·j,   j' = j·s,   c0' = c0 + ((k − 1)·d / 2 − p)·j,
 * element-wise layers (ReLU, LRN, BatchNorm, Dropout, …) change nothing,
 * and an inner product or a global pooling sees the whole input. Where a
 * layer has several bottoms (Eltwise, Concat) the first is followed. */
#pragma once

#include <glib.h>

#include "net.h"

G_BEGIN_DECLS

typedef struct {
  double size_h, size_w;     /* the field's side, in input pixels */
  double jump_h, jump_w;     /* input pixels between neighbouring units */
  double centre_h, centre_w; /* centre of unit (0, 0), in input pixels */
} CtReceptiveField;

/* The field of the units of blob BLOB in blob INPUT. */
gboolean ct_receptive_field (CtNet *net, guint input, guint blob, CtReceptiveField *field,
                             GError **error);

/* The input rectangle unit (Y, X) sees: top-left corner and size, clipped
 * to an image of HEIGHT × WIDTH. */
void ct_receptive_field_box (const CtReceptiveField *field, guint y, guint x, guint height,
                             guint width, int *top, int *left, int *box_h, int *box_w);

G_END_DECLS
