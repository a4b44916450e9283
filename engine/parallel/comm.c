/* comm.c: CtComm's calls, passed on to its implementation, and the
 * single-rank communicator (nothing to exchange with anyone). */
#include <unistd.h>

#include "comm.h"

G_DEFINE_QUARK (ct-parallel-error-quark, ct_parallel_error)

/* Open MPI's mpirun, a PMIx or PMI launcher (srun, MPICH's hydra) say so
 * in the environment. A process started by hand never initialises MPI, so
 * cortado-cli then behaves as it does without MPI. */
gboolean
ct_comm_launched (void)
{
  static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                      "PMI_SIZE" };

  for (gsize i = 0; i < G_N_ELEMENTS (vars); i++)
    if (g_getenv (vars[i]) != NULL)
      return TRUE;
  return FALSE;
}

gboolean
ct_comm_sum_test (CtComm *comm, CtCommRequest *request, gboolean *done, GError **error)
{
  return comm->klass->sum_test (comm, request, done, error);
}

gboolean
ct_comm_sum_wait (CtComm *comm, CtCommRequest *request, GError **error)
{
  return comm->klass->sum_wait (comm, request, error);
}

gboolean
ct_comm_broadcast (CtComm *comm, void *buf, gsize bytes, GError **error)
{
  return comm->klass->broadcast (comm, buf, bytes, error);
}

gboolean
ct_comm_or_int (CtComm *comm, int *value, GError **error)
{
  return comm->klass->or_int (comm, value, error);
}

void
ct_comm_abort (CtComm *comm, int status)
{
  comm->klass->abort (comm, status);
}

void
ct_comm_free (CtComm *comm)
{
  if (comm != NULL)
    comm->klass->free (comm);
}

/* ---- one rank ---- */

/* A finished sum needs no state: any non-NULL pointer will do. */
static CtCommRequest *const single_done = (CtCommRequest *) &single_done;

static CtCommRequest *
single_sum_start (CtComm *comm, float *buf, gsize n, GError **error)
{
  return single_done;
}

static gboolean
single_sum_test (CtComm *comm, CtCommRequest *request, gboolean *done, GError **error)
{
  *done = TRUE;
  return TRUE;
}

static gboolean
single_sum_wait (CtComm *comm, CtCommRequest *request, GError **error)
{
  return TRUE;
}

static gboolean
single_broadcast (CtComm *comm, void *buf, gsize bytes, GError **error)
{
  return TRUE;
}

static gboolean
single_or_int (CtComm *comm, int *value, GError **error)
{
  return TRUE;
}

static void
single_abort (CtComm *comm, int status)
{
  _exit (status);
}

static void
single_free (CtComm *comm)
{
  g_free (comm);
}

static const CtCommClass single_class = {
  .name = "single",
  .sum_start = single_sum_start,
  .sum_test = single_sum_test,
  .sum_wait = single_sum_wait,
  .broadcast = single_broadcast,
  .or_int = single_or_int,
  .abort = single_abort,
  .free = single_free,
};

CtComm *
ct_comm_single_new (void)
{
  CtComm *comm = g_new0 (CtComm, 1);

  comm->klass = &single_class;
  comm->rank = 0;
  comm->size = 1;
  return comm;
}
