/* test-explain-layers.c: "where does this value come from" (app/run/explain.h)
 * for LRN (across and within channels), Eltwise (SUM with coefficients,
 * PROD, MAX), BatchNorm (the batch's statistics and stored ones), Scale,
 * Concat, EuclideanLoss and SigmoidCrossEntropyLoss: one small net with
 * random inputs, run forward and backward by the engine; every explained
 * sum, of a value and of every bottom's diff, equals what the engine
 * computed to 1e-5. */
#include <math.h>
#include <string.h>

#include "explain-net.h"
#include "net.h"
#include "text-format.h"

static const char net_text[] =
  "force_backward: true\n"
  "layer { name: 'data' type: 'Input' top: 'data' top: 'target' top: 'labels'\n"
  "  input_param { shape { dim: 2 dim: 4 dim: 5 dim: 5 } shape { dim: 2 dim: 4 dim: 5 dim: 5 }\n"
  "                shape { dim: 2 dim: 12 dim: 5 dim: 5 } } }\n"
  "layer { name: 'lrn_a' type: 'LRN' bottom: 'data' top: 'lrn_a'\n"
  "  lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 k: 2 } }\n"
  "layer { name: 'lrn_w' type: 'LRN' bottom: 'data' top: 'lrn_w'\n"
  "  lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 norm_region: WITHIN_CHANNEL } }\n"
  "layer { name: 'bn' type: 'BatchNorm' bottom: 'data' top: 'bn' }\n"
  "layer { name: 'bn_g' type: 'BatchNorm' bottom: 'data' top: 'bn_g'\n"
  "  batch_norm_param { use_global_stats: true } }\n"
  "layer { name: 'sc' type: 'Scale' bottom: 'bn' top: 'sc'\n"
  "  scale_param { bias_term: true filler { type: 'gaussian' std: 1 }\n"
  "                bias_filler { type: 'gaussian' std: 1 } } }\n"
  "layer { name: 'sum' type: 'Eltwise' bottom: 'lrn_a' bottom: 'lrn_w' top: 'sum'\n"
  "  eltwise_param { operation: SUM coeff: 0.5 coeff: -2 } }\n"
  "layer { name: 'prod' type: 'Eltwise' bottom: 'lrn_a' bottom: 'sc' top: 'prod'\n"
  "  eltwise_param { operation: PROD } }\n"
  "layer { name: 'max' type: 'Eltwise' bottom: 'lrn_w' bottom: 'sc' bottom: 'bn_g' top: 'max'\n"
  "  eltwise_param { operation: MAX } }\n"
  "layer { name: 'cat' type: 'Concat' bottom: 'lrn_a' bottom: 'sc' bottom: 'bn_g' top: 'cat' }\n"
  "layer { name: 'loss_e' type: 'EuclideanLoss' bottom: 'sum' bottom: 'target' top: 'loss_e' }\n"
  "layer { name: 'loss_pm' type: 'EuclideanLoss' bottom: 'prod' bottom: 'max' top: 'loss_pm'\n"
  "  loss_weight: 0.5 }\n"
  "layer { name: 'loss_s' type: 'SigmoidCrossEntropyLoss' bottom: 'cat' bottom: 'labels'\n"
  "  top: 'loss_s' loss_param { ignore_label: -1 } }\n";

static void
fill (CtBlob *blob, GRand *rand, double low, double high, gboolean round)
{
  float *x = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    {
      x[i] = g_rand_double_range (rand, low, high);
      if (round)
        x[i] = floorf (x[i]); /* -1 (ignored), 0 or 1 */
    }
}

/* The net run forward and backward in PHASE on random inputs, bn_g's
 * stored statistics set by hand. */
