/* test-conformance.c: Cortado against real BVLC Caffe (suite
 * 'conformance'). Each reference dump in tests/data/reference was made by
 * Caffe from a net, its weights and inputs filled by a fixed rule, after one
 * forward and one backward; here the same net is built, loaded, filled and
 * run, and EVERY record (net blobs' data and diff, then each layer's
 * parameter data and diff) must match to ||ours - ref|| / ||ref|| <= 1e-4,
 * as must the total loss. The four Fashion-MNIST test images must get the
 * labels Caffe gave them. */
#include <math.h>
#include <string.h>

#include "engine-error.h"
#include "net-dump.h"
#include "net.h"
#include "proto-file.h"
#include "reference-dump.h"

#define TOLERANCE 1e-4

static char *
data_path (const char *name)
{
  const char *root = g_getenv ("CT_TEST_DATA");

  g_assert_nonnull (root);
  return g_build_filename (root, "reference", name, NULL);
}

/* Build NET_FILE in TEST with seed 1701, load WEIGHTS_FILE, apply the
 * BatchNorm rule. Fails the test if anything goes wrong. */
static CtNet *
build_reference_net (const char *net_file, const char *weights_file)
{
  g_autofree char *net_path = data_path (net_file);
  g_autofree char *weights_path = data_path (weights_file);
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *param = ct_net_load_text_file (net_path, CT_TEXT_STRICT, NULL, &error);
  CtNet *net;

  g_assert_no_error (error);
  net = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 1701, &error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  if (net == NULL)
    g_test_message ("building %s: %s", net_file, error->message);
  g_assert_no_error (error);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, weights_path, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_apply_reference_batch_norm (net, &error));
  g_assert_no_error (error);
  return net;
}

typedef struct {
  guint n_records;
  guint n_bad;
  double worst;
  char *worst_name;
} Comparison;

static void
compare_record (Comparison *cmp, const CtTestDumpRecord *r, CtBlob *blob, const char *label)
{
  double data_err, diff_err;

  cmp->n_records++;
  if (!ct_test_dump_record_fits (r, blob))
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_test_message ("%-36s shape differs: ours %s, %u axes in the reference", label, shape,
                      r->n_axes);
      cmp->n_bad++;
      return;
    }
  data_err = ct_test_relative_error (ct_blob_cpu_data (blob, NULL), r->data, r->count);
  diff_err = ct_test_relative_error (ct_blob_cpu_diff (blob, NULL), r->diff, r->count);
  g_test_message ("%-36s data %.3e  diff %.3e%s", label, data_err, diff_err,
                  data_err > TOLERANCE || diff_err > TOLERANCE || isnan (data_err) ||
                  isnan (diff_err) ? "  <-- FAIL" : "");
  if (!(data_err <= TOLERANCE && diff_err <= TOLERANCE))
    cmp->n_bad++;
  if (isnan (data_err) || isnan (diff_err) || MAX (data_err, diff_err) > cmp->worst)
    {
      cmp->worst = isnan (data_err) || isnan (diff_err) ? INFINITY : MAX (data_err, diff_err);
      g_free (cmp->worst_name);
      cmp->worst_name = g_strdup (label);
    }
}

/* Compare every record of DUMP with NET, in the dump's order, which must
 * be the net's blob order and then its layers' parameters. */
static void
compare_with_dump (CtNet *net, const CtTestDump *dump, float loss)
{
  Comparison cmp = { 0 };
  guint expected_records = ct_net_n_blobs (net);
  double loss_err;

  for (guint i = 0; i < ct_net_n_layers (net); i++)
    expected_records += ct_net_get_layer (net, i)->blobs->len;
  g_test_message ("%u records in the dump, %u in the net", dump->records->len, expected_records);

  for (guint i = 0; i < dump->records->len; i++)
    {
      const CtTestDumpRecord *r = dump->records->pdata[i];
      g_autofree char *label = r->kind == 0 ? g_strdup_printf ("blob %s", r->name)
                                            : g_strdup_printf ("param %s[%d]", r->name, r->index);
      CtBlob *blob = ct_test_dump_net_blob (net, r);

      if (blob == NULL)
        {
          g_test_message ("%-36s not in the net", label);
          cmp.n_records++;
          cmp.n_bad++;
          continue;
        }
      compare_record (&cmp, r, blob, label);
    }

  loss_err = fabs ((double) loss - (double) dump->loss) / fabs ((double) dump->loss);
  g_test_message ("loss: ours %.9g, Caffe %.9g, relative error %.3e", loss, dump->loss,
                  loss_err);
  g_test_message ("%u records compared, %u beyond %.0e; worst %.3e (%s)", cmp.n_records,
                  cmp.n_bad, TOLERANCE, cmp.worst, cmp.worst_name ? cmp.worst_name : "-");
  g_free (cmp.worst_name);

  g_assert_cmpuint (cmp.n_records, ==, dump->records->len);
  g_assert_cmpuint (dump->records->len, ==, expected_records);
  g_assert_cmpuint (cmp.n_bad, ==, 0);
  g_assert_cmpfloat (loss_err, <=, TOLERANCE);
}

