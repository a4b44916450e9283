/* test-reference.c: every optimised CPU path against the plain versions
 * of kernels/cpu/reference/, on odd shapes, with each instruction-set
 * switch of switches.h on and off. Same bits where the kernel promises
 * the reference's order of operations (pooling, im2col and col2im, axpby,
 * dot, asum, the SGD step); a stated tolerance where the order differs (products and
 * convolutions, which the reference sums in double). */
#include <float.h>
#include <math.h>
#include <string.h>
#include <glib.h>

#include "blas.h"
#include "conv.h"
#include "cpu/gemm-narrow.h"
#include "cpu/gemm-skinny.h"
#include "im2col.h"
#include "pooling.h"
#include "reference.h"
#include "solver-update.h"
#include "switches.h"

/* Values from a small set (ties in every window), a NaN, infinities. */
static void
fill_ties (float *x, int64_t n, uint32_t seed)
{
  for (int64_t i = 0; i < n; i++)
    x[i] = (float) ((((uint32_t) i * 2654435761u + seed) >> 11) % 7) - 3.0f;
  if (n > 4)
    {
      x[n / 3] = NAN;
      x[n / 2] = INFINITY;
      x[n - 2] = -INFINITY;
    }
}

static void
fill_random (GRand *rand, float *x, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    x[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
}

static CtPoolGeometry
pool_geometry (int64_t planes, int64_t h, int64_t w, int64_t kernel, int64_t stride,
               int64_t pad)
{
  CtPoolGeometry g = { planes, h, w, 0, 0, kernel, kernel, stride, stride, pad, pad };

  /* Caffe's ceil, and no window starting in the bottom or right padding */
  g.pooled_height = (h + 2 * pad - kernel + stride - 1) / stride + 1;
  g.pooled_width = (w + 2 * pad - kernel + stride - 1) / stride + 1;
  if (pad > 0 && (g.pooled_height - 1) * stride >= h + pad)
    g.pooled_height--;
  if (pad > 0 && (g.pooled_width - 1) * stride >= w + pad)
    g.pooled_width--;
  return g;
}

/* The pools: every way (AVX-512, AVX2, SSE2 and scalar) over kernels 1
 * to 5, strides 1 to 3, padding, widths 1 to 41 and heights 1 to 9
 * (2 x 2 at stride 2 on even planes takes cpu/pool-2x2.c), MAX and AVE,
 * forward and the adding backward pass, to the bit. */
static void
test_pooling (void)
{
  static const int64_t widths[] = { 1, 2, 3, 5, 8, 12, 15, 16, 17, 24, 26, 33, 41 };
  int checked = 0;

  for (int way = 2; way >= 0; way--)
    for (int64_t kernel = 1; kernel <= 5; kernel++)
      for (int64_t stride = 1; stride <= 3; stride++)
        for (int64_t pad = 0; pad < kernel && pad <= 2; pad++)
          for (gsize wi = 0; wi < G_N_ELEMENTS (widths); wi++)
            for (int64_t h = 1; h <= 9; h += 4)
              {
                const int64_t width = widths[wi];
                CtPoolGeometry g;
                int64_t n, out;

                if (width + 2 * pad < kernel || h + 2 * pad < kernel)
                  continue;
                g = pool_geometry (3, h, width, kernel, stride, pad);
                n = g.planes * h * width;
                out = g.planes * g.pooled_height * g.pooled_width;
                g_autofree float *in = g_new (float, n), *top = g_new (float, out);
                g_autofree float *want = g_new (float, out), *top_diff = g_new (float, out);
                g_autofree float *diff = g_new (float, n), *want_diff = g_new (float, n);
                g_autofree int32_t *mask = g_new (int32_t, out);
                g_autofree int32_t *want_mask = g_new (int32_t, out);

                fill_ties (in, n, (uint32_t) (kernel * 131 + width));
                fill_ties (top_diff, out, 7);
                for (int64_t i = 0; i < out; i++)
                  top_diff[i] = isfinite (top_diff[i]) ? top_diff[i] * 0.37f : 0.5f;
                ct_cpu_pool_set_avx512 (way == 2);
                ct_cpu_max_pool_set_avx2 (way >= 1);

                /* MAX */
                ct_ref_max_pool_forward (&g, in, want, want_mask);
                g_assert_cmpint (ct_cpu_max_pool_forward (&g, in, top, mask, NULL), ==,
                                 CT_STATUS_OK);
                g_assert_cmpmem (mask, out * sizeof *mask, want_mask, out * sizeof *mask);
                g_assert_cmpmem (top, out * sizeof *top, want, out * sizeof *top);
                for (int64_t i = 0; i < n; i++)
                  diff[i] = want_diff[i] = (float) (i % 5) * 0.25f;
                ct_ref_max_pool_backward (&g, top_diff, want_mask, want_diff);
                g_assert_cmpint (ct_cpu_max_pool_backward (&g, top_diff, mask, NULL, diff), ==,
                                 CT_STATUS_OK);
                g_assert_cmpmem (diff, n * sizeof *diff, want_diff, n * sizeof *diff);

                /* AVE, on finite values (a NaN spreads to whole windows) */
                for (int64_t i = 0; i < n; i++)
                  in[i] = isfinite (in[i]) ? in[i] * 0.3f : 0.7f;
                ct_ref_ave_pool_forward (&g, in, want);
                g_assert_cmpint (ct_cpu_ave_pool_forward (&g, in, top), ==, CT_STATUS_OK);
                g_assert_cmpmem (top, out * sizeof *top, want, out * sizeof *top);
                for (int64_t i = 0; i < n; i++)
                  diff[i] = want_diff[i] = (float) (i % 3) * 0.125f;
                ct_ref_ave_pool_backward (&g, top_diff, want_diff);
                g_assert_cmpint (ct_cpu_ave_pool_backward (&g, top_diff, diff), ==,
                                 CT_STATUS_OK);
                g_assert_cmpmem (diff, n * sizeof *diff, want_diff, n * sizeof *diff);
                checked++;
              }
  ct_cpu_pool_set_avx512 (1);
  ct_cpu_max_pool_set_avx2 (1);
  g_test_message ("%d geometries, each on 3 ways", checked / 3);
}

/* im2col and col2im with and without the AVX-512 windows: odd planes,
 * kernels, padding wider than the kernel, strides and dilations. */
static void
test_im2col (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);

  for (int avx512 = 1; avx512 >= 0; avx512--)
    for (int64_t kernel = 1; kernel <= 5; kernel += 2)
      for (int64_t pad = 0; pad <= 3; pad++)
        for (int64_t stride = 1; stride <= 2; stride++)
          for (int64_t dilation = 1; dilation <= 2; dilation++)
            for (int64_t size = 3; size <= 19; size += 4)
              {
                const int64_t channels = 3, h = size, w = size + 2;
                const int64_t span = dilation * (kernel - 1) + 1;
                int64_t oh, ow, n, cn;

                if (h + 2 * pad < span)
                  continue;
                oh = (h + 2 * pad - span) / stride + 1;
                ow = (w + 2 * pad - span) / stride + 1;
                n = channels * h * w;
                cn = channels * kernel * kernel * oh * ow;
                g_autofree float *im = g_new (float, n), *col = g_new (float, cn);
                g_autofree float *want_col = g_new (float, cn), *back = g_new (float, n);
                g_autofree float *want_back = g_new (float, n);

                fill_random (rand, im, n);
                ct_cpu_im2col_set_avx512 (avx512);
                ct_ref_im2col (im, channels, h, w, kernel, kernel, pad, pad, stride, stride,
                               dilation, dilation, want_col);
                g_assert_cmpint (ct_cpu_im2col (im, channels, h, w, kernel, kernel, pad, pad,
                                                stride, stride, dilation, dilation, col),
                                 ==, CT_STATUS_OK);
                g_assert_cmpmem (col, cn * sizeof *col, want_col, cn * sizeof *col);
                fill_random (rand, col, cn);
                ct_ref_col2im (col, channels, h, w, kernel, kernel, pad, pad, stride, stride,
                               dilation, dilation, want_back);
                g_assert_cmpint (ct_cpu_col2im (col, channels, h, w, kernel, kernel, pad, pad,
                                                stride, stride, dilation, dilation, back),
                                 ==, CT_STATUS_OK);
                g_assert_cmpmem (back, n * sizeof *back, want_back, n * sizeof *back);
              }
  ct_cpu_im2col_set_avx512 (1);
}

