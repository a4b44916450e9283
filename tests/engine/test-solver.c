/* test-solver.c: the solvers' arithmetic. Each update rule (SGD, Nesterov,
 * AdaGrad, RMSProp, AdaDelta, Adam) for three iterations on a net whose
 * gradient is known (a Parameter blob pulled towards a constant by a
 * Euclidean loss), against the same steps worked out in double precision
 * here, with lr_mult, decay_mult, L2 and L1 decay and clipping; each
 * learning-rate policy at chosen iterations; iter_size accumulation (one
 * batch of 64 against two of 32); and solver parameters that are wrong. */
#include <math.h>
#include <string.h>

#include "blas.h"
#include "lr-policy.h"
#include "solver-update.h"
#include "test-solver-common.h"

/* The tiny net: w (1 x 4, lr_mult 2, decay_mult 0.5) against t = 0.5.
 * EuclideanLoss over one sample: loss = |w - t|^2 / 2, gradient w - t. */
#define TINY_NET \
  "net_param { name: 'tiny' " \
  "  layer { name: 'w' type: 'Parameter' top: 'w' " \
  "          parameter_param { shape { dim: 1 dim: 4 } } " \
  "          param { lr_mult: 2 decay_mult: 0.5 } } " \
  "  layer { name: 't' type: 'DummyData' top: 't' " \
  "          dummy_data_param { shape { dim: 1 dim: 4 } " \
  "                             data_filler { type: 'constant' value: 0.5 } } } " \
  "  layer { name: 'loss' type: 'EuclideanLoss' bottom: 'w' bottom: 't' top: 'loss' } " \
  "} " \
  "lr_policy: 'fixed' base_lr: 0.1 max_iter: 3 display: 0 snapshot_after_train: false " \
  "random_seed: 1 "

static const double w0[4] = { 1.0, -2.0, 0.25, 3.0 };

typedef enum { SGD, NESTEROV, ADAGRAD, RMSPROP, ADADELTA, ADAM } Rule;

typedef struct {
  Rule rule;
  const char *text;       /* solver fields after TINY_NET */
  double momentum, momentum2, delta, rms_decay, weight_decay, clip;
  gboolean l1;
} RuleCase;

/* The reference: the rules as the Caffe documentation states them, in
 * double. H and H2 are the histories; ITER counts from 0. */
static void
reference_step (const RuleCase *c, double *w, double *h, double *h2, int iter)
{
  const double rate = 0.1 * 2.0;  /* base_lr * lr_mult */
  const double decay = c->weight_decay * 0.5;
  double g[4], norm = 0.0;

  for (int i = 0; i < 4; i++)
    {
      g[i] = w[i] - 0.5;
      norm += g[i] * g[i];
    }
  norm = sqrt (norm);
  for (int i = 0; i < 4; i++)
    {
      double step;

      if (c->clip > 0 && norm > c->clip)
        g[i] *= c->clip / norm;
      g[i] += c->l1 ? decay * ((w[i] > 0) - (w[i] < 0)) : decay * w[i];
      switch (c->rule)
        {
        case SGD:
          h[i] = c->momentum * h[i] + rate * g[i];
          step = h[i];
          break;
        case NESTEROV:
          {
            double old = h[i];
            h[i] = c->momentum * h[i] + rate * g[i];
            step = (1 + c->momentum) * h[i] - c->momentum * old;
          }
          break;
        case ADAGRAD:
          h[i] += g[i] * g[i];
          step = rate * g[i] / (sqrt (h[i]) + c->delta);
          break;
        case RMSPROP:
          h[i] = c->rms_decay * h[i] + (1 - c->rms_decay) * g[i] * g[i];
          step = rate * g[i] / (sqrt (h[i]) + c->delta);
          break;
        case ADADELTA:
          {
            double d;
            h[i] = c->momentum * h[i] + (1 - c->momentum) * g[i] * g[i];
            d = g[i] * sqrt ((h2[i] + c->delta) / (h[i] + c->delta));
            h2[i] = c->momentum * h2[i] + (1 - c->momentum) * d * d;
            step = rate * d;
          }
          break;
        case ADAM:
        default:
          {
            int t = iter + 1;
            double corr = sqrt (1 - pow (c->momentum2, t)) / (1 - pow (c->momentum, t));
            h[i] = c->momentum * h[i] + (1 - c->momentum) * g[i];
            h2[i] = c->momentum2 * h2[i] + (1 - c->momentum2) * g[i] * g[i];
            step = rate * corr * h[i] / (sqrt (h2[i]) + c->delta);
          }
          break;
        }
      w[i] -= step;
    }
}

