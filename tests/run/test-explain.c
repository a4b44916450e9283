/* test-explain.c: "where does this value come from" (app/run/explain.h) on
 * the LeNet example with its trained weights and four Fashion-MNIST test
 * images: every explained sum equals the value the engine computed, data
 * and diff, for convolution, pooling, inner product, ReLU, the softmax
 * loss, and a softmax given by hand. */
#include <math.h>
#include <string.h>

#include "explain-net.h"
#include "net.h"
#include "proto-file.h"

static char *
data_path (const char *name)
{
  const char *root = g_getenv ("CT_TEST_DATA");

  g_assert_nonnull (root);
  return g_build_filename (root, "reference", name, NULL);
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

/* The example net, its weights and inputs loaded, not yet run. */
static CtNet *
lenet (void)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *param = ct_net_load_text_file (net_path, CT_TEXT_STRICT, NULL, &error);
  CtNet *net;

  g_assert_no_error (error);
  net = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 1701, &error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_no_error (error);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, weights, &error));
  load_floats ("fashion_test4_data.f32", ct_net_blob_by_name (net, "data"));
  load_floats ("fashion_test4_label.f32", ct_net_blob_by_name (net, "label"));
  return net;
}

static CtNet *
lenet_run (gboolean backward)
{
  CtNet *net = lenet ();
  g_autoptr (GError) error = NULL;
  float loss;

  g_assert_true (ct_net_forward (net, &loss, &error));
  if (backward)
    g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  return net;
}

static CtValueExplanation *
explain (CtNet *net, const char *layer_name, const gint64 *index, guint n_axes, gboolean diff)
{
  CtExplainNetLayer in;
  g_autoptr (GError) error = NULL;
  CtValueExplanation *e;

  g_assert_true (ct_explain_net_layer_init (&in, net, ct_net_layer_index (net, layer_name),
                                            &error));
  e = ct_explain_value (&in.layer, 0, index, n_axes, diff, &error);
  g_assert_no_error (error);
  ct_explain_net_layer_clear (&in);
  g_test_message ("%s: %s\n  %s\n  %s", layer_name, e->rule, e->sum, e->note);
  return e;
}

/* The sum equals the value, and the text ends with it. */
static void
assert_adds_up (const CtValueExplanation *e, double tolerance)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *end = g_strdup_printf ("= %s", g_ascii_formatd (buf, sizeof buf, "%.4g",
                                                                  e->result));

  g_assert_cmpfloat_with_epsilon (e->result, e->value, tolerance);
  g_assert_true (g_str_has_suffix (e->sum, end));
  g_assert_nonnull (e->rule);
  g_assert_nonnull (e->note);
}

static void
test_convolution (void)
{
  g_autoptr (CtNet) net = lenet_run (FALSE);
  const gint64 at[4] = { 0, 3, 10, 10 };
  g_autoptr (CtValueExplanation) e = explain (net, "conv1", at, 4, FALSE);
  const float *w = ct_blob_cpu_data (g_ptr_array_index (ct_net_layer_by_name (net, "conv1")->blobs, 0), NULL);

  assert_adds_up (e, 1e-5);
  g_assert_cmpfloat (fabs (e->value), >, 1e-3); /* a value worth explaining */
  /* 1 channel × 5 × 5: every term written out, the window's pixels times
   * filter 3's weights, plus its bias */
  g_assert_cmpuint (e->terms->len, ==, 25);
  g_assert_cmpstr (g_array_index (e->terms, CtExplainTerm, 0).label, ==, "data[0, 0, 10, 10]");
  g_assert_cmpstr (g_array_index (e->terms, CtExplainTerm, 24).factor_label, ==,
                   "W[3, 0, 4, 4]");
  g_assert_cmpfloat (g_array_index (e->terms, CtExplainTerm, 7).factor, ==, w[3 * 25 + 7]);
  g_assert_true (e->has_bias);
  g_assert_cmpint (e->filter, ==, 3);
  g_assert_true (e->has_window);
  g_assert_cmpint (e->window.h_begin, ==, 10);
  g_assert_cmpint (e->window.h_end, ==, 15);
  g_assert_cmpint (e->window.w_begin, ==, 10);
  g_assert_cmpint (e->window.w_end, ==, 15);
  g_assert_true (e->has_input_window);
  g_assert_cmpstr (e->input_blob, ==, "data");
  g_assert_cmpint (e->input_window.h_begin, ==, 10);
  g_assert_cmpint (e->input_window.w_end, ==, 15);
}

