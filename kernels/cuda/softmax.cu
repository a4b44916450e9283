/* softmax.cu: the CUDA side of softmax.h.
 *
 * Two shapes of work. When the positions are many and each has few
 * channels (INNER of a spatial softmax, or a small class count), one thread
 * takes one position and walks its channels in order, as the CPU does, so
 * the two agree to the rounding of expf. When a position has many channels
 * and INNER is small (a classifier over hundreds of classes), one block
 * takes one position: its threads stride over the channels and meet in a
 * shared-memory tree, whose order is fixed by the block size alone, so a
 * run repeats bit for bit. Neither needs the scratch. */
#include <cmath>

#include "cuda-private.cuh"
#include "softmax.h"

/* Threads of a block that takes one position; a power of two. */
#define ROW_THREADS 256

static inline int
valid_counts (int64_t outer, int64_t channels, int64_t inner)
{
  return outer >= 0 && channels >= 0 && inner >= 0
         && (channels == 0 || inner <= INT64_MAX / channels)
         && (channels * inner == 0 || outer <= INT64_MAX / (channels * inner));
}

/* A block per position pays off when the channels are many and the
 * positions next to each other in memory (INNER) too few to coalesce. */
static inline int
use_blocks (int64_t channels, int64_t inner)
{
  return channels >= 64 && inner < 32;
}

static unsigned int
position_blocks (int64_t positions)
{
  return (unsigned int) (positions < 65535 * 8 ? positions : 65535 * 8);
}

__global__ static void
forward_thread_kernel (int64_t outer, int64_t channels, int64_t inner,
                       const float *bottom, float *top)
{
  CT_CUDA_LOOP (p, outer * inner)
    {
      const int64_t i = p / inner, k = p % inner;
      const float *x = bottom + i * channels * inner + k;
      float *y = top + i * channels * inner + k;
      float m = x[0], sum;

      for (int64_t c = 1; c < channels; c++)
        m = x[c * inner] > m ? x[c * inner] : m;
      /* TOP may be BOTTOM: each element is read before it is written. */
      for (int64_t c = 0; c < channels; c++)
        y[c * inner] = expf (x[c * inner] - m);
      sum = y[0];
      for (int64_t c = 1; c < channels; c++)
        sum += y[c * inner];
      for (int64_t c = 0; c < channels; c++)
        y[c * inner] /= sum;
    }
}

/* Max or sum of each thread's VALUE over the block, left in shared[0] and
 * returned to every thread. */
template <bool MAX>
__device__ static float
block_reduce (float value, float *shared)
{
  const unsigned int t = threadIdx.x;

  shared[t] = value;
  __syncthreads ();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1)
    {
      if (t < s)
        shared[t] = MAX ? fmaxf (shared[t], shared[t + s]) : shared[t] + shared[t + s];
      __syncthreads ();
    }
  value = shared[0];
  /* Everyone has read shared[0] before the next reduction writes it. */
  __syncthreads ();
  return value;
}

__global__ static void
forward_block_kernel (int64_t outer, int64_t channels, int64_t inner,
                      const float *bottom, float *top)
{
  __shared__ float shared[ROW_THREADS];

  for (int64_t p = blockIdx.x; p < outer * inner; p += gridDim.x)
    {
      const int64_t i = p / inner, k = p % inner;
      const float *x = bottom + i * channels * inner + k;
      float *y = top + i * channels * inner + k;
      float m = -INFINITY, sum = 0.0f;

      for (int64_t c = threadIdx.x; c < channels; c += blockDim.x)
        m = fmaxf (m, x[c * inner]);
      /* fmaxf passes over a NaN score where the CPU's comparison may keep
       * it as the maximum; either way the NaN reaches every output of the
       * position through the sum below. */
      m = block_reduce<true> (m, shared);
      for (int64_t c = threadIdx.x; c < channels; c += blockDim.x)
        {
          float e = expf (x[c * inner] - m);

          y[c * inner] = e;
          sum += e;
        }
      sum = block_reduce<false> (sum, shared);
      for (int64_t c = threadIdx.x; c < channels; c += blockDim.x)
        y[c * inner] /= sum;
    }
}

__global__ static void
backward_thread_kernel (int64_t outer, int64_t channels, int64_t inner,
                        const float *top_data, const float *top_diff, float *bottom_diff)
{
  CT_CUDA_LOOP (p, outer * inner)
    {
      const int64_t offset = (p / inner) * channels * inner + p % inner;
      const float *y = top_data + offset, *dy = top_diff + offset;
      float *dx = bottom_diff + offset;
      float dot = 0.0f;

      for (int64_t c = 0; c < channels; c++)
        dot += dy[c * inner] * y[c * inner];
      /* BOTTOM_DIFF may be TOP_DIFF: the dot is complete before writing. */
      for (int64_t c = 0; c < channels; c++)
        dx[c * inner] = (dy[c * inner] - dot) * y[c * inner];
    }
}

__global__ static void
backward_block_kernel (int64_t outer, int64_t channels, int64_t inner,
                       const float *top_data, const float *top_diff, float *bottom_diff)
{
  __shared__ float shared[ROW_THREADS];

  for (int64_t p = blockIdx.x; p < outer * inner; p += gridDim.x)
    {
      const int64_t offset = (p / inner) * channels * inner + p % inner;
      const float *y = top_data + offset, *dy = top_diff + offset;
      float *dx = bottom_diff + offset;
      float dot = 0.0f;

      for (int64_t c = threadIdx.x; c < channels; c += blockDim.x)
        dot += dy[c * inner] * y[c * inner];
      dot = block_reduce<false> (dot, shared);
      for (int64_t c = threadIdx.x; c < channels; c += blockDim.x)
        dx[c * inner] = (dy[c * inner] - dot) * y[c * inner];
    }
}

extern "C" CtStatus
ct_cuda_softmax_forward (int64_t outer, int64_t channels, int64_t inner,
                         const float *bottom, float *top, float *scratch)
{
  (void) scratch;
  if (!valid_counts (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (outer == 0 || channels == 0 || inner == 0)
    return CT_STATUS_OK;
  if (use_blocks (channels, inner))
    forward_block_kernel<<<position_blocks (outer * inner), ROW_THREADS>>> (outer, channels,
                                                                             inner, bottom, top);
  else
    forward_thread_kernel<<<ct_cuda_blocks (outer * inner), CT_CUDA_THREADS>>> (outer, channels,
                                                                                 inner, bottom,
                                                                                 top);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_softmax_backward (int64_t outer, int64_t channels, int64_t inner,
                          const float *top_data, const float *top_diff,
                          float *bottom_diff, float *scratch)
{
  (void) scratch;
  if (!valid_counts (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (outer == 0 || channels == 0 || inner == 0)
    return CT_STATUS_OK;
  if (use_blocks (channels, inner))
    backward_block_kernel<<<position_blocks (outer * inner), ROW_THREADS>>> (
      outer, channels, inner, top_data, top_diff, bottom_diff);
  else
    backward_thread_kernel<<<ct_cuda_blocks (outer * inner), CT_CUDA_THREADS>>> (
      outer, channels, inner, top_data, top_diff, bottom_diff);
  return ct_cuda_launch_status ();
}