static void
set_weights (CtSolver *solver)
{
  CtNet *net = ct_solver_get_net (solver);
  float *data;

  g_assert_cmpuint (ct_net_n_learnable (net), ==, 1);
  data = ct_blob_mutable_cpu_data (ct_net_get_learnable (net, 0)->blob, NULL);
  for (int i = 0; i < 4; i++)
    data[i] = (float) w0[i];
}

static void
check_rule (gconstpointer data)
{
  const RuleCase *c = data;
  g_autofree char *text = g_strconcat (TINY_NET, c->text, NULL);
  g_autoptr (CtSolver) solver = ct_test_solver_new_ok (text);
  g_autoptr (GError) error = NULL;
  double w[4], h[4] = { 0 }, h2[4] = { 0 };
  CtNet *net = ct_solver_get_net (solver);
  guint n_history = (c->rule == ADADELTA || c->rule == ADAM) ? 2 : 1;

  memcpy (w, w0, sizeof w);
  set_weights (solver);
  g_assert_cmpuint (ct_solver_get_history (solver)->len, ==, n_history);
  for (int iter = 0; iter < 3; iter++)
    {
      const float *got;

      g_assert_true (ct_solver_step (solver, 1, &error));
      g_assert_no_error (error);
      reference_step (c, w, h, h2, iter);
      got = ct_blob_cpu_data (ct_net_get_learnable (net, 0)->blob, NULL);
      for (int i = 0; i < 4; i++)
        {
          g_test_message ("iter %d w[%d] = %.9g (reference %.9g)", iter + 1, i,
                          (double) got[i], w[i]);
          g_assert_cmpfloat_with_epsilon (got[i], w[i], 1e-5 * MAX (1.0, fabs (w[i])));
        }
    }
  g_assert_cmpint (ct_solver_get_iter (solver), ==, 3);
}

/* SGD by hand: w = 1, t = 0.5, rate 0.2, momentum 0.9, decay 0.01 * 0.5.
 * g1 = 0.5 + 0.005 = 0.505, h1 = 0.101, w1 = 0.899;
 * g2 = 0.399 + 0.004495 = 0.403495, h2 = 0.0909 + 0.080699 = 0.171599,
 * w2 = 0.727401. */
static void
test_sgd_by_hand (void)
{
  g_autoptr (CtSolver) solver = ct_test_solver_new_ok (TINY_NET "type: 'SGD' momentum: 0.9 "
                                                       "weight_decay: 0.01");
  g_autoptr (GError) error = NULL;
  CtNet *net = ct_solver_get_net (solver);
  const float *w;

  set_weights (solver);
  g_assert_true (ct_solver_step (solver, 1, &error));
  w = ct_blob_cpu_data (ct_net_get_learnable (net, 0)->blob, NULL);
  g_assert_cmpfloat_with_epsilon (w[0], 0.899, 1e-6);
  g_assert_true (ct_solver_step (solver, 1, &error));
  w = ct_blob_cpu_data (ct_net_get_learnable (net, 0)->blob, NULL);
  g_assert_cmpfloat_with_epsilon (w[0], 0.727401, 1e-6);
  /* the history is the last step */
  g_assert_cmpfloat_with_epsilon (ct_blob_cpu_data (ct_solver_get_history (solver)->pdata[0],
                                                    NULL)[0], 0.171599, 1e-6);
}

