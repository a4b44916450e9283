/* test-blob.c: CtBlob's shapes. Negative axes, count ranges, legacy
 * num/channels/height/width and the seeds' offset formula, overflow and 33
 * axes, reshape errors, huge blobs that fail cleanly, and grow-only
 * capacity. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "blob.h"
#include "engine-error.h"
#include "fake-device.h"
#include "blob-test-util.h"

/* Huge allocations must fail with an error, not abort. */
const char *__asan_default_options (void);
const char *
__asan_default_options (void)
{
  return "allocator_may_return_null=1";
}

static void
test_new (void)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  g_autoptr (GError) error = NULL;

  g_assert_cmpuint (ct_blob_num_axes (blob), ==, 0);
  g_assert_cmpint (ct_blob_count (blob), ==, 0);
  g_assert_cmpint (ct_blob_capacity (blob), ==, 0);
  ct_test_assert_shape_string (blob, "(0)");
  g_assert_nonnull (ct_blob_cpu_data (blob, &error));
  g_assert_no_error (error);
  /* No axes at all is a scalar: one element. */
  g_assert_true (ct_blob_reshape (blob, NULL, 0, &error));
  g_assert_cmpint (ct_blob_count (blob), ==, 1);
  ct_test_assert_shape_string (blob, "(1)");
}

