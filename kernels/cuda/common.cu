/* common.cu: the CUDA side of common.h, the arithmetic of the Common and
 * Utility layers: block copies, Eltwise MAX, Tile, Reduction, bias and
 * scale broadcasts and their gradients, row gathers and scatters, float
 * indices, Filter's selection and ArgMax.
 *
 * Every result is deterministic. Sums (Reduction, the bias and scale
 * gradients) go through segment-sum.cuh's fixed-order trees; Tile's and
 * the scatter's sums run in the CPU's order. The scatter-add is written as
 * a gather: the first source row of each destination row adds every row
 * aimed at it, in order, so no two threads write the same float.
 *
 * float_indices and filter_select answer the host (a bad value's position,
 * the number selected), so they wait for the device; their one word of
 * device-side answer lives in a __device__ variable guarded by a mutex. */
#include <cmath>
#include <cstdint>
#include <mutex>

#include "blas.h"
#include "common.h"
#include "cuda-private.cuh"
#include "segment-sum.cuh"

static inline int
valid_counts (int64_t a, int64_t b, int64_t c)
{
  return a >= 0 && b >= 0 && c >= 0;
}

/* Block copies. */

__global__ static void
copy_blocks_kernel (int64_t n, int64_t block, const float *src, int64_t src_stride,
                    float *dst, int64_t dst_stride)
{
  CT_CUDA_LOOP (k, n)
    {
      int64_t b = k / block, j = k - b * block;

      dst[b * dst_stride + j] = src[b * src_stride + j];
    }
}

extern "C" CtStatus
ct_cuda_copy_blocks (int64_t num, int64_t block, const float *src, int64_t src_stride,
                     float *dst, int64_t dst_stride)
{
  if (!valid_counts (num, block, 0) || src_stride < block || dst_stride < block)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (num == 0 || block == 0)
    return CT_STATUS_OK;
  copy_blocks_kernel<<<ct_cuda_blocks (num * block), CT_CUDA_THREADS>>> (
      num * block, block, src, src_stride, dst, dst_stride);
  return ct_cuda_launch_status ();
}

/* Eltwise MAX. */

__global__ static void
eltwise_max_first_kernel (int64_t n, const float *a, const float *b, float *top, int32_t *mask)
{
  CT_CUDA_LOOP (i, n)
    {
      float x = a[i], y = b[i];
      int a_wins = x > y;

      top[i] = a_wins ? x : y;
      mask[i] = a_wins ? 0 : 1;
    }
}

__global__ static void
eltwise_max_next_kernel (int64_t n, const float *x, int32_t index, float *top, int32_t *mask)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = x[i];

      if (v > top[i])
        {
          top[i] = v;
          mask[i] = index;
        }
    }
}

__global__ static void
eltwise_max_backward_kernel (int64_t n, const float *top_diff, const int32_t *mask,
                             int32_t index, float *bottom_diff)
{
  CT_CUDA_LOOP (i, n) bottom_diff[i] = mask[i] == index ? top_diff[i] : 0.0f;
}

/* The sum as the layer ran it before the CPU fused it: a zeroed top and
 * one axpy per bottom, the same bits. */
extern "C" CtStatus
ct_cuda_eltwise_sum (int64_t count, int n, const float *const *x, float *y)
{
  CtStatus status;

  if (count < 0 || n < 1)
    return CT_STATUS_INVALID;
  status = ct_cuda_set (count, 0.0f, y);
  for (int k = 0; k < n && status == CT_STATUS_OK; k++)
    status = ct_cuda_axpy (count, 1.0f, x[k], y);
  return status;
}

extern "C" CtStatus
ct_cuda_eltwise_max_first (int64_t n, const float *a, const float *b, float *top, int32_t *mask)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  eltwise_max_first_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, a, b, top, mask);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_eltwise_max_next (int64_t n, const float *x, int32_t index, float *top, int32_t *mask)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  eltwise_max_next_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, x, index, top, mask);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_eltwise_max_backward (int64_t n, const float *top_diff, const int32_t *mask,
                              int32_t index, float *bottom_diff)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  eltwise_max_backward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, top_diff, mask,
                                                                        index, bottom_diff);
  return ct_cuda_launch_status ();
}

