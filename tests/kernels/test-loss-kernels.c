/* test-loss-kernels.c: the kernels of softmax.h, loss.h and recurrent.h
 * where the layer tests do not reach: refused counts, labels that name no
 * class (reported, never read past the array), NaN and fractional labels,
 * the softmax in place and over a strided axis against a naive loop. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "loss.h"
#include "recurrent.h"
#include "softmax.h"

static void
test_refused_counts (void)
{
  float x[4] = { 0 }, y[4], s[4], loss;
  int64_t valid;

  g_assert_cmpint (ct_cpu_softmax_forward (-1, 2, 2, x, y, s), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_softmax_backward (1, -2, 2, x, x, y, s), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_softmax_forward (INT64_MAX, INT64_MAX, 2, x, y, s), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_softmax_loss_forward (1, 2, -1, x, x, 0, 0, &loss, &valid), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_check_labels (-1, x, 2, 0, 0, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_hinge_forward (1, 2, x, x, 3, y, &loss), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_lstm_unit_forward (-1, 1, x, x, x, y, y), ==, CT_STATUS_INVALID);
  /* Empty is fine. */
  g_assert_cmpint (ct_cpu_softmax_forward (0, 3, 2, NULL, NULL, NULL), ==, CT_STATUS_OK);
}

static void
test_labels (void)
{
  static const float good[] = { 0, 2, 2.9f, -1 };
  static const float bad[][4] = {
    { 0, 1, 3, 0 }, { 0, -2, 1, 0 }, { 0, 1, 2, NAN }, { 0, 1, 2, 1e20f }, { -0.5f, 1, 2, 4 },
  };
  static const int64_t where[] = { 2, 1, 3, 3, 3 };
  float prob[12], loss = 0.0f, diff[12];
  int64_t index = -1, valid = -1;

  g_assert_cmpint (ct_cpu_check_labels (4, good, 3, 1, -1, &index), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_check_labels (4, good, 3, 0, 0, &index), ==, CT_STATUS_INVALID);
  g_assert_cmpint (index, ==, 3);
  for (gsize b = 0; b < G_N_ELEMENTS (bad); b++)
    {
      index = -1;
      g_assert_cmpint (ct_cpu_check_labels (4, bad[b], 3, 0, 0, &index), ==, CT_STATUS_INVALID);
      g_assert_cmpint (index, ==, where[b]);
    }
  /* -0.5 truncates to 0, a class, as Caffe's cast does. */
  g_assert_cmpint (ct_cpu_check_labels (1, bad[4], 3, 0, 0, NULL), ==, CT_STATUS_OK);

  /* The kernels themselves stop at a bad label instead of indexing with it. */
  for (int i = 0; i < 12; i++)
    prob[i] = 1.0f / 3.0f;
  g_assert_cmpint (ct_cpu_softmax_loss_forward (4, 3, 1, prob, bad[0], 0, 0, &loss, &valid), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_softmax_loss_backward (4, 3, 1, prob, bad[3], 0, 0, diff, &valid), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_multinomial_logistic_forward (4, 3, prob, bad[1], &loss), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_accuracy (4, 3, 1, prob, bad[2], 1, 0, 0, &loss, NULL, NULL), ==,
                   CT_STATUS_INVALID);

  /* With the ignore label, ignored positions count neither way. */
  g_assert_cmpint (ct_cpu_softmax_loss_forward (4, 3, 1, prob, good, 1, -1, &loss, &valid), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (valid, ==, 3);
  g_assert_cmpfloat_with_epsilon (loss, 3.0 * log (3.0), 1e-5);
}

/* Softmax over the middle axis of 2 x 3 x 4, in place, against doubles. */
static void
test_softmax_in_place (void)
{
  float x[24], y[24], s[4];
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);

  for (int i = 0; i < 24; i++)
    x[i] = y[i] = (float) g_rand_double_range (rand, -20.0, 20.0);
  g_assert_cmpint (ct_cpu_softmax_forward (2, 3, 4, y, y, s), ==, CT_STATUS_OK);
  for (int o = 0; o < 2; o++)
    for (int k = 0; k < 4; k++)
      {
        double sum = 0.0;

        for (int c = 0; c < 3; c++)
          sum += exp ((double) x[(o * 3 + c) * 4 + k]);
        for (int c = 0; c < 3; c++)
          g_assert_cmpfloat_with_epsilon (y[(o * 3 + c) * 4 + k],
                                          exp ((double) x[(o * 3 + c) * 4 + k]) / sum, 1e-6);
      }
}

/* A NaN similarity is a dissimilar pair, never undefined behaviour; a pair
 * beyond the margin gets an exact zero gradient. */
static void
test_contrastive_edges (void)
{
  static const float a[] = { 0, 0, 1, 1 }, b[] = { 3, 4, 1, 1 }, y[] = { NAN, 0 };
  float diff[4], dist_sq[2], loss = -1.0f, dx[4];

  g_assert_cmpint (ct_cpu_contrastive_forward (2, 2, a, b, y, 1.0f, 0, diff, dist_sq, &loss), ==,
                   CT_STATUS_OK);
  g_assert_cmpfloat (dist_sq[0], ==, 25.0f);
  g_assert_cmpfloat_with_epsilon (loss, 1.0, 1e-7); /* second pair: (1 - 0)^2 */
  memset (dx, 0x7f, sizeof dx);
  g_assert_cmpint (ct_cpu_contrastive_backward (2, 2, diff, dist_sq, y, 1.0f, 0, 1.0f, dx), ==,
                   CT_STATUS_OK);
  g_assert_cmpfloat (dx[0], ==, 0.0f);
  g_assert_cmpfloat (dx[1], ==, 0.0f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/loss/refused-counts", test_refused_counts);
  g_test_add_func ("/kernels/loss/labels", test_labels);
  g_test_add_func ("/kernels/loss/softmax-in-place", test_softmax_in_place);
  g_test_add_func ("/kernels/loss/contrastive-edges", test_contrastive_edges);
  return g_test_run ();
}
