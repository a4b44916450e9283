/* cuda/stub-recurrent.c: the ct_cuda_ twins of recurrent.h for builds without
 * CUDA, each answering CT_STATUS_NO_DEVICE (see cuda/stub.c). */
#include <stddef.h>

#include "recurrent.h"

CtStatus
ct_cuda_lstm_unit_forward (int64_t num, int64_t hidden, const float *c_prev, const float *x,
                           const float *cont, float *c, float *h)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_lstm_unit_backward (int64_t num, int64_t hidden, const float *c_prev, const float *x,
                            const float *cont, const float *c, const float *c_diff,
                            const float *h_diff, float *c_prev_diff, float *x_diff)
{
  return CT_STATUS_NO_DEVICE;
}