/* Tile. */

__global__ static void
tile_forward_kernel (int64_t n, int64_t inner, int64_t tiles, const float *bottom, float *top)
{
  CT_CUDA_LOOP (k, n)
    {
      int64_t o = k / (tiles * inner), i = k % inner;

      top[k] = bottom[o * inner + i];
    }
}

/* One thread per bottom element, adding its TILES copies in the CPU's
 * order (the first, then the others one by one). */
__global__ static void
tile_backward_kernel (int64_t n, int64_t inner, int64_t tiles, const float *top_diff,
                      float *bottom_diff)
{
  CT_CUDA_LOOP (k, n)
    {
      int64_t o = k / inner, i = k - o * inner;
      const float *from = top_diff + o * tiles * inner + i;
      float total;

      if (tiles == 0)
        {
          bottom_diff[k] = 0.0f;
          continue;
        }
      total = from[0];
      for (int64_t t = 1; t < tiles; t++)
        total += from[t * inner];
      bottom_diff[k] = total;
    }
}

extern "C" CtStatus
ct_cuda_tile_forward (int64_t outer, int64_t inner, int64_t tiles, const float *bottom,
                      float *top)
{
  int64_t n = outer * inner * tiles;

  if (!valid_counts (outer, inner, tiles))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  tile_forward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, inner, tiles, bottom, top);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_tile_backward (int64_t outer, int64_t inner, int64_t tiles, const float *top_diff,
                       float *bottom_diff)
{
  int64_t n = outer * inner;

  if (!valid_counts (outer, inner, tiles))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  tile_backward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, inner, tiles, top_diff,
                                                                 bottom_diff);
  return ct_cuda_launch_status ();
}

/* Reduction. */

struct ReduceRowsOp
{
  CtReduceOp op;
  int64_t dim;
  float coeff;
  const float *bottom;
  float *top;

  __device__ double2
  value (int64_t row, int64_t k) const
  {
    double x = bottom[row * dim + k];

    switch (op)
      {
      case CT_REDUCE_ASUM:
        return make_double2 (fabs (x), 0.0);
      case CT_REDUCE_SUMSQ:
        return make_double2 (x * x, 0.0);
      default:
        return make_double2 (x, 0.0);
      }
  }

  __device__ void
  finish (int64_t row, double2 total, unsigned lane, unsigned lanes) const
  {
    float value = (float) total.x;

    if (lane == 0)
      top[row] = coeff == 1.0f ? value : coeff * value;
  }
};

static int
valid_reduce_op (CtReduceOp op)
{
  return op == CT_REDUCE_SUM || op == CT_REDUCE_ASUM || op == CT_REDUCE_SUMSQ
         || op == CT_REDUCE_MEAN;
}

extern "C" CtStatus
ct_cuda_reduce_forward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                        const float *bottom, float *top)
{
  if (!valid_counts (num, dim, 0))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (num == 0)
    return CT_STATUS_OK;
  if (!valid_reduce_op (op))
    return CT_STATUS_INVALID;
  return ct_segment_sum (num, dim, 0, ReduceRowsOp{ op, dim, coeff, bottom, top });
}

__global__ static void
reduce_backward_kernel (CtReduceOp op, int64_t n, int64_t dim, float coeff,
                        const float *bottom_data, const float *top_diff, float *bottom_diff)
{
  CT_CUDA_LOOP (k, n)
    {
      float g = top_diff[k / dim] * coeff;

      switch (op)
        {
        case CT_REDUCE_ASUM:
          {
            float x = bottom_data[k];
            /* The sign of 0 is 0, as in Caffe. */
            bottom_diff[k] = (float) ((x > 0.0f) - (x < 0.0f)) * g;
          }
          break;
        case CT_REDUCE_SUMSQ:
          bottom_diff[k] = 2.0f * bottom_data[k] * g;
          break;
        default:
          bottom_diff[k] = g;
          break;
        }
    }
}

