/* cuda/neuron.cu: the CUDA side of neuron.h.
 *
 * One grid-stride kernel per function, each element read before its output
 * is written (so outputs may be their inputs, for in-place layers). The
 * formulas, the sign tests and the order of float operations are those of
 * cpu/neuron.c: "positive" means the float's bits are a positive int32 (a
 * NaN with the sign bit clear counts, +0 and -0 do not), exactly as the
 * CPU's select_positive decides. Products that the CPU rounds before an
 * add are written with __fmul_rn / __fadd_rn so that nvcc does not fuse
 * them into one fma and round differently.
 *
 * The PReLU slope gradient is the one reduction: a block per channel (one
 * block for a shared slope) sums in double in a fixed order, so its result
 * never depends on scheduling. */
#include <cfloat>
#include <climits>

#include "cuda-private.cuh"
#include "neuron.h"

/* Counts whose bytes fit in size_t, as on the CPU. */
static inline bool
valid_count (int64_t n)
{
  return n >= 0 && (uint64_t) n <= SIZE_MAX / sizeof (float);
}

static inline bool
valid_grid (int64_t outer, int64_t channels, int64_t inner)
{
  if (outer < 0 || channels < 0 || inner < 0)
    return false;
  if (outer == 0 || channels == 0 || inner == 0)
    return true;
  if (channels > INT64_MAX / inner || outer > INT64_MAX / (channels * inner))
    return false;
  return valid_count (outer * channels * inner);
}

__device__ static inline bool
positive (float x)
{
  return __float_as_int (x) > 0;
}

/* The checks every element-wise entry point starts with: a bad count is
 * INVALID, then the device, then nothing to do for 0. */
#define ELEMENTWISE_ENTER(n)          \
  do {                                \
    if (!valid_count (n))             \
      return CT_STATUS_INVALID;       \
    CT_CUDA_ENTER ();                 \
    if ((n) == 0)                     \
      return CT_STATUS_OK;            \
  } while (0)

#define LAUNCH(kernel, n, ...)                                               \
  do {                                                                       \
    kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> ((n), __VA_ARGS__);      \
    return ct_cuda_launch_status ();                                         \
  } while (0)

/* ---- ReLU, PReLU ---------------------------------------------------------- */

__global__ static void
relu_forward_kernel (int64_t n, float slope, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = x[i];
      /* + 0.0f turns -0 into +0, as on the CPU. */
      y[i] = __fadd_rn (positive (v) ? v : __fmul_rn (slope, v), 0.0f);
    }
}

extern "C" CtStatus
ct_cuda_relu_forward (int64_t n, float negative_slope, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (relu_forward_kernel, n, negative_slope, x, y);
}

__global__ static void
relu_backward_kernel (int64_t n, float slope, const float *x, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float g = dy[i];
      dx[i] = positive (x[i]) ? g : g * slope;
    }
}

extern "C" CtStatus
ct_cuda_relu_backward (int64_t n, float negative_slope, const float *x, const float *dy,
                       float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (relu_backward_kernel, n, negative_slope, x, dy, dx);
}

__global__ static void
prelu_forward_kernel (int64_t n, int64_t channels, int64_t inner, const float *slope,
                      int channel_shared, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = x[i];
      float a = slope[channel_shared ? 0 : (i / inner) % channels];
      y[i] = positive (v) ? v : a * v;
    }
}

extern "C" CtStatus
ct_cuda_prelu_forward (int64_t outer, int64_t channels, int64_t inner, const float *slope,
                       int channel_shared, const float *x, float *y)
{
  int64_t n;

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  n = outer * channels * inner;
  if (n == 0)
    return CT_STATUS_OK;
  LAUNCH (prelu_forward_kernel, n, channels, inner, slope, channel_shared, x, y);
}

__global__ static void
prelu_backward_kernel (int64_t n, int64_t channels, int64_t inner, const float *slope,
                       int channel_shared, const float *x, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float g = dy[i];
      float a = slope[channel_shared ? 0 : (i / inner) % channels];
      dx[i] = positive (x[i]) ? g : g * a;
    }
}

extern "C" CtStatus
ct_cuda_prelu_backward (int64_t outer, int64_t channels, int64_t inner, const float *slope,
                        int channel_shared, const float *x, const float *dy, float *dx)
{
  int64_t n;

  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  n = outer * channels * inner;
  if (n == 0)
    return CT_STATUS_OK;
  LAUNCH (prelu_backward_kernel, n, channels, inner, slope, channel_shared, x, dy, dx);
}

/* Threads of a reduction block: a power of two for the tree. */
#define REDUCE_THREADS 256

