/* test-layers-rnn.c: RNN and LSTM, the recurrent layers Caffe computes by
 * an unrolled inner net: parameter shapes and order, finite-difference
 * gradients of the input, the static input and every parameter (with and
 * without sequence restarts), the hidden state carried from one forward to
 * the next (a sequence fed one timestep at a time gives what the whole
 * sequence gives), exposed hidden state, errors, and the layer inside a
 * net with weights saved and loaded. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "net.h"
#include "text-format.h"

#define T_STEPS 3
#define N_STREAMS 2
#define N_OUT 4

static CtLayer *
recurrent_layer (const char *type, const char *extra)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = g_strdup_printf (
    "name: 'rec' type: '%s' recurrent_param { num_output: %d "
    "weight_filler { type: 'gaussian' std: 0.2 } "
    "bias_filler { type: 'gaussian' std: 0.1 } %s }", type, N_OUT, extra);
  Caffe__LayerParameter *param = (Caffe__LayerParameter *) ct_text_parse (
    &caffe__layer_parameter__descriptor, text, -1, "test", CT_TEXT_STRICT, &error);
  const CtLayerClass *klass = ct_layer_catalogue_lookup (type);
  CtLayer *layer;

  g_assert_no_error (error);
  g_assert_nonnull (klass);
  g_assert_cmpint (klass->family, ==, CT_LAYER_FAMILY_RECURRENT);
  layer = ct_layer_new (klass, param, CAFFE__PHASE__TRAIN);
  layer->seed = 1701;
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return layer;
}

/* x: T x N x 3 x 2; cont: T x N, 0 at t = 0 (a new sequence) and 1 after,
 * or with NEVER_CONTINUE 0 everywhere (every step starts afresh). A
 * sequence must start at t = 0 in a gradient check: the state carried from
 * the checker's previous forward would otherwise enter the objective. */
static GPtrArray *
sequence_bottoms (gint64 T, gboolean never_continue, gboolean with_static)
{
  const gint64 x_dims[] = { T, N_STREAMS, 3, 2 };
  const gint64 cont_dims[] = { T, N_STREAMS };
  const gint64 static_dims[] = { N_STREAMS, 5 };
  CtBlob *x = ct_test_blob_uniform (x_dims, 4, -1.0f, 1.0f, 17);
  CtBlob *cont = ct_blob_new_with_shape (cont_dims, 2, NULL);
  float *c = ct_blob_mutable_cpu_data (cont, NULL);
  GPtrArray *bottoms;

  for (gint64 i = 0; i < T * N_STREAMS; i++)
    c[i] = !never_continue && i >= N_STREAMS ? 1.0f : 0.0f;
  bottoms = ct_test_blobs (x, cont, NULL);
  if (with_static)
    g_ptr_array_add (bottoms, ct_test_blob_uniform (static_dims, 2, -1.0f, 1.0f, 23));
  return bottoms;
}

static void
assert_shape (CtBlob *blob, const char *expected)
{
  g_autofree char *shape = ct_blob_shape_string (blob);
  g_assert_cmpstr (shape, ==, expected);
}

static void
test_rnn_setup (void)
{
  g_autoptr (CtLayer) layer = recurrent_layer ("RNN", "");
  g_autoptr (GPtrArray) bottom = sequence_bottoms (T_STEPS, FALSE, FALSE);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

  ct_test_setup_ok (layer, bottom, top);
  assert_shape (top->pdata[0], "3 2 4 (24)");
  /* W_xh, b_h, W_hh, W_ho, b_o */
  g_assert_cmpuint (layer->blobs->len, ==, 5);
  assert_shape (layer->blobs->pdata[0], "4 6 (24)");
  assert_shape (layer->blobs->pdata[1], "4 (4)");
  assert_shape (layer->blobs->pdata[2], "4 4 (16)");
  assert_shape (layer->blobs->pdata[3], "4 4 (16)");
  assert_shape (layer->blobs->pdata[4], "4 (4)");
  for (guint i = 0; i < 5; i++)
    g_assert_true (ct_layer_param_propagate_down (layer, i));
  g_assert_false (ct_layer_allow_force_backward (layer, 1));
  g_assert_true (ct_layer_allow_force_backward (layer, 0));
}

