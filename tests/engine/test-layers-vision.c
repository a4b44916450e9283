/* test-layers-vision.c: the Vision family (Convolution, Deconvolution,
 * Pooling, SPP, Im2col, Crop, LRN): gradient checks of every type and
 * parameter variant, forward values against naive loops and hand-computed
 * cases, setup errors that name the layer, and layer_zoo's vision layers
 * against real Caffe's dump (skipped when the dump is absent). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "blas.h"
#include "engine-error.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"

/* ---- helpers ---------------------------------------------------------- */

static Caffe__LayerParameter *
param_from_text (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__layer_parameter__descriptor, text, -1,
                                         "<test>", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  return (Caffe__LayerParameter *) msg;
}

static CtLayer *
layer_from_param (const Caffe__LayerParameter *param, Caffe__Phase phase)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (param->type);

  g_assert_nonnull (klass);
  g_assert_cmpint (klass->family, ==, CT_LAYER_FAMILY_VISION);
  return ct_layer_new (klass, param, phase);
}

static CtLayer *
layer_from_text (const char *text, Caffe__Phase phase)
{
  Caffe__LayerParameter *param = param_from_text (text);
  CtLayer *layer = layer_from_param (param, phase);

  protobuf_c_message_free_unpacked (&param->base, NULL);
  return layer;
}

/* Distinct values 0.05 apart in a shuffled order, so that no max changes
 * hands under a small finite-difference step. */
static CtBlob *
distinct (guint64 seed, guint n, ...)
{
  gint64 dims[8];
  va_list args;
  CtBlob *blob;
  float *data;
  gint64 count;
  GRand *rand = g_rand_new_with_seed ((guint32) seed);

  va_start (args, n);
  for (guint i = 0; i < n; i++)
    dims[i] = va_arg (args, int);
  va_end (args);
  blob = ct_blob_new_with_shape (dims, n, NULL);
  data = ct_blob_mutable_cpu_data (blob, NULL);
  count = ct_blob_count (blob);
  for (gint64 i = 0; i < count; i++)
    data[i] = 0.05f * (float) (i - count / 2);
  for (gint64 i = count - 1; i > 0; i--)
    {
      gint64 j = g_rand_int_range (rand, 0, (gint32) i + 1);
      float t = data[i];

      data[i] = data[j];
      data[j] = t;
    }
  g_rand_free (rand);
  return blob;
}

static CtBlob *
from_values (const float *values, guint n, ...)
{
  gint64 dims[8];
  va_list args;
  CtBlob *blob;

  va_start (args, n);
  for (guint i = 0; i < n; i++)
    dims[i] = va_arg (args, int);
  va_end (args);
  blob = ct_blob_new_with_shape (dims, n, NULL);
  memcpy (ct_blob_mutable_cpu_data (blob, NULL), values,
          (gsize) ct_blob_count (blob) * sizeof (float));
  return blob;
}

static void
setup_ok (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  ct_layer_setup (layer, bottom, top, &error);
  g_assert_no_error (error);
}

static void
forward_ok (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  ct_layer_forward (layer, bottom, top, FALSE, NULL, &error);
  g_assert_no_error (error);
}

static void
assert_shape (CtBlob *blob, guint n, ...)
{
  va_list args;

  g_assert_cmpuint (ct_blob_num_axes (blob), ==, n);
  va_start (args, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (ct_blob_get_shape (blob)[i], ==, va_arg (args, int));
  va_end (args);
}

static void
assert_close (const float *ours, const float *expected, gint64 n, double tolerance)
{
  for (gint64 i = 0; i < n; i++)
    {
      double scale = MAX (1.0, fabs (expected[i]));

      if (fabs (ours[i] - expected[i]) > tolerance * scale)
        g_error ("element %" G_GINT64_FORMAT ": %.9g, expected %.9g", i, ours[i],
                 expected[i]);
    }
}

/* A gradient check of the layer TEXT over BOTTOM (owned), with Caffe's
 * step and threshold for the type. */
static void
check_gradient (const char *text, Caffe__Phase phase, GPtrArray *bottom, guint n_tops,
                int check_bottom, float step, float threshold)
{
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
  g_autoptr (CtLayer) layer = layer_from_text (text, phase);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (n_tops);

  checker.stepsize = step;
  checker.threshold = threshold;
  ct_check_gradient_exhaustive (&checker, layer, bottom, top, check_bottom);
  g_ptr_array_unref (bottom);
}

/* Setup must fail, naming the layer and saying WORD. */
static void
assert_setup_fails (const char *text, GPtrArray *bottom, guint n_tops, const char *word)
{
  g_autoptr (CtLayer) layer = layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (n_tops);
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'bad'"));
  g_assert_nonnull (strstr (error->message, word));
  g_ptr_array_unref (bottom);
}

/* ---- naive references --------------------------------------------------- */

/* Row-major index of POS (N dims) in DIMS. */
static gint64
ravel (const gint64 *pos, const gint64 *dims, int n)
{
  gint64 index = 0;

  for (int i = 0; i < n; i++)
    index = index * dims[i] + pos[i];
  return index;
}

static void
unravel (gint64 index, const gint64 *dims, int n, gint64 *pos)
{
  for (int i = n - 1; i >= 0; i--)
    {
      pos[i] = index % dims[i];
      index /= dims[i];
    }
}

static gint64
product (const gint64 *dims, int n)
{
  gint64 p = 1;

  for (int i = 0; i < n; i++)
    p *= dims[i];
  return p;
}

typedef struct {
  int n;                    /* spatial axes */
  gint64 kernel[4], stride[4], pad[4], dilation[4];
  gint64 group;
} NaiveConv;

/* Convolution (or with REVERSE its transpose) of IN (num x c_in x in_dims)
 * into OUT (num x c_out x out_dims), weights as Caffe lays them out. */
static void
naive_conv (const NaiveConv *g, gboolean reverse, gint64 num, gint64 c_in,
            const gint64 *in_dims, gint64 c_out, const gint64 *out_dims, const float *in,
            const float *weights, const float *bias, float *out)
{
  gint64 in_plane = product (in_dims, g->n), out_plane = product (out_dims, g->n);
  gint64 kernel_size = product (g->kernel, g->n);
  /* The direct convolution's channels: (small side, big side). */
  gint64 conv_in = reverse ? c_out : c_in, conv_out = reverse ? c_in : c_out;
  const gint64 *conv_in_dims = reverse ? out_dims : in_dims;
  const gint64 *conv_out_dims = reverse ? in_dims : out_dims;
  gint64 conv_out_plane = product (conv_out_dims, g->n);
  double *acc = g_new0 (double, num * c_out * out_plane);

  for (gint64 b = 0; b < num; b++)
    for (gint64 oc = 0; oc < conv_out; oc++)
      {
        gint64 group = oc / (conv_out / g->group);

        for (gint64 o = 0; o < conv_out_plane; o++)
          for (gint64 icl = 0; icl < conv_in / g->group; icl++)
            for (gint64 k = 0; k < kernel_size; k++)
              {
                gint64 opos[4], kpos[4], ipos[4];
                gboolean inside = TRUE;
                gint64 ic = group * (conv_in / g->group) + icl;
                float w = weights[(oc * (conv_in / g->group) + icl) * kernel_size + k];

                unravel (o, conv_out_dims, g->n, opos);
                unravel (k, g->kernel, g->n, kpos);
                for (int i = 0; i < g->n; i++)
                  {
                    ipos[i] = opos[i] * g->stride[i] - g->pad[i] + kpos[i] * g->dilation[i];
                    inside = inside && ipos[i] >= 0 && ipos[i] < conv_in_dims[i];
                  }
                if (!inside)
                  continue;
                if (!reverse)
                  acc[(b * c_out + oc) * out_plane + o]
                    += (double) w * in[(b * c_in + ic) * in_plane + ravel (ipos, conv_in_dims, g->n)];
                else
                  acc[(b * c_out + ic) * out_plane + ravel (ipos, conv_in_dims, g->n)]
                    += (double) w * in[(b * c_in + oc) * in_plane + o];
              }
      }
  for (gint64 b = 0; b < num; b++)
    for (gint64 c = 0; c < c_out; c++)
      for (gint64 o = 0; o < out_plane; o++)
        out[(b * c_out + c) * out_plane + o]
          = (float) (acc[(b * c_out + c) * out_plane + o] + (bias != NULL ? bias[c] : 0.0f));
  g_free (acc);
}

/* ---- catalogue ---------------------------------------------------------- */

static void
test_catalogue (void)
{
  const char *types[] = { "Convolution", "Deconvolution", "Pooling", "SPP", "Im2col", "Crop",
                          "LRN" };
  g_autoptr (GPtrArray) all = ct_layer_catalogue_list ();
  guint vision = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    {
      const CtLayerClass *k = ct_layer_catalogue_lookup (types[i]);

      g_assert_nonnull (k);
      g_assert_cmpstr (k->type, ==, types[i]);
      g_assert_cmpint (k->family, ==, CT_LAYER_FAMILY_VISION);
      g_assert_nonnull (k->backward_cpu);
      g_assert_cmpstr (ct_layer_class_describe (k), !=, "");
    }
  for (guint i = 0; i < all->len; i++)
    if (((const CtLayerClass *) g_ptr_array_index (all, i))->family == CT_LAYER_FAMILY_VISION)
      vision++;
  g_assert_cmpuint (vision, ==, G_N_ELEMENTS (types));
}

/* ---- Convolution -------------------------------------------------------- */

/* Forward of TEXT on BOTTOM against naive_conv with geometry G. */
static void
check_conv_forward (const char *text, gboolean reverse, CtBlob *input, const NaiveConv *g,
                    gint64 c_out)
{
  g_autoptr (CtLayer) layer = layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (input, NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  CtBlob *out;
  g_autofree float *expected = NULL;
  const float *bias = NULL;

  layer->seed = 42;
  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  out = CT_TOP (top, 0);
  g_assert_cmpint (ct_blob_get_shape (out)[1], ==, c_out);
  if (layer->blobs->len > 1)
    bias = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 1), NULL);
  expected = g_new (float, ct_blob_count (out));
  naive_conv (g, reverse, ct_blob_get_shape (input)[0], ct_blob_get_shape (input)[1],
              ct_blob_get_shape (input) + 2, c_out, ct_blob_get_shape (out) + 2,
              ct_blob_cpu_data (input, NULL),
              ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL), bias, expected);
  assert_close (ct_blob_cpu_data (out, NULL), expected, ct_blob_count (out), 1e-5);
  g_test_message ("%s: %" G_GINT64_FORMAT " outputs match the naive loops",
                  ct_layer_get_name (layer), ct_blob_count (out));
}

