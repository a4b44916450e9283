/* comm-mpi-none.c: ct_comm_mpi_new in a build without MPI (-Dmpi=disabled,
 * or no Open MPI found): there is never an MPI communicator, and
 * cortado-cli trains alone as it always has. */
#include "comm.h"

gboolean
ct_comm_mpi_built (void)
{
  return FALSE;
}

CtComm *
ct_comm_mpi_new (int *argc, char ***argv, GError **error)
{
  return NULL;
}
