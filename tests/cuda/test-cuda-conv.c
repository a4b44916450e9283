/* test-cuda-conv.c: conv.h on the GPU against the CPU on random inputs, on
 * both GPU backends (cuDNN where the build has it, and im2col + cuBLAS):
 * 2-D shapes with groups, padding, stride, dilation, 1x1 kernels (straight
 * from the images, with groups, with stride), depthwise, sub-batches, and
 * 1-D, 3-D and 0-D shapes; forward with and without bias, backward with
 * every combination of wanted gradients (and NULL for what is not read),
 * gradients that accumulate, results that repeat bit for bit, workspaces
 * that are never overrun, and the bias kernels alone. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "conv.h"
#include "cuda-test-util.h"
#include "device.h"
#include "switches.h"

/* im2col + cuBLAS sums each output in a different order from OpenBLAS,
 * nothing more. cuDNN may pick Winograd for 3x3 kernels, whose transforms
 * add a few roundings per output: it stays well inside the engine's 1e-4
 * CPU/GPU contract but not always inside 1e-5, so its bound is 1e-4 and
 * the measured errors are logged. */
#define TOL_IM2COL 1e-5
#define TOL_CUDNN 1e-4

/* Floats after the workspace that must come back untouched. */
#define GUARD 4096

typedef struct {
  const char *name;
  int64_t num, in_channels, out_channels, group;
  int n;
  int64_t dims[3], kernel[3], pad[3], stride[3], dilation[3];
} Case;

