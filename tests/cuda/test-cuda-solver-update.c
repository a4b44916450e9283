/* test-cuda-solver-update.c: every update rule of solver-update.h on the
 * GPU against its CPU twin, on random gradients, weights and histories:
 * the steps and every history array must agree to 1e-5 relative, several
 * updates in a row (so that a history that drifts shows), over sizes that
 * do and do not fill the last block; counts of 0 do nothing and negative
 * counts are refused as on the CPU. */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "cuda-test-util.h"
#include "device.h"
#include "solver-update.h"

#define TOL 1e-5
#define STEPS 3

static const int64_t sizes[] = { 1, 257, 100003 };

/* The arrays of one rule: the gradient, the weights (for L1) and up to
 * two histories, on the host (CPU side) and on the device (GPU side). */
typedef struct {
  int64_t n;
  float *diff, *data, *h1, *h2;
  float *d_diff, *d_data, *d_h1, *d_h2;
} Arrays;

/* Histories of squares must not be negative: LO_H 0 for those. */
static void
arrays_init (Arrays *a, int64_t n, float lo_h, guint64 seed)
{
  a->n = n;
  a->diff = ct_cuda_test_random (n, -1.0f, 1.0f, seed);
  a->data = ct_cuda_test_random (n, -2.0f, 2.0f, seed + 1);
  a->h1 = ct_cuda_test_random (n, lo_h, 1.0f, seed + 2);
  a->h2 = ct_cuda_test_random (n, lo_h, 1.0f, seed + 3);
  /* exact zeros in the weights: sign (0) = 0 for L1 */
  for (int64_t i = 0; i < n; i += 7)
    a->data[i] = 0.0f;
  a->d_diff = ct_cuda_test_upload (a->diff, n);
  a->d_data = ct_cuda_test_upload (a->data, n);
  a->d_h1 = ct_cuda_test_upload (a->h1, n);
  a->d_h2 = ct_cuda_test_upload (a->h2, n);
}

/* A fresh gradient for the next step, the same on both sides. */
static void
arrays_new_gradient (Arrays *a, guint64 seed)
{
  g_autofree float *g = ct_cuda_test_random (a->n, -1.0f, 1.0f, seed);

  memcpy (a->diff, g, (gsize) a->n * sizeof (float));
  ct_cuda_test_free (a->d_diff);
  a->d_diff = ct_cuda_test_upload (a->diff, a->n);
}

static void
arrays_check (const Arrays *a, const char *rule, int step, int n_histories)
{
  g_autofree char *what = g_strdup_printf ("%s n=%" G_GINT64_FORMAT " step %d", rule, a->n, step);
  g_autofree char *what1 = g_strconcat (what, " history 0", NULL);
  g_autofree char *what2 = g_strconcat (what, " history 1", NULL);

  ct_cuda_test_assert_close (what, a->d_diff, a->diff, a->n, TOL);
  if (n_histories > 0)
    ct_cuda_test_assert_close (what1, a->d_h1, a->h1, a->n, TOL);
  if (n_histories > 1)
    ct_cuda_test_assert_close (what2, a->d_h2, a->h2, a->n, TOL);
}

static void
arrays_clear (Arrays *a)
{
  g_free (a->diff);
  g_free (a->data);
  g_free (a->h1);
  g_free (a->h2);
  ct_cuda_test_free (a->d_diff);
  ct_cuda_test_free (a->d_data);
  ct_cuda_test_free (a->d_h1);
  ct_cuda_test_free (a->d_h2);
}

typedef enum { L1, SGD, NESTEROV, ADAGRAD, RMSPROP, ADADELTA, ADAM } Rule;

static const char *const rule_names[] = {
  "l1_decay", "sgd", "nesterov", "adagrad", "rmsprop", "adadelta", "adam",
};

