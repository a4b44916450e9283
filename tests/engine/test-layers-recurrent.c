/* test-layers-recurrent.c: LSTMUnit, the LSTM cell step: forward values
 * computed by hand, the continuation indicator resetting the cell,
 * finite-difference gradients of the previous cell state and of the gates,
 * refused gradients to the indicators, and shape errors. (RNN and LSTM
 * come with the Net.) */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"

static CtLayer *
lstm_unit_layer (void)
{
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;
  const CtLayerClass *klass = ct_layer_catalogue_lookup ("LSTMUnit");

  g_assert_nonnull (klass);
  g_assert_cmpint (klass->family, ==, CT_LAYER_FAMILY_RECURRENT);
  param.name = (char *) "cell";
  param.type = (char *) "LSTMUnit";
  return ct_layer_new (klass, &param, CAFFE__PHASE__TRAIN);
}

static double
sigmoid (double x)
{
  return 1.0 / (1.0 + exp (-x));
}

/* Two cells of two units; the second cell starts a new sequence. */
static void
test_forward_by_hand (void)
{
  static const gint64 c_dims[] = { 1, 2, 2 }, x_dims[] = { 1, 2, 8 }, i_dims[] = { 1, 2 };
  static const float c_prev[] = { 0.5f, -1.0f, 2.0f, 0.25f };
  static const float x[] = {
    0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.7f, -0.8f,
    1.0f, 0.0f, -1.0f, 2.0f, 0.5f, -0.5f, 1.5f, -1.5f,
  };
  static const float cont[] = { 1.0f, 0.0f };
  g_autoptr (CtLayer) layer = lstm_unit_layer ();
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_with (c_dims, 3, c_prev),
                                            ct_test_blob_with (x_dims, 3, x),
                                            ct_test_blob_with (i_dims, 2, cont), NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  const float *c, *h;
  guint checked = 0;

  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 1)), ==, 3);
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_no_error (error);
  c = ct_blob_cpu_data (CT_TOP (top, 0), NULL);
  h = ct_blob_cpu_data (CT_TOP (top, 1), NULL);
  for (int n = 0; n < 2; n++)
    for (int d = 0; d < 2; d++)
      {
        const float *xn = x + n * 8;
        double i = sigmoid (xn[d]), f = cont[n] * sigmoid (xn[2 + d]);
        double o = sigmoid (xn[4 + d]), g = tanh (xn[6 + d]);
        double want_c = f * c_prev[n * 2 + d] + i * g;

        g_assert_cmpfloat_with_epsilon (c[n * 2 + d], want_c, 1e-6);
        g_assert_cmpfloat_with_epsilon (h[n * 2 + d], o * tanh (want_c), 1e-6);
        checked++;
      }
  g_assert_cmpuint (checked, ==, 4);
  /* cont = 0: the old state is gone entirely. */
  g_assert_cmpfloat_with_epsilon (c[2], sigmoid (1.0) * tanh (1.5), 1e-6);
}

static void
test_gradient (void)
{
  static const gint64 c_dims[] = { 1, 3, 2 }, x_dims[] = { 1, 3, 8 }, i_dims[] = { 1, 3 };
  static const float cont[] = { 1.0f, 0.0f, 1.0f };
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;

  for (int b = 0; b < 2; b++)
    {
      g_autoptr (CtLayer) layer = lstm_unit_layer ();
      g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (c_dims, 3, 1701),
                                                ct_test_blob_gaussian (x_dims, 3, 1702),
                                                ct_test_blob_with (i_dims, 2, cont), NULL);
      g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), ct_blob_new (), NULL);

      ct_check_gradient_exhaustive (&checker, layer, bottom, top, b);
    }
}

static void
test_no_gradient_to_indicators (void)
{
  static const gint64 c_dims[] = { 1, 2, 3 }, x_dims[] = { 1, 2, 12 }, i_dims[] = { 1, 2 };
  g_autoptr (CtLayer) layer = lstm_unit_layer ();
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (c_dims, 3, 1),
                                            ct_test_blob_gaussian (x_dims, 3, 2),
                                            ct_test_blob_uniform (i_dims, 2, 1.0f, 1.0f, 3),
                                            NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  gboolean down[3] = { TRUE, TRUE, TRUE };

  g_assert_true (ct_layer_allow_force_backward (layer, 0));
  g_assert_true (ct_layer_allow_force_backward (layer, 1));
  g_assert_false (ct_layer_allow_force_backward (layer, 2));
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_true (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  g_assert_false (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'cell'"));
  g_clear_error (&error);
  down[2] = FALSE;
  g_assert_true (ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error));
  g_assert_no_error (error);
}

static void
check_shape_error (const gint64 *c_dims, guint c_axes, const gint64 *x_dims, guint x_axes,
                   const gint64 *i_dims, guint i_axes)
{
  g_autoptr (CtLayer) layer = lstm_unit_layer ();
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (c_dims, c_axes, 1),
                                            ct_test_blob_gaussian (x_dims, x_axes, 2),
                                            ct_test_blob_gaussian (i_dims, i_axes, 3), NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'cell' (LSTMUnit)"));
}

static void
test_shape_errors (void)
{
  static const gint64 c[] = { 1, 2, 3 }, x[] = { 1, 2, 12 }, i[] = { 1, 2 };
  static const gint64 x_bad[] = { 1, 2, 11 }, c_two[] = { 2, 2, 3 }, i_three[] = { 1, 3 };
  static const gint64 c_4d[] = { 1, 2, 3, 1 };

  check_shape_error (c, 3, x_bad, 3, i, 2);   /* gates not 4D */
  check_shape_error (c_two, 3, x, 3, i, 2);   /* more than one time step */
  check_shape_error (c, 3, x, 3, i_three, 2); /* indicator count */
  check_shape_error (c_4d, 4, x, 3, i, 2);    /* axes */
  check_shape_error (c, 3, x, 3, c, 3);       /* indicators with 3 axes */
}

static void
test_wrong_counts (void)
{
  static const gint64 c[] = { 1, 2, 3 }, x[] = { 1, 2, 12 };
  g_autoptr (CtLayer) layer = lstm_unit_layer ();
  g_autoptr (GPtrArray) bottom = ct_test_blobs (ct_test_blob_gaussian (c, 3, 1),
                                            ct_test_blob_gaussian (x, 3, 2), NULL);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "'cell'"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layers/lstm-unit/forward-by-hand", test_forward_by_hand);
  g_test_add_func ("/engine/layers/lstm-unit/gradient", test_gradient);
  g_test_add_func ("/engine/layers/lstm-unit/no-gradient-to-indicators",
                   test_no_gradient_to_indicators);
  g_test_add_func ("/engine/layers/lstm-unit/shape-errors", test_shape_errors);
  g_test_add_func ("/engine/layers/lstm-unit/wrong-counts", test_wrong_counts);
  return g_test_run ();
}
