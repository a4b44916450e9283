/* cpu/pooling-private.h: what the pooling files share (pool-max.c,
 * pool-ave.c, pooling.c): the geometry check, the planes' grain, a job's
 * arguments, the interior of a pooled axis, and whether the AVX2 and
 * AVX-512 rows may run (pooling.h's switches). Private to kernels/cpu. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "pool-2x2.h"
#include "pooling.h"

#if defined(__x86_64__) && defined(__GNUC__)
/* The rows have AVX2 and AVX-512 versions (pool-max.c, pool-ave.c). */
#define HAVE_AVX2_ROWS 1
#endif

/* Whether the CPU has AVX2 (AVX-512) and the tests' switch allows it. */
int ct_pool_have_avx2 (void);
int ct_pool_have_avx512 (void);
/* Whether the AVX-512 switch is on (MAX's 2 x 2 planes go with it). */
int ct_pool_avx512_switch (void);

static inline int
valid_geometry (const CtPoolGeometry *g)
{
  return g != NULL && g->planes >= 0 && g->height > 0 && g->width > 0
         && g->height <= INT32_MAX / g->width
         && g->pooled_height >= 0 && g->pooled_width >= 0
         && g->kernel_h > 0 && g->kernel_w > 0 && g->stride_h > 0 && g->stride_w > 0
         && g->pad_h >= 0 && g->pad_w >= 0;
}

static inline int64_t
min64 (int64_t a, int64_t b)
{
  return a < b ? a : b;
}

static inline int64_t
max64 (int64_t a, int64_t b)
{
  return a > b ? a : b;
}

/* A chunk of planes for the pool's threads: about this many window
 * reads, so that handing a chunk over costs little next to its work. */
#define PLANE_GRAIN_WORK ((int64_t) 1 << 15)

static inline int64_t
plane_grain (const CtPoolGeometry *g)
{
  int64_t per_plane = g->pooled_height * g->pooled_width * g->kernel_h * g->kernel_w;

  return per_plane >= PLANE_GRAIN_WORK ? 1 : PLANE_GRAIN_WORK / (per_plane > 0 ? per_plane : 1);
}

typedef struct {
  const CtPoolGeometry *g;
  const float *bottom;
  const float *top_diff;
  float *top;
  int32_t *mask;
  const int32_t *mask_in;
  float *top_mask;
  const float *top_mask_in;
  float *bottom_diff;
  int clear;            /* backward: each bottom diff plane zeroed before its diffs land */
  int on_2x2;           /* MAX runs on cpu/pool-2x2.c, with the int mask */
  CtPool2x2 pairs;
} PoolJob;

/* The outputs [LO, HI) of an axis whose window lies wholly inside the
 * input, so that it needs no clipping. */
static inline void
interior (int64_t pooled, int64_t stride, int64_t pad, int64_t kernel, int64_t size,
          int64_t *lo, int64_t *hi)
{
  *lo = (pad + stride - 1) / stride;
  *hi = size + pad >= kernel ? (size + pad - kernel) / stride + 1 : 0;
  *hi = min64 (*hi, pooled);
  *lo = min64 (*lo, *hi);
}

/* The interior outputs of a pooled axis, as [lo, hi). */
typedef struct {
  int64_t ph_lo, ph_hi, pw_lo, pw_hi;
} Interior;


#ifdef __SSE2__
/* The four values AT[0], AT[S], AT[2 S], AT[3 S] for a stride S of 1 or 2;
 * at stride 2 they are gathered from two loads of four that end at the
 * last one, never beyond it. */
static inline __attribute__ ((always_inline)) __m128
load_four (const float *at, int64_t stride_w)
{
  return stride_w == 1 ? _mm_loadu_ps (at)
                       : _mm_shuffle_ps (_mm_loadu_ps (at), _mm_loadu_ps (at + 3),
                                         _MM_SHUFFLE (3, 1, 2, 0));
}

#endif
