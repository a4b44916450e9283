/* cuda/lrn.cu: the CUDA side of lrn.h.
 *
 * ACROSS: one thread per (image, position) walks the channels as the CPU
 * does, the window's sum sliding with one add and one subtract per
 * channel, so every scale is rounded exactly as the CPU's (the slide's
 * history is part of the result). WITHIN: one thread per element for the
 * forward; the backward first writes each window's share of the gradient
 * into SCRATCH, then every element gathers the shares of the windows
 * covering it in the order the CPU's scatter adds them.
 *
 * Products the CPU rounds before adding are written with __fmul_rn /
 * __fadd_rn so that nvcc does not fuse them into an fma; with IEEE sqrt and
 * division (nvcc's defaults), beta = 0.75 then gives the CPU's bits, and
 * other betas powf's, within its 2 ulp. */
#include "cuda-private.cuh"
#include "lrn.h"

static bool
valid_counts (int64_t a, int64_t b, int64_t c, int64_t size)
{
  return a >= 0 && b >= 0 && c >= 0 && size > 0 && size % 2 == 1;
}

/* scale^-beta, the CPU's way: beta 0.75 as 1 / (r sqrt (r)), r = sqrt (s). */
__device__ static inline float
negative_power (float s, float beta)
{
  float r;

  if (beta != 0.75f)
    return powf (s, -beta);
  r = sqrtf (s);
  return 1.0f / __fmul_rn (r, sqrtf (r));
}

/* v + a * b, the product rounded first. */
__device__ static inline float
add_product (float v, float a, float b)
{
  return __fadd_rn (v, __fmul_rn (a, b));
}

/* ---- ACROSS_CHANNELS ------------------------------------------------------ */

__global__ static void
across_forward_kernel (int64_t n, int64_t channels, int64_t spatial, int64_t pre,
                       float alpha_over_size, float k, float beta, const float *bottom,
                       float *scale, float *top)
{
  CT_CUDA_LOOP (t, n)
    {
      const int64_t base = (t / spatial) * channels * spatial + t % spatial;
      const float *x = bottom + base;
      float *s = scale + base;
      float *y = top + base;
      float sum = k;

      /* Channel 0: the window covers channels [-pre, pre]. */
      for (int64_t c = 0; c <= pre && c < channels; c++)
        sum = add_product (sum, alpha_over_size, __fmul_rn (x[c * spatial], x[c * spatial]));
      s[0] = sum;
      /* Then slide: channel c + pre enters, channel c - 1 - pre leaves. */
      for (int64_t c = 1; c < channels; c++)
        {
          int64_t head = c + pre, tail = c - 1 - pre;

          if (head < channels)
            sum = add_product (sum, alpha_over_size,
                               __fmul_rn (x[head * spatial], x[head * spatial]));
          if (tail >= 0)
            sum = add_product (sum, -alpha_over_size,
                               __fmul_rn (x[tail * spatial], x[tail * spatial]));
          s[c * spatial] = sum;
        }
      for (int64_t c = 0; c < channels; c++)
        y[c * spatial] = __fmul_rn (negative_power (s[c * spatial], beta), x[c * spatial]);
    }
}

extern "C" CtStatus
ct_cuda_lrn_across_forward (int64_t num, int64_t channels, int64_t spatial, int64_t size,
                            float alpha, float beta, float k, const float *bottom,
                            float *scale, float *top)
{
  int64_t n;

  if (!valid_counts (num, channels, spatial, size))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  n = num * spatial;
  if (n == 0 || channels == 0)
    return CT_STATUS_OK;
  across_forward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (
    n, channels, spatial, (size - 1) / 2, alpha / (float) size, k, beta, bottom, scale, top);
  return ct_cuda_launch_status ();
}

/* top_diff * top / scale at one element: the ratio the backward sums. */
__device__ static inline float
across_ratio (const float *top_diff, const float *top, const float *scale, int64_t i)
{
  return __fmul_rn (top_diff[i], top[i]) / scale[i];
}

__global__ static void
across_backward_kernel (int64_t n, int64_t channels, int64_t spatial, int64_t pre,
                        float beta, float cache_ratio, const float *bottom, const float *top,
                        const float *scale, const float *top_diff, float *bottom_diff)
{
  CT_CUDA_LOOP (t, n)
    {
      const int64_t base = (t / spatial) * channels * spatial + t % spatial;
      const float *x = bottom + base, *y = top + base, *s = scale + base;
      const float *td = top_diff + base;
      float *bd = bottom_diff + base;
      float accum = 0.0f;

      /* Channels [-pre, pre - 1] start the window of channel 0. */
      for (int64_t c = 0; c < pre && c < channels; c++)
        accum += across_ratio (td, y, s, c * spatial);
      for (int64_t c = 0; c < channels; c++)
        {
          int64_t head = c + pre, tail = c - pre;
          float direct = __fmul_rn (negative_power (s[c * spatial], beta), td[c * spatial]);

          if (head < channels)
            accum += across_ratio (td, y, s, head * spatial);
          bd[c * spatial] = add_product (direct, -cache_ratio,
                                         __fmul_rn (x[c * spatial], accum));
          if (tail >= 0)
            accum += -across_ratio (td, y, s, tail * spatial);
        }
    }
}

extern "C" CtStatus
ct_cuda_lrn_across_backward (int64_t num, int64_t channels, int64_t spatial, int64_t size,
                             float alpha, float beta, const float *bottom, const float *top,
                             const float *scale, const float *top_diff, float *scratch,
                             float *bottom_diff)
{
  int64_t n;

  (void) scratch;
  if (!valid_counts (num, channels, spatial, size))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  n = num * spatial;
  if (n == 0 || channels == 0)
    return CT_STATUS_OK;
  /* Caffe forms this constant in double, then stores it as a float. */
  across_backward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (
    n, channels, spatial, (size - 1) / 2, beta, (float) (2.0 * alpha * beta / (double) size),
    bottom, top, scale, top_diff, bottom_diff);
  return ct_cuda_launch_status ();
}