static void
test_pooling (void)
{
  g_autoptr (CtNet) net = lenet_run (FALSE);
  const gint64 at[4] = { 1, 7, 5, 6 };
  g_autoptr (CtValueExplanation) e = explain (net, "pool1", at, 4, FALSE);
  const gint64 at2[4] = { 2, 11, 2, 3 };
  g_autoptr (CtValueExplanation) e2 = explain (net, "pool2", at2, 4, FALSE);
  guint winners = 0;

  assert_adds_up (e, 1e-9);
  g_assert_cmpuint (e->terms->len, ==, 4);
  for (guint i = 0; i < e->terms->len; i++)
    {
      const CtExplainTerm *t = &g_array_index (e->terms, CtExplainTerm, i);

      g_assert_cmpfloat (t->input, <=, e->value);
      winners += t->factor == 1;
    }
  g_assert_cmpuint (winners, ==, 1);
  g_assert_true (g_str_has_prefix (e->sum, "max("));
  /* 2 × 2 of conv1's rows 10, 11 and columns 12, 13, traced to the
   * 6 × 6 pixels of data that conv1 read for them */
  g_assert_cmpint (e->window.h_begin, ==, 10);
  g_assert_cmpint (e->window.w_end, ==, 14);
  g_assert_cmpstr (e->input_blob, ==, "data");
  g_assert_cmpint (e->input_window.h_begin, ==, 10);
  g_assert_cmpint (e->input_window.h_end, ==, 16);
  g_assert_cmpint (e->input_window.w_begin, ==, 12);
  g_assert_cmpint (e->input_window.w_end, ==, 18);
  assert_adds_up (e2, 1e-9);
  /* pool2 → conv2 (5 × 5) → pool1 (2 × 2) → conv1 (5 × 5): 16 pixels */
  g_assert_cmpint (e2->input_window.h_end - e2->input_window.h_begin, ==, 16);
}

static void
test_inner_product (void)
{
  g_autoptr (CtNet) net = lenet_run (FALSE);
  const gint64 at[2] = { 0, 9 };
  g_autoptr (CtValueExplanation) e = explain (net, "ip2", at, 2, FALSE);
  const gint64 at1[2] = { 3, 17 };
  g_autoptr (CtValueExplanation) e1 = NULL;

  assert_adds_up (e, 1e-4 * MAX (1, fabs (e->value)));
  g_assert_cmpuint (e->terms->len, ==, 500);
  /* the largest contributions first, then the rest in one number */
  g_assert_nonnull (strstr (e->sum, "490"));
  /* ip1 reads pool2's 50 × 4 × 4 as 800 inputs */
  e1 = explain (ct_net_get_layer (net, 0) != NULL ? net : NULL, "ip1", at1, 2, FALSE);
  g_assert_cmpuint (e1->terms->len, ==, 800);
  /* relu1 overwrote ip1 in place: the sum is ip1's output before it */
  g_assert_cmpfloat_with_epsilon (MAX (e1->result, 0), e1->value, 1e-4);
}

/* ReLU's input is ip1 before relu1 ran in place: run up to ip1, keep a
 * copy, run relu1. */
