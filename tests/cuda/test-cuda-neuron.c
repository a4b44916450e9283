/* test-cuda-neuron.c: every function of neuron.h on the GPU against its CPU
 * twin, on random inputs of several sizes (odd ones, one element, more
 * than a grid's first pass), in place as well as apart, with the special
 * cases of Power, the BNLL cap, ties at Clip's bounds and zeros at the
 * sign tests. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "cuda-test-util.h"
#include "device.h"
#include "neuron.h"

#define TOL 1e-5

static const int64_t sizes[] = { 1, 7, 1000, 100003 };

/* N values in [LO, HI); when the range spans 0, a few of them exact
 * zeros of both signs (the sign tests' edge). */
static float *
inputs (int64_t n, float lo, float hi, guint64 seed)
{
  float *x = ct_cuda_test_random (n, lo, hi, seed);

  if (lo < 0.0f && hi > 0.0f)
    for (int64_t i = 0; i < n; i += 17)
      x[i] = (i / 17) % 2 ? -0.0f : 0.0f;
  return x;
}

/* A unary function with parameters folded into a closure: forward takes
 * (n, x, y), backward (n, x, y, dy, dx) where it needs them. */
typedef struct {
  const char *name;
  float lo, hi;
  CtStatus (*cpu_forward) (const void *p, int64_t n, const float *x, float *y);
  CtStatus (*gpu_forward) (const void *p, int64_t n, const float *x, float *y);
  CtStatus (*cpu_backward) (const void *p, int64_t n, const float *x, const float *y,
                            const float *dy, float *dx);
  CtStatus (*gpu_backward) (const void *p, int64_t n, const float *x, const float *y,
                            const float *dy, float *dx);
  const float *params;
} Unary;

