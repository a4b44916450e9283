/* cpu/blas.c: the CPU side of blas.h: the matrix product, and the
 * element-wise loops (the vector routines are cpu/vector.c's).
 *
 * The product runs on oneDNN's sgemm in builds with oneDNN, and on
 * OpenBLAS's cblas only in builds without it: OpenBLAS picks its kernels
 * by CPU model, so its results (and speed) change with the machine, while
 * oneDNN picks them by the instruction sets the CPU reports. Our counts
 * are int64_t while cblas takes `blasint` (int in Debian's build): every
 * count and leading dimension is checked to fit before the call, so an
 * oversized blob gives CT_STATUS_INVALID instead of a silently truncated
 * count. Degenerate shapes (a zero M, N or K) are handled here rather than
 * passed on, because cblas rejects a leading dimension of 0 by printing to
 * stderr, and kernels never log. Large products are shared between the
 * threads of parallel.h (each library runs one). */
#include <cblas.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef CT_HAVE_DNNL
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#endif

#include "blas.h"
#include "gemm-narrow.h"
#include "gemm-skinny.h"
#include "parallel.h"
#include "streaming.h"

/* The largest count cblas accepts; a 64-bit-integer OpenBLAS takes more. */
#define CT_BLASINT_MAX \
  ((int64_t) (sizeof (blasint) >= sizeof (int64_t) ? INT64_MAX : INT_MAX))

static inline int
fits_blasint (int64_t value)
{
  return value >= 0 && value <= CT_BLASINT_MAX;
}

/* Counts of the non-BLAS loops: anything whose bytes fit in size_t. */
static inline int
fits_bytes (int64_t n)
{
  return n >= 0 && (uint64_t) n <= SIZE_MAX / sizeof (float);
}

/* Starts the pool (parallel.h) before OpenBLAS's first call, which sets
 * OpenBLAS to one thread: otherwise OpenBLAS would start its own threads
 * for the calls made before the pool's first job. */
static inline void
one_runtime (void)
{
  (void) ct_cpu_num_threads ();
}

static inline int
valid_transpose (CtTranspose trans)
{
  return trans == CT_NO_TRANS || trans == CT_TRANS;
}

static inline enum CBLAS_TRANSPOSE
to_cblas (CtTranspose trans)
{
  return trans == CT_TRANS ? CblasTrans : CblasNoTrans;
}

/* y = beta * y with BLAS semantics: beta 0 overwrites, even NaNs. */
static void
scale_in_place (int64_t n, float beta, float *y)
{
  if (beta == 0.0f)
    memset (y, 0, (size_t) n * sizeof (float));
  else if (beta != 1.0f)
    for (int64_t i = 0; i < n; i++)
      y[i] *= beta;
}

/* Products of at least this many multiply-adds are shared between the
 * pool's threads (well above the cost of handing them over); blocks are at
 * least SPLIT_GRAIN rows or columns. */
#define PARALLEL_MNK ((int64_t) 1 << 21)
#define SPLIT_GRAIN 32

typedef struct {
  CtTranspose trans_a, trans_b;
  int64_t m, n, k;
  float alpha;
  const float *a, *b;
  float beta;
  float *c;
} GemmJob;

#ifdef CT_HAVE_DNNL
/* CT_GEMM=openblas runs the products on OpenBLAS even where oneDNN is
 * built, for measuring the two. */
static int
use_dnnl_sgemm (void)
{
  static atomic_int use = -1;
  int u = atomic_load (&use);

  if (u < 0)
    {
      const char *env = getenv ("CT_GEMM");

      u = !(env != NULL && strcmp (env, "openblas") == 0);
      atomic_store (&use, u);
    }
  return u;
}
#endif

int
ct_cpu_gemm_uses_dnnl (void)
{
#ifdef CT_HAVE_DNNL
  return use_dnnl_sgemm ();
#else
  return 0;
#endif
}

/* Rows [M0, M1) and columns [N0, N1) of C, with the whole product's
 * leading dimensions (row-major, as Caffe derives them). */