static CtNet *
run_net (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, net_text, -1,
                                         "layers.prototxt", CT_TEXT_STRICT, &error);
  CtLayer *bn_g;
  CtNet *net;
  float loss, *stats;

  g_assert_no_error (error);
  net = ct_net_new ((Caffe__NetParameter *) msg, CAFFE__PHASE__TRAIN, 0, NULL, 1701, &error);
  protobuf_c_message_free_unpacked (msg, NULL);
  g_assert_no_error (error);
  fill (ct_net_blob_by_name (net, "data"), rand, -2, 2, FALSE);
  fill (ct_net_blob_by_name (net, "target"), rand, -1, 1, FALSE);
  fill (ct_net_blob_by_name (net, "labels"), rand, -1, 2, TRUE);
  bn_g = ct_net_layer_by_name (net, "bn_g");
  for (guint b = 0; b < 3; b++)
    {
      stats = ct_blob_mutable_cpu_data (g_ptr_array_index (bn_g->blobs, b), NULL);
      for (int c = 0; c < (b < 2 ? 4 : 1); c++)
        stats[c] = b == 0 ? 0.2f * c - 0.3f : b == 1 ? 1.5f + c : 2.0f;
    }
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  return net;
}

/* The sum equals the value to 1e-5 (relative beyond 1), the text ends
 * with it, and rule and note are there. */
static void
assert_adds_up (const CtValueExplanation *e)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *end = g_strdup_printf ("= %s", g_ascii_formatd (buf, sizeof buf, "%.4g",
                                                                  e->result));

  if (fabs (e->result - e->value) > 1e-5 * MAX (1, fabs (e->value)))
    g_error ("%s %s: explained %.9g, the blob holds %.9g\n  %s\n  %s", e->layer_name,
             e->diff ? "diff" : "value", e->result, e->value, e->rule, e->sum);
  g_assert_true (g_str_has_suffix (e->sum, end));
  g_assert_nonnull (e->rule);
  g_assert_nonnull (e->note);
}

/* Explain every SAMPLES-th value of SLOT (a top, or with DIFF a bottom) of
 * LAYER; how many were not 0. */
static guint
check_layer (CtNet *net, const char *name, guint slot, gboolean diff, gint64 samples)
{
  CtExplainNetLayer in;
  g_autoptr (GError) error = NULL;
  const CtExplainArray *a;
  guint nonzero = 0;
  gint64 count = 1;

  g_assert_true (ct_explain_net_layer_init (&in, net, ct_net_layer_index (net, name), &error));
  g_assert_no_error (error);
  a = diff ? &in.layer.bottoms[slot] : &in.layer.tops[slot];
  for (guint k = 0; k < a->n_axes; k++)
    count *= a->dims[k];
  for (gint64 i = 0; i < count; i += samples)
    {
      gint64 index[CT_EXPLAIN_MAX_AXES];
      gint64 rest = i;
      g_autoptr (CtValueExplanation) e = NULL;

      for (guint k = a->n_axes; k-- > 0;)
        {
          index[k] = rest % a->dims[k];
          rest /= a->dims[k];
        }
      e = ct_explain_value (&in.layer, slot, index, a->n_axes, diff, &error);
      g_assert_no_error (error);
      if (i == 0)
        g_test_message ("%s %s: %s\n  %s\n  %s", name, diff ? "diff" : "value", e->rule,
                        e->sum, e->note);
      g_assert_cmpuint (e->blob_index, ==, slot);
      assert_adds_up (e);
      nonzero += e->value != 0;
    }
  ct_explain_net_layer_clear (&in);
  return nonzero;
}

static void
test_lrn (void)
{
  g_autoptr (CtNet) net = run_net ();

  g_assert_cmpuint (check_layer (net, "lrn_a", 0, FALSE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "lrn_w", 0, FALSE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "lrn_a", 0, TRUE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "lrn_w", 0, TRUE, 1), >, 100);
}

static void
test_eltwise (void)
{
  g_autoptr (CtNet) net = run_net ();

  for (const char *const *name = (const char *const[]) { "sum", "prod", "max", NULL }; *name;
       name++)
    {
      CtLayer *layer = ct_net_layer_by_name (net, *name);

      g_assert_cmpuint (check_layer (net, *name, 0, FALSE, 1), >, 100);
      for (guint b = 0; b < layer->param->n_bottom; b++)
        g_assert_cmpuint (check_layer (net, *name, b, TRUE, 1), >, 10);
    }
}

/* MAX's winners are spread over its three bottoms, each getting diffs
 * where it won. */