/* GOT within 4 K roundoffs of the terms' size of the double sum WANT. */
static void
assert_product (const char *what, const float *got, const float *want, const double *mag,
                int64_t count, int64_t k)
{
  for (int64_t i = 0; i < count; i++)
    {
      double bound = 4.0 * (double) (k + 2) * FLT_EPSILON * (mag[i] + fabs (want[i])) + 1e-30;

      if (fabs ((double) got[i] - want[i]) > bound)
        g_error ("%s: element %" G_GINT64_FORMAT " is %.9g, the reference %.9g (bound %.3g)",
                 what, i, got[i], want[i], bound);
    }
}

typedef int (*Product) (CtTranspose, CtTranspose, int64_t, int64_t, int64_t, float,
                        const float *, const float *, float, float *);

static int
general_product (CtTranspose ta, CtTranspose tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *a, const float *b, float beta, float *c)
{
  return ct_cpu_gemm (ta, tb, m, n, k, alpha, a, b, beta, c) == CT_STATUS_OK;
}

/* ct_cpu_gemm on every transpose, and the skinny (few rows, long rows of
 * B) and narrow (few columns, long K) products called straight, where the
 * CPU runs them; beta 0 over NaN, beta 1 and an odd beta. */
static void
test_gemm (void)
{
  static const struct { int64_t m, n, k; } shapes[] = {
    { 1, 1, 1 }, { 3, 5, 7 }, { 17, 33, 65 }, { 64, 31, 129 },
    { 7, 1031, 1025 }, { 16, 260, 4099 }, { 10, 4096, 257 },  /* skinny */
    { 20, 25, 577 }, { 13, 7, 64 }, { 64, 10, 500 },          /* narrow */
  };
  static const struct { const char *name; Product run; } paths[] = {
    { "gemm", general_product },
    { "skinny", ct_cpu_gemm_skinny },
    { "narrow", ct_cpu_gemm_narrow },
  };
  static const float betas[] = { 0.0f, 1.0f, -0.75f };
  g_autoptr (GRand) rand = g_rand_new_with_seed (1009);
  int ran[G_N_ELEMENTS (paths)] = { 0 };

  for (gsize si = 0; si < G_N_ELEMENTS (shapes); si++)
    for (int t = 0; t < 4; t++)
      for (gsize bi = 0; bi < G_N_ELEMENTS (betas); bi++)
        {
          const int64_t m = shapes[si].m, n = shapes[si].n, k = shapes[si].k;
          const CtTranspose ta = t & 1 ? CT_TRANS : CT_NO_TRANS;
          const CtTranspose tb = t & 2 ? CT_TRANS : CT_NO_TRANS;
          const float alpha = 1.25f, beta = betas[bi];
          g_autofree float *a = g_new (float, m * k), *b = g_new (float, k * n);
          g_autofree float *c0 = g_new (float, m * n), *c = g_new (float, m * n);
          g_autofree float *want = g_new (float, m * n);
          g_autofree double *mag = g_new (double, m * n);

          fill_random (rand, a, m * k);
          fill_random (rand, b, k * n);
          fill_random (rand, c0, m * n);
          if (beta == 0.0f)
            c0[0] = NAN;
          memcpy (want, c0, m * n * sizeof *want);
          ct_ref_gemm (ta, tb, m, n, k, alpha, a, b, beta, want);
          ct_ref_gemm_magnitude (ta, tb, m, n, k, alpha, a, b, mag);
          for (int64_t i = 0; i < m * n; i++)
            mag[i] += fabs ((double) beta * c0[i] * (beta != 0.0f));
          for (gsize p = 0; p < G_N_ELEMENTS (paths); p++)
            {
              memcpy (c, c0, m * n * sizeof *c);
              if (!paths[p].run (ta, tb, m, n, k, alpha, a, b, beta, c))
                continue;
              ran[p]++;
              assert_product (paths[p].name, c, want, mag, m * n, k);
            }
        }
  for (gsize p = 0; p < G_N_ELEMENTS (paths); p++)
    g_test_message ("%s: %d products", paths[p].name, ran[p]);
  g_assert_cmpint (ran[0], ==, G_N_ELEMENTS (shapes) * 4 * G_N_ELEMENTS (betas));
}