static void
test_lstm_setup (void)
{
  g_autoptr (CtLayer) layer = recurrent_layer ("LSTM", "");
  g_autoptr (GPtrArray) bottom = sequence_bottoms (T_STEPS, FALSE, TRUE);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

  ct_test_setup_ok (layer, bottom, top);
  assert_shape (top->pdata[0], "3 2 4 (24)");
  /* W_xc, b_c, W_xc_static, W_hc */
  g_assert_cmpuint (layer->blobs->len, ==, 4);
  assert_shape (layer->blobs->pdata[0], "16 6 (96)");
  assert_shape (layer->blobs->pdata[1], "16 (16)");
  assert_shape (layer->blobs->pdata[2], "16 5 (80)");
  assert_shape (layer->blobs->pdata[3], "16 4 (64)");
}

static void
check_gradients (const char *type, gboolean never_continue, gboolean with_static)
{
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
  g_autoptr (CtLayer) layer = recurrent_layer (type, "");
  g_autoptr (GPtrArray) bottom = sequence_bottoms (T_STEPS, never_continue, with_static);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

  /* The input, then the static input (never the indicators); parameters
   * are checked with each. */
  ct_check_gradient_exhaustive (&checker, layer, bottom, top, 0);
  if (with_static)
    {
      g_autoptr (CtLayer) again = recurrent_layer (type, "");
      ct_check_gradient_exhaustive (&checker, again, bottom, top, 2);
    }
}

static void
test_rnn_gradient (void)
{
  check_gradients ("RNN", TRUE, FALSE);
}

static void
test_rnn_gradient_continuing (void)
{
  check_gradients ("RNN", FALSE, FALSE);
}

static void
test_rnn_gradient_static (void)
{
  check_gradients ("RNN", FALSE, TRUE);
}

static void
test_lstm_gradient (void)
{
  check_gradients ("LSTM", TRUE, FALSE);
}

static void
test_lstm_gradient_continuing (void)
{
  check_gradients ("LSTM", FALSE, FALSE);
}

static void
test_lstm_gradient_static (void)
{
  check_gradients ("LSTM", FALSE, TRUE);
}

/* The whole sequence at once, then the same sequence one timestep per
 * forward with a layer of the same weights: the state carried from one
 * forward to the next makes the outputs equal. */
static void
check_step_by_step (const char *type)
{
  g_autoptr (CtLayer) whole = recurrent_layer (type, "");
  g_autoptr (CtLayer) step = recurrent_layer (type, "");
  g_autoptr (GPtrArray) bottom = sequence_bottoms (T_STEPS, FALSE, FALSE);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GPtrArray) bottom1 = sequence_bottoms (1, FALSE, FALSE);
  g_autoptr (GPtrArray) top1 = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  g_autofree float *expected = NULL;
  gint64 step_in = 3 * 2 * N_STREAMS, step_out = N_STREAMS * N_OUT;

  ct_test_setup_ok (whole, bottom, top);
  g_assert_true (ct_layer_forward (whole, bottom, top, FALSE, NULL, &error));
  g_assert_no_error (error);
  expected = g_memdup2 (ct_blob_cpu_data (top->pdata[0], NULL),
                        (gsize) ct_blob_count (top->pdata[0]) * sizeof (float));

  ct_test_setup_ok (step, bottom1, top1);
  g_assert_cmpuint (step->blobs->len, ==, whole->blobs->len);
  for (guint i = 0; i < whole->blobs->len; i++)
    g_assert_true (ct_blob_copy_from (step->blobs->pdata[i], whole->blobs->pdata[i],
                                      CT_BLOB_COPY_DATA, &error));
  for (gint64 t = 0; t < T_STEPS; t++)
    {
      float *x = ct_blob_mutable_cpu_data (bottom1->pdata[0], NULL);
      float *cont = ct_blob_mutable_cpu_data (bottom1->pdata[1], NULL);
      const float *h;

      memcpy (x, ct_blob_cpu_data (bottom->pdata[0], NULL) + t * step_in,
              (gsize) step_in * sizeof (float));
      for (int n = 0; n < N_STREAMS; n++)
        cont[n] = t > 0 ? 1.0f : 0.0f;
      g_assert_true (ct_layer_reshape (step, bottom1, top1, &error));
      g_assert_true (ct_layer_forward (step, bottom1, top1, FALSE, NULL, &error));
      g_assert_no_error (error);
      h = ct_blob_cpu_data (top1->pdata[0], NULL);
      for (gint64 i = 0; i < step_out; i++)
        g_assert_cmpfloat_with_epsilon (h[i], expected[t * step_out + i], 1e-5);
    }
}

