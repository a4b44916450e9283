/* test-cuda-loss.c: loss.h's CUDA twins against the CPU on random inputs
 * over several shapes: classifiers and spatial (INNER > 1) label layouts,
 * with and without an ignore label (outside the classes, and one of them),
 * labels with fractional parts, every kernel's bad-label verdict (the same
 * status on both devices, and the same first bad index from check_labels),
 * and degenerate counts. The normalisation modes are the layers' business:
 * the kernels return the raw sums and counts they are built from, which is
 * what is compared here (the engine's layer tests, rerun on the GPU by the
 * cuda suite, check every mode). */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "cuda-test-util.h"
#include "device.h"
#include "loss.h"
#include "softmax.h"

#define TOL 1e-5

typedef struct {
  int64_t outer, channels, inner;
} Shape;

static const Shape shapes[] = {
  { 8, 10, 1 },
  { 64, 1000, 1 },
  { 2, 5, 49 },   /* spatial */
  { 3, 21, 100 }, /* segmentation-like */
  { 2, 3, 1000 },
};

/* Ignore-label settings: none, a label no class has, and a class. */
typedef struct {
  int has_ignore;
  int32_t ignore_label;
} Ignore;

static const Ignore ignores[] = { { 0, 0 }, { 1, 255 }, { 1, 2 } };

static void
assert_scalar (const char *what, double gpu, double cpu)
{
  double scale = fabs (cpu) > 1e-30 ? fabs (cpu) : 1.0;

  if (!(fabs (gpu - cpu) <= TOL * scale))
    g_error ("%s: %.9g on the GPU, %.9g on the CPU", what, gpu, cpu);
}

/* N labels of CLASSES classes, a quarter of them with a fractional part
 * (truncated away on both devices), and about a fifth replaced by the
 * ignore label when there is one. */
static float *
make_labels (int64_t n, int64_t classes, Ignore ig, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  float *labels = g_new (float, n);

  for (int64_t i = 0; i < n; i++)
    {
      labels[i] = (float) g_rand_int_range (rand, 0, (gint32) classes);
      if (g_rand_int_range (rand, 0, 4) == 0)
        labels[i] += 0.75f;
      if (ig.has_ignore && g_rand_int_range (rand, 0, 5) == 0)
        labels[i] = (float) ig.ignore_label;
    }
  return labels;
}

/* Probabilities: the CPU softmax of random scores. */
static float *
make_prob (Shape s, guint64 seed)
{
  const int64_t n = s.outer * s.channels * s.inner;
  float *prob = ct_cuda_test_random (n, -4, 4, seed);
  g_autofree float *scratch = g_new (float, s.inner);

  g_assert_cmpint (ct_cpu_softmax_forward (s.outer, s.channels, s.inner, prob, prob, scratch),
                   ==, CT_STATUS_OK);
  return prob;
}

static char *
shape_name (const char *kernel, Shape s, Ignore ig)
{
  return g_strdup_printf ("%s %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                          " ignore %d/%d", kernel, s.outer, s.channels, s.inner,
                          ig.has_ignore, ig.ignore_label);
}

/* Where a bad label goes, and what it is: past the classes, negative,
 * NaN, beyond int range. */
static const float bad_values[] = { 1000000.0f, -1.0f, NAN, 3e9f, -3e9f };