static void
test_conv_by_hand (void)
{
  /* One 3 x 3 image, a 2 x 2 kernel of (1, 2; 3, 4), bias 10, stride 1. */
  static const float image[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  static const float kernel[] = { 1, 2, 3, 4 };
  static const float expected[] = { 1 + 4 + 12 + 20 + 10, 2 + 6 + 15 + 24 + 10,
                                    4 + 10 + 21 + 32 + 10, 5 + 12 + 24 + 36 + 10 };
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'hand' type: 'Convolution' convolution_param { num_output: 1 kernel_size: 2 "
    "bias_filler { type: 'constant' value: 10 } }", CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (from_values (image, 4, 1, 1, 3, 3), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

  setup_ok (layer, bottom, top);
  g_assert_cmpuint (layer->blobs->len, ==, 2);
  assert_shape (g_ptr_array_index (layer->blobs, 0), 4, 1, 1, 2, 2);
  assert_shape (g_ptr_array_index (layer->blobs, 1), 1, 1);
  memcpy (ct_blob_mutable_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL), kernel,
          sizeof kernel);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 1, 1, 2, 2);
  assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL), expected, 4, 1e-6);
}

static void
test_conv_forward_naive (void)
{
  NaiveConv g = { 2, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, 1 };

  check_conv_forward ("name: 'c' type: 'Convolution' convolution_param { num_output: 4 "
                      "kernel_size: 3 stride: 2 pad: 1 weight_filler { type: 'gaussian' } "
                      "bias_filler { type: 'gaussian' } }",
                      FALSE, ct_test_gaussian (1, 4, 2, 3, 7, 6), &g, 4);

  /* Groups, dilation, rectangular kernel, stride and pad (layer_zoo's conv1
   * and more). */
  g = (NaiveConv) { 2, { 3, 2 }, { 2, 1 }, { 2, 0 }, { 2, 3 }, 2 };
  check_conv_forward ("name: 'c' type: 'Convolution' convolution_param { num_output: 6 "
                      "kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 1 pad_h: 2 pad_w: 0 "
                      "dilation: 2 dilation: 3 group: 2 weight_filler { type: 'gaussian' } "
                      "bias_filler { type: 'gaussian' } }",
                      FALSE, ct_test_gaussian (2, 4, 2, 4, 9, 8), &g, 6);

  /* The same through the N-D kernels. */
  check_conv_forward ("name: 'c' type: 'Convolution' convolution_param { num_output: 6 "
                      "kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 1 pad_h: 2 pad_w: 0 "
                      "dilation: 2 dilation: 3 group: 2 force_nd_im2col: true "
                      "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }",
                      FALSE, ct_test_gaussian (2, 4, 2, 4, 9, 8), &g, 6);

  /* 3-D, per-axis kernel, stride and pad. */
  g = (NaiveConv) { 3, { 3, 2, 2 }, { 1, 2, 1 }, { 1, 0, 1 }, { 1, 1, 2 }, 1 };
  check_conv_forward ("name: 'c' type: 'Convolution' convolution_param { num_output: 3 "
                      "kernel_size: 3 kernel_size: 2 kernel_size: 2 stride: 1 stride: 2 "
                      "stride: 1 pad: 1 pad: 0 pad: 1 dilation: 1 dilation: 1 dilation: 2 "
                      "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }",
                      FALSE, ct_test_gaussian (3, 5, 2, 2, 4, 5, 5), &g, 3);

  /* 1 x 1, which skips im2col, with groups and without bias. */
  g = (NaiveConv) { 2, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, 2 };
  check_conv_forward ("name: 'c' type: 'Convolution' convolution_param { num_output: 4 "
                      "kernel_size: 1 group: 2 bias_term: false "
                      "weight_filler { type: 'gaussian' } }",
                      FALSE, ct_test_gaussian (4, 4, 2, 6, 3, 4), &g, 4);

  /* Deconvolution: 2x upsampling (layer_zoo's deconv1), grouped, dilated. */
  g = (NaiveConv) { 2, { 4, 4 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, 1 };
  check_conv_forward ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 4 "
                      "kernel_size: 4 stride: 2 pad: 1 weight_filler { type: 'gaussian' } "
                      "bias_filler { type: 'gaussian' } }",
                      TRUE, ct_test_gaussian (5, 4, 2, 3, 4, 5), &g, 4);
  g = (NaiveConv) { 2, { 3, 2 }, { 2, 3 }, { 1, 0 }, { 2, 1 }, 2 };
  check_conv_forward ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 6 "
                      "kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 3 pad_h: 1 "
                      "dilation: 2 dilation: 1 group: 2 weight_filler { type: 'gaussian' } "
                      "bias_filler { type: 'gaussian' } }",
                      TRUE, ct_test_gaussian (6, 4, 2, 4, 3, 4), &g, 6);
  g = (NaiveConv) { 3, { 2, 2, 3 }, { 2, 1, 2 }, { 0, 1, 1 }, { 1, 1, 1 }, 1 };
  check_conv_forward ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 2 "
                      "kernel_size: 2 kernel_size: 2 kernel_size: 3 stride: 2 stride: 1 "
                      "stride: 2 pad: 0 pad: 1 pad: 1 weight_filler { type: 'gaussian' } "
                      "bias_filler { type: 'gaussian' } }",
                      TRUE, ct_test_gaussian (7, 5, 2, 3, 2, 3, 3), &g, 2);
  g = (NaiveConv) { 2, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 };
  check_conv_forward ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 3 "
                      "kernel_size: 1 weight_filler { type: 'gaussian' } "
                      "bias_filler { type: 'gaussian' } }",
                      TRUE, ct_test_gaussian (8, 4, 2, 2, 3, 3), &g, 3);
}