static void
test_rnn_step_by_step (void)
{
  check_step_by_step ("RNN");
}

static void
test_lstm_step_by_step (void)
{
  check_step_by_step ("LSTM");
}

/* expose_hidden: the initial h and c are bottoms, the final ones tops;
 * feeding the final state back continues the sequence. */
static void
test_lstm_expose_hidden (void)
{
  g_autoptr (CtLayer) whole = recurrent_layer ("LSTM", "");
  g_autoptr (CtLayer) exposed = recurrent_layer ("LSTM", "expose_hidden: true");
  g_autoptr (GPtrArray) bottom = sequence_bottoms (T_STEPS, FALSE, FALSE);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  const gint64 state_dims[] = { 1, N_STREAMS, N_OUT };
  g_autoptr (GPtrArray) bottom1 = sequence_bottoms (1, FALSE, FALSE);
  g_autoptr (GPtrArray) top1 = ct_test_blobs (ct_blob_new (), ct_blob_new (), ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  g_autofree float *expected = NULL;
  gint64 step_in = 3 * 2 * N_STREAMS, step_out = N_STREAMS * N_OUT;

  g_ptr_array_add (bottom1, ct_blob_new_with_shape (state_dims, 3, NULL));
  g_ptr_array_add (bottom1, ct_blob_new_with_shape (state_dims, 3, NULL));
  ct_test_setup_ok (whole, bottom, top);
  g_assert_true (ct_layer_forward (whole, bottom, top, FALSE, NULL, &error));
  expected = g_memdup2 (ct_blob_cpu_data (top->pdata[0], NULL),
                        (gsize) ct_blob_count (top->pdata[0]) * sizeof (float));

  ct_test_setup_ok (exposed, bottom1, top1);
  assert_shape (top1->pdata[1], "1 2 4 (8)");
  assert_shape (top1->pdata[2], "1 2 4 (8)");
  for (guint i = 0; i < whole->blobs->len; i++)
    g_assert_true (ct_blob_copy_from (exposed->blobs->pdata[i], whole->blobs->pdata[i],
                                      CT_BLOB_COPY_DATA, &error));
  for (gint64 t = 0; t < T_STEPS; t++)
    {
      const float *h;

      memcpy (ct_blob_mutable_cpu_data (bottom1->pdata[0], NULL),
              ct_blob_cpu_data (bottom->pdata[0], NULL) + t * step_in,
              (gsize) step_in * sizeof (float));
      for (int n = 0; n < N_STREAMS; n++)
        ct_blob_mutable_cpu_data (bottom1->pdata[1], NULL)[n] = t > 0 ? 1.0f : 0.0f;
      g_assert_true (ct_layer_reshape (exposed, bottom1, top1, &error));
      g_assert_true (ct_layer_forward (exposed, bottom1, top1, FALSE, NULL, &error));
      g_assert_no_error (error);
      h = ct_blob_cpu_data (top1->pdata[0], NULL);
      for (gint64 i = 0; i < step_out; i++)
        g_assert_cmpfloat_with_epsilon (h[i], expected[t * step_out + i], 1e-5);
      /* The state goes back in: h_T into h_0, c_T into c_0. */
      g_assert_true (ct_blob_copy_from (bottom1->pdata[2], top1->pdata[1], CT_BLOB_COPY_DATA,
                                        &error));
      g_assert_true (ct_blob_copy_from (bottom1->pdata[3], top1->pdata[2], CT_BLOB_COPY_DATA,
                                        &error));
    }
}

static void
test_errors (void)
{
  struct {
    const char *type;
    const char *extra;
    gboolean bad_cont;
    const char *fragment;
  } cases[] = {
    { "RNN", "num_output: 0", FALSE, "num_output" },
    { "LSTM", "", TRUE, "cont" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "name: 'bad' type: '%s' recurrent_param { %s }", cases[i].type,
        cases[i].extra[0] ? cases[i].extra : "num_output: 3");
      g_autoptr (GError) error = NULL;
      Caffe__LayerParameter *param = (Caffe__LayerParameter *) ct_text_parse (
        &caffe__layer_parameter__descriptor, text, -1, "test", CT_TEXT_STRICT, &error);
      g_autoptr (CtLayer) layer = ct_layer_new (ct_layer_catalogue_lookup (cases[i].type), param,
                                                CAFFE__PHASE__TRAIN);
      g_autoptr (GPtrArray) bottom = sequence_bottoms (T_STEPS, FALSE, FALSE);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);

      protobuf_c_message_free_unpacked (&param->base, NULL);
      if (cases[i].bad_cont)
        {
          const gint64 dims[] = { T_STEPS + 1, N_STREAMS };
          g_assert_true (ct_blob_reshape (bottom->pdata[1], dims, 2, NULL));
        }
      g_assert_false (ct_layer_setup (layer, bottom, top, &error));
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "'bad'"));
      g_assert_nonnull (strstr (error->message, cases[i].fragment));
    }
}