/* Forward and backward of U on N elements, apart and in place. */
static void
check_unary (const Unary *u, int64_t n)
{
  g_autofree float *x = inputs (n, u->lo, u->hi, 11 + n);
  g_autofree float *dy = ct_cuda_test_random (n, -1, 1, 12 + n);
  g_autofree float *y = g_new (float, n);
  g_autofree float *dx = g_new (float, n);
  g_autofree float *inplace = g_new (float, n);
  float *gx = ct_cuda_test_upload (x, n), *gdy = ct_cuda_test_upload (dy, n);
  float *gy = ct_cuda_test_device_zeros (n), *gdx = ct_cuda_test_device_zeros (n);
  float *gin = ct_cuda_test_upload (x, n);
  g_autofree char *what = g_strdup_printf ("%s forward n=%" G_GINT64_FORMAT, u->name, n);

  g_assert_cmpint (u->cpu_forward (u->params, n, x, y), ==, CT_STATUS_OK);
  g_assert_cmpint (u->gpu_forward (u->params, n, gx, gy), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gy, y, n, TOL);

  /* In place: Y is X. */
  memcpy (inplace, x, (size_t) n * sizeof (float));
  g_assert_cmpint (u->cpu_forward (u->params, n, inplace, inplace), ==, CT_STATUS_OK);
  g_assert_cmpint (u->gpu_forward (u->params, n, gin, gin), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gin, inplace, n, TOL);

  if (u->cpu_backward != NULL)
    {
      g_free (what);
      what = g_strdup_printf ("%s backward n=%" G_GINT64_FORMAT, u->name, n);
      /* Both sides take the CPU's Y, so only the backward is compared. */
      ct_cuda_test_free (gy);
      gy = ct_cuda_test_upload (y, n);
      g_assert_cmpint (u->cpu_backward (u->params, n, x, y, dy, dx), ==, CT_STATUS_OK);
      g_assert_cmpint (u->gpu_backward (u->params, n, gx, gy, gdy, gdx), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close (what, gdx, dx, n, TOL);
      /* In place: DX is DY. */
      g_assert_cmpint (u->gpu_backward (u->params, n, gx, gy, gdy, gdy), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close (what, gdy, dx, n, TOL);
    }
  ct_cuda_test_free (gx);
  ct_cuda_test_free (gy);
  ct_cuda_test_free (gdy);
  ct_cuda_test_free (gdx);
  ct_cuda_test_free (gin);
}

static void
check_all_sizes (const Unary *u)
{
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    check_unary (u, sizes[i]);
}

/* Adapters from each kernel's arguments to Unary's. P holds the floats. */
#define P ((const float *) p)

#define PLAIN(name, backward_in)                                                         \
  static CtStatus name##_cpu_f (const void *p, int64_t n, const float *x, float *y)     \
  { return ct_cpu_##name##_forward (n, x, y); }                                          \
  static CtStatus name##_gpu_f (const void *p, int64_t n, const float *x, float *y)     \
  { return ct_cuda_##name##_forward (n, x, y); }                                         \
  static CtStatus name##_cpu_b (const void *p, int64_t n, const float *x, const float *y, \
                                const float *dy, float *dx)                              \
  { return ct_cpu_##name##_backward (n, backward_in, dy, dx); }                          \
  static CtStatus name##_gpu_b (const void *p, int64_t n, const float *x, const float *y, \
                                const float *dy, float *dx)                              \
  { return ct_cuda_##name##_backward (n, backward_in, dy, dx); }

PLAIN (sigmoid, y)
PLAIN (tanh, y)
PLAIN (absval, x)
PLAIN (bnll, x)

static CtStatus relu_cpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cpu_relu_forward (n, P[0], x, y); }
static CtStatus relu_gpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cuda_relu_forward (n, P[0], x, y); }
static CtStatus relu_cpu_b (const void *p, int64_t n, const float *x, const float *y,
                            const float *dy, float *dx)
{ return ct_cpu_relu_backward (n, P[0], x, dy, dx); }
static CtStatus relu_gpu_b (const void *p, int64_t n, const float *x, const float *y,
                            const float *dy, float *dx)
{ return ct_cuda_relu_backward (n, P[0], x, dy, dx); }

static CtStatus elu_cpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cpu_elu_forward (n, P[0], x, y); }
static CtStatus elu_gpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cuda_elu_forward (n, P[0], x, y); }
static CtStatus elu_cpu_b (const void *p, int64_t n, const float *x, const float *y,
                           const float *dy, float *dx)
{ return ct_cpu_elu_backward (n, P[0], x, y, dy, dx); }
static CtStatus elu_gpu_b (const void *p, int64_t n, const float *x, const float *y,
                           const float *dy, float *dx)
{ return ct_cuda_elu_backward (n, P[0], x, y, dy, dx); }

static CtStatus power_cpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cpu_power_forward (n, P[0], P[1], P[2], x, y); }
static CtStatus power_gpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cuda_power_forward (n, P[0], P[1], P[2], x, y); }
static CtStatus power_cpu_b (const void *p, int64_t n, const float *x, const float *y,
                             const float *dy, float *dx)
{ return ct_cpu_power_backward (n, P[0], P[1], P[2], x, y, dy, dx); }
static CtStatus power_gpu_b (const void *p, int64_t n, const float *x, const float *y,
                             const float *dy, float *dx)
{ return ct_cuda_power_backward (n, P[0], P[1], P[2], x, y, dy, dx); }

static CtStatus exp_cpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cpu_exp_forward (n, P[0], P[1], x, y); }
static CtStatus exp_gpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cuda_exp_forward (n, P[0], P[1], x, y); }
static CtStatus exp_cpu_b (const void *p, int64_t n, const float *x, const float *y,
                           const float *dy, float *dx)
{ return ct_cpu_exp_backward (n, P[0], y, dy, dx); }
static CtStatus exp_gpu_b (const void *p, int64_t n, const float *x, const float *y,
                           const float *dy, float *dx)
{ return ct_cuda_exp_backward (n, P[0], y, dy, dx); }