/* The channel axis need not be 1: axis 2 of a 2 x 3 x 4 x 6 blob is a 1-D
 * convolution of 6 images of 4 channels and length 6... i.e. the same as
 * the 4-D blob reshaped to 6 x 4 x 6 with axis 1. */
static void
test_conv_axis (void)
{
  const char *text_axis2 = "name: 'a' type: 'Convolution' convolution_param { num_output: 5 "
                           "kernel_size: 3 pad: 1 axis: 2 weight_filler { type: 'gaussian' } "
                           "bias_filler { type: 'gaussian' } }";
  const char *text_axis1 = "name: 'b' type: 'Convolution' convolution_param { num_output: 5 "
                           "kernel_size: 3 pad: 1 weight_filler { type: 'gaussian' } "
                           "bias_filler { type: 'gaussian' } }";
  g_autoptr (CtLayer) a = layer_from_text (text_axis2, CAFFE__PHASE__TEST);
  g_autoptr (CtLayer) b = layer_from_text (text_axis1, CAFFE__PHASE__TEST);
  CtBlob *input = ct_test_gaussian (9, 4, 2, 3, 4, 6);
  CtBlob *flat = ct_blob_new ();
  g_autoptr (GPtrArray) bottom_a = ct_test_blobs (input, NULL), bottom_b = NULL;
  g_autoptr (GPtrArray) top_a = ct_test_empty_blobs (1), top_b = ct_test_empty_blobs (1);

  g_assert_true (ct_blob_reshape (flat, (gint64[]) { 6, 4, 6 }, 3, NULL));
  memcpy (ct_blob_mutable_cpu_data (flat, NULL), ct_blob_cpu_data (input, NULL),
          144 * sizeof (float));
  bottom_b = ct_test_blobs (flat, NULL);
  a->seed = b->seed = 7;
  setup_ok (a, bottom_a, top_a);
  setup_ok (b, bottom_b, top_b);
  assert_shape (CT_TOP (top_a, 0), 4, 2, 3, 5, 6);
  forward_ok (a, bottom_a, top_a);
  forward_ok (b, bottom_b, top_b);
  assert_close (ct_blob_cpu_data (CT_TOP (top_a, 0), NULL),
                ct_blob_cpu_data (CT_TOP (top_b, 0), NULL), 180, 1e-6);

  check_gradient (text_axis2, CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (10, 4, 2, 1, 3, 4), NULL),
                  1, -1, 1e-2f, 1e-3f);
}

static void
test_conv_gradient (void)
{
  /* Caffe's simple case, with two bottoms sharing the weights. */
  check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 2 "
                  "kernel_size: 3 stride: 2 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (11, 4, 2, 3, 6, 4), ct_test_gaussian (12, 4, 2, 3, 6, 4), NULL),
                  2, -1, 1e-2f, 1e-3f);
  /* Groups, pad, stride and dilation, as layer_zoo's conv1. */
  check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 4 "
                  "kernel_size: 3 pad: 2 stride: 2 dilation: 2 group: 2 "
                  "weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'constant' value: 0.1 } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (13, 4, 2, 4, 6, 5), NULL), 1, -1, 1e-2f, 1e-3f);
  /* Rectangular kernel, stride and pad, no bias. */
  check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 3 "
                  "kernel_h: 3 kernel_w: 2 stride_h: 1 stride_w: 2 pad_h: 0 pad_w: 1 "
                  "bias_term: false weight_filler { type: 'gaussian' std: 0.5 } }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (14, 4, 2, 2, 5, 4), NULL), 1, -1,
                  1e-2f, 1e-3f);
  /* 1 x 1 (no im2col). */
  check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 3 "
                  "kernel_size: 1 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (15, 4, 2, 4, 3, 3), NULL), 1, -1, 1e-2f, 1e-3f);
  /* N-D im2col forced on a 2-D input, with dilation. */
  check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 2 "
                  "kernel_size: 2 dilation: 2 pad: 1 force_nd_im2col: true "
                  "weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (16, 4, 2, 2, 5, 4), NULL), 1, -1, 1e-2f, 1e-3f);
  /* 3-D. */
  check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 2 "
                  "kernel_size: 2 kernel_size: 3 kernel_size: 2 stride: 2 stride: 1 stride: 1 "
                  "pad: 1 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (17, 5, 1, 2, 3, 3, 3), NULL), 1, -1, 1e-2f, 1e-3f);
  /* No spatial axis at all (Caffe allows it): an inner product, grouped. */
  check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 4 group: 2 "
                  "weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (18, 2, 3, 6), NULL), 1, -1, 1e-2f, 1e-3f);
}

static void
test_deconv_gradient (void)
{
  check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 2 "
                  "kernel_size: 3 stride: 2 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (21, 4, 2, 3, 2, 2), ct_test_gaussian (22, 4, 2, 3, 2, 2), NULL),
                  2, -1, 1e-2f, 1e-3f);
  /* layer_zoo's deconv1 (2x upsampling), on fewer channels. */
  check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 2 "
                  "kernel_size: 4 stride: 2 pad: 1 weight_filler { type: 'msra' } "
                  "bias_filler { type: 'constant' value: -0.05 } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (23, 4, 2, 2, 2, 3), NULL), 1, -1, 1e-2f, 1e-3f);
  check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 4 "
                  "kernel_h: 2 kernel_w: 3 stride: 1 dilation: 2 group: 2 "
                  "weight_filler { type: 'gaussian' std: 0.5 } bias_term: false }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (24, 4, 2, 2, 2, 2), NULL), 1, -1,
                  1e-2f, 1e-3f);
  check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 2 "
                  "kernel_size: 2 stride: 2 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (25, 5, 1, 2, 2, 2, 2), NULL), 1, -1, 1e-2f, 1e-3f);
  check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 3 "
                  "kernel_size: 1 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (26, 4, 2, 2, 3, 2), NULL), 1, -1, 1e-2f, 1e-3f);
}

