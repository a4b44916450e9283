/* cpu/gemm-skinny.c: C = A B and C = A B^T with few rows, streamed.
 *
 * An inner-product layer at a small batch (AlexNet's fc6 at batch 10:
 * 10 x 4096 x 9216) touches each weight once per pass, so its passes are
 * bound by memory more than by arithmetic (151 MB of weights). A general
 * BLAS product copies ("packs") its operands
 * into blocks of its own first, and runs these shapes well below that.
 *
 * The forward pass, y = x W^T, is C = A B^T with M the batch: each row of
 * B gives M dot products. rows_dot takes the rows of B eight at a time and
 * sums their products with two rows of A at once, each sum in 16 lanes
 * (16 of AVX-512's 32 vector registers; every load of A feeds eight
 * products, every load of B two), K block by K block so that the block of
 * A stays in the L1 cache, and prefetches the next block of B meanwhile.
 * Without the prefetches the arithmetic and the loads from memory take
 * turns; the lanes are folded once per sum, not per K block. Sums of fewer
 * than 512 products are left to BLAS (folding the lanes would cost as much
 * as the products). With AVX2 alone the sums spill out of the 16
 * registers. PERFORMANCE.md has the figures.
 *
 * The data gradient, dx = dy W, is C = A B: rows_axpy gives each thread
 * one range of C's columns and sums it strip by strip (M x W floats, 32
 * KiB on the stack), eight rows of B at a time: tiles of 64 columns of up
 * to five rows of A, held in registers (every load of B feeds five
 * products), while the same columns of the next eight rows are
 * prefetched: two rows of A per load of B were bound by the loads, and
 * wider column ranges read every row of B from another page. A private
 * sum array per thread would need M x N / 2 floats; summing straight into
 * C makes both threads write its rows. The AVX2 clone spills the sums (40
 * of 16 registers). The weight gradient, dW += dy^T x (A^T B, K = the
 * batch, beta 1), is left to oneDNN's sgemm (cpu/blas.c), which already
 * runs at the machine's streaming bandwidth.
 *
 * Every element of C is computed by one thread in an order that depends
 * on the shape only, so results repeat for any thread count. The loops
 * are plain C that the compiler vectorises; x86-64 builds with GCC compile
 * them for three instruction sets, picked at load time (target_clones). */
#include <stdint.h>
#include <string.h>

#include "gemm-skinny.h"
#include "parallel.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__ ((target_clones ("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define CLONES
#endif

/* M up to this, and at least SKINNY_MIN_FLOATS of B to stream. */
#define SKINNY_MAX_SMALL 16
#define SKINNY_MIN_FLOATS ((int64_t) 1 << 20)

typedef struct {
  int64_t m, n, k;
  float alpha, beta;
  const float *a, *b;
  float *c;
} Skinny;

/* C = alpha * SUM + beta * C, where beta 0 overwrites (even NaNs). */
static inline float
combine (float alpha, float sum, float beta, float c)
{
  return beta == 0.0f ? alpha * sum : alpha * sum + beta * c;
}

/* The tiles below are inlined into the clones of rows_axpy and rows_dot,
 * so that they are compiled for each instruction set. */
#define TILE static inline __attribute__ ((always_inline)) void

/* Columns of C in a tile of the A B kernel (four AVX-512 vectors per row
 * of C), rows of A summed at once (at most: M is shared out evenly), rows
 * of B in its K blocks, and sums of C in a strip (32 KiB on the stack). */
#define AXPY_COLUMNS 64
#define AXPY_ROWS 5
#define AXPY_K_BLOCK 8
#define AXPY_SUMS 8192
/* Where prefetched rows of B go: prefetcht1, the L2 cache. */
#define AXPY_PREFETCH_LOCALITY 2

/* Adds to ROWS rows of ACC (LD apart, AXPY_COLUMNS each) the products of
 * ROWS rows of A from A (K apart) with the rows of B from B (N apart),
 * over [0, LEN): every load of B feeds ROWS products. ROWS is a constant
 * where this is inlined, so that the sums stay in registers. Prefetches
 * the same columns of the first NPF rows from PF (N apart) on the way. */