extern "C" CtStatus
ct_cuda_reduce_backward (CtReduceOp op, int64_t num, int64_t dim, float coeff,
                         const float *bottom_data, const float *top_diff, float *bottom_diff)
{
  int64_t n = num * dim;

  if (!valid_counts (num, dim, 0))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (num == 0)
    return CT_STATUS_OK;
  if (!valid_reduce_op (op))
    return CT_STATUS_INVALID;
  if (n == 0)
    return CT_STATUS_OK;
  reduce_backward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (op, n, dim, coeff,
                                                                   bottom_data, top_diff,
                                                                   bottom_diff);
  return ct_cuda_launch_status ();
}

/* Bias and scale. */

__global__ static void
broadcast_kernel (int64_t n, int64_t dim, int64_t inner, const float *bottom,
                  const float *vector, int multiply, float *top)
{
  CT_CUDA_LOOP (k, n)
    {
      float v = vector[(k / inner) % dim];

      top[k] = multiply ? bottom[k] * v : bottom[k] + v;
    }
}

static CtStatus
broadcast (int64_t outer, int64_t dim, int64_t inner, const float *bottom, const float *vector,
           int multiply, float *top)
{
  int64_t n = outer * dim * inner;

  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  broadcast_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, dim, inner, bottom, vector,
                                                             multiply, top);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_bias_forward (int64_t outer, int64_t dim, int64_t inner, const float *bottom,
                      const float *bias, float *top)
{
  return broadcast (outer, dim, inner, bottom, bias, 0, top);
}

extern "C" CtStatus
ct_cuda_scale_forward (int64_t outer, int64_t dim, int64_t inner, const float *bottom,
                       const float *scale, float *top)
{
  return broadcast (outer, dim, inner, bottom, scale, 1, top);
}

/* Channel d's sum of A (times B when B is not NULL) over OUTER x INNER,
 * written or added to OUT[d]. */
struct ChannelSumOp
{
  int64_t dim, inner;
  const float *a, *b;
  int accumulate;
  float *out;

  __device__ double2
  value (int64_t d, int64_t k) const
  {
    int64_t at = ct_channel_at (dim, inner, d, k);

    return make_double2 (b != nullptr ? (double) a[at] * (double) b[at] : (double) a[at], 0.0);
  }

  __device__ void
  finish (int64_t d, double2 total, unsigned lane, unsigned lanes) const
  {
    if (lane == 0)
      out[d] = accumulate ? out[d] + (float) total.x : (float) total.x;
  }
};

static CtStatus
channel_sum (int64_t outer, int64_t dim, int64_t inner, const float *a, const float *b,
             int accumulate, float *out)
{
  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  /* With INNER 1 a channel is a column: consecutive threads take
   * consecutive channels, so that their loads are contiguous. */
  return ct_segment_sum (dim, outer * inner, inner == 1,
                         ChannelSumOp{ dim, inner, a, b, accumulate, out });
}

extern "C" CtStatus
ct_cuda_bias_backward (int64_t outer, int64_t dim, int64_t inner, const float *top_diff,
                       int accumulate, float *bias_diff)
{
  return channel_sum (outer, dim, inner, top_diff, nullptr, accumulate, bias_diff);
}

extern "C" CtStatus
ct_cuda_scale_backward (int64_t outer, int64_t dim, int64_t inner, const float *top_diff,
                        const float *bottom_data, int accumulate, float *scale_diff)
{
  return channel_sum (outer, dim, inner, top_diff, bottom_data, accumulate, scale_diff);
}

/* Scale's passes as the kernels above, one after the other: the same
 * values as before the CPU fused its passes. */
extern "C" CtStatus
ct_cuda_scale_bias_forward (int64_t outer, int64_t dim, int64_t inner, const float *bottom,
                            const float *scale, const float *bias, float *top)
{
  CtStatus status = ct_cuda_scale_forward (outer, dim, inner, bottom, scale, top);

  if (status != CT_STATUS_OK || bias == nullptr)
    return status;
  return ct_cuda_bias_forward (outer, dim, inner, top, bias, top);
}