/* Parameter diffs accumulate, and frozen parameters are left alone. */
static void
test_conv_param_accumulation (void)
{
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'c' type: 'Convolution' convolution_param { num_output: 2 kernel_size: 3 "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }",
    CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (31, 4, 2, 2, 4, 4), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  CtBlob *w, *b;
  g_autofree float *once = NULL, *bias_once = NULL;
  gboolean down = TRUE;

  setup_ok (layer, bottom, top);
  w = g_ptr_array_index (layer->blobs, 0);
  b = g_ptr_array_index (layer->blobs, 1);
  forward_ok (layer, bottom, top);
  ct_cpu_set (ct_blob_count (CT_TOP (top, 0)), 1.0f, ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL));
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, FALSE, &error));
  once = g_memdup2 (ct_blob_cpu_diff (w, NULL), ct_blob_count (w) * sizeof (float));
  bias_once = g_memdup2 (ct_blob_cpu_diff (b, NULL), ct_blob_count (b) * sizeof (float));
  g_assert_cmpfloat (fabsf (bias_once[0] - 8.0f), <, 1e-5f); /* 2 images x 2 x 2 outputs */

  g_assert_true (ct_layer_backward (layer, top, &down, bottom, FALSE, &error));
  for (gint64 i = 0; i < ct_blob_count (w); i++)
    g_assert_cmpfloat (fabsf (ct_blob_cpu_diff (w, NULL)[i] - 2.0f * once[i]), <, 1e-4f);

  ct_layer_set_param_propagate_down (layer, 0, FALSE);
  ct_layer_set_param_propagate_down (layer, 1, FALSE);
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, FALSE, &error));
  for (gint64 i = 0; i < ct_blob_count (w); i++)
    g_assert_cmpfloat (fabsf (ct_blob_cpu_diff (w, NULL)[i] - 2.0f * once[i]), <, 1e-4f);
  g_assert_cmpfloat (fabsf (ct_blob_cpu_diff (b, NULL)[0] - 2.0f * bias_once[0]), <, 1e-4f);
}

/* Weights given by the net are kept, and must have Caffe's shapes. */
static void
test_conv_given_weights (void)
{
  const char *text = "name: 'bad' type: 'Convolution' convolution_param { num_output: 4 "
                     "kernel_size: 3 group: 2 }";
  g_autoptr (CtLayer) layer = layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (32, 4, 1, 6, 5, 5), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  CtBlob *w = ct_test_gaussian (33, 4, 4, 3, 3, 3), *bias = ct_test_gaussian (34, 1, 4);
  float first = ct_blob_cpu_data (w, NULL)[0];

  g_ptr_array_add (layer->blobs, w);
  g_ptr_array_add (layer->blobs, bias);
  setup_ok (layer, bottom, top);
  g_assert_true (g_ptr_array_index (layer->blobs, 0) == w);
  g_assert_cmpfloat (ct_blob_cpu_data (w, NULL)[0], ==, first);

  {
    g_autoptr (CtLayer) wrong = layer_from_text (text, CAFFE__PHASE__TEST);
    g_autoptr (GPtrArray) top2 = ct_test_empty_blobs (1);

    g_ptr_array_add (wrong->blobs, ct_test_gaussian (35, 4, 4, 6, 3, 3));
    g_ptr_array_add (wrong->blobs, ct_test_gaussian (36, 1, 4));
    g_assert_false (ct_layer_setup (wrong, bottom, top2, &error));
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "'bad'"));
    g_assert_nonnull (strstr (error->message, "4 3 3 3"));
  }
}

static void
test_conv_errors (void)
{
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { kernel_size: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "num_output");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 7 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1,
                      "larger than the padded input");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 dilation: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 6, 6), NULL), 1,
                      "larger than the padded input");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 group: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 3, 5, 5), NULL),
                      1, "groups");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 3 "
                      "kernel_size: 3 group: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL),
                      1, "multiple of group");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 kernel_h: 3 kernel_w: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "not both");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_h: 3 kernel_w: 3 }", ct_test_blobs (ct_test_gaussian (1, 5, 1, 2, 5, 5, 5), NULL),
                      1, "2-D");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 kernel_size: 3 kernel_size: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "once per spatial axis");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "kernel_size");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 stride: 0 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL),
                      1, "stride");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 stride_h: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "stride");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 0 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1,
                      "positive");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 axis: 4 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL),
                      1, "axis");
  assert_setup_fails ("name: 'bad' type: 'Deconvolution' convolution_param { num_output: 2 "
                      "kernel_size: 2 pad: 3 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 2, 2), NULL),
                      1, "output would have size");
  assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5),
                                                     ct_test_gaussian (2, 4, 1, 2, 5, 6), NULL),
                      2, "same shape");

  /* A changed input is refused at reshape, naming the layer. */
  {
    g_autoptr (CtLayer) layer = layer_from_text (
      "name: 'bad' type: 'Convolution' convolution_param { num_output: 2 kernel_size: 3 }",
      CAFFE__PHASE__TEST);
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
    g_autoptr (GError) error = NULL;

    setup_ok (layer, bottom, top);
    g_assert_true (ct_blob_reshape_4d (CT_BOTTOM (bottom, 0), 1, 3, 5, 5, NULL));
    g_assert_false (ct_layer_reshape (layer, bottom, top, &error));
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "'bad'"));
    g_assert_nonnull (strstr (error->message, "channels"));
  }
}

/* ---- Pooling ------------------------------------------------------------ */

static const float pool_image[] = { 4, 1, 7, 2,
                                    3, 9, 5, 6,
                                    8, 0, 2, 11 };

/* Pool the 3 x 4 image above (twice: 2 images x 1 channel) with TEXT. */
static void
check_pool_by_hand (const char *text, guint n_tops, int ph, int pw, const float *expected,
                    const float *expected_mask)
{
  g_autoptr (CtLayer) layer = layer_from_text (text, CAFFE__PHASE__TEST);
  float input[24];
  g_autoptr (GPtrArray) bottom = NULL;
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (n_tops);
  gint64 n = ph * pw;

  memcpy (input, pool_image, sizeof pool_image);
  memcpy (input + 12, pool_image, sizeof pool_image);
  bottom = ct_test_blobs (from_values (input, 4, 2, 1, 3, 4), NULL);
  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 2, 1, ph, pw);
  assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL), expected, n, 1e-6);
  assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + n, expected, n, 1e-6);
  if (expected_mask != NULL)
    {
      assert_shape (CT_TOP (top, 1), 4, 2, 1, ph, pw);
      assert_close (ct_blob_cpu_data (CT_TOP (top, 1), NULL), expected_mask, n, 0);
      assert_close (ct_blob_cpu_data (CT_TOP (top, 1), NULL) + n, expected_mask, n, 0);
    }
}

static void
test_pool_by_hand (void)
{
  static const float max_2x2[] = { 9, 9, 7, 9, 9, 11 };
  static const float max_2x2_mask[] = { 5, 5, 2, 5, 5, 11 };
  static const float ave_2x2[] = { 4.25f, 5.5f, 5, 5, 4, 6 };
  /* Kernel 3, stride 2, pad 1: a 2 x 3 output (ceil); AVE divides by the
   * window clipped to the padded image (9, 9, 6 per row). */
  static const float max_pad[] = { 9, 9, 6, 9, 11, 11 };
  static const float max_pad_mask[] = { 5, 5, 7, 5, 11, 11 };
  static const float ave_pad[] = { 17.0f / 9, 30.0f / 9, 8.0f / 6, 20.0f / 9, 33.0f / 9,
                                   17.0f / 6 };
  static const float max_global[] = { 11 };
  static const float ave_global[] = { 58.0f / 12 };
  static const float sto_test_global[] = { 410.0f / 58 };

  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 2 }",
                      2, 2, 3, max_2x2, max_2x2_mask);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 2 }",
                      1, 2, 3, max_2x2, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_h: 2 "
                      "kernel_w: 2 }", 1, 2, 3, ave_2x2, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
                      "stride: 2 pad: 1 }", 2, 2, 3, max_pad, max_pad_mask);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_size: 3 "
                      "stride_h: 2 stride_w: 2 pad_h: 1 pad_w: 1 }", 1, 2, 3, ave_pad, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: MAX "
                      "global_pooling: true }", 1, 1, 1, max_global, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: AVE "
                      "global_pooling: true }", 1, 1, 1, ave_global, NULL);
  check_pool_by_hand ("name: 'p' type: 'Pooling' pooling_param { pool: STOCHASTIC "
                      "global_pooling: true }", 1, 1, 1, sto_test_global, NULL);
}