static void
test_relu (void)
{
  g_autoptr (CtNet) net = lenet ();
  g_autoptr (GError) error = NULL;
  int ip1 = ct_net_layer_index (net, "ip1"), relu1 = ct_net_layer_index (net, "relu1");
  CtBlob *blob = ct_net_blob_by_name (net, "ip1");
  g_autofree float *before = NULL;
  CtExplainNetLayer in;
  guint positive = 0, cut = 0;

  g_assert_true (ct_net_forward_from_to (net, 0, ip1, NULL, &error));
  before = g_memdup2 (ct_blob_cpu_data (blob, NULL), ct_blob_count (blob) * sizeof (float));
  g_assert_true (ct_net_forward_from_to (net, relu1, relu1, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ct_explain_net_layer_init (&in, net, relu1, &error));
  ((CtExplainArray *) in.layer.bottoms)->data = before;
  for (gint64 j = 0; j < 500; j++)
    {
      const gint64 at[2] = { 2, j };
      g_autoptr (CtValueExplanation) e = ct_explain_value (&in.layer, 0, at, 2, FALSE, &error);

      g_assert_no_error (error);
      assert_adds_up (e, 1e-9);
      g_assert_cmpfloat (e->terms->len, ==, 1);
      if (before[2 * 500 + j] > 0)
        positive++;
      else
        {
          cut++;
          g_assert_cmpfloat (e->value, ==, 0);
        }
    }
  g_assert_cmpuint (positive, >, 0);
  g_assert_cmpuint (cut, >, 0);
  ct_explain_net_layer_clear (&in);
}

static void
test_loss (void)
{
  g_autoptr (CtNet) net = lenet_run (TRUE);
  const gint64 none[1] = { 0 };
  CtBlob *loss = ct_net_blob_by_name (net, "loss");
  g_autoptr (CtValueExplanation) e = explain (net, "loss", none, ct_blob_num_axes (loss), FALSE);

  g_assert_cmpuint (e->terms->len, ==, 4); /* one −log p per image */
  g_assert_cmpfloat_with_epsilon (e->result, e->value, 1e-5 + 1e-4 * fabs (e->value));
  for (gint64 c = 0; c < 10; c++)
    {
      const gint64 at[2] = { 1, c };
      g_autoptr (CtValueExplanation) d = explain (net, "loss", at, 2, TRUE);

      /* p − 1 or p, over the batch of 4 */
      g_assert_cmpfloat_with_epsilon (d->result, d->value, 1e-6);
    }
}

/* Every diff the chain rule gives, against the engine's backward. */
static void
test_diffs (void)
{
  g_autoptr (CtNet) net = lenet_run (TRUE);
  const float *ip1 = ct_blob_cpu_data (ct_net_blob_by_name (net, "ip1"), NULL);
  struct { const char *layer; gint64 at[4]; guint n; } cases[] = {
    { "conv1", { 0, 0, 12, 12 }, 4 },
    { "conv1", { 3, 0, 0, 27 }, 4 },
    { "conv2", { 1, 5, 6, 7 }, 4 },
    { "pool1", { 0, 3, 10, 10 }, 4 },
    { "pool1", { 0, 3, 10, 11 }, 4 },
    { "pool2", { 2, 30, 5, 5 }, 4 },
    { "ip1", { 0, 20, 1, 2 }, 4 },
    { "ip2", { 1, 0 }, 2 },
  };
  guint nonzero = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (CtValueExplanation) e = explain (net, cases[i].layer, cases[i].at,
                                                  cases[i].n, TRUE);

      g_assert_true (e->diff);
      g_assert_cmpfloat_with_epsilon (e->result, e->value, 1e-6 + 1e-4 * fabs (e->value));
      nonzero += e->value != 0;
    }
  g_assert_cmpuint (nonzero, >=, 4);
  /* ip2's diff into ip1 is ip1's where relu1 passes it (in place, relu1's
   * backward then wrote ip1's diff) */
  for (gint64 j = 0; j < 500; j++)
    if (ip1[j] > 0)
      {
        const gint64 at[2] = { 0, j };
        g_autoptr (CtValueExplanation) e = explain (net, "ip2", at, 2, TRUE);
        g_autoptr (CtValueExplanation) r = explain (net, "relu1", at, 2, TRUE);

        g_assert_cmpfloat_with_epsilon (e->result, e->value, 1e-6 + 1e-4 * fabs (e->value));
        g_assert_cmpfloat_with_epsilon (r->result, r->value, 1e-7);
        break;
      }
}

/* Softmax given by hand: scores 1, 2, 3. */
static void
test_softmax (void)
{
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  const gint64 dims[2] = { 1, 3 };
  const float x[3] = { 1, 2, 3 };
  float y[3], dy[3] = { 0.5f, -1, 0.25f }, dx[3];
  double s = exp (1) + exp (2) + exp (3), dot = 0;
  CtExplainArray bottom = { "score", 2, dims, x, dx }, top = { "prob", 2, dims, y, dy };
  CtExplainLayer layer = { &param, 1, 1, 0, &bottom, &top, NULL, 0, 0, NULL };
  g_autoptr (GError) error = NULL;

  param.name = (char *) "prob";
  param.type = (char *) "Softmax";
  for (int i = 0; i < 3; i++)
    {
      y[i] = exp (x[i]) / s;
      dot += dy[i] * y[i];
    }
  for (int i = 0; i < 3; i++)
    dx[i] = y[i] * (dy[i] - dot);
  for (gint64 c = 0; c < 3; c++)
    {
      const gint64 at[2] = { 0, c };
      g_autoptr (CtValueExplanation) e = ct_explain_value (&layer, 0, at, 2, FALSE, &error);
      g_autoptr (CtValueExplanation) d = ct_explain_value (&layer, 0, at, 2, TRUE, &error);

      g_assert_no_error (error);
      assert_adds_up (e, 1e-6);
      assert_adds_up (d, 1e-6);
    }
  {
    const gint64 outside[2] = { 0, 3 };
    CtValueExplanation *e = ct_explain_value (&layer, 0, outside, 2, FALSE, &error);

    g_assert_null (e);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
    param.type = (char *) "MVN";
    e = ct_explain_value (&layer, 0, dims, 2, FALSE, &error);
    g_assert_null (e);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/explain/convolution", test_convolution);
  g_test_add_func ("/run/explain/pooling", test_pooling);
  g_test_add_func ("/run/explain/inner-product", test_inner_product);
  g_test_add_func ("/run/explain/relu", test_relu);
  g_test_add_func ("/run/explain/loss", test_loss);
  g_test_add_func ("/run/explain/diffs", test_diffs);
  g_test_add_func ("/run/explain/softmax", test_softmax);
  return g_test_run ();
}
