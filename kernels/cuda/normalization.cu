/* normalization.cu: the CUDA side of normalization.h, the per-channel
 * statistics of BatchNorm and MVN.
 *
 * Each channel is one segment of segment-sum.cuh: a fixed group of threads
 * sums it in double and combines the partial sums in a fixed tree, so the
 * statistics are deterministic and at least as accurate as the CPU's
 * float lanes combined in double. The kernels that also write the channel
 * (center, the gradient) do so from the same group, after every read of
 * it: Y may be X and DX may be DY, as on the CPU. */
#include <cstdint>

#include "blas.h"
#include "cuda-private.cuh"
#include "normalization.h"
#include "segment-sum.cuh"

static inline int
valid_grid (int64_t outer, int64_t channels, int64_t inner)
{
  return outer >= 0 && channels >= 0 && inner >= 0;
}

/* Channels are columns when INNER is 1: consecutive threads then take
 * consecutive channels. */
#define CHANNEL_MAJOR(inner) ((inner) == 1)

struct MeanOp
{
  int64_t channels, inner, len;
  const float *x;
  float *mean;

  __device__ double2
  value (int64_t c, int64_t k) const
  {
    return make_double2 (x[ct_channel_at (channels, inner, c, k)], 0.0);
  }

  __device__ void
  finish (int64_t c, double2 total, unsigned lane, unsigned lanes) const
  {
    if (lane == 0)
      mean[c] = len > 0 ? (float) (total.x / (double) len) : 0.0f;
  }
};

extern "C" CtStatus
ct_cuda_channel_mean (int64_t outer, int64_t channels, int64_t inner, const float *x,
                      float *mean)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  return ct_segment_sum (channels, outer * inner, CHANNEL_MAJOR (inner),
                         MeanOp{ channels, inner, outer * inner, x, mean });
}

/* Writes Y = X - MEAN[c] while summing its squares. */
struct CenterOp
{
  int64_t channels, inner, len;
  const float *x, *mean;
  float *y, *variance;

  __device__ double2
  value (int64_t c, int64_t k) const
  {
    int64_t at = ct_channel_at (channels, inner, c, k);
    float v = x[at] - mean[c];

    y[at] = v;
    return make_double2 ((double) v * (double) v, 0.0);
  }

  __device__ void
  finish (int64_t c, double2 total, unsigned lane, unsigned lanes) const
  {
    if (lane == 0 && variance != nullptr)
      variance[c] = len > 0 ? (float) (total.x / (double) len) : 0.0f;
  }
};

extern "C" CtStatus
ct_cuda_channel_center (int64_t outer, int64_t channels, int64_t inner, const float *x,
                        const float *mean, float *y, float *variance)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  return ct_segment_sum (channels, outer * inner, CHANNEL_MAJOR (inner),
                         CenterOp{ channels, inner, outer * inner, x, mean, y, variance });
}

__global__ static void
channel_divide_kernel (int64_t n, int64_t channels, int64_t inner, const float *x,
                       const float *divisor, float *y)
{
  /* A true division, as the CPU's and Caffe's. */
  CT_CUDA_LOOP (k, n) y[k] = x[k] / divisor[(k / inner) % channels];
}

extern "C" CtStatus
ct_cuda_channel_divide (int64_t outer, int64_t channels, int64_t inner, const float *x,
                        const float *divisor, float *y)
{
  int64_t n = outer * channels * inner;

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  channel_divide_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, channels, inner, x,
                                                                  divisor, y);
  return ct_cuda_launch_status ();
}

/* Sums DY and DY * Y over the channel, then writes its DX with the CPU's
 * float arithmetic. */
struct NormalizeBackwardOp
{
  int64_t channels, inner, len;
  const float *y, *dy, *s;
  float *dx;

  __device__ double2
  value (int64_t c, int64_t k) const
  {
    int64_t at = ct_channel_at (channels, inner, c, k);
    float g = dy[at];

    return make_double2 (g, (double) g * (double) y[at]);
  }

  __device__ void
  finish (int64_t c, double2 total, unsigned lane, unsigned lanes) const
  {
    const float a = (float) total.y, b = (float) total.x;
    const float scale = (float) (-1.0 / (double) len), d = s[c];

    for (int64_t k = lane; k < len; k += lanes)
      {
        int64_t at = ct_channel_at (channels, inner, c, k);

        dx[at] = (dy[at] + scale * (y[at] * a + b)) / d;
      }
  }
};

extern "C" CtStatus
ct_cuda_channel_normalize_backward (int64_t outer, int64_t channels, int64_t inner,
                                    const float *y, const float *dy, const float *s, float *dx)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (outer * inner == 0)
    return CT_STATUS_OK;
  return ct_segment_sum (channels, outer * inner, CHANNEL_MAJOR (inner),
                         NormalizeBackwardOp{ channels, inner, outer * inner, y, dy, s, dx });
}

__global__ static void
batch_norm_std_kernel (int64_t n, float eps, const float *variance, float *std)
{
  CT_CUDA_LOOP (i, n) std[i] = sqrtf (variance[i] + eps);
}

__global__ static void
mvn_std_kernel (int64_t n, float eps, const float *variance, float *std)
{
  CT_CUDA_LOOP (i, n) std[i] = sqrtf (variance[i]) + eps;
}

extern "C" CtStatus
ct_cuda_batch_norm_std (int64_t n, float eps, const float *variance, float *std)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  batch_norm_std_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, eps, variance, std);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_mvn_std (int64_t n, float eps, const float *variance, float *std)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  mvn_std_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, eps, variance, std);
  return ct_cuda_launch_status ();
}

/* BatchNorm's forward pass as the kernels above, one after the other:
 * the same values as before the CPU fused its passes. One kernel for the
 * GPU too is still to be written and measured. */
extern "C" CtStatus
ct_cuda_batch_norm_forward (int64_t outer, int64_t channels, int64_t inner, int batch_stats,
                            float eps, const float *x, float *mean, float *variance,
                            float *std, float *y, float *keep)
{
  CtStatus status = CT_STATUS_OK;

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  if (batch_stats)
    status = ct_cuda_channel_mean (outer, channels, inner, x, mean);
  if (status == CT_STATUS_OK)
    status = ct_cuda_channel_center (outer, channels, inner, x, mean, y,
                                     batch_stats ? variance : nullptr);
  if (status == CT_STATUS_OK)
    status = ct_cuda_batch_norm_std (channels, eps, variance, std);
  if (status == CT_STATUS_OK)
    status = ct_cuda_channel_divide (outer, channels, inner, y, std, y);
  if (status == CT_STATUS_OK && keep != nullptr)
    status = ct_cuda_copy (outer * channels * inner, y, keep);
  return status;
}