extern "C" CtStatus
ct_cuda_scale_bias_backward (int64_t outer, int64_t dim, int64_t inner, const float *top_diff,
                             const float *bottom_data, const float *scale, int accumulate,
                             float *scale_diff, float *bias_diff, float *bottom_diff)
{
  CtStatus status = CT_STATUS_OK;

  if (!valid_counts (outer, dim, inner))
    return CT_STATUS_INVALID;
  /* The sums first: BOTTOM_DIFF may be TOP_DIFF. */
  if (bias_diff != nullptr)
    status = ct_cuda_bias_backward (outer, dim, inner, top_diff, 1, bias_diff);
  if (status == CT_STATUS_OK && scale_diff != nullptr)
    status = ct_cuda_scale_backward (outer, dim, inner, top_diff, bottom_data, accumulate,
                                     scale_diff);
  if (status == CT_STATUS_OK && bottom_diff != nullptr)
    status = ct_cuda_scale_forward (outer, dim, inner, top_diff, scale, bottom_diff);
  return status;
}

/* Row gathers and scatters. */

__global__ static void
gather_rows_kernel (int64_t n, int64_t row, const int64_t *indices, const float *src,
                    float *dst)
{
  CT_CUDA_LOOP (k, n)
    {
      int64_t r = k / row;

      dst[k] = src[indices[r] * row + (k - r * row)];
    }
}

extern "C" CtStatus
ct_cuda_gather_rows (int64_t n, int64_t row, const int64_t *indices, const float *src,
                     float *dst)
{
  if (!valid_counts (n, row, 0))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (n == 0 || row == 0)
    return CT_STATUS_OK;
  gather_rows_kernel<<<ct_cuda_blocks (n * row), CT_CUDA_THREADS>>> (n * row, row, indices,
                                                                     src, dst);
  return ct_cuda_launch_status ();
}

/* One block per source row I. Unless an earlier source row has the same
 * destination (it does the work), the block adds every source row aimed at
 * that destination, in order, as the CPU does: one writer per float. */
__global__ static void
scatter_add_rows_kernel (int64_t n, int64_t row, const int64_t *indices, const float *src,
                         float *dst)
{
  for (int64_t i = blockIdx.x; i < n; i += gridDim.x)
    {
      const int64_t target = indices[i];
      int earlier = 0;

      for (int64_t p = threadIdx.x; p < i; p += blockDim.x)
        if (indices[p] == target)
          {
            earlier = 1;
            break;
          }
      if (__syncthreads_or (earlier))
        continue;
      for (int64_t j = threadIdx.x; j < row; j += blockDim.x)
        {
          float total = dst[target * row + j];

          for (int64_t q = i; q < n; q++)
            if (indices[q] == target)
              total += src[q * row + j];
          dst[target * row + j] = total;
        }
    }
}

extern "C" CtStatus
ct_cuda_scatter_add_rows (int64_t n, int64_t row, const int64_t *indices, const float *src,
                          float *dst)
{
  if (!valid_counts (n, row, 0))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (n == 0 || row == 0)
    return CT_STATUS_OK;
  scatter_add_rows_kernel<<<(unsigned int) (n < 65535 * 8 ? n : 65535 * 8),
                            CT_CUDA_THREADS>>> (n, row, indices, src, dst);
  return ct_cuda_launch_status ();
}

/* The answers that go back to the host: the first bad position of
 * float_indices, the count of filter_select. One call at a time. */
static __device__ unsigned long long first_bad;
static __device__ long long selected_count;
static std::mutex answer_lock;

__global__ static void
float_indices_kernel (int64_t n, const float *values, int64_t limit, int whole, int64_t *out)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = values[i];

      /* Written so that NaN fails too. */
      if (!(v >= 0.0f && (double) v < (double) limit) || (whole && v != floorf (v)))
        atomicMin (&first_bad, (unsigned long long) i);
      else
        out[i] = (int64_t) v;
    }
}

extern "C" CtStatus
ct_cuda_float_indices (int64_t n, const float *values, int64_t limit, int whole,
                       int64_t *out, int64_t *bad)
{
  const unsigned long long none = ~0ull;
  unsigned long long found = none;

  if (!valid_counts (n, limit, 0))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  {
    std::lock_guard<std::mutex> hold (answer_lock);

    CT_CUDA_TRY (cudaMemcpyToSymbol (first_bad, &none, sizeof none));
    float_indices_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, values, limit, whole, out);
    CT_CUDA_TRY (cudaGetLastError ());
    CT_CUDA_TRY (cudaMemcpyFromSymbol (&found, first_bad, sizeof found));
  }
  if (found != none)
    {
      if (bad != nullptr)
        *bad = (int64_t) found;
      return CT_STATUS_INVALID;
    }
  return CT_STATUS_OK;
}

