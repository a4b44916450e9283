/* test-pooling.c: the pooling, LRN and crop kernels on hand-computed
 * cases, the accumulating backward passes, and the statuses for arguments
 * out of range. (The layers' tests check them further, with gradients.) */
#include <float.h>
#include <math.h>
#include <string.h>
#include <glib.h>

#include "cpu/isa.h"
#include "cpu/pool-2x2.h"
#include "crop.h"
#include "lrn.h"
#include "pooling.h"
#include "switches.h"

/* Two planes of 3 x 4. */
static const float planes[] = { 4, 1, 7, 2, 3, 9, 5, 6, 8, 0, 2, 11,
                                -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12 };

static CtPoolGeometry
geometry (int64_t kernel, int64_t stride, int64_t pad, int64_t ph, int64_t pw)
{
  CtPoolGeometry g = { 2, 3, 4, ph, pw, kernel, kernel, stride, stride, pad, pad };

  return g;
}

static void
test_max (void)
{
  CtPoolGeometry g = geometry (2, 1, 0, 2, 3);
  static const float expected[] = { 9, 9, 7, 9, 9, 11, -1, -2, -3, -5, -6, -7 };
  static const int32_t expected_mask[] = { 5, 5, 2, 5, 5, 11, 0, 1, 2, 4, 5, 6 };
  float top[12], top_mask[12], diff[24];
  int32_t mask[12];

  g_assert_cmpint (ct_cpu_max_pool_forward (&g, planes, top, mask, top_mask), ==, CT_STATUS_OK);
  g_assert_cmpmem (top, sizeof top, expected, sizeof expected);
  g_assert_cmpmem (mask, sizeof mask, expected_mask, sizeof expected_mask);
  for (int i = 0; i < 12; i++)
    g_assert_cmpfloat (top_mask[i], ==, (float) expected_mask[i]);

  /* Backward adds: twice gives twice, from either mask. */
  memset (diff, 0, sizeof diff);
  g_assert_cmpint (ct_cpu_max_pool_backward (&g, expected, mask, NULL, diff), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_max_pool_backward (&g, expected, NULL, top_mask, diff), ==,
                   CT_STATUS_OK);
  g_assert_cmpfloat (diff[5], ==, 2 * (9 + 9 + 9 + 9));
  g_assert_cmpfloat (diff[2], ==, 14);
  g_assert_cmpfloat (diff[11], ==, 22);
  g_assert_cmpfloat (diff[12 + 0], ==, -2);
  g_assert_cmpfloat (diff[0], ==, 0);

  /* An edited mask top: what does not name an element of the plane (NaN,
   * negative, past the end, too large for an integer) is ignored. */
  {
    float edited[12];
    float d[24] = { 0 };

    memcpy (edited, top_mask, sizeof edited);
    edited[0] = NAN;
    edited[1] = -1.0f;
    edited[2] = 12.0f;
    edited[3] = 1e30f;
    edited[4] = -INFINITY;
    g_assert_cmpint (ct_cpu_max_pool_backward (&g, expected, NULL, edited, d), ==, CT_STATUS_OK);
    /* Of plane 0's outputs only the last (winner 11) is left. */
    g_assert_cmpfloat (d[5], ==, 0);
    g_assert_cmpfloat (d[2], ==, 0);
    g_assert_cmpfloat (d[11], ==, 11);
    g_assert_cmpfloat (d[12 + 0], ==, -1);
  }

  /* A window of -inf only has no winner; its gradient goes nowhere. */
  {
    float inf_plane[12], t[6], d[12] = { 0 };
    float ones[6] = { 1, 1, 1, 1, 1, 1 };
    CtPoolGeometry one = { 1, 3, 4, 2, 3, 2, 2, 1, 1, 0, 0 };

    for (int i = 0; i < 12; i++)
      inf_plane[i] = -INFINITY;
    g_assert_cmpint (ct_cpu_max_pool_forward (&one, inf_plane, t, mask, NULL), ==,
                     CT_STATUS_OK);
    g_assert_cmpfloat (t[0], ==, -FLT_MAX);
    g_assert_cmpint (mask[0], ==, -1);
    g_assert_cmpint (ct_cpu_max_pool_backward (&one, ones, mask, NULL, d), ==, CT_STATUS_OK);
    for (int i = 0; i < 12; i++)
      g_assert_cmpfloat (d[i], ==, 0);
  }
}

/* MAX pooling by the definition: the first largest value of each clipped
 * window in row-major order, -FLT_MAX and -1 for a window with no winner. */
