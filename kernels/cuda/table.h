/* cuda/table.h: the CUDA module's table of entry points.
 *
 * One pointer per ct_cuda_* function of the kernels' headers, in the order
 * cuda-table.h (written by cuda/gen-table.py at build time) lists them. The
 * module exports one such table (cuda/module.c); cuda/loader.c finds it
 * with dlsym and forwards every ct_cuda_* call through it. */
#pragma once

#include "blas.h"
#include "common.h"
#include "conv.h"
#include "crop.h"
#include "device.h"
#include "im2col.h"
#include "loss.h"
#include "lrn.h"
#include "neuron.h"
#include "normalization.h"
#include "pooling.h"
#include "recurrent.h"
#include "softmax.h"
#include "solver-update.h"
#include "switches.h"

#include "cuda-table.h"

#define CT_CUDA_TABLE_SYMBOL "ct_cuda_module_table"

typedef struct {
  unsigned version; /* CT_CUDA_TABLE_VERSION of the headers the module was built from */
#define CT_CUDA_TABLE_MEMBER(ret, name, params, args) ret (*name) params;
  CT_CUDA_FUNCTIONS (CT_CUDA_TABLE_MEMBER)
#undef CT_CUDA_TABLE_MEMBER
} CtCudaTable;
