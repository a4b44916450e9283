/* plain-neurons.c: the element-wise neurons without parameters, which differ
 * only in their kernels (kernels/neuron.h):
 *
 * - AbsVal, y = |x|. Backward needs the bottom's signs, which running in
 *   place would erase, so like Caffe it refuses to run in place.
 * - BNLL (binomial normal log likelihood), y = ln(1 + exp(x)), the softplus.
 *   Backward reads the bottom; run in place, it reads the top instead, as
 *   Caffe's would.
 * - Sigmoid, y = 1 / (1 + exp(-x)), evaluated as 0.5 tanh(x / 2) + 0.5 as
 *   Caffe does. Backward uses only the top, so it runs in place.
 * - TanH, the hyperbolic tangent. Backward uses only the top (1 - y^2), so
 *   it runs in place. */
#include <glib/gi18n-lib.h>

#include "neuron.h"
#include "neuron-private.h"

static const CtNeuronKernels absval_kernels = {
  .forward = ct_cpu_absval_forward,
  .backward = ct_cpu_absval_backward,
  .forward_gpu = ct_cuda_absval_forward,
  .backward_gpu = ct_cuda_absval_backward,
  .backward_reads_top = FALSE,
};

static const CtNeuronKernels bnll_kernels = {
  .forward = ct_cpu_bnll_forward,
  .backward = ct_cpu_bnll_backward,
  .forward_gpu = ct_cuda_bnll_forward,
  .backward_gpu = ct_cuda_bnll_backward,
  .backward_reads_top = FALSE,
};

static const CtNeuronKernels sigmoid_kernels = {
  .forward = ct_cpu_sigmoid_forward,
  .backward = ct_cpu_sigmoid_backward,
  .forward_gpu = ct_cuda_sigmoid_forward,
  .backward_gpu = ct_cuda_sigmoid_backward,
  .backward_reads_top = TRUE,
};

static const CtNeuronKernels tanh_kernels = {
  .forward = ct_cpu_tanh_forward,
  .backward = ct_cpu_tanh_backward,
  .forward_gpu = ct_cuda_tanh_forward,
  .backward_gpu = ct_cuda_tanh_backward,
  .backward_reads_top = TRUE,
};

static const CtLayerExplanation absval_explanation = {
  .summary = N_("The absolute value of each input: negative values lose their sign, positive ones pass unchanged."),
  .formula = N_("y = |x|"),
  .parameters = N_("None."),
  .gradient = N_("The input diff is the output diff times the sign of x."),
};

CT_DEFINE_NEURON_CLASS (absval, "AbsVal", N_("Absolute value, |x|"),
                        CtLayer, ct_neuron_refuse_in_place, absval_kernels,
                        .explanation = &absval_explanation);
static const CtLayerExplanation bnll_explanation = {
  .summary = N_("Binomial normal log likelihood, also called softplus: a smooth ReLU."),
  .formula = N_("y = log(1 + exp(x))"),
  .parameters = N_("None."),
  .gradient = N_("The input diff is the output diff times σ(x), the sigmoid of the input."),
};

CT_DEFINE_NEURON_CLASS (bnll, "BNLL",
                        N_("Binomial normal log likelihood (softplus), ln(1 + exp(x))"),
                        CtLayer, NULL, bnll_kernels,
                        .explanation = &bnll_explanation);
static const CtLayerExplanation sigmoid_explanation = {
  .summary = N_("The logistic sigmoid squashes any value into (0, 1). Stacked deeply it "
                "makes gradients vanish, because its slope is at most 1/4."),
  .formula = N_("y = 1 / (1 + exp(−x))"),
  .parameters = N_("None."),
  .gradient = N_("The input diff is the output diff times y · (1 − y), at most a quarter "
                 "of it, and nearly 0 where the sigmoid is saturated."),
};

CT_DEFINE_NEURON_CLASS (sigmoid, "Sigmoid", N_("Logistic sigmoid, 1 / (1 + exp(-x))"),
                        CtLayer, NULL, sigmoid_kernels,
                        .explanation = &sigmoid_explanation);
static const CtLayerExplanation tanh_explanation = {
  .summary = N_("The hyperbolic tangent squashes any value into (−1, 1), centred on 0."),
  .formula = N_("y = tanh(x) = (exp(x) − exp(−x)) / (exp(x) + exp(−x))"),
  .parameters = N_("None."),
  .gradient = N_("The input diff is the output diff times 1 − y², nearly 0 where tanh is "
                 "saturated."),
};

CT_DEFINE_NEURON_CLASS (tanh, "TanH", N_("Hyperbolic tangent"),
                        CtLayer, NULL, tanh_kernels, .param_field = "tanh_param",
                        .explanation = &tanh_explanation);
