/* cpu/recurrent.c: the CPU side of recurrent.h.
 *
 * The activations are computed as Caffe's LSTMUnit computes them: the
 * sigmoid as 1 / (1 + exp (-x)) in double, and tanh as 2 sigmoid (2x) - 1,
 * so that cell states agree with Caffe's to float rounding. The backward
 * recomputes the gates rather than keeping them, as Caffe does. */
#include <math.h>
#include <stdint.h>

#include "recurrent.h"

static inline float
gate_sigmoid (float x)
{
  return (float) (1.0 / (1.0 + exp (-(double) x)));
}

static inline float
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

typedef struct {
  float i, f, o, g;
} Gates;

static inline Gates
gates_at (const float *x, float cont, int64_t hidden, int64_t d)
{
  Gates gates;

  gates.i = gate_sigmoid (x[d]);
  gates.f = cont == 0.0f ? 0.0f : cont * gate_sigmoid (x[hidden + d]);
  gates.o = gate_sigmoid (x[2 * hidden + d]);
  gates.g = gate_tanh (x[3 * hidden + d]);
  return gates;
}

CtStatus
ct_cpu_lstm_unit_forward (int64_t num, int64_t hidden, const float *c_prev,
                          const float *x, const float *cont, float *c, float *h)
{
  if (!valid_sizes (num, hidden))
    return CT_STATUS_INVALID;
  for (int64_t n = 0; n < num; n++)
    {
      const float *xn = x + n * 4 * hidden;

      for (int64_t d = 0; d < hidden; d++)
        {
          const int64_t k = n * hidden + d;
          Gates gates = gates_at (xn, cont[n], hidden, d);
          float cell = gates.f * c_prev[k] + gates.i * gates.g;

          c[k] = cell;
          h[k] = gates.o * gate_tanh (cell);
        }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_lstm_unit_backward (int64_t num, int64_t hidden, const float *c_prev,
                           const float *x, const float *cont, const float *c,
                           const float *c_diff, const float *h_diff,
                           float *c_prev_diff, float *x_diff)
{
  if (!valid_sizes (num, hidden))
    return CT_STATUS_INVALID;
  for (int64_t n = 0; n < num; n++)
    {
      const float *xn = x + n * 4 * hidden;
      float *dx = x_diff + n * 4 * hidden;

      for (int64_t d = 0; d < hidden; d++)
        {
          const int64_t k = n * hidden + d;
          Gates gates = gates_at (xn, cont[n], hidden, d);
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
  return CT_STATUS_OK;
}
