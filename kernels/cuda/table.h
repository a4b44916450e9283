/* cuda/table.h: the CUDA module's table of entry points.
 *
 * One pointer per ct_cuda_* function of the kernels' headers, in the order
 * cuda-table.h (written by cuda/gen-table.py at build time, from the headers
 * kernels/meson.build names) lists them; it includes those headers. The
 * module exports one such table (cuda/module.c); cuda/loader.c finds it
 * with dlsym and forwards every ct_cuda_* call through it. */
#pragma once

#include "cuda-table.h"

#define CT_CUDA_TABLE_SYMBOL "ct_cuda_module_table"

typedef struct {
  unsigned version; /* CT_CUDA_TABLE_VERSION of the headers the module was built from */
#define CT_CUDA_TABLE_MEMBER(ret, name, params, args) ret (*name) params;
  CT_CUDA_FUNCTIONS (CT_CUDA_TABLE_MEMBER)
#undef CT_CUDA_TABLE_MEMBER
} CtCudaTable;