/* The kernels against single steps worked out by hand. */
static void
test_kernels_by_hand (void)
{
  float diff[2], h[2], v[2];

  /* Nesterov: h = 0.9 * 1 + 0.1 * 2 = 1.1; step = 1.9 * 1.1 - 0.9 * 1 = 1.19 */
  diff[0] = 2; h[0] = 1;
  g_assert_cmpint (ct_cpu_nesterov_update (1, 0.9f, 0.1f, diff, h), ==, CT_STATUS_OK);
  g_assert_cmpfloat_with_epsilon (diff[0], 1.19f, 1e-6);
  /* AdaGrad: h = 1 + 9 = 10; step = 0.5 * 3 / (sqrt 10 + 0) */
  diff[0] = 3; h[0] = 1;
  ct_cpu_adagrad_update (1, 0.0f, 0.5f, diff, h);
  g_assert_cmpfloat_with_epsilon (h[0], 10.0f, 1e-6);
  g_assert_cmpfloat_with_epsilon (diff[0], 1.5f / sqrtf (10.0f), 1e-6);
  /* RMSProp, decay 0.75: h = 0.75 * 4 + 0.25 * 16 = 7 */
  diff[0] = 4; h[0] = 4;
  ct_cpu_rmsprop_update (1, 0.75f, 0.0f, 1.0f, diff, h);
  g_assert_cmpfloat_with_epsilon (h[0], 7.0f, 1e-6);
  g_assert_cmpfloat_with_epsilon (diff[0], 4.0f / sqrtf (7.0f), 1e-6);
  /* AdaDelta, decay 0.5, delta 0: g = 0.5 * 4 + 0.5 * 0 = 2; u = 1: step =
   * 2 * sqrt (1 / 2); u = 0.5 * 2 + 0.5 * 1 = 1.5 */
  diff[0] = 2; h[0] = 0; v[0] = 1;
  ct_cpu_adadelta_update (1, 0.5f, 0.0f, 1.0f, diff, h, v);
  g_assert_cmpfloat_with_epsilon (h[0], 2.0f, 1e-6);
  g_assert_cmpfloat_with_epsilon (diff[0], sqrtf (2.0f), 1e-6);
  g_assert_cmpfloat_with_epsilon (v[0], 1.5f, 1e-6);
  /* Adam at t = 1 (rate carries the correction): m = 0.1 * 2, v = 0.001 * 4 */
  diff[0] = 2; h[0] = 0; v[0] = 0;
  ct_cpu_adam_update (1, 0.9f, 0.999f, 0.0f, 1.0f, diff, h, v);
  g_assert_cmpfloat_with_epsilon (h[0], 0.2f, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[0], 0.004f, 1e-7);
  /* 1 - 0.999f is 0.0010000467 in float */
  g_assert_cmpfloat_with_epsilon (diff[0], 0.2f / sqrtf ((1.0f - 0.999f) * 4.0f), 1e-5);
  /* L1: sign, and 0 at 0 */
  {
    float data[3] = { -2, 0, 5 }, d[3] = { 0, 0, 0 };
    ct_cpu_l1_decay (3, 0.5f, data, d);
    g_assert_cmpfloat (d[0], ==, -0.5f);
    g_assert_cmpfloat (d[1], ==, 0.0f);
    g_assert_cmpfloat (d[2], ==, 0.5f);
  }
  g_assert_cmpint (ct_cpu_sgd_update (-1, 0.9f, 0.1f, diff, h), ==, CT_STATUS_INVALID);
}

/* Arrays longer than the kernels' parallel grain (cut into chunks for the
 * pool's threads): every element as the one-element rule gives it, and
 * SGD's fused step as the update followed by data -= diff, bit for bit. */