/* Output sizes: Caffe's ceil, the clip when the last window would start in
 * the padding, and round_mode FLOOR. */
static void
check_pool_size (const char *pool_param, int h, int w, int ph, int pw)
{
  g_autofree char *text = g_strdup_printf ("name: 'p' type: 'Pooling' pooling_param { %s }",
                                           pool_param);
  g_autoptr (CtLayer) layer = layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, h, w), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

  setup_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 1, 1, ph, pw);
}

static void
test_pool_sizes (void)
{
  check_pool_size ("kernel_size: 3 stride: 2 pad: 1", 12, 12, 7, 7);  /* layer_zoo */
  check_pool_size ("kernel_size: 3 stride: 2", 13, 12, 6, 6);
  check_pool_size ("kernel_size: 2 stride: 2", 5, 5, 3, 3);
  check_pool_size ("kernel_size: 2 stride: 2 round_mode: FLOOR", 5, 5, 2, 2);
  check_pool_size ("kernel_size: 2 stride: 2 pad: 1", 5, 5, 3, 3);  /* 4, clipped */
  check_pool_size ("kernel_size: 2 stride: 2 pad: 1 round_mode: FLOOR", 5, 5, 3, 3);
  check_pool_size ("kernel_size: 3 stride: 2", 2, 2, 1, 1); /* Caffe's ceil lets it fit */
  check_pool_size ("kernel_h: 3 kernel_w: 2 stride_h: 1 stride_w: 3 pad_h: 1 pad_w: 1", 4, 7,
                   4, 3);
  check_pool_size ("global_pooling: true", 5, 3, 1, 1);
  check_pool_size ("kernel_size: 3 stride: 1", 7, 7, 5, 5);
}

static void
test_pool_gradient (void)
{
  check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
                  "stride: 2 }", CAFFE__PHASE__TEST, ct_test_blobs (distinct (1, 4, 2, 3, 6, 5), NULL),
                  1, -1, 1e-4f, 1e-2f);
  check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_size: 3 "
                  "stride: 2 pad: 1 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (distinct (2, 4, 2, 2, 7, 6), NULL), 2, -1, 1e-4f, 1e-2f);
  check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: MAX kernel_h: 3 "
                  "kernel_w: 2 stride_h: 1 stride_w: 2 pad_h: 1 pad_w: 1 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (distinct (3, 4, 1, 2, 5, 4), NULL), 1, -1,
                  1e-4f, 1e-2f);
  check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_size: 3 "
                  "stride: 2 pad: 1 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (4, 4, 2, 2, 7, 6), NULL), 1, -1, 1e-2f, 1e-3f);
  check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_h: 2 "
                  "kernel_w: 3 stride: 2 pad_h: 1 pad_w: 2 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (5, 4, 2, 2, 5, 6), NULL), 1, -1, 1e-2f, 1e-3f);
  check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: AVE kernel_size: 2 "
                  "stride: 2 round_mode: FLOOR }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (6, 4, 2, 2, 5, 5), NULL), 1, -1, 1e-2f, 1e-3f);
  check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: MAX "
                  "global_pooling: true }", CAFFE__PHASE__TEST,
                  ct_test_blobs (distinct (7, 4, 2, 3, 4, 5), NULL), 1, -1, 1e-4f, 1e-2f);
  check_gradient ("name: 'p' type: 'Pooling' pooling_param { pool: AVE "
                  "global_pooling: true }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (8, 4, 2, 3, 4, 5), NULL), 1, -1, 1e-2f, 1e-3f);
}

static void
test_pool_stochastic (void)
{
  const char *text = "name: 's' type: 'Pooling' pooling_param { pool: STOCHASTIC "
                     "kernel_size: 3 stride: 2 }";
  g_autoptr (CtLayer) layer = layer_from_text (text, CAFFE__PHASE__TRAIN);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_uniform (41, 0.1f, 1.0f, 4, 2, 3, 7, 6), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autofree float *first = NULL;
  const float *in, *out;
  guint differs = 0;

  /* Training: every output is one of its window's values; one seed
   * replays the same draws. */
  setup_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 2, 3, 3, 3);
  layer->seed = 5;
  forward_ok (layer, bottom, top);
  g_assert_cmpuint (layer->seed, !=, 5);
  in = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  for (int p = 0; p < 6; p++)
    for (int ph = 0; ph < 3; ph++)
      for (int pw = 0; pw < 3; pw++)
        {
          gboolean found = FALSE;
          float v = out[p * 9 + ph * 3 + pw];

          for (int h = ph * 2; h < MIN (ph * 2 + 3, 7); h++)
            for (int w = pw * 2; w < MIN (pw * 2 + 3, 6); w++)
              found = found || in[p * 42 + h * 6 + w] == v;
          g_assert_true (found);
        }
  first = g_memdup2 (out, 54 * sizeof (float));
  layer->seed = 5;
  forward_ok (layer, bottom, top);
  assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL), first, 54, 0);
  forward_ok (layer, bottom, top);
  for (int i = 0; i < 54; i++)
    differs += ct_blob_cpu_data (CT_TOP (top, 0), NULL)[i] != first[i];
  g_assert_cmpuint (differs, >, 0);

  check_gradient (text, CAFFE__PHASE__TRAIN,
                  ct_test_blobs (ct_test_uniform (42, 0.1f, 1.0f, 4, 2, 2, 5, 5), NULL), 1, -1,
                  1e-4f, 1e-2f);
  /* Testing: the activation-weighted average, and its exact gradient. */
  check_gradient (text, CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_uniform (43, 0.1f, 1.0f, 4, 2, 2, 5, 5), NULL), 1, -1,
                  1e-3f, 1e-2f);
}

static void
test_pool_errors (void)
{
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 "
                      "kernel_h: 2 kernel_w: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL),
                      1, "not both");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_h: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "kernel_w");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { stride: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "kernel");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { global_pooling: true "
                      "kernel_size: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "global_pooling");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { global_pooling: true "
                      "stride: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "stride 1");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 pad: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "smaller than the kernel");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { pool: STOCHASTIC "
                      "kernel_size: 3 pad: 1 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "MAX and AVE");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 pad: 1 "
                      "pad_h: 1 pad_w: 1 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "pad_h");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 "
                      "stride_h: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1,
                      "stride_w");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 3, 1, 4, 4), NULL), 1, "4 axes");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { pool: AVE kernel_size: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 2, "second top");
  assert_setup_fails ("name: 'bad' type: 'Pooling' pooling_param { kernel_size: 6 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "does not fit");
}

/* ---- SPP ---------------------------------------------------------------- */

