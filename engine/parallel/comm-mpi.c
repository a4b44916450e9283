/* comm-mpi.c: CtComm over MPI's world communicator, for `mpirun -np N
 * cortado-cli train` (or srun, or any launcher of the MPI library Cortado
 * was built with). Sums are MPI_Iallreduce in place; errors come back as
 * GErrors (MPI_ERRORS_RETURN) so that the rank can say what failed before
 * it takes the job down with MPI_Abort. Only the thread that called
 * ct_comm_mpi_new calls MPI (MPI_THREAD_FUNNELED): the data layers'
 * prefetch threads never do. */
#include <limits.h>
#include <stdlib.h>
#include <mpi.h>
#include <glib/gi18n-lib.h>

#include "comm.h"

struct _CtCommRequest {
  MPI_Request request;
};

static gboolean
check (int status, const char *what, GError **error)
{
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;

  if (status == MPI_SUCCESS)
    return TRUE;
  if (MPI_Error_string (status, text, &length) != MPI_SUCCESS)
    g_strlcpy (text, "?", sizeof text);
  /* TRANSLATORS: WHAT is an MPI function, the second %s MPI's own words */
  g_set_error (error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_COMM, _("%s failed: %s"), what, text);
  return FALSE;
}

static CtCommRequest *
mpi_sum_start (CtComm *comm, float *buf, gsize n, GError **error)
{
  CtCommRequest *r = g_new0 (CtCommRequest, 1);

  g_return_val_if_fail (n <= INT_MAX, NULL);
  if (!check (MPI_Iallreduce (MPI_IN_PLACE, buf, (int) n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                              &r->request), "MPI_Iallreduce", error))
    {
      g_free (r);
      return NULL;
    }
  return r;
}

static gboolean
mpi_sum_test (CtComm *comm, CtCommRequest *request, gboolean *done, GError **error)
{
  int flag = 0;

  if (!check (MPI_Test (&request->request, &flag, MPI_STATUS_IGNORE), "MPI_Test", error))
    return FALSE;
  *done = flag != 0;
  if (*done)
    g_free (request);
  return TRUE;
}

static gboolean
mpi_sum_wait (CtComm *comm, CtCommRequest *request, GError **error)
{
  int status = MPI_Wait (&request->request, MPI_STATUS_IGNORE);

  g_free (request);
  return check (status, "MPI_Wait", error);
}

static gboolean
mpi_broadcast (CtComm *comm, void *buf, gsize bytes, GError **error)
{
  const gsize chunk = 1u << 30;

  for (gsize done = 0; done < bytes; done += chunk)
    if (!check (MPI_Bcast ((char *) buf + done, (int) MIN (chunk, bytes - done), MPI_BYTE, 0,
                           MPI_COMM_WORLD), "MPI_Bcast", error))
      return FALSE;
  return TRUE;
}

static gboolean
mpi_or_int (CtComm *comm, int *value, GError **error)
{
  return check (MPI_Allreduce (MPI_IN_PLACE, value, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD),
                "MPI_Allreduce", error);
}

static void
mpi_abort (CtComm *comm, int status)
{
  MPI_Abort (MPI_COMM_WORLD, status);
  _Exit (status);
}

static void
mpi_free (CtComm *comm)
{
  MPI_Finalize ();
  g_free (comm);
}

static const CtCommClass mpi_class = {
  .name = "MPI",
  .sum_start = mpi_sum_start,
  .sum_test = mpi_sum_test,
  .sum_wait = mpi_sum_wait,
  .broadcast = mpi_broadcast,
  .broadcast_device = NULL,
  .or_int = mpi_or_int,
  .abort = mpi_abort,
  .free = mpi_free,
};

/* This rank's number among those sharing its machine (MPI-3's shared
 * memory split), so that each takes a GPU of its own. */
static guint
local_rank (int rank)
{
  MPI_Comm node;
  int local = 0;

  if (MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node)
      != MPI_SUCCESS)
    return 0;
  MPI_Comm_rank (node, &local);
  MPI_Comm_free (&node);
  return (guint) local;
}

gboolean
ct_comm_mpi_built (void)
{
  return TRUE;
}

CtComm *
ct_comm_mpi_new (int *argc, char ***argv, GError **error)
{
  CtComm *comm;
  int provided = 0, rank = 0, size = 1;

  if (!ct_comm_launched ())
    return NULL;
  if (!check (MPI_Init_thread (argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread",
              error))
    return NULL;
  MPI_Comm_set_errhandler (MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank (MPI_COMM_WORLD, &rank);
  MPI_Comm_size (MPI_COMM_WORLD, &size);
  comm = g_new0 (CtComm, 1);
  comm->klass = &mpi_class;
  comm->rank = (guint) rank;
  comm->size = (guint) size;
  comm->local_rank = local_rank (rank);
  return comm;
}