static void
max_pool_naive (const CtPoolGeometry *g, const float *in, float *top, int32_t *mask)
{
  for (int64_t p = 0; p < g->planes; p++)
    for (int64_t ph = 0; ph < g->pooled_height; ph++)
      for (int64_t pw = 0; pw < g->pooled_width; pw++)
        {
          int64_t h0 = ph * g->stride_h - g->pad_h, w0 = pw * g->stride_w - g->pad_w;
          int64_t out = (p * g->pooled_height + ph) * g->pooled_width + pw;
          float best = -FLT_MAX;
          int32_t winner = -1;

          for (int64_t h = MAX (h0, 0); h < MIN (h0 + g->kernel_h, g->height); h++)
            for (int64_t w = MAX (w0, 0); w < MIN (w0 + g->kernel_w, g->width); w++)
              if (in[(p * g->height + h) * g->width + w] > best)
                {
                  best = in[(p * g->height + h) * g->width + w];
                  winner = (int32_t) (h * g->width + w);
                }
          top[out] = best;
          mask[out] = winner;
        }
}

/* MAX's backward pass by the definition, as Caffe computes it: each
 * output's diff added to its winner's, output by output (a mask edited to
 * name no element of the plane adds nothing). */
static void
max_backward_naive (const CtPoolGeometry *g, const float *top_diff, const int32_t *mask,
                    float *diff)
{
  const int64_t in_plane = g->height * g->width, out_plane = g->pooled_height * g->pooled_width;

  for (int64_t p = 0; p < g->planes; p++)
    for (int64_t i = 0; i < out_plane; i++)
      if (mask[p * out_plane + i] >= 0 && mask[p * out_plane + i] < in_plane)
        diff[p * in_plane + mask[p * out_plane + i]] += top_diff[p * out_plane + i];
}

/* Without a mask (a pass no backward pass follows), on the rows WAY names
 * (2: AVX-512 and the 2 x 2 planes, 1: AVX2, 0: SSE2 and scalar): the
 * same tops as the definition's. */