/* One block walks the selector in chunks of its size: an inclusive scan of
 * the chunk's flags places each selected position after those before it. */
__global__ static void
filter_select_kernel (int64_t n, const float *selector, int64_t *indices)
{
  __shared__ long long scan[CT_CUDA_THREADS];
  __shared__ long long base;
  const unsigned t = threadIdx.x;

  if (t == 0)
    base = 0;
  __syncthreads ();
  for (int64_t start = 0; start < n; start += blockDim.x)
    {
      int64_t i = start + t;
      int flag = i < n && selector[i] != 0.0f;

      scan[t] = flag;
      __syncthreads ();
      for (unsigned offset = 1; offset < blockDim.x; offset *= 2)
        {
          long long before = t >= offset ? scan[t - offset] : 0;

          __syncthreads ();
          scan[t] += before;
          __syncthreads ();
        }
      if (flag)
        indices[base + scan[t] - 1] = i;
      __syncthreads ();
      if (t == blockDim.x - 1)
        base += scan[t];
      __syncthreads ();
    }
  if (t == 0)
    selected_count = base;
}

extern "C" CtStatus
ct_cuda_filter_select (int64_t n, const float *selector, int64_t *indices, int64_t *n_selected)
{
  long long count = 0;

  *n_selected = 0;
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  {
    std::lock_guard<std::mutex> hold (answer_lock);

    filter_select_kernel<<<1, CT_CUDA_THREADS>>> (n, selector, indices);
    CT_CUDA_TRY (cudaGetLastError ());
    CT_CUDA_TRY (cudaMemcpyFromSymbol (&count, selected_count, sizeof count));
  }
  *n_selected = count;
  return CT_STATUS_OK;
}

/* ArgMax. */

/* Whether (V, J) ranks before (W, K): larger value first, then the larger
 * index, as ct_cpu_argmax orders them. */
__device__ static inline int
ranks_before (float v, int64_t j, float w, int64_t k)
{
  return v > w || (!(w > v) && j > k);
}

/* One thread per element: its rank is the number of elements of its row
 * that rank before it, and the TOP_K best go to their places. No scratch,
 * and each output written by one thread. */
__global__ static void
argmax_kernel (int64_t n, int64_t dim, int64_t axis_dist, int64_t top_k, int has_axis,
               int out_max_val, const float *bottom, float *top)
{
  CT_CUDA_LOOP (t, n)
    {
      const int64_t i = t / dim, j = t - i * dim;
      const int64_t base = (i / axis_dist) * dim * axis_dist + i % axis_dist;
      const float v = bottom[base + j * axis_dist];
      int64_t rank = 0;

      for (int64_t k = 0; k < dim && rank < top_k; k++)
        if (ranks_before (bottom[base + k * axis_dist], k, v, j))
          rank++;
      if (rank >= top_k)
        continue;
      if (has_axis)
        {
          int64_t out = (i / axis_dist) * top_k * axis_dist + i % axis_dist + rank * axis_dist;
          top[out] = out_max_val ? v : (float) j;
        }
      else if (out_max_val)
        {
          top[2 * i * top_k + rank] = (float) j;
          top[2 * i * top_k + top_k + rank] = v;
        }
      else
        top[i * top_k + rank] = (float) j;
    }
}

extern "C" CtStatus
ct_cuda_argmax (int64_t num, int64_t dim, int64_t axis_dist, int64_t top_k, int has_axis,
                int out_max_val, const float *bottom, float *top, float *scratch_val,
                int64_t *scratch_idx)
{
  (void) scratch_val;
  (void) scratch_idx;
  if (!valid_counts (num, dim, top_k) || axis_dist < 1 || top_k < 1 || top_k > dim)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (num == 0)
    return CT_STATUS_OK;
  argmax_kernel<<<ct_cuda_blocks (num * dim), CT_CUDA_THREADS>>> (
      num * dim, dim, axis_dist, top_k, has_axis, out_max_val, bottom, top);
  return ct_cuda_launch_status ();
}
