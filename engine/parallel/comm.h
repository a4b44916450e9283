/* comm.h: CtComm, the few collective operations data-parallel training
 * needs, over whichever library moves the bytes: MPI between processes
 * (comm-mpi.c), memory between the threads of one process (comm-threads.c),
 * NCCL between GPUs (comm-nccl.c), or nothing at all for a solver alone
 * (comm.c).
 *
 * Every rank calls the same operations in the same order. Sums are over
 * float arrays, in place, and may be started without waiting (the request
 * is then waited on later), so that a layer's gradients travel while the
 * layers below it run their backward. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CT_PARALLEL_ERROR (ct_parallel_error_quark ())
GQuark ct_parallel_error_quark (void);

typedef enum {
  CT_PARALLEL_ERROR_COMM,    /* the communication library reported a failure */
  CT_PARALLEL_ERROR_SETUP,   /* the ranks do not agree (nets, devices) */
  CT_PARALLEL_ERROR_UNAVAILABLE, /* NCCL cannot be used here */
} CtParallelError;

typedef struct _CtComm CtComm;
typedef struct _CtCommRequest CtCommRequest;

typedef struct {
  const char *name;
  /* Start summing N floats of BUF over every rank, in place. */
  CtCommRequest *(*sum_start) (CtComm *comm, float *buf, gsize n, GError **error);
  /* Let a started sum progress; *DONE when it has finished (the request
   * is then freed). */
  gboolean (*sum_test) (CtComm *comm, CtCommRequest *request, gboolean *done, GError **error);
  /* Wait for a started sum to finish, and free the request. */
  gboolean (*sum_wait) (CtComm *comm, CtCommRequest *request, GError **error);
  /* Rank 0's BYTES bytes of BUF (host memory) on every rank. */
  gboolean (*broadcast) (CtComm *comm, void *buf, gsize bytes, GError **error);
  /* The same for device memory; NULL when sums take host memory. */
  gboolean (*broadcast_device) (CtComm *comm, void *buf, gsize bytes, GError **error);
  /* The bitwise or of every rank's *VALUE. */
  gboolean (*or_int) (CtComm *comm, int *value, GError **error);
  /* End the whole job at once (every rank), with STATUS. */
  void (*abort) (CtComm *comm, int status);
  void (*free) (CtComm *comm);
} CtCommClass;

struct _CtComm {
  const CtCommClass *klass;
  guint rank;
  guint size;
  guint local_rank;         /* among the ranks on this machine (which GPU to take) */
  gboolean device_memory;   /* sums take GPU memory (NCCL), not host memory */
};

/* A communicator of one rank: sums and broadcasts leave the data as is. */
CtComm *ct_comm_single_new (void);

/* MPI's world communicator, when Cortado was built with MPI and the process
 * was started by an MPI launcher (mpirun, srun, ...): MPI is initialised
 * here and finalised by ct_comm_free. NULL without an error when there is
 * no launcher (or no MPI in this build); NULL with ERROR when MPI fails. */
CtComm *ct_comm_mpi_new (int *argc, char ***argv, GError **error);
/* Whether an MPI launcher (mpirun, srun, ...) started this process. */
gboolean ct_comm_launched (void);
/* Whether this build has MPI. */
gboolean ct_comm_mpi_built (void);

/* The ranks of one process, one per thread (several GPUs driven by one
 * cortado-cli). A group holds what the SIZE threads meet on; each thread
 * takes its own communicator of it. */
typedef struct _CtCommGroup CtCommGroup;

CtCommGroup *ct_comm_group_new (guint size);
void ct_comm_group_unref (CtCommGroup *group);
/* A rank that fails says so here: every rank waiting in, or later
 * entering, an operation of GROUP gets an error instead of waiting for it
 * forever. */
void ct_comm_group_break (CtCommGroup *group);
/* Rank RANK of GROUP (which it holds a reference to); the operations wait
 * for every rank, and abort ends the process. */
CtComm *ct_comm_threads_new (CtCommGroup *group, guint rank);
gboolean ct_comm_is_threads (const CtComm *comm);
CtCommGroup *ct_comm_threads_get_group (CtComm *comm);

/* NCCL over the current GPU of every rank of BOOTSTRAP (borrowed; it must
 * outlive the result), which hands NCCL's unique id from rank 0 to the
 * others and carries the small host-memory operations (or_int,
 * broadcast); sums and device broadcasts go through NCCL. NULL with ERROR
 * when NCCL cannot be used (CT_PARALLEL_ERROR_UNAVAILABLE: no GPU, no
 * libnccl.so.2, a build without CUDA). Every rank must call it. */
CtComm *ct_comm_nccl_new (CtComm *bootstrap, GError **error);

static inline CtCommRequest *
ct_comm_sum_start (CtComm *comm, float *buf, gsize n, GError **error)
{
  return comm->klass->sum_start (comm, buf, n, error);
}

gboolean ct_comm_sum_test (CtComm *comm, CtCommRequest *request, gboolean *done,
                           GError **error);
gboolean ct_comm_sum_wait (CtComm *comm, CtCommRequest *request, GError **error);
gboolean ct_comm_broadcast (CtComm *comm, void *buf, gsize bytes, GError **error);
gboolean ct_comm_or_int (CtComm *comm, int *value, GError **error);
void ct_comm_abort (CtComm *comm, int status);
void ct_comm_free (CtComm *comm);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtComm, ct_comm_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtCommGroup, ct_comm_group_unref)

G_END_DECLS
