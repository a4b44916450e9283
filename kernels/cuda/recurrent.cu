/* recurrent.cu: the CUDA side of recurrent.h, LSTMUnit's cell step: one
 * thread per cell and unit. The gates are computed as the CPU twin computes
 * them (the sigmoid in double, tanh as 2 sigmoid (2x) - 1), so that the
 * two agree to float rounding. */
#include <cstdint>

#include "cuda-private.cuh"
#include "recurrent.h"

__device__ static inline float
gate_sigmoid (float x)
{
  return (float) (1.0 / (1.0 + exp (-(double) x)));
}

__device__ static inline float
gate_tanh (float x)
{
  return (float) (2.0 / (1.0 + exp (-2.0 * (double) x)) - 1.0);
}

static inline int
valid_sizes (int64_t num, int64_t hidden)
{
  return num >= 0 && hidden >= 0 && hidden <= INT64_MAX / 4
         && (hidden == 0 || num <= INT64_MAX / (4 * hidden));
}

struct Gates
{
  float i, f, o, g;
};

__device__ static inline Gates
gates_at (const float *x, float cont, int64_t hidden, int64_t d)
{
  Gates gates;

  gates.i = gate_sigmoid (x[d]);
  gates.f = cont == 0.0f ? 0.0f : cont * gate_sigmoid (x[hidden + d]);
  gates.o = gate_sigmoid (x[2 * hidden + d]);
  gates.g = gate_tanh (x[3 * hidden + d]);
  return gates;
}

__global__ static void
lstm_unit_forward_kernel (int64_t n, int64_t hidden, const float *c_prev, const float *x,
                          const float *cont, float *c, float *h)
{
  CT_CUDA_LOOP (k, n)
    {
      const int64_t num = k / hidden, d = k - num * hidden;
      Gates gates = gates_at (x + num * 4 * hidden, cont[num], hidden, d);
      float cell = gates.f * c_prev[k] + gates.i * gates.g;

      c[k] = cell;
      h[k] = gates.o * gate_tanh (cell);
    }
}

__global__ static void
lstm_unit_backward_kernel (int64_t n, int64_t hidden, const float *c_prev, const float *x,
                           const float *cont, const float *c, const float *c_diff,
                           const float *h_diff, float *c_prev_diff, float *x_diff)
{
  CT_CUDA_LOOP (k, n)
    {
      const int64_t num = k / hidden, d = k - num * hidden;
      Gates gates = gates_at (x + num * 4 * hidden, cont[num], hidden, d);
      float *dx = x_diff + num * 4 * hidden;
      float tanh_c = gate_tanh (c[k]);
      /* Everything that reaches c: its own diff and h's through tanh. */
      float dc = c_diff[k] + h_diff[k] * gates.o * (1.0f - tanh_c * tanh_c);

      c_prev_diff[k] = dc * gates.f;
      dx[d] = dc * gates.g * gates.i * (1.0f - gates.i);
      dx[hidden + d] = dc * c_prev[k] * gates.f * (1.0f - gates.f);
      dx[2 * hidden + d] = h_diff[k] * tanh_c * gates.o * (1.0f - gates.o);
      dx[3 * hidden + d] = dc * gates.i * (1.0f - gates.g * gates.g);
    }
}

extern "C" CtStatus
ct_cuda_lstm_unit_forward (int64_t num, int64_t hidden, const float *c_prev, const float *x,
                           const float *cont, float *c, float *h)
{
  if (!valid_sizes (num, hidden))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (num * hidden == 0)
    return CT_STATUS_OK;
  lstm_unit_forward_kernel<<<ct_cuda_blocks (num * hidden), CT_CUDA_THREADS>>> (
      num * hidden, hidden, c_prev, x, cont, c, h);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_lstm_unit_backward (int64_t num, int64_t hidden, const float *c_prev, const float *x,
                            const float *cont, const float *c, const float *c_diff,
                            const float *h_diff, float *c_prev_diff, float *x_diff)
{
  if (!valid_sizes (num, hidden))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (num * hidden == 0)
    return CT_STATUS_OK;
  lstm_unit_backward_kernel<<<ct_cuda_blocks (num * hidden), CT_CUDA_THREADS>>> (
      num * hidden, hidden, c_prev, x, cont, c, c_diff, h_diff, c_prev_diff, x_diff);
  return ct_cuda_launch_status ();
}
