/* test-blob.c: every CtBlob method. Shapes (negative axes, count ranges,
 * legacy num/channels/height/width and the seeds' offset formula, overflow,
 * 33 axes), grow-only capacity, copy, share, update, norms and scaling on
 * both heads (the GPU one through a fake device), BlobProto round trips in
 * float, double and legacy 4-D form, Caffe's ShapeEquals rules, and every
 * parameter blob of the trained LeNet in tests/data. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "blob.h"
#include "engine-error.h"
#include "fake-device.h"

/* Huge allocations must fail with an error, not abort. */
const char *__asan_default_options (void);
const char *
__asan_default_options (void)
{
  return "allocator_may_return_null=1";
}

static CtBlob *
blob_of (guint n_axes, ...)
{
  gint64 dims[CT_BLOB_MAX_AXES];
  va_list args;
  g_autoptr (GError) error = NULL;
  CtBlob *blob;

  va_start (args, n_axes);
  for (guint i = 0; i < n_axes; i++)
    dims[i] = va_arg (args, gint64);
  va_end (args);
  blob = ct_blob_new_with_shape (dims, n_axes, &error);
  g_assert_no_error (error);
  return blob;
}

static void
assert_shape_string (const CtBlob *blob, const char *want)
{
  g_autofree char *shape = ct_blob_shape_string (blob);

  g_assert_cmpstr (shape, ==, want);
}

/* Data = 0, 1, 2, ... (times SCALE); diff likewise with DIFF_SCALE. */
static void
fill_pattern (CtBlob *blob, float scale, float diff_scale)
{
  float *data = ct_blob_mutable_cpu_data (blob, NULL);
  float *diff = ct_blob_mutable_cpu_diff (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    {
      data[i] = scale * (float) i;
      diff[i] = diff_scale * (float) i;
    }
}

static void
test_new (void)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  g_autoptr (GError) error = NULL;

  g_assert_cmpuint (ct_blob_num_axes (blob), ==, 0);
  g_assert_cmpint (ct_blob_count (blob), ==, 0);
  g_assert_cmpint (ct_blob_capacity (blob), ==, 0);
  assert_shape_string (blob, "(0)");
  g_assert_nonnull (ct_blob_cpu_data (blob, &error));
  g_assert_no_error (error);
  /* No axes at all is a scalar: one element. */
  g_assert_true (ct_blob_reshape (blob, NULL, 0, &error));
  g_assert_cmpint (ct_blob_count (blob), ==, 1);
  assert_shape_string (blob, "(1)");
}