static const Case cases[] = {
  { "3x3 pad 1", 3, 4, 6, 1, 2, { 7, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { "groups, stride, rectangular", 2, 4, 6, 2, 2, { 11, 13 }, { 3, 5 }, { 2, 1 }, { 2, 3 },
    { 1, 1 } },
  { "dilation 2", 2, 3, 5, 1, 2, { 9, 9 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 2, 2 } },
  { "dilation and stride", 3, 2, 4, 1, 2, { 12, 10 }, { 2, 3 }, { 1, 2 }, { 2, 1 }, { 3, 2 } },
  { "1x1", 4, 16, 8, 1, 2, { 5, 6 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { "1x1 groups 4", 3, 8, 12, 4, 2, { 4, 4 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { "1x1 stride 2", 2, 6, 10, 1, 2, { 7, 7 }, { 1, 1 }, { 0, 0 }, { 2, 2 }, { 1, 1 } },
  { "1x1 one image", 1, 8, 4, 1, 2, { 3, 5 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { "depthwise", 2, 6, 6, 6, 2, { 8, 8 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { "5x5 32->64", 8, 32, 64, 1, 2, { 28, 28 }, { 5, 5 }, { 2, 2 }, { 1, 1 }, { 1, 1 } },
  { "AlexNet conv1", 2, 3, 16, 1, 2, { 35, 35 }, { 11, 11 }, { 0, 0 }, { 4, 4 }, { 1, 1 } },
  { "3x3 64->64", 16, 64, 64, 1, 2, { 14, 14 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  /* Enough images that the im2col path takes them in two sub-batches (113
   * and 7), with few positions each so that the weight gradient's sums
   * stay short enough to compare at 1e-5. */
  { "sub-batches", 120, 256, 16, 1, 2, { 8, 8 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { "1-D", 3, 4, 5, 1, 1, { 17 }, { 4 }, { 1 }, { 2 }, { 1 } },
  { "1-D groups dilation", 2, 4, 6, 2, 1, { 15 }, { 3 }, { 2 }, { 1 }, { 3 } },
  { "3-D", 2, 3, 4, 1, 3, { 5, 6, 7 }, { 3, 2, 3 }, { 1, 0, 1 }, { 1, 2, 1 }, { 1, 1, 2 } },
  { "3-D groups 1x1x1", 2, 4, 6, 2, 3, { 3, 4, 5 }, { 1, 1, 1 }, { 0, 0, 0 }, { 1, 1, 1 },
    { 1, 1, 1 } },
  { "0-D", 5, 6, 4, 2, 0, { 0 }, { 0 }, { 0 }, { 0 }, { 0 } },
};

static CtConvShape
make_shape (const Case *c)
{
  CtConvShape s;

  memset (&s, 0, sizeof s);
  s.num = c->num;
  s.in_channels = c->in_channels;
  s.out_channels = c->out_channels;
  s.group = c->group;
  s.num_spatial_axes = c->n;
  for (int i = 0; i < c->n; i++)
    {
      s.in_dims[i] = c->dims[i];
      s.kernel[i] = c->kernel[i];
      s.pad[i] = c->pad[i];
      s.stride[i] = c->stride[i];
      s.dilation[i] = c->dilation[i];
      s.out_dims[i] = (c->dims[i] + 2 * c->pad[i] - (c->dilation[i] * (c->kernel[i] - 1) + 1))
                      / c->stride[i] + 1;
    }
  return s;
}

/* ||gpu - cpu|| / ||cpu||, logged, and at most TOL. */
static void
compare (const char *what, const float *device, const float *cpu, int64_t n, double tol)
{
  g_autofree float *gpu = ct_cuda_test_download (device, n);
  double diff = 0.0, norm = 0.0, relative;

  for (int64_t i = 0; i < n; i++)
    {
      double d = (double) gpu[i] - (double) cpu[i];

      diff += d * d;
      norm += (double) cpu[i] * cpu[i];
    }
  relative = norm > 0.0 ? sqrt (diff / norm) : sqrt (diff);
  g_test_message ("%s: relative error %.3g over %" G_GINT64_FORMAT " floats", what, relative, n);
  if (!(relative <= tol))
    g_error ("%s: ||gpu - cpu|| / ||cpu|| = %g > %g", what, relative, tol);
}

static void
assert_bits (const char *what, const float *a_device, const float *b_device, int64_t n)
{
  g_autofree float *a = ct_cuda_test_download (a_device, n);
  g_autofree float *b = ct_cuda_test_download (b_device, n);

  if (memcmp (a, b, (size_t) n * sizeof (float)) != 0)
    g_error ("%s: two runs differ", what);
}

/* A device workspace of FLOATS plus a guard band of known values. */
static float *
workspace_new (size_t floats, float **guard_host)
{
  g_autofree float *fill = ct_cuda_test_random ((int64_t) floats + GUARD, -1, 1, 99);
  float *device = ct_cuda_test_upload (fill, (int64_t) floats + GUARD);

  *guard_host = g_memdup2 (fill + floats, GUARD * sizeof (float));
  return device;
}

static void
assert_guard (const char *what, const float *workspace, size_t floats, const float *guard)
{
  g_autofree float *after = ct_cuda_test_download (workspace + floats, GUARD);

  if (memcmp (after, guard, GUARD * sizeof (float)) != 0)
    g_error ("%s: wrote past its workspace of %zu floats", what, floats);
}

static void
check_case (const Case *c, gboolean cudnn)
{
  CtConvShape s = make_shape (c);
  int64_t in_spatial = 1, out_spatial = 1, kernel_size = 1;
  int64_t in_n, out_n, w_n, b_n;
  size_t cpu_floats, gpu_floats;
  g_autofree float *input = NULL, *weights = NULL, *bias = NULL, *top_diff = NULL;
  g_autofree float *output = NULL, *output_nb = NULL, *weight_diff = NULL, *bias_diff = NULL;
  g_autofree float *input_diff = NULL, *cpu_ws = NULL, *guard = NULL;
  g_autofree float *weight_diff0 = NULL, *bias_diff0 = NULL;
  float *d_input, *d_weights, *d_bias, *d_top_diff, *d_output, *d_weight_diff, *d_bias_diff;
  float *d_input_diff, *d_ws, *d_other;
  const double tol = cudnn ? TOL_CUDNN : TOL_IM2COL;
  g_autofree char *what = NULL, *w_out = NULL, *w_nb = NULL, *w_wd = NULL, *w_bd = NULL;
  g_autofree char *w_id = NULL;
  int uses;

  ct_cuda_conv_set_backend (cudnn ? CT_CONV_BACKEND_AUTO : CT_CONV_BACKEND_IM2COL);
  uses = ct_cuda_conv_uses_cudnn (&s);
  what = g_strdup_printf ("%s (%s)", c->name, uses ? "cuDNN" : "im2col");
  if (!cudnn)
    g_assert_false (uses);
  else if (c->n == 2 && !uses)
    {
      /* Every plain 2-D shape should go to cuDNN when the build has it;
       * say so and go on with the other checks. */
      g_test_message ("%s: cuDNN declined the shape", c->name);
      if (c->dilation[0] == 1 && c->dilation[1] == 1)
        g_test_fail ();
    }

  for (int i = 0; i < c->n; i++)
    {
      in_spatial *= s.in_dims[i];
      out_spatial *= s.out_dims[i];
      kernel_size *= s.kernel[i];
    }
  in_n = s.num * s.in_channels * in_spatial;
  out_n = s.num * s.out_channels * out_spatial;
  w_n = s.out_channels * (s.in_channels / s.group) * kernel_size;
  b_n = s.out_channels;

  input = ct_cuda_test_random (in_n, -1, 1, 1);
  weights = ct_cuda_test_random (w_n, -1, 1, 2);
  bias = ct_cuda_test_random (b_n, -1, 1, 3);
  top_diff = ct_cuda_test_random (out_n, -1, 1, 4);
  /* The gradients start non-zero: backward adds to them. */
  weight_diff = ct_cuda_test_random (w_n, -1, 1, 5);
  bias_diff = ct_cuda_test_random (b_n, -1, 1, 6);
  weight_diff0 = g_memdup2 (weight_diff, (gsize) w_n * sizeof (float));
  bias_diff0 = g_memdup2 (bias_diff, (gsize) b_n * sizeof (float));
  output = g_new0 (float, out_n);
  output_nb = g_new0 (float, out_n);
  input_diff = g_new0 (float, in_n);

  cpu_floats = ct_cpu_conv_workspace_floats (&s);
  cpu_ws = g_new0 (float, cpu_floats + 1);
  g_assert_cmpint (ct_cpu_conv_forward (&s, input, weights, bias, output, cpu_ws),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_conv_forward (&s, input, weights, NULL, output_nb, cpu_ws),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_conv_backward (&s, input, top_diff, weights, weight_diff, bias_diff,
                                         input_diff, cpu_ws), ==, CT_STATUS_OK);

  gpu_floats = ct_cuda_conv_workspace_floats (&s);
  g_test_message ("%s: workspace %zu floats", what, gpu_floats);
  d_ws = workspace_new (gpu_floats, &guard);
  d_input = ct_cuda_test_upload (input, in_n);
  d_weights = ct_cuda_test_upload (weights, w_n);
  d_bias = ct_cuda_test_upload (bias, b_n);
  d_top_diff = ct_cuda_test_upload (top_diff, out_n);
  d_output = ct_cuda_test_device_zeros (out_n);
  d_weight_diff = ct_cuda_test_upload (weight_diff0, w_n);
  d_bias_diff = ct_cuda_test_upload (bias_diff0, b_n);
  /* NaN where the pass must overwrite without reading. */
  d_input_diff = ct_cuda_test_device_zeros (in_n);
  g_assert_cmpint (ct_cuda_memset (d_input_diff, 0xff, (size_t) in_n * sizeof (float)),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_memset (d_output, 0xff, (size_t) out_n * sizeof (float)),
                   ==, CT_STATUS_OK);

  w_out = g_strconcat (what, " forward", NULL);
  w_nb = g_strconcat (what, " forward without bias", NULL);
  w_wd = g_strconcat (what, " weight diff", NULL);
  w_bd = g_strconcat (what, " bias diff", NULL);
  w_id = g_strconcat (what, " input diff", NULL);

  g_assert_cmpint (ct_cuda_conv_forward (&s, d_input, d_weights, d_bias, d_output, d_ws),
                   ==, CT_STATUS_OK);
  compare (w_out, d_output, output, out_n, tol);
  g_assert_cmpint (ct_cuda_conv_forward (&s, d_input, d_weights, NULL, d_output, d_ws),
                   ==, CT_STATUS_OK);
  compare (w_nb, d_output, output_nb, out_n, tol);

  g_assert_cmpint (ct_cuda_conv_backward (&s, d_input, d_top_diff, d_weights, d_weight_diff,
                                          d_bias_diff, d_input_diff, d_ws), ==, CT_STATUS_OK);
  compare (w_wd, d_weight_diff, weight_diff, w_n, tol);
  compare (w_bd, d_bias_diff, bias_diff, b_n, TOL_IM2COL);
  compare (w_id, d_input_diff, input_diff, in_n, tol);

  /* Each pass alone, with NULL for what it does not read: the weight
   * gradient (no weights), then the input gradient (no input). */
  d_other = ct_cuda_test_upload (weight_diff0, w_n);
  g_assert_cmpint (ct_cuda_conv_backward (&s, d_input, d_top_diff, NULL, d_other, NULL, NULL,
                                          d_ws), ==, CT_STATUS_OK);
  compare (w_wd, d_other, weight_diff, w_n, tol);
  /* Run again from the same start: the same bits. */
  {
    float *again = ct_cuda_test_upload (weight_diff0, w_n);

    g_assert_cmpint (ct_cuda_conv_backward (&s, d_input, d_top_diff, NULL, again, NULL, NULL,
                                            d_ws), ==, CT_STATUS_OK);
    assert_bits (w_wd, d_other, again, w_n);
    ct_cuda_test_free (again);
  }
  ct_cuda_test_free (d_other);

  d_other = ct_cuda_test_device_zeros (in_n);
  g_assert_cmpint (ct_cuda_conv_backward (&s, NULL, d_top_diff, d_weights, NULL, NULL, d_other,
                                          d_ws), ==, CT_STATUS_OK);
  compare (w_id, d_other, input_diff, in_n, tol);
  assert_bits (w_id, d_other, d_input_diff, in_n);
  ct_cuda_test_free (d_other);

  /* The bias gradient alone adds once more. */
  g_assert_cmpint (ct_cuda_conv_backward (&s, NULL, d_top_diff, NULL, NULL, d_bias_diff, NULL,
                                          d_ws), ==, CT_STATUS_OK);
  for (int64_t i = 0; i < b_n; i++)
    bias_diff[i] += bias_diff[i] - bias_diff0[i];
  compare (w_bd, d_bias_diff, bias_diff, b_n, TOL_IM2COL);

  assert_guard (what, d_ws, gpu_floats, guard);

  ct_cuda_test_free (d_ws);
  ct_cuda_test_free (d_input);
  ct_cuda_test_free (d_weights);
  ct_cuda_test_free (d_bias);
  ct_cuda_test_free (d_top_diff);
  ct_cuda_test_free (d_output);
  ct_cuda_test_free (d_weight_diff);
  ct_cuda_test_free (d_bias_diff);
  ct_cuda_test_free (d_input_diff);
}

static void
test_im2col_backend (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_case (&cases[i], FALSE);
  ct_cuda_conv_set_backend (CT_CONV_BACKEND_AUTO);
}

static void
test_cudnn_backend (void)
{
  if (!ct_cuda_conv_have_cudnn ())
    {
      g_test_skip ("no cuDNN: built without cudnn.h, or libcudnn.so.9 did not load");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_case (&cases[i], TRUE);
}

/* The backend switch itself, and the environment's default. */
static void
test_backend_switch (void)
{
  CtConvShape s = make_shape (&cases[0]);
  CtConvBackend old = ct_cuda_conv_set_backend (CT_CONV_BACKEND_IM2COL);

  g_assert_false (ct_cuda_conv_uses_cudnn (&s));
  g_assert_cmpint (ct_cuda_conv_set_backend (CT_CONV_BACKEND_AUTO), ==, CT_CONV_BACKEND_IM2COL);
  g_assert_cmpint (ct_cuda_conv_uses_cudnn (&s), ==, ct_cuda_conv_have_cudnn ());
  ct_cuda_conv_set_backend (old);
}

static void
test_empty_and_invalid (void)
{
  CtConvShape s = make_shape (&cases[0]);

  s.num = 0;
  g_assert_cmpint (ct_cuda_conv_forward (&s, NULL, NULL, NULL, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_conv_backward (&s, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                   ==, CT_STATUS_OK);
  s.num = 1;
  s.group = 3;   /* 4 input channels do not divide into 3 groups */
  g_assert_cmpint (ct_cuda_conv_forward (&s, NULL, NULL, NULL, NULL, NULL),
                   ==, CT_STATUS_INVALID);
  g_assert_cmpuint (ct_cuda_conv_workspace_floats (&s), ==, 0);
  s = make_shape (&cases[0]);
  s.out_dims[0] += 1;   /* not the output size of the geometry */
  g_assert_cmpint (ct_cuda_conv_forward (&s, NULL, NULL, NULL, NULL, NULL),
                   ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_conv_bias_forward (-1, 1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_conv_bias_backward (1, -1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
}

static void
check_bias (int64_t num, int64_t channels, int64_t spatial)
{
  const int64_t n = num * channels * spatial;
  g_autofree float *data = ct_cuda_test_random (n, -1, 1, 41);
  g_autofree float *bias = ct_cuda_test_random (channels, -1, 1, 42);
  g_autofree float *bias_diff = ct_cuda_test_random (channels, -1, 1, 43);
  float *d_data = ct_cuda_test_upload (data, n), *d_bias = ct_cuda_test_upload (bias, channels);
  float *d_bias_diff = ct_cuda_test_upload (bias_diff, channels);
  g_autofree char *what = g_strdup_printf ("bias %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%"
                                           G_GINT64_FORMAT, num, channels, spatial);

  g_assert_cmpint (ct_cpu_conv_bias_backward (num, channels, spatial, data, bias_diff),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_conv_bias_backward (num, channels, spatial, d_data, d_bias_diff),
                   ==, CT_STATUS_OK);
  compare (what, d_bias_diff, bias_diff, channels, TOL_IM2COL);
  g_assert_cmpint (ct_cpu_conv_bias_forward (num, channels, spatial, bias, data),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_conv_bias_forward (num, channels, spatial, d_bias, d_data),
                   ==, CT_STATUS_OK);
  compare (what, d_data, data, n, 0.0);
  ct_cuda_test_free (d_data);
  ct_cuda_test_free (d_bias);
  ct_cuda_test_free (d_bias_diff);
}

static void
test_bias (void)
{
  check_bias (3, 5, 7);
  check_bias (64, 1000, 1);   /* InnerProduct's bias */
  check_bias (100, 10, 1);
  check_bias (2, 3, 20000);
  check_bias (32, 96, 3025);  /* AlexNet's conv1 */
  check_bias (0, 3, 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/conv/bias", test_bias);
  g_test_add_func ("/cuda/conv/empty-and-invalid", test_empty_and_invalid);
  g_test_add_func ("/cuda/conv/im2col", test_im2col_backend);
  g_test_add_func ("/cuda/conv/cudnn", test_cudnn_backend);
  /* Last: an assertion here must not keep the comparisons from running. */
  g_test_add_func ("/cuda/conv/backend-switch", test_backend_switch);
  return g_test_run ();
}