/* SPP's levels are poolings: compare with Pooling layers built the same way. */
static void
test_spp_forward (void)
{
  g_autoptr (CtLayer) spp = layer_from_text (
    "name: 's' type: 'SPP' spp_param { pyramid_height: 3 pool: AVE }", CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (51, 4, 2, 3, 9, 8), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  /* 9 x 8 input: level 0 kernel (9, 8); level 1 (5, 4) pad (1, 0), 2 x 2
   * bins after the clip; level 2 (3, 2) pad (2, 0), 4 x 4 bins. */
  const char *levels[] = {
    "name: 'l0' type: 'Pooling' pooling_param { pool: AVE kernel_h: 9 kernel_w: 8 "
    "stride_h: 9 stride_w: 8 }",
    "name: 'l1' type: 'Pooling' pooling_param { pool: AVE kernel_h: 5 kernel_w: 4 "
    "stride_h: 5 stride_w: 4 pad_h: 1 pad_w: 0 }",
    "name: 'l2' type: 'Pooling' pooling_param { pool: AVE kernel_h: 3 kernel_w: 2 "
    "stride_h: 3 stride_w: 2 pad_h: 2 pad_w: 0 }",
  };
  gint64 offset = 0;

  setup_ok (spp, bottom, top);
  forward_ok (spp, bottom, top);
  assert_shape (CT_TOP (top, 0), 2, 2, 3 * (1 + 4 + 16));
  for (gsize l = 0; l < G_N_ELEMENTS (levels); l++)
    {
      g_autoptr (CtLayer) pool = layer_from_text (levels[l], CAFFE__PHASE__TEST);
      g_autoptr (GPtrArray) ptop = ct_test_empty_blobs (1);
      gint64 per_image;

      setup_ok (pool, bottom, ptop);
      forward_ok (pool, bottom, ptop);
      per_image = ct_blob_count (CT_TOP (ptop, 0)) / 2;
      for (int n = 0; n < 2; n++)
        assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL) + n * 63 + offset,
                      ct_blob_cpu_data (CT_TOP (ptop, 0), NULL) + n * per_image, per_image,
                      1e-6);
      offset += per_image;
    }
  g_assert_cmpint (offset, ==, 63);

  /* pyramid_height 1 keeps the pooling's 4-D shape. */
  {
    g_autoptr (CtLayer) one = layer_from_text (
      "name: 's' type: 'SPP' spp_param { pyramid_height: 1 }", CAFFE__PHASE__TEST);
    g_autoptr (GPtrArray) top1 = ct_test_empty_blobs (1);

    setup_ok (one, bottom, top1);
    assert_shape (CT_TOP (top1, 0), 4, 2, 3, 1, 1);
  }
}

static void
test_spp_gradient (void)
{
  check_gradient ("name: 's' type: 'SPP' spp_param { pyramid_height: 3 pool: MAX }",
                  CAFFE__PHASE__TEST, ct_test_blobs (distinct (52, 4, 2, 2, 9, 8), NULL), 1, -1,
                  1e-4f, 1e-2f);
  check_gradient ("name: 's' type: 'SPP' spp_param { pyramid_height: 2 pool: AVE }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (53, 4, 2, 2, 5, 6), NULL), 1, -1,
                  1e-2f, 1e-3f);
  check_gradient ("name: 's' type: 'SPP' spp_param { pyramid_height: 1 pool: AVE }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (54, 4, 2, 2, 3, 4), NULL), 1, -1,
                  1e-2f, 1e-3f);
}

static void
test_spp_errors (void)
{
  assert_setup_fails ("name: 'bad' type: 'SPP' spp_param { pool: MAX }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 4, 4), NULL), 1, "pyramid_height");
  /* 5 rows in 4 bins: kernel 2 with padding 2, which pooling refuses. */
  assert_setup_fails ("name: 'bad' type: 'SPP' spp_param { pyramid_height: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 8), NULL), 1, "pyramid level 2");
  assert_setup_fails ("name: 'bad' type: 'SPP' spp_param { pyramid_height: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 2, 1, 8), NULL), 1, "4 axes");
}

/* ---- Im2col ------------------------------------------------------------- */

static void
test_im2col_forward (void)
{
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'i' type: 'Im2col' convolution_param { kernel_size: 3 stride: 2 pad: 1 "
    "dilation: 2 }", CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (61, 4, 2, 3, 6, 5), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  const float *in, *out;
  guint checked = 0;

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  /* (6 + 2 - 5) / 2 + 1 = 2 rows, (5 + 2 - 5) / 2 + 1 = 2 columns. */
  assert_shape (CT_TOP (top, 0), 4, 2, 27, 2, 2);
  in = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 3; c++)
      for (int kh = 0; kh < 3; kh++)
        for (int kw = 0; kw < 3; kw++)
          for (int oh = 0; oh < 2; oh++)
            for (int ow = 0; ow < 2; ow++)
              {
                int h = oh * 2 - 1 + kh * 2, w = ow * 2 - 1 + kw * 2;
                float expected = h >= 0 && h < 6 && w >= 0 && w < 5
                                 ? in[((n * 3 + c) * 6 + h) * 5 + w] : 0.0f;
                int row = (c * 3 + kh) * 3 + kw;

                g_assert_cmpfloat (out[((n * 27 + row) * 2 + oh) * 2 + ow], ==, expected);
                checked++;
              }
  g_assert_cmpuint (checked, ==, 216);
}

static void
test_im2col_gradient (void)
{
  check_gradient ("name: 'i' type: 'Im2col' convolution_param { kernel_size: 3 stride: 2 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (62, 4, 2, 3, 6, 5), NULL), 1, -1,
                  1e-2f, 1e-2f);
  check_gradient ("name: 'i' type: 'Im2col' convolution_param { kernel_h: 2 kernel_w: 3 "
                  "stride_h: 1 stride_w: 2 pad_h: 1 pad_w: 0 dilation: 2 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (63, 4, 2, 2, 4, 5), NULL), 1, -1,
                  1e-2f, 1e-2f);
  check_gradient ("name: 'i' type: 'Im2col' convolution_param { kernel_size: 2 pad: 1 "
                  "stride: 2 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (64, 5, 1, 2, 3, 3, 3), NULL), 1, -1, 1e-2f, 1e-2f);
  check_gradient ("name: 'i' type: 'Im2col' convolution_param { kernel_size: 3 pad: 1 "
                  "force_nd_im2col: true }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (65, 4, 1, 2, 3, 3), NULL), 1, -1, 1e-2f, 1e-2f);
}

static void
test_im2col_errors (void)
{
  assert_setup_fails ("name: 'bad' type: 'Im2col' convolution_param { kernel_size: 3 "
                      "axis: -1 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1,
                      "spatial axis");
  assert_setup_fails ("name: 'bad' type: 'Im2col' convolution_param { kernel_size: 6 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "larger");
}

/* ---- Crop --------------------------------------------------------------- */

static void
test_crop_forward (void)
{
  g_autoptr (CtLayer) layer = layer_from_text (
    "name: 'c' type: 'Crop' crop_param { axis: 2 offset: 1 offset: 2 }", CAFFE__PHASE__TEST);
  CtBlob *big = ct_blob_new_with_shape ((gint64[]) { 2, 3, 4, 5 }, 4, NULL);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (big, ct_test_gaussian (1, 4, 1, 1, 2, 3), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  gboolean down[2] = { TRUE, TRUE };
  float *data = ct_blob_mutable_cpu_data (big, NULL);
  const float *out, *diff, *like_diff;

  for (int i = 0; i < 120; i++)
    data[i] = (float) i;
  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 2, 3, 2, 3);
  out = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 3; c++)
      for (int h = 0; h < 2; h++)
        for (int w = 0; w < 3; w++)
          g_assert_cmpfloat (out[((n * 3 + c) * 2 + h) * 3 + w], ==,
                             (float) (((n * 3 + c) * 4 + h + 1) * 5 + w + 2));

  /* Backward puts the diff back in place, zeros elsewhere, and gives the
   * shape bottom nothing. */
  ct_cpu_set (36, 1.0f, ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL));
  ct_cpu_set (120, 5.0f, ct_blob_mutable_cpu_diff (big, NULL));
  ct_cpu_set (6, 7.0f, ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, 1), NULL));
  g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
  diff = ct_blob_cpu_diff (big, NULL);
  like_diff = ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL);
  for (int i = 0; i < 120; i++)
    {
      int w = i % 5, h = (i / 5) % 4;

      g_assert_cmpfloat (diff[i], ==, (h >= 1 && h < 3 && w >= 2 && w < 5) ? 1.0f : 0.0f);
    }
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (like_diff[i], ==, 7.0f);
}

static void
test_crop_gradient (void)
{
  check_gradient ("name: 'c' type: 'Crop' crop_param { axis: 2 offset: 1 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (71, 4, 2, 3, 5, 4),
                                                 ct_test_gaussian (72, 4, 2, 3, 3, 2), NULL),
                  1, 0, 1e-2f, 1e-3f);
  check_gradient ("name: 'c' type: 'Crop' crop_param { axis: 1 offset: 1 offset: 0 "
                  "offset: 2 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (73, 4, 2, 4, 3, 5), ct_test_gaussian (74, 4, 2, 2, 3, 2), NULL),
                  1, 0, 1e-2f, 1e-3f);
  check_gradient ("name: 'c' type: 'Crop' crop_param { axis: 0 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (75, 3, 3, 4, 5), ct_test_gaussian (76, 3, 2, 4, 3), NULL),
                  1, 0, 1e-2f, 1e-3f);
}

