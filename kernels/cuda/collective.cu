/* collective.cu: collective.h on NCCL, opened at run time (libnccl.so.2)
 * as cuDNN is, so that the module loads on a machine without it. The
 * functions used are typed from the toolkit's nccl.h. */
#include <cstring>
#include <dlfcn.h>
#include <mutex>

#include <nccl.h>

#include "collective.h"
#include "cuda-private.cuh"

#define CT_STRINGIFY_(x) #x
#define CT_STRINGIFY(x) CT_STRINGIFY_ (x)

#define CT_NCCL_FUNCTIONS(X)                                                      \
  X (ncclGetUniqueId) X (ncclCommInitRank) X (ncclAllReduce) X (ncclBroadcast)   \
  X (ncclCommDestroy) X (ncclCommAbort) X (ncclGetErrorString)

static struct {
#define CT_NCCL_FIELD(f) decltype (&::f) f;
  CT_NCCL_FUNCTIONS (CT_NCCL_FIELD)
#undef CT_NCCL_FIELD
} nccl;

static std::once_flag nccl_once;
static int nccl_loaded;

static void
nccl_load (void)
{
  void *lib = dlopen ("libnccl.so." CT_STRINGIFY (NCCL_MAJOR), RTLD_NOW | RTLD_LOCAL);

  if (lib == nullptr)
    return;
#define CT_NCCL_LOAD(f)                                       \
  if ((nccl.f = (decltype (&::f)) dlsym (lib, #f)) == nullptr) \
    return;
  CT_NCCL_FUNCTIONS (CT_NCCL_LOAD)
#undef CT_NCCL_LOAD
  nccl_loaded = 1;
}

struct _CtNcclComm {
  ncclComm_t comm;
  cudaStream_t stream;
  int device;
};

static CtStatus
nccl_status (ncclResult_t result)
{
  if (result == ncclSuccess)
    return CT_STATUS_OK;
  return ct_cuda_fail (result == ncclInvalidArgument || result == ncclInvalidUsage
                       ? CT_STATUS_INVALID : CT_STATUS_DEVICE_ERROR,
                       nccl.ncclGetErrorString (result));
}

CtStatus
ct_cuda_nccl_available (void)
{
  std::call_once (nccl_once, nccl_load);
  if (!nccl_loaded)
    return ct_cuda_fail (CT_STATUS_NO_DEVICE,
                         "NCCL (libnccl.so." CT_STRINGIFY (NCCL_MAJOR) ") could not be opened");
  return CT_STATUS_OK;
}

CtStatus
ct_cuda_nccl_unique_id (unsigned char *id)
{
  ncclUniqueId unique;
  CtStatus status = ct_cuda_nccl_available ();

  static_assert (sizeof unique == CT_NCCL_ID_BYTES, "NCCL's unique id changed size");
  if (status != CT_STATUS_OK)
    return status;
  status = nccl_status (nccl.ncclGetUniqueId (&unique));
  if (status == CT_STATUS_OK)
    memcpy (id, &unique, sizeof unique);
  return status;
}

CtStatus
ct_cuda_nccl_comm_new (const unsigned char *id, int n_ranks, int rank, CtNcclComm **comm)
{
  ncclUniqueId unique;
  CtNcclComm *c;
  CtStatus status = ct_cuda_nccl_available ();

  if (status != CT_STATUS_OK)
    return status;
  CT_CUDA_ENTER ();
  memcpy (&unique, id, sizeof unique);
  c = new CtNcclComm ();
  /* a blocking stream: ordered after the default stream's earlier work */
  status = ct_cuda_status (cudaStreamCreate (&c->stream));
  if (status == CT_STATUS_OK)
    status = nccl_status (nccl.ncclCommInitRank (&c->comm, n_ranks, unique, rank));
  if (status != CT_STATUS_OK)
    {
      if (c->stream != nullptr)
        cudaStreamDestroy (c->stream);
      delete c;
      return status;
    }
  cudaGetDevice (&c->device);
  *comm = c;
  return CT_STATUS_OK;
}

CtStatus
ct_cuda_nccl_sum (CtNcclComm *comm, float *buf, int64_t n)
{
  if (n < 0)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  return nccl_status (nccl.ncclAllReduce (buf, buf, (size_t) n, ncclFloat, ncclSum, comm->comm,
                                          comm->stream));
}

CtStatus
ct_cuda_nccl_broadcast (CtNcclComm *comm, void *buf, int64_t bytes)
{
  CtStatus status;

  if (bytes < 0)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = nccl_status (nccl.ncclBroadcast (buf, buf, (size_t) bytes, ncclChar, 0, comm->comm,
                                            comm->stream));
  return status == CT_STATUS_OK ? ct_cuda_nccl_wait (comm) : status;
}

CtStatus
ct_cuda_nccl_wait (CtNcclComm *comm)
{
  CT_CUDA_ENTER ();
  return ct_cuda_status (cudaStreamSynchronize (comm->stream));
}

CtStatus
ct_cuda_nccl_comm_free (CtNcclComm *comm, int abort)
{
  CtStatus status;

  if (comm == nullptr)
    return CT_STATUS_OK;
  status = nccl_status (abort ? nccl.ncclCommAbort (comm->comm)
                              : nccl.ncclCommDestroy (comm->comm));
  cudaStreamDestroy (comm->stream);
  delete comm;
  return status;
}
