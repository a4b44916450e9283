/* solver-update.cu: the solvers' update rules on the GPU (see
 * solver-update.h), one element-wise kernel per rule.
 *
 * Each kernel performs the CPU loop's float operations in the CPU loop's
 * order. nvcc would contract a * b + c into one fused multiply-add, which
 * rounds once where the CPU rounds twice; the __fmul_rn / __fadd_rn
 * intrinsics forbid that, so a step on the GPU equals the CPU's step
 * (squares are x * x and roots sqrtf on both). Division and sqrtf are
 * IEEE-rounded as long as the build does not ask for fast math. */
#include "cuda-private.cuh"
#include "solver-update.h"

/* a * b + c, rounded after the product and after the sum, as on the CPU */
__device__ static inline float
mul_add (float a, float b, float c)
{
  return __fadd_rn (__fmul_rn (a, b), c);
}

__global__ static void
l1_decay_kernel (int64_t n, float decay, const float *data, float *diff)
{
  CT_CUDA_LOOP (i, n)
    {
      float sign = (float) ((0.0f < data[i]) - (data[i] < 0.0f));

      diff[i] = mul_add (decay, sign, diff[i]);
    }
}

__global__ static void
sgd_kernel (int64_t n, float momentum, float rate, float *diff, float *history)
{
  CT_CUDA_LOOP (i, n)
    {
      float h = __fadd_rn (__fmul_rn (rate, diff[i]), __fmul_rn (momentum, history[i]));

      history[i] = h;
      diff[i] = h;
    }
}

__global__ static void
nesterov_kernel (int64_t n, float momentum, float rate, float *diff, float *history)
{
  const float ahead = 1.0f + momentum;

  CT_CUDA_LOOP (i, n)
    {
      float previous = history[i];
      float h = __fadd_rn (__fmul_rn (rate, diff[i]), __fmul_rn (momentum, previous));

      history[i] = h;
      diff[i] = __fadd_rn (__fmul_rn (ahead, h), __fmul_rn (-momentum, previous));
    }
}

__global__ static void
adagrad_kernel (int64_t n, float delta, float rate, float *diff, float *history)
{
  CT_CUDA_LOOP (i, n)
    {
      float g = diff[i];
      float h = __fadd_rn (__fmul_rn (g, g), history[i]);
      float root = __fadd_rn (sqrtf (h), delta);

      history[i] = h;
      diff[i] = __fmul_rn (rate, __fdiv_rn (g, root));
    }
}

__global__ static void
rmsprop_kernel (int64_t n, float rms_decay, float delta, float rate, float *diff,
                float *history)
{
  const float keep = 1.0f - rms_decay;

  CT_CUDA_LOOP (i, n)
    {
      float g = diff[i];
      float h = __fadd_rn (__fmul_rn (keep, __fmul_rn (g, g)), __fmul_rn (rms_decay, history[i]));
      float root = __fadd_rn (sqrtf (h), delta);

      history[i] = h;
      diff[i] = __fmul_rn (rate, __fdiv_rn (g, root));
    }
}

__global__ static void
adadelta_kernel (int64_t n, float momentum, float delta, float rate, float *diff,
                 float *grad_history, float *update_history)
{
  const float keep = 1.0f - momentum;

  CT_CUDA_LOOP (i, n)
    {
      float g = diff[i];
      float gh = __fadd_rn (__fmul_rn (keep, __fmul_rn (g, g)),
                            __fmul_rn (momentum, grad_history[i]));
      float ratio = __fdiv_rn (__fadd_rn (delta, update_history[i]), __fadd_rn (delta, gh));
      float step = __fmul_rn (g, sqrtf (ratio));

      grad_history[i] = gh;
      update_history[i] = __fadd_rn (__fmul_rn (keep, __fmul_rn (step, step)),
                                     __fmul_rn (momentum, update_history[i]));
      diff[i] = __fmul_rn (rate, step);
    }
}

__global__ static void
adam_kernel (int64_t n, float beta1, float beta2, float eps_hat, float rate, float *diff,
             float *m, float *v)
{
  const float keep1 = 1.0f - beta1;
  const float keep2 = 1.0f - beta2;

  CT_CUDA_LOOP (i, n)
    {
      float g = diff[i];
      float mi = __fadd_rn (__fmul_rn (keep1, g), __fmul_rn (beta1, m[i]));
      float vi = __fadd_rn (__fmul_rn (keep2, __fmul_rn (g, g)), __fmul_rn (beta2, v[i]));

      m[i] = mi;
      v[i] = vi;
      diff[i] = __fmul_rn (rate, __fdiv_rn (mi, __fadd_rn (sqrtf (vi), eps_hat)));
    }
}

/* The common start of every entry point: counts, the device, and nothing
 * to launch for an empty parameter. */
#define UPDATE_ENTER(n)         \
  do {                          \
    CT_CUDA_CHECK_COUNT (n);    \
    CT_CUDA_ENTER ();           \
    if ((n) == 0)               \
      return CT_STATUS_OK;      \
  } while (0)

extern "C" CtStatus
ct_cuda_l1_decay (int64_t n, float decay, const float *data, float *diff)
{
  UPDATE_ENTER (n);
  l1_decay_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, decay, data, diff);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_sgd_update (int64_t n, float momentum, float rate, float *diff, float *history)
{
  UPDATE_ENTER (n);
  sgd_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, momentum, rate, diff, history);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_nesterov_update (int64_t n, float momentum, float rate, float *diff, float *history)
{
  UPDATE_ENTER (n);
  nesterov_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, momentum, rate, diff, history);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_adagrad_update (int64_t n, float delta, float rate, float *diff, float *history)
{
  UPDATE_ENTER (n);
  adagrad_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, delta, rate, diff, history);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_rmsprop_update (int64_t n, float rms_decay, float delta, float rate, float *diff,
                        float *history)
{
  UPDATE_ENTER (n);
  rmsprop_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, rms_decay, delta, rate, diff,
                                                           history);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_adadelta_update (int64_t n, float momentum, float delta, float rate, float *diff,
                         float *grad_history, float *update_history)
{
  UPDATE_ENTER (n);
  adadelta_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, momentum, delta, rate, diff,
                                                            grad_history, update_history);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_adam_update (int64_t n, float beta1, float beta2, float eps_hat, float rate,
                     float *diff, float *m, float *v)
{
  UPDATE_ENTER (n);
  adam_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (n, beta1, beta2, eps_hat, rate, diff,
                                                        m, v);
  return ct_cuda_launch_status ();
}