TILE
axpy_rows (int rows, const float *a, int64_t k, const float *b, int64_t n, int64_t len,
           float *acc, int64_t ld, const float *pf, int64_t npf)
{
  float s[AXPY_ROWS][AXPY_COLUMNS];

  for (int r = 0; r < rows; r++)
    memcpy (s[r], acc + r * ld, sizeof s[r]);
  for (int64_t p = 0; p < len; p++)
    {
      const float *const row = b + p * n;
      float x[AXPY_ROWS];

      if (p < npf)
        for (int q = 0; q < AXPY_COLUMNS; q += 16)
          __builtin_prefetch (pf + p * n + q, 0, AXPY_PREFETCH_LOCALITY);
      for (int r = 0; r < rows; r++)
        x[r] = a[r * k + p];
      for (int l = 0; l < AXPY_COLUMNS; l++)
        {
          const float y = row[l];

          for (int r = 0; r < rows; r++)
            s[r][l] += x[r] * y;
        }
    }
  for (int r = 0; r < rows; r++)
    memcpy (acc + r * ld, s[r], sizeof s[r]);
}

/* axpy_rows with ROWS from 1 to AXPY_ROWS, each inlined with its own. */
TILE
axpy_group (int rows, const float *a, int64_t k, const float *b, int64_t n, int64_t len,
            float *acc, int64_t ld, const float *pf, int64_t npf)
{
  _Static_assert (AXPY_ROWS == 5, "one case per size of group");

  switch (rows)
    {
    case 1:
      axpy_rows (1, a, k, b, n, len, acc, ld, pf, npf);
      break;
    case 2:
      axpy_rows (2, a, k, b, n, len, acc, ld, pf, npf);
      break;
    case 3:
      axpy_rows (3, a, k, b, n, len, acc, ld, pf, npf);
      break;
    case 4:
      axpy_rows (4, a, k, b, n, len, acc, ld, pf, npf);
      break;
    default:
      axpy_rows (5, a, k, b, n, len, acc, ld, pf, npf);
      break;
    }
}

/* Chunk [T0, T1) of the tiles of C = alpha A B + beta C, A being M x K
 * and B K x N: the chunk's columns go by in strips, each summed in a
 * local array (M rows of W), K block by K block, tile by tile, while the
 * next K block is prefetched (the next strip's first during the last),
 * then combined with C. Each sum runs over K in order, whatever the strip
 * or chunk. */