/* Block b sums dy * x over the non-positive x of channels [FIRST, LAST)
 * (one channel per block, or every channel in one block when shared): each
 * thread strides through the elements in a fixed order, then a fixed tree
 * adds the threads' sums. Thread 0 adds the total to SLOPE_DIFF. */
__global__ static void
prelu_slope_kernel (int64_t outer, int64_t channels, int64_t inner, int channel_shared,
                    const float *x, const float *dy, float *slope_diff)
{
  __shared__ double partial[REDUCE_THREADS];
  const int64_t first = channel_shared ? 0 : blockIdx.x;
  const int64_t last = channel_shared ? channels : first + 1;
  const int64_t per_channel = outer * inner;
  double sum = 0.0;

  for (int64_t c = first; c < last; c++)
    for (int64_t j = threadIdx.x; j < per_channel; j += REDUCE_THREADS)
      {
        int64_t i = ((j / inner) * channels + c) * inner + j % inner;
        float v = x[i];

        if (!positive (v))
          sum += (double) (dy[i] * v);
      }
  partial[threadIdx.x] = sum;
  __syncthreads ();
  for (unsigned int half = REDUCE_THREADS / 2; half > 0; half /= 2)
    {
      if (threadIdx.x < half)
        partial[threadIdx.x] += partial[threadIdx.x + half];
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    slope_diff[first] += (float) partial[0];
}

extern "C" CtStatus
ct_cuda_prelu_slope_backward (int64_t outer, int64_t channels, int64_t inner,
                              int channel_shared, const float *x, const float *dy,
                              float *slope_diff)
{
  if (!valid_grid (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (channels == 0)
    return CT_STATUS_OK;
  /* An empty channel still adds its 0, as on the CPU: nothing to launch
   * then, since adding 0.0f changes nothing but -0. */
  if (outer == 0 || inner == 0)
    return CT_STATUS_OK;
  if (channels > INT_MAX)
    return CT_STATUS_INVALID;
  prelu_slope_kernel<<<channel_shared ? 1 : (unsigned int) channels, REDUCE_THREADS>>> (
    outer, channels, inner, channel_shared, x, dy, slope_diff);
  return ct_cuda_launch_status ();
}

/* ---- ELU, sigmoid, tanh, absval ------------------------------------------ */

__global__ static void
elu_forward_kernel (int64_t n, float alpha, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = x[i];
      float e = expf (positive (v) ? 0.0f : v);
      y[i] = positive (v) ? v : alpha * (e - 1.0f);
    }
}

extern "C" CtStatus
ct_cuda_elu_forward (int64_t n, float alpha, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (elu_forward_kernel, n, alpha, x, y);
}

__global__ static void
elu_backward_kernel (int64_t n, float alpha, const float *x, const float *y, const float *dy,
                     float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float g = dy[i];
      dx[i] = positive (x[i]) ? g : g * (alpha + y[i]);
    }
}

extern "C" CtStatus
ct_cuda_elu_backward (int64_t n, float alpha, const float *x, const float *y, const float *dy,
                      float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (elu_backward_kernel, n, alpha, x, y, dy, dx);
}

__global__ static void
sigmoid_forward_kernel (int64_t n, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = __fadd_rn (__fmul_rn (0.5f, tanhf (0.5f * x[i])), 0.5f);
}

extern "C" CtStatus
ct_cuda_sigmoid_forward (int64_t n, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (sigmoid_forward_kernel, n, x, y);
}

__global__ static void
sigmoid_backward_kernel (int64_t n, const float *y, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float s = y[i];
      dx[i] = dy[i] * s * (1.0f - s);
    }
}

extern "C" CtStatus
ct_cuda_sigmoid_backward (int64_t n, const float *y, const float *dy, float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (sigmoid_backward_kernel, n, y, dy, dx);
}

__global__ static void
tanh_forward_kernel (int64_t n, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = tanhf (x[i]);
}

extern "C" CtStatus
ct_cuda_tanh_forward (int64_t n, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (tanh_forward_kernel, n, x, y);
}

__global__ static void
tanh_backward_kernel (int64_t n, const float *y, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float t = y[i];
      /* 1 - t * t rounded as the CPU rounds it: the product first. */
      dx[i] = dy[i] * (1.0f - __fmul_rn (t, t));
    }
}

extern "C" CtStatus
ct_cuda_tanh_backward (int64_t n, const float *y, const float *dy, float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (tanh_backward_kernel, n, y, dy, dx);
}

__global__ static void
absval_forward_kernel (int64_t n, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = fabsf (x[i]);
}

extern "C" CtStatus
ct_cuda_absval_forward (int64_t n, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (absval_forward_kernel, n, x, y);
}

__global__ static void
absval_backward_kernel (int64_t n, const float *x, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = x[i];
      float sign = (float) ((v > 0.0f) - (v < 0.0f));
      dx[i] = sign * dy[i];
    }
}