static void
test_check_labels (void)
{
  const int64_t n = 100003, classes = 10;
  static const int64_t positions[][2] = {
    { 0, -1 }, { 5, -1 }, { 50000, 99999 }, { 77777, 100002 }, { 100002, -1 }, { 255, 256 },
  };

  for (guint k = 0; k < G_N_ELEMENTS (ignores); k++)
    {
      g_autofree float *labels = make_labels (n, classes, ignores[k], 3 + k);
      float *d_labels = ct_cuda_test_upload (labels, n);
      int64_t cpu_bad = -7, gpu_bad = -7;

      g_assert_cmpint (ct_cpu_check_labels (n, labels, classes, ignores[k].has_ignore,
                                            ignores[k].ignore_label, &cpu_bad), ==,
                       CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_check_labels (n, d_labels, classes, ignores[k].has_ignore,
                                             ignores[k].ignore_label, &gpu_bad), ==,
                       CT_STATUS_OK);
      g_assert_cmpint (gpu_bad, ==, -7); /* untouched when all are good */
      ct_cuda_test_free (d_labels);

      for (guint p = 0; p < G_N_ELEMENTS (positions); p++)
        for (guint v = 0; v < G_N_ELEMENTS (bad_values); v++)
          {
            g_autofree float *bad = g_memdup2 (labels, (gsize) n * sizeof (float));
            CtStatus cpu_status, gpu_status;

            bad[positions[p][0]] = bad_values[v];
            if (positions[p][1] >= 0)
              bad[positions[p][1]] = bad_values[(v + 1) % G_N_ELEMENTS (bad_values)];
            d_labels = ct_cuda_test_upload (bad, n);
            cpu_bad = gpu_bad = -7;
            cpu_status = ct_cpu_check_labels (n, bad, classes, ignores[k].has_ignore,
                                              ignores[k].ignore_label, &cpu_bad);
            gpu_status = ct_cuda_check_labels (n, d_labels, classes, ignores[k].has_ignore,
                                               ignores[k].ignore_label, &gpu_bad);
            g_assert_cmpint (cpu_status, ==, CT_STATUS_INVALID);
            g_assert_cmpint (gpu_status, ==, cpu_status);
            g_assert_cmpint (gpu_bad, ==, cpu_bad);
            g_assert_cmpint (gpu_bad, ==, positions[p][0]);
            ct_cuda_test_free (d_labels);
          }
    }

  /* -1 is the ignore label here, and -1.5 truncates to it; -0.5 is class 0. */
  {
    float labels[] = { -1.0f, -1.5f, -0.5f, 9.99f };
    float *d_labels = ct_cuda_test_upload (labels, 4);
    int64_t bad = -7;

    g_assert_cmpint (ct_cuda_check_labels (4, d_labels, 10, 1, -1, &bad), ==, CT_STATUS_OK);
    g_assert_cmpint (ct_cuda_check_labels (4, d_labels, 10, 0, 0, &bad), ==,
                     CT_STATUS_INVALID);
    g_assert_cmpint (bad, ==, 0);
    g_assert_cmpint (ct_cuda_check_labels (4, d_labels, 9, 1, -1, &bad), ==,
                     CT_STATUS_INVALID);
    g_assert_cmpint (bad, ==, 3);
    g_assert_cmpint (ct_cuda_check_labels (4, d_labels, 9, 1, -1, NULL), ==,
                     CT_STATUS_INVALID);
    ct_cuda_test_free (d_labels);
  }
  g_assert_cmpint (ct_cuda_check_labels (0, NULL, 3, 0, 0, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_check_labels (-1, NULL, 3, 0, 0, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_check_labels (1, NULL, -3, 0, 0, NULL), ==, CT_STATUS_INVALID);
}

static void
test_softmax_loss (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (guint k = 0; k < G_N_ELEMENTS (ignores); k++)
      {
        const Shape s = shapes[i];
        const int64_t n = s.outer * s.channels * s.inner, positions = s.outer * s.inner;
        g_autofree float *prob = make_prob (s, 100 + i);
        g_autofree float *labels = make_labels (positions, s.channels, ignores[k], 200 + i);
        g_autofree float *diff = g_new (float, n);
        g_autofree char *what = shape_name ("softmax loss", s, ignores[k]);
        g_autofree char *what_back = g_strconcat (what, " backward", NULL);
        float *d_prob = ct_cuda_test_upload (prob, n), *d_labels = ct_cuda_test_upload (labels,
                                                                                     positions);
        float *d_diff = ct_cuda_test_device_zeros (n);
        float cpu_loss = 0, gpu_loss = 0;
        int64_t cpu_valid = -1, gpu_valid = -2;

        g_assert_cmpint (ct_cpu_softmax_loss_forward (s.outer, s.channels, s.inner, prob, labels,
                                                      ignores[k].has_ignore,
                                                      ignores[k].ignore_label, &cpu_loss,
                                                      &cpu_valid), ==, CT_STATUS_OK);
        g_assert_cmpint (ct_cuda_softmax_loss_forward (s.outer, s.channels, s.inner, d_prob,
                                                       d_labels, ignores[k].has_ignore,
                                                       ignores[k].ignore_label, &gpu_loss,
                                                       &gpu_valid), ==, CT_STATUS_OK);
        assert_scalar (what, gpu_loss, cpu_loss);
        g_assert_cmpint (gpu_valid, ==, cpu_valid);
        if (ignores[k].has_ignore)
          g_assert_cmpint (cpu_valid, <, positions);

        g_assert_cmpint (ct_cpu_softmax_loss_backward (s.outer, s.channels, s.inner, prob,
                                                       labels, ignores[k].has_ignore,
                                                       ignores[k].ignore_label, diff,
                                                       &cpu_valid), ==, CT_STATUS_OK);
        gpu_valid = -2;
        g_assert_cmpint (ct_cuda_softmax_loss_backward (s.outer, s.channels, s.inner, d_prob,
                                                        d_labels, ignores[k].has_ignore,
                                                        ignores[k].ignore_label, d_diff,
                                                        &gpu_valid), ==, CT_STATUS_OK);
        ct_cuda_test_assert_close (what_back, d_diff, diff, n, TOL);
        g_assert_cmpint (gpu_valid, ==, cpu_valid);
        /* In place: the diff overwrites the probabilities. */
        g_assert_cmpint (ct_cuda_softmax_loss_backward (s.outer, s.channels, s.inner, d_prob,
                                                        d_labels, ignores[k].has_ignore,
                                                        ignores[k].ignore_label, d_prob,
                                                        &gpu_valid), ==, CT_STATUS_OK);
        ct_cuda_test_assert_close (what_back, d_prob, diff, n, TOL);
        ct_cuda_test_free (d_labels);

        /* A bad label: the same verdict on both devices. */
        for (guint v = 0; v < G_N_ELEMENTS (bad_values); v++)
          {
            labels[positions / 2] = bad_values[v];
            d_labels = ct_cuda_test_upload (labels, positions);
            g_assert_cmpint (ct_cpu_softmax_loss_forward (s.outer, s.channels, s.inner, prob,
                                                          labels, ignores[k].has_ignore,
                                                          ignores[k].ignore_label, &cpu_loss,
                                                          &cpu_valid), ==, CT_STATUS_INVALID);
            g_assert_cmpint (ct_cuda_softmax_loss_forward (s.outer, s.channels, s.inner, d_prob,
                                                           d_labels, ignores[k].has_ignore,
                                                           ignores[k].ignore_label, &gpu_loss,
                                                           &gpu_valid), ==, CT_STATUS_INVALID);
            g_assert_cmpint (ct_cuda_softmax_loss_backward (s.outer, s.channels, s.inner, d_prob,
                                                            d_labels, ignores[k].has_ignore,
                                                            ignores[k].ignore_label, d_diff,
                                                            &gpu_valid), ==,
                             CT_STATUS_INVALID);
            ct_cuda_test_free (d_labels);
          }
        ct_cuda_test_free (d_prob);
        ct_cuda_test_free (d_diff);
      }
  g_assert_cmpint (ct_cuda_softmax_loss_forward (-1, 2, 2, NULL, NULL, 0, 0, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_softmax_loss_backward (2, -2, 2, NULL, NULL, 0, 0, NULL, NULL), ==,
                   CT_STATUS_INVALID);
}

static void
test_sigmoid_cross_entropy (void)
{
  /* Moderate sizes: the CPU adds in float, one term after another, and
   * past some 50,000 positive terms its rounding alone exceeds 1e-5 (the
   * GPU's double sum is the closer one). */
  static const int64_t sizes[] = { 1, 1000, 12347 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (guint k = 0; k < G_N_ELEMENTS (ignores); k++)
      {
        const int64_t n = sizes[i];
        const Ignore ig = { ignores[k].has_ignore, ignores[k].has_ignore ? -1 : 0 };
        g_autofree float *x = ct_cuda_test_random (n, -12, 12, 300 + i);
        g_autofree float *t = ct_cuda_test_random (n, 0, 1, 400 + i);
        g_autofree float *sig = g_new (float, n);
        g_autofree float *dx = g_new (float, n);
        g_autofree char *what = g_strdup_printf ("sigmoid cross-entropy %" G_GINT64_FORMAT
                                                 " ignore %d", n, ig.has_ignore);
        float *d_x, *d_t, *d_sig = ct_cuda_test_device_zeros (n), *d_dx;
        float cpu_loss = 0, gpu_loss = 0;
        int64_t cpu_valid = -1, gpu_valid = -2;

        /* Hard targets now and then, and ignored ones (-1, or -1.5 whose
         * integer part is -1). */
        for (int64_t j = 0; j < n; j += 3)
          t[j] = (float) (j % 2);
        if (ig.has_ignore)
          for (int64_t j = 1; j < n; j += 7)
            t[j] = j % 2 ? -1.0f : -1.5f;
        d_x = ct_cuda_test_upload (x, n);
        d_t = ct_cuda_test_upload (t, n);
        d_dx = ct_cuda_test_device_zeros (n);
        g_assert_cmpint (ct_cpu_sigmoid_cross_entropy_forward (n, x, t, ig.has_ignore,
                                                               ig.ignore_label, sig, &cpu_loss,
                                                               &cpu_valid), ==, CT_STATUS_OK);
        g_assert_cmpint (ct_cuda_sigmoid_cross_entropy_forward (n, d_x, d_t, ig.has_ignore,
                                                                ig.ignore_label, d_sig,
                                                                &gpu_loss, &gpu_valid), ==,
                         CT_STATUS_OK);
        ct_cuda_test_assert_close (what, d_sig, sig, n, TOL);
        assert_scalar (what, gpu_loss, cpu_loss);
        g_assert_cmpint (gpu_valid, ==, cpu_valid);

        g_assert_cmpint (ct_cpu_sigmoid_cross_entropy_backward (n, sig, t, ig.has_ignore,
                                                                ig.ignore_label, 0.37f, dx), ==,
                         CT_STATUS_OK);
        ct_cuda_test_free (d_sig);
        d_sig = ct_cuda_test_upload (sig, n);
        g_assert_cmpint (ct_cuda_sigmoid_cross_entropy_backward (n, d_sig, d_t, ig.has_ignore,
                                                                 ig.ignore_label, 0.37f, d_dx),
                         ==, CT_STATUS_OK);
        ct_cuda_test_assert_close (what, d_dx, dx, n, TOL);
        ct_cuda_test_free (d_x);
        ct_cuda_test_free (d_t);
        ct_cuda_test_free (d_sig);
        ct_cuda_test_free (d_dx);
      }
  g_assert_cmpint (ct_cuda_sigmoid_cross_entropy_forward (-1, NULL, NULL, 0, 0, NULL, NULL,
                                                          NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_sigmoid_cross_entropy_backward (-1, NULL, NULL, 0, 0, 1, NULL), ==,
                   CT_STATUS_INVALID);
}

static void
test_hinge (void)
{
  static const int64_t sizes[][2] = { { 10, 5 }, { 64, 1000 }, { 1, 1 } };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (int norm = 1; norm <= 2; norm++)
      {
        const int64_t num = sizes[i][0], dim = sizes[i][1], n = num * dim;
        g_autofree float *x = ct_cuda_test_random (n, -2, 2, 500 + i);
        g_autofree float *labels = make_labels (num, dim, ignores[0], 600 + i);
        g_autofree float *margins = g_new (float, n);
        g_autofree float *dx = g_new (float, n);
        g_autofree char *what = g_strdup_printf ("hinge L%d %" G_GINT64_FORMAT " x %"
                                                 G_GINT64_FORMAT, norm, num, dim);
        float *d_x = ct_cuda_test_upload (x, n), *d_labels = ct_cuda_test_upload (labels, num);
        float *d_margins = ct_cuda_test_device_zeros (n), *d_dx = ct_cuda_test_device_zeros (n);
        float cpu_loss = 0, gpu_loss = 0;

        g_assert_cmpint (ct_cpu_hinge_forward (num, dim, x, labels, norm, margins, &cpu_loss),
                         ==, CT_STATUS_OK);
        g_assert_cmpint (ct_cuda_hinge_forward (num, dim, d_x, d_labels, norm, d_margins,
                                                &gpu_loss), ==, CT_STATUS_OK);
        ct_cuda_test_assert_close (what, d_margins, margins, n, TOL);
        assert_scalar (what, gpu_loss, cpu_loss);
        g_assert_cmpint (ct_cpu_hinge_backward (num, dim, margins, labels, norm, -0.3f, dx), ==,
                         CT_STATUS_OK);
        g_assert_cmpint (ct_cuda_hinge_backward (num, dim, d_margins, d_labels, norm, -0.3f,
                                                 d_dx), ==, CT_STATUS_OK);
        ct_cuda_test_assert_close (what, d_dx, dx, n, TOL);
        ct_cuda_test_free (d_labels);

        for (guint v = 0; v < G_N_ELEMENTS (bad_values); v++)
          {
            labels[num - 1] = bad_values[v];
            d_labels = ct_cuda_test_upload (labels, num);
            g_assert_cmpint (ct_cpu_hinge_forward (num, dim, x, labels, norm, margins,
                                                   &cpu_loss), ==, CT_STATUS_INVALID);
            g_assert_cmpint (ct_cuda_hinge_forward (num, dim, d_x, d_labels, norm, d_margins,
                                                    &gpu_loss), ==, CT_STATUS_INVALID);
            g_assert_cmpint (ct_cuda_hinge_backward (num, dim, d_margins, d_labels, norm, 1.0f,
                                                     d_dx), ==, CT_STATUS_INVALID);
            ct_cuda_test_free (d_labels);
          }
        g_assert_cmpint (ct_cuda_hinge_forward (num, dim, d_x, NULL, 3, d_margins, &gpu_loss),
                         ==, CT_STATUS_INVALID);
        ct_cuda_test_free (d_x);
        ct_cuda_test_free (d_margins);
        ct_cuda_test_free (d_dx);
      }
}

static void
test_infogain (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (guint k = 0; k < G_N_ELEMENTS (ignores); k++)
      {
        const Shape s = shapes[i];
        const int64_t c = s.channels, n = s.outer * c * s.inner, positions = s.outer * s.inner;
        g_autofree float *prob = make_prob (s, 700 + i);
        g_autofree float *labels = make_labels (positions, c, ignores[k], 800 + i);
        g_autofree float *h = ct_cuda_test_random (c * c, 0, 2, 900 + i);
        g_autofree float *sums = g_new (float, c);
        g_autofree float *diff = g_new (float, n);
        g_autofree char *what = shape_name ("infogain", s, ignores[k]);
        float *d_prob = ct_cuda_test_upload (prob, n);
        float *d_labels = ct_cuda_test_upload (labels, positions);
        float *d_h = ct_cuda_test_upload (h, c * c), *d_sums = ct_cuda_test_device_zeros (c);
        float *d_diff = ct_cuda_test_device_zeros (n);
        float cpu_loss = 0, gpu_loss = 0;
        int64_t cpu_valid = -1, gpu_valid = -2;

        /* A probability of 0 meets the 1e-20 floor. */
        prob[0] = 0.0f;
        ct_cuda_test_free (d_prob);
        d_prob = ct_cuda_test_upload (prob, n);

        g_assert_cmpint (ct_cpu_infogain_row_sums (c, h, sums), ==, CT_STATUS_OK);
        g_assert_cmpint (ct_cuda_infogain_row_sums (c, d_h, d_sums), ==, CT_STATUS_OK);
        ct_cuda_test_assert_close (what, d_sums, sums, c, TOL);
        g_assert_cmpint (ct_cpu_infogain_loss_forward (s.outer, c, s.inner, prob, labels, h,
                                                       ignores[k].has_ignore,
                                                       ignores[k].ignore_label, &cpu_loss,
                                                       &cpu_valid), ==, CT_STATUS_OK);
        g_assert_cmpint (ct_cuda_infogain_loss_forward (s.outer, c, s.inner, d_prob, d_labels,
                                                        d_h, ignores[k].has_ignore,
                                                        ignores[k].ignore_label, &gpu_loss,
                                                        &gpu_valid), ==, CT_STATUS_OK);
        assert_scalar (what, gpu_loss, cpu_loss);
        g_assert_cmpint (gpu_valid, ==, cpu_valid);
        g_assert_cmpint (ct_cpu_infogain_loss_backward (s.outer, c, s.inner, prob, labels, h,
                                                        sums, ignores[k].has_ignore,
                                                        ignores[k].ignore_label, diff,
                                                        &cpu_valid), ==, CT_STATUS_OK);
        gpu_valid = -2;
        g_assert_cmpint (ct_cuda_infogain_loss_backward (s.outer, c, s.inner, d_prob, d_labels,
                                                         d_h, d_sums, ignores[k].has_ignore,
                                                         ignores[k].ignore_label, d_diff,
                                                         &gpu_valid), ==, CT_STATUS_OK);
        ct_cuda_test_assert_close (what, d_diff, diff, n, TOL);
        g_assert_cmpint (gpu_valid, ==, cpu_valid);
        ct_cuda_test_free (d_labels);

        for (guint v = 0; v < G_N_ELEMENTS (bad_values); v++)
          {
            labels[0] = bad_values[v];
            d_labels = ct_cuda_test_upload (labels, positions);
            g_assert_cmpint (ct_cpu_infogain_loss_forward (s.outer, c, s.inner, prob, labels, h,
                                                           ignores[k].has_ignore,
                                                           ignores[k].ignore_label, &cpu_loss,
                                                           &cpu_valid), ==, CT_STATUS_INVALID);
            g_assert_cmpint (ct_cuda_infogain_loss_forward (s.outer, c, s.inner, d_prob,
                                                            d_labels, d_h,
                                                            ignores[k].has_ignore,
                                                            ignores[k].ignore_label, &gpu_loss,
                                                            &gpu_valid), ==, CT_STATUS_INVALID);
            g_assert_cmpint (ct_cuda_infogain_loss_backward (s.outer, c, s.inner, d_prob,
                                                             d_labels, d_h, d_sums,
                                                             ignores[k].has_ignore,
                                                             ignores[k].ignore_label, d_diff,
                                                             &gpu_valid), ==,
                             CT_STATUS_INVALID);
            ct_cuda_test_free (d_labels);
          }
        ct_cuda_test_free (d_prob);
        ct_cuda_test_free (d_h);
        ct_cuda_test_free (d_sums);
        ct_cuda_test_free (d_diff);
      }
  g_assert_cmpint (ct_cuda_infogain_row_sums (-1, NULL, NULL), ==, CT_STATUS_INVALID);
}

static void
test_multinomial_logistic (void)
{
  static const Shape sizes[] = { { 10, 5, 1 }, { 64, 1000, 1 }, { 1, 1, 1 } };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      const int64_t num = sizes[i].outer, dim = sizes[i].channels, n = num * dim;
      g_autofree float *prob = make_prob (sizes[i], 1000 + i);
      g_autofree float *labels = make_labels (num, dim, ignores[0], 1100 + i);
      g_autofree float *dx = g_new (float, n);
      g_autofree char *what = g_strdup_printf ("multinomial logistic %" G_GINT64_FORMAT " x %"
                                               G_GINT64_FORMAT, num, dim);
      /* Stale values in the diff must all be overwritten. */
      g_autofree float *stale = ct_cuda_test_random (n, 5, 6, 1200 + i);
      float *d_prob, *d_labels = ct_cuda_test_upload (labels, num);
      float *d_dx = ct_cuda_test_upload (stale, n);
      float cpu_loss = 0, gpu_loss = 0;

      /* The first label's probability is 0: the 1e-20 floor. */
      prob[(int64_t) labels[0]] = 0.0f;
      d_prob = ct_cuda_test_upload (prob, n);
      g_assert_cmpint (ct_cpu_multinomial_logistic_forward (num, dim, prob, labels, &cpu_loss),
                       ==, CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_multinomial_logistic_forward (num, dim, d_prob, d_labels,
                                                             &gpu_loss), ==, CT_STATUS_OK);
      assert_scalar (what, gpu_loss, cpu_loss);
      g_assert_cmpint (ct_cpu_multinomial_logistic_backward (num, dim, prob, labels,
                                                             -0.5f / (float) num, dx), ==,
                       CT_STATUS_OK);
      g_assert_cmpint (ct_cuda_multinomial_logistic_backward (num, dim, d_prob, d_labels,
                                                              -0.5f / (float) num, d_dx), ==,
                       CT_STATUS_OK);
      ct_cuda_test_assert_close (what, d_dx, dx, n, TOL);
      ct_cuda_test_free (d_labels);

      for (guint v = 0; v < G_N_ELEMENTS (bad_values); v++)
        {
          labels[num - 1] = bad_values[v];
          d_labels = ct_cuda_test_upload (labels, num);
          g_assert_cmpint (ct_cpu_multinomial_logistic_forward (num, dim, prob, labels,
                                                                &cpu_loss), ==,
                           CT_STATUS_INVALID);
          g_assert_cmpint (ct_cuda_multinomial_logistic_forward (num, dim, d_prob, d_labels,
                                                                 &gpu_loss), ==,
                           CT_STATUS_INVALID);
          g_assert_cmpint (ct_cuda_multinomial_logistic_backward (num, dim, d_prob, d_labels,
                                                                  1.0f, d_dx), ==,
                           CT_STATUS_INVALID);
          ct_cuda_test_free (d_labels);
        }
      ct_cuda_test_free (d_prob);
      ct_cuda_test_free (d_dx);
    }
  g_assert_cmpint (ct_cuda_multinomial_logistic_forward (-1, 1, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
}

static void
test_contrastive (void)
{
  static const int64_t sizes[][2] = { { 10, 2 }, { 64, 128 }, { 3, 1 } };
  static const float margins[] = { 1.0f, 8.0f };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (guint m = 0; m < G_N_ELEMENTS (margins); m++)
      for (int legacy = 0; legacy <= 1; legacy++)
        {
          const int64_t num = sizes[i][0], channels = sizes[i][1], n = num * channels;
          g_autofree float *a = ct_cuda_test_random (n, -1, 1, 1300 + i);
          g_autofree float *b = ct_cuda_test_random (n, -1, 1, 1400 + i);
          g_autofree float *y = ct_cuda_test_random (num, -2.5f, 2.5f, 1500 + i);
          g_autofree float *diff = g_new (float, n), *dist_sq = g_new (float, num);
          g_autofree float *dx = g_new (float, n);
          g_autofree char *what = g_strdup_printf ("contrastive %" G_GINT64_FORMAT " x %"
                                                   G_GINT64_FORMAT " margin %g legacy %d",
                                                   num, channels, margins[m], legacy);
          float *d_a, *d_b = ct_cuda_test_upload (b, n), *d_y;
          float *d_diff = ct_cuda_test_device_zeros (n), *d_dist = ct_cuda_test_device_zeros (num);
          float *d_dx = ct_cuda_test_device_zeros (n);
          float cpu_loss = 0, gpu_loss = 0;

          /* A pair that coincides, and a NaN similarity (dissimilar). */
          memcpy (a, b, (size_t) channels * sizeof (float));
          y[num - 1] = NAN;
          d_a = ct_cuda_test_upload (a, n);
          d_y = ct_cuda_test_upload (y, num);
          g_assert_cmpint (ct_cpu_contrastive_forward (num, channels, a, b, y, margins[m], legacy,
                                                       diff, dist_sq, &cpu_loss), ==,
                           CT_STATUS_OK);
          g_assert_cmpint (ct_cuda_contrastive_forward (num, channels, d_a, d_b, d_y,
                                                        margins[m], legacy, d_diff, d_dist,
                                                        &gpu_loss), ==, CT_STATUS_OK);
          ct_cuda_test_assert_close (what, d_diff, diff, n, TOL);
          ct_cuda_test_assert_close (what, d_dist, dist_sq, num, TOL);
          assert_scalar (what, gpu_loss, cpu_loss);

          /* Backward from the CPU's distances, so the margin tests agree. */
          ct_cuda_test_free (d_diff);
          ct_cuda_test_free (d_dist);
          d_diff = ct_cuda_test_upload (diff, n);
          d_dist = ct_cuda_test_upload (dist_sq, num);
          for (int sign = -1; sign <= 1; sign += 2)
            {
              float alpha = 0.3f * (float) sign / (float) num;

              g_assert_cmpint (ct_cpu_contrastive_backward (num, channels, diff, dist_sq, y,
                                                            margins[m], legacy, alpha, dx), ==,
                               CT_STATUS_OK);
              g_assert_cmpint (ct_cuda_contrastive_backward (num, channels, d_diff, d_dist, d_y,
                                                             margins[m], legacy, alpha, d_dx),
                               ==, CT_STATUS_OK);
              ct_cuda_test_assert_close (what, d_dx, dx, n, TOL);
            }
          ct_cuda_test_free (d_a);
          ct_cuda_test_free (d_b);
          ct_cuda_test_free (d_y);
          ct_cuda_test_free (d_diff);
          ct_cuda_test_free (d_dist);
          ct_cuda_test_free (d_dx);
        }
  g_assert_cmpint (ct_cuda_contrastive_forward (-1, 1, NULL, NULL, NULL, 1, 0, NULL, NULL,
                                                NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_contrastive_backward (1, -1, NULL, NULL, NULL, 1, 0, 1, NULL), ==,
                   CT_STATUS_INVALID);
}

static void
test_accuracy (void)
{
  static const int64_t top_ks[] = { 1, 3, 0 };

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    for (guint k = 0; k < G_N_ELEMENTS (ignores); k++)
      for (guint t = 0; t < G_N_ELEMENTS (top_ks); t++)
        {
          const Shape s = shapes[i];
          const int64_t c = s.channels, n = s.outer * c * s.inner, positions = s.outer * s.inner;
          const int64_t top_k = top_ks[t];
          g_autofree float *scores = ct_cuda_test_random (n, 0, 4, 1600 + i);
          g_autofree float *labels = make_labels (positions, c, ignores[k], 1700 + i);
          g_autofree float *per_class = g_new (float, c), *counts = g_new (float, c);
          g_autofree char *what = shape_name ("accuracy", s, ignores[k]);
          float *d_scores, *d_labels = ct_cuda_test_upload (labels, positions);
          float *d_per_class = ct_cuda_test_device_zeros (c), *d_counts;
          float cpu_acc = -1, gpu_acc = -2;

          /* Whole-number scores make ties, which count against the label. */
          if (i % 2 == 0)
            for (int64_t j = 0; j < n; j++)
              scores[j] = floorf (scores[j]);
          d_scores = ct_cuda_test_upload (scores, n);
          d_counts = ct_cuda_test_device_zeros (c);
          g_assert_cmpint (ct_cpu_accuracy (s.outer, c, s.inner, scores, labels, top_k,
                                            ignores[k].has_ignore, ignores[k].ignore_label,
                                            &cpu_acc, per_class, counts), ==, CT_STATUS_OK);
          g_assert_cmpint (ct_cuda_accuracy (s.outer, c, s.inner, d_scores, d_labels, top_k,
                                             ignores[k].has_ignore, ignores[k].ignore_label,
                                             &gpu_acc, d_per_class, d_counts), ==,
                           CT_STATUS_OK);
          /* Counts of hits: exact on both devices. */
          g_assert_cmpfloat (gpu_acc, ==, cpu_acc);
          ct_cuda_test_assert_close (what, d_per_class, per_class, c, 0);
          ct_cuda_test_assert_close (what, d_counts, counts, c, 0);
          gpu_acc = -2;
          g_assert_cmpint (ct_cuda_accuracy (s.outer, c, s.inner, d_scores, d_labels, top_k,
                                             ignores[k].has_ignore, ignores[k].ignore_label,
                                             &gpu_acc, NULL, NULL), ==, CT_STATUS_OK);
          g_assert_cmpfloat (gpu_acc, ==, cpu_acc);
          ct_cuda_test_free (d_labels);

          labels[positions - 1] = (float) c;
          d_labels = ct_cuda_test_upload (labels, positions);
          g_assert_cmpint (ct_cpu_accuracy (s.outer, c, s.inner, scores, labels, top_k,
                                            ignores[k].has_ignore, ignores[k].ignore_label,
                                            &cpu_acc, per_class, counts), ==,
                           CT_STATUS_INVALID);
          g_assert_cmpint (ct_cuda_accuracy (s.outer, c, s.inner, d_scores, d_labels, top_k,
                                             ignores[k].has_ignore, ignores[k].ignore_label,
                                             &gpu_acc, d_per_class, d_counts), ==,
                           CT_STATUS_INVALID);
          ct_cuda_test_free (d_labels);
          ct_cuda_test_free (d_scores);
          ct_cuda_test_free (d_per_class);
          ct_cuda_test_free (d_counts);
        }

  /* Every label ignored: accuracy 0, not NaN. */
  {
    float scores[] = { 1, 2, 3, 4 }, labels[] = { 7, 7 }, acc = -1;
    float *d_scores = ct_cuda_test_upload (scores, 4), *d_labels = ct_cuda_test_upload (labels, 2);

    g_assert_cmpint (ct_cuda_accuracy (2, 2, 1, d_scores, d_labels, 1, 1, 7, &acc, NULL, NULL),
                     ==, CT_STATUS_OK);
    g_assert_cmpfloat (acc, ==, 0.0f);
    ct_cuda_test_free (d_scores);
    ct_cuda_test_free (d_labels);
  }
  g_assert_cmpint (ct_cuda_accuracy (2, 2, 1, NULL, NULL, -1, 0, 0, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
}

/* Many callers at once share the reduction's device buffer: each must get
 * its own result. */
static gpointer
reduce_in_thread (gpointer data)
{
  const int64_t n = 10000 + GPOINTER_TO_INT (data);
  g_autofree float *x = ct_cuda_test_random (n, -3, 3, 1800 + GPOINTER_TO_INT (data));
  g_autofree float *t = ct_cuda_test_random (n, 0, 1, 1900 + GPOINTER_TO_INT (data));
  g_autofree float *sig = g_new (float, n);
  float *d_x = ct_cuda_test_upload (x, n), *d_t = ct_cuda_test_upload (t, n);
  float *d_sig = ct_cuda_test_device_zeros (n);
  float cpu_loss = 0, gpu_loss = 0;
  int64_t cpu_valid = 0, gpu_valid = 0;

  ct_cpu_sigmoid_cross_entropy_forward (n, x, t, 0, 0, sig, &cpu_loss, &cpu_valid);
  for (int round = 0; round < 20; round++)
    {
      g_assert_cmpint (ct_cuda_sigmoid_cross_entropy_forward (n, d_x, d_t, 0, 0, d_sig,
                                                              &gpu_loss, &gpu_valid), ==,
                       CT_STATUS_OK);
      assert_scalar ("threaded sigmoid cross-entropy", gpu_loss, cpu_loss);
      g_assert_cmpint (gpu_valid, ==, n);
    }
  ct_cuda_test_free (d_x);
  ct_cuda_test_free (d_t);
  ct_cuda_test_free (d_sig);
  return NULL;
}

static void
test_threads (void)
{
  GThread *threads[4];

  for (int i = 0; i < 4; i++)
    threads[i] = g_thread_new ("reduce", reduce_in_thread, GINT_TO_POINTER (i * 1000));
  for (int i = 0; i < 4; i++)
    g_thread_join (threads[i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ct_cuda_test_require_gpu ();
  g_test_add_func ("/cuda/loss/check-labels", test_check_labels);
  g_test_add_func ("/cuda/loss/softmax-loss", test_softmax_loss);
  g_test_add_func ("/cuda/loss/sigmoid-cross-entropy", test_sigmoid_cross_entropy);
  g_test_add_func ("/cuda/loss/hinge", test_hinge);
  g_test_add_func ("/cuda/loss/infogain", test_infogain);
  g_test_add_func ("/cuda/loss/multinomial-logistic", test_multinomial_logistic);
  g_test_add_func ("/cuda/loss/contrastive", test_contrastive);
  g_test_add_func ("/cuda/loss/accuracy", test_accuracy);
  g_test_add_func ("/cuda/loss/threads", test_threads);
  return g_test_run ();
}
