/* test-layers-vision.c: the Vision family in the catalogue, Crop and LRN
 * (forward values against naive loops, gradient checks, setup errors), and
 * layer_zoo's vision layers against real Caffe's dump (skipped when the
 * dump is absent). */
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
      g_assert_nonnull (k->backward);
      g_assert_cmpstr (ct_layer_class_describe (k), !=, "");
    }
  for (guint i = 0; i < all->len; i++)
    if (((const CtLayerClass *) g_ptr_array_index (all, i))->family == CT_LAYER_FAMILY_VISION)
      vision++;
  g_assert_cmpuint (vision, ==, G_N_ELEMENTS (types));
}

/* ---- Crop --------------------------------------------------------------- */

static void
test_crop_forward (void)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (
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
  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 3, 2, 3);
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
  g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
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
  ct_test_check_gradient ("name: 'c' type: 'Crop' crop_param { axis: 2 offset: 1 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (71, 4, 2, 3, 5, 4),
                                                 ct_test_gaussian (72, 4, 2, 3, 3, 2), NULL),
                  1, 0, 1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 'c' type: 'Crop' crop_param { axis: 1 offset: 1 offset: 0 "
                  "offset: 2 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (73, 4, 2, 4, 3, 5), ct_test_gaussian (74, 4, 2, 2, 3, 2), NULL),
                  1, 0, 1e-2f, 1e-3f);
  ct_test_check_gradient ("name: 'c' type: 'Crop' crop_param { axis: 0 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (75, 3, 3, 4, 5), ct_test_gaussian (76, 3, 2, 4, 3), NULL),
                  1, 0, 1e-2f, 1e-3f);
}

static void
test_crop_errors (void)
{
  ct_test_assert_setup_fails ("name: 'bad' type: 'Crop' crop_param { axis: 2 offset: 3 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 5), ct_test_gaussian (2, 4, 1, 1, 3, 3), NULL),
                      1, "out of bounds");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Crop' crop_param { axis: 1 offset: 1 offset: 1 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 5), ct_test_gaussian (2, 4, 1, 1, 3, 3), NULL),
                      1, "offsets");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Crop' crop_param { axis: 5 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 1, 5, 5), ct_test_gaussian (2, 4, 1, 1, 3, 3), NULL),
                      1, "axis");
  ct_test_assert_setup_fails ("name: 'bad' type: 'Crop'",
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
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_gaussian (81, 4, 2, 7, 3, 4), NULL);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (1);
  float expected[168];

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  ct_test_assert_shape (CT_TOP (top, 0), 4, 2, 7, 3, 4);
  naive_lrn (ct_blob_cpu_data (CT_BOTTOM (bottom, 0), NULL), 2, 7, 3, 4, size, alpha, beta, k,
             within, expected);
  ct_test_assert_close (ct_blob_cpu_data (CT_TOP (top, 0), NULL), expected, 168, 1e-5);
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
  ct_test_check_gradient ("name: 'l' type: 'LRN'", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (82, 4, 2, 7, 3, 3), NULL), 1, -1, 1e-2f, 1e-2f);
  ct_test_check_gradient ("name: 'l' type: 'LRN' lrn_param { local_size: 3 alpha: 0.5 beta: 1.5 k: 2 }",
                  CAFFE__PHASE__TEST, ct_test_blobs (ct_test_gaussian (83, 4, 2, 4, 2, 3), NULL), 1, -1,
                  1e-2f, 1e-2f);
  ct_test_check_gradient ("name: 'l' type: 'LRN' lrn_param { norm_region: WITHIN_CHANNEL "
                  "local_size: 3 alpha: 0.1 beta: 0.75 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (84, 4, 2, 2, 4, 5), NULL), 1, -1, 1e-2f, 1e-2f);
  ct_test_check_gradient ("name: 'l' type: 'LRN' lrn_param { norm_region: WITHIN_CHANNEL "
                  "local_size: 5 alpha: 2 beta: 0.5 }", CAFFE__PHASE__TEST,
                  ct_test_blobs (ct_test_gaussian (85, 4, 1, 2, 5, 4), NULL), 1, -1, 1e-2f, 1e-2f);
}

static void
test_lrn_errors (void)
{
  ct_test_assert_setup_fails ("name: 'bad' type: 'LRN' lrn_param { local_size: 4 }",
                      ct_test_blobs (ct_test_gaussian (1, 4, 1, 5, 3, 3), NULL), 1, "odd");
  ct_test_assert_setup_fails ("name: 'bad' type: 'LRN'", ct_test_blobs (ct_test_gaussian (1, 2, 5, 3), NULL), 1,
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
  g_autoptr (CtLayer) layer = ct_test_layer_from_param (find_layer (net, zc->layer), CAFFE__PHASE__TEST);
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

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
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
  g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
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
  g_test_add_func ("/engine/layers/vision/catalogue", test_catalogue);
  g_test_add_func ("/engine/layers/vision/crop/forward", test_crop_forward);
  g_test_add_func ("/engine/layers/vision/crop/gradient", test_crop_gradient);
  g_test_add_func ("/engine/layers/vision/crop/errors", test_crop_errors);
  g_test_add_func ("/engine/layers/vision/lrn/forward", test_lrn_forward);
  g_test_add_func ("/engine/layers/vision/lrn/gradient", test_lrn_gradient);
  g_test_add_func ("/engine/layers/vision/lrn/errors", test_lrn_errors);
  g_test_add_func ("/engine/layers/vision/reference", test_reference);
  return g_test_run ();
}
