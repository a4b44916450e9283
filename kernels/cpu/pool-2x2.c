/* cpu/pool-2x2.c: MAX pooling with 2 x 2 windows at stride 2 that tile
 * the plane exactly, with AVX-512.
 *
 * The rows of cpu/pooling.c take a row of outputs at a time, through
 * calls that work out its clipping; LeNet's pools have rows of 12 and 4
 * outputs, so that most of their time went to that bookkeeping (pool2's
 * forward pass cost 12 cycles per output). Here a plane is cut into units
 * of at most 16 outputs: whole output rows where they are short (4 rows of
 * 4, 1 row of 12), 16 outputs of a row where they are long. A unit's
 * inputs are at most 64 floats, held in four vectors; each window
 * element's 16 values are picked out of them by two permutes, from tables
 * worked out once per call. The backward pass puts the four elements'
 * diffs back in place with the same permutes the other way, and writes
 * the whole bottom diff plane, zeros included, instead of clearing it and
 * scattering the diffs one by one.
 *
 * Winners and values are the definition's: the window's elements are
 * compared in row-major order, each taken when strictly greater than the
 * best so far (from -FLT_MAX), so ties go to the first and NaN is never
 * taken. Diffs are added onto zero as the scatter adds them, so that a
 * diff of -0 lands as +0 there too. */
#include <float.h>
#include <string.h>

#include "isa.h"
#include "pool-2x2.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_POOL_2X2 1
#define POOL_TARGET __attribute__ ((target ("avx512f")))
#endif

static int
geometry_fits (const CtPoolGeometry *g)
{
  return g->kernel_h == 2 && g->kernel_w == 2 && g->stride_h == 2 && g->stride_w == 2
         && g->pad_h == 0 && g->pad_w == 0 && g->pooled_height >= 1 && g->pooled_width >= 1
         && g->height == 2 * g->pooled_height && g->width == 2 * g->pooled_width;
}

/* The backward tables: each float of a unit comes from exactly one
 * element of one window (the windows tile the plane). */
static void
plan_sources (CtPool2x2 *p, int lanes)
{
  for (int t = 0; t < 4; t++)
    for (int l = 0; l < lanes; l++)
      p->source[p->tap[t][l] / 16][p->tap[t][l] % 16] = 16 * t + l;
}

int
ct_pool_2x2_plan (const CtPoolGeometry *g, CtPool2x2 *p)
{
  const int32_t pw = (int32_t) g->pooled_width, w = (int32_t) g->width;

  memset (p, 0, sizeof *p);
#ifdef HAVE_POOL_2X2
  if (!ct_cpu_have_avx512 () || !geometry_fits (g))
    return 0;
  if (pw <= 16)
    {
      /* Whole rows: a unit is ROWS_PER_UNIT row pairs of the input, 4 PW
       * floats each, in a row. */
      p->rows_per_unit = 16 / pw;
      for (int32_t l = 0; l < p->rows_per_unit * pw; l++)
        {
          int32_t first = 4 * pw * (l / pw) + 2 * (l % pw);

          p->tap[0][l] = first;
          p->tap[1][l] = first + 1;
          p->tap[2][l] = first + 2 * pw;
          p->tap[3][l] = first + 2 * pw + 1;
          for (int t = 0; t < 4; t++)
            p->winner[t][l] = p->tap[t][l];
        }
      plan_sources (p, (int) (p->rows_per_unit * pw));
      return 1;
    }
  /* Part of a row: 32 floats of the upper input row, then 32 of the lower. */
  for (int32_t l = 0; l < 16; l++)
    {
      p->tap[0][l] = 2 * l;
      p->tap[1][l] = 2 * l + 1;
      p->tap[2][l] = 32 + 2 * l;
      p->tap[3][l] = 33 + 2 * l;
      p->winner[0][l] = 2 * l;
      p->winner[1][l] = 2 * l + 1;
      p->winner[2][l] = w + 2 * l;
      p->winner[3][l] = w + 2 * l + 1;
    }
  plan_sources (p, 16);
  return 1;
#else
  (void) pw, (void) w, (void) geometry_fits, (void) plan_sources;
  return 0;
#endif
}

#ifdef HAVE_POOL_2X2

/* One unit: where its four vectors and its outputs lie in their planes. */
typedef struct {
  int64_t in_at[4];   /* each vector's first float */
  __mmask16 io[4];    /* its floats inside the plane */
  int64_t out_at;     /* the first output */
  __mmask16 lanes;    /* the outputs */
  int32_t base;       /* the winners' tables count from this element */
} Unit;