extern "C" CtStatus
ct_cuda_absval_backward (int64_t n, const float *x, const float *dy, float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (absval_backward_kernel, n, x, dy, dx);
}

/* ---- Power, Exp, Log, BNLL ---------------------------------------------- */

__global__ static void
set_kernel (int64_t n, float value, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = value;
}

/* shift + scale * x, rounded as the CPU rounds it (the product first). */
__device__ static inline float
affine (float v, float scale, float shift)
{
  if (scale != 1.0f)
    v = __fmul_rn (v, scale);
  if (shift != 0.0f)
    v = __fadd_rn (v, shift);
  return v;
}

__global__ static void
power_forward_kernel (int64_t n, float power, float scale, float shift, const float *x,
                      float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = affine (x[i], scale, shift);

      if (power == 2.0f)
        v = v * v;
      else if (power != 1.0f)
        v = powf (v, power);
      y[i] = v;
    }
}

extern "C" CtStatus
ct_cuda_power_forward (int64_t n, float power, float scale, float shift, const float *x,
                       float *y)
{
  ELEMENTWISE_ENTER (n);
  /* A constant output, computed on the host exactly as the CPU does. */
  if (power * scale == 0.0f)
    LAUNCH (set_kernel, n, power == 0.0f ? 1.0f : powf (shift, power), y);
  LAUNCH (power_forward_kernel, n, power, scale, shift, x, y);
}

/* Caffe's special cases of the backward, which the host picks once as the
 * CPU does before its loops. DIFF_SCALE = power * scale, SLOPE =
 * diff_scale * scale and OFFSET = diff_scale * shift are rounded on the
 * host as the CPU rounds them. */
enum { POWER_ZERO, POWER_ONE, POWER_TWO, POWER_NO_SHIFT, POWER_GENERAL };

__global__ static void
power_backward_kernel (int64_t n, int which, float power, float scale, float shift,
                       float diff_scale, float slope, float offset, const float *x,
                       const float *y, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float d;

      switch (which)
        {
        case POWER_ZERO:
          dx[i] = 0.0f;
          break;
        case POWER_ONE:
          dx[i] = dy[i] * diff_scale;
          break;
        case POWER_TWO:
          d = __fmul_rn (slope, x[i]);
          if (shift != 0.0f)
            d = __fadd_rn (d, offset);
          dx[i] = dy[i] * d;
          break;
        case POWER_NO_SHIFT:
          dx[i] = dy[i] * ((y[i] / x[i]) * power);
          break;
        default:
          d = y[i] / affine (x[i], scale, shift);
          if (diff_scale != 1.0f)
            d *= diff_scale;
          dx[i] = dy[i] * d;
          break;
        }
    }
}

extern "C" CtStatus
ct_cuda_power_backward (int64_t n, float power, float scale, float shift, const float *x,
                        const float *y, const float *dy, float *dx)
{
  float diff_scale = power * scale;
  int which;

  ELEMENTWISE_ENTER (n);
  if (diff_scale == 0.0f)
    which = POWER_ZERO;
  else if (power == 1.0f)
    which = POWER_ONE;
  else if (power == 2.0f)
    which = POWER_TWO;
  else if (shift == 0.0f)
    which = POWER_NO_SHIFT;
  else
    which = POWER_GENERAL;
  LAUNCH (power_backward_kernel, n, which, power, scale, shift, diff_scale,
          diff_scale * scale, diff_scale * shift, x, y, dy, dx);
}

__global__ static void
exp_forward_kernel (int64_t n, float inner_scale, float outer_scale, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = inner_scale == 1.0f ? expf (x[i]) : expf (inner_scale * x[i]);
      y[i] = outer_scale != 1.0f ? v * outer_scale : v;
    }
}

extern "C" CtStatus
ct_cuda_exp_forward (int64_t n, float inner_scale, float outer_scale, const float *x,
                     float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (exp_forward_kernel, n, inner_scale, outer_scale, x, y);
}

__global__ static void
exp_backward_kernel (int64_t n, float inner_scale, const float *y, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float d = y[i] * dy[i];
      dx[i] = inner_scale != 1.0f ? d * inner_scale : d;
    }
}

extern "C" CtStatus
ct_cuda_exp_backward (int64_t n, float inner_scale, const float *y, const float *dy,
                      float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (exp_backward_kernel, n, inner_scale, y, dy, dx);
}

__global__ static void
log_forward_kernel (int64_t n, float scale, float shift, float base_scale, const float *x,
                    float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = logf (affine (x[i], scale, shift));
      y[i] = base_scale != 1.0f ? v * base_scale : v;
    }
}

