/* comm-nccl.c: CtComm over NCCL, one GPU per rank: the gradient sums and
 * the weights' broadcast run between the GPUs (NVLink, PCIe, or the
 * network NCCL finds), while a bootstrap communicator (MPI) hands out
 * NCCL's unique id and carries the few host-memory operations. A sum's
 * request is only a mark: NCCL orders its work on its own stream, and
 * waiting for any request waits for all started so far. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "collective.h"
#include "comm.h"
#include "device.h"
#include "engine-error.h"

typedef struct {
  CtComm parent;
  CtComm *bootstrap;
  CtNcclComm *nccl;
} NcclComm;

static gboolean
check (CtStatus status, GError **error)
{
  return ct_engine_check_status (status, _("Summing over the GPUs (NCCL)"), error);
}

/* Any non-NULL pointer: the stream keeps the order. */
static CtCommRequest *const started = (CtCommRequest *) &started;

static CtCommRequest *
nccl_sum_start (CtComm *comm, float *buf, gsize n, GError **error)
{
  NcclComm *self = (NcclComm *) comm;

  return check (ct_cuda_nccl_sum (self->nccl, buf, (int64_t) n), error) ? started : NULL;
}

static gboolean
nccl_sum_test (CtComm *comm, CtCommRequest *request, gboolean *done, GError **error)
{
  /* the GPU moves the bytes by itself: nothing to drive */
  *done = FALSE;
  return TRUE;
}

static gboolean
nccl_sum_wait (CtComm *comm, CtCommRequest *request, GError **error)
{
  return check (ct_cuda_nccl_wait (((NcclComm *) comm)->nccl), error);
}

static gboolean
nccl_broadcast (CtComm *comm, void *buf, gsize bytes, GError **error)
{
  return ct_comm_broadcast (((NcclComm *) comm)->bootstrap, buf, bytes, error);
}

static gboolean
nccl_broadcast_device (CtComm *comm, void *buf, gsize bytes, GError **error)
{
  return check (ct_cuda_nccl_broadcast (((NcclComm *) comm)->nccl, buf, (int64_t) bytes), error);
}

static gboolean
nccl_or_int (CtComm *comm, int *value, GError **error)
{
  return ct_comm_or_int (((NcclComm *) comm)->bootstrap, value, error);
}

static void
nccl_abort (CtComm *comm, int status)
{
  NcclComm *self = (NcclComm *) comm;

  /* no rank may stay inside a sum waiting for this one */
  ct_cuda_nccl_comm_free (g_steal_pointer (&self->nccl), TRUE);
  ct_comm_abort (self->bootstrap, status);
}

static void
nccl_free (CtComm *comm)
{
  NcclComm *self = (NcclComm *) comm;

  ct_cuda_nccl_comm_free (self->nccl, FALSE);
  g_free (self);
}

static const CtCommClass nccl_class = {
  .name = "NCCL",
  .sum_start = nccl_sum_start,
  .sum_test = nccl_sum_test,
  .sum_wait = nccl_sum_wait,
  .broadcast = nccl_broadcast,
  .broadcast_device = nccl_broadcast_device,
  .or_int = nccl_or_int,
  .abort = nccl_abort,
  .free = nccl_free,
};

/* Whether every rank can use NCCL: all or none go on. */
static gboolean
agree_available (CtComm *bootstrap, gboolean available, GError **error)
{
  int missing = available ? 0 : 1;

  if (!ct_comm_or_int (bootstrap, &missing, error))
    return FALSE;
  if (missing == 0)
    return TRUE;
  if (available)
    g_set_error (error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_UNAVAILABLE,
                 _("NCCL cannot be used on another rank"));
  else
    g_set_error (error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_UNAVAILABLE,
                 _("NCCL cannot be used: %s"), ct_cuda_last_error ());
  return FALSE;
}

/* Rank 0's unique id on every rank; a failure to draw it fails all. */
static gboolean
share_id (CtComm *bootstrap, unsigned char *id, GError **error)
{
  struct {
    int ok;
    unsigned char id[CT_NCCL_ID_BYTES];
  } shared = { 0 };
  GError *local = NULL;

  if (bootstrap->rank == 0)
    shared.ok = check (ct_cuda_nccl_unique_id (shared.id), &local);
  if (!ct_comm_broadcast (bootstrap, &shared, sizeof shared, error))
    {
      g_clear_error (&local);
      return FALSE;
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (!shared.ok)
    {
      g_set_error (error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_UNAVAILABLE,
                   _("rank 0 could not start NCCL"));
      return FALSE;
    }
  memcpy (id, shared.id, CT_NCCL_ID_BYTES);
  return TRUE;
}

CtComm *
ct_comm_nccl_new (CtComm *bootstrap, GError **error)
{
  unsigned char id[CT_NCCL_ID_BYTES] = { 0 };
  gboolean available = ct_cuda_nccl_available () == CT_STATUS_OK;
  NcclComm *self;
  CtNcclComm *nccl = NULL;

  if (!agree_available (bootstrap, available, error) || !share_id (bootstrap, id, error) ||
      !check (ct_cuda_nccl_comm_new (id, (int) bootstrap->size, (int) bootstrap->rank, &nccl),
              error))
    return NULL;
  self = g_new0 (NcclComm, 1);
  self->parent.klass = &nccl_class;
  self->parent.rank = bootstrap->rank;
  self->parent.size = bootstrap->size;
  self->parent.local_rank = bootstrap->local_rank;
  self->parent.device_memory = TRUE;
  self->bootstrap = bootstrap;
  self->nccl = nccl;
  return &self->parent;
}
