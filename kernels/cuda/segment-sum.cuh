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
 *     segment's elements, LANE striding by LANES, after every read).
 *
 * A few long segments (fewer than CT_SEGMENT_FEW, each of at least two
 * chunks) would leave most of the GPU idle with one block each: they are
 * cut into chunks whose number depends only on the sizes. A first kernel
 * writes each chunk's sum to a static scratch array, a second adds a
 * segment's chunks in a fixed order and calls finish, its lanes spread
 * over as many blocks as the segment has chunks. */
#pragma once

#include <cstdint>
#include <mutex>

#include <cuda_runtime.h>

#include "cuda-private.cuh"

/* Threads per block of a segment sum; a power of two. */
#define CT_SEGMENT_THREADS 256

/* The two-stage path: segments below CT_SEGMENT_FEW, chunks of about
 * CT_SEGMENT_CHUNK elements or more, at most CT_SEGMENT_MAX_CHUNKS of them
 * per segment and CT_SEGMENT_SCRATCH in all. */
#define CT_SEGMENT_FEW 512
#define CT_SEGMENT_CHUNK 8192
#define CT_SEGMENT_MAX_CHUNKS 1024
#define CT_SEGMENT_SCRATCH (1 << 16)

/* Chunk sums, segment by segment; one per translation unit, guarded by
 * ct_segment_lock () from the first launch to the second (the launches go
 * to the default stream, in order). */
__device__ static double2 ct_segment_scratch[CT_SEGMENT_SCRATCH];

static inline std::mutex &
ct_segment_lock (void)
{
  static std::mutex lock;

  return lock;
}

/* Adds SUMS[0 .. LANES) into SUMS[0] in a fixed tree (LANES a power of
 * two, LANE the calling thread's): the same bits every run. Every thread
 * of the block calls it, as it synchronises the block. */
__device__ static inline void
ct_segment_tree_sum (double2 *sums, unsigned lane, unsigned lanes)
{
  __syncthreads ();
  for (unsigned half = lanes / 2; half > 0; half /= 2)
    {
      if (lane < half)
        {
          sums[lane].x += sums[lane + half].x;
          sums[lane].y += sums[lane + half].y;
        }
      __syncthreads ();
    }
}

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
      ct_segment_tree_sum (mine, lane, lanes);
      if (segment < n_segments)
        op.finish (segment, mine[0], lane, lanes);
      /* Every thread has read mine[0] before the next round overwrites it. */
      __syncthreads ();
    }
}

/* Block (chunk, segment) of the first stage: the sum of elements
 * [chunk * CHUNK_LEN, (chunk + 1) * CHUNK_LEN) of the segment, clipped to
 * LEN, into the scratch at segment * gridDim.x + chunk. */
template <class Op>
__global__ static void
ct_segment_chunk_kernel (int64_t len, int64_t chunk_len, Op op)
{
  __shared__ double2 sums[CT_SEGMENT_THREADS];
  const int64_t segment = blockIdx.y;
  const int64_t begin = (int64_t) blockIdx.x * chunk_len;
  const int64_t end = begin + chunk_len < len ? begin + chunk_len : len;
  double2 sum = make_double2 (0.0, 0.0);

  for (int64_t k = begin + threadIdx.x; k < end; k += CT_SEGMENT_THREADS)
    {
      double2 v = op.value (segment, k);

      sum.x += v.x;
      sum.y += v.y;
    }
  sums[threadIdx.x] = sum;
  ct_segment_tree_sum (sums, threadIdx.x, CT_SEGMENT_THREADS);
  if (threadIdx.x == 0)
    ct_segment_scratch[segment * gridDim.x + blockIdx.x] = sums[0];
}

/* Block (b, segment) of the second stage: the segment's CHUNKS sums added
 * in a fixed order (every block gets the same bits), then finish, lane
 * b * CT_SEGMENT_THREADS + threadIdx.x of gridDim.x * CT_SEGMENT_THREADS. */
template <class Op>
__global__ static void
ct_segment_finish_kernel (unsigned chunks, Op op)
{
  __shared__ double2 sums[CT_SEGMENT_THREADS];
  const int64_t segment = blockIdx.y;
  const double2 *parts = ct_segment_scratch + segment * chunks;
  double2 sum = make_double2 (0.0, 0.0);

  for (unsigned j = threadIdx.x; j < chunks; j += CT_SEGMENT_THREADS)
    {
      sum.x += parts[j].x;
      sum.y += parts[j].y;
    }
  sums[threadIdx.x] = sum;
  ct_segment_tree_sum (sums, threadIdx.x, CT_SEGMENT_THREADS);
  op.finish (segment, sums[0], blockIdx.x * CT_SEGMENT_THREADS + threadIdx.x,
             gridDim.x * CT_SEGMENT_THREADS);
}

/* How many chunks the two-stage path cuts each segment into, and their
 * length (*CHUNK_LEN), from the sizes alone; 0 when it does not apply. */
static inline int64_t
ct_segment_chunks (int64_t n_segments, int64_t len, int segment_major, int64_t *chunk_len)
{
  int64_t chunks, most;

  if (n_segments <= 0 || n_segments >= CT_SEGMENT_FEW || len < 2 * CT_SEGMENT_CHUNK
      || (segment_major && n_segments >= 32))
    return 0;
  chunks = len / CT_SEGMENT_CHUNK;
  most = CT_SEGMENT_SCRATCH / n_segments;
  if (most > CT_SEGMENT_MAX_CHUNKS)
    most = CT_SEGMENT_MAX_CHUNKS;
  if (chunks > most)
    chunks = most;
  if (chunks < 2)
    return 0;
  /* Even chunks, whole blocks of threads; the last may be shorter. Since
   * LEN >= 2 * CT_SEGMENT_CHUNK, the length stays below LEN: at least two
   * chunks remain, and no more than before. */
  *chunk_len = (len + chunks - 1) / chunks;
  *chunk_len = (*chunk_len + CT_SEGMENT_THREADS - 1) / CT_SEGMENT_THREADS * CT_SEGMENT_THREADS;
  return (len + *chunk_len - 1) / *chunk_len;
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

  int64_t chunks, chunk_len = 0;

  if (n_segments <= 0)
    return CT_STATUS_OK;
  if ((chunks = ct_segment_chunks (n_segments, len, segment_major, &chunk_len)) > 0)
    {
      std::lock_guard<std::mutex> guard (ct_segment_lock ());
      dim3 grid ((unsigned) chunks, (unsigned) n_segments);
      CtStatus status;

      ct_segment_chunk_kernel<Op><<<grid, CT_SEGMENT_THREADS>>> (len, chunk_len, op);
      if ((status = ct_cuda_launch_status ()) != CT_STATUS_OK)
        return status;
      ct_segment_finish_kernel<Op><<<grid, CT_SEGMENT_THREADS>>> ((unsigned) chunks, op);
      return ct_cuda_launch_status ();
    }
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
