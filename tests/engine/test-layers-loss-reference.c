/* test-layers-loss-reference.c: the loss layers of real Caffe's reference
 * dumps (layer_zoo's loss_cls and loss_reg, LeNet's loss) against ours. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "binary-io.h"
#include "blas.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "loss-test-util.h"

/* ---- real Caffe ---- */

static void
compare (const char *what, const float *ours, const float *ref, gint64 n)
{
  double err = ct_test_relative_error (ours, ref, n);

  g_test_message ("%s: relative error %.3g over %" G_GINT64_FORMAT " values", what, err, n);
  g_assert_cmpfloat (err, <=, 1e-4);
}

/* One loss layer of a dump: its bottoms' data in, its loss and the bottoms'
 * diffs compared with Caffe's (LOSS_WEIGHT as in the prototxt). */
static void
check_dump_loss (const char *file, const char *type, const char *loss_top,
                 const char *first, const char *second, float loss_weight,
                 gboolean second_has_gradient, float want_total)
{
  g_autoptr (CtTestDump) dump = ct_test_dump_load (file);
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  const CtTestDumpRecord *a, *b, *loss;
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (GPtrArray) bottom = NULL;
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down[2] = { TRUE, second_has_gradient };
  float weighted = 0.0f;

  if (dump == NULL)
    {
      g_test_skip ("reference dump not found");
      return;
    }
  if (want_total != 0.0f)
    ct_test_assert_close (dump->loss, want_total, 1e-6);
  a = ct_test_dump_find (dump, 0, first, 0);
  b = ct_test_dump_find (dump, 0, second, 0);
  loss = ct_test_dump_find (dump, 0, loss_top, 0);
  bottom = ct_test_blobs (ct_test_dump_blob (a), ct_test_dump_blob (b), NULL);
  /* The dump's diffs are what backward must produce: start from NaN. */
  for (guint i = 0; i < 2; i++)
    ct_cpu_set (ct_blob_count (CT_BOTTOM (bottom, i)), NAN,
                ct_blob_mutable_cpu_diff (CT_BOTTOM (bottom, i), NULL));
  if (loss_weight != 1.0f)
    {
      param.n_loss_weight = 1;
      param.loss_weight = &loss_weight;
    }
  layer = ct_test_make_layer (type, &param);
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);
  /* The diff of the loss top holds the loss weight, as Caffe's does. */
  compare ("loss top diff", ct_blob_cpu_diff (CT_TOP (top, 0), NULL), loss->diff, 1);
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), &weighted, &error));
  g_assert_no_error (error);
  compare (loss_top, ct_blob_cpu_data (CT_TOP (top, 0), NULL), loss->data, 1);
  ct_test_assert_close (weighted, loss_weight * loss->data[0], 1e-5);
  g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
  g_assert_no_error (error);
  compare (first, ct_blob_cpu_diff (CT_BOTTOM (bottom, 0), NULL), a->diff, a->count);
  if (second_has_gradient)
    compare (second, ct_blob_cpu_diff (CT_BOTTOM (bottom, 1), NULL), b->diff, b->count);
}

static void
test_reference_layer_zoo (void)
{
  check_dump_loss ("layer_zoo_seed1701.bin", "SoftmaxWithLoss", "loss_cls", "ip2", "label",
                   1.0f, FALSE, 4.54867125f);
  check_dump_loss ("layer_zoo_seed1701.bin", "EuclideanLoss", "loss_reg", "ip3", "target",
                   0.5f, TRUE, 4.54867125f);
}

static void
test_reference_lenet (void)
{
  check_dump_loss ("lenet_fashion_sin.bin", "SoftmaxWithLoss", "loss", "ip2", "label",
                   1.0f, FALSE, 17.9418221f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/loss/reference/layer-zoo", test_reference_layer_zoo);
  g_test_add_func ("/engine/layers/loss/reference/lenet", test_reference_lenet);
  return g_test_run ();
}