/* axpy, axpby, dot and asum to the bit, on lengths around the vector widths
 * and the pool's split. */
static void
test_vector (void)
{
  static const int64_t lengths[] = { 0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 1000, 65537 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);

  for (gsize li = 0; li < G_N_ELEMENTS (lengths); li++)
    {
      const int64_t n = lengths[li];
      g_autofree float *x = g_new (float, n + 1), *y = g_new (float, n + 1);
      g_autofree float *got = g_new (float, n + 1), *want = g_new (float, n + 1);
      float dot = 0.0f;

      fill_random (rand, x, n);
      fill_random (rand, y, n);
      memcpy (got, y, n * sizeof *y);
      memcpy (want, y, n * sizeof *y);
      g_assert_cmpint (ct_cpu_axpby (n, 0.3f, x, -1.7f, got), ==, CT_STATUS_OK);
      ct_ref_axpby (n, 0.3f, x, -1.7f, want);
      g_assert_cmpmem (got, n * sizeof *got, want, n * sizeof *want);
      memcpy (got, y, n * sizeof *y);
      memcpy (want, y, n * sizeof *y);
      g_assert_cmpint (ct_cpu_axpy (n, -2.1f, x, got), ==, CT_STATUS_OK);
      ct_ref_axpby (n, -2.1f, x, 1.0f, want);
      g_assert_cmpmem (got, n * sizeof *got, want, n * sizeof *want);
      g_assert_cmpint (ct_cpu_dot (n, x, y, &dot), ==, CT_STATUS_OK);
      g_assert_cmpfloat (dot, ==, ct_ref_dot (n, x, y));
      g_assert_cmpint (ct_cpu_asum (n, x, &dot), ==, CT_STATUS_OK);
      g_assert_cmpfloat (dot, ==, ct_ref_asum (n, x));
    }
}

