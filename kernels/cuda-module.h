/* cuda-module.h: whether the CUDA module could be loaded, and why not.
 *
 * In a build with CUDA the .cu kernels live in a module of their own
 * (libctcuda.so, in LIBDIR/cortado) that the first ct_cuda_* call opens:
 * a process that never asks for the GPU never maps the CUDA runtime or
 * cuBLAS. Until then, and for good when it cannot be opened, every ct_cuda_*
 * function answers as in a build without CUDA (cuda/stub*.c). The engine
 * asks this to say why there is no GPU. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CT_CUDA_MODULE_LOADED,
  CT_CUDA_MODULE_NOT_BUILT,  /* Cortado was built without CUDA */
  CT_CUDA_MODULE_MISSING,    /* no file at DETAIL */
  CT_CUDA_MODULE_UNLOADABLE, /* DETAIL: the dynamic loader's words, such as a missing cuBLAS */
  CT_CUDA_MODULE_MISMATCH,   /* the module at DETAIL was built from other kernels' headers */
} CtCudaModuleState;

/* Opens the module on the first call (any ct_cuda_* call does the same);
 * thread-safe. *DETAIL (may be NULL) is set as said above, or to "". */
CtCudaModuleState ct_cuda_module_load (const char **detail);

#ifdef __cplusplus
}
#endif
