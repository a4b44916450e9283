/* cuda/pooling.cu: the CUDA side of pooling.h.
 *
 * Forward passes take one thread per output and read its window in the
 * CPU's order (rows, then columns), so sums round alike and MAX keeps the
 * first of equal values (a NaN never wins, -FLT_MAX and -1 for a window
 * without a winner). Backward passes take one thread per bottom element,
 * which starts from the diff already there and adds the contribution of
 * every window covering it in increasing output order: the order in which
 * the CPU's scatter reaches that element, so the sums agree bit for bit,
 * with no atomics and the same result on every run.
 *
 * A MAX or STOCHASTIC-training winner outside its own window (a mask top
 * the caller edited, or STOCHASTIC's fallback for a window that lies
 * wholly beyond the image) cannot be found by gathering: a second pass,
 * one block per plane, adds those "strays" in output order. It only reads
 * the winners when there are none. (An element that gets both kinds adds
 * the strays last, which can differ from the CPU by rounding.)
 *
 * Sums of products use __fmul_rn / __fadd_rn so that nvcc does not fuse
 * them into an fma, which the CPU's code does not do. */
#include <cfloat>

#include "cuda-private.cuh"
#include "pooling.h"

static bool
valid_geometry (const CtPoolGeometry *g)
{
  return g != nullptr && g->planes >= 0 && g->height > 0 && g->width > 0
         && g->height <= INT32_MAX / g->width
         && g->pooled_height >= 0 && g->pooled_width >= 0
         && g->kernel_h > 0 && g->kernel_w > 0 && g->stride_h > 0 && g->stride_w > 0
         && g->pad_h >= 0 && g->pad_w >= 0;
}

__device__ static inline int64_t
min64 (int64_t a, int64_t b)
{
  return a < b ? a : b;
}

__device__ static inline int64_t
max64 (int64_t a, int64_t b)
{
  return a > b ? a : b;
}

static inline int64_t
outputs (const CtPoolGeometry *g)
{
  return g->planes * g->pooled_height * g->pooled_width;
}

static inline int64_t
inputs (const CtPoolGeometry *g)
{
  return g->planes * g->height * g->width;
}

/* Output O as plane P, row PH, column PW. */
struct Out {
  int64_t p, ph, pw;
};

__device__ static inline Out
split_output (const CtPoolGeometry &g, int64_t o)
{
  Out r;

  r.pw = o % g.pooled_width;
  o /= g.pooled_width;
  r.ph = o % g.pooled_height;
  r.p = o / g.pooled_height;
  return r;
}

/* The pooled rows (or columns) [*FIRST, *LAST) whose window, starting at
 * i * STRIDE - PAD and KERNEL long before clipping, covers position X. */
__device__ static inline void
covering (int64_t x, int64_t kernel, int64_t stride, int64_t pad, int64_t pooled,
          int64_t *first, int64_t *last)
{
  *first = x + pad < kernel ? 0 : (x + pad - kernel) / stride + 1;
  *last = min64 ((x + pad) / stride + 1, pooled);
}

/* Whether position X lies in the unclipped window of pooled index I. */
__device__ static inline bool
in_window (int64_t x, int64_t i, int64_t kernel, int64_t stride, int64_t pad)
{
  int64_t start = i * stride - pad;

  return x >= start && x < start + kernel;
}

/* The winner of output O as a position in its plane, or -1 when it points
 * nowhere in the plane (read as the CPU reads it: a float mask truncated
 * toward zero, so values in (-1, plane) count). */
__device__ static inline int64_t
winner_of (const int32_t *mask, const float *top_mask, int64_t o, int64_t plane)
{
  if (mask != nullptr)
    {
      int64_t w = mask[o];
      return w >= 0 && w < plane ? w : -1;
    }
  float f = top_mask[o];
  if (!(f > -1.0f && (double) f < (double) plane))
    return -1;
  return (int64_t) f;
}

/* ---- MAX ------------------------------------------------------------------ */

__global__ static void
max_forward_kernel (int64_t n, CtPoolGeometry g, const float *bottom, float *top,
                    int32_t *mask, float *top_mask)
{
  CT_CUDA_LOOP (o, n)
    {
      Out at = split_output (g, o);
      const float *in = bottom + at.p * g.height * g.width;
      int64_t hstart = at.ph * g.stride_h - g.pad_h, wstart = at.pw * g.stride_w - g.pad_w;
      int64_t hend = min64 (hstart + g.kernel_h, g.height);
      int64_t wend = min64 (wstart + g.kernel_w, g.width);
      float best = -FLT_MAX;
      int32_t winner = -1;

      hstart = max64 (hstart, 0);
      wstart = max64 (wstart, 0);
      for (int64_t h = hstart; h < hend; h++)
        for (int64_t w = wstart; w < wend; w++)
          {
            float v = in[h * g.width + w];

            if (v > best)
              {
                best = v;
                winner = (int32_t) (h * g.width + w);
              }
          }
      top[o] = best;
      if (mask != nullptr)
        mask[o] = winner;
      if (top_mask != nullptr)
        top_mask[o] = (float) winner;
    }
}