static void
test_crop_errors (void)
{
  assert_setup_fails ("name: 'bad' type: 'Crop' crop_param { axis: 2 offset: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 5), ct_test_gaussian (2, 4, 1, 1, 3, 3), NULL),
                      1, "out of bounds");
  assert_setup_fails ("name: 'bad' type: 'Crop' crop_param { axis: 1 offset: 1 offset: 1 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 5), ct_test_gaussian (2, 4, 1, 1, 3, 3), NULL),
                      1, "offsets");
  assert_setup_fails ("name: 'bad' type: 'Crop' crop_param { axis: 5 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 5), ct_test_gaussian (2, 4, 1, 1, 3, 3), NULL),
                      1, "axis");
  assert_setup_fails ("name: 'bad' type: 'Crop'",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 5), ct_test_gaussian (2, 3, 1, 1, 3), NULL),
                      1, "cannot crop");
}

/* ---- LRN ---------------------------------------------------------------- */

static void
naive_lrn (const float *in, gint64 num, gint64 channels, gint64 height, gint64 width,
           int size, double alpha, double beta, double k, gboolean within, float *out)
{
  int pre = (size - 1) / 2;

  for (gint64 n = 0; n < num; n++)
    for (gint64 c = 0; c < channels; c++)
      for (gint64 h = 0; h < height; h++)
        for (gint64 w = 0; w < width; w++)
          {
            gint64 i = ((n * channels + c) * height + h) * width + w;
            double sum = 0.0, scale;

            if (within)
              {
                for (gint64 hh = h - pre; hh <= h + pre; hh++)
                  for (gint64 ww = w - pre; ww <= w + pre; ww++)
                    if (hh >= 0 && hh < height && ww >= 0 && ww < width)
                      {
                        double x = in[((n * channels + c) * height + hh) * width + ww];
                        sum += x * x;
                      }
                scale = 1.0 + alpha * sum / (size * size);
              }
            else
              {
                for (gint64 cc = c - pre; cc <= c + pre; cc++)
                  if (cc >= 0 && cc < channels)
                    {
                      double x = in[((n * channels + cc) * height + h) * width + w];
                      sum += x * x;
                    }
                scale = k + alpha * sum / size;
              }
            out[i] = (float) (in[i] * pow (scale, -beta));
          }
}

static void
check_lrn_forward (const char *text, int size, double alpha, double beta, double k,
                   gboolean within)
{
  g_autoptr (CtLayer) layer = layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (81, 4, 2, 7, 3, 4), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  float expected[168];

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  assert_shape (CT_TOP (top, 0), 4, 2, 7, 3, 4);
  naive_lrn (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), 2, 7, 3, 4, size, alpha, beta, k,
             within, expected);
  assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL), expected, 168, 1e-5);
}

static void
test_lrn_forward (void)
{
  check_lrn_forward ("name: 'l' type: 'LRN'", 5, 1.0, 0.75, 1.0, FALSE);
  check_lrn_forward ("name: 'l' type: 'LRN' lrn_param { local_size: 3 alpha: 0.5 beta: 1.5 "
                     "k: 2 }", 3, 0.5, 1.5, 2.0, FALSE);
  check_lrn_forward ("name: 'l' type: 'LRN' lrn_param { norm_region: ACROSS_CHANNELS "
                     "local_size: 5 alpha: 0.1 beta: 0.75 k: 1.0 }", 5, 0.1, 0.75, 1.0, FALSE);
  check_lrn_forward ("name: 'l' type: 'LRN' lrn_param { local_size: 9 alpha: 3 }", 9, 3.0,
                     0.75, 1.0, FALSE);
  check_lrn_forward ("name: 'l' type: 'LRN' lrn_param { norm_region: WITHIN_CHANNEL "
                     "local_size: 3 alpha: 0.1 beta: 0.75 }", 3, 0.1, 0.75, 1.0, TRUE);
  /* k plays no part within channels, as in Caffe. */
  check_lrn_forward ("name: 'l' type: 'LRN' lrn_param { norm_region: WITHIN_CHANNEL "
                     "local_size: 5 alpha: 2 beta: 0.5 k: 7 }", 5, 2.0, 0.5, 1.0, TRUE);
  check_lrn_forward ("name: 'l' type: 'LRN' lrn_param { norm_region: WITHIN_CHANNEL "
                     "local_size: 1 }", 1, 1.0, 0.75, 1.0, TRUE);
}

