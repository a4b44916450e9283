/* pooling-private.h: what Pooling and SPP (a pyramid of poolings) share:
 * Caffe's checks on a pooling window, its output-size rule, and running
 * the pooling kernels for one method. */
#pragma once

#include <stdint.h>

#include "layer.h"
#include "pooling.h"

G_BEGIN_DECLS

typedef struct {
  Caffe__PoolingParameter__PoolMethod method;
  gint64 kernel_h, kernel_w;
  gint64 stride_h, stride_w;
  gint64 pad_h, pad_w;
} CtPoolWindow;

/* Positive kernel and stride; padding only for MAX and AVE, and smaller
 * than the kernel, as Caffe requires. */
gboolean ct_pool_window_check (const CtLayer *layer, const CtPoolWindow *w, GError **error);

/* Caffe's pooled size for HEIGHT x WIDTH: (in + 2 pad - kernel) / stride
 * rounded up (or down with FLOOR_MODE), plus one; with padding, one less
 * when the last window would start in the padding. Fails when not even one
 * window fits. */
gboolean ct_pool_window_output (const CtLayer *layer, const CtPoolWindow *w,
                                gboolean floor_mode, gint64 height, gint64 width,
                                gint64 *pooled_h, gint64 *pooled_w, GError **error);

/* The kernel geometry of PLANES planes pooled with W. */
CtPoolGeometry ct_pool_window_geometry (const CtPoolWindow *w, gint64 planes, gint64 height,
                                        gint64 width, gint64 pooled_h, gint64 pooled_w);

/* One pooling pass over G's planes, with the CPU kernels or (GPU) their
 * CUDA twins, every array on that device. INDEX (one per output) holds MAX
 * winners when TOP_MASK is NULL, and STOCHASTIC samples; SAMPLE chooses
 * STOCHASTIC's training behaviour, with UNIFORM (one draw per output). The
 * backward pass adds into BOTTOM_DIFF, or with OVERWRITE writes it (zero
 * where nothing lands). */
gboolean ct_pool_forward (const CtLayer *layer, const CtPoolWindow *w, gboolean sample,
                          gboolean gpu, const CtPoolGeometry *g, const float *bottom,
                          const float *uniform, float *top, int32_t *index, float *top_mask,
                          GError **error);
gboolean ct_pool_backward (const CtLayer *layer, const CtPoolWindow *w, gboolean sample,
                           gboolean gpu, const CtPoolGeometry *g, const float *bottom,
                           const float *top, const float *top_diff, const int32_t *index,
                           const float *top_mask, float *bottom_diff, gboolean overwrite,
                           GError **error);

/* Make *MEM (NULL at first) hold at least N elements of ELEMENT_SIZE bytes:
 * the winners' indices and the draws live in CtMem, so that they follow
 * the pass to whichever device runs it. */
gboolean ct_pool_grow_mem (const CtLayer *layer, CtMem **mem, gint64 n, gsize element_size,
                           GError **error);

/* *MEM's CPU or (GPU) GPU copy, mutable or not; NULL with ERROR set,
 * naming the layer, when it cannot be had. */
gpointer ct_pool_mem_on (const CtLayer *layer, CtMem *mem, gboolean gpu, gboolean mutable_,
                         GError **error);

/* N uniform draws in [0, 1] into MEM from the layer's seed (which moves
 * on), drawn on the CPU, and their copy on the device GPU says: the same
 * draws on either device, so that GPU and CPU runs sample alike. */
const float *ct_pool_draw_uniform (CtLayer *layer, CtMem *mem, gint64 n, gboolean gpu,
                                   GError **error);

G_END_DECLS