extern "C" CtStatus
ct_cuda_max_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top,
                          int32_t *mask, float *top_mask)
{
  int64_t n;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if ((n = outputs (g)) == 0)
    return CT_STATUS_OK;
  max_forward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, *g, bottom, top, mask,
                                                               top_mask);
  return ct_cuda_launch_status ();
}

/* Each bottom element adds the top diff of every covering window whose
 * winner it is. PAD_H and PAD_W are the windows' padding (0 for
 * STOCHASTIC, whose windows ignore the geometry's). */
__global__ static void
winner_gather_kernel (int64_t n, CtPoolGeometry g, int64_t pad_h, int64_t pad_w,
                      const float *top_diff, const int32_t *mask, const float *top_mask,
                      float *bottom_diff)
{
  const int64_t plane = g.height * g.width;

  CT_CUDA_LOOP (e, n)
    {
      int64_t w = e % g.width, h = (e / g.width) % g.height, p = e / plane;
      int64_t target = h * g.width + w;
      int64_t ph0, ph1, pw0, pw1;
      float acc = bottom_diff[e];

      covering (h, g.kernel_h, g.stride_h, pad_h, g.pooled_height, &ph0, &ph1);
      covering (w, g.kernel_w, g.stride_w, pad_w, g.pooled_width, &pw0, &pw1);
      for (int64_t ph = ph0; ph < ph1; ph++)
        for (int64_t pw = pw0; pw < pw1; pw++)
          {
            int64_t o = (p * g.pooled_height + ph) * g.pooled_width + pw;

            if (winner_of (mask, top_mask, o, plane) == target)
              acc += top_diff[o];
          }
      bottom_diff[e] = acc;
    }
}

#define STRAY_THREADS 256

/* Block P: the winners of plane P outside their own window, added in
 * output order by one thread, chunk by chunk (a chunk without any costs
 * one parallel read). */
__global__ static void
winner_stray_kernel (CtPoolGeometry g, int64_t pad_h, int64_t pad_w, const float *top_diff,
                     const int32_t *mask, const float *top_mask, float *bottom_diff)
{
  __shared__ int64_t winners[STRAY_THREADS];
  const int64_t plane = g.height * g.width;
  const int64_t out_plane = g.pooled_height * g.pooled_width;
  const int64_t p = blockIdx.x;
  float *diff = bottom_diff + p * plane;

  for (int64_t chunk = 0; chunk < out_plane; chunk += STRAY_THREADS)
    {
      int64_t i = chunk + threadIdx.x;
      int64_t winner = -1;
      int stray = 0;

      if (i < out_plane)
        {
          winner = winner_of (mask, top_mask, p * out_plane + i, plane);
          stray = winner >= 0
                  && !(in_window (winner / g.width, i / g.pooled_width, g.kernel_h,
                                  g.stride_h, pad_h)
                       && in_window (winner % g.width, i % g.pooled_width, g.kernel_w,
                                     g.stride_w, pad_w));
        }
      winners[threadIdx.x] = stray ? winner : -1;
      if (__syncthreads_or (stray) && threadIdx.x == 0)
        for (int64_t j = 0; j < STRAY_THREADS && chunk + j < out_plane; j++)
          if (winners[j] >= 0)
            diff[winners[j]] += top_diff[p * out_plane + chunk + j];
      __syncthreads ();
    }
}

static CtStatus
winner_backward (const CtPoolGeometry *g, int64_t pad_h, int64_t pad_w, const float *top_diff,
                 const int32_t *mask, const float *top_mask, float *bottom_diff)
{
  int64_t n = inputs (g);

  if (n == 0 || outputs (g) == 0)
    return CT_STATUS_OK;
  if (g->planes > INT32_MAX)
    return CT_STATUS_INVALID;
  winner_gather_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, *g, pad_h, pad_w, top_diff,
                                                                 mask, top_mask, bottom_diff);
  CtStatus status = ct_cuda_launch_status ();
  if (status != CT_STATUS_OK)
    return status;
  winner_stray_kernel<<<(unsigned int) g->planes, STRAY_THREADS>>> (*g, pad_h, pad_w, top_diff,
                                                                    mask, top_mask,
                                                                    bottom_diff);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_max_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                           const int32_t *mask, const float *top_mask, float *bottom_diff)
{
  if (!valid_geometry (g) || (mask == nullptr && top_mask == nullptr))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  return winner_backward (g, g->pad_h, g->pad_w, top_diff, mask,
                          mask != nullptr ? nullptr : top_mask, bottom_diff);
}

