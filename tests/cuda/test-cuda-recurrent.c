/* test-cuda-recurrent.c: LSTMUnit's cell step (recurrent.h) on the GPU
 * against the CPU twin, with sequences that continue, start afresh
 * (cont 0) and a fractional indicator, and gates far into saturation. */
#include <glib.h>

#include "cuda-test-util.h"
#include "device.h"
#include "recurrent.h"

#define TOL 1e-5

static void
check_lstm (int64_t num, int64_t hidden, float spread, guint64 seed)
{
  int64_t n = num * hidden;
  g_autofree float *c_prev = ct_cuda_test_random (n, -1, 1, seed);
  g_autofree float *x = ct_cuda_test_random (4 * n, -spread, spread, seed + 1);
  g_autofree float *cont = g_new (float, num > 0 ? num : 1);
  g_autofree float *c = g_new (float, n > 0 ? n : 1);
  g_autofree float *h = g_new (float, n > 0 ? n : 1);
  g_autofree float *c_diff = ct_cuda_test_random (n, -1, 1, seed + 2);
  g_autofree float *h_diff = ct_cuda_test_random (n, -1, 1, seed + 3);
  g_autofree float *c_prev_diff = g_new (float, n > 0 ? n : 1);
  g_autofree float *x_diff = g_new (float, 4 * n > 0 ? 4 * n : 1);
  float *d_c_prev, *d_x, *d_cont, *d_c, *d_h, *d_c_diff, *d_h_diff, *d_c_prev_diff, *d_x_diff;

  for (int64_t i = 0; i < num; i++)
    cont[i] = i % 3 == 0 ? 0.0f : i % 3 == 1 ? 1.0f : 0.5f;
  d_c_prev = ct_cuda_test_upload (c_prev, n);
  d_x = ct_cuda_test_upload (x, 4 * n);
  d_cont = ct_cuda_test_upload (cont, num);
  d_c = ct_cuda_test_device_zeros (n);
  d_h = ct_cuda_test_device_zeros (n);
  d_c_diff = ct_cuda_test_upload (c_diff, n);
  d_h_diff = ct_cuda_test_upload (h_diff, n);
  d_c_prev_diff = ct_cuda_test_device_zeros (n);
  d_x_diff = ct_cuda_test_device_zeros (4 * n);

  g_assert_cmpint (ct_cpu_lstm_unit_forward (num, hidden, c_prev, x, cont, c, h), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_lstm_unit_forward (num, hidden, d_c_prev, d_x, d_cont, d_c, d_h), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close ("lstm c", d_c, c, n, TOL);
  ct_cuda_test_assert_close ("lstm h", d_h, h, n, TOL);

  g_assert_cmpint (ct_cpu_lstm_unit_backward (num, hidden, c_prev, x, cont, c, c_diff, h_diff,
                                              c_prev_diff, x_diff), ==, CT_STATUS_OK);
  /* The backward reads the CPU's C, so that only the step itself is compared. */
  ct_cuda_test_free (d_c);
  d_c = ct_cuda_test_upload (c, n);
  g_assert_cmpint (ct_cuda_lstm_unit_backward (num, hidden, d_c_prev, d_x, d_cont, d_c,
                                               d_c_diff, d_h_diff, d_c_prev_diff, d_x_diff), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close ("lstm c_prev diff", d_c_prev_diff, c_prev_diff, n, TOL);
  ct_cuda_test_assert_close ("lstm x diff", d_x_diff, x_diff, 4 * n, TOL);

  ct_cuda_test_free (d_c_prev);
  ct_cuda_test_free (d_x);
  ct_cuda_test_free (d_cont);
  ct_cuda_test_free (d_c);
  ct_cuda_test_free (d_h);
  ct_cuda_test_free (d_c_diff);
  ct_cuda_test_free (d_h_diff);
  ct_cuda_test_free (d_c_prev_diff);
  ct_cuda_test_free (d_x_diff);
}

static void
test_lstm_unit (void)
{
  check_lstm (3, 5, 2.0f, 1);
  check_lstm (64, 256, 3.0f, 2);
  check_lstm (1000, 17, 20.0f, 3);   /* saturated gates */
  check_lstm (0, 8, 1.0f, 4);
  g_assert_cmpint (ct_cuda_lstm_unit_forward (-1, 1, NULL, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_lstm_unit_backward (1, -1, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                               NULL), ==, CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/recurrent/lstm-unit", test_lstm_unit);
  return g_test_run ();
}