CLONES static void
rows_axpy (int64_t t0, int64_t t1, int chunk, void *data)
{
  const Skinny *s = data;
  const int64_t m = s->m, n = s->n, k = s->k;
  const float alpha = s->alpha, beta = s->beta;
  const float *const a = s->a, *const b = s->b;
  float *const c = s->c;
  const int64_t groups = (m + AXPY_ROWS - 1) / AXPY_ROWS;
  const int64_t strip = AXPY_SUMS / m / AXPY_COLUMNS * AXPY_COLUMNS;
  const int64_t c1 = t1 * AXPY_COLUMNS < n ? t1 * AXPY_COLUMNS : n;
  float acc[AXPY_SUMS];

  _Static_assert (AXPY_SUMS / SKINNY_MAX_SMALL >= AXPY_COLUMNS, "a tile in every strip");

  for (int64_t j0 = t0 * AXPY_COLUMNS; j0 < c1; j0 += strip)
    {
      const int64_t w = c1 - j0 < strip ? c1 - j0 : strip;
      const int64_t wvec = w / AXPY_COLUMNS * AXPY_COLUMNS;
      const int64_t rest = c1 - j0 - w;
      const int64_t wnext = (rest < strip ? rest : strip) / AXPY_COLUMNS * AXPY_COLUMNS;

      memset (acc, 0, (size_t) (m * w) * sizeof (float));
      for (int64_t p0 = 0; p0 < k; p0 += AXPY_K_BLOCK)
        {
          const int64_t len = k - p0 < AXPY_K_BLOCK ? k - p0 : AXPY_K_BLOCK;
          const int64_t after = k - p0 - len;
          const float *const block = b + p0 * n + j0;
          /* What comes next: this strip's next K block, or the next
           * strip's first; each tile prefetches its own columns of it. */
          const float *const next = after > 0 ? block + len * n : b + j0 + w;
          const int64_t nrows = after > 0 ? (after < len ? after : len) : (k < len ? k : len);
          const int64_t nwidth = after > 0 ? wvec : wnext;

          for (int64_t jt = 0; jt < wvec; jt += AXPY_COLUMNS)
            for (int64_t g = 0; g < groups; g++)
              {
                const int64_t i = g * m / groups, rows = (g + 1) * m / groups - i;
                const int64_t npf = g == 0 && jt < nwidth ? nrows : 0;

                axpy_group ((int) rows, a + i * k + p0, k, block + jt, n, len, acc + i * w + jt,
                            w, npf > 0 ? next + jt : block, npf);
              }
          /* The last columns of C, fewer than a tile. */
          for (int64_t p = 0; p < len; p++)
            for (int64_t i = 0; i < m; i++)
              {
                const float x = a[i * k + p0 + p];
                const float *const row = block + p * n;
                float *const to = acc + i * w;

                for (int64_t j = wvec; j < w; j++)
                  to[j] += x * row[j];
              }
        }
      for (int64_t i = 0; i < m; i++)
        {
          const float *const from = acc + i * w;
          float *const to = c + i * n + j0;

          for (int64_t j = 0; j < w; j++)
            to[j] = combine (alpha, from[j], beta, to[j]);
        }
    }
}

/* The rows of B in a group of the A B^T kernel, the lanes of its sums
 * (one AVX-512 vector) and the floats of A in a K block (16 KiB: its M
 * rows stay in the L1 cache while the group's rows of B go by). */
#define DOT_ROWS 8
#define DOT_LANES 16
#define DOT_A_BLOCK 4096
#define DOT_K_BLOCK_MAX 1024
/* Rows of B per chunk, at least. */
#define DOT_GRAIN 64
/* Where prefetched rows of B go: prefetcht1, the L2 cache. */
#define DOT_PREFETCH_LOCALITY 2

/* Adds to V and W (DOT_ROWS x DOT_LANES each) the lane sums of rows A and
 * A + K of A with DOT_ROWS rows of B from B (K apart), over [0, LEN), a
 * multiple of DOT_LANES: the two rows of A share every load of B.
 * Prefetches the same offsets of NPF rows from PF (K apart) on the way. */
TILE
dot_two_rows (const float *a, const float *b, int64_t k, int64_t len, float *v, float *w,
              const float *pf, int npf)
{
  float s[DOT_ROWS][DOT_LANES], t[DOT_ROWS][DOT_LANES];

  memcpy (s, v, sizeof s);
  memcpy (t, w, sizeof t);
  for (int64_t p = 0; p < len; p += DOT_LANES)
    {
      for (int q = 0; q < npf; q++)
        __builtin_prefetch (pf + q * k + p, 0, DOT_PREFETCH_LOCALITY);
      for (int l = 0; l < DOT_LANES; l++)
        {
          const float x = a[p + l], y = a[k + p + l];
          const float b0 = b[p + l], b1 = b[k + p + l], b2 = b[2 * k + p + l];
          const float b3 = b[3 * k + p + l], b4 = b[4 * k + p + l], b5 = b[5 * k + p + l];
          const float b6 = b[6 * k + p + l], b7 = b[7 * k + p + l];

          s[0][l] += x * b0;
          s[1][l] += x * b1;
          s[2][l] += x * b2;
          s[3][l] += x * b3;
          s[4][l] += x * b4;
          s[5][l] += x * b5;
          s[6][l] += x * b6;
          s[7][l] += x * b7;
          t[0][l] += y * b0;
          t[1][l] += y * b1;
          t[2][l] += y * b2;
          t[3][l] += y * b3;
          t[4][l] += y * b4;
          t[5][l] += y * b5;
          t[6][l] += y * b6;
          t[7][l] += y * b7;
        }
    }
  memcpy (v, s, sizeof s);
  memcpy (w, t, sizeof t);
}

