/* segment-sum.cuh: deterministic sums over many segments at once, for the
 * kernels that reduce per channel or per row (common.cu: bias and scale
 * gradients, Reduction; normalization.cu: the channel statistics).
 *
 * A segment's elements are summed by a fixed group of threads, each
 * keeping its own running sum in double, then combined by a shared-memory
 * tree in a fixed order: the launch geometry depends only on the sizes, so
 * the same inputs always give the same bits, without float atomics. Two
 * sums travel together (a double2) for the kernels that need a pair, such
 * as the normalisation gradient's sum of dy and of dy * y.
 *
 * An Op gives the kernel two device functions:
 *   double2 value (int64_t segment, int64_t k): element K's contribution;
 *   void finish (int64_t segment, double2 total, unsigned lane, unsigned lanes):
 *     called by every thread of the segment's group once the total is known
 *     (lane 0 writes a single result; the group can also write the
 *     segment's elements, LANE striding by LANES, after every read). */
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "cuda-private.cuh"

/* Threads per block of a segment sum; a power of two. */
#define CT_SEGMENT_THREADS 256

/* SEGMENT_MAJOR: consecutive threads take consecutive segments (segment s's
 * element k at k * stride + s, as in column sums, so that a warp's loads are
 * contiguous); otherwise consecutive threads take consecutive elements of
 * one segment. */
template <class Op>
__global__ static void
ct_segment_sum_kernel (int64_t n_segments, int64_t len, int segment_major, Op op)
{
  extern __shared__ double2 ct_segment_partial[];
  const unsigned lanes = segment_major ? blockDim.y : blockDim.x;
  const unsigned lane = segment_major ? threadIdx.y : threadIdx.x;
  const unsigned groups = segment_major ? blockDim.x : blockDim.y;
  const unsigned group = segment_major ? threadIdx.x : threadIdx.y;
  double2 *mine = ct_segment_partial + group * lanes;

  for (int64_t first = (int64_t) blockIdx.x * groups; first < n_segments;
       first += (int64_t) gridDim.x * groups)
    {
      const int64_t segment = first + group;
      double2 sum = make_double2 (0.0, 0.0);

      if (segment < n_segments)
        for (int64_t k = lane; k < len; k += lanes)
          {
            double2 v = op.value (segment, k);

            sum.x += v.x;
            sum.y += v.y;
          }
      mine[lane] = sum;
      __syncthreads ();
      for (unsigned half = lanes / 2; half > 0; half /= 2)
        {
          if (lane < half)
            {
              mine[lane].x += mine[lane + half].x;
              mine[lane].y += mine[lane + half].y;
            }
          __syncthreads ();
        }
      if (segment < n_segments)
        op.finish (segment, mine[0], lane, lanes);
      /* Every thread has read mine[0] before the next round overwrites it. */
      __syncthreads ();
    }
}

/* Sums N_SEGMENTS segments of LEN elements each with OP. SEGMENT_MAJOR as
 * for the kernel; it only pays off with at least a warp of segments. */
template <class Op>
static CtStatus
ct_segment_sum (int64_t n_segments, int64_t len, int segment_major, Op op)
{
  unsigned lanes, groups;
  int64_t blocks;
  dim3 block;

  if (n_segments <= 0)
    return CT_STATUS_OK;
  if (segment_major && n_segments >= 32)
    {
      groups = 32;
      lanes = CT_SEGMENT_THREADS / 32;
      block = dim3 (groups, lanes);
    }
  else
    {
      segment_major = 0;
      /* Short segments share a block; long ones get all of it. */
      lanes = 32;
      while (lanes < CT_SEGMENT_THREADS && (int64_t) lanes < len)
        lanes *= 2;
      groups = CT_SEGMENT_THREADS / lanes;
      block = dim3 (lanes, groups);
    }
  blocks = (n_segments + groups - 1) / groups;
  if (blocks > (1 << 20))
    blocks = 1 << 20;
  ct_segment_sum_kernel<Op><<<(unsigned int) blocks, block,
                              CT_SEGMENT_THREADS * sizeof (double2)>>> (n_segments, len,
                                                                        segment_major, op);
  return ct_cuda_launch_status ();
}

/* Where element K of channel C lies in a blob seen as OUTER x CHANNELS x
 * INNER (K runs over OUTER * INNER). */
__device__ static inline int64_t
ct_channel_at (int64_t channels, int64_t inner, int64_t c, int64_t k)
{
  int64_t o, i;

  if (inner == 1)
    return k * channels + c;
  o = k / inner;
  i = k - o * inner;
  return (o * channels + c) * inner + i;
}
