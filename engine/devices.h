/* devices.h: where the engine computes, for app/ and cortado-cli: the
 * CPU's code paths and threads, and the GPUs. They ask here, never the
 * kernels; the CUDA runtime's failures come back as translated errors. */
#pragma once

#include <glib.h>

#include "device.h"

G_BEGIN_DECLS

/* What `device_query` prints of a GPU, as Caffe's does. */
typedef CtCudaDeviceInfo CtGpuInfo;

/* Lines "Label: value", one per path (the kernels' instruction set and
 * threads, the matrix products, the convolutions, OpenBLAS), each ending
 * in a newline. Labels are translated; library names are not. */
char *ct_engine_describe_cpu (void);

/* The threads of the CPU kernels' pool (CT_NUM_THREADS, or one per core). */
int ct_engine_cpu_threads (void);
/* At most LIMIT of them work on the jobs this thread starts (0: all). */
void ct_engine_set_cpu_thread_limit (int limit);

/* The GPUs this process can use: 0 when there is none, and then *REASON
 * (when not NULL) says why in a translated sentence ("Cortado was built
 * without CUDA", why the CUDA module cannot be loaded, or what the CUDA
 * runtime said). The first call of these GPU functions loads the module. */
int ct_engine_gpu_count (char **reason);
/* The CUDA runtime's words for its last failure on this thread, "" when
 * none (or without CUDA); why the CUDA module cannot be loaded, when it
 * cannot. */
const char *ct_engine_gpu_last_error (void);
/* Computes on GPU ID from now on in this thread. */
gboolean ct_engine_gpu_select (int id, GError **error);
/* What the GPU ID is. */
gboolean ct_engine_gpu_info (int id, CtGpuInfo *info, GError **error);
/* Waits for the work queued on the current GPU (timings). */
gboolean ct_engine_gpu_synchronize (GError **error);

G_END_DECLS
