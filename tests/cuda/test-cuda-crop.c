/* test-cuda-crop.c: crop.h's windows on the GPU against the CPU twin: N-D
 * windows with offsets on every axis, a 1-D one, an empty one, and the
 * backward leaving the rest of the big blob as it was. */
#include <glib.h>

#include "crop.h"
#include "cuda-test-util.h"
#include "device.h"

static int64_t
count_of (int n_axes, const int64_t *shape)
{
  int64_t count = 1;

  for (int i = 0; i < n_axes; i++)
    count *= shape[i];
  return count;
}

static void
check_crop (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
            const int64_t *offsets)
{
  int64_t n_big = count_of (n_axes, big_shape), n_small = count_of (n_axes, small_shape);
  g_autofree float *big = ct_cuda_test_random (n_big, -1, 1, 1);
  g_autofree float *small = ct_cuda_test_random (n_small, -1, 1, 2);
  g_autofree float *small_diff = ct_cuda_test_random (n_small, -1, 1, 3);
  float *dbig = ct_cuda_test_upload (big, n_big), *dsmall = ct_cuda_test_upload (small, n_small);
  float *dsmall_diff = ct_cuda_test_upload (small_diff, n_small);

  g_assert_cmpint (ct_cpu_crop_forward (n_axes, big_shape, small_shape, offsets, big, small), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_crop_forward (n_axes, big_shape, small_shape, offsets, dbig, dsmall),
                   ==, CT_STATUS_OK);
  ct_cuda_test_assert_close ("crop forward", dsmall, small, n_small, 0);
  g_assert_cmpint (ct_cpu_crop_backward (n_axes, big_shape, small_shape, offsets, small_diff,
                                         big), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_crop_backward (n_axes, big_shape, small_shape, offsets, dsmall_diff,
                                          dbig), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close ("crop backward", dbig, big, n_big, 0);
  ct_cuda_test_free (dbig);
  ct_cuda_test_free (dsmall);
  ct_cuda_test_free (dsmall_diff);
}

static void
test_crop (void)
{
  {
    const int64_t big[] = { 4, 5, 30, 41 }, small[] = { 4, 3, 17, 20 }, off[] = { 0, 1, 5, 21 };
    check_crop (4, big, small, off);
  }
  {
    const int64_t big[] = { 2, 21, 224, 224 }, small[] = { 2, 21, 200, 199 },
                  off[] = { 0, 0, 12, 19 };
    check_crop (4, big, small, off);
  }
  {
    const int64_t big[] = { 100000 }, small[] = { 777 }, off[] = { 98765 };
    check_crop (1, big, small, off);
  }
  {
    const int64_t big[] = { 3, 2, 5, 4, 6 }, small[] = { 2, 1, 3, 4, 2 }, off[] = { 1, 1, 2, 0, 4 };
    check_crop (5, big, small, off);
  }
  {
    const int64_t big[] = { 3, 4 }, small[] = { 0, 4 }, off[] = { 1, 0 };
    check_crop (2, big, small, off);
  }
}

static void
test_invalid (void)
{
  const int64_t big[] = { 3, 4 }, small[] = { 2, 4 }, off[] = { 2, 0 };

  g_assert_cmpint (ct_cuda_crop_forward (2, big, small, off, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_crop_forward (0, big, small, off, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_crop_backward (CT_CROP_MAX_AXES + 1, big, small, off, NULL, NULL), ==,
                   CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/crop/windows", test_crop);
  g_test_add_func ("/cuda/crop/invalid", test_invalid);
  return g_test_run ();
}
