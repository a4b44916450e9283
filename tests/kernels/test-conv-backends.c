/* test-conv-backends.c: the CPU convolution paths of conv.h agree. In
 * a build with oneDNN, each shape is run with the default backend (oneDNN
 * where it is faster) or with CT_CONV_BACKEND_DNNL (oneDNN wherever it can
 * run the shape), and again with CT_CONV_BACKEND_IM2COL, forward and every
 * backward output, and the
 * results must agree to 1e-5 of the output's scale: shapes with groups,
 * stride, padding, dilation, 1x1 kernels, odd sizes, a first layer's few
 * input channels, 1x1 kernels at a stride (which the default backend runs
 * over their samples), and batches smaller than the thread count; fixed ones
 * and seeded random ones. Without oneDNN both runs take the same path and
 * must agree exactly. The accumulating gradients start from non-zero
 * values, so that "+=" is checked too. On CPUs with AVX-512, the im2col
 * path's column tiles (cpu/conv-tiles.c) and its direct first-layer
 * kernels (cpu/conv-direct.c) are checked the same way against that path
 * without them. */
#include <math.h>
#include <string.h>
#include <glib.h>

#include "conv.h"
#include "switches.h"

typedef struct {
  int64_t num, in_channels, out_channels, group;
  int64_t dims[2], kernel[2], pad[2], stride[2], dilation[2];
} Case;