static CtStatus log_cpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cpu_log_forward (n, P[0], P[1], P[2], x, y); }
static CtStatus log_gpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cuda_log_forward (n, P[0], P[1], P[2], x, y); }
static CtStatus log_cpu_b (const void *p, int64_t n, const float *x, const float *y,
                           const float *dy, float *dx)
{ return ct_cpu_log_backward (n, P[0], P[1], P[3], x, dy, dx); }
static CtStatus log_gpu_b (const void *p, int64_t n, const float *x, const float *y,
                           const float *dy, float *dx)
{ return ct_cuda_log_backward (n, P[0], P[1], P[3], x, dy, dx); }

static CtStatus threshold_cpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cpu_threshold_forward (n, P[0], x, y); }
static CtStatus threshold_gpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cuda_threshold_forward (n, P[0], x, y); }

static CtStatus clip_cpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cpu_clip_forward (n, P[0], P[1], x, y); }
static CtStatus clip_gpu_f (const void *p, int64_t n, const float *x, float *y)
{ return ct_cuda_clip_forward (n, P[0], P[1], x, y); }
static CtStatus clip_cpu_b (const void *p, int64_t n, const float *x, const float *y,
                            const float *dy, float *dx)
{ return ct_cpu_clip_backward (n, P[0], P[1], x, dy, dx); }
static CtStatus clip_gpu_b (const void *p, int64_t n, const float *x, const float *y,
                            const float *dy, float *dx)
{ return ct_cuda_clip_backward (n, P[0], P[1], x, dy, dx); }

#undef P