static void
test_shape (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (GError) error = NULL;
  const gint64 *shape = ct_blob_get_shape (blob);

  g_assert_cmpuint (ct_blob_num_axes (blob), ==, 4);
  g_assert_cmpint (ct_blob_count (blob), ==, 120);
  g_assert_cmpint (ct_blob_capacity (blob), ==, 120);
  g_assert_cmpint (shape[0], ==, 2);
  g_assert_cmpint (shape[3], ==, 5);
  ct_test_assert_shape_string (blob, "2 3 4 5 (120)");

  g_assert_cmpint (ct_blob_shape_at (blob, 0, NULL), ==, 2);
  g_assert_cmpint (ct_blob_shape_at (blob, 3, NULL), ==, 5);
  g_assert_cmpint (ct_blob_shape_at (blob, -1, NULL), ==, 5);
  g_assert_cmpint (ct_blob_shape_at (blob, -4, NULL), ==, 2);
  g_assert_cmpint (ct_blob_shape_at (blob, 4, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "2 3 4 5 (120)"));
  g_clear_error (&error);
  g_assert_cmpint (ct_blob_shape_at (blob, -5, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
}

static void
test_canonical_axis (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (CtBlob) empty = ct_blob_new ();
  g_autoptr (GError) error = NULL;
  const int cases[][2] = { { 0, 0 }, { 3, 3 }, { -1, 3 }, { -2, 2 }, { -4, 0 }, { 1, 1 } };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_cmpint (ct_blob_canonical_axis_index (blob, cases[i][0], &error), ==, cases[i][1]);
      g_assert_no_error (error);
    }
  for (int axis = -7; axis <= 7; axis++)
    {
      if (axis >= -4 && axis < 4)
        continue;
      g_assert_cmpint (ct_blob_canonical_axis_index (blob, axis, &error), ==, -1);
      g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
      g_clear_error (&error);
    }
  /* A blob without axes has no valid axis, not even -1 or 0. */
  g_assert_cmpint (ct_blob_canonical_axis_index (empty, 0, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);
  g_assert_cmpint (ct_blob_canonical_axis_index (empty, -1, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
}

static void
test_count_range (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (GError) error = NULL;
  const int bad[][2] = { { 3, 2 }, { -1, 2 }, { 0, 5 }, { 5, 5 }, { 0, -1 } };

  g_assert_cmpint (ct_blob_count_range (blob, 0, 4, NULL), ==, 120);
  g_assert_cmpint (ct_blob_count_range (blob, 1, 3, NULL), ==, 12);
  g_assert_cmpint (ct_blob_count_range (blob, 2, 2, NULL), ==, 1);
  g_assert_cmpint (ct_blob_count_range (blob, 0, 0, NULL), ==, 1);
  g_assert_cmpint (ct_blob_count_range (blob, 4, 4, NULL), ==, 1);
  g_assert_cmpint (ct_blob_count_range (blob, 3, 4, NULL), ==, 5);
  g_assert_cmpint (ct_blob_count_from (blob, 0, NULL), ==, 120);
  g_assert_cmpint (ct_blob_count_from (blob, 1, NULL), ==, 60);
  g_assert_cmpint (ct_blob_count_from (blob, 3, NULL), ==, 5);
  g_assert_cmpint (ct_blob_count_from (blob, 4, NULL), ==, 1);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_cmpint (ct_blob_count_range (blob, bad[i][0], bad[i][1], &error), ==, -1);
      g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
      g_clear_error (&error);
    }
  g_assert_cmpint (ct_blob_count_from (blob, 5, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
}

static void
test_legacy_shape (void)
{
  g_autoptr (CtBlob) four = ct_test_blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (CtBlob) bias = ct_test_blob_of (1, (gint64) 7);
  g_autoptr (CtBlob) weights = ct_test_blob_of (2, (gint64) 10, (gint64) 20);
  g_autoptr (CtBlob) five = ct_test_blob_of (5, (gint64) 1, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (ct_blob_num (four, NULL), ==, 2);
  g_assert_cmpint (ct_blob_channels (four, NULL), ==, 3);
  g_assert_cmpint (ct_blob_height (four, NULL), ==, 4);
  g_assert_cmpint (ct_blob_width (four, NULL), ==, 5);
  g_assert_cmpint (ct_blob_legacy_shape (four, -1, NULL), ==, 5);
  g_assert_cmpint (ct_blob_legacy_shape (four, -4, NULL), ==, 2);

  /* A bias (N): from the front it is N 1 1 1, from the end 1 1 1 N (the
   * seeds' example of the one-padding of legacy blobs). */
  g_assert_cmpint (ct_blob_num (bias, NULL), ==, 7);
  g_assert_cmpint (ct_blob_channels (bias, NULL), ==, 1);
  g_assert_cmpint (ct_blob_height (bias, NULL), ==, 1);
  g_assert_cmpint (ct_blob_width (bias, NULL), ==, 1);
  g_assert_cmpint (ct_blob_legacy_shape (bias, -1, NULL), ==, 7);
  g_assert_cmpint (ct_blob_legacy_shape (bias, -2, NULL), ==, 1);
  g_assert_cmpint (ct_blob_legacy_shape (bias, -4, NULL), ==, 1);

  /* InnerProduct weights (M N) read as 1 1 M N from the end. */
  g_assert_cmpint (ct_blob_num (weights, NULL), ==, 10);
  g_assert_cmpint (ct_blob_channels (weights, NULL), ==, 20);
  g_assert_cmpint (ct_blob_height (weights, NULL), ==, 1);
  g_assert_cmpint (ct_blob_legacy_shape (weights, -4, NULL), ==, 1);
  g_assert_cmpint (ct_blob_legacy_shape (weights, -3, NULL), ==, 1);
  g_assert_cmpint (ct_blob_legacy_shape (weights, -2, NULL), ==, 10);
  g_assert_cmpint (ct_blob_legacy_shape (weights, -1, NULL), ==, 20);

  /* Index range is [-4, 4) whatever the blob. */
  g_assert_cmpint (ct_blob_legacy_shape (bias, 4, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);
  g_assert_cmpint (ct_blob_legacy_shape (four, -5, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);

  /* More than 4 axes: no legacy view at all. */
  g_assert_cmpint (ct_blob_num (five, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_cmpint (ct_blob_width (five, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
}

static void
test_offset (void)
{
  const gint64 N = 2, K = 3, H = 4, W = 5;
  g_autoptr (CtBlob) blob = ct_test_blob_of (4, N, K, H, W);
  g_autoptr (CtBlob) matrix = ct_test_blob_of (2, (gint64) 3, (gint64) 4);
  g_autoptr (CtBlob) five = ct_test_blob_of (5, (gint64) 1, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (GError) error = NULL;
  gint64 expected = 0;
  float *data;

  /* The seeds: (n, k, h, w) lives at ((n * K + k) * H + h) * W + w, and the
   * offsets enumerate the blob in order. */
  ct_test_fill_pattern (blob, 1, -1);
  data = ct_blob_mutable_cpu_data (blob, NULL);
  g_assert_nonnull (data);
  for (gint64 n = 0; n < N; n++)
    for (gint64 k = 0; k < K; k++)
      for (gint64 h = 0; h < H; h++)
        for (gint64 w = 0; w < W; w++)
          {
            const gint64 index[4] = { n, k, h, w };
            g_assert_cmpint (ct_blob_offset (blob, n, k, h, w, NULL), ==, ((n * K + k) * H + h) * W + w);
            g_assert_cmpint (ct_blob_offset (blob, n, k, h, w, NULL), ==, expected);
            g_assert_cmpint (ct_blob_offset_index (blob, index, 4, NULL), ==, expected);
            g_assert_cmpfloat (ct_blob_data_at (blob, n, k, h, w, NULL), ==, (float) expected);
            g_assert_cmpfloat (ct_blob_diff_at (blob, n, k, h, w, NULL), ==, -(float) expected);
            g_assert_cmpfloat (ct_blob_data_at_index (blob, index, 4, NULL), ==, (float) expected);
            g_assert_cmpfloat (ct_blob_diff_at_index (blob, index, 4, NULL), ==, -(float) expected);
            expected++;
          }
  g_assert_cmpint (expected, ==, 120);

  /* Fewer indices: the leading ones, the rest 0. */
  g_assert_cmpint (ct_blob_offset (blob, 1, 0, 0, 0, NULL), ==, 60);
  g_assert_cmpint (ct_blob_offset_index (blob, (const gint64[]) { 1 }, 1, NULL), ==, 60);
  g_assert_cmpint (ct_blob_offset_index (blob, (const gint64[]) { 1, 2 }, 2, NULL), ==, 100);
  g_assert_cmpint (ct_blob_offset_index (blob, NULL, 0, NULL), ==, 0);
  /* As in Caffe, offset() accepts one past the end on each axis. */
  g_assert_cmpint (ct_blob_offset (blob, 2, 0, 0, 0, NULL), ==, 120);
  g_assert_cmpint (ct_blob_offset (blob, 0, 3, 0, 0, NULL), ==, 60);
  /* But reading there is an error. */
  g_assert_cmpfloat (ct_blob_data_at (blob, 2, 0, 0, 0, &error), ==, 0);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);

  g_assert_cmpint (ct_blob_offset (blob, 3, 0, 0, 0, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_cmpint (ct_blob_offset (blob, 0, -1, 0, 0, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);
  g_assert_cmpint (ct_blob_offset (blob, 0, 0, 0, 6, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);
  /* offset(indices) is strict: an index must be below its dimension. */
  g_assert_cmpint (ct_blob_offset_index (blob, (const gint64[]) { 0, 3 }, 2, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);
  g_assert_cmpint (ct_blob_offset_index (blob, (const gint64[]) { 0, 0, 0, 0, 0 }, 5, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);
  g_assert_cmpint (ct_blob_offset_index (blob, (const gint64[]) { -1 }, 1, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS);
  g_clear_error (&error);

  /* A 2-D blob (3 4) is num 3, channels 4, height = width = 1. */
  g_assert_cmpint (ct_blob_offset (matrix, 2, 1, 0, 0, NULL), ==, 9);
  g_assert_cmpint (ct_blob_offset_index (matrix, (const gint64[]) { 2, 1 }, 2, NULL), ==, 9);
  /* The 4-index form needs the legacy view; the N-D one does not. */
  g_assert_cmpint (ct_blob_offset (five, 0, 0, 0, 0, &error), ==, -1);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_assert_cmpint (ct_blob_offset_index (five, (const gint64[]) { 0, 1, 2, 3, 4 }, 5, NULL),
                   ==, (((0 * 2 + 1) * 3 + 2) * 4 + 3) * 5 + 4);
}

static void
test_offset_extremes (void)
{
  /* The largest offset a valid blob can give: one past the end on every
   * axis of 1 x 1 x 1 x (2^61 - 1), four times the count, still in range. */
  const gint64 width = G_MAXINT64 / (gint64) sizeof (float);
  g_autoptr (CtBlob) blob = ct_test_blob_of (4, (gint64) 1, (gint64) 1, (gint64) 1, width);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (ct_blob_count (blob), ==, width);
  g_assert_cmpint (ct_blob_offset (blob, 0, 0, 0, width, &error), ==, width);
  g_assert_cmpint (ct_blob_offset (blob, 1, 1, 1, width, &error), ==, 4 * width);
  g_assert_no_error (error);
  g_assert_true (ct_blob_reshape_4d (blob, 1, 1, 1, width + 1, &error) == FALSE);
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW);
}

static void
test_reshape_errors (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (2, (gint64) 2, (gint64) 3);
  g_autoptr (GError) error = NULL;
  gint64 dims[CT_BLOB_MAX_AXES + 1];
  const gint64 big = (gint64) 1 << 31;

  /* Each refusal leaves the blob as it was. */
  g_assert_false (ct_blob_reshape_4d (blob, 2, -3, 4, 5, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  ct_test_assert_shape_string (blob, "2 3 (6)");

  g_assert_false (ct_blob_reshape (blob, (const gint64[]) { big, big, 4 }, 3, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "2147483648 2147483648 4"));
  g_clear_error (&error);
  g_assert_false (ct_blob_reshape (blob, (const gint64[]) { big, big }, 2, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW);
  g_clear_error (&error);
  g_assert_false (ct_blob_reshape (blob, (const gint64[]) { G_MAXINT64, 2 }, 2, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW);
  g_clear_error (&error);
  /* A zero axis does not excuse the others: count_range must not overflow. */
  g_assert_false (ct_blob_reshape (blob, (const gint64[]) { 0, big, big }, 3, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW);
  g_clear_error (&error);
  ct_test_assert_shape_string (blob, "2 3 (6)");

  for (int i = 0; i < CT_BLOB_MAX_AXES + 1; i++)
    dims[i] = 1;
  g_assert_false (ct_blob_reshape (blob, dims, CT_BLOB_MAX_AXES + 1, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  ct_test_assert_shape_string (blob, "2 3 (6)");
  g_assert_null (ct_blob_new_with_shape (dims, 33, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);

  /* 32 axes is the limit, and allowed. */
  g_assert_true (ct_blob_reshape (blob, dims, CT_BLOB_MAX_AXES, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ct_blob_num_axes (blob), ==, 32);
  g_assert_cmpint (ct_blob_count (blob), ==, 1);
  g_assert_cmpint (ct_blob_shape_at (blob, -32, NULL), ==, 1);

  /* A zero dimension is a valid, empty blob. */
  g_assert_true (ct_blob_reshape (blob, (const gint64[]) { 3, 0, 2 }, 3, &error));
  g_assert_cmpint (ct_blob_count (blob), ==, 0);
  g_assert_cmpint (ct_blob_count_from (blob, 2, NULL), ==, 2);
}

static void
test_huge_blob (void)
{
  /* 2^60 floats: a valid shape (8 EiB would be addressable in principle),
   * but memory cannot hold it: the first access fails with an error. */
  const gint64 big = (gint64) 1 << 30;
  g_autoptr (CtBlob) blob = ct_test_blob_of (2, big, big);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (ct_blob_count (blob), ==, big * big);
  g_assert_null (ct_blob_cpu_data (blob, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_null (ct_blob_to_proto (blob, CT_BLOB_PROTO_DEFAULT, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  /* Norms of memory never written are 0 without allocating. */
  g_assert_cmpfloat (ct_blob_asum_data (blob, &error), ==, 0);
  g_assert_no_error (error);
}

static void
test_capacity (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (GError) error = NULL;
  /* Held, so that a new memory cannot reuse the old one's address. */
  g_autoptr (CtMem) data_mem = ct_mem_ref (ct_blob_get_data_mem (blob));
  g_autoptr (CtMem) diff_mem = ct_mem_ref (ct_blob_get_diff_mem (blob));
  float *data = ct_blob_mutable_cpu_data (blob, NULL);
  float *diff = ct_blob_mutable_cpu_diff (blob, NULL);

  data[5] = 3.5f;
  /* Shrinking keeps the memory, pointers and values. */
  g_assert_true (ct_blob_reshape (blob, (const gint64[]) { 1, 2, 3 }, 3, &error));
  g_assert_cmpint (ct_blob_count (blob), ==, 6);
  g_assert_cmpint (ct_blob_capacity (blob), ==, 120);
  g_assert_true (ct_blob_get_data_mem (blob) == data_mem);
  g_assert_true (ct_blob_get_diff_mem (blob) == diff_mem);
  g_assert_true (ct_blob_mutable_cpu_data (blob, NULL) == data);
  g_assert_true (ct_blob_cpu_diff (blob, NULL) == diff);
  g_assert_cmpfloat (ct_blob_cpu_data (blob, NULL)[5], ==, 3.5f);
  /* Growing back up to the capacity: still the same memory. */
  g_assert_true (ct_blob_reshape_4d (blob, 4, 5, 6, 1, &error));
  g_assert_cmpint (ct_blob_count (blob), ==, 120);
  g_assert_true (ct_blob_get_data_mem (blob) == data_mem);
  g_assert_true (ct_blob_mutable_cpu_data (blob, NULL) == data);
  /* Past the capacity: new, zeroed memory for both. */
  g_assert_true (ct_blob_reshape_4d (blob, 11, 11, 1, 1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_blob_count (blob), ==, 121);
  g_assert_cmpint (ct_blob_capacity (blob), ==, 121);
  g_assert_true (ct_blob_get_data_mem (blob) != data_mem);
  g_assert_true (ct_blob_get_diff_mem (blob) != diff_mem);
  g_assert_cmpuint (ct_mem_get_size (ct_blob_get_data_mem (blob)), ==, 121 * sizeof (float));
  g_assert_cmpfloat (ct_blob_cpu_data (blob, NULL)[5], ==, 0);
  g_assert_cmpint (ct_mem_get_head (ct_blob_get_diff_mem (blob)), ==, CT_MEM_UNINITIALIZED);
}

static void
test_reshape_variants (void)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  g_autoptr (CtBlob) other = ct_test_blob_of (3, (gint64) 7, (gint64) 1, (gint64) 2);
  g_autoptr (GError) error = NULL;
  int64_t dims[] = { 4, 0, 9 };
  Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;

  shape.n_dim = 3;
  shape.dim = dims;
  g_assert_true (ct_blob_reshape_from_shape (blob, &shape, &error));
  g_assert_no_error (error);
  ct_test_assert_shape_string (blob, "4 0 9 (0)");
  g_assert_true (ct_blob_reshape_like (blob, other, &error));
  ct_test_assert_shape_string (blob, "7 1 2 (14)");
  g_assert_true (ct_blob_reshape_from_shape (blob, NULL, &error));
  ct_test_assert_shape_string (blob, "(1)");
  g_assert_true (ct_blob_reshape_4d (blob, 1, 2, 3, 4, &error));
  ct_test_assert_shape_string (blob, "1 2 3 4 (24)");
  dims[1] = -2;
  g_assert_false (ct_blob_reshape_from_shape (blob, &shape, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  ct_test_assert_shape_string (blob, "1 2 3 4 (24)");
  /* Reshaping like itself changes nothing. */
  g_assert_true (ct_blob_reshape_like (blob, blob, NULL));
  ct_test_assert_shape_string (blob, "1 2 3 4 (24)");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/blob/new", test_new);
  g_test_add_func ("/engine/blob/shape", test_shape);
  g_test_add_func ("/engine/blob/canonical-axis", test_canonical_axis);
  g_test_add_func ("/engine/blob/count-range", test_count_range);
  g_test_add_func ("/engine/blob/legacy-shape", test_legacy_shape);
  g_test_add_func ("/engine/blob/offset", test_offset);
  g_test_add_func ("/engine/blob/offset-extremes", test_offset_extremes);
  g_test_add_func ("/engine/blob/reshape-errors", test_reshape_errors);
  g_test_add_func ("/engine/blob/huge", test_huge_blob);
  g_test_add_func ("/engine/blob/capacity", test_capacity);
  g_test_add_func ("/engine/blob/reshape-variants", test_reshape_variants);
  return g_test_run ();
}
