/* solver-update.c: the solvers' update rules on the CPU (see
 * solver-update.h). Each loop performs, per element, the float operations
 * Caffe's chain of vector calls performs, in the same order, so that a
 * Cortado step matches a Caffe step to the last bit wherever Caffe's BLAS
 * fuses its axpy as Cortado's does (cpu/vector.c). Squares are x * x and
 * square roots sqrtf, where Caffe calls pow: both correctly rounded, which glibc's powf is not always (GCC
 * had been turning the vectorised part of each loop into x * x and sqrt
 * anyway, and only the few scalar leftovers into powf, so that an element's
 * last bit depended on its place in the array).
 *
 * Every rule is a range function that the pool's threads share
 * (parallel.h): the elements are independent, so the split changes no
 * result. A parameter of LeNet's ip1 (400,000 weights) is three 1.6 MB
 * arrays, which one core streams at about half the rate two do. */
#include <math.h>

#include "blas.h"
#include "isa.h"
#include "parallel.h"
#include "solver-update-private.h"
#include "solver-update.h"


static CtStatus
run (int64_t n, CtParallelFunc range, Rule *rule)
{
  if (n < 0)
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, range, rule);
  return CT_STATUS_OK;
}

/* The loops read the rule into locals first: the build has
 * -fno-strict-aliasing, under which every store could change *R. */

static void
l1_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Rule *r = data;
  const float decay = r->a;
  const float *x = r->data;
  float *diff = r->diff;

  for (int64_t i = begin; i < end; i++)
    {
      float sign = (float) ((0.0f < x[i]) - (x[i] < 0.0f));

      diff[i] = decay * sign + diff[i];
    }
}

CtStatus
ct_cpu_l1_decay (int64_t n, float decay, const float *data, float *diff)
{
  Rule r = { .a = decay, .data = data, .diff = diff };

  return run (n, l1_range, &r);
}

static void
sgd_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Rule *r = data;
  const float momentum = r->a, rate = r->b;
  float *diff = r->diff, *history = r->h1;

  for (int64_t i = begin; i < end; i++)
    {
      history[i] = rate * diff[i] + momentum * history[i];
      diff[i] = history[i];
    }
}

CtStatus
ct_cpu_sgd_update (int64_t n, float momentum, float rate, float *diff, float *history)
{
  Rule r = { .a = momentum, .b = rate, .diff = diff, .h1 = history };

  return run (n, sgd_range, &r);
}

/* The weight decay as Caffe adds it: an axpy, whose BLAS fuses the
 * multiply and the add into one rounding (fmaf). fmaf is one instruction
 * only where the compiler may use FMA: on x86-64 this loop alone is built
 * for it, and runs where the CPU has it (decay_fused decides). Alone: in a
 * loop built for FMA, GCC would fuse the rule's other products and sums
 * too, and round them differently from Caffe. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__ ((target ("fma")))
#endif
static void
decay_block (int64_t n, float decay, const float *weights, float *diff)
{
  for (int64_t i = 0; i < n; i++)
    diff[i] = fmaf (decay, weights[i], diff[i]);
}

static int
decay_fused (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  return ct_cpu_have_fma ();
#else
  return 1;
#endif
}

/* Floats of each array that the step takes at a time, decay first: 4 KiB,
 * so that the step finds what the decay wrote in the L1 cache, and each
 * array is streamed from memory once. */
#define STEP_BLOCK 1024

static void
sgd_step_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Rule *r = data;
  const float momentum = r->a, rate = r->b, decay = r->c;
  float *weights = r->h2, *diff = r->diff, *history = r->h1;

  for (int64_t start = begin; start < end; start += STEP_BLOCK)
    {
      int64_t stop = end - start < STEP_BLOCK ? end : start + STEP_BLOCK;

      if (decay != 0.0f)
        decay_block (stop - start, decay, weights + start, diff + start);
      for (int64_t i = start; i < stop; i++)
        {
          history[i] = rate * diff[i] + momentum * history[i];
          diff[i] = history[i];
          weights[i] = weights[i] - diff[i];
        }
    }
}


CtStatus
ct_cpu_sgd_step (int64_t n, float momentum, float rate, float decay, float *diff,
                 float *history, float *data)
{
  Rule r = { .a = momentum, .b = rate, .c = decay, .diff = diff, .h1 = history, .h2 = data };
  CtStatus status;

#ifdef HAVE_STEP_AVX512
  /* Without a decay the loop below skips it, as Caffe does (0 times an
   * infinite weight would be NaN). */
  if (decay != 0.0f && ct_cpu_have_avx512 ())
    return run (n, ct_sgd_step_range_avx512, &r);
#endif

  /* Without FMA the loops above would run no decay_block: the decay goes
   * first, through ct_cpu_axpy, whose fmaf gives the same bits. */
  if (decay != 0.0f && !decay_fused ())
    {
      if ((status = ct_cpu_axpy (n, decay, data, diff)) != CT_STATUS_OK)
        return status;
      r.c = 0.0f;
    }
  return run (n, sgd_step_range, &r);
}