/* The SGD step with a decay (AVX-512 where the CPU has it, else the
 * plain loop) to the bit, on lengths around the vector width. */
static void
test_sgd_step (void)
{
  static const int64_t lengths[] = { 1, 15, 16, 17, 1023, 4099 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);

  for (gsize li = 0; li < G_N_ELEMENTS (lengths); li++)
    {
      const int64_t n = lengths[li];
      g_autofree float *d = g_new (float, n), *h = g_new (float, n), *w = g_new (float, n);
      g_autofree float *d2 = g_new (float, n), *h2 = g_new (float, n), *w2 = g_new (float, n);

      fill_random (rand, d, n);
      fill_random (rand, h, n);
      fill_random (rand, w, n);
      memcpy (d2, d, n * sizeof *d);
      memcpy (h2, h, n * sizeof *h);
      memcpy (w2, w, n * sizeof *w);
      g_assert_cmpint (ct_cpu_sgd_step (n, 0.9f, 0.01f, 5e-4f, d, h, w), ==, CT_STATUS_OK);
      ct_ref_sgd_step (n, 0.9f, 0.01f, 5e-4f, d2, h2, w2);
      g_assert_cmpmem (d, n * sizeof *d, d2, n * sizeof *d);
      g_assert_cmpmem (h, n * sizeof *h, h2, n * sizeof *h);
      g_assert_cmpmem (w, n * sizeof *w, w2, n * sizeof *w);
    }
}

typedef struct {
  int64_t num, cin, cout, group, h, w, kh, kw, pad, stride, dilation;
} ConvCase;

/* Odd planes and channel counts; the first layers that the direct kernel
 * takes; 1x1 on planes of 14 x 14 and more (one product on the blob);
 * groups; stride and dilation; padding wider than the kernel. */
static const ConvCase conv_cases[] = {
  { 3, 1, 7, 1, 13, 11, 5, 5, 0, 1, 1 },
  { 2, 3, 13, 1, 17, 9, 3, 3, 1, 1, 1 },
  { 2, 5, 9, 1, 12, 12, 5, 5, 2, 1, 1 },
  { 2, 24, 17, 1, 15, 14, 1, 1, 0, 1, 1 },
  { 3, 32, 32, 2, 9, 7, 3, 3, 1, 1, 1 },
  { 2, 16, 16, 1, 11, 10, 3, 3, 1, 2, 1 },
  { 2, 6, 10, 2, 13, 11, 3, 3, 2, 1, 2 },
  { 1, 3, 5, 1, 5, 6, 3, 3, 4, 1, 1 },
};

/* The convolutions on every backend and fast path against the double
 * sums: forward, the input gradient and the weight and bias gradients,
 * each within 1e-5 of the reference's root mean square. */