/* The first COUNT of 16 lanes. */
static __mmask16
first_lanes (int64_t count)
{
  return count <= 0 ? 0 : count >= 16 ? 0xffff : (__mmask16) ((1u << count) - 1);
}

/* The unit at output row PH (and, in a long row, column PW0) into *UNIT,
 * and PH and PW0 moved on to the next; 0, with nothing done, past a
 * plane's last unit. */
static inline __attribute__ ((always_inline)) int
next_unit (const CtPool2x2 *p, const CtPoolGeometry *g, int64_t *ph, int64_t *pw0, Unit *unit)
{
  const int64_t w = g->width, pw = g->pooled_width;

  if (*ph >= g->pooled_height)
    return 0;
  if (p->rows_per_unit > 0)
    {
      const int64_t rows = g->pooled_height - *ph < p->rows_per_unit ? g->pooled_height - *ph
                                                                     : p->rows_per_unit;
      const int64_t start = *ph * 2 * w, floats = rows * 2 * w;

      for (int j = 0; j < 4; j++)
        {
          unit->in_at[j] = start + 16 * j;
          unit->io[j] = first_lanes (floats - 16 * j);
        }
      unit->out_at = *ph * pw;
      unit->lanes = first_lanes (rows * pw);
      unit->base = (int32_t) start;
      *ph += rows;
      return 1;
    }
  {
    const int64_t n = pw - *pw0 < 16 ? pw - *pw0 : 16;
    const int64_t start = *ph * 2 * w + 2 * *pw0;

    unit->in_at[0] = start;
    unit->in_at[1] = start + 16;
    unit->in_at[2] = start + w;
    unit->in_at[3] = start + w + 16;
    unit->io[0] = unit->io[2] = first_lanes (2 * n);
    unit->io[1] = unit->io[3] = first_lanes (2 * n - 16);
    unit->out_at = *ph * pw + *pw0;
    unit->lanes = first_lanes (n);
    unit->base = (int32_t) start;
    *pw0 += n;
    if (*pw0 == pw)
      *pw0 = 0, ++*ph;
    return 1;
  }
}

/* The tables as vectors, with the lanes whose float lies in the upper
 * two of the four vectors. */
typedef struct {
  __m512i tap[4], winner[4], source[4];
  __mmask16 tap_high[4], source_high[4];
} Tables;

POOL_TARGET static void
load_tables (const CtPool2x2 *p, Tables *t)
{
  for (int i = 0; i < 4; i++)
    {
      t->tap[i] = _mm512_loadu_si512 (p->tap[i]);
      t->winner[i] = _mm512_loadu_si512 (p->winner[i]);
      t->source[i] = _mm512_loadu_si512 (p->source[i]);
      t->tap_high[i] = _mm512_cmpge_epi32_mask (t->tap[i], _mm512_set1_epi32 (32));
      t->source_high[i] = _mm512_cmpge_epi32_mask (t->source[i], _mm512_set1_epi32 (32));
    }
}

/* Lane L of the result: float INDEX[L] of the 64 in V0 .. V3; HIGH has
 * the lanes whose float is in V2 or V3. */
POOL_TARGET static inline __attribute__ ((always_inline)) __m512
pick (__m512 v0, __m512 v1, __m512 v2, __m512 v3, __m512i index, __mmask16 high)
{
  if (high == 0)
    return _mm512_permutex2var_ps (v0, index, v1);
  if (high == 0xffff)
    return _mm512_permutex2var_ps (v2, index, v3);
  return _mm512_mask_blend_ps (high, _mm512_permutex2var_ps (v0, index, v1),
                               _mm512_permutex2var_ps (v2, index, v3));
}