static void
test_plain (void)
{
  const Unary plain[] = {
    { "sigmoid", -8, 8, sigmoid_cpu_f, sigmoid_gpu_f, sigmoid_cpu_b, sigmoid_gpu_b, NULL },
    { "tanh", -4, 4, tanh_cpu_f, tanh_gpu_f, tanh_cpu_b, tanh_gpu_b, NULL },
    { "absval", -3, 3, absval_cpu_f, absval_gpu_f, absval_cpu_b, absval_gpu_b, NULL },
    /* Beyond the cap of 50 and into exp's overflow on both sides. */
    { "bnll", -120, 120, bnll_cpu_f, bnll_gpu_f, bnll_cpu_b, bnll_gpu_b, NULL },
    { "bnll", -3, 3, bnll_cpu_f, bnll_gpu_f, bnll_cpu_b, bnll_gpu_b, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (plain); i++)
    check_all_sizes (&plain[i]);
}

static void
test_relu_elu (void)
{
  static const float slopes[] = { 0.0f, 0.1f, -0.5f };
  static const float alphas[] = { 1.0f, 0.3f };

  for (guint i = 0; i < G_N_ELEMENTS (slopes); i++)
    {
      Unary u = { "relu", -2, 2, relu_cpu_f, relu_gpu_f, relu_cpu_b, relu_gpu_b, &slopes[i] };
      check_all_sizes (&u);
    }
  for (guint i = 0; i < G_N_ELEMENTS (alphas); i++)
    {
      Unary u = { "elu", -5, 3, elu_cpu_f, elu_gpu_f, elu_cpu_b, elu_gpu_b, &alphas[i] };
      check_all_sizes (&u);
    }
}

/* The ReLU's -0 becomes +0 on both sides, bit for bit. */
static void
test_relu_signed_zero (void)
{
  const float x[] = { -0.0f, 0.0f, -1.0f, 2.0f };
  float y[4], back[4];
  float *gx = ct_cuda_test_upload (x, 4), *gy = ct_cuda_test_device_zeros (4);

  g_assert_cmpint (ct_cpu_relu_forward (4, 0.0f, x, y), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_relu_forward (4, 0.0f, gx, gy), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_memcpy (back, gy, sizeof back, CT_MEMCPY_DEVICE_TO_HOST), ==,
                   CT_STATUS_OK);
  g_assert_cmpmem (back, sizeof back, y, sizeof y);
  ct_cuda_test_free (gx);
  ct_cuda_test_free (gy);
}

static void
test_power (void)
{
  /* power, scale, shift: Caffe's special cases, then the general one. */
  static const float cases[][3] = {
    { 2.0f, 0.5f, 1.0f },  /* power 2 */
    { 2.0f, 1.5f, 0.0f },  /* power 2, no shift */
    { 1.0f, 2.0f, 1.0f },  /* power 1 */
    { 0.0f, 1.0f, 1.0f },  /* power 0: constant 1 */
    { 3.0f, 0.0f, 1.5f },  /* scale 0: constant shift ^ power */
    { 0.5f, 2.0f, 0.0f },  /* shift 0: power * y / x */
    { 1.7f, 0.5f, 0.3f },  /* general */
    { -1.5f, 1.0f, 2.0f }, /* general, negative power */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* Positive bases for fractional powers, away from 0 for shift 0. */
      Unary u = { "power", 0.1f, 2.0f, power_cpu_f, power_gpu_f, power_cpu_b, power_gpu_b,
                  cases[i] };
      check_all_sizes (&u);
    }
}

static void
test_exp_log (void)
{
  static const float exps[][2] = { { 1.0f, 1.0f }, { 0.693f, 2.0f }, { -1.5f, 0.5f } };
  /* scale, shift, base_scale, backward_scale */
  static const float logs[][4] = { { 1.0f, 0.0f, 1.0f, 1.0f }, { 2.0f, 0.5f, 0.434f, 0.868f } };

  for (guint i = 0; i < G_N_ELEMENTS (exps); i++)
    {
      Unary u = { "exp", -3, 3, exp_cpu_f, exp_gpu_f, exp_cpu_b, exp_gpu_b, exps[i] };
      check_all_sizes (&u);
    }
  for (guint i = 0; i < G_N_ELEMENTS (logs); i++)
    {
      Unary u = { "log", 0.05f, 5, log_cpu_f, log_gpu_f, log_cpu_b, log_gpu_b, logs[i] };
      check_all_sizes (&u);
    }
}

static void
test_threshold_clip (void)
{
  static const float thresholds[] = { 0.0f, 0.25f };
  static const float bounds[] = { -0.5f, 0.75f };

  for (guint i = 0; i < G_N_ELEMENTS (thresholds); i++)
    {
      Unary u = { "threshold", -1, 1, threshold_cpu_f, threshold_gpu_f, NULL, NULL,
                  &thresholds[i] };
      check_all_sizes (&u);
    }
  {
    Unary u = { "clip", -2, 2, clip_cpu_f, clip_gpu_f, clip_cpu_b, clip_gpu_b, bounds };
    check_all_sizes (&u);
  }
  /* At the bounds themselves, and NaN, which both sides clip to MIN. */
  {
    const float x[] = { -0.5f, 0.75f, NAN, -3.0f, 3.0f, 0.1f };
    const float dy[] = { 1, 2, 3, 4, 5, 6 };
    float y[6], dx[6];
    float *gx = ct_cuda_test_upload (x, 6), *gdy = ct_cuda_test_upload (dy, 6);
    float *gy = ct_cuda_test_device_zeros (6), *gdx = ct_cuda_test_device_zeros (6);

    ct_cpu_clip_forward (6, bounds[0], bounds[1], x, y);
    ct_cpu_clip_backward (6, bounds[0], bounds[1], x, dy, dx);
    g_assert_cmpint (ct_cuda_clip_forward (6, bounds[0], bounds[1], gx, gy), ==, CT_STATUS_OK);
    g_assert_cmpint (ct_cuda_clip_backward (6, bounds[0], bounds[1], gx, gdy, gdx), ==,
                     CT_STATUS_OK);
    ct_cuda_test_assert_close ("clip bounds", gy, y, 6, 0);
    ct_cuda_test_assert_close ("clip bounds backward", gdx, dx, 6, 0);
    ct_cuda_test_free (gx);
    ct_cuda_test_free (gdy);
    ct_cuda_test_free (gy);
    ct_cuda_test_free (gdx);
  }
}

static void
test_dropout_swish (void)
{
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      int64_t n = sizes[s];
      g_autofree float *x = inputs (n, -2, 2, 21);
      g_autofree float *dy = ct_cuda_test_random (n, -1, 1, 22);
      g_autofree float *mask = ct_cuda_test_random (n, 0, 1, 23);
      g_autofree float *y = g_new (float, n), *sig = g_new (float, n), *dx = g_new (float, n);
      float *gx = ct_cuda_test_upload (x, n), *gdy = ct_cuda_test_upload (dy, n);
      float *gy = ct_cuda_test_device_zeros (n), *gsig = ct_cuda_test_device_zeros (n);
      float *gdx = ct_cuda_test_device_zeros (n), *gmask;

      for (int64_t i = 0; i < n; i++)
        mask[i] = mask[i] < 0.4f ? 0.0f : 1.0f;
      gmask = ct_cuda_test_upload (mask, n);
      ct_cpu_dropout_forward (n, 1.6666666f, mask, x, y);
      g_assert_cmpint (ct_cuda_dropout_forward (n, 1.6666666f, gmask, gx, gy), ==,
                       CT_STATUS_OK);
      ct_cuda_test_assert_close ("dropout forward", gy, y, n, 0);
      ct_cpu_dropout_backward (n, 1.6666666f, mask, dy, dx);
      g_assert_cmpint (ct_cuda_dropout_backward (n, 1.6666666f, gmask, gdy, gdx), ==,
                       CT_STATUS_OK);
      ct_cuda_test_assert_close ("dropout backward", gdx, dx, n, 0);

      for (int b = 0; b < 2; b++)
        {
          float beta = b ? 1.7f : 1.0f;

          ct_cpu_swish_forward (n, beta, x, sig, y);
          g_assert_cmpint (ct_cuda_swish_forward (n, beta, gx, gsig, gy), ==, CT_STATUS_OK);
          ct_cuda_test_assert_close ("swish forward", gy, y, n, TOL);
          ct_cuda_test_assert_close ("swish sigmoid", gsig, sig, n, TOL);
          /* The backward from the CPU's Y and sigmoid on both sides. */
          ct_cuda_test_free (gy);
          ct_cuda_test_free (gsig);
          gy = ct_cuda_test_upload (y, n);
          gsig = ct_cuda_test_upload (sig, n);
          ct_cpu_swish_backward (n, beta, y, sig, dy, dx);
          g_assert_cmpint (ct_cuda_swish_backward (n, beta, gy, gsig, gdy, gdx), ==,
                           CT_STATUS_OK);
          ct_cuda_test_assert_close ("swish backward", gdx, dx, n, TOL);
        }
      ct_cuda_test_free (gx);
      ct_cuda_test_free (gdy);
      ct_cuda_test_free (gy);
      ct_cuda_test_free (gsig);
      ct_cuda_test_free (gdx);
      ct_cuda_test_free (gmask);
    }
}