extern "C" CtStatus
ct_cuda_log_forward (int64_t n, float scale, float shift, float base_scale, const float *x,
                     float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (log_forward_kernel, n, scale, shift, base_scale, x, y);
}

__global__ static void
log_backward_kernel (int64_t n, float scale, float shift, float backward_scale,
                     const float *x, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = 1.0f / affine (x[i], scale, shift);

      if (backward_scale != 1.0f)
        v *= backward_scale;
      dx[i] = dy[i] * v;
    }
}

extern "C" CtStatus
ct_cuda_log_backward (int64_t n, float scale, float shift, float backward_scale,
                      const float *x, const float *dy, float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (log_backward_kernel, n, scale, shift, backward_scale, x, dy, dx);
}

/* Above this input, exp overflows in the gradient; Caffe caps it here. */
#define CT_BNLL_THRESHOLD 50.0

__global__ static void
bnll_forward_kernel (int64_t n, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      double v = x[i];
      y[i] = (float) (v > 0.0 ? v + log (1.0 + exp (-v)) : log (1.0 + exp (v)));
    }
}

extern "C" CtStatus
ct_cuda_bnll_forward (int64_t n, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (bnll_forward_kernel, n, x, y);
}

__global__ static void
bnll_backward_kernel (int64_t n, const float *x, const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      double e = exp (fmin ((double) x[i], CT_BNLL_THRESHOLD));
      dx[i] = (float) (dy[i] * e / (e + 1.0));
    }
}

extern "C" CtStatus
ct_cuda_bnll_backward (int64_t n, const float *x, const float *dy, float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (bnll_backward_kernel, n, x, dy, dx);
}

/* ---- Threshold, Dropout, Swish, Clip ------------------------------------- */

__global__ static void
threshold_forward_kernel (int64_t n, float threshold, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = x[i] > threshold ? 1.0f : 0.0f;
}

extern "C" CtStatus
ct_cuda_threshold_forward (int64_t n, float threshold, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (threshold_forward_kernel, n, threshold, x, y);
}

__global__ static void
dropout_kernel (int64_t n, float scale, const float *mask, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n) y[i] = x[i] * mask[i] * scale;
}

extern "C" CtStatus
ct_cuda_dropout_forward (int64_t n, float scale, const float *mask, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (dropout_kernel, n, scale, mask, x, y);
}

extern "C" CtStatus
ct_cuda_dropout_backward (int64_t n, float scale, const float *mask, const float *dy,
                          float *dx)
{
  return ct_cuda_dropout_forward (n, scale, mask, dy, dx);
}

__global__ static void
swish_forward_kernel (int64_t n, float beta, const float *x, float *sig, float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      float v = x[i];
      float s = __fadd_rn (__fmul_rn (0.5f, tanhf (0.5f * (v * beta))), 0.5f);

      sig[i] = s;
      y[i] = v * s;
    }
}

extern "C" CtStatus
ct_cuda_swish_forward (int64_t n, float beta, const float *x, float *sig, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (swish_forward_kernel, n, beta, x, sig, y);
}

__global__ static void
swish_backward_kernel (int64_t n, float beta, const float *y, const float *sig,
                       const float *dy, float *dx)
{
  CT_CUDA_LOOP (i, n)
    {
      float by = beta * y[i];
      dx[i] = dy[i] * __fadd_rn (by, __fmul_rn (sig[i], 1.0f - by));
    }
}

extern "C" CtStatus
ct_cuda_swish_backward (int64_t n, float beta, const float *y, const float *sig,
                        const float *dy, float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (swish_backward_kernel, n, beta, y, sig, dy, dx);
}

__global__ static void
clip_forward_kernel (int64_t n, float min, float max, const float *x, float *y)
{
  CT_CUDA_LOOP (i, n)
    {
      /* NaN comes out as MIN, as on the CPU (not fminf / fmaxf, which
       * drop the NaN the other way). */
      float v = max < x[i] ? max : x[i];
      y[i] = min < v ? v : min;
    }
}

extern "C" CtStatus
ct_cuda_clip_forward (int64_t n, float min, float max, const float *x, float *y)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (clip_forward_kernel, n, min, max, x, y);
}

__global__ static void
clip_backward_kernel (int64_t n, float min, float max, const float *x, const float *dy,
                      float *dx)
{
  CT_CUDA_LOOP (i, n) dx[i] = x[i] >= min && x[i] <= max ? dy[i] : 0.0f;
}

extern "C" CtStatus
ct_cuda_clip_backward (int64_t n, float min, float max, const float *x, const float *dy,
                       float *dx)
{
  ELEMENTWISE_ENTER (n);
  LAUNCH (clip_backward_kernel, n, min, max, x, dy, dx);
}