static void
test_conv (void)
{
  static const struct { CtConvBackend backend; int tiles, direct; } paths[] = {
    { CT_CONV_BACKEND_IM2COL, 0, 0 },
    { CT_CONV_BACKEND_IM2COL, 1, 0 },
    { CT_CONV_BACKEND_IM2COL, 1, 1 },
    { CT_CONV_BACKEND_AUTO, 1, 1 },
    { CT_CONV_BACKEND_DNNL, 1, 1 },
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (4242);

  for (gsize ci = 0; ci < G_N_ELEMENTS (conv_cases); ci++)
    {
      const ConvCase *k = &conv_cases[ci];
      CtConvShape s = { .num = k->num, .in_channels = k->cin, .out_channels = k->cout,
                        .group = k->group, .num_spatial_axes = 2,
                        .in_dims = { k->h, k->w }, .kernel = { k->kh, k->kw },
                        .pad = { k->pad, k->pad }, .stride = { k->stride, k->stride },
                        .dilation = { k->dilation, k->dilation } };
      int64_t in, out, wn;

      for (int i = 0; i < 2; i++)
        s.out_dims[i] = (s.in_dims[i] + 2 * s.pad[i] - (s.dilation[i] * (s.kernel[i] - 1) + 1))
                        / s.stride[i] + 1;
      in = s.num * s.in_channels * s.in_dims[0] * s.in_dims[1];
      out = s.num * s.out_channels * s.out_dims[0] * s.out_dims[1];
      wn = s.out_channels * (s.in_channels / s.group) * s.kernel[0] * s.kernel[1];
      g_autofree float *x = g_new (float, in), *w = g_new (float, wn);
      g_autofree float *b = g_new (float, s.out_channels), *dy = g_new (float, out);
      g_autofree float *y = g_new (float, out), *want_y = g_new (float, out);
      g_autofree float *dx = g_new (float, in), *want_dx = g_new (float, in);
      g_autofree float *dw = g_new (float, wn), *want_dw = g_new (float, wn);
      g_autofree float *db = g_new (float, s.out_channels);
      g_autofree float *want_db = g_new (float, s.out_channels);

      fill_random (rand, x, in);
      fill_random (rand, w, wn);
      fill_random (rand, b, s.out_channels);
      fill_random (rand, dy, out);
      ct_ref_conv_forward (&s, x, w, b, want_y);
      ct_ref_conv_backward (&s, x, dy, w, want_dw, want_db, want_dx);
      for (gsize p = 0; p < G_N_ELEMENTS (paths); p++)
        {
          CtConvBackend before = ct_cpu_conv_set_backend (paths[p].backend);
          int tiles = ct_cpu_conv_set_tiles (paths[p].tiles);
          int direct = ct_cpu_conv_set_direct (paths[p].direct);
          size_t floats = ct_cpu_conv_workspace_floats (&s);
          g_autofree float *workspace = g_new (float, MAX (floats, 1));

          memset (dw, 0, wn * sizeof *dw);
          memset (db, 0, s.out_channels * sizeof *db);
          g_assert_cmpint (ct_cpu_conv_forward (&s, x, w, b, y, workspace), ==, CT_STATUS_OK);
          g_assert_cmpint (ct_cpu_conv_backward (&s, x, dy, w, dw, db, dx, workspace), ==,
                           CT_STATUS_OK);
          ct_cpu_conv_set_backend (before);
          ct_cpu_conv_set_tiles (tiles);
          ct_cpu_conv_set_direct (direct);
          {
            const struct { const char *what; const float *got, *want; int64_t n; } parts[] = {
              { "output", y, want_y, out },
              { "input gradient", dx, want_dx, in },
              { "weight gradient", dw, want_dw, wn },
              { "bias gradient", db, want_db, s.out_channels },
            };

            for (gsize q = 0; q < G_N_ELEMENTS (parts); q++)
              {
                double sq = 0.0;

                for (int64_t i = 0; i < parts[q].n; i++)
                  sq += (double) parts[q].want[i] * parts[q].want[i];
                sq = sqrt (sq / (double) parts[q].n);
                for (int64_t i = 0; i < parts[q].n; i++)
                  if (fabs ((double) parts[q].got[i] - parts[q].want[i]) > 1e-5 * sq)
                    g_error ("case %zu, path %zu, %s[%" G_GINT64_FORMAT "]: %.9g, the reference "
                             "%.9g (scale %.3g)", ci, p, parts[q].what, i, parts[q].got[i],
                             parts[q].want[i], sq);
              }
          }
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/reference/pooling", test_pooling);
  g_test_add_func ("/kernels/reference/im2col", test_im2col);
  g_test_add_func ("/kernels/reference/gemm", test_gemm);
  g_test_add_func ("/kernels/reference/vector", test_vector);
  g_test_add_func ("/kernels/reference/sgd-step", test_sgd_step);
  g_test_add_func ("/kernels/reference/conv", test_conv);
  return g_test_run ();
}