static void
test_shape (void)
{
  g_autoptr (CtBlob) blob = blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (GError) error = NULL;
  const gint64 *shape = ct_blob_get_shape (blob);

  g_assert_cmpuint (ct_blob_num_axes (blob), ==, 4);
  g_assert_cmpint (ct_blob_count (blob), ==, 120);
  g_assert_cmpint (ct_blob_capacity (blob), ==, 120);
  g_assert_cmpint (shape[0], ==, 2);
  g_assert_cmpint (shape[3], ==, 5);
  assert_shape_string (blob, "2 3 4 5 (120)");

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
  g_autoptr (CtBlob) blob = blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
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
  g_autoptr (CtBlob) blob = blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
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
  g_autoptr (CtBlob) four = blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (CtBlob) bias = blob_of (1, (gint64) 7);
  g_autoptr (CtBlob) weights = blob_of (2, (gint64) 10, (gint64) 20);
  g_autoptr (CtBlob) five = blob_of (5, (gint64) 1, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
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
  g_autoptr (CtBlob) blob = blob_of (4, N, K, H, W);
  g_autoptr (CtBlob) matrix = blob_of (2, (gint64) 3, (gint64) 4);
  g_autoptr (CtBlob) five = blob_of (5, (gint64) 1, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (GError) error = NULL;
  gint64 expected = 0;
  float *data;

  /* The seeds: (n, k, h, w) lives at ((n * K + k) * H + h) * W + w, and the
   * offsets enumerate the blob in order. */
  fill_pattern (blob, 1, -1);
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
  g_autoptr (CtBlob) blob = blob_of (4, (gint64) 1, (gint64) 1, (gint64) 1, width);
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
  g_autoptr (CtBlob) blob = blob_of (2, (gint64) 2, (gint64) 3);
  g_autoptr (GError) error = NULL;
  gint64 dims[CT_BLOB_MAX_AXES + 1];
  const gint64 big = (gint64) 1 << 31;

  /* Each refusal leaves the blob as it was. */
  g_assert_false (ct_blob_reshape_4d (blob, 2, -3, 4, 5, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  assert_shape_string (blob, "2 3 (6)");

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
  assert_shape_string (blob, "2 3 (6)");

  for (int i = 0; i < CT_BLOB_MAX_AXES + 1; i++)
    dims[i] = 1;
  g_assert_false (ct_blob_reshape (blob, dims, CT_BLOB_MAX_AXES + 1, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  assert_shape_string (blob, "2 3 (6)");
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
  g_autoptr (CtBlob) blob = blob_of (2, big, big);
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
  g_autoptr (CtBlob) blob = blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
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
  g_autoptr (CtBlob) other = blob_of (3, (gint64) 7, (gint64) 1, (gint64) 2);
  g_autoptr (GError) error = NULL;
  int64_t dims[] = { 4, 0, 9 };
  Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;

  shape.n_dim = 3;
  shape.dim = dims;
  g_assert_true (ct_blob_reshape_from_shape (blob, &shape, &error));
  g_assert_no_error (error);
  assert_shape_string (blob, "4 0 9 (0)");
  g_assert_true (ct_blob_reshape_like (blob, other, &error));
  assert_shape_string (blob, "7 1 2 (14)");
  g_assert_true (ct_blob_reshape_from_shape (blob, NULL, &error));
  assert_shape_string (blob, "(1)");
  g_assert_true (ct_blob_reshape_4d (blob, 1, 2, 3, 4, &error));
  assert_shape_string (blob, "1 2 3 4 (24)");
  dims[1] = -2;
  g_assert_false (ct_blob_reshape_from_shape (blob, &shape, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  assert_shape_string (blob, "1 2 3 4 (24)");
  /* Reshaping like itself changes nothing. */
  g_assert_true (ct_blob_reshape_like (blob, blob, NULL));
  assert_shape_string (blob, "1 2 3 4 (24)");
}

static void
test_copy_from (void)
{
  g_autoptr (CtBlob) source = blob_of (2, (gint64) 2, (gint64) 3);
  g_autoptr (CtBlob) target = blob_of (2, (gint64) 2, (gint64) 3);
  g_autoptr (CtBlob) transposed = blob_of (2, (gint64) 3, (gint64) 2);
  g_autoptr (CtBlob) small = blob_of (1, (gint64) 4);
  g_autoptr (GError) error = NULL;

  fill_pattern (source, 2, -3);
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
  assert_shape_string (small, "4 (4)");
  g_assert_false (ct_blob_copy_from (transposed, source, CT_BLOB_COPY_DIFF, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);

  /* With RESHAPE: takes the shape, then copies. */
  g_assert_true (ct_blob_copy_from (small, source, CT_BLOB_COPY_DATA | CT_BLOB_COPY_RESHAPE, &error));
  assert_shape_string (small, "2 3 (6)");
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (ct_blob_cpu_data (small, NULL)[i], ==, 2.0f * i);
  g_assert_true (ct_blob_copy_from (transposed, source, CT_BLOB_COPY_DIFF | CT_BLOB_COPY_RESHAPE, &error));
  assert_shape_string (transposed, "2 3 (6)");
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (ct_blob_cpu_diff (transposed, NULL)[i], ==, -3.0f * i);

  /* Onto itself: harmless. */
  g_assert_true (ct_blob_copy_from (source, source, CT_BLOB_COPY_DATA, &error));
  g_assert_cmpfloat (ct_blob_cpu_data (source, NULL)[5], ==, 10);
}

static void
test_share (void)
{
  g_autoptr (CtBlob) a = blob_of (2, (gint64) 2, (gint64) 3);
  g_autoptr (CtBlob) b = blob_of (1, (gint64) 6);
  g_autoptr (CtBlob) c = blob_of (1, (gint64) 5);
  g_autoptr (GError) error = NULL;
  float *a_data;

  fill_pattern (a, 1, 10);
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
  g_autoptr (CtBlob) a = blob_of (1, (gint64) 6);
  g_autoptr (CtBlob) b = blob_of (1, (gint64) 120);
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
  g_autoptr (CtBlob) blob = blob_of (1, (gint64) 4);
  g_autoptr (CtBlob) big = blob_of (1, (gint64) 8);
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
  g_autoptr (CtBlob) blob = blob_of (2, (gint64) 3, (gint64) 5);
  g_autoptr (CtBlob) fresh = blob_of (1, (gint64) 3);
  g_autoptr (GError) error = NULL;

  fill_pattern (blob, 3, 1);
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
  g_autoptr (CtBlob) blob = blob_of (1, (gint64) 4);
  g_autoptr (CtBlob) fresh = blob_of (1, (gint64) 4);
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
  g_autoptr (CtBlob) blob = blob_of (1, (gint64) 4);
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
  fill_pattern (blob, 1, 1);
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
  blob = blob_of (2, (gint64) 2, (gint64) 2);
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

static void
free_proto (Caffe__BlobProto *proto)
{
  protobuf_c_message_free_unpacked ((ProtobufCMessage *) proto, NULL);
}

/* Packs PROTO to bytes and unpacks it again, as a file would. */
static Caffe__BlobProto *
through_wire (const Caffe__BlobProto *proto)
{
  gsize size = caffe__blob_proto__get_packed_size (proto);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));
  Caffe__BlobProto *copy;

  g_assert_cmpuint (caffe__blob_proto__pack (proto, bytes), ==, size);
  copy = caffe__blob_proto__unpack (NULL, size, bytes);
  g_assert_nonnull (copy);
  return copy;
}

static void
test_proto_float (void)
{
  g_autoptr (CtBlob) blob = blob_of (3, (gint64) 2, (gint64) 1, (gint64) 3);
  g_autoptr (CtBlob) back = ct_blob_new ();
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto *proto, *wire;

  fill_pattern (blob, 0.25f, -1);
  proto = ct_blob_to_proto (blob, CT_BLOB_PROTO_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_nonnull (proto->shape);
  g_assert_cmpuint (proto->shape->n_dim, ==, 3);
  g_assert_cmpint (proto->shape->dim[0], ==, 2);
  g_assert_cmpint (proto->shape->dim[2], ==, 3);
  g_assert_false (proto->has_num || proto->has_channels || proto->has_height || proto->has_width);
  g_assert_cmpuint (proto->n_data, ==, 6);
  g_assert_cmpuint (proto->n_diff, ==, 0);
  g_assert_cmpuint (proto->n_double_data, ==, 0);
  g_assert_cmpfloat (proto->data[5], ==, 1.25f);
  wire = through_wire (proto);
  free_proto (proto);

  g_assert_true (ct_blob_from_proto (back, wire, TRUE, &error));
  g_assert_no_error (error);
  assert_shape_string (back, "2 1 3 (6)");
  for (int i = 0; i < 6; i++)
    {
      g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[i], ==, 0.25f * i);
      g_assert_cmpfloat (ct_blob_cpu_diff (back, NULL)[i], ==, 0);
    }
  free_proto (wire);

  /* With the diff. */
  proto = ct_blob_to_proto (blob, CT_BLOB_PROTO_WRITE_DIFF, &error);
  g_assert_cmpuint (proto->n_diff, ==, 6);
  g_assert_cmpfloat (proto->diff[4], ==, -4);
  wire = through_wire (proto);
  free_proto (proto);
  g_assert_true (ct_blob_from_proto (back, wire, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ct_blob_cpu_diff (back, NULL)[4], ==, -4);
  free_proto (wire);
}

static void
test_proto_double (void)
{
  g_autoptr (CtBlob) blob = blob_of (2, (gint64) 2, (gint64) 2);
  g_autoptr (CtBlob) back = ct_blob_new ();
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto *proto, *wire;

  fill_pattern (blob, 1.5f, 0.125f);
  proto = ct_blob_to_proto (blob, CT_BLOB_PROTO_DOUBLE | CT_BLOB_PROTO_WRITE_DIFF, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (proto->n_data, ==, 0);
  g_assert_cmpuint (proto->n_diff, ==, 0);
  g_assert_cmpuint (proto->n_double_data, ==, 4);
  g_assert_cmpuint (proto->n_double_diff, ==, 4);
  g_assert_cmpfloat (proto->double_data[3], ==, 4.5);
  g_assert_cmpfloat (proto->double_diff[3], ==, 0.375);
  wire = through_wire (proto);
  free_proto (proto);
  g_assert_true (ct_blob_from_proto (back, wire, TRUE, &error));
  g_assert_no_error (error);
  assert_shape_string (back, "2 2 (4)");
  g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[3], ==, 4.5f);
  g_assert_cmpfloat (ct_blob_cpu_diff (back, NULL)[3], ==, 0.375f);
  free_proto (wire);

  /* double_data wins over data when both are present, as in Caffe. */
  {
    Caffe__BlobProto mixed = CAFFE__BLOB_PROTO__INIT;
    Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;
    int64_t dims[1] = { 2 };
    float floats[2] = { 1, 2 };
    double doubles[2] = { 1e-3, -0.5 };
    shape.n_dim = 1;
    shape.dim = dims;
    mixed.shape = &shape;
    mixed.n_data = 2;
    mixed.data = floats;
    mixed.n_double_data = 2;
    mixed.double_data = doubles;
    g_assert_true (ct_blob_from_proto (back, &mixed, TRUE, &error));
    g_assert_no_error (error);
    assert_shape_string (back, "2 (2)");
    g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[0], ==, 1e-3f);
    g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[1], ==, -0.5f);
  }
}

static void
test_proto_scalar (void)
{
  /* A blob with no axes holds one element and writes no shape at all. */
  g_autoptr (CtBlob) scalar = ct_blob_new ();
  g_autoptr (CtBlob) back = blob_of (1, (gint64) 5);
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto *proto;

  g_assert_true (ct_blob_reshape (scalar, NULL, 0, NULL));
  ct_blob_mutable_cpu_data (scalar, NULL)[0] = 7;
  proto = ct_blob_to_proto (scalar, CT_BLOB_PROTO_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_null (proto->shape);
  g_assert_cmpuint (proto->n_data, ==, 1);
  g_assert_true (ct_blob_from_proto (back, proto, TRUE, &error));
  g_assert_no_error (error);
  assert_shape_string (back, "(1)");
  g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[0], ==, 7);
  free_proto (proto);
}

static void
test_proto_legacy (void)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  g_autoptr (CtBlob) bias = blob_of (1, (gint64) 3);
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto proto = CAFFE__BLOB_PROTO__INIT;
  Caffe__BlobShape ignored = CAFFE__BLOB_SHAPE__INIT;
  int64_t ignored_dims[2] = { 9, 9 };
  float values[12];

  for (int i = 0; i < 12; i++)
    values[i] = (float) i;
  /* Legacy fields win over `shape` and give 4 axes. */
  ignored.n_dim = 2;
  ignored.dim = ignored_dims;
  proto.shape = &ignored;
  proto.has_num = proto.has_channels = proto.has_height = proto.has_width = TRUE;
  proto.num = 1;
  proto.channels = 1;
  proto.height = 3;
  proto.width = 4;
  proto.n_data = 12;
  proto.data = values;
  g_assert_true (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_no_error (error);
  assert_shape_string (blob, "1 1 3 4 (12)");
  g_assert_cmpfloat (ct_blob_data_at (blob, 0, 0, 2, 3, NULL), ==, 11);

  /* A (1 1 1 3) legacy bias loads into a (3) blob without reshaping: the
   * legacy view compares from the end. */
  proto.shape = NULL;
  proto.height = 1;
  proto.width = 3;
  proto.n_data = 3;
  g_assert_true (ct_blob_from_proto (bias, &proto, FALSE, &error));
  g_assert_no_error (error);
  assert_shape_string (bias, "3 (3)");
  g_assert_cmpfloat (ct_blob_cpu_data (bias, NULL)[2], ==, 2);

  /* Only some legacy fields set: the others are their default 0, as Caffe
   * reads them, so the blob is empty and takes no values. */
  proto.has_height = proto.has_width = FALSE;
  proto.height = proto.width = 0;
  proto.num = 2;
  proto.channels = 5;
  proto.n_data = 0;
  g_assert_true (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_no_error (error);
  assert_shape_string (blob, "2 5 0 0 (0)");
}

static void
test_proto_errors (void)
{
  g_autoptr (CtBlob) blob = blob_of (2, (gint64) 2, (gint64) 2);
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto proto = CAFFE__BLOB_PROTO__INIT;
  Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;
  int64_t dims[CT_BLOB_MAX_AXES + 1];
  float values[6] = { 1, 2, 3, 4, 5, 6 };
  double doubles[6] = { 1, 2, 3, 4, 5, 6 };
  guint refused = 0;

  fill_pattern (blob, 1, 1);
  shape.n_dim = 2;
  shape.dim = dims;
  dims[0] = 2;
  dims[1] = 3;
  proto.shape = &shape;

  /* Too few data values for the shape. */
  proto.n_data = 5;
  proto.data = values;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  refused++;
  /* No data at all for a non-empty shape. */
  proto.n_data = 0;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_clear_error (&error);
  refused++;
  /* Right data, wrong diff count (float, then double). */
  proto.n_data = 6;
  proto.n_diff = 4;
  proto.diff = values;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_assert_nonnull (strstr (error->message, "diff"));
  g_clear_error (&error);
  refused++;
  proto.n_diff = 0;
  proto.n_double_diff = 7;
  proto.double_diff = doubles;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_assert_nonnull (strstr (error->message, "double_diff"));
  g_clear_error (&error);
  refused++;
  proto.n_double_diff = 0;
  /* Wrong double_data count, even with a matching float data. */
  proto.n_double_data = 2;
  proto.double_data = doubles;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_clear_error (&error);
  refused++;
  proto.n_double_data = 0;
  /* Without reshape, the shape must already match. */
  g_assert_false (ct_blob_from_proto (blob, &proto, FALSE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  refused++;
  /* Bad shapes: negative, 33 axes, overflowing, negative legacy. */
  dims[1] = -3;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);
  refused++;
  for (int i = 0; i < CT_BLOB_MAX_AXES + 1; i++)
    dims[i] = 1;
  shape.n_dim = CT_BLOB_MAX_AXES + 1;
  proto.n_data = 1;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);
  refused++;
  shape.n_dim = 3;
  dims[0] = dims[1] = (int64_t) 1 << 31;
  dims[2] = 4;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW);
  g_clear_error (&error);
  refused++;
  proto.shape = NULL;
  proto.has_num = TRUE;
  proto.num = -1;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);
  refused++;

  /* After every refusal, the blob is as it was. */
  assert_shape_string (blob, "2 2 (4)");
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (ct_blob_cpu_data (blob, NULL)[i], ==, (float) i);
  g_assert_cmpuint (refused, ==, 10);
}

static Caffe__BlobProto
legacy_proto (int num, int channels, int height, int width)
{
  Caffe__BlobProto proto = CAFFE__BLOB_PROTO__INIT;

  proto.has_num = proto.has_channels = proto.has_height = proto.has_width = TRUE;
  proto.num = num;
  proto.channels = channels;
  proto.height = height;
  proto.width = width;
  return proto;
}

static void
test_shape_equals (void)
{
  g_autoptr (CtBlob) bias = blob_of (1, (gint64) 7);
  g_autoptr (CtBlob) weights = blob_of (2, (gint64) 10, (gint64) 20);
  g_autoptr (CtBlob) four = blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (CtBlob) five = blob_of (5, (gint64) 1, (gint64) 1, (gint64) 1, (gint64) 1, (gint64) 7);
  g_autoptr (CtBlob) scalar = ct_blob_new ();
  Caffe__BlobProto proto;
  Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;
  int64_t dims[3] = { 10, 20, 1 };

  /* Legacy protos compare as 4-D, missing leading axes 1. */
  proto = legacy_proto (1, 1, 1, 7);
  g_assert_true (ct_blob_shape_equals (bias, &proto));
  g_assert_false (ct_blob_shape_equals (five, &proto)); /* more than 4 axes */
  proto = legacy_proto (7, 1, 1, 1);
  g_assert_false (ct_blob_shape_equals (bias, &proto));
  proto = legacy_proto (1, 1, 10, 20);
  g_assert_true (ct_blob_shape_equals (weights, &proto));
  proto = legacy_proto (10, 20, 1, 1);
  g_assert_false (ct_blob_shape_equals (weights, &proto));
  proto = legacy_proto (2, 3, 4, 5);
  g_assert_true (ct_blob_shape_equals (four, &proto));
  proto = legacy_proto (2, 3, 5, 4);
  g_assert_false (ct_blob_shape_equals (four, &proto));
  /* One legacy field set: the others are 0, and 0 is not the padding 1. */
  proto = (Caffe__BlobProto) CAFFE__BLOB_PROTO__INIT;
  proto.has_width = TRUE;
  proto.width = 7;
  g_assert_false (ct_blob_shape_equals (bias, &proto));
  /* A legacy field wins over `shape`. */
  proto = legacy_proto (1, 1, 10, 20);
  shape.n_dim = 3;
  shape.dim = dims;
  proto.shape = &shape;
  g_assert_true (ct_blob_shape_equals (weights, &proto));

  /* N-D protos compare exactly: no padding, same number of axes. */
  proto = (Caffe__BlobProto) CAFFE__BLOB_PROTO__INIT;
  proto.shape = &shape;
  g_assert_false (ct_blob_shape_equals (weights, &proto)); /* 10 20 1 */
  shape.n_dim = 2;
  g_assert_true (ct_blob_shape_equals (weights, &proto)); /* 10 20 */
  dims[0] = 20;
  dims[1] = 10;
  g_assert_false (ct_blob_shape_equals (weights, &proto));
  shape.n_dim = 1;
  dims[0] = 7;
  g_assert_true (ct_blob_shape_equals (bias, &proto));
  /* No shape at all: only a blob without axes. */
  proto.shape = NULL;
  g_assert_true (ct_blob_shape_equals (scalar, &proto));
  g_assert_false (ct_blob_shape_equals (bias, &proto));
}

/* Every parameter blob of the reference caffemodels in tests/data (the
 * trained Fashion-MNIST LeNet, and the freshly filled layer zoo): load,
 * compare values, write back, load again. Returns the blob count. */
static guint
check_caffemodel (const char *name, gint64 *parameters)
{
  const char *data_dir = g_getenv ("CT_TEST_DATA");
  g_autofree char *path = NULL;
  g_autofree char *bytes = NULL;
  g_autoptr (GError) error = NULL;
  gsize length;
  Caffe__NetParameter *net;
  guint blobs = 0;

  g_assert_nonnull (data_dir);
  path = g_build_filename (data_dir, "reference", name, NULL);
  g_assert_true (g_file_get_contents (path, &bytes, &length, &error));
  g_assert_no_error (error);
  net = caffe__net_parameter__unpack (NULL, length, (const guint8 *) bytes);
  g_assert_nonnull (net);

  *parameters = 0;
  for (gsize l = 0; l < net->n_layer; l++)
    for (gsize b = 0; b < net->layer[l]->n_blobs; b++)
      {
        const Caffe__BlobProto *proto = net->layer[l]->blobs[b];
        g_autoptr (CtBlob) blob = ct_blob_new ();
        g_autoptr (CtBlob) again = ct_blob_new ();
        g_autofree char *shape = NULL;
        Caffe__BlobProto *written;

        g_assert_true (ct_blob_from_proto (blob, proto, TRUE, &error));
        g_assert_no_error (error);
        g_assert_true (ct_blob_shape_equals (blob, proto));
        shape = ct_blob_shape_string (blob);
        g_test_message ("%s: %s blob %" G_GSIZE_FORMAT ": %s", name, net->layer[l]->name, b, shape);
        g_assert_cmpuint (proto->n_data, ==, (gsize) ct_blob_count (blob));
        g_assert_cmpint (memcmp (ct_blob_cpu_data (blob, NULL), proto->data,
                                 proto->n_data * sizeof (float)), ==, 0);

        written = ct_blob_to_proto (blob, CT_BLOB_PROTO_DEFAULT, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (written->n_data, ==, proto->n_data);
        g_assert_cmpint (memcmp (written->data, proto->data, proto->n_data * sizeof (float)), ==, 0);
        g_assert_true (ct_blob_from_proto (again, written, TRUE, &error));
        g_assert_no_error (error);
        g_assert_true (ct_blob_shape_equals (again, proto));
        free_proto (written);
        *parameters += ct_blob_count (blob);
        blobs++;
      }
  protobuf_c_message_free_unpacked ((ProtobufCMessage *) net, NULL);
  g_test_message ("%s: %u parameter blobs, %" G_GINT64_FORMAT " parameters",
                  name, blobs, *parameters);
  return blobs;
}

static void
test_reference_caffemodels (void)
{
  gint64 parameters;

  /* conv1, conv2, ip1, ip2: a weight and a bias each. */
  g_assert_cmpuint (check_caffemodel ("fashion_lenet_iter_10000.caffemodel", &parameters), ==, 8);
  g_assert_cmpint (parameters, ==, 431080);
  g_assert_cmpuint (check_caffemodel ("layer_zoo_seed1701_init.caffemodel", &parameters), ==, 22);
  g_assert_cmpint (parameters, ==, 2614);
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
  g_test_add_func ("/engine/blob/copy-from", test_copy_from);
  g_test_add_func ("/engine/blob/share", test_share);
  g_test_add_func ("/engine/blob/share-then-grow", test_share_then_grow);
  g_test_add_func ("/engine/blob/set-cpu-data", test_set_cpu_data);
  g_test_add_func ("/engine/blob/update", test_update);
  g_test_add_func ("/engine/blob/norms-and-scale", test_norms_and_scale);
  g_test_add_func ("/engine/blob/no-gpu", test_no_gpu);
  g_test_add_func ("/engine/blob/gpu-head", test_gpu_head);
  g_test_add_func ("/engine/blob/proto-float", test_proto_float);
  g_test_add_func ("/engine/blob/proto-double", test_proto_double);
  g_test_add_func ("/engine/blob/proto-scalar", test_proto_scalar);
  g_test_add_func ("/engine/blob/proto-legacy", test_proto_legacy);
  g_test_add_func ("/engine/blob/proto-errors", test_proto_errors);
  g_test_add_func ("/engine/blob/shape-equals", test_shape_equals);
  g_test_add_func ("/engine/blob/reference-caffemodels", test_reference_caffemodels);
  return g_test_run ();
}
