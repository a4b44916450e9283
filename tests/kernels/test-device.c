/* test-device.c: the device API and kernel statuses. Without CUDA every
 * ct_cuda_* call must answer CT_STATUS_NO_DEVICE and leave its outputs
 * empty; with CUDA the stub checks are skipped (the CUDA suite covers it). */
#include <glib.h>

#include "blas.h"
#include "device.h"

static void
test_status_strings (void)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  const CtStatus all[] = {
    CT_STATUS_OK, CT_STATUS_NO_DEVICE, CT_STATUS_DEVICE_ERROR,
    CT_STATUS_OUT_OF_MEMORY, CT_STATUS_INVALID,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (all); i++)
    {
      const char *name = ct_status_to_string (all[i]);
      g_assert_nonnull (name);
      g_assert_cmpstr (name, !=, "");
      g_assert_false (g_hash_table_contains (seen, name));
      g_hash_table_add (seen, (gpointer) name);
    }
  g_assert_cmpuint (g_hash_table_size (seen), ==, 5);
  g_assert_cmpstr (ct_status_to_string ((CtStatus) 99), ==, "unknown status");
}

static void
test_stub (void)
{
  int count = 42;
  void *ptr = &count;
  float x = 1, y = 2, out = 3;

  if (CT_HAVE_CUDA)
    {
      g_test_skip ("built with CUDA: the stub is not linked");
      return;
    }
  g_assert_cmpint (ct_cuda_device_count (&count), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (count, ==, 0);
  g_assert_cmpint (ct_cuda_available (), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_malloc (&ptr, 16), ==, CT_STATUS_NO_DEVICE);
  g_assert_null (ptr);
  g_assert_cmpint (ct_cuda_free (NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_memcpy (&x, &y, sizeof x, CT_MEMCPY_HOST_TO_DEVICE), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_memcpy (&x, &y, sizeof x, CT_MEMCPY_DEVICE_TO_HOST), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_memcpy (&x, &y, sizeof x, CT_MEMCPY_DEVICE_TO_DEVICE), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_memset (&x, 0, sizeof x), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpfloat (x, ==, 1);

  /* Every BLAS twin, and nothing written. */
  g_assert_cmpint (ct_cuda_gemm (CT_NO_TRANS, CT_NO_TRANS, 1, 1, 1, 1, &x, &x, 0, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_gemv (CT_NO_TRANS, 1, 1, 1, &x, &x, 0, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_axpy (1, 1, &x, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_axpby (1, 1, &x, 1, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_scal (1, 2, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_dot (1, &x, &x, &out), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_strided_dot (1, &x, 1, &x, 1, &out), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_asum (1, &x, &out), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_copy (1, &x, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_set (1, 5, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_scale (1, 5, &x, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_add (1, &x, &x, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_sub (1, &x, &x, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_mul (1, &x, &x, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpint (ct_cuda_div (1, &x, &x, &y), ==, CT_STATUS_NO_DEVICE);
  g_assert_cmpfloat (y, ==, 2);
  g_assert_cmpfloat (out, ==, 3);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/status/strings", test_status_strings);
  g_test_add_func ("/kernels/device/stub", test_stub);
  return g_test_run ();
}
