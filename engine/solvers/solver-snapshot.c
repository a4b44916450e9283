/* solver-snapshot.c: writing snapshots and resuming from them, as Caffe's
 * Solver::Snapshot and Restore do: the caffemodel first, then the
 * solverstate that names it; on restore, the iteration, the lr policy's
 * current step, the history blobs and the weights of the named caffemodel.
 *
 * A solverstate moved together with its caffemodel still resumes: the
 * caffemodel is looked for where the state says, then beside the state. */
#include <string.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "solver-private.h"

static gboolean
is_hdf5 (const CtSolver *solver)
{
  return solver->param->snapshot_format == CAFFE__SOLVER_PARAMETER__SNAPSHOT_FORMAT__HDF5;
}

static gboolean
has_prefix (const CtSolver *solver)
{
  return solver->param->snapshot_prefix != NULL && solver->param->snapshot_prefix[0] != '\0';
}

gboolean
ct_solver_check_snapshot_prefix (CtSolver *solver, GError **error)
{
  g_autofree char *dir = NULL;

  if (solver->param->snapshot <= 0)
    return TRUE;
  if (!has_prefix (solver))
    return ct_solver_param_fail (solver, "snapshot", error,
                                 _("snapshot is given but snapshot_prefix is not"));
  dir = g_path_get_dirname (solver->param->snapshot_prefix);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR) || g_access (dir, W_OK) != 0)
    return ct_solver_param_fail (solver, "snapshot_prefix", error,
                                 _("cannot write snapshots to '%s': make sure that the folder "
                                   "'%s' exists and is writable"),
                                 solver->param->snapshot_prefix, dir);
  return TRUE;
}

gboolean
ct_solver_snapshot (CtSolver *solver, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  g_autofree char *model = NULL;
  g_autofree char *state = NULL;
  g_autoptr (GError) local = NULL;

  /* no snapshot of NaN weights when training is to stop on them */
  if (solver->stop_on_not_finite && !ct_net_check_finite (solver->net, error))
    return FALSE;
  if (!has_prefix (solver))
    {
      /* Caffe would write "_iter_N.caffemodel" into the working folder */
      CT_SOLVER_WARN (solver, "No snapshot_prefix: snapshot of iteration %d not written",
                      solver->iter);
      return TRUE;
    }
  model = ct_snapshot_model_filename (p->snapshot_prefix, solver->iter, p->snapshot_format);
  state = ct_snapshot_state_filename (p->snapshot_prefix, solver->iter, p->snapshot_format);
  CT_SOLVER_LOG (solver, is_hdf5 (solver) ? "Snapshotting to HDF5 file %s"
                                          : "Snapshotting to binary proto file %s", model);
  if (!ct_snapshot_write_model (solver->net, model, p->snapshot_format, p->snapshot_diff,
                                &local))
    goto fail;
  CT_SOLVER_LOG (solver, is_hdf5 (solver) ? "Snapshotting solver state to HDF5 file %s"
                                          : "Snapshotting solver state to binary proto file %s",
                 state);
  if (!ct_solver_state_write (state, p->snapshot_format, solver->iter, model,
                              solver->current_step, solver->history, &local))
    goto fail;
  ct_solver_notify_snapshot (solver, model, state);
  return TRUE;
fail:
  g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_SNAPSHOT,
               _("snapshot of iteration %d failed: %s"), solver->iter, local->message);
  return FALSE;
}

/* The caffemodel LEARNED_NET names: as written, or beside STATE_FILE. */
static char *
find_learned_net (const char *learned_net, const char *state_file)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *beside = NULL;

  if (g_file_test (learned_net, G_FILE_TEST_EXISTS))
    return g_strdup (learned_net);
  dir = g_path_get_dirname (state_file);
  base = g_path_get_basename (learned_net);
  beside = g_build_filename (dir, base, NULL);
  if (g_file_test (beside, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&beside);
  return g_strdup (learned_net);
}

/* Whether STATE's history fits this solver: as many blobs, of the sizes
 * of the parameters (shapes may be written differently, as legacy 4-D). */
static gboolean
check_history (CtSolver *solver, CtSolverState *state, const char *state_file,
               GError **error)
{
  if (state->history->len != solver->history->len)
    {
      g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_STATE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "%s: the solver state holds %u history blob, but the %s solver on this "
                                "net has %u",
                                "%s: the solver state holds %u history blobs, but the %s solver on this "
                                "net has %u", state->history->len),
                   state_file, state->history->len, solver->type->name,
                   solver->history->len);
      return FALSE;
    }
  for (guint i = 0; i < state->history->len; i++)
    {
      CtBlob *ours = solver->history->pdata[i];
      CtBlob *stored = state->history->pdata[i];

      if (ct_blob_count (ours) != ct_blob_count (stored))
        {
          g_autofree char *a = ct_blob_shape_string (stored);
          g_autofree char *b = ct_blob_shape_string (ours);

          g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_STATE,
                       _("%s: history blob %u has shape %s, but the net's parameter has "
                         "shape %s"), state_file, i, a, b);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
copy_history (CtSolver *solver, CtSolverState *state, GError **error)
{
  for (guint i = 0; i < state->history->len; i++)
    {
      CtBlob *ours = solver->history->pdata[i];
      const float *from = ct_blob_cpu_data (state->history->pdata[i], error);
      float *to = from != NULL ? ct_blob_mutable_cpu_data (ours, error) : NULL;

      if (to == NULL)
        return FALSE;
      memcpy (to, from, sizeof (float) * (gsize) ct_blob_count (ours));
    }
  return TRUE;
}

gboolean
ct_solver_restore (CtSolver *solver, const char *state_file, GError **error)
{
  g_autoptr (CtSolverState) state = NULL;
  g_autoptr (GError) local = NULL;

  state = ct_solver_state_read (state_file, error);
  if (state == NULL || !check_history (solver, state, state_file, error))
    return FALSE;
  if (state->learned_net != NULL)
    {
      g_autofree char *model = find_learned_net (state->learned_net, state_file);

      if (!ct_snapshot_load_weights (solver->net, model, &local))
        {
          g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_STATE,
                       _("%s: the weights it names: %s"), state_file, local->message);
          return FALSE;
        }
    }
  if (!copy_history (solver, state, error))
    return FALSE;
  solver->iter = state->iter;
  solver->current_step = state->current_step;
  return TRUE;
}