/* ---- AVE ------------------------------------------------------------------ */

/* The divisor of an AVE window: its extent clipped to the padded image. */
__device__ static inline int64_t
ave_pool_size (const CtPoolGeometry &g, int64_t hstart, int64_t wstart)
{
  int64_t hend = min64 (hstart + g.kernel_h, g.height + g.pad_h);
  int64_t wend = min64 (wstart + g.kernel_w, g.width + g.pad_w);

  return (hend - hstart) * (wend - wstart);
}

__global__ static void
ave_forward_kernel (int64_t n, CtPoolGeometry g, const float *bottom, float *top)
{
  CT_CUDA_LOOP (o, n)
    {
      Out at = split_output (g, o);
      const float *in = bottom + at.p * g.height * g.width;
      int64_t hstart = at.ph * g.stride_h - g.pad_h, wstart = at.pw * g.stride_w - g.pad_w;
      int64_t pool_size = ave_pool_size (g, hstart, wstart);
      int64_t hend = min64 (hstart + g.kernel_h, g.height);
      int64_t wend = min64 (wstart + g.kernel_w, g.width);
      float sum = 0.0f;

      hstart = max64 (hstart, 0);
      wstart = max64 (wstart, 0);
      for (int64_t h = hstart; h < hend; h++)
        for (int64_t w = wstart; w < wend; w++)
          sum += in[h * g.width + w];
      top[o] = sum / (float) pool_size;
    }
}

extern "C" CtStatus
ct_cuda_ave_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top)
{
  int64_t n;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if ((n = outputs (g)) == 0)
    return CT_STATUS_OK;
  ave_forward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, *g, bottom, top);
  return ct_cuda_launch_status ();
}

__global__ static void
ave_backward_kernel (int64_t n, CtPoolGeometry g, const float *top_diff, float *bottom_diff)
{
  const int64_t plane = g.height * g.width;

  CT_CUDA_LOOP (e, n)
    {
      int64_t w = e % g.width, h = (e / g.width) % g.height, p = e / plane;
      int64_t ph0, ph1, pw0, pw1;
      float acc = bottom_diff[e];

      covering (h, g.kernel_h, g.stride_h, g.pad_h, g.pooled_height, &ph0, &ph1);
      covering (w, g.kernel_w, g.stride_w, g.pad_w, g.pooled_width, &pw0, &pw1);
      for (int64_t ph = ph0; ph < ph1; ph++)
        for (int64_t pw = pw0; pw < pw1; pw++)
          {
            int64_t o = (p * g.pooled_height + ph) * g.pooled_width + pw;
            int64_t pool_size = ave_pool_size (g, ph * g.stride_h - g.pad_h,
                                               pw * g.stride_w - g.pad_w);

            acc += top_diff[o] / (float) pool_size;
          }
      bottom_diff[e] = acc;
    }
}

extern "C" CtStatus
ct_cuda_ave_pool_backward (const CtPoolGeometry *g, const float *top_diff, float *bottom_diff)
{
  int64_t n;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if ((n = inputs (g)) == 0 || outputs (g) == 0)
    return CT_STATUS_OK;
  ave_backward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, *g, top_diff, bottom_diff);
  return ct_cuda_launch_status ();
}

/* ---- STOCHASTIC ----------------------------------------------------------- */

/* The unpadded STOCHASTIC window of output (PH, PW). */
struct Window {
  int64_t hstart, hend, wstart, wend;
};

__device__ static inline Window
stochastic_window (const CtPoolGeometry &g, int64_t ph, int64_t pw)
{
  Window r;

  r.hstart = ph * g.stride_h;
  r.hend = min64 (r.hstart + g.kernel_h, g.height);
  r.wstart = pw * g.stride_w;
  r.wend = min64 (r.wstart + g.kernel_w, g.width);
  return r;
}