static void
nesterov_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Rule *r = data;
  const float momentum = r->a, rate = r->b, ahead = 1.0f + momentum;
  float *diff = r->diff, *history = r->h1;

  for (int64_t i = begin; i < end; i++)
    {
      float previous = history[i];

      history[i] = rate * diff[i] + momentum * history[i];
      /* step back to where the old momentum led, then over-step */
      diff[i] = ahead * history[i] + -momentum * previous;
    }
}

CtStatus
ct_cpu_nesterov_update (int64_t n, float momentum, float rate, float *diff, float *history)
{
  Rule r = { .a = momentum, .b = rate, .diff = diff, .h1 = history };

  return run (n, nesterov_range, &r);
}

static void
adagrad_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Rule *r = data;
  const float delta = r->a, rate = r->b;
  float *diff = r->diff, *history = r->h1;

  for (int64_t i = begin; i < end; i++)
    {
      float root;

      history[i] = diff[i] * diff[i] + history[i];
      root = sqrtf (history[i]) + delta;
      diff[i] = rate * (diff[i] / root);
    }
}

CtStatus
ct_cpu_adagrad_update (int64_t n, float delta, float rate, float *diff, float *history)
{
  Rule r = { .a = delta, .b = rate, .diff = diff, .h1 = history };

  return run (n, adagrad_range, &r);
}

static void
rmsprop_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Rule *r = data;
  const float rms_decay = r->a, delta = r->b, rate = r->c, keep = 1.0f - rms_decay;
  float *diff = r->diff, *history = r->h1;

  for (int64_t i = begin; i < end; i++)
    {
      float root;

      history[i] = keep * (diff[i] * diff[i]) + rms_decay * history[i];
      root = sqrtf (history[i]) + delta;
      diff[i] = rate * (diff[i] / root);
    }
}

CtStatus
ct_cpu_rmsprop_update (int64_t n, float rms_decay, float delta, float rate,
                       float *diff, float *history)
{
  Rule r = { .a = rms_decay, .b = delta, .c = rate, .diff = diff, .h1 = history };

  return run (n, rmsprop_range, &r);
}

static void
adadelta_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Rule *r = data;
  const float momentum = r->a, delta = r->b, rate = r->c, keep = 1.0f - momentum;
  float *diff = r->diff, *grad_history = r->h1, *update_history = r->h2;

  for (int64_t i = begin; i < end; i++)
    {
      float ratio, step;

      grad_history[i] = keep * (diff[i] * diff[i]) + momentum * grad_history[i];
      /* delta guards both sums against zero, as Caffe adds it to each */
      ratio = (delta + update_history[i]) / (delta + grad_history[i]);
      step = diff[i] * sqrtf (ratio);
      update_history[i] = keep * (step * step) + momentum * update_history[i];
      diff[i] = rate * step;
    }
}

CtStatus
ct_cpu_adadelta_update (int64_t n, float momentum, float delta, float rate,
                        float *diff, float *grad_history, float *update_history)
{
  Rule r = { .a = momentum, .b = delta, .c = rate, .diff = diff, .h1 = grad_history,
             .h2 = update_history };

  return run (n, adadelta_range, &r);
}

static void
adam_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Rule *r = data;
  const float beta1 = r->a, beta2 = r->b, eps_hat = r->c, rate = r->d;
  const float keep1 = 1.0f - beta1, keep2 = 1.0f - beta2;
  float *diff = r->diff, *m = r->h1, *v = r->h2;

  for (int64_t i = begin; i < end; i++)
    {
      float g = diff[i];

      m[i] = keep1 * g + beta1 * m[i];
      v[i] = keep2 * (g * g) + beta2 * v[i];
      diff[i] = rate * (m[i] / (sqrtf (v[i]) + eps_hat));
    }
}

CtStatus
ct_cpu_adam_update (int64_t n, float beta1, float beta2, float eps_hat, float rate,
                    float *diff, float *m, float *v)
{
  Rule r = { .a = beta1, .b = beta2, .c = eps_hat, .d = rate, .diff = diff, .h1 = m, .h2 = v };

  return run (n, adam_range, &r);
}
