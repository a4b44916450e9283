/* cpu/reference/blas.c: the products and vector routines of blas.h, and
 * the SGD step of solver-update.h, one element at a time (reference.h). */
#include <math.h>

#include "reference.h"

static double
op_at (const float *m, CtTranspose trans, int64_t rows, int64_t cols, int64_t i, int64_t j)
{
  /* op(M) is ROWS x COLS; M is stored COLS x ROWS when transposed */
  return trans == CT_TRANS ? (double) m[j * rows + i] : (double) m[i * cols + j];
}

void
ct_ref_gemm (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n, int64_t k,
             float alpha, const float *a, const float *b, float beta, float *c)
{
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      {
        double sum = 0.0;

        for (int64_t p = 0; p < k; p++)
          sum += op_at (a, trans_a, m, k, i, p) * op_at (b, trans_b, k, n, p, j);
        sum *= alpha;
        if (beta != 0.0f)
          sum += (double) beta * c[i * n + j];
        c[i * n + j] = (float) sum;
      }
}

void
ct_ref_gemm_magnitude (CtTranspose trans_a, CtTranspose trans_b, int64_t m, int64_t n,
                       int64_t k, float alpha, const float *a, const float *b, double *out)
{
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      {
        double sum = 0.0;

        for (int64_t p = 0; p < k; p++)
          sum += fabs (op_at (a, trans_a, m, k, i, p) * op_at (b, trans_b, k, n, p, j));
        out[i * n + j] = fabs ((double) alpha) * sum;
      }
}

void
ct_ref_axpby (int64_t n, float alpha, const float *x, float beta, float *y)
{
  for (int64_t i = 0; i < n; i++)
    y[i] = fmaf (alpha, x[i], beta * y[i]);
}

float
ct_ref_dot (int64_t n, const float *x, const float *y)
{
  double lane[8] = { 0 };

  for (int64_t i = 0; i < n; i++)
    lane[i % 8] += (double) x[i] * (double) y[i];
  return (float) (((lane[0] + lane[4]) + (lane[2] + lane[6]))
                  + ((lane[1] + lane[5]) + (lane[3] + lane[7])));
}

float
ct_ref_asum (int64_t n, const float *x)
{
  double lane[8] = { 0 };

  for (int64_t i = 0; i < n; i++)
    lane[i % 8] += fabs ((double) x[i]);
  return (float) (((lane[0] + lane[4]) + (lane[2] + lane[6]))
                  + ((lane[1] + lane[5]) + (lane[3] + lane[7])));
}

void
ct_ref_sgd_step (int64_t n, float momentum, float rate, float decay, float *diff,
                 float *history, float *data)
{
  for (int64_t i = 0; i < n; i++)
    {
      diff[i] = fmaf (decay, data[i], diff[i]);
      history[i] = rate * diff[i] + momentum * history[i];
      diff[i] = history[i];
      data[i] = data[i] - diff[i];
    }
}
