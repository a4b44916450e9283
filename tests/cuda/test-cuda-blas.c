/* test-cuda-blas.c: every function of blas.h on the GPU against its CPU
 * twin, on random inputs, including the degenerate shapes. */
#include <glib.h>
#include <math.h>

#include "blas.h"
#include "cuda-test-util.h"
#include "device.h"

#define TOL 1e-5

static void
check_gemm (CtTranspose ta, CtTranspose tb, int64_t m, int64_t n, int64_t k, float beta)
{
  g_autofree float *a = ct_cuda_test_random (m * k, -1, 1, 1);
  g_autofree float *b = ct_cuda_test_random (k * n, -1, 1, 2);
  g_autofree float *c = ct_cuda_test_random (m * n, -1, 1, 3);
  float *da = ct_cuda_test_upload (a, m * k), *db = ct_cuda_test_upload (b, k * n);
  float *dc = ct_cuda_test_upload (c, m * n);
  g_autofree char *what = g_strdup_printf ("gemm %d%d %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                                           "x%" G_GINT64_FORMAT, ta, tb, m, n, k);

  g_assert_cmpint (ct_cpu_gemm (ta, tb, m, n, k, 0.7f, a, b, beta, c), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_gemm (ta, tb, m, n, k, 0.7f, da, db, beta, dc), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, dc, c, m * n, TOL);
  ct_cuda_test_free (da);
  ct_cuda_test_free (db);
  ct_cuda_test_free (dc);
}

static void
test_gemm (void)
{
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      {
        check_gemm (ta, tb, 37, 53, 29, 0.0f);
        check_gemm (ta, tb, 64, 100, 800, 1.0f);
        check_gemm (ta, tb, 1, 500, 20, 0.5f);
        check_gemm (ta, tb, 5, 7, 0, 0.5f); /* k = 0: C = beta C */
      }
  g_assert_cmpint (ct_cuda_gemm (CT_NO_TRANS, CT_NO_TRANS, -1, 1, 1, 1, NULL, NULL, 0, NULL),
                   ==, CT_STATUS_INVALID);
}

static void
test_gemv (void)
{
  const int64_t m = 41, n = 67;

  for (int t = 0; t < 2; t++)
    {
      int64_t rows = t ? n : m, cols = t ? m : n;
      g_autofree float *a = ct_cuda_test_random (m * n, -1, 1, 4);
      g_autofree float *x = ct_cuda_test_random (cols, -1, 1, 5);
      g_autofree float *y = ct_cuda_test_random (rows, -1, 1, 6);
      float *da = ct_cuda_test_upload (a, m * n), *dx = ct_cuda_test_upload (x, cols);
      float *dy = ct_cuda_test_upload (y, rows);

      g_assert_cmpint (ct_cpu_gemv (t, m, n, 1.5f, a, x, 0.25f, y), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_gemv (t, m, n, 1.5f, da, dx, 0.25f, dy), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close ("gemv", dy, y, rows, TOL);
      ct_cuda_test_free (da);
      ct_cuda_test_free (dx);
      ct_cuda_test_free (dy);
    }
}

static void
test_vector (void)
{
  const int64_t n = 100003;
  g_autofree float *x = ct_cuda_test_random (n, -1, 1, 7);
  g_autofree float *y = ct_cuda_test_random (n, 0.5f, 2, 8);
  g_autofree float *out = g_new (float, n);
  float *dx = ct_cuda_test_upload (x, n), *dy = ct_cuda_test_upload (y, n);
  float *dout = ct_cuda_test_device_zeros (n);
  float cpu_value, gpu_value;

  g_assert_cmpint (ct_cuda_dot (n, dx, dy, &gpu_value), ==, CT_STATUS_OK);
  ct_cpu_dot (n, x, y, &cpu_value);
  g_assert_cmpfloat_with_epsilon (gpu_value, cpu_value, 1e-5 * n);
  g_assert_cmpint (ct_cuda_strided_dot (n / 2, dx, 2, dy, 2, &gpu_value), ==, CT_STATUS_OK);
  ct_cpu_strided_dot (n / 2, x, 2, y, 2, &cpu_value);
  g_assert_cmpfloat_with_epsilon (gpu_value, cpu_value, 1e-5 * n);
  g_assert_cmpint (ct_cuda_asum (n, dx, &gpu_value), ==, CT_STATUS_OK);
  ct_cpu_asum (n, x, &cpu_value);
  g_assert_cmpfloat (fabs (gpu_value - cpu_value), <=, 1e-5 * cpu_value);

#define BINARY(op)                                                     \
  g_assert_cmpint (ct_cuda_##op (n, dx, dy, dout), ==, CT_STATUS_OK);  \
  ct_cpu_##op (n, x, y, out);                                          \
  ct_cuda_test_assert_close (#op, dout, out, n, TOL);
  BINARY (add)
  BINARY (sub)
  BINARY (mul)
  BINARY (div)
#undef BINARY

  g_assert_cmpint (ct_cuda_scale (n, -3.0f, dx, dout), ==, CT_STATUS_OK);
  ct_cpu_scale (n, -3.0f, x, out);
  ct_cuda_test_assert_close ("scale", dout, out, n, TOL);
  g_assert_cmpint (ct_cuda_axpy (n, 0.3f, dx, dout), ==, CT_STATUS_OK);
  ct_cpu_axpy (n, 0.3f, x, out);
  ct_cuda_test_assert_close ("axpy", dout, out, n, TOL);
  g_assert_cmpint (ct_cuda_axpby (n, 0.3f, dy, 0.9f, dout), ==, CT_STATUS_OK);
  ct_cpu_axpby (n, 0.3f, y, 0.9f, out);
  ct_cuda_test_assert_close ("axpby", dout, out, n, TOL);
  g_assert_cmpint (ct_cuda_scal (n, 0.5f, dout), ==, CT_STATUS_OK);
  ct_cpu_scal (n, 0.5f, out);
  ct_cuda_test_assert_close ("scal", dout, out, n, TOL);
  g_assert_cmpint (ct_cuda_copy (n, dy, dout), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close ("copy", dout, y, n, 0);
  g_assert_cmpint (ct_cuda_set (n, 2.5f, dout), ==, CT_STATUS_OK);
  ct_cpu_set (n, 2.5f, out);
  ct_cuda_test_assert_close ("set", dout, out, n, 0);
  g_assert_cmpint (ct_cuda_set (-1, 2.5f, dout), ==, CT_STATUS_INVALID);

  ct_cuda_test_free (dx);
  ct_cuda_test_free (dy);
  ct_cuda_test_free (dout);
}

static void
test_out_of_memory (void)
{
  void *ptr = &ptr;

  /* A petabyte: a clean status, never an abort. */
  g_assert_cmpint (ct_cuda_malloc (&ptr, (size_t) 1 << 50), ==, CT_STATUS_OUT_OF_MEMORY);
  g_assert_null (ptr);
  g_assert_cmpstr (ct_cuda_last_error (), !=, "");
  /* And the device works on. */
  g_assert_cmpint (ct_cuda_malloc (&ptr, 64), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_free (ptr), ==, CT_STATUS_OK);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/blas/gemm", test_gemm);
  g_test_add_func ("/cuda/blas/gemv", test_gemv);
  g_test_add_func ("/cuda/blas/vector", test_vector);
  g_test_add_func ("/cuda/device/out-of-memory", test_out_of_memory);
  return g_test_run ();
}
