/* conv.h: a batch of convolutions, as Caffe's Convolution layer computes
 * them (groups, padding, stride, dilation, any number of spatial axes), and
 * the transposed passes that Deconvolution is made of.
 *
 * A CtConvShape describes the convolution itself, whichever layer uses it:
 * NUM images of IN_CHANNELS x in_dims floats (the INPUT) give NUM images of
 * OUT_CHANNELS x out_dims floats (the OUTPUT), each image contiguous, the
 * images one after the other. The weights are OUT_CHANNELS x (IN_CHANNELS /
 * GROUP) x kernel floats, the bias OUT_CHANNELS floats. The caller computes
 * out_dims (Caffe's rule, see im2col.h); a shape whose numbers are out of
 * range gives CT_STATUS_INVALID and writes nothing.
 *
 * The products run over im2col column matrices, group by group; images are
 * shared between the threads of the pool (parallel.h), and small images are
 * multiplied a few at a time, their column matrices side by side. Parameter
 * gradients are summed per chunk of images and added in a fixed order, so
 * results repeat for a given thread count.
 *
 * Builds with oneDNN (the `dnnl` option) run 2-D shapes on its direct
 * convolution (cpu/conv-dnnl.c); other shapes, and every shape when the
 * backend is set to CT_CONV_BACKEND_IM2COL, take the im2col path. The two
 * agree to rounding (oneDNN sums in another order).
 *
 * Kernels never allocate: the caller asks ct_cpu_conv_workspace_floats for
 * the scratch a shape needs (for every pass, or ct_cpu_conv_workspace_
 * floats_for for some) and passes that many floats as
 * WORKSPACE. The CUDA twins (ct_cuda_conv_*) take the same arguments, with
 * device pointers. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "im2col.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t num;                                /* images */
  int64_t in_channels, out_channels, group;   /* both channel counts divide by group */
  int num_spatial_axes;                       /* 0 .. CT_IM2COL_MAX_AXES */
  int64_t in_dims[CT_IM2COL_MAX_AXES];
  int64_t out_dims[CT_IM2COL_MAX_AXES];
  int64_t kernel[CT_IM2COL_MAX_AXES];
  int64_t pad[CT_IM2COL_MAX_AXES];
  int64_t stride[CT_IM2COL_MAX_AXES];
  int64_t dilation[CT_IM2COL_MAX_AXES];
} CtConvShape;

/* Whether oneDNN runs convolutions (where it takes the shape): built with
 * it, and the backend is not CT_CONV_BACKEND_IM2COL. */
int ct_cpu_conv_uses_dnnl (void);

/* Whether this build has oneDNN. */
int ct_cpu_conv_have_dnnl (void);

/* The floats of WORKSPACE that every pass over S needs, whichever backend
 * runs it (0 for an invalid shape); it depends on the pool's thread count,
 * fixed after its first use. */
size_t ct_cpu_conv_workspace_floats (const CtConvShape *s);

/* The calls a workspace is for: ct_cpu_conv_forward, ct_cpu_conv_backward. */
typedef enum {
  CT_CONV_PASS_FORWARD = 1 << 0,
  CT_CONV_PASS_BACKWARD = 1 << 1,
} CtConvPass;

/* The floats of WORKSPACE that the calls in PASSES (CtConvPass bits) need:
 * a net that never runs a layer's backward pass asks for its forward
 * pass's alone, often a fraction. */
size_t ct_cpu_conv_workspace_floats_for (const CtConvShape *s, unsigned passes);

/* OUTPUT = conv (INPUT, WEIGHTS) + BIAS (BIAS may be NULL). The bias is
 * added after the product, one rounding per element, as Caffe adds it. */
CtStatus ct_cpu_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                              const float *bias, float *output, float *workspace);

/* The backward passes in one sweep over the images, each one only when its
 * output is not NULL:
 *   WEIGHT_DIFF += the weight gradient (reads INPUT and OUTPUT_DIFF),
 *   BIAS_DIFF += the sum of OUTPUT_DIFF over images and positions,
 *   INPUT_DIFF = the input gradient (reads WEIGHTS and OUTPUT_DIFF),
 * INPUT and WEIGHTS may be NULL when nothing reads them. */
CtStatus ct_cpu_conv_backward (const CtConvShape *s, const float *input,
                               const float *output_diff, const float *weights,
                               float *weight_diff, float *bias_diff, float *input_diff,
                               float *workspace);

/* Deconvolution's bias, on images of CHANNELS x SPATIAL floats: adds
 * bias[c] to every position of channel c of NUM images, and its gradient
 * (BIAS_DIFF += the sum of DIFF over images and positions). */
CtStatus ct_cpu_conv_bias_forward (int64_t num, int64_t channels, int64_t spatial,
                                   const float *bias, float *data);
CtStatus ct_cpu_conv_bias_backward (int64_t num, int64_t channels, int64_t spatial,
                                    const float *diff, float *bias_diff);

/* The CUDA twins: the same arguments, device pointers (cuda/conv.cu).
 * 2-D shapes run on cuDNN where the build has it (the `cudnn` option; the
 * library is opened at run time) and cuDNN has a deterministic FP32
 * algorithm for every pass; the rest on im2col + cuBLAS. Results repeat
 * from run to run. The workspace asked for is what the backend current at
 * the time needs (cuDNN's own, or the column matrices): query it and run
 * the passes under the same backend. */
size_t ct_cuda_conv_workspace_floats (const CtConvShape *s);
CtStatus ct_cuda_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                               const float *bias, float *output, float *workspace);
CtStatus ct_cuda_conv_backward (const CtConvShape *s, const float *input,
                                const float *output_diff, const float *weights,
                                float *weight_diff, float *bias_diff, float *input_diff,
                                float *workspace);
CtStatus ct_cuda_conv_bias_forward (int64_t num, int64_t channels, int64_t spatial,
                                    const float *bias, float *data);
CtStatus ct_cuda_conv_bias_backward (int64_t num, int64_t channels, int64_t spatial,
                                     const float *diff, float *bias_diff);

/* Whether the GPU convolutions can use cuDNN: the build saw cudnn.h and
 * libcudnn.so of that major version loads (it is opened at run time). */
int ct_cuda_conv_have_cudnn (void);

/* Whether the GPU runs S on cuDNN under the current backend (0 without
 * cuDNN, without a GPU, or for a shape cuDNN declined). */
int ct_cuda_conv_uses_cudnn (const CtConvShape *s);

#ifdef __cplusplus
}
#endif