static void
gemm_block (const GemmJob *j, int64_t m0, int64_t m1, int64_t n0, int64_t n1)
{
  blasint lda = (blasint) (j->trans_a == CT_NO_TRANS ? j->k : j->m);
  blasint ldb = (blasint) (j->trans_b == CT_NO_TRANS ? j->n : j->k);
  const float *a = j->a + (j->trans_a == CT_NO_TRANS ? m0 * j->k : m0);
  const float *b = j->b + (j->trans_b == CT_NO_TRANS ? n0 : n0 * j->k);

  if (m1 <= m0 || n1 <= n0)
    return;
#ifdef CT_HAVE_DNNL
  if (use_dnnl_sgemm ())
    {
      /* One OpenMP thread: the pool already shares the product out. */
      if (omp_get_max_threads () != 1)
        omp_set_num_threads (1);
      if (dnnl_sgemm (j->trans_a == CT_TRANS ? 'T' : 'N', j->trans_b == CT_TRANS ? 'T' : 'N',
                      m1 - m0, n1 - n0, j->k, j->alpha, a, lda, b, ldb, j->beta,
                      j->c + m0 * j->n + n0, j->n)
          == dnnl_success)
        return;
      /* oneDNN could not get its packing buffers: OpenBLAS needs none.
       * Only then does a oneDNN build's product come from OpenBLAS. */
    }
#endif
  cblas_sgemm (CblasRowMajor, to_cblas (j->trans_a), to_cblas (j->trans_b),
               (blasint) (m1 - m0), (blasint) (n1 - n0), (blasint) j->k,
               j->alpha, a, lda, b, ldb, j->beta, j->c + m0 * j->n + n0, (blasint) j->n);
}

/* One block per thread (at least SPLIT_GRAIN wide): each block packs the
 * shared operand again, so more, smaller blocks than threads cost more
 * than they balance (LeNet's ip1 at batch 64). */
static int
gemm_chunks (int64_t n)
{
  int threads = ct_cpu_num_threads ();
  int64_t most = n / SPLIT_GRAIN;

  return most < threads ? (int) most : threads;
}

static void
gemm_columns (int64_t begin, int64_t end, int chunk, void *data)
{
  const GemmJob *j = data;

  gemm_block (j, 0, j->m, begin, end);
}

static void
gemm_rows (int64_t begin, int64_t end, int chunk, void *data)
{
  const GemmJob *j = data;

  gemm_block (j, begin, end, 0, j->n);
}

CtStatus
ct_cpu_gemm (CtTranspose trans_a, CtTranspose trans_b,
             int64_t m, int64_t n, int64_t k,
             float alpha, const float *a, const float *b,
             float beta, float *c)
{
  one_runtime ();
  if (!valid_transpose (trans_a) || !valid_transpose (trans_b)
      || !fits_blasint (m) || !fits_blasint (n) || !fits_blasint (k))
    return CT_STATUS_INVALID;
  if (m == 0 || n == 0)
    return CT_STATUS_OK;
  if (k == 0)
    {
      /* An empty sum: C = beta * C. */
      if (m > INT64_MAX / n || !fits_bytes (m * n))
        return CT_STATUS_INVALID;
      scale_in_place (m * n, beta, c);
      return CT_STATUS_OK;
    }

  if (ct_cpu_gemm_skinny (trans_a, trans_b, m, n, k, alpha, a, b, beta, c)
      || ct_cpu_gemm_narrow (trans_a, trans_b, m, n, k, alpha, a, b, beta, c))
    return CT_STATUS_OK;

  GemmJob job = { trans_a, trans_b, m, n, k, alpha, a, b, beta, c };

  /* Large products are cut into column blocks (row blocks when C is
   * narrow), one per thread of the pool (parallel.h); the blocks depend
   * only on the shape and the thread count, so results repeat. */
  if (m * n > PARALLEL_MNK / k && n >= 2 * SPLIT_GRAIN)
    ct_cpu_parallel_for_chunks (n, gemm_chunks (n), gemm_columns, &job);
  else if (m * n > PARALLEL_MNK / k && m >= 2 * SPLIT_GRAIN)
    ct_cpu_parallel_for_chunks (m, gemm_chunks (m), gemm_rows, &job);
  else
    gemm_block (&job, 0, m, 0, n);
  return CT_STATUS_OK;
}

/* The arguments of an element-wise function, for the pool's chunks:
 * blobs of more than CT_PARALLEL_ELEMENT_GRAIN elements are shared between
 * its threads. Each element's result is the same whoever computes it. */
typedef struct {
  float alpha;
  const float *a, *b;
  float *y;
} Elements;

static void
copy_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Elements *e = data;

  memcpy (e->y + begin, e->a + begin, (size_t) (end - begin) * sizeof (float));
}

CtStatus
ct_cpu_copy (int64_t n, const float *x, float *y)
{
  Elements e = { 0.0f, x, NULL, y };

  if (!fits_bytes (n))
    return CT_STATUS_INVALID;
  /* Copying an array onto itself is a no-op that memcpy does not allow. */
  if (n > 0 && x != y)
    ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, copy_range, &e);
  return CT_STATUS_OK;
}

