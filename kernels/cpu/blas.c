/* cpu/blas.c: the CPU side of blas.h, on OpenBLAS's cblas.
 *
 * Our counts are int64_t while the BLAS library takes `blasint` (int in
 * Debian's build): every count and leading dimension is checked to fit before
 * the call, so an oversized blob gives CT_STATUS_INVALID instead of a
 * silently truncated count. Degenerate shapes (a zero M, N or K) are handled
 * here rather than passed on, because cblas rejects a leading dimension of 0
 * by printing to stderr, and kernels never log. */
#include <cblas.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "blas.h"

/* The largest count cblas accepts; a 64-bit-integer OpenBLAS takes more. */
#define CT_BLASINT_MAX \
  ((int64_t) (sizeof (blasint) >= sizeof (int64_t) ? INT64_MAX : INT_MAX))

static inline int
fits_blasint (int64_t value)
{
  return value >= 0 && value <= CT_BLASINT_MAX;
}

static inline int
fits_increment (int64_t inc)
{
  return inc >= -CT_BLASINT_MAX && inc <= CT_BLASINT_MAX;
}

/* Counts of the non-BLAS loops: anything whose bytes fit in size_t. */
static inline int
fits_bytes (int64_t n)
{
  return n >= 0 && (uint64_t) n <= SIZE_MAX / sizeof (float);
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

CtStatus
ct_cpu_gemm (CtTranspose trans_a, CtTranspose trans_b,
             int64_t m, int64_t n, int64_t k,
             float alpha, const float *a, const float *b,
             float beta, float *c)
{
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

  /* Leading dimensions of row-major storage, as Caffe derives them. */
  blasint lda = (blasint) (trans_a == CT_NO_TRANS ? k : m);
  blasint ldb = (blasint) (trans_b == CT_NO_TRANS ? n : k);
  cblas_sgemm (CblasRowMajor, to_cblas (trans_a), to_cblas (trans_b),
               (blasint) m, (blasint) n, (blasint) k,
               alpha, a, lda, b, ldb, beta, c, (blasint) n);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_gemv (CtTranspose trans_a, int64_t m, int64_t n,
             float alpha, const float *a, const float *x,
             float beta, float *y)
{
  if (!valid_transpose (trans_a) || !fits_blasint (m) || !fits_blasint (n))
    return CT_STATUS_INVALID;

  int64_t y_len = trans_a == CT_NO_TRANS ? m : n;
  int64_t x_len = trans_a == CT_NO_TRANS ? n : m;
  if (y_len == 0)
    return CT_STATUS_OK;
  /* BLAS versions differ on whether beta 0 clears NaNs in y; clearing it
   * here (O(y_len) next to O(m n)) gives one answer everywhere. */
  if (beta == 0.0f || x_len == 0)
    scale_in_place (y_len, beta, y);
  if (x_len == 0)
    return CT_STATUS_OK;

  cblas_sgemv (CblasRowMajor, to_cblas (trans_a), (blasint) m, (blasint) n,
               alpha, a, (blasint) n, x, 1, beta, y, 1);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_axpy (int64_t n, float alpha, const float *x, float *y)
{
  if (!fits_blasint (n))
    return CT_STATUS_INVALID;
  if (n > 0)
    cblas_saxpy ((blasint) n, alpha, x, 1, y, 1);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_axpby (int64_t n, float alpha, const float *x, float beta, float *y)
{
  if (!fits_blasint (n))
    return CT_STATUS_INVALID;
  if (n > 0)
    cblas_saxpby ((blasint) n, alpha, x, 1, beta, y, 1);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_scal (int64_t n, float alpha, float *x)
{
  if (!fits_blasint (n))
    return CT_STATUS_INVALID;
  if (n > 0)
    cblas_sscal ((blasint) n, alpha, x, 1);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_strided_dot (int64_t n, const float *x, int64_t incx,
                    const float *y, int64_t incy, float *out)
{
  if (!fits_blasint (n) || !fits_increment (incx) || !fits_increment (incy))
    return CT_STATUS_INVALID;
  *out = n > 0 ? cblas_sdot ((blasint) n, x, (blasint) incx, y, (blasint) incy) : 0.0f;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_dot (int64_t n, const float *x, const float *y, float *out)
{
  return ct_cpu_strided_dot (n, x, 1, y, 1, out);
}

CtStatus
ct_cpu_asum (int64_t n, const float *x, float *out)
{
  if (!fits_blasint (n))
    return CT_STATUS_INVALID;
  *out = n > 0 ? cblas_sasum ((blasint) n, x, 1) : 0.0f;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_copy (int64_t n, const float *x, float *y)
{
  if (!fits_bytes (n))
    return CT_STATUS_INVALID;
  /* Copying an array onto itself is a no-op that memcpy does not allow. */
  if (n > 0 && x != y)
    memcpy (y, x, (size_t) n * sizeof (float));
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_set (int64_t n, float alpha, float *y)
{
  if (!fits_bytes (n))
    return CT_STATUS_INVALID;
  if (n == 0)
    return CT_STATUS_OK;
  if (alpha == 0.0f)
    memset (y, 0, (size_t) n * sizeof (float));
  else
    for (int64_t i = 0; i < n; i++)
      y[i] = alpha;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_scale (int64_t n, float alpha, const float *x, float *y)
{
  if (!fits_bytes (n))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    y[i] = alpha * x[i];
  return CT_STATUS_OK;
}

/* The element-wise binary ops share one shape; a macro keeps the four
 * definitions identical but for the operator. */
#define CT_DEFINE_BINARY(name, OP)                                        \
  CtStatus                                                                \
  name (int64_t n, const float *a, const float *b, float *y)              \
  {                                                                       \
    if (!fits_bytes (n))                                                  \
      return CT_STATUS_INVALID;                                           \
    for (int64_t i = 0; i < n; i++)                                       \
      y[i] = a[i] OP b[i];                                                \
    return CT_STATUS_OK;                                                  \
  }

CT_DEFINE_BINARY (ct_cpu_add, +)
CT_DEFINE_BINARY (ct_cpu_sub, -)
CT_DEFINE_BINARY (ct_cpu_mul, *)
CT_DEFINE_BINARY (ct_cpu_div, /)