__global__ static void
stochastic_train_kernel (int64_t n, CtPoolGeometry g, const float *bottom,
                         const float *uniform, float *top, int32_t *index)
{
  CT_CUDA_LOOP (o, n)
    {
      Out at = split_output (g, o);
      const float *in = bottom + at.p * g.height * g.width;
      Window win = stochastic_window (g, at.ph, at.pw);
      int64_t chosen = -1;
      float sum = 0.0f, threshold, running = 0.0f;

      for (int64_t h = win.hstart; h < win.hend; h++)
        for (int64_t w = win.wstart; w < win.wend; w++)
          sum += in[h * g.width + w];
      threshold = uniform[o] * sum;
      for (int64_t h = win.hstart; h < win.hend && chosen < 0; h++)
        for (int64_t w = win.wstart; w < win.wend; w++)
          {
            running += in[h * g.width + w];
            if (running >= threshold)
              {
                chosen = h * g.width + w;
                break;
              }
          }
      if (chosen < 0)
        chosen = (win.hend - 1) * g.width + (win.wend - 1);
      top[o] = in[chosen];
      index[o] = (int32_t) chosen;
    }
}

extern "C" CtStatus
ct_cuda_stochastic_pool_forward_train (const CtPoolGeometry *g, const float *bottom,
                                       const float *uniform, float *top, int32_t *index)
{
  int64_t n;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if ((n = outputs (g)) == 0)
    return CT_STATUS_OK;
  stochastic_train_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, *g, bottom, uniform,
                                                                    top, index);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_stochastic_pool_backward_train (const CtPoolGeometry *g, const float *top_diff,
                                        const int32_t *index, float *bottom_diff)
{
  if (!valid_geometry (g) || index == nullptr)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  return winner_backward (g, 0, 0, top_diff, index, nullptr, bottom_diff);
}

/* FLT_MIN plus the window's values, in the CPU's order. */
__device__ static inline float
stochastic_sum (const CtPoolGeometry &g, const float *in, const Window &win)
{
  float sum = FLT_MIN;

  for (int64_t h = win.hstart; h < win.hend; h++)
    for (int64_t w = win.wstart; w < win.wend; w++)
      sum += in[h * g.width + w];
  return sum;
}

__global__ static void
stochastic_test_kernel (int64_t n, CtPoolGeometry g, const float *bottom, float *top)
{
  CT_CUDA_LOOP (o, n)
    {
      Out at = split_output (g, o);
      const float *in = bottom + at.p * g.height * g.width;
      Window win = stochastic_window (g, at.ph, at.pw);
      float sum = FLT_MIN, squares = 0.0f;

      for (int64_t h = win.hstart; h < win.hend; h++)
        for (int64_t w = win.wstart; w < win.wend; w++)
          {
            float x = in[h * g.width + w];

            sum += x;
            squares = __fadd_rn (squares, __fmul_rn (x, x));
          }
      top[o] = squares / sum;
    }
}

extern "C" CtStatus
ct_cuda_stochastic_pool_forward_test (const CtPoolGeometry *g, const float *bottom,
                                      float *top)
{
  int64_t n;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if ((n = outputs (g)) == 0)
    return CT_STATUS_OK;
  stochastic_test_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, *g, bottom, top);
  return ct_cuda_launch_status ();
}

/* Each element adds scale * (2 x - y) of every window covering it, the
 * window's sum recomputed (the API has no scratch to keep it). */
__global__ static void
stochastic_test_backward_kernel (int64_t n, CtPoolGeometry g, const float *bottom,
                                 const float *top, const float *top_diff, float *bottom_diff)
{
  const int64_t plane = g.height * g.width;

  CT_CUDA_LOOP (e, n)
    {
      int64_t w = e % g.width, h = (e / g.width) % g.height, p = e / plane;
      const float *in = bottom + p * plane;
      const float twice = __fmul_rn (2.0f, bottom[e]);
      int64_t ph0, ph1, pw0, pw1;
      float acc = bottom_diff[e];

      covering (h, g.kernel_h, g.stride_h, 0, g.pooled_height, &ph0, &ph1);
      covering (w, g.kernel_w, g.stride_w, 0, g.pooled_width, &pw0, &pw1);
      for (int64_t ph = ph0; ph < ph1; ph++)
        for (int64_t pw = pw0; pw < pw1; pw++)
          {
            int64_t o = (p * g.pooled_height + ph) * g.pooled_width + pw;
            float scale = top_diff[o] / stochastic_sum (g, in, stochastic_window (g, ph, pw));

            acc = __fadd_rn (acc, __fmul_rn (scale, __fsub_rn (twice, top[o])));
          }
      bottom_diff[e] = acc;
    }
}

extern "C" CtStatus
ct_cuda_stochastic_pool_backward_test (const CtPoolGeometry *g, const float *bottom,
                                       const float *top, const float *top_diff,
                                       float *bottom_diff)
{
  int64_t n;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if ((n = inputs (g)) == 0 || outputs (g) == 0)
    return CT_STATUS_OK;
  stochastic_test_backward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (
    n, *g, bottom, top, top_diff, bottom_diff);
  return ct_cuda_launch_status ();
}
