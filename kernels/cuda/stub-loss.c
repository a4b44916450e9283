/* cuda/stub-loss.c: loss.h's ct_cuda_* functions for builds without CUDA;
 * each answers CT_STATUS_NO_DEVICE (see cuda/stub.c). */
#include "loss.h"

CtStatus
ct_cuda_check_labels (int64_t n, const float *labels, int64_t n_classes,
                      int has_ignore, int32_t ignore_label, int64_t *bad)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_softmax_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                              const float *prob, const float *labels,
                              int has_ignore, int32_t ignore_label,
                              float *loss, int64_t *valid)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_softmax_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                               const float *prob, const float *labels,
                               int has_ignore, int32_t ignore_label,
                               float *bottom_diff, int64_t *valid)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_sigmoid_cross_entropy_forward (int64_t n, const float *input,
                                       const float *target,
                                       int has_ignore, int32_t ignore_label,
                                       float *sigmoid, float *loss, int64_t *valid)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_sigmoid_cross_entropy_backward (int64_t n, const float *sigmoid,
                                        const float *target,
                                        int has_ignore, int32_t ignore_label,
                                        float scale, float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_hinge_forward (int64_t num, int64_t dim, const float *bottom,
                       const float *labels, int norm, float *margins, float *loss)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_hinge_backward (int64_t num, int64_t dim, const float *margins,
                        const float *labels, int norm, float scale,
                        float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_infogain_row_sums (int64_t channels, const float *h, float *sums)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_infogain_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                               const float *prob, const float *labels,
                               const float *h, int has_ignore, int32_t ignore_label,
                               float *loss, int64_t *valid)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_infogain_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                                const float *prob, const float *labels,
                                const float *h, const float *sums,
                                int has_ignore, int32_t ignore_label,
                                float *bottom_diff, int64_t *valid)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_multinomial_logistic_forward (int64_t num, int64_t dim, const float *prob,
                                      const float *labels, float *loss)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_multinomial_logistic_backward (int64_t num, int64_t dim, const float *prob,
                                       const float *labels, float scale,
                                       float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_contrastive_forward (int64_t num, int64_t channels, const float *a,
                             const float *b, const float *similar, float margin,
                             int legacy, float *diff, float *dist_sq, float *loss)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_contrastive_backward (int64_t num, int64_t channels, const float *diff,
                              const float *dist_sq, const float *similar,
                              float margin, int legacy, float alpha,
                              float *bottom_diff)
{
  return CT_STATUS_NO_DEVICE;
}

CtStatus
ct_cuda_accuracy (int64_t outer, int64_t classes, int64_t inner,
                  const float *scores, const float *labels, int64_t top_k,
                  int has_ignore, int32_t ignore_label,
                  float *accuracy, float *per_class, float *class_counts)
{
  return CT_STATUS_NO_DEVICE;
}