static void
test_eltwise_max_winners (void)
{
  g_autoptr (CtNet) net = run_net ();
  CtExplainNetLayer in;
  g_autoptr (GError) error = NULL;
  guint won[3] = { 0 };

  g_assert_true (ct_explain_net_layer_init (&in, net, ct_net_layer_index (net, "max"), &error));
  for (gint64 i = 0; i < 200; i++)
    {
      const gint64 at[4] = { i / 100, i / 25 % 4, i / 5 % 5, i % 5 };
      g_autoptr (CtValueExplanation) e = ct_explain_value (&in.layer, 0, at, 4, FALSE, &error);

      g_assert_no_error (error);
      g_assert_true (g_str_has_prefix (e->sum, "max("));
      for (guint b = 0; b < 3; b++)
        won[b] += g_array_index (e->terms, CtExplainTerm, b).factor == 1;
    }
  ct_explain_net_layer_clear (&in);
  g_assert_cmpuint (won[0] + won[1] + won[2], ==, 200);
  for (guint b = 0; b < 3; b++)
    g_assert_cmpuint (won[b], >, 10);
}

static void
test_batch_norm (void)
{
  g_autoptr (CtNet) net = run_net ();

  g_assert_cmpuint (check_layer (net, "bn", 0, FALSE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "bn", 0, TRUE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "bn_g", 0, FALSE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "bn_g", 0, TRUE, 1), >, 10);
}

static void
test_scale_concat (void)
{
  g_autoptr (CtNet) net = run_net ();

  g_assert_cmpuint (check_layer (net, "sc", 0, FALSE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "sc", 0, TRUE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "cat", 0, FALSE, 1), >, 300);
  for (guint b = 0; b < 3; b++)
    g_assert_cmpuint (check_layer (net, "cat", b, TRUE, 1), >, 50);
}

static void
test_losses (void)
{
  g_autoptr (CtNet) net = run_net ();
  guint ignored = 0;
  const float *labels = ct_blob_cpu_data (ct_net_blob_by_name (net, "labels"), NULL);

  g_assert_cmpuint (check_layer (net, "loss_e", 0, FALSE, 1), ==, 1);
  g_assert_cmpuint (check_layer (net, "loss_pm", 0, FALSE, 1), ==, 1);
  g_assert_cmpuint (check_layer (net, "loss_s", 0, FALSE, 1), ==, 1);
  g_assert_cmpuint (check_layer (net, "loss_e", 0, TRUE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "loss_pm", 0, TRUE, 1), >, 100);
  g_assert_cmpuint (check_layer (net, "loss_pm", 1, TRUE, 1), >, 100);
  /* the ignored targets (-1) give a diff of 0, and the explanation says so */
  for (gint64 i = 0; i < 600; i++)
    ignored += labels[i] == -1;
  g_assert_cmpuint (ignored, >, 50);
  g_assert_cmpuint (check_layer (net, "loss_s", 0, TRUE, 1), <=, 600 - ignored);
}

/* A layer type with no explanation yet says so. */
static void
test_not_explained (void)
{
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  const gint64 dims[1] = { 2 };
  const float x[2] = { 1, 2 };
  CtExplainArray blob = { "x", 1, dims, x, NULL };
  CtExplainLayer layer = { &param, 1, 1, 0, &blob, &blob, NULL, 0, 0, NULL, 0 };
  g_autoptr (GError) error = NULL;
  const gint64 at[1] = { 0 };

  param.name = (char *) "mvn";
  param.type = (char *) "MVN";
  g_assert_null (ct_explain_value (&layer, 0, at, 1, FALSE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run/explain-layers/lrn", test_lrn);
  g_test_add_func ("/run/explain-layers/eltwise", test_eltwise);
  g_test_add_func ("/run/explain-layers/eltwise-max-winners", test_eltwise_max_winners);
  g_test_add_func ("/run/explain-layers/batch-norm", test_batch_norm);
  g_test_add_func ("/run/explain-layers/scale-concat", test_scale_concat);
  g_test_add_func ("/run/explain-layers/losses", test_losses);
  g_test_add_func ("/run/explain-layers/not-explained", test_not_explained);
  return g_test_run ();
}