static void
test_kernels_long (void)
{
  const gint64 n = 300007;
  g_autofree float *diff = g_new (float, n), *h = g_new (float, n), *data = g_new (float, n);
  g_autofree float *diff2 = g_new (float, n), *h2 = g_new (float, n), *data2 = g_new (float, n);
  g_autofree float *m = g_new (float, n), *m2 = g_new (float, n);
  GRand *rand = g_rand_new_with_seed (5);

  for (gint64 i = 0; i < n; i++)
    {
      diff[i] = diff2[i] = (float) g_rand_double_range (rand, -1, 1);
      h[i] = h2[i] = (float) g_rand_double_range (rand, -1, 1);
      data[i] = data2[i] = (float) g_rand_double_range (rand, -1, 1);
      m[i] = m2[i] = (float) g_rand_double_range (rand, 0, 1);
    }
  g_rand_free (rand);

  g_assert_cmpint (ct_cpu_sgd_step (n, 0.9f, 0.01f, 0.0f, diff, h, data), ==, CT_STATUS_OK);
  for (gint64 i = 0; i < n; i += 1000)
    g_assert_cmpint (ct_cpu_sgd_update (1, 0.9f, 0.01f, diff2 + i, h2 + i), ==, CT_STATUS_OK);
  for (gint64 i = 0; i < n; i++)
    if (i % 1000 != 0)
      g_assert_cmpint (ct_cpu_sgd_update (1, 0.9f, 0.01f, diff2 + i, h2 + i), ==, CT_STATUS_OK);
  for (gint64 i = 0; i < n; i++)
    data2[i] -= diff2[i];
  g_assert_cmpmem (diff, n * sizeof (float), diff2, n * sizeof (float));
  g_assert_cmpmem (h, n * sizeof (float), h2, n * sizeof (float));
  g_assert_cmpmem (data, n * sizeof (float), data2, n * sizeof (float));

  /* With the weight decay in the step: what the decay's own axpy and then
   * the step give, to the bit. */
  g_assert_cmpint (ct_cpu_axpy (n, 5e-4f, data2, diff2), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_sgd_step (n, 0.9f, 0.01f, 0.0f, diff2, h2, data2), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_sgd_step (n, 0.9f, 0.01f, 5e-4f, diff, h, data), ==, CT_STATUS_OK);
  g_assert_cmpmem (diff, n * sizeof (float), diff2, n * sizeof (float));
  g_assert_cmpmem (h, n * sizeof (float), h2, n * sizeof (float));
  g_assert_cmpmem (data, n * sizeof (float), data2, n * sizeof (float));

  /* A two-history rule, whole against one element at a time. */
  g_assert_cmpint (ct_cpu_adam_update (n, 0.9f, 0.999f, 1e-8f, 0.001f, diff, h, m), ==,
                   CT_STATUS_OK);
  for (gint64 i = 0; i < n; i++)
    ct_cpu_adam_update (1, 0.9f, 0.999f, 1e-8f, 0.001f, diff2 + i, h2 + i, m2 + i);
  g_assert_cmpmem (diff, n * sizeof (float), diff2, n * sizeof (float));
  g_assert_cmpmem (m, n * sizeof (float), m2, n * sizeof (float));
  g_assert_cmpint (ct_cpu_sgd_step (-1, 0.9f, 0.1f, 0.0f, diff, h, data), ==, CT_STATUS_INVALID);
}

/* ---- learning-rate policies ---- */

static float
rate_at (Caffe__SolverParameter *p, int iter)
{
  int step = 0;
  float r = 0;

  /* walk up from 0, as the solver does, so that multistep counts */
  for (int i = 0; i <= iter; i++)
    r = ct_lr_policy_rate (p, i, &step, NULL);
  return r;
}

static void
check_rate (Caffe__SolverParameter *p, int iter, double want)
{
  float got = rate_at (p, iter);

  g_test_message ("%s at %d: %.9g (want %.9g)", p->lr_policy, iter, (double) got, want);
  g_assert_cmpfloat_with_epsilon (got, want, 1e-6 * fabs (want) + 1e-12);
}

static void
test_lr_policies (void)
{
  Caffe__SolverParameter p = CAFFE__SOLVER_PARAMETER__INIT;
  int steps[] = { 100, 300 };
  g_autoptr (GError) error = NULL;
  const char *field = NULL;
  int current = 0;
  gboolean stepped = FALSE;

  p.base_lr = 0.01f;
  p.lr_policy = (char *) "fixed";
  check_rate (&p, 0, 0.01);
  check_rate (&p, 5000, 0.01);

  p.lr_policy = (char *) "step";
  p.gamma = 0.1f;
  p.stepsize = 100;
  check_rate (&p, 99, 0.01);
  check_rate (&p, 100, 0.001);
  check_rate (&p, 250, 0.0001);

  p.lr_policy = (char *) "exp";
  p.gamma = 0.99f;
  check_rate (&p, 10, 0.01 * pow ((float) 0.99, 10));

  p.lr_policy = (char *) "inv";
  p.gamma = 0.0001f;
  p.power = 0.75f;
  check_rate (&p, 100, 0.00992565);    /* Caffe's LeNet log at iteration 100 */
  check_rate (&p, 10000, 0.01 * pow (2.0, -0.75));

  p.lr_policy = (char *) "multistep";
  p.gamma = 0.5f;
  p.n_stepvalue = 2;
  p.stepvalue = steps;
  check_rate (&p, 99, 0.01);
  check_rate (&p, 100, 0.005);
  check_rate (&p, 299, 0.005);
  check_rate (&p, 300, 0.0025);
  check_rate (&p, 1000, 0.0025);
  current = 0;
  ct_lr_policy_rate (&p, 99, &current, &stepped);
  g_assert_false (stepped);
  ct_lr_policy_rate (&p, 100, &current, &stepped);
  g_assert_true (stepped);
  g_assert_cmpint (current, ==, 1);

  p.lr_policy = (char *) "poly";
  p.power = 2.0f;
  p.max_iter = 1000;
  check_rate (&p, 500, 0.0025);
  check_rate (&p, 0, 0.01);

  p.lr_policy = (char *) "sigmoid";
  p.gamma = 0.01f;
  p.stepsize = 200;
  check_rate (&p, 200, 0.005);
  check_rate (&p, 300, 0.01 / (1 + exp (-1.0)));

  /* what each policy needs */
  p.lr_policy = (char *) "step";
  p.stepsize = 0;
  g_assert_false (ct_lr_policy_check (&p, &field, &error));
  g_assert_cmpstr (field, ==, "stepsize");
  g_clear_error (&error);
  p.lr_policy = (char *) "poly";
  p.max_iter = 0;
  g_assert_false (ct_lr_policy_check (&p, &field, &error));
  g_assert_cmpstr (field, ==, "max_iter");
  g_clear_error (&error);
  p.lr_policy = (char *) "cosine";
  g_assert_false (ct_lr_policy_check (&p, &field, &error));
  g_assert_nonnull (strstr (error->message, "cosine"));
  g_clear_error (&error);
  p.lr_policy = NULL;
  g_assert_false (ct_lr_policy_check (&p, &field, &error));
  g_assert_cmpstr (field, ==, "lr_policy");
}