/* An LSTM in a net: built, run, saved as a caffemodel and loaded by a net
 * of another seed, which then computes the same. */
static void
test_lstm_in_net (void)
{
  const char *text =
    "force_backward: true\n"
    "layer { name: 'in' type: 'Input' top: 'x' top: 'cont' top: 'target'\n"
    "  input_param { shape { dim: 4 dim: 2 dim: 3 } shape { dim: 4 dim: 2 }\n"
    "                shape { dim: 4 dim: 2 dim: 5 } } }\n"
    "layer { name: 'lstm' type: 'LSTM' bottom: 'x' bottom: 'cont' top: 'h'\n"
    "  recurrent_param { num_output: 5 weight_filler { type: 'uniform' min: -0.3 max: 0.3 } } }\n"
    "layer { name: 'loss' type: 'EuclideanLoss' bottom: 'h' bottom: 'target' top: 'loss' }\n";
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *param = (Caffe__NetParameter *) ct_text_parse (
    &caffe__net_parameter__descriptor, text, -1, "lstm.prototxt", CT_TEXT_STRICT, &error);
  g_autoptr (CtNet) a = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 1, &error);
  g_autoptr (CtNet) b = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 2, &error);
  g_autoptr (GError) error2 = NULL;
  Caffe__NetParameter *model;
  float loss_a = 0.0f, loss_b = -1.0f;

  g_assert_no_error (error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  for (int k = 0; k < 2; k++)
    {
      CtNet *net = k == 0 ? a : b;
      float *cont = ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "cont"), NULL);

      for (int i = 0; i < 8; i++)
        cont[i] = i >= 2 ? 1.0f : 0.0f;
      for (int i = 0; i < 24; i++)
        ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "x"), NULL)[i] = sinf ((float) i);
      for (int i = 0; i < 40; i++)
        ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "target"), NULL)[i] =
          cosf ((float) i) * 0.5f;
    }
  g_assert_true (ct_net_forward (a, &loss_a, &error));
  g_assert_true (ct_net_backward (a, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (loss_a, >, 0.0f);
  /* The input got a gradient through the unrolled net. */
  g_assert_cmpfloat (ct_blob_asum_diff (ct_net_blob_by_name (a, "x"), NULL), >, 0.0f);
  g_assert_cmpfloat (ct_blob_asum_diff (ct_net_get_param_blob (a, 0), NULL), >, 0.0f);

  model = ct_net_to_proto (a, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (model->layer[1]->n_blobs, ==, 3);
  g_assert_true (ct_net_copy_trained_layers_from (b, model, &error2));
  g_assert_no_error (error2);
  protobuf_c_message_free_unpacked (&model->base, NULL);
  g_assert_true (ct_net_forward (b, &loss_b, &error));
  g_assert_no_error (error);
  /* The state carried into b's first forward is zero, like a's was. */
  g_assert_cmpfloat_with_epsilon (loss_b, loss_a, 1e-6);
}

/* Two RNNs sharing their parameters by name in a net compute the same
 * thing: the shared memory reaches the unrolled nets. */
static void
test_rnn_shared_in_net (void)
{
  const char *text =
    "layer { name: 'in' type: 'Input' top: 'x' top: 'cont'\n"
    "  input_param { shape { dim: 3 dim: 2 dim: 4 } shape { dim: 3 dim: 2 } } }\n"
    "layer { name: 'a' type: 'RNN' bottom: 'x' bottom: 'cont' top: 'oa'\n"
    "  param { name: 'p0' } param { name: 'p1' } param { name: 'p2' } param { name: 'p3' }\n"
    "  param { name: 'p4' }\n"
    "  recurrent_param { num_output: 3 weight_filler { type: 'gaussian' std: 0.5 }\n"
    "    bias_filler { type: 'gaussian' std: 0.5 } } }\n"
    "layer { name: 'b' type: 'RNN' bottom: 'x' bottom: 'cont' top: 'ob'\n"
    "  param { name: 'p0' } param { name: 'p1' } param { name: 'p2' } param { name: 'p3' }\n"
    "  param { name: 'p4' }\n"
    "  recurrent_param { num_output: 3 weight_filler { type: 'gaussian' std: 0.5 }\n"
    "    bias_filler { type: 'gaussian' std: 0.5 } } }\n";
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *param = (Caffe__NetParameter *) ct_text_parse (
    &caffe__net_parameter__descriptor, text, -1, "shared.prototxt", CT_TEXT_STRICT, &error);
  g_autoptr (CtNet) net = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 5, &error);
  const float *oa, *ob;
  float *x, *cont;

  g_assert_no_error (error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_cmpuint (ct_net_n_learnable (net), ==, 5);
  x = ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "x"), NULL);
  cont = ct_blob_mutable_cpu_data (ct_net_blob_by_name (net, "cont"), NULL);
  for (int i = 0; i < 24; i++)
    x[i] = sinf (0.3f * (float) i);
  for (int i = 0; i < 6; i++)
    cont[i] = i >= 2 ? 1.0f : 0.0f;
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_no_error (error);
  oa = ct_blob_cpu_data (ct_net_blob_by_name (net, "oa"), NULL);
  ob = ct_blob_cpu_data (ct_net_blob_by_name (net, "ob"), NULL);
  g_assert_cmpfloat (fabsf (oa[0]) + fabsf (oa[17]), >, 0.0f);
  g_assert_cmpmem (oa, 18 * sizeof (float), ob, 18 * sizeof (float));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/layers/rnn/setup", test_rnn_setup);
  g_test_add_func ("/engine/layers/rnn/gradient", test_rnn_gradient);
  g_test_add_func ("/engine/layers/rnn/gradient-continuing", test_rnn_gradient_continuing);
  g_test_add_func ("/engine/layers/rnn/gradient-static", test_rnn_gradient_static);
  g_test_add_func ("/engine/layers/rnn/step-by-step", test_rnn_step_by_step);
  g_test_add_func ("/engine/layers/rnn/shared-in-net", test_rnn_shared_in_net);
  g_test_add_func ("/engine/layers/lstm/setup", test_lstm_setup);
  g_test_add_func ("/engine/layers/lstm/gradient", test_lstm_gradient);
  g_test_add_func ("/engine/layers/lstm/gradient-continuing", test_lstm_gradient_continuing);
  g_test_add_func ("/engine/layers/lstm/gradient-static", test_lstm_gradient_static);
  g_test_add_func ("/engine/layers/lstm/step-by-step", test_lstm_step_by_step);
  g_test_add_func ("/engine/layers/lstm/expose-hidden", test_lstm_expose_hidden);
  g_test_add_func ("/engine/layers/lstm/in-net", test_lstm_in_net);
  g_test_add_func ("/engine/layers/recurrent/errors", test_errors);
  return g_test_run ();
}