static const Case fixed_cases[] = {
  /* LeNet's and CIFAR-10's shapes, smaller batches. */
  { 4, 1, 20, 1, { 28, 28 }, { 5, 5 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 4, 32, 32, 1, { 16, 16 }, { 5, 5 }, { 2, 2 }, { 1, 1 }, { 1, 1 } },
  { 5, 3, 32, 1, { 32, 32 }, { 5, 5 }, { 2, 2 }, { 1, 1 }, { 1, 1 } },
  /* AlexNet's conv2 (groups) and conv1 (stride 4), smaller. */
  { 3, 96, 256, 2, { 13, 13 }, { 5, 5 }, { 2, 2 }, { 1, 1 }, { 1, 1 } },
  { 2, 3, 32, 1, { 39, 39 }, { 11, 11 }, { 0, 0 }, { 4, 4 }, { 1, 1 } },
  /* 1x1, stride, dilation, odd sizes, a batch of one. */
  { 3, 64, 16, 1, { 7, 9 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 3, 32, 48, 1, { 11, 10 }, { 3, 3 }, { 1, 1 }, { 2, 2 }, { 1, 1 } },
  { 2, 32, 32, 2, { 13, 11 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 2, 2 } },
  { 1, 16, 32, 1, { 9, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { 5, 48, 64, 1, { 5, 7 }, { 3, 1 }, { 1, 0 }, { 1, 2 }, { 1, 1 } },
  /* 1x1 at a stride, run over its samples (cpu/conv-sampled.c): ResNet's
   * downsampling onto 14 x 14 and onto 7 x 7, smaller; odd sizes, a
   * stride on one axis, groups; a batch of one. */
  { 4, 64, 128, 1, { 28, 28 }, { 1, 1 }, { 0, 0 }, { 2, 2 }, { 1, 1 } },
  { 3, 32, 64, 1, { 14, 13 }, { 1, 1 }, { 0, 0 }, { 2, 2 }, { 1, 1 } },
  { 2, 32, 16, 2, { 10, 9 }, { 1, 1 }, { 0, 0 }, { 3, 1 }, { 1, 1 } },
  { 1, 16, 32, 1, { 9, 9 }, { 1, 1 }, { 0, 0 }, { 2, 2 }, { 1, 1 } },
};

static CtConvShape
make_shape (const Case *c)
{
  CtConvShape s = { .num = c->num, .in_channels = c->in_channels,
                    .out_channels = c->out_channels, .group = c->group,
                    .num_spatial_axes = 2 };

  for (int i = 0; i < 2; i++)
    {
      s.in_dims[i] = c->dims[i];
      s.kernel[i] = c->kernel[i];
      s.pad[i] = c->pad[i];
      s.stride[i] = c->stride[i];
      s.dilation[i] = c->dilation[i];
      s.out_dims[i] = (c->dims[i] + 2 * c->pad[i] - (c->dilation[i] * (c->kernel[i] - 1) + 1))
                      / c->stride[i] + 1;
    }
  return s;
}

static float *
random_floats (GRand *rand, int64_t n)
{
  float *v = g_new (float, n);

  for (int64_t i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
  return v;
}

/* GOT against WANT: within 1e-5 of WANT's root mean square (the scale of
 * the sums) plus 1e-5 of the element, or exactly equal when EXACT. */
static void
assert_agree (const char *what, const float *got, const float *want, int64_t n, int exact)
{
  double sq = 0.0;

  for (int64_t i = 0; i < n; i++)
    sq += (double) want[i] * want[i];
  sq = n > 0 ? sqrt (sq / (double) n) : 0.0;
  for (int64_t i = 0; i < n; i++)
    {
      double d = fabs ((double) got[i] - want[i]);

      if (exact ? d != 0.0 : d > 1e-5 * (sq + fabs (want[i])))
        g_error ("%s, element %" G_GINT64_FORMAT ": %.8g, im2col says %.8g (scale %.3g)",
                 what, i, got[i], want[i], sq);
    }
}

typedef struct {
  float *y, *dx, *dw, *db;
} Results;

static void
run (const CtConvShape *s, const float *x, const float *w, const float *b, const float *dy,
     const float *dw0, const float *db0, float *workspace, Results *r)
{
  const int64_t in = s->num * s->in_channels * s->in_dims[0] * s->in_dims[1];
  const int64_t out = s->num * s->out_channels * s->out_dims[0] * s->out_dims[1];
  const int64_t wn = s->out_channels * (s->in_channels / s->group) * s->kernel[0]
                     * s->kernel[1];

  r->y = g_new (float, out);
  r->dx = g_new (float, in);
  r->dw = g_memdup2 (dw0, wn * sizeof (float));
  r->db = g_memdup2 (db0, s->out_channels * sizeof (float));
  g_assert_cmpint (ct_cpu_conv_forward (s, x, w, b, r->y, workspace), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_conv_backward (s, x, dy, w, r->dw, r->db, r->dx, workspace), ==,
                   CT_STATUS_OK);
}

static void
results_clear (Results *r)
{
  g_free (r->y);
  g_free (r->dx);
  g_free (r->dw);
  g_free (r->db);
}

/* The workspace for the shape under every backend. */
static size_t
workspace_floats (const CtConvShape *s)
{
  CtConvBackend old = ct_cpu_conv_set_backend (CT_CONV_BACKEND_DNNL);
  size_t most = ct_cpu_conv_workspace_floats (s);

  ct_cpu_conv_set_backend (old);
  return MAX (most, ct_cpu_conv_workspace_floats (s));
}

/* A shape's random inputs and starting gradients, and its workspace. */
typedef struct {
  CtConvShape s;
  int64_t in, out, wn;
  float *x, *w, *b, *dy, *dw0, *db0, *workspace;
} Inputs;

static void
inputs_init (Inputs *t, const Case *c, GRand *rand)
{
  size_t ws;

  t->s = make_shape (c);
  t->in = t->s.num * t->s.in_channels * t->s.in_dims[0] * t->s.in_dims[1];
  t->out = t->s.num * t->s.out_channels * t->s.out_dims[0] * t->s.out_dims[1];
  t->wn = t->s.out_channels * (t->s.in_channels / t->s.group) * t->s.kernel[0]
          * t->s.kernel[1];
  ws = workspace_floats (&t->s);
  g_assert_cmpuint (ws, >, 0);
  t->x = random_floats (rand, t->in);
  t->w = random_floats (rand, t->wn);
  t->b = random_floats (rand, t->s.out_channels);
  t->dy = random_floats (rand, t->out);
  t->dw0 = random_floats (rand, t->wn);
  t->db0 = random_floats (rand, t->s.out_channels);
  t->workspace = g_new (float, ws);
}

static void
inputs_run (const Inputs *t, Results *r)
{
  run (&t->s, t->x, t->w, t->b, t->dy, t->dw0, t->db0, t->workspace, r);
}

static void
inputs_clear (Inputs *t)
{
  g_free (t->x);
  g_free (t->w);
  g_free (t->b);
  g_free (t->dy);
  g_free (t->dw0);
  g_free (t->db0);
  g_free (t->workspace);
}

static void
check_case (const Case *c, GRand *rand, CtConvBackend backend)
{
  Inputs t;
  int exact = !ct_cpu_conv_have_dnnl ();
  Results fast, plain;
  CtConvBackend old;

  inputs_init (&t, c, rand);
  old = ct_cpu_conv_set_backend (backend);
  inputs_run (&t, &fast);
  ct_cpu_conv_set_backend (CT_CONV_BACKEND_IM2COL);
  inputs_run (&t, &plain);
  ct_cpu_conv_set_backend (old);

  assert_agree ("forward", fast.y, plain.y, t.out, exact);
  assert_agree ("input gradient", fast.dx, plain.dx, t.in, exact);
  assert_agree ("weight gradient", fast.dw, plain.dw, t.wn, exact);
  assert_agree ("bias gradient", fast.db, plain.db, t.s.out_channels, exact);
  results_clear (&fast);
  results_clear (&plain);
  inputs_clear (&t);
}

/* Shapes the column tiles take (at least 32 output positions, the rows of
 * one channel within a tile, or of a strip of output rows forward): LeNet's
 * conv2; output channels that 6, 4 or neither divides (a last block of one
 * row); groups, stride, padding and dilation; positions not a multiple of
 * 16; strips (LeNet's conv1; at stride 2 with padding at the sides; with a
 * dilated kernel), the last one shorter. */
static const Case tile_cases[] = {
  { 4, 20, 50, 1, { 12, 12 }, { 5, 5 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 3, 7, 12, 1, { 10, 9 }, { 3, 2 }, { 1, 0 }, { 1, 1 }, { 1, 1 } },
  { 3, 5, 7, 1, { 8, 8 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { 2, 8, 16, 2, { 13, 11 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 2, 2 } },
  { 2, 3, 20, 1, { 39, 39 }, { 11, 11 }, { 0, 0 }, { 4, 4 }, { 1, 1 } },
  { 2, 40, 9, 1, { 16, 16 }, { 5, 5 }, { 2, 2 }, { 1, 1 }, { 1, 1 } },
  { 4, 1, 20, 1, { 28, 28 }, { 5, 5 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 2, 3, 10, 1, { 60, 40 }, { 3, 3 }, { 0, 1 }, { 2, 1 }, { 1, 1 } },
  { 1, 2, 6, 1, { 70, 30 }, { 3, 2 }, { 0, 0 }, { 1, 1 }, { 2, 1 } },
};

/* A fast path of the im2col path that a switch turns on and off (column
 * tiles, the direct kernels), and the passes it runs: those agree with
 * the plain path to 1e-5 of the output's scale, the others exactly. */
typedef struct {
  const char *name;
  int (*set) (int use);
  gboolean runs_input_gradient, runs_parameter_gradients;
} FastPath;

static const FastPath tiles_path = { "tiles", ct_cpu_conv_set_tiles, TRUE, FALSE };
static const FastPath direct_path = { "direct", ct_cpu_conv_set_direct, FALSE, FALSE };

/* The im2col path with and without the fast path F. */
static void
check_fast_path (const FastPath *f, const Case *c, GRand *rand)
{
  Inputs t;
  CtConvBackend old;
  int was;
  Results fast, plain;
  g_autofree char *forward = g_strdup_printf ("%s, forward", f->name);
  g_autofree char *dx = g_strdup_printf ("%s, input gradient", f->name);
  g_autofree char *dw = g_strdup_printf ("%s, weight gradient", f->name);
  g_autofree char *db = g_strdup_printf ("%s, bias gradient", f->name);

  inputs_init (&t, c, rand);
  old = ct_cpu_conv_set_backend (CT_CONV_BACKEND_IM2COL);
  was = f->set (1);
  inputs_run (&t, &fast);
  f->set (0);
  inputs_run (&t, &plain);
  f->set (was);
  ct_cpu_conv_set_backend (old);

  assert_agree (forward, fast.y, plain.y, t.out, FALSE);
  assert_agree (dx, fast.dx, plain.dx, t.in, !f->runs_input_gradient);
  assert_agree (dw, fast.dw, plain.dw, t.wn, !f->runs_parameter_gradients);
  assert_agree (db, fast.db, plain.db, t.s.out_channels, !f->runs_parameter_gradients);
  results_clear (&fast);
  results_clear (&plain);
  inputs_clear (&t);
}

/* Every case of CASES through F, where the CPU has AVX-512. */
static void
check_fast_path_cases (const FastPath *f, const Case *cases, gsize n, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);

#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports ("avx512f"))
#endif
    {
      g_test_skip ("this fast path needs a CPU with AVX-512");
      return;
    }
  for (gsize i = 0; i < n; i++)
    check_fast_path (f, &cases[i], rand);
}

static void
test_tiles (void)
{
  check_fast_path_cases (&tiles_path, tile_cases, G_N_ELEMENTS (tile_cases), 77);
}

/* Shapes the direct kernels take (at most 4 input channels, stride 1):
 * LeNet's and CIFAR-10's conv1; rows of one vector; rows of two whole
 * vectors and a masked third; output channels in blocks of 9, 9 and 7;
 * 128 weights per output channel; padding wider than the kernel; a
 * batch whose chunks take several images per call, through one copy. */
static const Case direct_cases[] = {
  { 4, 1, 20, 1, { 28, 28 }, { 5, 5 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 3, 3, 32, 1, { 32, 32 }, { 5, 5 }, { 2, 2 }, { 1, 1 }, { 1, 1 } },
  { 3, 2, 7, 1, { 17, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { 2, 4, 13, 1, { 12, 40 }, { 1, 7 }, { 0, 3 }, { 1, 1 }, { 1, 1 } },
  { 2, 1, 25, 1, { 20, 16 }, { 3, 3 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 2, 2, 5, 1, { 10, 10 }, { 8, 8 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
  { 1, 3, 6, 1, { 5, 6 }, { 3, 3 }, { 4, 4 }, { 1, 1 }, { 1, 1 } },
  { 40, 2, 7, 1, { 17, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
};

static void
test_direct (void)
{
  check_fast_path_cases (&direct_path, direct_cases, G_N_ELEMENTS (direct_cases), 78);
}

static void
test_fixed (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (12);

  for (gsize i = 0; i < G_N_ELEMENTS (fixed_cases); i++)
    {
      check_case (&fixed_cases[i], rand, CT_CONV_BACKEND_AUTO);
      check_case (&fixed_cases[i], rand, CT_CONV_BACKEND_DNNL);
    }
}

/* Random shapes, channel counts mostly in 16s (the ones oneDNN takes). */
static void
test_random (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (1701);

  for (int t = 0; t < 40; t++)
    {
      Case c = { 0 };
      static const int64_t groups[] = { 1, 1, 1, 2, 4 };

      c.num = g_rand_int_range (rand, 1, 6);
      c.group = groups[g_rand_int_range (rand, 0, G_N_ELEMENTS (groups))];
      c.in_channels = c.group * (g_rand_int_range (rand, 0, 4) == 0
                                 ? g_rand_int_range (rand, 1, 5)
                                 : 16 * g_rand_int_range (rand, 1, 4));
      c.out_channels = c.group * (g_rand_int_range (rand, 0, 5) == 0
                                  ? g_rand_int_range (rand, 1, 24)
                                  : 16 * g_rand_int_range (rand, 1, 4));
      for (int i = 0; i < 2; i++)
        {
          c.kernel[i] = g_rand_int_range (rand, 1, 6);
          c.dilation[i] = g_rand_int_range (rand, 0, 4) == 0 ? 2 : 1;
          c.stride[i] = g_rand_int_range (rand, 0, 3) == 0 ? g_rand_int_range (rand, 2, 4) : 1;
          c.pad[i] = g_rand_int_range (rand, 0, c.kernel[i]);
          c.dims[i] = g_rand_int_range (rand, 1, 20);
          /* The window must fit the padded input. */
          if (c.dims[i] + 2 * c.pad[i] < c.dilation[i] * (c.kernel[i] - 1) + 1)
            c.dims[i] = c.dilation[i] * (c.kernel[i] - 1) + 1;
        }
      check_case (&c, rand, t % 2 == 0 ? CT_CONV_BACKEND_AUTO : CT_CONV_BACKEND_DNNL);
    }
}

/* Each call runs in the workspace asked for its pass alone, allocated to
 * the float (ASan, in CI, sees any write past it), with the results of a
 * full workspace; the forward pass's is never larger than the whole. */
static void
run_per_pass (const Case *c, GRand *rand, CtConvBackend backend, gboolean *smaller)
{
  Inputs t;
  Results full;
  CtConvBackend old = ct_cpu_conv_set_backend (backend);
  size_t fwd_floats, bwd_floats, all_floats;
  g_autofree float *fwd = NULL, *bwd = NULL;
  g_autofree float *y = NULL, *dx = NULL, *dw = NULL, *db = NULL;

  inputs_init (&t, c, rand);
  all_floats = ct_cpu_conv_workspace_floats (&t.s);
  fwd_floats = ct_cpu_conv_workspace_floats_for (&t.s, CT_CONV_PASS_FORWARD);
  bwd_floats = ct_cpu_conv_workspace_floats_for (&t.s, CT_CONV_PASS_BACKWARD);
  g_assert_cmpuint (fwd_floats, >, 0);
  g_assert_cmpuint (bwd_floats, >, 0);
  g_assert_cmpuint (fwd_floats, <=, all_floats);
  g_assert_cmpuint (bwd_floats, <=, all_floats);
  g_assert_cmpuint (MAX (fwd_floats, bwd_floats), ==, all_floats);
  *smaller |= fwd_floats < all_floats;
  inputs_run (&t, &full);

  fwd = g_new (float, fwd_floats);
  bwd = g_new (float, bwd_floats);
  y = g_new (float, t.out);
  dx = g_new (float, t.in);
  dw = g_memdup2 (t.dw0, t.wn * sizeof (float));
  db = g_memdup2 (t.db0, t.s.out_channels * sizeof (float));
  g_assert_cmpint (ct_cpu_conv_forward (&t.s, t.x, t.w, t.b, y, fwd), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_conv_backward (&t.s, t.x, t.dy, t.w, dw, db, dx, bwd), ==,
                   CT_STATUS_OK);
  ct_cpu_conv_set_backend (old);
  g_assert_cmpmem (y, t.out * sizeof (float), full.y, t.out * sizeof (float));
  g_assert_cmpmem (dx, t.in * sizeof (float), full.dx, t.in * sizeof (float));
  g_assert_cmpmem (dw, t.wn * sizeof (float), full.dw, t.wn * sizeof (float));
  g_assert_cmpmem (db, t.s.out_channels * sizeof (float), full.db,
                   t.s.out_channels * sizeof (float));
  results_clear (&full);
  inputs_clear (&t);
}

static void
test_per_pass (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (77);
  /* GoogLeNet's conv2/3x3, smaller: the forward pass needs far less */
  static const Case googlenet = { 2, 64, 192, 1, { 28, 28 }, { 3, 3 }, { 1, 1 }, { 1, 1 },
                                  { 1, 1 } };
  gboolean smaller = FALSE;

  for (gsize i = 0; i < G_N_ELEMENTS (fixed_cases); i++)
    {
      run_per_pass (&fixed_cases[i], rand, CT_CONV_BACKEND_AUTO, &smaller);
      run_per_pass (&fixed_cases[i], rand, CT_CONV_BACKEND_IM2COL, &smaller);
      if (ct_cpu_conv_have_dnnl ())
        run_per_pass (&fixed_cases[i], rand, CT_CONV_BACKEND_DNNL, &smaller);
    }
  run_per_pass (&googlenet, rand, CT_CONV_BACKEND_AUTO, &smaller);
  g_assert_true (smaller);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/conv-backends/fixed", test_fixed);
  g_test_add_func ("/kernels/conv-backends/random", test_random);
  g_test_add_func ("/kernels/conv-backends/tiles", test_tiles);
  g_test_add_func ("/kernels/conv-backends/direct", test_direct);
  g_test_add_func ("/kernels/conv-backends/per-pass", test_per_pass);
  return g_test_run ();
}