POOL_TARGET static inline __attribute__ ((always_inline)) void
forward_unit (const Tables *t, const Unit *u, const float *in, float *top, int32_t *mask)
{
  const __m512 v0 = _mm512_maskz_loadu_ps (u->io[0], in + u->in_at[0]);
  const __m512 v1 = _mm512_maskz_loadu_ps (u->io[1], in + u->in_at[1]);
  const __m512 v2 = _mm512_maskz_loadu_ps (u->io[2], in + u->in_at[2]);
  const __m512 v3 = _mm512_maskz_loadu_ps (u->io[3], in + u->in_at[3]);
  const __m512i base = _mm512_set1_epi32 (u->base);
  __m512 best = _mm512_set1_ps (-FLT_MAX);
  __m512i winner = _mm512_set1_epi32 (-1);

  for (int e = 0; e < 4; e++)
    {
      __m512 v = pick (v0, v1, v2, v3, t->tap[e], t->tap_high[e]);
      __mmask16 take = _mm512_mask_cmp_ps_mask (u->lanes, v, best, _CMP_GT_OQ);

      best = _mm512_mask_mov_ps (best, take, v);
      winner = _mm512_mask_mov_epi32 (winner, take, _mm512_add_epi32 (t->winner[e], base));
    }
  _mm512_mask_storeu_ps (top + u->out_at, u->lanes, best);
  if (mask != NULL)
    _mm512_mask_storeu_epi32 (mask + u->out_at, u->lanes, winner);
}

/* Returns 0, having written nothing, where a lane's mask names an
 * element outside its window. */
POOL_TARGET static inline __attribute__ ((always_inline)) int
backward_unit (const Tables *t, const Unit *u, const float *top_diff, const int32_t *mask,
               float *diff)
{
  const __m512 td = _mm512_maskz_loadu_ps (u->lanes, top_diff + u->out_at);
  const __m512i m = _mm512_maskz_loadu_epi32 (u->lanes, mask + u->out_at);
  const __m512i base = _mm512_set1_epi32 (u->base);
  __m512 d[4];
  __mmask16 hit = 0;

  for (int e = 0; e < 4; e++)
    {
      __mmask16 at = _mm512_mask_cmpeq_epi32_mask (u->lanes, m,
                                                   _mm512_add_epi32 (t->winner[e], base));

      /* 0 + diff, as the scatter adds it onto the cleared plane. */
      d[e] = _mm512_maskz_add_ps (at, _mm512_setzero_ps (), td);
      hit |= at;
    }
  if (u->lanes & ~hit & _mm512_cmpneq_epi32_mask (m, _mm512_set1_epi32 (-1)))
    return 0;
  for (int j = 0; j < 4; j++)
    _mm512_mask_storeu_ps (diff + u->in_at[j], u->io[j],
                           pick (d[0], d[1], d[2], d[3], t->source[j], t->source_high[j]));
  return 1;
}

POOL_TARGET void
ct_pool_2x2_forward (const CtPool2x2 *p, const CtPoolGeometry *g, int64_t begin, int64_t end,
                     const float *bottom, float *top, int32_t *mask)
{
  const int64_t in_plane = g->height * g->width;
  const int64_t out_plane = g->pooled_height * g->pooled_width;
  Tables t;

  load_tables (p, &t);
  for (int64_t plane = begin; plane < end; plane++)
    {
      int64_t ph = 0, pw0 = 0;
      Unit unit;

      while (next_unit (p, g, &ph, &pw0, &unit))
        forward_unit (&t, &unit, bottom + plane * in_plane, top + plane * out_plane,
                      mask != NULL ? mask + plane * out_plane : NULL);
    }
}

POOL_TARGET int64_t
ct_pool_2x2_backward (const CtPool2x2 *p, const CtPoolGeometry *g, int64_t begin, int64_t end,
                      const float *top_diff, const int32_t *mask, float *bottom_diff)
{
  const int64_t in_plane = g->height * g->width;
  const int64_t out_plane = g->pooled_height * g->pooled_width;
  Tables t;

  load_tables (p, &t);
  for (int64_t plane = begin; plane < end; plane++)
    {
      int64_t ph = 0, pw0 = 0;
      Unit unit;

      while (next_unit (p, g, &ph, &pw0, &unit))
        if (!backward_unit (&t, &unit, top_diff + plane * out_plane, mask + plane * out_plane,
                            bottom_diff + plane * in_plane))
          return plane;
    }
  return end;
}

#else

void
ct_pool_2x2_forward (const CtPool2x2 *p, const CtPoolGeometry *g, int64_t begin, int64_t end,
                     const float *bottom, float *top, int32_t *mask)
{
  (void) p, (void) g, (void) begin, (void) end, (void) bottom, (void) top, (void) mask;
}

int64_t
ct_pool_2x2_backward (const CtPool2x2 *p, const CtPoolGeometry *g, int64_t begin, int64_t end,
                      const float *top_diff, const int32_t *mask, float *bottom_diff)
{
  (void) p, (void) g, (void) end, (void) top_diff, (void) mask, (void) bottom_diff;
  return begin;
}

#endif
