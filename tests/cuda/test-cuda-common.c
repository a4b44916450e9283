/* test-cuda-common.c: every function of common.h on the GPU against its CPU
 * twin, on random inputs over several shapes (the column and row paths of
 * the per-channel sums, repeated indices, ties, empty sizes), and the
 * determinism of the sums: two runs give the same bits. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "cuda-test-util.h"
#include "device.h"

#define TOL 1e-5

/* Device copies of integer arrays, and back. */
static void *
upload_bytes (const void *host, size_t size)
{
  void *device = NULL;

  g_assert_cmpint (ct_cuda_malloc (&device, size > 0 ? size : 1), ==, CT_STATUS_OK);
  if (size > 0)
    g_assert_cmpint (ct_cuda_memcpy (device, host, size, CT_MEMCPY_HOST_TO_DEVICE), ==,
                     CT_STATUS_OK);
  return device;
}

static void *
download_bytes (const void *device, size_t size)
{
  void *host = g_malloc (size > 0 ? size : 1);

  if (size > 0)
    g_assert_cmpint (ct_cuda_memcpy (host, device, size, CT_MEMCPY_DEVICE_TO_HOST), ==,
                     CT_STATUS_OK);
  return host;
}

static void
free_bytes (void *device)
{
  g_assert_cmpint (ct_cuda_free (device), ==, CT_STATUS_OK);
}

/* Random values on a coarse grid, so that ties occur. */
static float *
random_ties (int64_t n, guint64 seed)
{
  float *x = ct_cuda_test_random (n, -3, 3, seed);

  for (int64_t i = 0; i < n; i++)
    x[i] = roundf (x[i] * 2.0f) / 2.0f;
  return x;
}

static void
assert_same_bits (const char *what, const float *device_a, const float *device_b, int64_t n)
{
  g_autofree float *a = ct_cuda_test_download (device_a, n);
  g_autofree float *b = ct_cuda_test_download (device_b, n);

  if (memcmp (a, b, (size_t) n * sizeof (float)) != 0)
    g_error ("%s: two runs differ", what);
}

