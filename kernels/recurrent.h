/* recurrent.h: the arithmetic of the Recurrent family's cell step, Caffe's
 * LSTMUnit: one time step of NUM independent LSTM cells of HIDDEN units.
 *
 * The gate pre-activations X hold 4 * HIDDEN values per cell in the order
 * input, forget, output, candidate; CONT (one per cell) is the sequence
 * continuation indicator: 0 starts a new sequence, which drops the previous
 * cell state (the forget gate becomes cont * sigmoid). Counts are int64_t;
 * negative counts give CT_STATUS_INVALID without touching memory. The
 * ct_cuda_ twins (cuda/recurrent.cu) take the same arguments in device
 * memory. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* c = f * c_prev + i * g, h = o * tanh (c), per cell and unit. */
CtStatus ct_cpu_lstm_unit_forward (int64_t num, int64_t hidden, const float *c_prev,
                                   const float *x, const float *cont, float *c, float *h);
CtStatus ct_cuda_lstm_unit_forward (int64_t num, int64_t hidden, const float *c_prev,
                                    const float *x, const float *cont, float *c, float *h);

/* The diffs of C_PREV and X from those of C and H (C_DIFF, H_DIFF), the
 * forward's inputs and its output C. Both bottom diffs are written. */
CtStatus ct_cpu_lstm_unit_backward (int64_t num, int64_t hidden, const float *c_prev,
                                    const float *x, const float *cont, const float *c,
                                    const float *c_diff, const float *h_diff,
                                    float *c_prev_diff, float *x_diff);
CtStatus ct_cuda_lstm_unit_backward (int64_t num, int64_t hidden, const float *c_prev,
                                     const float *x, const float *cont, const float *c,
                                     const float *c_diff, const float *h_diff,
                                     float *c_prev_diff, float *x_diff);

#ifdef __cplusplus
}
#endif
