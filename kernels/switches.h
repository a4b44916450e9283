/* switches.h: what tests turn to run each code path of a kernel family
 * and compare them: a backend, an instruction set. Not for the engine or
 * the app, where the CPU and the environment choose (DESIGN.md lists the
 * variables); kernels/cpu and kernels/cuda include it to implement them. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Convolutions (conv.h) ---- */

/* Which code runs the CPU convolutions. AUTO (the default) is oneDNN where
 * the build has it and where it is faster (PERFORMANCE.md), else im2col.
 * DNNL is oneDNN wherever it can run the shape at all, faster or not: for tests
 * that hold its numerics to the contract on every shape (the same as AUTO
 * without oneDNN). The environment variable CT_CONV_BACKEND (im2col, dnnl)
 * sets the backend a process starts on. */
typedef enum {
  CT_CONV_BACKEND_AUTO,
  CT_CONV_BACKEND_IM2COL,
  CT_CONV_BACKEND_DNNL,
} CtConvBackend;

/* Sets the backend for the calls that follow (tests compare the two);
 * returns the one before. Not for use while convolutions run. */
CtConvBackend ct_cpu_conv_set_backend (CtConvBackend backend);

/* Whether the im2col path may run small planes on column tiles with
 * AVX-512 (cpu/conv-tiles.c) where the CPU has it (the default); returns
 * the previous setting. For tests, which compare the two. */
int ct_cpu_conv_set_tiles (int use);

/* Whether first layers (a few input channels, stride 1) may run their
 * forward pass on the direct AVX-512 kernels (cpu/conv-direct.c) where
 * the CPU has it (the default), under either backend but a forced
 * oneDNN; returns the previous setting. For tests, which
 * compare the two. */
int ct_cpu_conv_set_direct (int use);

/* The GPU's backend: AUTO (cuDNN where it takes the shape) or IM2COL
 * (DNNL counts as AUTO); returns the one before. The environment variable
 * CT_CUDA_CONV=im2col sets the backend a process starts on. Not for use
 * while convolutions run. */
CtConvBackend ct_cuda_conv_set_backend (CtConvBackend backend);

/* ---- Pooling (pooling.h) ---- */

/* Whether MAX pooling may take its AVX2 rows where the CPU has AVX2 (the
 * default); returns the previous setting. For tests, which run both. */
int ct_cpu_max_pool_set_avx2 (int use);
/* The same for pooling's AVX-512 code: MAX's rows, which go before the
 * AVX2 ones, and AVE's planes of at most 16 columns with their padding. */
int ct_cpu_pool_set_avx512 (int use);

/* ---- im2col (im2col.h) ---- */

/* Whether the 2-D functions may move small windows as AVX-512 vectors
 * where the CPU has AVX-512 (the default); returns the previous setting.
 * Both ways give the same floats: for tests, which run both. */
int ct_cpu_im2col_set_avx512 (int use);

/* ---- Statistics (stats.h) ---- */

/* Whether ct_cpu_stats_lanes may take AVX2 where the CPU has it (the
 * default); returns the previous setting. Both give the same bits: for
 * tests, which run both. */
int ct_cpu_stats_set_avx2 (int use);

#ifdef __cplusplus
}
#endif
