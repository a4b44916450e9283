/* cpu/conv-dnnl.h: the convolutions of conv.h on oneDNN's direct
 * convolution, for cpu/conv.c to call when the build has oneDNN
 * (CT_HAVE_DNNL). Internal to the kernels. */
#pragma once

#include <stddef.h>

#include "conv.h"

/* The status a pass answers when oneDNN does not take this shape or call:
 * the caller then runs its own path over the same arguments. */
#define CT_DNNL_DECLINED ((CtStatus) -1)

/* The passes, for ct_dnnl_conv_takes. */
enum { CT_DNNL_FORWARD, CT_DNNL_BACKWARD_DATA, CT_DNNL_BACKWARD_WEIGHTS };

/* Whether oneDNN runs PASS over S: the shape is one it takes, and one where
 * it beats im2col + BLAS (cpu/conv-dnnl.c says which, PERFORMANCE.md by
 * how much). */
int ct_dnnl_conv_takes (const CtConvShape *s, int pass);

/* With FORCED, ct_dnnl_conv_takes every pass of every shape oneDNN can
 * run (CT_CONV_BACKEND_DNNL). */
void ct_dnnl_conv_set_forced (int forced);

/* The workspace floats the oneDNN passes of the calls in PASSES
 * (CtConvPass bits) over S need; 0 when oneDNN takes none of them (then
 * the caller's own path runs them). */
size_t ct_dnnl_conv_workspace_floats (const CtConvShape *s, unsigned passes);

CtStatus ct_dnnl_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                               const float *bias, float *output, float *workspace);

/* The backward passes of conv.h that ct_dnnl_conv_takes; the caller runs
 * the others (pass NULL for those). Also CT_DNNL_DECLINED before it has
 * written anything the caller's path would not write again. */
CtStatus ct_dnnl_conv_backward (const CtConvShape *s, const float *input,
                                const float *output_diff, const float *weights,
                                float *weight_diff, float *bias_diff, float *input_diff,
                                float *workspace);
