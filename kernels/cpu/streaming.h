/* cpu/streaming.h: writing rows that nothing reads soon, for the CPU
 * kernels. A large blob written with ordinary stores is read first, line
 * by line, before each line is written; streaming stores (SSE2) skip that
 * read. They pay off only for whole cache lines: rows that start on a line
 * and fill their lines. After streaming, a kernel fences (ct_stream_fence)
 * before another thread reads what it wrote. Private to the CPU kernels. */
#pragma once

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Whether N floats at DST fill whole cache lines. */
static inline int
ct_stream_fits (const float *dst, int64_t n)
{
#ifdef __SSE2__
  return ((uintptr_t) dst & 63) == 0 && n % 16 == 0;
#else
  (void) dst, (void) n;
  return 0;
#endif
}

/* SRC's N floats to DST, which ct_stream_fits; streamed where the CPU can. */
static inline void
ct_stream_out (float *dst, const float *src, int64_t n)
{
#ifdef __SSE2__
  for (int64_t i = 0; i < n; i += 4)
    _mm_stream_ps (dst + i, _mm_loadu_ps (src + i));
#else
  memcpy (dst, src, (size_t) n * sizeof (float));
#endif
}

/* Orders this thread's streamed stores before what it does next. */
static inline void
ct_stream_fence (void)
{
#ifdef __SSE2__
  _mm_sfence ();
#endif
}