static void
check_prelu (int64_t outer, int64_t channels, int64_t inner, int shared)
{
  int64_t n = outer * channels * inner, slopes = shared ? 1 : channels;
  g_autofree float *x = inputs (n, -2, 2, 31 + n);
  g_autofree float *dy = ct_cuda_test_random (n, -1, 1, 32 + n);
  g_autofree float *slope = ct_cuda_test_random (slopes, -0.5f, 0.5f, 33);
  g_autofree float *slope_diff = ct_cuda_test_random (slopes, -1, 1, 34);
  g_autofree float *y = g_new (float, n), *dx = g_new (float, n);
  g_autofree float *first = NULL, *again = NULL;
  float *gx = ct_cuda_test_upload (x, n), *gdy = ct_cuda_test_upload (dy, n);
  float *gslope = ct_cuda_test_upload (slope, slopes);
  float *gslope_diff = ct_cuda_test_upload (slope_diff, slopes);
  float *gy = ct_cuda_test_device_zeros (n), *gdx = ct_cuda_test_device_zeros (n);
  g_autofree char *what = g_strdup_printf ("prelu %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%"
                                           G_GINT64_FORMAT " shared %d", outer, channels,
                                           inner, shared);

  ct_cpu_prelu_forward (outer, channels, inner, slope, shared, x, y);
  g_assert_cmpint (ct_cuda_prelu_forward (outer, channels, inner, gslope, shared, gx, gy), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gy, y, n, 0);
  ct_cpu_prelu_backward (outer, channels, inner, slope, shared, x, dy, dx);
  g_assert_cmpint (ct_cuda_prelu_backward (outer, channels, inner, gslope, shared, gx, gdy,
                                           gdx), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gdx, dx, n, 0);

  /* The slope gradient adds to what is there, and repeats exactly. */
  ct_cpu_prelu_slope_backward (outer, channels, inner, shared, x, dy, slope_diff);
  g_assert_cmpint (ct_cuda_prelu_slope_backward (outer, channels, inner, shared, gx, gdy,
                                                 gslope_diff), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, gslope_diff, slope_diff, slopes, TOL);
  first = ct_cuda_test_download (gslope_diff, slopes);
  g_assert_cmpint (ct_cuda_prelu_slope_backward (outer, channels, inner, shared, gx, gdy,
                                                 gslope_diff), ==, CT_STATUS_OK);
  ct_cuda_test_free (gslope_diff);
  gslope_diff = ct_cuda_test_upload (first, slopes);
  g_assert_cmpint (ct_cuda_prelu_slope_backward (outer, channels, inner, shared, gx, gdy,
                                                 gslope_diff), ==, CT_STATUS_OK);
  again = ct_cuda_test_download (gslope_diff, slopes);
  {
    g_autofree float *twice = NULL;
    ct_cuda_test_free (gslope_diff);
    gslope_diff = ct_cuda_test_upload (first, slopes);
    g_assert_cmpint (ct_cuda_prelu_slope_backward (outer, channels, inner, shared, gx, gdy,
                                                   gslope_diff), ==, CT_STATUS_OK);
    twice = ct_cuda_test_download (gslope_diff, slopes);
    g_assert_cmpmem (again, slopes * sizeof (float), twice, slopes * sizeof (float));
  }

  ct_cuda_test_free (gx);
  ct_cuda_test_free (gdy);
  ct_cuda_test_free (gslope);
  ct_cuda_test_free (gslope_diff);
  ct_cuda_test_free (gy);
  ct_cuda_test_free (gdx);
}

