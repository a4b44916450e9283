/* test-layers-conv.c: Convolution, Deconvolution and Im2col: forward
 * values against a naive convolution and hand-computed cases, other axes,
 * gradient checks of every parameter variant, parameter gradients that
 * accumulate, weights given by the net, and setup errors that name the
 * layer. */
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
#include "vision-test-util.h"

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

/* ---- Convolution -------------------------------------------------------- */

/* Forward of TEXT on BOTTOM against naive_conv with geometry G. */
static void
check_conv_forward (const char *text, gboolean reverse, CtBlob *input, const NaiveConv *g,
                    gint64 c_out)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (input, NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  CtBlob *out;
  g_autofree float *expected = NULL;
  const float *bias = NULL;

  layer->seed = 42;
  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  out = CT_TOP (top, 0);
  g_assert_cmpint (ct_blob_get_shape (out)[1], ==, c_out);
  if (layer->blobs->len > 1)
    bias = ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 1), NULL);
  expected = g_new (float, ct_blob_count (out));
  naive_conv (g, reverse, ct_blob_get_shape (input)[0], ct_blob_get_shape (input)[1],
              ct_blob_get_shape (input) + 2, c_out, ct_blob_get_shape (out) + 2,
              ct_blob_cpu_data (input, NULL),
              ct_blob_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL), bias, expected);
  ct_test_assert_close (ct_blob_cpu_data (out, NULL), expected, ct_blob_count (out), 1e-5);
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
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
    "name: 'hand' type: 'Convolution' convolution_param { num_output: 1 kernel_size: 2 "
    "bias_filler { type: 'constant' value: 10 } }", CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_from_values (image, 4, 1, 1, 3, 3), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);

  ct_test_setup_ok (layer, bottom, top);
  g_assert_cmpuint (layer->blobs->len, ==, 2);
  ct_test_assert_shape (g_ptr_array_index (layer->blobs, 0), 4, 1, 1, 2, 2);
  ct_test_assert_shape (g_ptr_array_index (layer->blobs, 1), 1, 1);
  memcpy (ct_blob_mutable_cpu_data (g_ptr_array_index (layer->blobs, 0), NULL), kernel,
          sizeof kernel);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 1, 1, 2, 2);
  ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL), expected, 4, 1e-6);
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
  g_autoptr (CtLayer) a = ct_test_layer_from_text (text_axis2, CAFFE__PHASE__TEST);
  g_autoptr (CtLayer) b = ct_test_layer_from_text (text_axis1, CAFFE__PHASE__TEST);
  CtBlob *input = ct_test_gaussian (9, 4, 2, 3, 4, 6);
  CtBlob *flat = ct_blob_new ();
  g_autoptr (GPtrArray) bottom_a = ct_test_blobs (input, NULL), bottom_b = NULL;
  g_autoptr (GPtrArray) top_a = ct_test_empty_blobs (1), top_b = ct_test_empty_blobs (1);

  g_assert_true (ct_blob_reshape (flat, (gint64[]) { 6, 4, 6 }, 3, NULL));
  memcpy (ct_blob_mutable_cpu_data (flat, NULL), ct_blob_cpu_data (input, NULL),
          144 * sizeof (float));
  bottom_b = ct_test_blobs (flat, NULL);
  a->seed = b->seed = 7;
  ct_test_setup_ok (a, bottom_a, top_a);
  ct_test_setup_ok (b, bottom_b, top_b);
  ct_test_assert_shape (CT_TOP (top_a, 0), 4, 2, 3, 5, 6);
  ct_test_forward_ok (a, bottom_a, top_a);
  ct_test_forward_ok (b, bottom_b, top_b);
  ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top_a, 0), NULL),
                ct_blob_cpu_data (CT_TOP (top_b, 0), NULL), 180, 1e-6);

  ct_test_check_gradient (text_axis2, CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (10, 4, 2, 1, 3, 4), NULL),
                  1, -1, 1e-2f, 1e-3f);
}

