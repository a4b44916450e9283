/* test-blob-data.c: what CtBlob does with its data and diff: copy, share
 * (and grow after sharing), set_cpu_data, update, norms and scaling on both
 * heads (the GPU one through a fake device), and a build without a GPU. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "blob.h"
#include "engine-error.h"
#include "fake-device.h"
#include "blob-test-util.h"

static void
test_copy_from (void)
{
  g_autoptr (CtBlob) source = ct_test_blob_of (2, (gint64) 2, (gint64) 3);
  g_autoptr (CtBlob) target = ct_test_blob_of (2, (gint64) 2, (gint64) 3);
  g_autoptr (CtBlob) transposed = ct_test_blob_of (2, (gint64) 3, (gint64) 2);
  g_autoptr (CtBlob) small = ct_test_blob_of (1, (gint64) 4);
  g_autoptr (GError) error = NULL;

  ct_test_fill_pattern (source, 2, -3);
  g_assert_true (ct_blob_copy_from (target, source, CT_BLOB_COPY_DATA, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 6; i++)
    {
      g_assert_cmpfloat (ct_blob_cpu_data (target, NULL)[i], ==, 2.0f * i);
      g_assert_cmpfloat (ct_blob_cpu_diff (target, NULL)[i], ==, 0);
    }
  g_assert_true (ct_blob_copy_from (target, source, CT_BLOB_COPY_DIFF, &error));
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (ct_blob_cpu_diff (target, NULL)[i], ==, -3.0f * i);

  /* Without RESHAPE, the shapes must match: a different count fails, and
   * so does the same count in another shape (as Caffe). */
  g_assert_false (ct_blob_copy_from (small, source, CT_BLOB_COPY_DATA, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  ct_test_assert_shape_string (small, "4 (4)");
  g_assert_false (ct_blob_copy_from (transposed, source, CT_BLOB_COPY_DIFF, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);

  /* With RESHAPE: takes the shape, then copies. */
  g_assert_true (ct_blob_copy_from (small, source, CT_BLOB_COPY_DATA | CT_BLOB_COPY_RESHAPE, &error));
  ct_test_assert_shape_string (small, "2 3 (6)");
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (ct_blob_cpu_data (small, NULL)[i], ==, 2.0f * i);
  g_assert_true (ct_blob_copy_from (transposed, source, CT_BLOB_COPY_DIFF | CT_BLOB_COPY_RESHAPE, &error));
  ct_test_assert_shape_string (transposed, "2 3 (6)");
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (ct_blob_cpu_diff (transposed, NULL)[i], ==, -3.0f * i);

  /* Onto itself: harmless. */
  g_assert_true (ct_blob_copy_from (source, source, CT_BLOB_COPY_DATA, &error));
  g_assert_cmpfloat (ct_blob_cpu_data (source, NULL)[5], ==, 10);
}

static void
test_share (void)
{
  g_autoptr (CtBlob) a = ct_test_blob_of (2, (gint64) 2, (gint64) 3);
  g_autoptr (CtBlob) b = ct_test_blob_of (1, (gint64) 6);
  g_autoptr (CtBlob) c = ct_test_blob_of (1, (gint64) 5);
  g_autoptr (GError) error = NULL;
  float *a_data;

  ct_test_fill_pattern (a, 1, 10);
  g_assert_true (ct_blob_share_data (b, a, &error));
  g_assert_no_error (error);
  g_assert_true (ct_blob_get_data_mem (b) == ct_blob_get_data_mem (a));
  g_assert_true (ct_blob_get_diff_mem (b) != ct_blob_get_diff_mem (a));
  a_data = ct_blob_mutable_cpu_data (a, NULL);
  g_assert_true (ct_blob_cpu_data (b, NULL) == a_data);
  /* Writes through either blob are seen by both. */
  ct_blob_mutable_cpu_data (b, NULL)[2] = 42;
  g_assert_cmpfloat (a_data[2], ==, 42);
  g_assert_cmpfloat (ct_blob_cpu_diff (b, NULL)[2], ==, 0);

  g_assert_true (ct_blob_share_diff (b, a, &error));
  g_assert_cmpfloat (ct_blob_cpu_diff (b, NULL)[2], ==, 20);
  /* Sharing with oneself changes nothing. */
  g_assert_true (ct_blob_share_data (a, a, &error));
  g_assert_cmpfloat (ct_blob_cpu_data (a, NULL)[2], ==, 42);

  /* Counts must match. */
  g_assert_false (ct_blob_share_data (c, a, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_false (ct_blob_share_diff (c, a, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);

  /* Freeing the owner keeps the shared memory alive for the other blob. */
  g_clear_pointer (&a, ct_blob_free);
  g_assert_cmpfloat (ct_blob_cpu_data (b, NULL)[2], ==, 42);
  g_assert_cmpfloat (ct_blob_cpu_diff (b, NULL)[3], ==, 30);
}

static void
test_share_then_grow (void)
{
  /* B has capacity 120 but takes A's 6-float memory; growing B within its
   * capacity must not write past A's memory (ASan checks). */
  g_autoptr (CtBlob) a = ct_test_blob_of (1, (gint64) 6);
  g_autoptr (CtBlob) b = ct_test_blob_of (1, (gint64) 120);
  float *b_data;

  g_assert_true (ct_blob_reshape (b, (const gint64[]) { 6 }, 1, NULL));
  g_assert_true (ct_blob_share_data (b, a, NULL));
  g_assert_true (ct_blob_reshape (b, (const gint64[]) { 100 }, 1, NULL));
  g_assert_true (ct_blob_get_data_mem (b) != ct_blob_get_data_mem (a));
  b_data = ct_blob_mutable_cpu_data (b, NULL);
  for (int i = 0; i < 100; i++)
    b_data[i] = 1;
  g_assert_cmpint (ct_blob_capacity (b), ==, 120);
  g_assert_cmpfloat (ct_blob_asum_data (b, NULL), ==, 100);
  g_assert_cmpfloat (ct_blob_asum_data (a, NULL), ==, 0);
}

static void
test_set_cpu_data (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (1, (gint64) 4);
  g_autoptr (CtBlob) big = ct_test_blob_of (1, (gint64) 8);
  float external[4] = { 1, -2, 3, -4 };
  g_autoptr (CtMem) old_data = ct_mem_ref (ct_blob_get_data_mem (big));

  /* Exactly count floats already: the memory object stays. */
  ct_blob_set_cpu_data (blob, external);
  g_assert_true (ct_blob_cpu_data (blob, NULL) == external);
  g_assert_cmpfloat (ct_blob_asum_data (blob, NULL), ==, 10);
  /* A blob whose memory is larger than its count gets fresh, exact ones
   * first (as Caffe), so that data and diff keep one size. */
  g_assert_true (ct_blob_reshape (big, (const gint64[]) { 4 }, 1, NULL));
  ct_blob_set_cpu_data (big, external);
  g_assert_true (ct_blob_get_data_mem (big) != old_data);
  g_assert_cmpuint (ct_mem_get_size (ct_blob_get_diff_mem (big)), ==, 4 * sizeof (float));
  g_assert_true (ct_blob_mutable_cpu_data (big, NULL) == external);
  /* Growing past the external array must not write into it. */
  g_assert_true (ct_blob_reshape (big, (const gint64[]) { 8 }, 1, NULL));
  g_assert_true (ct_blob_cpu_data (big, NULL) != external);
  /* Freeing the blobs must not free the stack array (ASan checks). */
}

static void
test_update (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (2, (gint64) 3, (gint64) 5);
  g_autoptr (CtBlob) fresh = ct_test_blob_of (1, (gint64) 3);
  g_autoptr (GError) error = NULL;

  ct_test_fill_pattern (blob, 3, 1);
  /* The data head is on the CPU: data = 3i - i. */
  g_assert_true (ct_blob_update (blob, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 15; i++)
    g_assert_cmpfloat (ct_blob_cpu_data (blob, NULL)[i], ==, 2.0f * i);
  g_assert_cmpint (ct_mem_get_head (ct_blob_get_data_mem (blob)), ==, CT_MEM_HEAD_AT_CPU);

  /* Data never written: Caffe's "not initialized", as an error. */
  g_assert_false (ct_blob_update (fresh, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_STATE);
  g_test_message ("%s", error->message);
}

static void
test_norms_and_scale (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (1, (gint64) 4);
  g_autoptr (CtBlob) fresh = ct_test_blob_of (1, (gint64) 4);
  g_autoptr (GError) error = NULL;
  float *data = ct_blob_mutable_cpu_data (blob, NULL);
  float *diff = ct_blob_mutable_cpu_diff (blob, NULL);
  const float values[4] = { 1, -2, 3, -4 };

  for (int i = 0; i < 4; i++)
    {
      data[i] = values[i];
      diff[i] = 0.5f * values[i];
    }
  g_assert_cmpfloat (ct_blob_asum_data (blob, &error), ==, 10);
  g_assert_cmpfloat (ct_blob_asum_diff (blob, &error), ==, 5);
  g_assert_cmpfloat (ct_blob_sumsq_data (blob, &error), ==, 30);
  g_assert_cmpfloat (ct_blob_sumsq_diff (blob, &error), ==, 7.5);
  g_assert_no_error (error);
  g_assert_true (ct_blob_scale_data (blob, -2, &error));
  g_assert_true (ct_blob_scale_diff (blob, 4, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 4; i++)
    {
      g_assert_cmpfloat (ct_blob_cpu_data (blob, NULL)[i], ==, -2 * values[i]);
      g_assert_cmpfloat (ct_blob_cpu_diff (blob, NULL)[i], ==, 2 * values[i]);
    }
  g_assert_cmpfloat (ct_blob_asum_data (blob, NULL), ==, 20);
  g_assert_cmpfloat (ct_blob_sumsq_diff (blob, NULL), ==, 120);

  /* Memory never written: zeros, and nothing gets allocated. */
  g_assert_cmpfloat (ct_blob_asum_data (fresh, &error), ==, 0);
  g_assert_cmpfloat (ct_blob_sumsq_diff (fresh, &error), ==, 0);
  g_assert_true (ct_blob_scale_data (fresh, 3, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_mem_get_head (ct_blob_get_data_mem (fresh)), ==, CT_MEM_UNINITIALIZED);
  g_assert_cmpint (ct_mem_get_head (ct_blob_get_diff_mem (fresh)), ==, CT_MEM_UNINITIALIZED);
}

static void
test_no_gpu (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (1, (gint64) 4);
  g_autoptr (GError) error = NULL;

  if (CT_HAVE_CUDA)
    {
      g_test_skip ("built with CUDA");
      return;
    }
  g_assert_null (ct_blob_gpu_data (blob, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_null (ct_blob_mutable_gpu_data (blob, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_clear_error (&error);
  g_assert_null (ct_blob_gpu_diff (blob, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_clear_error (&error);
  g_assert_null (ct_blob_mutable_gpu_diff (blob, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_clear_error (&error);
  g_assert_null (ct_blob_gpu_shape (blob, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_clear_error (&error);
  /* The CPU side is untouched by the failures. */
  ct_test_fill_pattern (blob, 1, 1);
  g_assert_cmpfloat (ct_blob_asum_data (blob, NULL), ==, 6);
}

static void
test_gpu_head (void)
{
  g_autoptr (CtBlob) blob = NULL;
  g_autoptr (GError) error = NULL;
  const gint64 *shape;
  float *data, *diff;

  /* With data on the (fake) GPU, the operations take the GPU path; this
   * build has no CUDA kernels, so each falls back to the CPU after copying
   * the values back, and the results are the same. */
  fake_device_install ();
  blob = ct_test_blob_of (2, (gint64) 2, (gint64) 2);
  data = ct_blob_mutable_gpu_data (blob, &error);
  diff = ct_blob_mutable_gpu_diff (blob, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 4; i++)
    {
      data[i] = (float) (i + 1);
      diff[i] = 0.5f;
    }
  g_assert_cmpint (ct_mem_get_head (ct_blob_get_data_mem (blob)), ==, CT_MEM_HEAD_AT_GPU);
  g_assert_cmpfloat (ct_blob_asum_data (blob, &error), ==, 10);
  g_assert_cmpfloat (ct_blob_sumsq_data (blob, &error), ==, 30);
  g_assert_cmpfloat (ct_blob_asum_diff (blob, &error), ==, 2);
  g_assert_true (ct_blob_update (blob, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ct_blob_data_at (blob, 1, 1, 0, 0, NULL), ==, 3.5f);
  g_assert_true (ct_blob_scale_diff (blob, 2, &error));
  g_assert_cmpfloat (ct_blob_sumsq_diff (blob, &error), ==, 4);
  g_assert_no_error (error);

  /* The shape on the device, refreshed after a reshape. */
  shape = ct_blob_gpu_shape (blob, &error);
  g_assert_no_error (error);
  g_assert_cmpint (shape[0], ==, 2);
  g_assert_cmpint (shape[1], ==, 2);
  g_assert_true (ct_blob_reshape (blob, (const gint64[]) { 1, 3, 1 }, 3, NULL));
  shape = ct_blob_gpu_shape (blob, &error);
  g_assert_cmpint (shape[0], ==, 1);
  g_assert_cmpint (shape[1], ==, 3);
  g_assert_cmpint (shape[2], ==, 1);

  /* A device that fails makes each operation fail cleanly. */
  data = ct_blob_mutable_gpu_data (blob, &error);
  g_assert_nonnull (data);
  fake_device_stats.fail_with = CT_STATUS_DEVICE_ERROR;
  g_assert_false (ct_blob_update (blob, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_DEVICE);
  g_clear_error (&error);
  g_assert_cmpfloat (ct_blob_asum_data (blob, &error), ==, 0);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_DEVICE);
  g_clear_error (&error);
  g_assert_null (ct_blob_to_proto (blob, CT_BLOB_PROTO_DEFAULT, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_DEVICE);
  fake_device_stats.fail_with = CT_STATUS_OK;

  g_clear_pointer (&blob, ct_blob_free);
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 0);
  fake_device_uninstall ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/blob/copy-from", test_copy_from);
  g_test_add_func ("/engine/blob/share", test_share);
  g_test_add_func ("/engine/blob/share-then-grow", test_share_then_grow);
  g_test_add_func ("/engine/blob/set-cpu-data", test_set_cpu_data);
  g_test_add_func ("/engine/blob/update", test_update);
  g_test_add_func ("/engine/blob/norms-and-scale", test_norms_and_scale);
  g_test_add_func ("/engine/blob/no-gpu", test_no_gpu);
  g_test_add_func ("/engine/blob/gpu-head", test_gpu_head);
  return g_test_run ();
}
