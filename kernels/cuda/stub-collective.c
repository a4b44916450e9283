/* cuda/stub-collective.c: the ct_cuda_ functions of collective.h for
 * builds without CUDA, each answering CT_STATUS_NO_DEVICE (see
 * cuda/stub.c). */
#include <stddef.h>

#include "collective.h"

CtStatus
ct_cuda_nccl_available (void)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_nccl_unique_id (unsigned char *id)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_nccl_comm_new (const unsigned char *id, int n_ranks, int rank, CtNcclComm **comm)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_nccl_sum (CtNcclComm *comm, float *buf, int64_t n)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_nccl_broadcast (CtNcclComm *comm, void *buf, int64_t bytes)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_nccl_wait (CtNcclComm *comm)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_nccl_comm_free (CtNcclComm *comm, int abort)
{
  return CT_STATUS_NO_DEVICE;
}