static void
test_conv_gradient (void)
{
  /* Caffe's simple case, with two bottoms sharing the weights. */
  ct_test_check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 2 "
                  "kernel_size: 3 stride: 2 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (11, 4, 2, 3, 6, 4), ct_test_gaussian (12, 4, 2, 3, 6, 4), NULL),
                  2, -1, 1e-2f, 1e-3f);
  /* Groups, pad, stride and dilation, as layer_zoo's conv1. */
  ct_test_check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 4 "
                  "kernel_size: 3 pad: 2 stride: 2 dilation: 2 group: 2 "
                  "weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'constant' value: 0.1 } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (13, 4, 2, 4, 6, 5), NULL), 1, -1, 1e-2f, 1e-3f);
  /* Rectangular kernel, stride and pad, no bias. */
  ct_test_check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 3 "
                  "kernel_h: 3 kernel_w: 2 stride_h: 1 stride_w: 2 pad_h: 0 pad_w: 1 "
                  "bias_term: false weight_filler { type: 'gaussian' std: 0.5 } }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (14, 4, 2, 2, 5, 4), NULL), 1, -1,
                  1e-2f, 1e-3f);
  /* 1 x 1 (no im2col). */
  ct_test_check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 3 "
                  "kernel_size: 1 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (15, 4, 2, 4, 3, 3), NULL), 1, -1, 1e-2f, 1e-3f);
  /* N-D im2col forced on a 2-D input, with dilation. */
  ct_test_check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 2 "
                  "kernel_size: 2 dilation: 2 pad: 1 force_nd_im2col: true "
                  "weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (16, 4, 2, 2, 5, 4), NULL), 1, -1, 1e-2f, 1e-3f);
  /* 3-D. */
  ct_test_check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 2 "
                  "kernel_size: 2 kernel_size: 3 kernel_size: 2 stride: 2 stride: 1 stride: 1 "
                  "pad: 1 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (17, 5, 1, 2, 3, 3, 3), NULL), 1, -1, 1e-2f, 1e-3f);
  /* No spatial axis at all (Caffe allows it): an inner product, grouped. */
  ct_test_check_gradient ("name: 'c' type: 'Convolution' convolution_param { num_output: 4 group: 2 "
                  "weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (18, 2, 3, 6), NULL), 1, -1, 1e-2f, 1e-3f);
}

static void
test_deconv_gradient (void)
{
  ct_test_check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 2 "
                  "kernel_size: 3 stride: 2 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (21, 4, 2, 3, 2, 2), ct_test_gaussian (22, 4, 2, 3, 2, 2), NULL),
                  2, -1, 1e-2f, 1e-3f);
  /* layer_zoo's deconv1 (2x upsampling), on fewer channels. */
  ct_test_check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 2 "
                  "kernel_size: 4 stride: 2 pad: 1 weight_filler { type: 'msra' } "
                  "bias_filler { type: 'constant' value: -0.05 } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (23, 4, 2, 2, 2, 3), NULL), 1, -1, 1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 4 "
                  "kernel_h: 2 kernel_w: 3 stride: 1 dilation: 2 group: 2 "
                  "weight_filler { type: 'gaussian' std: 0.5 } bias_term: false }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (24, 4, 2, 2, 2, 2), NULL), 1, -1,
                  1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 2 "
                  "kernel_size: 2 stride: 2 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (25, 5, 1, 2, 2, 2, 2), NULL), 1, -1, 1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 'd' type: 'Deconvolution' convolution_param { num_output: 3 "
                  "kernel_size: 1 weight_filler { type: 'gaussian' std: 0.5 } "
                  "bias_filler { type: 'gaussian' } }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (26, 4, 2, 2, 3, 2), NULL), 1, -1, 1e-2f, 1e-3f);
}

/* Parameter diffs accumulate, and frozen parameters are left alone. */
static void
test_conv_param_accumulation (void)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
    "name: 'c' type: 'Convolution' convolution_param { num_output: 2 kernel_size: 3 "
    "weight_filler { type: 'gaussian' } bias_filler { type: 'gaussian' } }",
    CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (31, 4, 2, 2, 4, 4), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  CtBlob *w, *b;
  g_autofree float *once = NULL, *bias_once = NULL;
  gboolean down = TRUE;

  ct_test_setup_ok (layer, bottom, top);
  w = g_ptr_array_index (layer->blobs, 0);
  b = g_ptr_array_index (layer->blobs, 1);
  ct_test_forward_ok (layer, bottom, top);
  ct_cpu_set (ct_blob_count (CT_TOP (top, 0)), 1.0f, ct_blob_mutable_cpu_diff (CT_TOP (top, 0), NULL));
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
  once = g_memdup2 (ct_blob_cpu_diff (w, NULL), ct_blob_count (w) * sizeof (float));
  bias_once = g_memdup2 (ct_blob_cpu_diff (b, NULL), ct_blob_count (b) * sizeof (float));
  g_assert_cmpfloat (fabsf (bias_once[0] - 8.0f), <, 1e-5f); /* 2 images x 2 x 2 outputs */

  g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
  for (gint64 i = 0; i < ct_blob_count (w); i++)
    g_assert_cmpfloat (fabsf (ct_blob_cpu_diff (w, NULL)[i] - 2.0f * once[i]), <, 1e-4f);

  ct_layer_set_param_propagate_down (layer, 0, FALSE);
  ct_layer_set_param_propagate_down (layer, 1, FALSE);
  g_assert_true (ct_layer_backward (layer, top, &down, bottom, ct_test_use_gpu (), &error));
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
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (32, 4, 1, 6, 5, 5), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  g_autoptr (GError) error = NULL;
  CtBlob *w = ct_test_gaussian (33, 4, 4, 3, 3, 3), *bias = ct_test_gaussian (34, 1, 4);
  float first = ct_blob_cpu_data (w, NULL)[0];

  g_ptr_array_add (layer->blobs, w);
  g_ptr_array_add (layer->blobs, bias);
  ct_test_setup_ok (layer, bottom, top);
  g_assert_true (g_ptr_array_index (layer->blobs, 0) == w);
  g_assert_cmpfloat (ct_blob_cpu_data (w, NULL)[0], ==, first);

  {
    g_autoptr (CtLayer) wrong = ct_test_layer_from_text (text, CAFFE__PHASE__TEST);
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
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { kernel_size: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "num_output");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 7 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1,
                      "larger than the padded input");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 dilation: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 6, 6), NULL), 1,
                      "larger than the padded input");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 group: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 3, 5, 5), NULL),
                      1, "groups");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 3 "
                      "kernel_size: 3 group: 2 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL),
                      1, "multiple of group");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 kernel_h: 3 kernel_w: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "not both");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_h: 3 kernel_w: 3 }", ct_test_blobs (ct_test_gaussian (1, 5, 1, 2, 5, 5, 5), NULL),
                      1, "2-D");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 kernel_size: 3 kernel_size: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "once per spatial axis");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "kernel_size");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 stride: 0 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL),
                      1, "stride");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 stride_h: 2 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "stride");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 0 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1,
                      "positive");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 axis: 4 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL),
                      1, "axis");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Deconvolution' convolution_param { num_output: 2 "
                      "kernel_size: 2 pad: 3 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 2, 2), NULL),
                      1, "output would have size");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Convolution' convolution_param { num_output: 2 "
                      "kernel_size: 3 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5),
                                                     ct_test_gaussian (2, 4, 1, 2, 5, 6), NULL),
                      2, "same shape");

  /* A changed input is refused at reshape, naming the layer. */
  {
    g_autoptr (CtLayer) layer = ct_test_layer_from_text (
      "name: 'bad' type: 'Convolution' convolution_param { num_output: 2 kernel_size: 3 }",
      CAFFE__PHASE__TEST);
    g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL);
    g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
    g_autoptr (GError) error = NULL;

    ct_test_setup_ok (layer, bottom, top);
    g_assert_true (ct_blob_reshape_4d (CT_BOTTOM (bottom, 0), 1, 3, 5, 5, NULL));
    g_assert_false (ct_layer_reshape (layer, bottom, top, &error));
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "'bad'"));
    g_assert_nonnull (strstr (error->message, "channels"));
  }
}