static void
run_dump_case (const char *net_file, const char *weights_file, const char *dump_file,
               guint expected_records)
{
  g_autoptr (CtTestDump) dump = ct_test_dump_load (dump_file);
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GError) error = NULL;
  float loss = 0.0f;

  g_assert_nonnull (dump);
  g_assert_cmpuint (dump->records->len, ==, expected_records);
  net = build_reference_net (net_file, weights_file);
  g_assert_true (ct_net_fill_reference_inputs (net, &error));
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  compare_with_dump (net, dump, loss);
}

static void
test_layer_zoo (void)
{
  run_dump_case ("layer_zoo.prototxt", "layer_zoo_seed1701_init.caffemodel",
                 "layer_zoo_seed1701.bin", 82);
}

static void
test_lenet_sine (void)
{
  run_dump_case ("lenet_fashion_deploy_loss.prototxt", "fashion_lenet_iter_10000.caffemodel",
                 "lenet_fashion_sin.bin", 17);
}

static void
load_floats (const char *name, CtBlob *blob)
{
  g_autofree char *path = data_path (name);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  gsize length = 0;
  float *data;

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (length, ==, (gsize) ct_blob_count (blob) * sizeof (float));
  data = ct_blob_mutable_cpu_data (blob, NULL);
  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    {
      guint32 bits;
      memcpy (&bits, contents + i * 4, 4);
      bits = GUINT32_FROM_LE (bits);
      memcpy (&data[i], &bits, 4);
    }
}

static void
test_fashion_four (void)
{
  g_autoptr (CtNet) net = build_reference_net ("lenet_fashion_deploy_loss.prototxt",
                                               "fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GError) error = NULL;
  const int expected[4] = { 9, 2, 1, 1 };
  const double caffe_loss = 0.000386473606;
  CtBlob *scores;
  const float *s;
  float loss = 0.0f;
  double loss_err;

  load_floats ("fashion_test4_data.f32", ct_net_blob_by_name (net, "data"));
  load_floats ("fashion_test4_label.f32", ct_net_blob_by_name (net, "label"));
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);

  scores = ct_net_blob_by_name (net, "ip2");
  g_assert_nonnull (scores);
  g_assert_cmpint (ct_blob_count (scores), ==, 40);
  s = ct_blob_cpu_data (scores, NULL);
  for (int n = 0; n < 4; n++)
    {
      int best = 0;

      for (int c = 1; c < 10; c++)
        if (s[n * 10 + c] > s[n * 10 + best])
          best = c;
      g_test_message ("image %d: label %d (Caffe's: %d)", n, best, expected[n]);
      g_assert_cmpint (best, ==, expected[n]);
    }
  /* The loss is tiny (-log p with p near 1), where float32 keeps about
   * four significant digits. */
  loss_err = fabs ((double) loss - caffe_loss) / caffe_loss;
  g_test_message ("loss: ours %.9g, Caffe %.9g, relative error %.3e", loss, caffe_loss,
                  loss_err);
  g_assert_cmpfloat (loss_err, <=, 1e-3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/conformance/layer-zoo", test_layer_zoo);
  g_test_add_func ("/engine/conformance/lenet-sine", test_lenet_sine);
  g_test_add_func ("/engine/conformance/fashion-four", test_fashion_four);
  return g_test_run ();
}