static void
test_prelu (void)
{
  for (int shared = 0; shared < 2; shared++)
    {
      check_prelu (2, 3, 5, shared);
      check_prelu (1, 1, 1, shared);
      check_prelu (7, 13, 11, shared);
      check_prelu (16, 64, 27 * 27, shared);
      check_prelu (3, 1000, 1, shared);
    }
}

static void
test_invalid (void)
{
  g_assert_cmpint (ct_cuda_relu_forward (-1, 0, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_sigmoid_backward (-3, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_power_forward (-1, 2, 1, 0, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_prelu_forward (2, -1, 3, NULL, 0, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_prelu_slope_backward (-2, 1, 3, 0, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  /* Zero elements: nothing to do, nothing touched. */
  g_assert_cmpint (ct_cuda_tanh_forward (0, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_prelu_slope_backward (0, 4, 3, 0, NULL, NULL, NULL), ==,
                   CT_STATUS_OK);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/neuron/plain", test_plain);
  g_test_add_func ("/cuda/neuron/relu-elu", test_relu_elu);
  g_test_add_func ("/cuda/neuron/relu-signed-zero", test_relu_signed_zero);
  g_test_add_func ("/cuda/neuron/power", test_power);
  g_test_add_func ("/cuda/neuron/exp-log", test_exp_log);
  g_test_add_func ("/cuda/neuron/threshold-clip", test_threshold_clip);
  g_test_add_func ("/cuda/neuron/dropout-swish", test_dropout_swish);
  g_test_add_func ("/cuda/neuron/prelu", test_prelu);
  g_test_add_func ("/cuda/neuron/invalid", test_invalid);
  return g_test_run ();
}