/* ---- WITHIN_CHANNEL ------------------------------------------------------- */

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

/* The averaging window of (H, W), as Caffe's pooling with kernel SIZE,
 * stride 1 and pad PRE sets it: clipped bounds and the divisor. */
struct Window {
  int64_t hstart, hend, wstart, wend, pool_size;
};

__device__ static inline Window
within_window (int64_t h, int64_t w, int64_t height, int64_t width, int64_t size, int64_t pre)
{
  Window win;
  int64_t hs = h - pre, ws = w - pre;
  int64_t he = min64 (hs + size, height + pre), we = min64 (ws + size, width + pre);

  win.pool_size = (he - hs) * (we - ws);
  win.hstart = max64 (hs, 0);
  win.wstart = max64 (ws, 0);
  win.hend = min64 (he, height);
  win.wend = min64 (we, width);
  return win;
}

__global__ static void
within_forward_kernel (int64_t n, int64_t height, int64_t width, int64_t size, int64_t pre,
                       float alpha, float beta, const float *bottom, float *scale, float *top)
{
  const int64_t plane = height * width;

  CT_CUDA_LOOP (i, n)
    {
      int64_t w = i % width, h = (i / width) % height;
      const float *x = bottom + (i / plane) * plane;
      Window win = within_window (h, w, height, width, size, pre);
      float sum = 0.0f, s;

      for (int64_t hh = win.hstart; hh < win.hend; hh++)
        for (int64_t ww = win.wstart; ww < win.wend; ww++)
          sum = add_product (sum, x[hh * width + ww], x[hh * width + ww]);
      s = __fadd_rn (__fmul_rn (alpha, sum / (float) win.pool_size), 1.0f);
      scale[i] = s;
      top[i] = __fmul_rn (bottom[i], negative_power (s, beta));
    }
}

extern "C" CtStatus
ct_cuda_lrn_within_forward (int64_t planes, int64_t height, int64_t width, int64_t size,
                            float alpha, float beta, const float *bottom, float *scale,
                            float *top)
{
  int64_t n;

  if (!valid_counts (planes, height, width, size))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  n = planes * height * width;
  if (n == 0)
    return CT_STATUS_OK;
  within_forward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (
    n, height, width, size, (size - 1) / 2, alpha, beta, bottom, scale, top);
  return ct_cuda_launch_status ();
}

/* SHARE[i]: the gradient reaching the average of the window centred on i,
 * divided among the window's pool_size places. */
__global__ static void
within_share_kernel (int64_t n, int64_t height, int64_t width, int64_t size, int64_t pre,
                     float beta, float power_scale, const float *bottom, const float *scale,
                     const float *top_diff, float *share)
{
  CT_CUDA_LOOP (i, n)
    {
      int64_t w = i % width, h = (i / width) % height;
      Window win = within_window (h, w, height, width, size, pre);
      float s = scale[i];
      float average_diff = __fmul_rn (__fmul_rn (bottom[i], top_diff[i]),
                                      __fmul_rn (power_scale, negative_power (s, beta) / s));

      share[i] = average_diff / (float) win.pool_size;
    }
}

/* Each element: the direct path plus the path through x^2, whose gradient
 * is the shares of the windows covering it (centres within PRE of it),
 * added in the CPU's order (rows, then columns). */
__global__ static void
within_gather_kernel (int64_t n, int64_t height, int64_t width, int64_t pre, float beta,
                      const float *bottom, const float *scale, const float *top_diff,
                      const float *share, float *bottom_diff)
{
  const int64_t plane = height * width;

  CT_CUDA_LOOP (i, n)
    {
      int64_t w = i % width, h = (i / width) % height;
      const float *sh = share + (i / plane) * plane;
      int64_t h0 = max64 (h - pre, 0), h1 = min64 (h + pre + 1, height);
      int64_t w0 = max64 (w - pre, 0), w1 = min64 (w + pre + 1, width);
      float square_diff = 0.0f;

      for (int64_t hh = h0; hh < h1; hh++)
        for (int64_t ww = w0; ww < w1; ww++)
          square_diff += sh[hh * width + ww];
      bottom_diff[i] = __fadd_rn (__fmul_rn (negative_power (scale[i], beta), top_diff[i]),
                                  __fmul_rn (square_diff, __fmul_rn (2.0f, bottom[i])));
    }
}

extern "C" CtStatus
ct_cuda_lrn_within_backward (int64_t planes, int64_t height, int64_t width, int64_t size,
                             float alpha, float beta, const float *bottom,
                             const float *scale, const float *top_diff, float *scratch,
                             float *bottom_diff)
{
  int64_t n, pre = (size - 1) / 2;
  CtStatus status;

  if (!valid_counts (planes, height, width, size))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  n = planes * height * width;
  if (n == 0)
    return CT_STATUS_OK;
  /* d/du (1 + alpha u)^-beta, without the power, rounded as the CPU's. */
  within_share_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (
    n, height, width, size, pre, beta, -beta * alpha, bottom, scale, top_diff, scratch);
  if ((status = ct_cuda_launch_status ()) != CT_STATUS_OK)
    return status;
  within_gather_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (
    n, height, width, pre, beta, bottom, scale, top_diff, scratch, bottom_diff);
  return ct_cuda_launch_status ();
}
