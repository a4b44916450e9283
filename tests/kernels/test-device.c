/* test-device.c: the device API and kernel statuses. Without CUDA, or
 * with CUDA but no module to load (kernels/cuda-module.h), every ct_cuda_*
 * call must answer CT_STATUS_NO_DEVICE and leave its outputs empty; the
 * CUDA suite covers the loaded module. */
#include <string.h>
#include <glib.h>

#include "blas.h"
#include "cuda-module.h"
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
check_stub (void)
{
  int count = 42;
  void *ptr = &count;
  float x = 1, y = 2, out = 3;

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

static void
test_stub (void)
{
  const char *detail = NULL;

  if (!CT_HAVE_CUDA)
    {
      g_assert_cmpint (ct_cuda_module_load (&detail), ==, CT_CUDA_MODULE_NOT_BUILT);
      check_stub ();
      return;
    }
  /* The module's state is the process's for good: a child per case. */
  if (g_test_subprocess ())
    {
      g_setenv ("CT_CUDA_MODULE", "/nonexistent/libctcuda.so", TRUE);
      check_stub ();
      g_assert_cmpint (ct_cuda_module_load (&detail), ==, CT_CUDA_MODULE_MISSING);
      g_assert_cmpstr (detail, ==, "/nonexistent/libctcuda.so");
      g_assert_nonnull (strstr (ct_cuda_last_error (), "/nonexistent/libctcuda.so is missing"));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A file that is no module: the dynamic loader's words come back. */
static void
test_module_unloadable (void)
{
  const char *detail = NULL;

  if (!CT_HAVE_CUDA)
    {
      g_test_skip ("built without CUDA: no module");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autofree char *source = g_test_build_filename (G_TEST_DIST, "meson.build", NULL);

      g_setenv ("CT_CUDA_MODULE", source, TRUE);
      g_assert_cmpint (ct_cuda_available (), ==, CT_STATUS_NO_DEVICE);
      g_assert_cmpint (ct_cuda_module_load (&detail), ==, CT_CUDA_MODULE_UNLOADABLE);
      g_assert_nonnull (strstr (detail, "meson.build"));
      g_assert_cmpstr (ct_cuda_last_error (), ==, detail);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A program in the build folder finds the module built beside it: it loads,
 * or, on a machine without the CUDA libraries, says why it cannot. */
static void
test_module_build_dir (void)
{
  const char *detail = NULL;
  CtCudaModuleState state;

  if (!CT_HAVE_CUDA)
    {
      g_test_skip ("built without CUDA: no module");
      return;
    }
  g_assert_null (g_getenv ("CT_CUDA_MODULE"));
  state = ct_cuda_module_load (&detail);
  g_test_message ("module: %d, %s", state, detail);
  g_assert_true (state == CT_CUDA_MODULE_LOADED || state == CT_CUDA_MODULE_UNLOADABLE);
  if (state == CT_CUDA_MODULE_LOADED)
    g_assert_cmpstr (detail, ==, "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/status/strings", test_status_strings);
  g_test_add_func ("/kernels/device/stub", test_stub);
  g_test_add_func ("/kernels/device/module/unloadable", test_module_unloadable);
  g_test_add_func ("/kernels/device/module/build-dir", test_module_build_dir);
  return g_test_run ();
}
