/* cpu-paths.h: which code runs Cortado's arithmetic on this CPU, for
 * `cortado-cli device_query` and the About window. The names are those of
 * libraries and instruction sets, never translated. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  /* The widest vector instructions Cortado's own kernels use here:
   * "AVX-512", "AVX2 and FMA" or "SSE2" (or "portable C" off x86-64). */
  char isa[32];
  /* The library of the matrix products: "oneDNN 2.6.3", or "OpenBLAS
   * 0.3.21" in a build without oneDNN or under CT_GEMM=openblas. */
  char products[64];
  /* The convolutions: "oneDNN 2.6.3" (where it takes the shape) or "none"
   * when every convolution takes the im2col path. */
  char convolutions[64];
  /* OpenBLAS's version and the kernels it picked for this CPU (what
   * OPENBLAS_CORETYPE sets), whether or not it runs anything. */
  char openblas[96];
  /* The threads of the kernels' pool (parallel.h). */
  int threads;
} CtCpuPaths;

/* Fills PATHS for this process (starts the pool to count its threads). */
void ct_cpu_paths (CtCpuPaths *paths);

#ifdef __cplusplus
}
#endif
