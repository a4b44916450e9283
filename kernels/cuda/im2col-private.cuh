/* im2col-private.cuh: what cuda/conv.cu takes from cuda/im2col.cu beyond
 * im2col.h: im2col and col2im over several images at once (one launch for
 * a whole sub-batch, 2-D or N-D), and the deterministic row sums that
 * batch_pack uses (the bias gradient sums through segment-sum.cuh).
 *
 * Image i of a batch starts at im + i * IM_STRIDE; its column matrix at
 * col + i * COL_STRIDE, with rows LD floats apart: COL_STRIDE = positions
 * and LD = nb * positions put the images' columns side by side, as the CPU
 * side's _ld functions do. */
#pragma once

#include <cstdint>

#include "im2col.h"
#include "status.h"

typedef struct {
  int n;                  /* spatial axes, 1 .. CT_IM2COL_MAX_AXES */
  int64_t channels;       /* image channels */
  int64_t im_dims[CT_IM2COL_MAX_AXES];
  int64_t out_dims[CT_IM2COL_MAX_AXES];
  int64_t kernel[CT_IM2COL_MAX_AXES];
  int64_t pad[CT_IM2COL_MAX_AXES];
  int64_t stride[CT_IM2COL_MAX_AXES];
  int64_t dilation[CT_IM2COL_MAX_AXES];
} CtIm2colGeometry;

/* CT_STATUS_OK when every size is in range (as im2col.h says), else
 * CT_STATUS_INVALID. */
CtStatus ct_cuda_im2col_geometry_check (const CtIm2colGeometry *g);

/* Launched on the default stream; no waiting. NB 0 does nothing. */
CtStatus ct_cuda_im2col_batch (const CtIm2colGeometry *g, int64_t nb, const float *im,
                               int64_t im_stride, float *col, int64_t col_stride, int64_t ld);
CtStatus ct_cuda_col2im_batch (const CtIm2colGeometry *g, int64_t nb, const float *col,
                               int64_t col_stride, int64_t ld, float *im, int64_t im_stride);

/* sums[r] += the sum over images i < NUM and positions s < SPATIAL of
 * src[(i * rows + r) * spatial + s], in a fixed order (results repeat). */
CtStatus ct_cuda_row_sums (int64_t num, int64_t rows, int64_t spatial, const float *src,
                           float *sums);
