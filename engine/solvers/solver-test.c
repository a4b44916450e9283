/* solver-test.c: running the test nets, as Caffe's Solver::Test does: the
 * test net takes the train net's current weights, runs test_iter forward
 * passes, and each element of each output blob is summed over the passes
 * and divided by test_iter. Requests are honoured between batches: a
 * snapshot request is carried out at once, a stop request ends the test
 * (and the training) without results. */
#include <glib/gi18n-lib.h>

#include "solver-private.h"

/* The sums of every output element, and their names and loss weights. */
typedef struct {
  GArray *scores;     /* CtSolverScore, values summed */
} TestSums;

static void
sums_add (TestSums *sums, CtNet *net, gboolean first)
{
  guint k = 0;

  for (guint j = 0; j < ct_net_n_outputs (net); j++)
    {
      guint blob_index = ct_net_output_index (net, j);
      CtBlob *blob = ct_net_get_blob (net, blob_index);
      const float *values = ct_blob_cpu_data (blob, NULL);

      for (gint64 e = 0; values != NULL && e < ct_blob_count (blob); e++, k++)
        {
          if (first)
            {
              CtSolverScore score = {
                .name = ct_net_get_blob_name (net, blob_index),
                .value = values[e],
                .loss_weight = ct_net_blob_loss_weight (net, blob_index),
              };
              g_array_append_val (sums->scores, score);
            }
          else if (k < sums->scores->len)
            g_array_index (sums->scores, CtSolverScore, k).value += values[e];
        }
    }
}

/* Between batches: carry out snapshot requests; TRUE when asked to stop. */
static gboolean
handle_requests (CtSolver *solver, GError **error, gboolean *failed)
{
  CtSolverAction action;

  /* with other solvers waiting, requests wait for the end of the
   * iteration, where all of them agree on them */
  if (solver->sync.agree != NULL)
    return FALSE;
  while ((action = ct_solver_take_request (solver)) != CT_SOLVER_ACTION_NONE)
    {
      if (action == CT_SOLVER_ACTION_SNAPSHOT && !ct_solver_snapshot (solver, error))
        {
          *failed = TRUE;
          return TRUE;
        }
      if (action == CT_SOLVER_ACTION_STOP)
        solver->stopped_early = TRUE;
    }
  return solver->stopped_early;
}

static void
report (CtSolver *solver, guint test_net_id, TestSums *sums, gboolean has_loss, float loss,
        int n_iter)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];
  CtSolverTestResult result = {
    .iter = solver->iter,
    .test_net_id = test_net_id,
    .n_scores = sums->scores->len,
    .scores = (const CtSolverScore *) (gpointer) sums->scores->data,
    .has_loss = has_loss,
  };

  if (has_loss && n_iter > 0)
    {
      result.loss = loss / (float) n_iter;
      CT_SOLVER_LOG (solver, "Test loss: %s", ct_solver_format_number (a, result.loss));
    }
  for (guint i = 0; i < sums->scores->len; i++)
    {
      CtSolverScore *score = &g_array_index (sums->scores, CtSolverScore, i);

      if (n_iter > 0)
        score->value /= (float) n_iter;
      if (score->loss_weight != 0.0f)
        CT_SOLVER_LOG (solver, "    Test net output #%u: %s = %s (* %s = %s loss)", i,
                       score->name, ct_solver_format_number (a, score->value),
                       ct_solver_format_number (b, score->loss_weight),
                       ct_solver_format_number (c, score->loss_weight * score->value));
      else
        CT_SOLVER_LOG (solver, "    Test net output #%u: %s = %s", i, score->name,
                       ct_solver_format_number (a, score->value));
    }
  ct_solver_notify_test_done (solver, &result);
}

static gboolean
test_net (CtSolver *solver, guint test_net_id, GError **error)
{
  CtNet *net;
  TestSums sums;
  gboolean failed = FALSE;
  float loss = 0.0f;
  int n_iter;

  net = solver->test_nets->pdata[test_net_id];
  n_iter = solver->param->test_iter[test_net_id];
  CT_SOLVER_LOG (solver, "Iteration %d, Testing net (#%u)", solver->iter, test_net_id);
  ct_solver_notify_test_started (solver, test_net_id);
  if (!ct_solver_share_trained_layers (net, solver->net, error))
    return FALSE;
  sums.scores = g_array_new (FALSE, FALSE, sizeof (CtSolverScore));
  for (int i = 0; i < n_iter; i++)
    {
      float batch_loss = 0.0f;

      if (handle_requests (solver, error, &failed))
        break;
      if (!ct_solver_feed (solver, net, (int) test_net_id, i, error) ||
          !ct_net_forward (net, &batch_loss, error))
        {
          failed = TRUE;
          break;
        }
      if (solver->param->test_compute_loss)
        loss += batch_loss;
      sums_add (&sums, net, i == 0);
    }
  if (!failed && solver->stopped_early)
    CT_SOLVER_LOG (solver, "Test interrupted.");
  else if (!failed)
    report (solver, test_net_id, &sums, solver->param->test_compute_loss, loss, n_iter);
  g_array_unref (sums.scores);
  return !failed;
}

gboolean
ct_solver_test_nets (CtSolver *solver, GError **error)
{
  for (guint i = 0; i < solver->test_nets->len && !solver->stopped_early; i++)
    if (!test_net (solver, i, error))
      return FALSE;
  return TRUE;
}

gboolean
ct_solver_test_all (CtSolver *solver, GError **error)
{
  solver->stopped_early = FALSE;
  return ct_solver_test_nets (solver, error);
}

gboolean
ct_solver_test (CtSolver *solver, guint test_net_id, GError **error)
{
  g_return_val_if_fail (test_net_id < solver->test_nets->len, FALSE);
  solver->stopped_early = FALSE;
  return test_net (solver, test_net_id, error);
}
