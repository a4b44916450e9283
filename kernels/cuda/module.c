/* cuda/module.c: the one symbol the CUDA module exports.
 *
 * Linked into libctcuda.so with the .cu files; cuda/module.map hides every
 * other symbol, so that the module's own calls between ct_cuda_* functions
 * stay inside it rather than reaching the forwarding functions of the
 * program that loaded it (cuda/loader.c). */
#include "table.h"

#define CT_CUDA_TABLE_ENTRY(ret, name, params, args) .name = ct_cuda_##name,

const CtCudaTable ct_cuda_module_table = {
  .version = CT_CUDA_TABLE_VERSION,
  CT_CUDA_FUNCTIONS (CT_CUDA_TABLE_ENTRY)
};
