/* test-solver-common.c: helpers of the solver tests (see
 * test-solver-common.h). */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-solver-common.h"
#include "text-format.h"

CtSolver *
ct_test_solver_new (const char *text, GError **error)
{
  g_autoptr (GError) local = NULL;
  Caffe__SolverParameter *param;
  CtSolver *solver;

  param = (Caffe__SolverParameter *) ct_text_parse (&caffe__solver_parameter__descriptor, text,
                                                    -1, "solver.prototxt", CT_TEXT_STRICT,
                                                    &local);
  g_assert_no_error (local);
  solver = ct_solver_new (param, NULL, error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return solver;
}

CtSolver *
ct_test_solver_new_ok (const char *text)
{
  g_autoptr (GError) error = NULL;
  CtSolver *solver = ct_test_solver_new (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (solver);
  return solver;
}

static gboolean
feed_inputs (CtSolver *solver, CtNet *net, int test_net_id, int iter, int pass,
             gpointer user_data, GError **error)
{
  int iter_size = ct_solver_get_param (solver)->iter_size;

  for (guint k = 0; k < ct_net_n_inputs (net); k++)
    {
      guint index = ct_net_input_index (net, k);
      CtBlob *blob = ct_net_get_blob (net, index);
      gboolean is_label = strstr (ct_net_get_blob_name (net, index), "label") != NULL;
      gint64 batch = ct_blob_shape_at (blob, 0, NULL);
      gint64 per_sample = ct_blob_count (blob) / MAX (batch, 1);
      float *data = ct_blob_mutable_cpu_data (blob, error);

      if (data == NULL)
        return FALSE;
      for (gint64 n = 0; n < batch; n++)
        {
          gint64 s = ((gint64) iter * iter_size + pass) * batch + n;

          if (test_net_id >= 0)
            s = -1 - ((gint64) pass * batch + n) - 1000 * (gint64) test_net_id;
          for (gint64 i = 0; i < per_sample; i++)
            {
              double v = sin (0.37 * (double) s + 1.3 * (double) i + 0.5 * k);
              double cls = (double) ((s % 2 + 2) % 2);

              data[n * per_sample + i] = is_label ? (float) cls
                                                  : (float) (v + (cls > 0 ? 0.3 : -0.3));
            }
        }
    }
  return TRUE;
}

guint
ct_test_solver_feed_inputs (CtSolver *solver)
{
  CtSolverObserverFuncs funcs = { .feed = feed_inputs };

  return ct_solver_add_observer (solver, &funcs, NULL, NULL);
}

char *
ct_test_tmpdir_new (void)
{
  return ct_test_tmpdir_make ("cortado-solver-XXXXXX");
}

gboolean
ct_test_same_weights (CtNet *a, CtNet *b)
{
  if (ct_net_n_learnable (a) != ct_net_n_learnable (b))
    return FALSE;
  for (guint i = 0; i < ct_net_n_learnable (a); i++)
    {
      CtBlob *x = ct_net_get_learnable (a, i)->blob;
      CtBlob *y = ct_net_get_learnable (b, i)->blob;
      const float *dx = ct_blob_cpu_data (x, NULL);
      const float *dy = ct_blob_cpu_data (y, NULL);

      if (ct_blob_count (x) != ct_blob_count (y))
        return FALSE;
      for (gint64 j = 0; j < ct_blob_count (x); j++)
        if (memcmp (&dx[j], &dy[j], sizeof (float)) != 0)
          {
            g_test_message ("learnable %u element %" G_GINT64_FORMAT ": %.9g != %.9g", i, j,
                            (double) dx[j], (double) dy[j]);
            return FALSE;
          }
    }
  return TRUE;
}

double
ct_test_max_weight_diff (CtNet *a, CtNet *b)
{
  double worst = 0.0;

  g_assert_cmpuint (ct_net_n_learnable (a), ==, ct_net_n_learnable (b));
  for (guint i = 0; i < ct_net_n_learnable (a); i++)
    {
      CtBlob *x = ct_net_get_learnable (a, i)->blob;
      CtBlob *y = ct_net_get_learnable (b, i)->blob;
      const float *dx = ct_blob_cpu_data (x, NULL);
      const float *dy = ct_blob_cpu_data (y, NULL);

      g_assert_cmpint (ct_blob_count (x), ==, ct_blob_count (y));
      for (gint64 j = 0; j < ct_blob_count (x); j++)
        worst = MAX (worst, fabs ((double) dx[j] - (double) dy[j]));
    }
  return worst;
}
