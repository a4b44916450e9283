/* cpu/gemm-narrow.c: C = alpha A B^T + beta C when C has few columns and
 * the rows of A and B are long: LeNet's conv1 weight gradient (20 x 25,
 * K = 576 per image) and the forward product of its ip2 (64 x 10 x 500).
 * Every element of C is one dot product of a row of A with a row of B,
 * both contiguous. A general sgemm packs both operands into blocks first,
 * which costs more than the products at these sizes.
 *
 * Four rows of A with four rows of B make a tile of 16 sums, each in the
 * 16 lanes of an AVX-512 register: every step loads four vectors of each
 * and makes 16 fused multiply-adds. The last K % 16 products come in
 * masked loads. Each sum's lanes are then added in one fixed tree
 * (_mm512_reduce_add_ps), so a result depends on K only, never on the
 * thread count or the tile it fell in. Tiles at the edges of C take fewer
 * rows with the same code. */
#include "gemm-narrow.h"
#include "isa.h"

/* C narrower than this, K at least that. */
#define NARROW_COLUMNS 32
#define NARROW_MIN_K 64
#define TILE 4

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX512 __attribute__ ((target ("avx512f")))

/* The MR x NR dot products of rows A (K apart) with rows B (K apart) into
 * SUMS; MR and NR at most TILE (constants where inlined). */
static inline __attribute__ ((always_inline)) AVX512 void
tile_sums (const float *a, const float *b, int64_t k, int mr, int nr, float sums[TILE][TILE])
{
  __m512 acc[TILE][TILE];
  int64_t p = 0;

  for (int i = 0; i < TILE; i++)
    for (int j = 0; j < TILE; j++)
      acc[i][j] = _mm512_setzero_ps ();
  for (; p + 16 <= k; p += 16)
    {
      __m512 x[TILE], y[TILE];

      for (int i = 0; i < mr; i++)
        x[i] = _mm512_loadu_ps (a + i * k + p);
      for (int j = 0; j < nr; j++)
        y[j] = _mm512_loadu_ps (b + j * k + p);
      for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++)
          acc[i][j] = _mm512_fmadd_ps (x[i], y[j], acc[i][j]);
    }
  if (p < k)
    {
      const __mmask16 lanes = (__mmask16) ((1u << (k - p)) - 1);
      __m512 x[TILE], y[TILE];

      for (int i = 0; i < mr; i++)
        x[i] = _mm512_maskz_loadu_ps (lanes, a + i * k + p);
      for (int j = 0; j < nr; j++)
        y[j] = _mm512_maskz_loadu_ps (lanes, b + j * k + p);
      for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++)
          acc[i][j] = _mm512_fmadd_ps (x[i], y[j], acc[i][j]);
    }
  for (int i = 0; i < mr; i++)
    for (int j = 0; j < nr; j++)
      sums[i][j] = _mm512_reduce_add_ps (acc[i][j]);
}

static AVX512 void
tile_full (const float *a, const float *b, int64_t k, float sums[TILE][TILE])
{
  tile_sums (a, b, k, TILE, TILE, sums);
}

static AVX512 void
tile_edge (const float *a, const float *b, int64_t k, int mr, int nr, float sums[TILE][TILE])
{
  tile_sums (a, b, k, mr, nr, sums);
}

/* C = alpha * SUM + beta * C, where beta 0 overwrites (even NaNs). */
static inline float
combine (float alpha, float sum, float beta, float c)
{
  return beta == 0.0f ? alpha * sum : alpha * sum + beta * c;
}

static void
narrow_product (int64_t m, int64_t n, int64_t k, float alpha, const float *a, const float *b,
                float beta, float *c)
{
  for (int64_t i = 0; i < m; i += TILE)
    for (int64_t j = 0; j < n; j += TILE)
      {
        const int mr = m - i < TILE ? (int) (m - i) : TILE;
        const int nr = n - j < TILE ? (int) (n - j) : TILE;
        float sums[TILE][TILE];

        if (mr == TILE && nr == TILE)
          tile_full (a + i * k, b + j * k, k, sums);
        else
          tile_edge (a + i * k, b + j * k, k, mr, nr, sums);
        for (int r = 0; r < mr; r++)
          for (int q = 0; q < nr; q++)
            c[(i + r) * n + j + q] = combine (alpha, sums[r][q], beta, c[(i + r) * n + j + q]);
      }
}

int
ct_cpu_gemm_narrow (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n, int64_t k,
                    float alpha, const float *a, const float *b, float beta, float *c)
{
  if (trans_a != CT_NO_TRANS || trans_b != CT_TRANS || n >= NARROW_COLUMNS || k < NARROW_MIN_K
      || m <= 0 || n <= 0 || !ct_cpu_have_avx512 ())
    return 0;
  narrow_product (m, n, k, alpha, a, b, beta, c);
  return 1;
}
#else
int
ct_cpu_gemm_narrow (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n, int64_t k,
                    float alpha, const float *a, const float *b, float beta, float *c)
{
  return 0;
}
#endif