/* The same for one row of A (the last of an odd M). */
TILE
dot_one_row (const float *a, const float *b, int64_t k, int64_t len, float *v,
             const float *pf, int npf)
{
  float s[DOT_ROWS][DOT_LANES];

  memcpy (s, v, sizeof s);
  for (int64_t p = 0; p < len; p += DOT_LANES)
    {
      for (int q = 0; q < npf; q++)
        __builtin_prefetch (pf + q * k + p, 0, DOT_PREFETCH_LOCALITY);
      for (int l = 0; l < DOT_LANES; l++)
        {
          const float x = a[p + l];

          s[0][l] += x * b[p + l];
          s[1][l] += x * b[k + p + l];
          s[2][l] += x * b[2 * k + p + l];
          s[3][l] += x * b[3 * k + p + l];
          s[4][l] += x * b[4 * k + p + l];
          s[5][l] += x * b[5 * k + p + l];
          s[6][l] += x * b[6 * k + p + l];
          s[7][l] += x * b[7 * k + p + l];
        }
    }
  memcpy (v, s, sizeof s);
}

/* One row of A with one row of B (B's last rows, fewer than a group). */
TILE
dot_one (const float *a, const float *b, int64_t len, float *v)
{
  float s[DOT_LANES];

  memcpy (s, v, sizeof s);
  for (int64_t p = 0; p < len; p += DOT_LANES)
    for (int l = 0; l < DOT_LANES; l++)
      s[l] += a[p + l] * b[p + l];
  memcpy (v, s, sizeof s);
}

/* One level of the lane sums' tree: lane L += lane L + H, for COUNT sums
 * of DOT_LANES lanes. */
TILE
fold_lanes (float *v, int64_t count, int h)
{
  for (int64_t e = 0; e < count; e++)
    for (int l = 0; l < h; l++)
      v[e * DOT_LANES + l] += v[e * DOT_LANES + l + h];
}

/* Groups [G0, G1) of DOT_ROWS rows of B (columns of C) of C = alpha A B^T
 * + beta C, A being M x K and B N x K: the M x DOT_ROWS dot products of a
 * group are summed in DOT_LANES lanes each, K block by K block, two rows
 * of A at a time, while the next block of B is prefetched. Each sum's
 * order depends on M and K only. */