static void
set_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Elements *e = data;

  const float alpha = e->alpha;
  float *y = e->y;

  if (alpha == 0.0f)
    memset (y + begin, 0, (size_t) (end - begin) * sizeof (float));
  else
    for (int64_t i = begin; i < end; i++)
      y[i] = alpha;
}

CtStatus
ct_cpu_set (int64_t n, float alpha, float *y)
{
  Elements e = { alpha, NULL, NULL, y };

  if (!fits_bytes (n))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, set_range, &e);
  return CT_STATUS_OK;
}

static void
scale_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Elements *e = data;
  const float alpha = e->alpha;
  const float *a = e->a;
  float *y = e->y;

  for (int64_t i = begin; i < end; i++)
    y[i] = alpha * a[i];
}

CtStatus
ct_cpu_scale (int64_t n, float alpha, const float *x, float *y)
{
  Elements e = { alpha, x, NULL, y };

  if (!fits_bytes (n))
    return CT_STATUS_INVALID;
  ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, scale_range, &e);
  return CT_STATUS_OK;
}

/* The element-wise binary ops share one shape; a macro keeps the four
 * definitions identical but for the operator. The loops read the pointers
 * into locals: the build has -fno-strict-aliasing, under which every store
 * to Y could change *E, and the loop would reload them and stay scalar. */
#define CT_DEFINE_BINARY(name, OP)                                        \
  static void                                                             \
  name##_range (int64_t begin, int64_t end, int chunk, void *data)        \
  {                                                                       \
    const Elements *e = data;                                             \
    const float *a = e->a, *b = e->b;                                     \
    float *y = e->y;                                                      \
                                                                          \
    for (int64_t i = begin; i < end; i++)                                 \
      y[i] = a[i] OP b[i];                                                \
  }                                                                       \
                                                                          \
  CtStatus                                                                \
  name (int64_t n, const float *a, const float *b, float *y)              \
  {                                                                       \
    Elements e = { 0.0f, a, b, y };                                       \
                                                                          \
    if (!fits_bytes (n))                                                  \
      return CT_STATUS_INVALID;                                           \
    ct_cpu_parallel_for (n, CT_PARALLEL_ELEMENT_GRAIN, name##_range, &e); \
    return CT_STATUS_OK;                                                  \
  }

CT_DEFINE_BINARY (ct_cpu_add, +)
CT_DEFINE_BINARY (ct_cpu_sub, -)
CT_DEFINE_BINARY (ct_cpu_mul, *)
CT_DEFINE_BINARY (ct_cpu_div, /)

typedef struct {
  int n;
  const float *const *x;
  float *y;
} Sum;

/* Blocks of this many floats stay in the L1 cache while the inputs are
 * added into them one after another; blocks that fill whole cache lines
 * are then streamed out (cpu/streaming.h): GoogLeNet's splits sum four
 * diffs of up to 8 MB in the backward pass. */
#define SUM_BLOCK 1024

static void
sum_range (int64_t begin, int64_t end, int chunk, void *data)
{
  const Sum *s = data;
  const int n = s->n;
  const float *const *x = s->x;
  float *y = s->y;

  for (int64_t b0 = begin; b0 < end; b0 += SUM_BLOCK)
    {
      const int64_t b1 = b0 + SUM_BLOCK < end ? b0 + SUM_BLOCK : end, len = b1 - b0;
      const float *x0 = x[0] + b0, *x1 = x[1] + b0;
      float block[SUM_BLOCK];
      float *out = ct_stream_fits (y + b0, len) ? block : y + b0;

      for (int64_t i = 0; i < len; i++)
        out[i] = x0[i] + x1[i];
      for (int k = 2; k < n; k++)
        {
          const float *xk = x[k] + b0;

          for (int64_t i = 0; i < len; i++)
            out[i] = out[i] + xk[i];
        }
      if (out == block)
        ct_stream_out (y + b0, block, len);
    }
  ct_stream_fence ();
}

CtStatus
ct_cpu_sum (int64_t count, int n, const float *const *x, float *y)
{
  Sum s = { n, x, y };

  if (!fits_bytes (count) || n < 1)
    return CT_STATUS_INVALID;
  if (n == 1)
    return ct_cpu_copy (count, x[0], y);
  ct_cpu_parallel_for (count, CT_PARALLEL_ELEMENT_GRAIN, sum_range, &s);
  return CT_STATUS_OK;
}