/* ---- iter_size ---- */

#define REGRESSION_NET(batch) \
  "net_param { name: 'reg' " \
  "  layer { name: 'in' type: 'Input' top: 'x' top: 'y' " \
  "          input_param { shape { dim: " #batch " dim: 8 } shape { dim: " #batch " dim: 3 } } } " \
  "  layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'p' " \
  "          inner_product_param { num_output: 3 " \
  "            weight_filler { type: 'gaussian' std: 0.3 } " \
  "            bias_filler { type: 'constant' value: 0.1 } } } " \
  "  layer { name: 'loss' type: 'EuclideanLoss' bottom: 'p' bottom: 'y' top: 'loss' } " \
  "} " \
  "lr_policy: 'fixed' base_lr: 0.05 momentum: 0.9 weight_decay: 0.001 max_iter: 6 " \
  "display: 0 snapshot_after_train: false random_seed: 77 "

static void
test_iter_size (void)
{
  g_autoptr (CtSolver) one = ct_test_solver_new_ok (REGRESSION_NET (64) "iter_size: 1");
  g_autoptr (CtSolver) two = ct_test_solver_new_ok (REGRESSION_NET (32) "iter_size: 2");
  g_autoptr (GError) error = NULL;
  double before, after;

  ct_test_solver_feed_inputs (one);
  ct_test_solver_feed_inputs (two);
  /* the same start: the same seed fills the same weights */
  g_assert_true (ct_test_same_weights (ct_solver_get_net (one), ct_solver_get_net (two)));
  g_assert_true (ct_solver_solve (one, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ct_solver_solve (two, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_solver_get_iter (two), ==, 6);
  after = ct_test_max_weight_diff (ct_solver_get_net (one), ct_solver_get_net (two));
  g_test_message ("largest weight difference after 6 iterations: %g", after);
  g_assert_cmpfloat (after, <, 1e-5);

  /* and the training moved the weights well beyond that tolerance */
  {
    g_autoptr (CtSolver) fresh = ct_test_solver_new_ok (REGRESSION_NET (64) "iter_size: 1");
    before = ct_test_max_weight_diff (ct_solver_get_net (one), ct_solver_get_net (fresh));
  }
  g_test_message ("weights moved by up to %g", before);
  g_assert_cmpfloat (before, >, 1e-2);
}

/* ---- parameter checks ---- */

typedef struct {
  const char *fields;
  const char *expect;   /* a part of the message */
} BadCase;

static void
check_bad (gconstpointer data)
{
  const BadCase *c = data;
  g_autofree char *text = g_strconcat (TINY_NET, c->fields, NULL);
  g_autoptr (GError) error = NULL;
  CtSolver *solver = ct_test_solver_new (text, &error);

  g_assert_null (solver);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, c->expect));
}

