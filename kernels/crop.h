/* crop.h: copying an N-D window between a blob and a smaller one, for
 * Caffe's Crop layer. The window of BIG (shape BIG_SHAPE) that starts at
 * OFFSETS and has SMALL_SHAPE is copied into SMALL (forward) or from SMALL
 * back into it (backward, leaving the rest of BIG as it is). Shapes and
 * offsets have N_AXES entries, 1 <= N_AXES <= CT_CROP_MAX_AXES; a window
 * that does not fit, or negative sizes, give CT_STATUS_INVALID.
 *
 * The ct_cuda_ twins (cuda/crop.cu) take the same arguments: BIG and SMALL
 * in device memory, the shapes and offsets on the host. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_CROP_MAX_AXES 32

CtStatus ct_cpu_crop_forward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                              const int64_t *offsets, const float *big, float *small);
CtStatus ct_cuda_crop_forward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                               const int64_t *offsets, const float *big, float *small);

CtStatus ct_cpu_crop_backward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                               const int64_t *offsets, const float *small, float *big);
CtStatus ct_cuda_crop_backward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                                const int64_t *offsets, const float *small, float *big);

#ifdef __cplusplus
}
#endif