static void
check_copy_blocks (int64_t num, int64_t block, int64_t src_stride, int64_t dst_stride)
{
  int64_t src_n = num * src_stride, dst_n = num * dst_stride;
  g_autofree float *src = ct_cuda_test_random (src_n, -1, 1, 1);
  g_autofree float *dst = ct_cuda_test_random (dst_n, -1, 1, 2);
  float *dsrc = ct_cuda_test_upload (src, src_n), *ddst = ct_cuda_test_upload (dst, dst_n);

  g_assert_cmpint (ct_cpu_copy_blocks (num, block, src, src_stride, dst, dst_stride), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_copy_blocks (num, block, dsrc, src_stride, ddst, dst_stride), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close ("copy_blocks", ddst, dst, dst_n, 0);
  ct_cuda_test_free (dsrc);
  ct_cuda_test_free (ddst);
}

static void
test_copy_blocks (void)
{
  check_copy_blocks (7, 13, 20, 31);
  check_copy_blocks (1, 100000, 100000, 100000);
  check_copy_blocks (300, 1, 3, 2);
  check_copy_blocks (4, 0, 5, 5);
  g_assert_cmpint (ct_cuda_copy_blocks (2, 5, NULL, 4, NULL, 5), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_copy_blocks (-1, 5, NULL, 5, NULL, 5), ==, CT_STATUS_INVALID);
}

static void
test_eltwise_max (void)
{
  const int64_t n = 10007;
  const int n_bottoms = 4;
  float *x[4], *dx[4];
  g_autofree float *top = g_new (float, n);
  g_autofree float *top_diff = ct_cuda_test_random (n, -1, 1, 9);
  g_autofree float *bottom_diff = g_new (float, n);
  g_autofree int32_t *mask = g_new (int32_t, n);
  float *dtop = ct_cuda_test_device_zeros (n), *dtop_diff = ct_cuda_test_upload (top_diff, n);
  float *dbottom_diff = ct_cuda_test_device_zeros (n);
  int32_t *dmask = upload_bytes (mask, (size_t) n * sizeof (int32_t));
  g_autofree int32_t *gpu_mask = NULL;

  for (int b = 0; b < n_bottoms; b++)
    {
      x[b] = random_ties (n, 10 + b);
      dx[b] = ct_cuda_test_upload (x[b], n);
    }
  g_assert_cmpint (ct_cpu_eltwise_max_first (n, x[0], x[1], top, mask), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_eltwise_max_first (n, dx[0], dx[1], dtop, dmask), ==, CT_STATUS_OK);
  for (int b = 2; b < n_bottoms; b++)
    {
      g_assert_cmpint (ct_cpu_eltwise_max_next (n, x[b], b, top, mask), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_eltwise_max_next (n, dx[b], b, dtop, dmask), ==, CT_STATUS_OK);
    }
  ct_cuda_test_assert_close ("eltwise max", dtop, top, n, 0);
  gpu_mask = download_bytes (dmask, (size_t) n * sizeof (int32_t));
  g_assert_cmpmem (gpu_mask, n * sizeof (int32_t), mask, n * sizeof (int32_t));
  for (int b = 0; b < n_bottoms; b++)
    {
      g_assert_cmpint (ct_cpu_eltwise_max_backward (n, top_diff, mask, b, bottom_diff), ==,
                       CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_eltwise_max_backward (n, dtop_diff, dmask, b, dbottom_diff), ==,
                       CT_STATUS_OK);
      ct_cuda_test_assert_close ("eltwise max backward", dbottom_diff, bottom_diff, n, 0);
    }
  g_assert_cmpint (ct_cuda_eltwise_max_first (-1, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);

  for (int b = 0; b < n_bottoms; b++)
    {
      g_free (x[b]);
      ct_cuda_test_free (dx[b]);
    }
  ct_cuda_test_free (dtop);
  ct_cuda_test_free (dtop_diff);
  ct_cuda_test_free (dbottom_diff);
  free_bytes (dmask);
}

static void
check_tile (int64_t outer, int64_t inner, int64_t tiles)
{
  int64_t n = outer * inner, m = n * tiles;
  g_autofree float *bottom = ct_cuda_test_random (n, -1, 1, 20);
  g_autofree float *top = ct_cuda_test_random (m, -1, 1, 21);
  g_autofree float *top_diff = ct_cuda_test_random (m, -1, 1, 22);
  g_autofree float *bottom_diff = ct_cuda_test_random (n, -1, 1, 23);
  float *dbottom = ct_cuda_test_upload (bottom, n), *dtop = ct_cuda_test_upload (top, m);
  float *dtop_diff = ct_cuda_test_upload (top_diff, m);
  float *dbottom_diff = ct_cuda_test_upload (bottom_diff, n);

  g_assert_cmpint (ct_cpu_tile_forward (outer, inner, tiles, bottom, top), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_tile_forward (outer, inner, tiles, dbottom, dtop), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close ("tile forward", dtop, top, m, 0);
  g_assert_cmpint (ct_cpu_tile_backward (outer, inner, tiles, top_diff, bottom_diff), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_tile_backward (outer, inner, tiles, dtop_diff, dbottom_diff), ==,
                   CT_STATUS_OK);
  /* Summed in the CPU's order: the same bits. */
  ct_cuda_test_assert_close ("tile backward", dbottom_diff, bottom_diff, n, 0);
  ct_cuda_test_free (dbottom);
  ct_cuda_test_free (dtop);
  ct_cuda_test_free (dtop_diff);
  ct_cuda_test_free (dbottom_diff);
}

static void
test_tile (void)
{
  check_tile (3, 17, 4);
  check_tile (1, 1, 1000);
  check_tile (50, 200, 3);
  check_tile (6, 5, 0);
  g_assert_cmpint (ct_cuda_tile_forward (1, -1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
}

static void
check_reduce (CtReduceOp op, int64_t num, int64_t dim, float coeff)
{
  int64_t n = num * dim;
  /* Mostly positive: long sums keep their relative accuracy on the CPU. */
  g_autofree float *bottom = ct_cuda_test_random (n, -0.5f, 1.5f, 30);
  g_autofree float *top = g_new (float, num > 0 ? num : 1);
  g_autofree float *top_diff = ct_cuda_test_random (num, -1, 1, 31);
  g_autofree float *bottom_diff = g_new (float, n > 0 ? n : 1);
  float *dbottom = ct_cuda_test_upload (bottom, n), *dtop = ct_cuda_test_device_zeros (num);
  float *dtop2 = ct_cuda_test_device_zeros (num);
  float *dtop_diff = ct_cuda_test_upload (top_diff, num);
  float *dbottom_diff = ct_cuda_test_device_zeros (n);
  g_autofree char *what = g_strdup_printf ("reduce op %d %" G_GINT64_FORMAT " x %"
                                           G_GINT64_FORMAT, op, num, dim);

  g_assert_cmpint (ct_cpu_reduce_forward (op, num, dim, coeff, bottom, top), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_reduce_forward (op, num, dim, coeff, dbottom, dtop), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_reduce_forward (op, num, dim, coeff, dbottom, dtop2), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close (what, dtop, top, num, TOL);
  assert_same_bits (what, dtop, dtop2, num);
  g_assert_cmpint (ct_cpu_reduce_backward (op, num, dim, coeff, bottom, top_diff, bottom_diff),
                   ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_reduce_backward (op, num, dim, coeff, dbottom, dtop_diff,
                                            dbottom_diff), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, dbottom_diff, bottom_diff, n, TOL);
  ct_cuda_test_free (dbottom);
  ct_cuda_test_free (dtop);
  ct_cuda_test_free (dtop2);
  ct_cuda_test_free (dtop_diff);
  ct_cuda_test_free (dbottom_diff);
}

static void
test_reduce (void)
{
  const CtReduceOp ops[] = { CT_REDUCE_SUM, CT_REDUCE_ASUM, CT_REDUCE_SUMSQ, CT_REDUCE_MEAN };

  for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
    {
      check_reduce (ops[o], 1, 100000, 1.0f);
      check_reduce (ops[o], 1000, 7, 0.5f);
      check_reduce (ops[o], 37, 300, -2.0f);
      check_reduce (ops[o], 5, 0, 1.0f);
    }
  g_assert_cmpint (ct_cuda_reduce_forward (99, 1, 1, 1.0f, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_reduce_forward (CT_REDUCE_SUM, -1, 1, 1.0f, NULL, NULL), ==,
                   CT_STATUS_INVALID);
}

static void
check_broadcast (int64_t outer, int64_t dim, int64_t inner)
{
  int64_t n = outer * dim * inner;
  /* Mostly positive: long sums keep their relative accuracy on the CPU. */
  g_autofree float *bottom = ct_cuda_test_random (n, -0.5f, 1.5f, 40);
  g_autofree float *vector = ct_cuda_test_random (dim, 0.5f, 1.5f, 41);
  g_autofree float *top = g_new (float, n > 0 ? n : 1);
  g_autofree float *grad = ct_cuda_test_random (dim, -1, 1, 42);
  g_autofree float *in_place = g_memdup2 (bottom, (gsize) (n > 0 ? n : 1) * sizeof (float));
  float *dbottom = ct_cuda_test_upload (bottom, n), *dvector = ct_cuda_test_upload (vector, dim);
  float *dtop = ct_cuda_test_device_zeros (n), *dgrad = ct_cuda_test_upload (grad, dim);
  float *dgrad2 = ct_cuda_test_upload (grad, dim);
  float *din_place = ct_cuda_test_upload (bottom, n);
  g_autofree char *what = g_strdup_printf ("broadcast %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                                           " x %" G_GINT64_FORMAT, outer, dim, inner);

  for (int multiply = 0; multiply < 2; multiply++)
    {
      CtStatus (*cpu) (int64_t, int64_t, int64_t, const float *, const float *, float *)
        = multiply ? ct_cpu_scale_forward : ct_cpu_bias_forward;
      CtStatus (*gpu) (int64_t, int64_t, int64_t, const float *, const float *, float *)
        = multiply ? ct_cuda_scale_forward : ct_cuda_bias_forward;

      g_assert_cmpint (cpu (outer, dim, inner, bottom, vector, top), ==, CT_STATUS_OK);
      g_assert_cmpint (gpu (outer, dim, inner, dbottom, dvector, dtop), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close (what, dtop, top, n, 0);
      /* In place, TOP is BOTTOM. */
      g_assert_cmpint (cpu (outer, dim, inner, in_place, vector, in_place), ==, CT_STATUS_OK);
      g_assert_cmpint (gpu (outer, dim, inner, din_place, dvector, din_place), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close (what, din_place, in_place, n, 0);
    }

  for (int accumulate = 0; accumulate < 2; accumulate++)
    {
      g_autofree float *bias_grad = g_memdup2 (grad, (gsize) dim * sizeof (float));
      g_autofree float *scale_grad = g_memdup2 (grad, (gsize) dim * sizeof (float));
      float *dbias_grad = ct_cuda_test_upload (grad, dim);
      float *dscale_grad = ct_cuda_test_upload (grad, dim);

      g_assert_cmpint (ct_cpu_bias_backward (outer, dim, inner, bottom, accumulate, bias_grad),
                       ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_bias_backward (outer, dim, inner, dbottom, accumulate,
                                              dbias_grad), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close (what, dbias_grad, bias_grad, dim, TOL);
      g_assert_cmpint (ct_cpu_scale_backward (outer, dim, inner, bottom, in_place, accumulate,
                                              scale_grad), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_scale_backward (outer, dim, inner, dbottom, din_place,
                                               accumulate, dscale_grad), ==, CT_STATUS_OK);
      ct_cuda_test_assert_close (what, dscale_grad, scale_grad, dim, TOL);
      ct_cuda_test_free (dbias_grad);
      ct_cuda_test_free (dscale_grad);
    }

  /* Deterministic: the same bits twice. */
  g_assert_cmpint (ct_cuda_scale_backward (outer, dim, inner, dbottom, din_place, 0, dgrad), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_scale_backward (outer, dim, inner, dbottom, din_place, 0, dgrad2),
                   ==, CT_STATUS_OK);
  assert_same_bits (what, dgrad, dgrad2, dim);

  ct_cuda_test_free (dbottom);
  ct_cuda_test_free (dvector);
  ct_cuda_test_free (dtop);
  ct_cuda_test_free (dgrad);
  ct_cuda_test_free (dgrad2);
  ct_cuda_test_free (din_place);
}

static void
test_bias_scale (void)
{
  check_broadcast (2, 3, 1000);
  check_broadcast (64, 1000, 1);   /* InnerProduct's bias: channels are columns */
  check_broadcast (1000, 5, 1);    /* few columns: the row path */
  check_broadcast (1, 1, 100000);
  check_broadcast (3, 40, 7);
  check_broadcast (7, 33, 3000);
  check_broadcast (0, 4, 5);       /* no elements: zero gradients */
  g_assert_cmpint (ct_cuda_bias_forward (1, -1, 1, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_scale_backward (1, 1, -1, NULL, NULL, 0, NULL), ==,
                   CT_STATUS_INVALID);
}

static void
check_rows (int64_t n, int64_t row, int64_t src_rows, guint64 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) seed);
  g_autofree int64_t *indices = g_new (int64_t, n > 0 ? n : 1);
  g_autofree float *table = ct_cuda_test_random (src_rows * row, -1, 1, seed + 1);
  g_autofree float *gathered = g_new (float, n * row > 0 ? n * row : 1);
  g_autofree float *grad = ct_cuda_test_random (n * row, -1, 1, seed + 2);
  g_autofree float *table_grad = ct_cuda_test_random (src_rows * row, -1, 1, seed + 3);
  float *dtable = ct_cuda_test_upload (table, src_rows * row);
  float *dgathered = ct_cuda_test_device_zeros (n * row);
  float *dgrad = ct_cuda_test_upload (grad, n * row);
  float *dtable_grad = ct_cuda_test_upload (table_grad, src_rows * row);
  int64_t *dindices;

  for (int64_t i = 0; i < n; i++)
    indices[i] = g_rand_int_range (rand, 0, (gint32) src_rows);
  dindices = upload_bytes (indices, (size_t) n * sizeof (int64_t));
  g_assert_cmpint (ct_cpu_gather_rows (n, row, indices, table, gathered), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_gather_rows (n, row, dindices, dtable, dgathered), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close ("gather_rows", dgathered, gathered, n * row, 0);
  /* Added in the CPU's order: the same bits. */
  g_assert_cmpint (ct_cpu_scatter_add_rows (n, row, indices, grad, table_grad), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_scatter_add_rows (n, row, dindices, dgrad, dtable_grad), ==,
                   CT_STATUS_OK);
  ct_cuda_test_assert_close ("scatter_add_rows", dtable_grad, table_grad, src_rows * row, 0);
  ct_cuda_test_free (dtable);
  ct_cuda_test_free (dgathered);
  ct_cuda_test_free (dgrad);
  ct_cuda_test_free (dtable_grad);
  free_bytes (dindices);
}

static void
test_rows (void)
{
  check_rows (50, 33, 10, 50);        /* many repeats */
  check_rows (1000, 300, 5000, 60);   /* a few repeats, rows longer than a block */
  check_rows (7, 1, 3, 70);
  check_rows (0, 4, 3, 80);
  g_assert_cmpint (ct_cuda_scatter_add_rows (-1, 1, NULL, NULL, NULL), ==, CT_STATUS_INVALID);
}

static void
test_float_indices (void)
{
  const int64_t n = 5000, limit = 977;
  g_autofree float *values = g_new (float, n);
  g_autofree int64_t *out = g_new (int64_t, n);
  g_autofree int64_t *gpu_out = NULL;
  float *dvalues;
  int64_t *dout = upload_bytes (out, (size_t) n * sizeof (int64_t));
  int64_t bad = -1, gpu_bad = -1;

  for (int64_t i = 0; i < n; i++)
    values[i] = (float) ((i * 37) % limit) + (i % 3 == 0 ? 0.25f : 0.0f);
  dvalues = ct_cuda_test_upload (values, n);

  /* Truncated when fractions are allowed. */
  g_assert_cmpint (ct_cpu_float_indices (n, values, limit, FALSE, out, &bad), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_float_indices (n, dvalues, limit, FALSE, dout, &gpu_bad), ==,
                   CT_STATUS_OK);
  gpu_out = download_bytes (dout, (size_t) n * sizeof (int64_t));
  g_assert_cmpmem (gpu_out, n * sizeof (int64_t), out, n * sizeof (int64_t));

  /* The first fraction is at 0; make the first whole-number failure later. */
  g_assert_cmpint (ct_cuda_float_indices (n, dvalues, limit, TRUE, dout, &gpu_bad), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (gpu_bad, ==, 0);
  for (int64_t i = 0; i < n; i++)
    values[i] = floorf (values[i]);
  values[4000] = -1.0f;
  values[4321] = NAN;
  values[2345] = (float) limit;
  ct_cuda_test_free (dvalues);
  dvalues = ct_cuda_test_upload (values, n);
  g_assert_cmpint (ct_cpu_float_indices (n, values, limit, TRUE, out, &bad), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_float_indices (n, dvalues, limit, TRUE, dout, &gpu_bad), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (bad, ==, 2345);
  g_assert_cmpint (gpu_bad, ==, bad);
  /* NaN fails too. */
  g_assert_cmpint (ct_cuda_float_indices (100, dvalues + 4300, limit, TRUE, dout, &gpu_bad), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (gpu_bad, ==, 21);
  g_assert_cmpint (ct_cuda_float_indices (0, dvalues, limit, TRUE, dout, NULL), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_float_indices (-1, dvalues, limit, TRUE, dout, NULL), ==,
                   CT_STATUS_INVALID);
  ct_cuda_test_free (dvalues);
  free_bytes (dout);
}

static void
check_filter_select (int64_t n, double keep, guint64 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) seed);
  g_autofree float *selector = g_new (float, n > 0 ? n : 1);
  g_autofree int64_t *indices = g_new (int64_t, n > 0 ? n : 1);
  g_autofree int64_t *gpu_indices = NULL;
  int64_t *dindices = upload_bytes (indices, (size_t) n * sizeof (int64_t));
  float *dselector;
  int64_t count = -1, gpu_count = -1;

  for (int64_t i = 0; i < n; i++)
    selector[i] = g_rand_double (rand) < keep ? (float) g_rand_double_range (rand, -2, 2) : 0.0f;
  dselector = ct_cuda_test_upload (selector, n);
  g_assert_cmpint (ct_cpu_filter_select (n, selector, indices, &count), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_filter_select (n, dselector, dindices, &gpu_count), ==, CT_STATUS_OK);
  g_assert_cmpint (gpu_count, ==, count);
  gpu_indices = download_bytes (dindices, (size_t) count * sizeof (int64_t));
  g_assert_cmpmem (gpu_indices, count * sizeof (int64_t), indices, count * sizeof (int64_t));
  ct_cuda_test_free (dselector);
  free_bytes (dindices);
}

static void
test_filter_select (void)
{
  check_filter_select (1000, 0.5, 90);
  check_filter_select (3, 0.5, 91);
  check_filter_select (256, 1.0, 92);
  check_filter_select (257, 0.0, 93);
  check_filter_select (100000, 0.1, 94);
  check_filter_select (0, 0.5, 95);
}

static void
check_argmax (int64_t outer, int64_t dim, int64_t axis_dist, int64_t top_k, int has_axis,
              int out_max_val, guint64 seed)
{
  int64_t n = outer * dim * axis_dist, num = outer * axis_dist;
  int64_t top_n = has_axis ? outer * top_k * axis_dist : num * top_k * (out_max_val ? 2 : 1);
  g_autofree float *bottom = random_ties (n, seed);
  g_autofree float *top = g_new (float, top_n);
  g_autofree float *scratch_val = g_new (float, top_k);
  g_autofree int64_t *scratch_idx = g_new (int64_t, top_k);
  float *dbottom = ct_cuda_test_upload (bottom, n), *dtop = ct_cuda_test_device_zeros (top_n);
  g_autofree char *what = g_strdup_printf ("argmax %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                                           " x %" G_GINT64_FORMAT " top %" G_GINT64_FORMAT
                                           " axis %d values %d", outer, dim, axis_dist, top_k,
                                           has_axis, out_max_val);

  g_assert_cmpint (ct_cpu_argmax (num, dim, axis_dist, top_k, has_axis, out_max_val, bottom,
                                  top, scratch_val, scratch_idx), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_argmax (num, dim, axis_dist, top_k, has_axis, out_max_val, dbottom,
                                   dtop, NULL, NULL), ==, CT_STATUS_OK);
  ct_cuda_test_assert_close (what, dtop, top, top_n, 0);
  ct_cuda_test_free (dbottom);
  ct_cuda_test_free (dtop);
}

static void
test_argmax (void)
{
  for (int values = 0; values < 2; values++)
    {
      check_argmax (10, 1000, 1, 1, FALSE, values, 100);
      check_argmax (10, 1000, 1, 5, FALSE, values, 101);
      check_argmax (3, 17, 1, 17, FALSE, values, 102);
      check_argmax (4, 10, 6, 3, TRUE, values, 103);
      check_argmax (2, 50, 1, 2, TRUE, values, 104);
    }
  g_assert_cmpint (ct_cuda_argmax (1, 3, 1, 4, FALSE, FALSE, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/common/copy-blocks", test_copy_blocks);
  g_test_add_func ("/cuda/common/eltwise-max", test_eltwise_max);
  g_test_add_func ("/cuda/common/tile", test_tile);
  g_test_add_func ("/cuda/common/reduce", test_reduce);
  g_test_add_func ("/cuda/common/bias-scale", test_bias_scale);
  g_test_add_func ("/cuda/common/rows", test_rows);
  g_test_add_func ("/cuda/common/float-indices", test_float_indices);
  g_test_add_func ("/cuda/common/filter-select", test_filter_select);
  g_test_add_func ("/cuda/common/argmax", test_argmax);
  return g_test_run ();
}
