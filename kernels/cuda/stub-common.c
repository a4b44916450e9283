/* cuda/stub-common.c: the ct_cuda_ twins of common.h for builds without
 * CUDA, each answering CT_STATUS_NO_DEVICE (see cuda/stub.c). */
#include <stddef.h>

#include "common.h"

CtStatus
ct_cuda_copy_blocks (int64_t num, int64_t block, const float *src, int64_t src_stride,
                     float *dst, int64_t dst_stride)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_eltwise_max_first (int64_t n, const float *a, const float *b, float *top,
                           int32_t *mask)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_eltwise_max_next (int64_t n, const float *x, int32_t index, float *top, int32_t *mask)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_eltwise_max_backward (int64_t n, const float *top_diff, const int32_t *mask,
                              int32_t index, float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_tile_forward (int64_t outer, int64_t inner, int64_t tiles, const float *bottom,
                      float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_tile_backward (int64_t outer, int64_t inner, int64_t tiles, const float *top_diff,
                       float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_reduce_forward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                        const float *bottom, float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_reduce_backward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                         const float *bottom_data, const float *top_diff, float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_bias_forward (int64_t outer, int64_t dim, int64_t inner, const float *bottom,
                      const float *bias, float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_scale_forward (int64_t outer, int64_t dim, int64_t inner, const float *bottom,
                       const float *scale, float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_bias_backward (int64_t outer, int64_t dim, int64_t inner, const float *top_diff,
                       int accumulate, float *bias_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_scale_backward (int64_t outer, int64_t dim, int64_t inner, const float *top_diff,
                        const float *bottom_data, int accumulate, float *scale_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_gather_rows (int64_t n, int64_t row, const int64_t *indices, const float *src,
                     float *dst)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_scatter_add_rows (int64_t n, int64_t row, const int64_t *indices, const float *src,
                          float *dst)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_float_indices (int64_t n, const float *values, int64_t limit, int whole, int64_t *out,
                       int64_t *bad)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_filter_select (int64_t n, const float *selector, int64_t *indices, int64_t *n_selected)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_argmax (int64_t num, int64_t dim, int64_t axis_dist, int64_t top_k, int has_axis,
                int out_max_val, const float *bottom, float *top, float *scratch_val,
                int64_t *scratch_idx)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_scale_bias_forward (int64_t outer, int64_t dim, int64_t inner, const float *bottom,
                            const float *scale, const float *bias, float *top)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_scale_bias_backward (int64_t outer, int64_t dim, int64_t inner, const float *top_diff,
                             const float *bottom_data, const float *scale, int accumulate,
                             float *scale_diff, float *bias_diff, float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_eltwise_sum (int64_t count, int n, const float *const *x, float *y)
{
  return CT_STATUS_NO_DEVICE;
}