static void
check_max_no_mask (const CtPoolGeometry *g, const float *in, int way)
{
  int64_t out = g->planes * g->pooled_height * g->pooled_width;
  g_autofree float *want = g_new (float, out), *top = g_new (float, out);
  g_autofree int32_t *mask = g_new (int32_t, out);

  ct_cpu_pool_set_avx512 (way == 2);
  ct_cpu_max_pool_set_avx2 (way >= 1);
  max_pool_naive (g, in, want, mask);
  g_assert_cmpint (ct_cpu_max_pool_forward (g, in, top, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpmem (top, out * sizeof *top, want, out * sizeof *want);
  ct_cpu_max_pool_set_avx2 (1);
  ct_cpu_pool_set_avx512 (1);
}

/* Three planes of 5 rows of WIDTH, square windows, with Caffe's pooled
 * sizes (rounded up). */
static CtPoolGeometry
row_geometry (int stride, int kernel, int pad, int width)
{
  CtPoolGeometry g = { 3, 5, width, 0, 0, kernel, kernel, stride, stride, pad, pad };

  g.pooled_height = (g.height + 2 * pad - kernel + stride - 1) / stride + 1;
  g.pooled_width = (g.width + 2 * pad - kernel + stride - 1) / stride + 1;
  return g;
}

/* Rows from the kernel's width to 39: short rows (the masked AVX-512 rows
 * take all of them), and rows long enough for the kernel's four- and
 * eight-output groups (9 to 39: rows of interior outputs that are and are
 * not multiples of 4 and 8), at strides 1, 2 and 3, kernels 2, 3 and 5
 * (the masked rows' instance for other kernels), with and without
 * padding, over values with many ties, NaNs and infinities, on the AVX-512
 * rows, the AVX2 rows (where the CPU has them) and then the SSE2 and
 * scalar ones: winners and values equal the definition's, and the planes'
 * last window reads nothing past the input (ASan). The backward pass
 * likewise, adding onto a diff that holds values already and writing over
 * one that holds NaN. */
static void
test_max_rows (void)
{
  for (int way = 2; way >= 0; way--)
    for (int stride = 1; stride <= 3; stride++)
      for (int kernel = 2; kernel <= 5; kernel += kernel == 3 ? 2 : 1)
        for (int pad = 0; pad < kernel && pad <= 1; pad++)
          for (int width = kernel; width <= 39; width += width < 9 ? 1 : 3)
            {
              CtPoolGeometry g = row_geometry (stride, kernel, pad, width);
              int64_t n = g.planes * g.height * g.width, out;
              g_autofree float *in = NULL, *top = NULL, *want = NULL;
              g_autofree float *diff = NULL, *want_diff = NULL, *top_diff = NULL;
              g_autofree int32_t *mask = NULL, *want_mask = NULL;

              out = g.planes * g.pooled_height * g.pooled_width;
              diff = g_new (float, n);
              want_diff = g_new (float, n);
              top_diff = g_new (float, out);
              in = g_new (float, n);
              top = g_new (float, out);
              want = g_new (float, out);
              mask = g_new (int32_t, out);
              want_mask = g_new (int32_t, out);
              for (int64_t i = 0; i < n; i++)
                in[i] = (float) ((i * 7919 + width) % 5) - 2.0f;
              in[3] = NAN;
              in[n / 2] = INFINITY;
              in[n - 1] = -NAN;
              max_pool_naive (&g, in, want, want_mask);
              ct_cpu_pool_set_avx512 (way == 2);
              ct_cpu_max_pool_set_avx2 (way >= 1);
              g_assert_cmpint (ct_cpu_max_pool_forward (&g, in, top, mask, NULL), ==, CT_STATUS_OK);
              ct_cpu_max_pool_set_avx2 (1);
              g_assert_cmpmem (mask, out * sizeof *mask, want_mask, out * sizeof *want_mask);
              g_assert_cmpmem (top, out * sizeof *top, want, out * sizeof *want);

              for (int64_t i = 0; i < out; i++)
                top_diff[i] = (float) ((i * 104729) % 37) / 3.0f - 4.0f;
              for (int64_t i = 0; i < n; i++)
                want_diff[i] = diff[i] = (float) (i % 11) * 1e-7f;
              max_backward_naive (&g, top_diff, want_mask, want_diff);
              g_assert_cmpint (ct_cpu_max_pool_backward (&g, top_diff, mask, NULL, diff), ==,
                               CT_STATUS_OK);
              g_assert_cmpmem (diff, n * sizeof *diff, want_diff, n * sizeof *want_diff);
              for (int64_t i = 0; i < n; i++)
                want_diff[i] = 0.0f, diff[i] = NAN;
              max_backward_naive (&g, top_diff, want_mask, want_diff);
              g_assert_cmpint (ct_cpu_max_pool_backward_set (&g, top_diff, mask, NULL, diff), ==,
                               CT_STATUS_OK);
              g_assert_cmpmem (diff, n * sizeof *diff, want_diff, n * sizeof *want_diff);
              check_max_no_mask (&g, in, way);
              ct_cpu_pool_set_avx512 (1);
            }
}

/* The 2 x 2, stride 2 planes (cpu/pool-2x2.c) against the definition, to
 * the bit: rows short enough to share a unit (1 to 16 outputs, in units of
 * 16 / width rows, the last unit short), rows cut into units of 16 (17 to
 * 33), one to five rows; values with ties, NaN, infinities, and windows of
 * -inf only (no winner). The backward pass writes over a diff of NaN, with
 * top diffs of -0 and NaN; then, with masks edited to name an element of
 * another window, of no plane, or none, it still gives what the scatter
 * gives. On CPUs with AVX-512 every geometry takes those planes. */
static void
test_max_2x2 (void)
{
  static const int64_t widths[] = { 1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 20, 32, 33 };

  for (int64_t ph = 1; ph <= 5; ph++)
    for (gsize wi = 0; wi < G_N_ELEMENTS (widths); wi++)
      {
        const int64_t pw = widths[wi];
        CtPoolGeometry g = { 3, 2 * ph, 2 * pw, ph, pw, 2, 2, 2, 2, 0, 0 };
        int64_t n = g.planes * g.height * g.width, out = g.planes * ph * pw;
        g_autofree float *in = g_new (float, n), *top = g_new (float, out);
        g_autofree float *want = g_new (float, out), *top_diff = g_new (float, out);
        g_autofree float *diff = g_new (float, n), *want_diff = g_new (float, n);
        g_autofree int32_t *mask = g_new (int32_t, out), *want_mask = g_new (int32_t, out);
        CtPool2x2 plan;

        g_assert_cmpint (ct_pool_2x2_plan (&g, &plan), ==, ct_cpu_have_avx512 ());
        /* Three values, hashed: ties in every direction. */
        for (int64_t i = 0; i < n; i++)
          in[i] = (float) ((((uint32_t) i * 2654435761u) >> 13) % 3) - 1.0f;
        in[3 % n] = NAN;
        in[n / 2] = INFINITY;
        in[n - 1] = -NAN;
        /* Plane 1's first window: -inf only. */
        for (int64_t e = 0; e < 4; e++)
          in[g.height * g.width + (e / 2) * g.width + e % 2] = -INFINITY;
        max_pool_naive (&g, in, want, want_mask);
        g_assert_cmpint (want_mask[ph * pw], ==, -1);
        g_assert_cmpint (ct_cpu_max_pool_forward (&g, in, top, mask, NULL), ==, CT_STATUS_OK);
        g_assert_cmpmem (mask, out * sizeof *mask, want_mask, out * sizeof *want_mask);
        g_assert_cmpmem (top, out * sizeof *top, want, out * sizeof *want);

        for (int64_t i = 0; i < out; i++)
          top_diff[i] = (float) ((i * 104729) % 37) / 3.0f - 4.0f;
        top_diff[0] = -0.0f;
        top_diff[out - 1] = NAN;
        for (int way = 2; way >= 0; way--)
          check_max_no_mask (&g, in, way);
        for (int edit = 0; edit < 4; edit++)
          {
            /* 1: another window's element; 2: past the plane; 3: none. */
            if (edit == 1)
              mask[out - 1] = 0;
            else if (edit == 2)
              mask[0] = (int32_t) (g.height * g.width + 3);
            else if (edit == 3)
              mask[out / 2] = -1;
            memset (want_diff, 0, (gsize) n * sizeof (float));
            for (int64_t i = 0; i < n; i++)
              diff[i] = NAN;
            max_backward_naive (&g, top_diff, mask, want_diff);
            g_assert_cmpint (ct_cpu_max_pool_backward_set (&g, top_diff, mask, NULL, diff), ==,
                             CT_STATUS_OK);
            g_assert_cmpmem (diff, n * sizeof *diff, want_diff, n * sizeof *want_diff);
          }
      }
}

/* AVE pooling by the definition, as Caffe computes it: the clipped
 * window's sum in row-major order over the window's size clipped to the
 * padded image. */
static void
ave_pool_naive (const CtPoolGeometry *g, const float *in, float *top)
{
  for (int64_t p = 0; p < g->planes; p++)
    for (int64_t ph = 0; ph < g->pooled_height; ph++)
      for (int64_t pw = 0; pw < g->pooled_width; pw++)
        {
          int64_t h0 = ph * g->stride_h - g->pad_h, w0 = pw * g->stride_w - g->pad_w;
          int64_t size = (MIN (h0 + g->kernel_h, g->height + g->pad_h) - h0)
                         * (MIN (w0 + g->kernel_w, g->width + g->pad_w) - w0);
          float sum = 0.0f;

          for (int64_t h = MAX (h0, 0); h < MIN (h0 + g->kernel_h, g->height); h++)
            for (int64_t w = MAX (w0, 0); w < MIN (w0 + g->kernel_w, g->width); w++)
              sum += in[(p * g->height + h) * g->width + w];
          top[(p * g->pooled_height + ph) * g->pooled_width + pw] = sum / (float) size;
        }
}

/* AVE's backward pass by the definition, as Caffe computes it: each
 * output's share, output by output, added to every element of its clipped
 * window. */
static void
ave_backward_naive (const CtPoolGeometry *g, const float *top_diff, float *diff)
{
  for (int64_t p = 0; p < g->planes; p++)
    for (int64_t ph = 0; ph < g->pooled_height; ph++)
      for (int64_t pw = 0; pw < g->pooled_width; pw++)
        {
          int64_t h0 = ph * g->stride_h - g->pad_h, w0 = pw * g->stride_w - g->pad_w;
          int64_t size = (MIN (h0 + g->kernel_h, g->height + g->pad_h) - h0)
                         * (MIN (w0 + g->kernel_w, g->width + g->pad_w) - w0);
          float share =
            top_diff[(p * g->pooled_height + ph) * g->pooled_width + pw] / (float) size;

          for (int64_t h = MAX (h0, 0); h < MIN (h0 + g->kernel_h, g->height); h++)
            for (int64_t w = MAX (w0, 0); w < MIN (w0 + g->kernel_w, g->width); w++)
              diff[(p * g->height + h) * g->width + w] += share;
        }
}

/* AVE rows against the definition, bit for bit (the four-output groups and
 * the AVX-512 planes add in the scalar order): the geometries of
 * test_max_rows, over values of mixed magnitudes, so that a different
 * order of adds would show; with the AVX-512 code (where the CPU has it)
 * and without. The backward pass likewise, adding onto a diff that holds
 * values already and writing over one that holds NaN. */
static void
check_ave_rows (int avx512)
{
  for (int stride = 1; stride <= 3; stride++)
    for (int kernel = 2; kernel <= 3; kernel++)
      for (int pad = 0; pad < kernel && pad <= 1; pad++)
        for (int width = 9; width <= 39; width += 3)
          {
            CtPoolGeometry g = row_geometry (stride, kernel, pad, width);
            int64_t n = g.planes * g.height * g.width, out;
            g_autofree float *in = NULL, *top = NULL, *want = NULL;
            g_autofree float *diff = NULL, *want_diff = NULL;

            out = g.planes * g.pooled_height * g.pooled_width;
            in = g_new (float, n);
            top = g_new (float, out);
            want = g_new (float, out);
            diff = g_new (float, n);
            want_diff = g_new (float, n);
            for (int64_t i = 0; i < n; i++)
              in[i] = (float) ((i * 7919 + width) % 13 - 6) * (i % 3 == 0 ? 1e-7f : 1.0f);
            ct_cpu_pool_set_avx512 (avx512);
            ave_pool_naive (&g, in, want);
            g_assert_cmpint (ct_cpu_ave_pool_forward (&g, in, top), ==, CT_STATUS_OK);
            g_assert_cmpmem (top, out * sizeof *top, want, out * sizeof *want);

            /* The outputs, of mixed magnitudes, as the top diff. */
            memcpy (want_diff, in, (gsize) n * sizeof (float));
            memcpy (diff, in, (gsize) n * sizeof (float));
            ave_backward_naive (&g, want, want_diff);
            g_assert_cmpint (ct_cpu_ave_pool_backward (&g, want, diff), ==, CT_STATUS_OK);
            g_assert_cmpmem (diff, n * sizeof *diff, want_diff, n * sizeof *want_diff);
            memset (want_diff, 0, (gsize) n * sizeof (float));
            for (int64_t i = 0; i < n; i++)
              diff[i] = NAN;
            ave_backward_naive (&g, want, want_diff);
            g_assert_cmpint (ct_cpu_ave_pool_backward_set (&g, want, diff), ==, CT_STATUS_OK);
            g_assert_cmpmem (diff, n * sizeof *diff, want_diff, n * sizeof *want_diff);
            ct_cpu_pool_set_avx512 (1);
          }
}

static void
test_ave_rows (void)
{
  check_ave_rows (1);
  check_ave_rows (0);
}

static void
test_ave (void)
{
  CtPoolGeometry g = geometry (3, 2, 1, 2, 3);
  static const float expected[] = { 17.0f / 9, 30.0f / 9, 8.0f / 6, 20.0f / 9, 33.0f / 9,
                                    17.0f / 6 };
  float top[12], diff[24] = { 0 }, ones[12];

  g_assert_cmpint (ct_cpu_ave_pool_forward (&g, planes, top), ==, CT_STATUS_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (fabsf (top[i] - expected[i]), <, 1e-6f);
  for (int i = 0; i < 12; i++)
    ones[i] = 1.0f;
  g_assert_cmpint (ct_cpu_ave_pool_backward (&g, ones, diff), ==, CT_STATUS_OK);
  /* Element (0, 0) lies in window (0, 0) only: 1/9. Element (1, 3) lies in
   * windows (0, 1) and (1, 1) of size 9, and (0, 2) and (1, 2) of size 6. */
  g_assert_cmpfloat (fabsf (diff[0] - 1.0f / 9), <, 1e-7f);
  g_assert_cmpfloat (fabsf (diff[7] - (2.0f / 9 + 2.0f / 6)), <, 1e-6f);
}

/* Caffe's pooled size: windows rounded up, the last starting inside the
 * image or its top/left padding. */
static int64_t
pooled (int64_t size, int64_t kernel, int64_t stride, int64_t pad)
{
  int64_t n = (size + 2 * pad - kernel + stride - 1) / stride + 1;

  return pad > 0 && (n - 1) * stride >= size + pad ? n - 1 : n;
}

/* The _set backward passes write the bottom diff: over any old contents
 * (NaN here) they give, to the bit, what clearing and then adding gives.
 * Geometries with padding, overlapping windows and a clipped last window. */
static void
test_backward_set (void)
{
  static const int64_t shapes[][5] = {
    /* height, width, kernel, stride, pad */
    { 7, 9, 3, 2, 0 }, { 8, 8, 2, 2, 0 }, { 6, 5, 3, 1, 1 }, { 11, 13, 5, 3, 2 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      const int64_t h = shapes[i][0], w = shapes[i][1], k = shapes[i][2], st = shapes[i][3],
                    pad = shapes[i][4];
      const int64_t ph = pooled (h, k, st, pad), pw = pooled (w, k, st, pad);
      CtPoolGeometry g = { 3, h, w, ph, pw, k, k, st, st, pad, pad };
      const gsize in_n = (gsize) (3 * h * w), out_n = (gsize) (3 * ph * pw);
      g_autofree float *in = g_new (float, in_n), *top = g_new (float, out_n);
      g_autofree float *top_diff = g_new (float, out_n), *added = g_new0 (float, in_n);
      g_autofree float *written = g_new (float, in_n);
      g_autofree int32_t *mask = g_new (int32_t, out_n);

      for (gsize j = 0; j < in_n; j++)
        in[j] = (float) ((j * 7919) % 101) / 7.0f - 5.0f;
      for (gsize j = 0; j < out_n; j++)
        top_diff[j] = (float) ((j * 104729) % 37) / 3.0f - 4.0f;

      g_assert_cmpint (ct_cpu_max_pool_forward (&g, in, top, mask, NULL), ==, CT_STATUS_OK);
      for (gsize j = 0; j < in_n; j++)
        written[j] = NAN;
      g_assert_cmpint (ct_cpu_max_pool_backward (&g, top_diff, mask, NULL, added), ==,
                       CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_max_pool_backward_set (&g, top_diff, mask, NULL, written), ==,
                       CT_STATUS_OK);
      g_assert_cmpmem (written, in_n * sizeof (float), added, in_n * sizeof (float));

      memset (added, 0, in_n * sizeof (float));
      for (gsize j = 0; j < in_n; j++)
        written[j] = NAN;
      g_assert_cmpint (ct_cpu_ave_pool_backward (&g, top_diff, added), ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cpu_ave_pool_backward_set (&g, top_diff, written), ==, CT_STATUS_OK);
      g_assert_cmpmem (written, in_n * sizeof (float), added, in_n * sizeof (float));
    }
}

static void
test_stochastic (void)
{
  CtPoolGeometry g = geometry (2, 2, 0, 2, 2);
  const float positive[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  float u[4] = { 0.0f, 1.0f, 0.5f, 0.2f }, top[4], diff[12] = { 0 };
  int32_t index[4];

  g.planes = 1;
  g_assert_cmpint (ct_cpu_stochastic_pool_forward_train (&g, positive, u, top, index), ==,
                   CT_STATUS_OK);
  /* Window (0, 0) = {1, 2, 5, 6}, sum 14: draw 0 takes the first. Window
   * (0, 1) = {3, 4, 7, 8}: draw 1 takes the last. Window (1, 0) = {9, 10}
   * (the window is cut by the image), draw 0.5 of 19 reaches 9.5 at 10. */
  g_assert_cmpfloat (top[0], ==, 1);
  g_assert_cmpint (index[0], ==, 0);
  g_assert_cmpfloat (top[1], ==, 8);
  g_assert_cmpint (index[1], ==, 7);
  g_assert_cmpfloat (top[2], ==, 10);
  g_assert_cmpint (index[2], ==, 9);
  g_assert_cmpfloat (top[3], ==, 11); /* 0.2 of 23 = 4.6 <= 11 */
  g_assert_cmpint (ct_cpu_stochastic_pool_backward_train (&g, u, index, diff), ==,
                   CT_STATUS_OK);
  g_assert_cmpfloat (diff[7], ==, 1.0f);

  g_assert_cmpint (ct_cpu_stochastic_pool_forward_test (&g, positive, top), ==, CT_STATUS_OK);
  g_assert_cmpfloat (fabsf (top[0] - (1.0f + 4 + 25 + 36) / 14), <, 1e-6f);
}

/* x^-0.75 as the kernels compute it (within 2 ulp of powf). */
static float
power_075 (float x)
{
  float r = sqrtf (x);

  return 1.0f / (r * sqrtf (r));
}

/* ACROSS by the definition, element by element, in Caffe's order of
 * operations: each channel's scale from the previous one's, the square
 * entering added and the one leaving subtracted; the backward pass's sum
 * of ratios slid the same way. */
static void
lrn_across_naive (int64_t num, int64_t channels, int64_t spatial, int64_t size, float alpha,
                  float k, const float *x, const float *top_diff, float *scale, float *top,
                  float *bottom_diff)
{
  const int64_t pre = (size - 1) / 2;
  const float a = alpha / (float) size;
  const float cache_ratio = (float) (2.0 * alpha * 0.75 / (double) size);

  for (int64_t n = 0; n < num; n++)
    for (int64_t i = 0; i < spatial; i++)
      {
        const int64_t at = n * channels * spatial + i;
        float accum = 0.0f;

#define X(c) x[at + (c) * spatial]
#define RATIO(c) ((top_diff[at + (c) * spatial] * top[at + (c) * spatial]) / scale[at + (c) * spatial])
        scale[at] = k;
        for (int64_t c = 0; c <= pre && c < channels; c++)
          scale[at] += a * (X (c) * X (c));
        for (int64_t c = 1; c < channels; c++)
          {
            float v = scale[at + (c - 1) * spatial];

            if (c + pre < channels)
              v += a * (X (c + pre) * X (c + pre));
            if (c - 1 - pre >= 0)
              v += -a * (X (c - 1 - pre) * X (c - 1 - pre));
            scale[at + c * spatial] = v;
          }
        for (int64_t c = 0; c < channels; c++)
          top[at + c * spatial] = power_075 (scale[at + c * spatial]) * X (c);
        for (int64_t c = 0; c < pre && c < channels; c++)
          accum += RATIO (c);
        for (int64_t c = 0; c < channels; c++)
          {
            float d = power_075 (scale[at + c * spatial]) * top_diff[at + c * spatial];

            if (c + pre < channels)
              accum += RATIO (c + pre);
            bottom_diff[at + c * spatial] = d + -cache_ratio * (X (c) * accum);
            if (c - pre >= 0)
              accum += -RATIO (c - pre);
          }
#undef X
#undef RATIO
      }
}

/* ACROSS forward and backward, bit for bit against the definition: local
 * sizes whose window ratios the kernel keeps (3, 5) and one it computes
 * again (19); planes of several blocks of positions, whose rows fill
 * whole cache lines (the outputs start on one, as blobs do, and stream)
 * or leave some unaligned. */
static void
test_lrn_across (void)
{
  static const int64_t shapes[][4] = {
    /* num, channels, spatial, size */
    { 2, 7, 300, 3 }, { 3, 40, 729, 5 }, { 2, 30, 61, 19 }, { 1, 4, 513, 5 }, { 2, 9, 528, 5 },
  };

  for (gsize t = 0; t < G_N_ELEMENTS (shapes); t++)
    {
      const int64_t num = shapes[t][0], channels = shapes[t][1], spatial = shapes[t][2];
      const int64_t size = shapes[t][3], count = num * channels * spatial;
      g_autofree float *x = g_new (float, count), *td = g_new (float, count);
      float *scale = g_aligned_alloc (count, sizeof (float), 64);
      float *top = g_aligned_alloc (count, sizeof (float), 64);
      float *bd = g_aligned_alloc (count, sizeof (float), 64);
      g_autofree float *want_scale = g_new (float, count);
      g_autofree float *want_top = g_new (float, count), *want_bd = g_new (float, count);

      for (int64_t i = 0; i < count; i++)
        {
          x[i] = (float) ((i * 7919) % 101) / 13.0f - 3.5f;
          td[i] = (float) ((i * 104729) % 37) / 7.0f - 2.5f;
        }
      lrn_across_naive (num, channels, spatial, size, 1e-2f, 2.0f, x, td, want_scale, want_top,
                        want_bd);
      g_assert_cmpint (ct_cpu_lrn_across_forward (num, channels, spatial, size, 1e-2f, 0.75f,
                                                  2.0f, x, scale, top),
                       ==, CT_STATUS_OK);
      g_assert_cmpmem (scale, count * sizeof (float), want_scale, count * sizeof (float));
      g_assert_cmpmem (top, count * sizeof (float), want_top, count * sizeof (float));
      g_assert_cmpint (ct_cpu_lrn_across_backward (num, channels, spatial, size, 1e-2f, 0.75f,
                                                   x, top, scale, td, NULL, bd),
                       ==, CT_STATUS_OK);
      g_assert_cmpmem (bd, count * sizeof (float), want_bd, count * sizeof (float));
      /* The backward pass that slides the scales again: the same bits. */
      memset (bd, 0, (gsize) count * sizeof (float));
      g_assert_cmpint (ct_cpu_lrn_across_backward_again (num, channels, spatial, size, 1e-2f,
                                                         0.75f, 2.0f, x, top, td, bd),
                       ==, CT_STATUS_OK);
      g_assert_cmpmem (bd, count * sizeof (float), want_bd, count * sizeof (float));
      /* A forward pass that keeps no scale: the same top. */
      memset (top, 0, (gsize) count * sizeof (float));
      g_assert_cmpint (ct_cpu_lrn_across_forward (num, channels, spatial, size, 1e-2f, 0.75f,
                                                  2.0f, x, NULL, top),
                       ==, CT_STATUS_OK);
      g_assert_cmpmem (top, count * sizeof (float), want_top, count * sizeof (float));
      g_aligned_free (scale);
      g_aligned_free (top);
      g_aligned_free (bd);
    }
}

static void
test_lrn (void)
{
  /* One position, three channels, local size 3: scale_c = k + a/3 * sum. */
  const float x[] = { 1, 2, 3 };
  float scale[3], y[3];

  g_assert_cmpint (ct_cpu_lrn_across_forward (1, 3, 1, 3, 3.0f, 1.0f, 2.0f, x, scale, y), ==,
                   CT_STATUS_OK);
  g_assert_cmpfloat (fabsf (scale[0] - (2 + 1 + 4)), <, 1e-5f);
  g_assert_cmpfloat (fabsf (scale[1] - (2 + 1 + 4 + 9)), <, 1e-5f);
  g_assert_cmpfloat (fabsf (scale[2] - (2 + 4 + 9)), <, 1e-5f);
  g_assert_cmpfloat (fabsf (y[1] - 2.0f / 16), <, 1e-6f);

  g_assert_cmpint (ct_cpu_lrn_across_forward (1, 3, 1, 4, 1, 1, 1, x, scale, y), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_lrn_within_forward (1, 1, 3, 0, 1, 1, x, scale, y), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_lrn_within_forward (-1, 1, 3, 3, 1, 1, x, scale, y), ==,
                   CT_STATUS_INVALID);

  /* Within: a 1 x 3 plane, size 3, divisor 9 everywhere. */
  g_assert_cmpint (ct_cpu_lrn_within_forward (1, 1, 3, 3, 9.0f, 1.0f, x, scale, y), ==,
                   CT_STATUS_OK);
  g_assert_cmpfloat (fabsf (scale[0] - (1 + 1 + 4)), <, 1e-5f);
  g_assert_cmpfloat (fabsf (scale[1] - (1 + 1 + 4 + 9)), <, 1e-5f);
  {
    float kept[3];

    memcpy (kept, y, sizeof kept);
    memset (y, 0, sizeof y);
    g_assert_cmpint (ct_cpu_lrn_within_forward (1, 1, 3, 3, 9.0f, 1.0f, x, NULL, y), ==,
                     CT_STATUS_OK);
    g_assert_cmpmem (y, sizeof y, kept, sizeof kept);
  }
}

static void
test_crop (void)
{
  const int64_t big_shape[] = { 2, 3, 4 }, small_shape[] = { 1, 2, 2 }, offsets[] = { 1, 1, 2 };
  const int64_t bad_offsets[] = { 1, 2, 2 };
  float big[24], small[4];

  for (int i = 0; i < 24; i++)
    big[i] = (float) i;
  g_assert_cmpint (ct_cpu_crop_forward (3, big_shape, small_shape, offsets, big, small), ==,
                   CT_STATUS_OK);
  g_assert_cmpfloat (small[0], ==, 12 + 4 + 2);
  g_assert_cmpfloat (small[1], ==, 12 + 4 + 3);
  g_assert_cmpfloat (small[2], ==, 12 + 8 + 2);
  g_assert_cmpfloat (small[3], ==, 12 + 8 + 3);
  memset (big, 0, sizeof big);
  g_assert_cmpint (ct_cpu_crop_backward (3, big_shape, small_shape, offsets, small, big), ==,
                   CT_STATUS_OK);
  g_assert_cmpfloat (big[18], ==, 18);
  g_assert_cmpfloat (big[23], ==, 23);
  g_assert_cmpfloat (big[17], ==, 0);
  g_assert_cmpint (ct_cpu_crop_forward (3, big_shape, small_shape, bad_offsets, big, small), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_crop_forward (0, big_shape, small_shape, offsets, big, small), ==,
                   CT_STATUS_INVALID);
}

static void
test_invalid_geometry (void)
{
  float buffer[64] = { 0 };
  int32_t mask[64];
  CtPoolGeometry g = geometry (2, 1, 0, 2, 3);
  CtPoolGeometry bad;

  bad = g;
  bad.stride_h = 0;
  g_assert_cmpint (ct_cpu_max_pool_forward (&bad, planes, buffer, mask, NULL), ==,
                   CT_STATUS_INVALID);
  bad = g;
  bad.kernel_w = 0;
  g_assert_cmpint (ct_cpu_ave_pool_forward (&bad, planes, buffer), ==, CT_STATUS_INVALID);
  bad = g;
  bad.pad_h = -1;
  g_assert_cmpint (ct_cpu_ave_pool_backward (&bad, planes, buffer), ==, CT_STATUS_INVALID);
  bad = g;
  bad.height = 0;
  g_assert_cmpint (ct_cpu_stochastic_pool_forward_test (&bad, planes, buffer), ==,
                   CT_STATUS_INVALID);
  bad = g;
  bad.height = (int64_t) 1 << 20;
  bad.width = (int64_t) 1 << 12; /* a plane over INT32_MAX elements */
  g_assert_cmpint (ct_cpu_max_pool_forward (&bad, planes, buffer, mask, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_max_pool_forward (NULL, planes, buffer, mask, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_max_pool_backward (&g, planes, NULL, NULL, buffer), ==,
                   CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/pooling/max", test_max);
  g_test_add_func ("/kernels/pooling/max-rows", test_max_rows);
  g_test_add_func ("/kernels/pooling/max-2x2", test_max_2x2);
  g_test_add_func ("/kernels/pooling/ave-rows", test_ave_rows);
  g_test_add_func ("/kernels/pooling/ave", test_ave);
  g_test_add_func ("/kernels/pooling/backward-set", test_backward_set);
  g_test_add_func ("/kernels/pooling/stochastic", test_stochastic);
  g_test_add_func ("/kernels/pooling/invalid", test_invalid_geometry);
  g_test_add_func ("/kernels/lrn", test_lrn);
  g_test_add_func ("/kernels/lrn/across", test_lrn_across);
  g_test_add_func ("/kernels/crop", test_crop);
  return g_test_run ();
}
