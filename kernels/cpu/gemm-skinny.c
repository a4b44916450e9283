/* cpu/gemm-skinny.c: C = A B with few rows, streamed.
 *
 * An inner-product layer at a small batch (AlexNet's fc6 at batch 10:
 * 10 x 4096 x 9216) touches each weight once per pass, so its passes are
 * bound by memory more than by arithmetic: 151 MB of weights at about
 * 25 GB/s is 6 ms. Its data gradient, dx = dy W, is C = A B with M the
 * batch: a general BLAS product copies ("packs") B into its own blocks
 * first. The kernel here adds each row of B, scaled, into the M rows of a
 * block of C held in a local array, so that B is read once, in place.
 * Measured on AlexNet (Intel Xeon, 2 cores): fc6's backward pass 34
 * against 41 ms. The other small-dimension shapes were tried and left to
 * BLAS, which was as fast or faster: the forward product A B^T as dot
 * products (13-14 against 12-13 ms) and the weight gradient with a short
 * sum (K = the batch; 37-38 against 34 ms for fc6's backward).
 *
 * Every element of C is computed by one thread in a fixed order, so
 * results repeat for any thread count. The loops are plain C that the
 * compiler vectorises; x86-64 builds with GCC compile them for three
 * instruction sets, picked at load time (target_clones). */
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
/* Columns per block of C: M rows of them stay in the L1 cache. */
#define COLUMN_BLOCK 512

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

/* Column blocks [B0, B1) of C = alpha A B + beta C, A being M x K and B
 * K x N: each block of C's M rows is summed in a local array while the
 * rows of B go by once. */
CLONES static void
rows_axpy (int64_t b0, int64_t b1, int chunk, void *data)
{
  const Skinny *s = data;
  const int64_t m = s->m, n = s->n, k = s->k;
  float acc[SKINNY_MAX_SMALL][COLUMN_BLOCK];

  for (int64_t blk = b0; blk < b1; blk++)
    {
      const int64_t j0 = blk * COLUMN_BLOCK;
      const int64_t w = n - j0 < COLUMN_BLOCK ? n - j0 : COLUMN_BLOCK;

      for (int64_t i = 0; i < m; i++)
        memset (acc[i], 0, (size_t) w * sizeof (float));
      for (int64_t p = 0; p < k; p++)
        {
          const float *row = s->b + p * n + j0;

          for (int64_t i = 0; i < m; i++)
            {
              const float v = s->a[i * k + p];
              float *to = acc[i];

              for (int64_t j = 0; j < w; j++)
                to[j] += v * row[j];
            }
        }
      for (int64_t i = 0; i < m; i++)
        {
          float *c = s->c + i * n + j0;

          for (int64_t j = 0; j < w; j++)
            c[j] = combine (s->alpha, acc[i][j], s->beta, c[j]);
        }
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
      ct_cpu_parallel_for ((n + COLUMN_BLOCK - 1) / COLUMN_BLOCK, 1, rows_axpy, &s);
      return 1;
    }
  return 0;
}