/* One step of RULE on both sides. */
static void
run_rule (Rule rule, Arrays *a)
{
  CtStatus cpu = CT_STATUS_INVALID, gpu = CT_STATUS_INVALID;
  const int64_t n = a->n;

  switch (rule)
    {
    case L1:
      cpu = ct_cpu_l1_decay (n, 0.003f, a->data, a->diff);
      gpu = ct_cuda_l1_decay (n, 0.003f, a->d_data, a->d_diff);
      break;
    case SGD:
      cpu = ct_cpu_sgd_update (n, 0.9f, 0.01f, a->diff, a->h1);
      gpu = ct_cuda_sgd_update (n, 0.9f, 0.01f, a->d_diff, a->d_h1);
      break;
    case NESTEROV:
      cpu = ct_cpu_nesterov_update (n, 0.95f, 0.02f, a->diff, a->h1);
      gpu = ct_cuda_nesterov_update (n, 0.95f, 0.02f, a->d_diff, a->d_h1);
      break;
    case ADAGRAD:
      cpu = ct_cpu_adagrad_update (n, 1e-8f, 0.05f, a->diff, a->h1);
      gpu = ct_cuda_adagrad_update (n, 1e-8f, 0.05f, a->d_diff, a->d_h1);
      break;
    case RMSPROP:
      cpu = ct_cpu_rmsprop_update (n, 0.98f, 1e-6f, 0.01f, a->diff, a->h1);
      gpu = ct_cuda_rmsprop_update (n, 0.98f, 1e-6f, 0.01f, a->d_diff, a->d_h1);
      break;
    case ADADELTA:
      cpu = ct_cpu_adadelta_update (n, 0.95f, 1e-6f, 1.0f, a->diff, a->h1, a->h2);
      gpu = ct_cuda_adadelta_update (n, 0.95f, 1e-6f, 1.0f, a->d_diff, a->d_h1, a->d_h2);
      break;
    case ADAM:
      cpu = ct_cpu_adam_update (n, 0.9f, 0.999f, 1e-8f, 0.0316f, a->diff, a->h1, a->h2);
      gpu = ct_cuda_adam_update (n, 0.9f, 0.999f, 1e-8f, 0.0316f, a->d_diff, a->d_h1, a->d_h2);
      break;
    }
  g_assert_cmpint (cpu, ==, CT_STATUS_OK);
  g_assert_cmpint (gpu, ==, CT_STATUS_OK);
}

static int
n_histories (Rule rule)
{
  return rule == L1 ? 0 : rule == ADADELTA || rule == ADAM ? 2 : 1;
}

static void
test_rule (gconstpointer data)
{
  Rule rule = (Rule) GPOINTER_TO_INT (data);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      Arrays a;

      arrays_init (&a, sizes[s], rule == SGD || rule == NESTEROV ? -1.0f : 0.0f, 11 * s + rule);
      for (int step = 0; step < STEPS; step++)
        {
          if (step > 0)
            arrays_new_gradient (&a, 1000 + 7 * step + s);
          run_rule (rule, &a);
          arrays_check (&a, rule_names[rule], step, n_histories (rule));
        }
      arrays_clear (&a);
    }
}

/* Counts: 0 touches nothing (NULL pointers are fine), negative is
 * CT_STATUS_INVALID, as on the CPU. */
static void
test_counts (void)
{
  g_assert_cmpint (ct_cuda_l1_decay (0, 1, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_sgd_update (0, 1, 1, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_nesterov_update (0, 1, 1, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_adagrad_update (0, 1, 1, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_rmsprop_update (0, 1, 1, 1, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_adadelta_update (0, 1, 1, 1, NULL, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_adam_update (0, 1, 1, 1, 1, NULL, NULL, NULL), ==, CT_STATUS_OK);

  g_assert_cmpint (ct_cuda_l1_decay (-1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_sgd_update (-1, 1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_nesterov_update (-1, 1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_adagrad_update (-1, 1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_rmsprop_update (-1, 1, 1, 1, NULL, NULL), ==, CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_adadelta_update (-1, 1, 1, 1, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cuda_adam_update (-1, 1, 1, 1, 1, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
  g_assert_cmpint (ct_cpu_adam_update (-1, 1, 1, 1, 1, NULL, NULL, NULL), ==,
                   CT_STATUS_INVALID);
}

int
main (int argc, char **argv)
{
  ct_cuda_test_require_gpu ();
  g_test_init (&argc, &argv, NULL);

  for (int r = L1; r <= ADAM; r++)
    {
      g_autofree char *path = g_strdup_printf ("/cuda/solver-update/%s", rule_names[r]);

      g_test_add_data_func (path, GINT_TO_POINTER (r), test_rule);
    }
  g_test_add_func ("/cuda/solver-update/counts", test_counts);
  return g_test_run ();
}
