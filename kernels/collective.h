/* collective.h: sums and broadcasts of device memory over several GPUs,
 * for data-parallel training (engine/parallel), on NCCL. There is no CPU
 * twin: between processes on the CPU, engine/parallel uses MPI.
 *
 * NCCL is opened at run time (libnccl.so.2), as cuDNN is: a machine
 * without it runs everything else, and these calls answer
 * CT_STATUS_NO_DEVICE with the reason in ct_cuda_last_error. Each GPU of
 * a job is one rank of a communicator made from one unique id, which rank
 * 0 draws and hands to the others (through MPI between processes, through
 * memory between threads). A communicator belongs to the device that was
 * current when it was made; its operations run on a stream of its own
 * that orders itself after the work already queued on the device's
 * default stream (the backward pass), and before work queued there
 * later. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_NCCL_ID_BYTES 128

typedef struct _CtNcclComm CtNcclComm;

/* Whether NCCL can be used (opening it the first time). */
CtStatus ct_cuda_nccl_available (void);
/* A new unique id (rank 0 draws it), CT_NCCL_ID_BYTES bytes. */
CtStatus ct_cuda_nccl_unique_id (unsigned char *id);
/* Rank RANK of N_RANKS, on the current device; every rank calls it at
 * the same time with the same ID. */
CtStatus ct_cuda_nccl_comm_new (const unsigned char *id, int n_ranks, int rank,
                                CtNcclComm **comm);
/* Start summing N floats of device memory BUF over the ranks, in place. */
CtStatus ct_cuda_nccl_sum (CtNcclComm *comm, float *buf, int64_t n);
/* Rank 0's BYTES bytes of device memory BUF on every rank; waits. */
CtStatus ct_cuda_nccl_broadcast (CtNcclComm *comm, void *buf, int64_t bytes);
/* Wait for every operation started on COMM. */
CtStatus ct_cuda_nccl_wait (CtNcclComm *comm);
/* Free COMM; with ABORT, without waiting for the other ranks (after an
 * error, so that no rank hangs in a sum that will never complete). */
CtStatus ct_cuda_nccl_comm_free (CtNcclComm *comm, int abort);

#ifdef __cplusplus
}
#endif