static const BadCase bad_cases[] = {
  { "type: 'Adamm'", "unknown solver type 'Adamm'" },
  { "type: 'AdaGrad' momentum: 0.9", "momentum cannot be used with AdaGrad" },
  { "type: 'RMSProp' rms_decay: 1.5", "rms_decay must lie in [0, 1)" },
  { "regularization_type: 'L3'", "unknown regularization type 'L3'" },
  { "average_loss: 0", "average_loss must be 1 or more" },
  { "iter_size: 0", "iter_size must be 1 or more" },
  { "test_iter: 1", "test nets need a test_interval" },
  { "test_iter: 1 test_interval: 5 test_state { } test_state { }", "give test_state once" },
  { "net: 'other.prototxt'", "more than one train net" },
  { "weights: '/nonexistent/w.caffemodel'", "/nonexistent/w.caffemodel" },
};

static void
test_bad_lr_policy (void)
{
  g_autoptr (GError) error = NULL;
  CtSolver *solver = ct_test_solver_new (
    "net_param { name: 'n' layer { name: 'w' type: 'Parameter' top: 'w' "
    "parameter_param { shape { dim: 1 } } } } lr_policy: 'step' base_lr: 0.1", &error);

  g_assert_null (solver);
  g_assert_nonnull (strstr (error->message, "field 'stepsize'"));
  g_clear_error (&error);
  solver = ct_test_solver_new ("lr_policy: 'fixed'", &error);
  g_assert_null (solver);
  g_assert_nonnull (strstr (error->message, "no train net"));
}

int
main (int argc, char **argv)
{
  static const RuleCase rules[] = {
    { SGD, "type: 'SGD' momentum: 0.9 weight_decay: 0.01", .momentum = 0.9,
      .weight_decay = 0.01 },
    { SGD, "type: 'SGD' momentum: 0.5 weight_decay: 0.1 regularization_type: 'L1'",
      .momentum = 0.5, .weight_decay = 0.1, .l1 = TRUE },
    { SGD, "type: 'SGD' momentum: 0.9 clip_gradients: 1.5", .momentum = 0.9, .clip = 1.5 },
    { NESTEROV, "type: 'Nesterov' momentum: 0.95 weight_decay: 0.004", .momentum = 0.95,
      .weight_decay = 0.004 },
    { ADAGRAD, "type: 'AdaGrad' delta: 1e-6 weight_decay: 0.002", .delta = 1e-6,
      .weight_decay = 0.002 },
    { RMSPROP, "type: 'RMSProp' rms_decay: 0.9 delta: 1e-5", .rms_decay = 0.9, .delta = 1e-5 },
    { ADADELTA, "type: 'AdaDelta' momentum: 0.95 delta: 1e-6 weight_decay: 0.01",
      .momentum = 0.95, .delta = 1e-6, .weight_decay = 0.01 },
    { ADAM, "type: 'Adam' momentum: 0.9 momentum2: 0.999 delta: 1e-8 weight_decay: 0.003",
      .momentum = 0.9, .momentum2 = 0.999, .delta = 1e-8, .weight_decay = 0.003 },
  };
  static const char *const rule_names[] = {
    "sgd", "sgd-l1", "sgd-clip", "nesterov", "adagrad", "rmsprop", "adadelta", "adam",
  };

  g_test_init (&argc, &argv, NULL);
  G_STATIC_ASSERT (G_N_ELEMENTS (rules) == G_N_ELEMENTS (rule_names));
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      g_autofree char *path = g_strdup_printf ("/engine/solver/rule/%s", rule_names[i]);
      g_test_add_data_func (path, &rules[i], check_rule);
    }
  g_test_add_func ("/engine/solver/rule/sgd-by-hand", test_sgd_by_hand);
  g_test_add_func ("/engine/solver/kernels-by-hand", test_kernels_by_hand);
  g_test_add_func ("/engine/solver/kernels-long", test_kernels_long);
  g_test_add_func ("/engine/solver/lr-policies", test_lr_policies);
  g_test_add_func ("/engine/solver/iter-size", test_iter_size);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/engine/solver/bad/%u", i);
      g_test_add_data_func (path, &bad_cases[i], check_bad);
    }
  g_test_add_func ("/engine/solver/bad/lr-policy", test_bad_lr_policy);
  return g_test_run ();
}