CLONES static void
rows_dot (int64_t g0, int64_t g1, int chunk, void *data)
{
  const Skinny *s = data;
  const int64_t m = s->m, n = s->n, k = s->k;
  const float alpha = s->alpha, beta = s->beta;
  const float *const a = s->a, *const b = s->b;
  float *const c = s->c;
  const int64_t j0 = g0 * DOT_ROWS, j1 = g1 * DOT_ROWS < n ? g1 * DOT_ROWS : n;
  const int64_t kvec = k / DOT_LANES * DOT_LANES, tiles = (m + 1) / 2;
  const int64_t most = DOT_A_BLOCK / m < DOT_K_BLOCK_MAX ? DOT_A_BLOCK / m : DOT_K_BLOCK_MAX;
  const int64_t blocks = (kvec + most - 1) / most;
  /* K blocks of equal lengths (whole vectors), but for a shorter last. */
  const int64_t kb = (kvec / DOT_LANES + blocks - 1) / blocks * DOT_LANES;
  float acc[SKINNY_MAX_SMALL][DOT_ROWS][DOT_LANES];

  _Static_assert (DOT_LANES == 16, "the lane sums are folded in four levels");

  for (int64_t j = j0; j < j1; j += DOT_ROWS)
    {
      const int64_t w = j1 - j < DOT_ROWS ? j1 - j : DOT_ROWS;
      const float *const rows = b + j * k;

      memset (acc, 0, (size_t) m * sizeof acc[0]);
      for (int64_t p0 = 0; p0 < kvec; p0 += kb)
        {
          const int64_t len = kvec - p0 < kb ? kvec - p0 : kb;

          if (w < DOT_ROWS)
            {
              for (int64_t r = 0; r < w; r++)
                for (int64_t i = 0; i < m; i++)
                  dot_one (a + i * k + p0, rows + r * k + p0, len, acc[i][r]);
              continue;
            }

          /* What comes next, prefetched while this block is summed: this
           * group's next block (unless shorter: the tiles prefetch LEN
           * floats of each row), or the next group's first. Its rows are
           * shared out between the tiles, so that the prefetches spread
           * over the block's arithmetic; without them the arithmetic and
           * the loads from memory take turns. */
          const float *const next = p0 + kb < kvec ? (kvec - p0 - kb >= len ? rows + p0 + kb : NULL)
                                    : j + 2 * DOT_ROWS <= j1 ? rows + DOT_ROWS * k
                                    : NULL;
          for (int64_t t = 0; t < tiles; t++)
            {
              const int64_t i = 2 * t;
              const int q0 = (int) (t * DOT_ROWS / tiles);
              const int q1 = (int) ((t + 1) * DOT_ROWS / tiles);
              const float *const pf = next != NULL ? next + q0 * k : NULL;
              const int npf = next != NULL ? q1 - q0 : 0;

              if (i + 1 < m)
                dot_two_rows (a + i * k + p0, rows + p0, k, len, acc[i][0], acc[i + 1][0], pf,
                              npf);
              else
                dot_one_row (a + i * k + p0, rows + p0, k, len, acc[i][0], pf, npf);
            }
        }
      /* The last K % DOT_LANES products go to the first lanes. */
      for (int64_t i = 0; i < m; i++)
        for (int64_t r = 0; r < w; r++)
          for (int64_t p = kvec; p < k; p++)
            acc[i][r][p - kvec] += a[i * k + p] * rows[r * k + p];
      /* Each level of the tree over every sum, so that the sums overlap
       * rather than wait on their own previous level. */
      fold_lanes (acc[0][0], m * DOT_ROWS, DOT_LANES / 2);
      fold_lanes (acc[0][0], m * DOT_ROWS, DOT_LANES / 4);
      fold_lanes (acc[0][0], m * DOT_ROWS, DOT_LANES / 8);
      fold_lanes (acc[0][0], m * DOT_ROWS, DOT_LANES / 16);
      for (int64_t i = 0; i < m; i++)
        for (int64_t r = 0; r < w; r++)
          c[i * n + j + r] = combine (alpha, acc[i][r][0], beta, c[i * n + j + r]);
    }
}

int
ct_cpu_gemm_skinny (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n,
                    int64_t k, float alpha, const float *a, const float *b, float beta,
                    float *c)
{
  Skinny s = { m, n, k, alpha, beta, a, b, c };

  if (m <= 0 || n <= 0 || k <= 0)
    return 0;
  if (m <= SKINNY_MAX_SMALL && trans_a == CT_NO_TRANS && trans_b == CT_NO_TRANS && n >= 256
      && k >= 256 && n * k >= SKINNY_MIN_FLOATS)
    {
      /* One range of columns per thread: strips of the same range in
       * turn read B in longer runs than strips taken by any thread. */
      ct_cpu_parallel_for_chunks ((n + AXPY_COLUMNS - 1) / AXPY_COLUMNS, ct_cpu_num_threads (),
                                  rows_axpy, &s);
      return 1;
    }
  /* K of 512 or more: see the top of the file. */
  if (m <= SKINNY_MAX_SMALL && trans_a == CT_NO_TRANS && trans_b == CT_TRANS && n >= 256
      && k >= 512 && n * k >= SKINNY_MIN_FLOATS)
    {
      ct_cpu_parallel_for ((n + DOT_ROWS - 1) / DOT_ROWS, DOT_GRAIN / DOT_ROWS, rows_dot, &s);
      return 1;
    }
  return 0;
}