/* ---- Im2col ------------------------------------------------------------- */

static void
test_im2col_forward (void)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
    "name: 'i' type: 'Im2col' convolution_param { kernel_size: 3 stride: 2 pad: 1 "
    "dilation: 2 }", CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (61, 4, 2, 3, 6, 5), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  const float *in, *out;
  guint checked = 0;

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  /* (6 + 2 - 5) / 2 + 1 = 2 rows, (5 + 2 - 5) / 2 + 1 = 2 columns. */
  ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 27, 2, 2);
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
  ct_test_check_gradient ("name: 'i' type: 'Im2col' convolution_param { kernel_size: 3 stride: 2 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (62, 4, 2, 3, 6, 5), NULL), 1, -1,
                  1e-2f, 1e-2f);
  ct_test_check_gradient ("name: 'i' type: 'Im2col' convolution_param { kernel_h: 2 kernel_w: 3 "
                  "stride_h: 1 stride_w: 2 pad_h: 1 pad_w: 0 dilation: 2 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (63, 4, 2, 2, 4, 5), NULL), 1, -1,
                  1e-2f, 1e-2f);
  ct_test_check_gradient ("name: 'i' type: 'Im2col' convolution_param { kernel_size: 2 pad: 1 "
                  "stride: 2 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (64, 5, 1, 2, 3, 3, 3), NULL), 1, -1, 1e-2f, 1e-2f);
  ct_test_check_gradient ("name: 'i' type: 'Im2col' convolution_param { kernel_size: 3 pad: 1 "
                  "force_nd_im2col: true }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (65, 4, 1, 2, 3, 3), NULL), 1, -1, 1e-2f, 1e-2f);
}

static void
test_im2col_errors (void)
{
  ct_test_assert_setup_fails ("name: 'bad' type: 'Im2col' convolution_param { kernel_size: 3 "
                      "axis: -1 }", ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1,
                      "spatial axis");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Im2col' convolution_param { kernel_size: 6 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 2, 5, 5), NULL), 1, "larger");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/vision/convolution/by-hand", test_conv_by_hand);
  g_test_add_func ("/engine/layers/vision/convolution/forward-naive", test_conv_forward_naive);
  g_test_add_func ("/engine/layers/vision/convolution/axis", test_conv_axis);
  g_test_add_func ("/engine/layers/vision/convolution/gradient", test_conv_gradient);
  g_test_add_func ("/engine/layers/vision/convolution/param-accumulation", test_conv_param_accumulation);
  g_test_add_func ("/engine/layers/vision/convolution/given-weights", test_conv_given_weights);
  g_test_add_func ("/engine/layers/vision/convolution/errors", test_conv_errors);
  g_test_add_func ("/engine/layers/vision/deconvolution/gradient", test_deconv_gradient);
  g_test_add_func ("/engine/layers/vision/im2col/forward", test_im2col_forward);
  g_test_add_func ("/engine/layers/vision/im2col/gradient", test_im2col_gradient);
  g_test_add_func ("/engine/layers/vision/im2col/errors", test_im2col_errors);
  return g_test_run ();
}