static void
test_lrn_gradient (void)
{
  check_gradient ("name: 'l' type: 'LRN'", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (82, 4, 2, 7, 3, 3), NULL), 1, -1, 1e-2f, 1e-2f);
  check_gradient ("name: 'l' type: 'LRN' lrn_param { local_size: 3 alpha: 0.5 beta: 1.5 k: 2 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (83, 4, 2, 4, 2, 3), NULL), 1, -1,
                  1e-2f, 1e-2f);
  check_gradient ("name: 'l' type: 'LRN' lrn_param { norm_region: WITHIN_CHANNEL "
                  "local_size: 3 alpha: 0.1 beta: 0.75 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (84, 4, 2, 2, 4, 5), NULL), 1, -1, 1e-2f, 1e-2f);
  check_gradient ("name: 'l' type: 'LRN' lrn_param { norm_region: WITHIN_CHANNEL "
                  "local_size: 5 alpha: 2 beta: 0.5 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (85, 4, 1, 2, 5, 4), NULL), 1, -1, 1e-2f, 1e-2f);
}

static void
test_lrn_errors (void)
{
  assert_setup_fails ("name: 'bad' type: 'LRN' lrn_param { local_size: 4 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 5, 3, 3), NULL), 1, "odd");
  assert_setup_fails ("name: 'bad' type: 'LRN'", ct_test_blobs (ct_test_gaussian (1, 2, 5, 3), NULL), 1,
                      "4 axes");
}

/* ---- the reference dump --------------------------------------------------- */

typedef struct {
  const char *layer;
  const char *bottoms[2];
  const char *top;
} ZooCase;

static const Caffe__LayerParameter *
find_layer (const Caffe__NetParameter *net, const char *name)
{
  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return net->layer[i];
  g_error ("layer_zoo.prototxt has no layer %s", name);
  return NULL;
}

static Caffe__NetParameter *
load_zoo_net (void)
{
  const char *roots[] = { "CT_TEST_DATA", "CT_SHARED_DIR" };

  for (gsize i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      const char *root = g_getenv (roots[i]);
      g_autofree char *path = NULL;
      g_autoptr (GError) error = NULL;
      ProtobufCMessage *net;

      if (root == NULL)
        continue;
      path = g_build_filename (root, "reference", "layer_zoo.prototxt", NULL);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      net = ct_text_parse_file (&caffe__net_parameter__descriptor, path, CT_TEXT_STRICT, &error);
      g_assert_no_error (error);
      return (Caffe__NetParameter *) net;
    }
  return NULL;
}

static double
run_zoo_case (const CtTestDump *dump, const Caffe__NetParameter *net, const ZooCase *zc)
{
  g_autoptr (CtLayer) layer = layer_from_param (find_layer (net, zc->layer), CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  const CtTestDumpRecord *out = ct_test_dump_find (dump, 0, zc->top, 0);
  gboolean down[2] = { TRUE, FALSE };
  double worst = 0.0, e;

  for (int b = 0; b < 2 && zc->bottoms[b] != NULL; b++)
    g_ptr_array_add (bottom, ct_test_dump_blob (ct_test_dump_find (dump, 0, zc->bottoms[b], 0)));
  /* The reference's weights, as the net would load them. */
  for (int i = 0;; i++)
    {
      const CtTestDumpRecord *r = NULL;

      for (guint j = 0; j < dump->records->len && r == NULL; j++)
        {
          const CtTestDumpRecord *c = g_ptr_array_index (dump->records, j);

          if (c->kind == 1 && c->index == i && strcmp (c->name, zc->layer) == 0)
            r = c;
        }
      if (r == NULL)
        break;
      g_ptr_array_add (layer->blobs, ct_test_dump_blob (r));
    }

  setup_ok (layer, bottom, top);
  forward_ok (layer, bottom, top);
  g_assert_cmpint (ct_blob_count (CT_TOP (top, 0)), ==, out->count);
  e = ct_test_relative_error (ct_blob_cpu_data (CT_TOP (top, 0), NULL), out->data, out->count);
  g_test_message ("%s: top %s data %.3g", zc->layer, zc->top, e);
  worst = MAX (worst, e);

  memcpy (ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL), out->diff,
          (gsize) out->count * sizeof (float));
  for (guint i = 0; i < layer->blobs->len; i++)
    {
      CtBlob *p = g_ptr_array_index (layer->blobs, i);
      ct_cpu_set (ct_blob_count (p), 0.0f, ct_blob_mutable_cpu_diff (p, NULL));
    }
  g_assert_true (ct_layer_backward (layer, top, down, bottom, FALSE, &error));
  g_assert_no_error (error);
  {
    const CtTestDumpRecord *in = ct_test_dump_find (dump, 0, zc->bottoms[0], 0);

    e = ct_test_relative_error (ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL), in->diff,
                                in->count);
    g_test_message ("%s: bottom %s diff %.3g", zc->layer, zc->bottoms[0], e);
    worst = MAX (worst, e);
  }
  for (guint i = 0; i < layer->blobs->len; i++)
    {
      const CtTestDumpRecord *r = ct_test_dump_find (dump, 1, zc->layer, (int) i);
      CtBlob *p = g_ptr_array_index (layer->blobs, i);

      e = ct_test_relative_error (ct_blob_cpu_diff (p, NULL), r->diff, r->count);
      g_test_message ("%s: param %u diff %.3g", zc->layer, i, e);
      worst = MAX (worst, e);
    }
  return worst;
}

static void
test_reference (void)
{
  static const ZooCase cases[] = {
    { "conv1", { "data" }, "conv1" },
    { "conv2", { "relu1" }, "conv2" },
    { "deconv1", { "scale1" }, "deconv1" },
    { "pool_max", { "elu1_elu1_0_split_0" }, "pool_max" },
    { "pool_ave", { "elu1_elu1_0_split_1" }, "pool_ave" },
    { "lrn_across", { "concat1_concat1_0_split_0" }, "lrn_across" },
    { "lrn_within", { "concat1_concat1_0_split_1" }, "lrn_within" },
    { "pool3", { "scale2_scale2_0_split_0" }, "pool3" },
    { "crop1", { "scale2_scale2_0_split_1", "pool3_pool3_0_split_0" }, "crop1" },
    { "gap", { "crop1" }, "gap" },
    { "gmp", { "pool3_pool3_0_split_1" }, "gmp" },
  };
  g_autoptr (CtTestDump) dump = ct_test_dump_load ("layer_zoo_seed1701.bin");
  Caffe__NetParameter *net;
  double worst = 0.0;

  if (dump == NULL || (net = load_zoo_net ()) == NULL)
    {
      g_test_skip ("layer_zoo reference (prototxt and dump) not found");
      return;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double e = run_zoo_case (dump, net, &cases[i]);

      worst = MAX (worst, e);
    }
  protobuf_c_message_free_unpacked (&net->base, NULL);
  g_test_message ("%u vision layers of layer_zoo: worst relative error %.3g",
                  (guint) G_N_ELEMENTS (cases), worst);
  g_assert_cmpfloat (worst, <=, 1e-4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/layers/vision/catalogue", test_catalogue);
  g_test_add_func ("/layers/vision/convolution/by-hand", test_conv_by_hand);
  g_test_add_func ("/layers/vision/convolution/forward-naive", test_conv_forward_naive);
  g_test_add_func ("/layers/vision/convolution/axis", test_conv_axis);
  g_test_add_func ("/layers/vision/convolution/gradient", test_conv_gradient);
  g_test_add_func ("/layers/vision/convolution/param-accumulation", test_conv_param_accumulation);
  g_test_add_func ("/layers/vision/convolution/given-weights", test_conv_given_weights);
  g_test_add_func ("/layers/vision/convolution/errors", test_conv_errors);
  g_test_add_func ("/layers/vision/deconvolution/gradient", test_deconv_gradient);
  g_test_add_func ("/layers/vision/pooling/by-hand", test_pool_by_hand);
  g_test_add_func ("/layers/vision/pooling/sizes", test_pool_sizes);
  g_test_add_func ("/layers/vision/pooling/gradient", test_pool_gradient);
  g_test_add_func ("/layers/vision/pooling/stochastic", test_pool_stochastic);
  g_test_add_func ("/layers/vision/pooling/errors", test_pool_errors);
  g_test_add_func ("/layers/vision/spp/forward", test_spp_forward);
  g_test_add_func ("/layers/vision/spp/gradient", test_spp_gradient);
  g_test_add_func ("/layers/vision/spp/errors", test_spp_errors);
  g_test_add_func ("/layers/vision/im2col/forward", test_im2col_forward);
  g_test_add_func ("/layers/vision/im2col/gradient", test_im2col_gradient);
  g_test_add_func ("/layers/vision/im2col/errors", test_im2col_errors);
  g_test_add_func ("/layers/vision/crop/forward", test_crop_forward);
  g_test_add_func ("/layers/vision/crop/gradient", test_crop_gradient);
  g_test_add_func ("/layers/vision/crop/errors", test_crop_errors);
  g_test_add_func ("/layers/vision/lrn/forward", test_lrn_forward);
  g_test_add_func ("/layers/vision/lrn/gradient", test_lrn_gradient);
  g_test_add_func ("/layers/vision/lrn/errors", test_lrn_errors);
  g_test_add_func ("/layers/vision/reference", test_reference);
  return g_test_run ();
}
