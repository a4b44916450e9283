/* cuda/stub-module.c: ct_cuda_module_load for builds without CUDA, where
 * there is no module to load (cuda/loader.c in builds with it). */
#include <stddef.h>

#include "cuda-module.h"

CtCudaModuleState
ct_cuda_module_load (const char **detail)
{
  if (detail != NULL)
    *detail = "";
  return CT_CUDA_MODULE_NOT_BUILT;
}
