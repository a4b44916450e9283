/* loss.h: the arithmetic of the Loss family (SoftmaxWithLoss,
 * SigmoidCrossEntropyLoss, HingeLoss, InfogainLoss, MultinomialLogisticLoss,
 * ContrastiveLoss) and of Accuracy, as Caffe computes them. EuclideanLoss is
 * plain BLAS (blas.h) and the softmax itself is in softmax.h.
 *
 * Labels are floats, as Caffe stores them, and name a class by truncation
 * toward zero (Caffe's static_cast<int>). A label that is not the ignore
 * label (when HAS_IGNORE) and does not name a class in [0, N_CLASSES) -- or
 * is NaN or beyond int range -- makes a kernel return CT_STATUS_INVALID, so
 * that a bad label never reads or writes out of bounds; the layers call
 * ct_cpu_check_labels() first to tell the user which label it was.
 *
 * Forward kernels return the un-normalised loss (and the number of labels
 * that were not ignored); the layer divides by its normaliser and the
 * backward kernels take the final scale, so that the arithmetic order
 * follows Caffe's. Counts are int64_t; negative counts give
 * CT_STATUS_INVALID without touching memory.
 *
 * The ct_cuda_ twins, declared last, take the same arguments with every
 * array in device memory; the scalars a CPU kernel returns through a
 * pointer (*LOSS, *VALID, *BAD, *ACCURACY) still land on the host, so those
 * twins wait for the device, as cuBLAS's dot does. Every twin that reads
 * labels waits too, to return CT_STATUS_INVALID for a bad one exactly where
 * the CPU does. Their sums are formed in double in a fixed order (the same
 * on every run) and agree with the CPU's float sums to float rounding. */
#pragma once

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether each of the N labels is the ignore label or a class in
 * [0, N_CLASSES). On CT_STATUS_INVALID, *BAD (if not NULL) is the index of
 * the first label that is neither. */
CtStatus ct_cpu_check_labels (int64_t n, const float *labels, int64_t n_classes,
                              int has_ignore, int32_t ignore_label, int64_t *bad);

/* Multinomial cross-entropy of PROB (OUTER x CHANNELS x INNER, already a
 * softmax) against OUTER x INNER labels: *LOSS = -sum log (max (p, FLT_MIN))
 * over the labels not ignored, *VALID their number. */
CtStatus ct_cpu_softmax_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                                      const float *prob, const float *labels,
                                      int has_ignore, int32_t ignore_label,
                                      float *loss, int64_t *valid);
/* bottom_diff = prob - one_hot (label), zero at ignored positions; the
 * caller scales it. *VALID as above. */
CtStatus ct_cpu_softmax_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                                       const float *prob, const float *labels,
                                       int has_ignore, int32_t ignore_label,
                                       float *bottom_diff, int64_t *valid);

/* Sigmoid cross-entropy of N scores against N targets in the stable form
 * x (t - [x >= 0]) - log (1 + exp (x - 2 x [x >= 0])); SIGMOID receives the
 * sigmoid of each score. Targets whose integer part is the ignore label are
 * left out. */
CtStatus ct_cpu_sigmoid_cross_entropy_forward (int64_t n, const float *input,
                                               const float *target,
                                               int has_ignore, int32_t ignore_label,
                                               float *sigmoid, float *loss, int64_t *valid);
/* bottom_diff = SCALE * (sigmoid - target), zero where the target is ignored. */
CtStatus ct_cpu_sigmoid_cross_entropy_backward (int64_t n, const float *sigmoid,
                                                const float *target,
                                                int has_ignore, int32_t ignore_label,
                                                float scale, float *bottom_diff);

/* One-vs-all hinge loss of NUM rows of DIM scores: MARGINS receives
 * max (0, 1 - y x) with y = +1 for the label's column and -1 elsewhere, and
 * *LOSS their sum (NORM 1) or sum of squares (NORM 2). */
CtStatus ct_cpu_hinge_forward (int64_t num, int64_t dim, const float *bottom,
                               const float *labels, int norm, float *margins, float *loss);
/* bottom_diff = SCALE * sign (-y m) (NORM 1) or SCALE * (-y m) (NORM 2) for
 * the margins M of the forward; the caller folds 1/num (and L2's 2) into SCALE. */
CtStatus ct_cpu_hinge_backward (int64_t num, int64_t dim, const float *margins,
                                const float *labels, int norm, float scale,
                                float *bottom_diff);

/* SUMS[r] = sum of row r of the CHANNELS x CHANNELS infogain matrix H. */
CtStatus ct_cpu_infogain_row_sums (int64_t channels, const float *h, float *sums);
/* *LOSS = -sum over labels l not ignored, over classes c, of
 * H[l, c] log (max (prob_c, 1e-20)). */
CtStatus ct_cpu_infogain_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                                       const float *prob, const float *labels,
                                       const float *h, int has_ignore, int32_t ignore_label,
                                       float *loss, int64_t *valid);
/* bottom_diff = prob_c * SUMS[l] - H[l, c], zero at ignored positions; the
 * caller scales it. */
CtStatus ct_cpu_infogain_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                                        const float *prob, const float *labels,
                                        const float *h, const float *sums,
                                        int has_ignore, int32_t ignore_label,
                                        float *bottom_diff, int64_t *valid);

/* *LOSS = -sum over the NUM rows of log (max (prob[label], 1e-20)). */
CtStatus ct_cpu_multinomial_logistic_forward (int64_t num, int64_t dim, const float *prob,
                                              const float *labels, float *loss);
/* bottom_diff = SCALE / max (prob[label], 1e-20) at the label, 0 elsewhere. */
CtStatus ct_cpu_multinomial_logistic_backward (int64_t num, int64_t dim, const float *prob,
                                               const float *labels, float scale,
                                               float *bottom_diff);

/* Contrastive loss of NUM pairs of CHANNELS features: DIFF = a - b,
 * DIST_SQ[i] = |a_i - b_i|^2, and *LOSS the sum of DIST_SQ for similar pairs
 * (SIMILAR[i] truncates to non-zero) and of max (margin - d, 0)^2 for the
 * others -- max (margin - d^2, 0) when LEGACY. */
CtStatus ct_cpu_contrastive_forward (int64_t num, int64_t channels, const float *a,
                                     const float *b, const float *similar, float margin,
                                     int legacy, float *diff, float *dist_sq, float *loss);
/* The diff of one bottom: ALPHA is +-loss_weight / num (+ for a, - for b). */
CtStatus ct_cpu_contrastive_backward (int64_t num, int64_t channels, const float *diff,
                                      const float *dist_sq, const float *similar,
                                      float margin, int legacy, float alpha,
                                      float *bottom_diff);

/* Top-k accuracy of SCORES (OUTER x CLASSES x INNER) against OUTER x INNER
 * labels: a label counts as hit when fewer than TOP_K scores are >= its
 * class's score besides its own. *ACCURACY = hits / labels not ignored (0
 * when none). When PER_CLASS is not NULL it receives each class's hit rate,
 * and CLASS_COUNTS (CLASSES floats, scratch) its number of labels. */
CtStatus ct_cpu_accuracy (int64_t outer, int64_t classes, int64_t inner,
                          const float *scores, const float *labels, int64_t top_k,
                          int has_ignore, int32_t ignore_label,
                          float *accuracy, float *per_class, float *class_counts);

/* The CUDA twins of the above. */
CtStatus ct_cuda_check_labels (int64_t n, const float *labels, int64_t n_classes,
                               int has_ignore, int32_t ignore_label, int64_t *bad);
CtStatus ct_cuda_softmax_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                                       const float *prob, const float *labels,
                                       int has_ignore, int32_t ignore_label,
                                       float *loss, int64_t *valid);
CtStatus ct_cuda_softmax_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                                        const float *prob, const float *labels,
                                        int has_ignore, int32_t ignore_label,
                                        float *bottom_diff, int64_t *valid);
CtStatus ct_cuda_sigmoid_cross_entropy_forward (int64_t n, const float *input,
                                                const float *target,
                                                int has_ignore, int32_t ignore_label,
                                                float *sigmoid, float *loss, int64_t *valid);
CtStatus ct_cuda_sigmoid_cross_entropy_backward (int64_t n, const float *sigmoid,
                                                 const float *target,
                                                 int has_ignore, int32_t ignore_label,
                                                 float scale, float *bottom_diff);
CtStatus ct_cuda_hinge_forward (int64_t num, int64_t dim, const float *bottom,
                                const float *labels, int norm, float *margins, float *loss);
CtStatus ct_cuda_hinge_backward (int64_t num, int64_t dim, const float *margins,
                                 const float *labels, int norm, float scale,
                                 float *bottom_diff);
CtStatus ct_cuda_infogain_row_sums (int64_t channels, const float *h, float *sums);
CtStatus ct_cuda_infogain_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                                        const float *prob, const float *labels,
                                        const float *h, int has_ignore, int32_t ignore_label,
                                        float *loss, int64_t *valid);
CtStatus ct_cuda_infogain_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                                         const float *prob, const float *labels,
                                         const float *h, const float *sums,
                                         int has_ignore, int32_t ignore_label,
                                         float *bottom_diff, int64_t *valid);
CtStatus ct_cuda_multinomial_logistic_forward (int64_t num, int64_t dim, const float *prob,
                                               const float *labels, float *loss);
CtStatus ct_cuda_multinomial_logistic_backward (int64_t num, int64_t dim, const float *prob,
                                                const float *labels, float scale,
                                                float *bottom_diff);
CtStatus ct_cuda_contrastive_forward (int64_t num, int64_t channels, const float *a,
                                      const float *b, const float *similar, float margin,
                                      int legacy, float *diff, float *dist_sq, float *loss);
CtStatus ct_cuda_contrastive_backward (int64_t num, int64_t channels, const float *diff,
                                       const float *dist_sq, const float *similar,
                                       float margin, int legacy, float alpha,
                                       float *bottom_diff);
/* *ACCURACY on the host; PER_CLASS and CLASS_COUNTS in device memory. */
CtStatus ct_cuda_accuracy (int64_t outer, int64_t classes, int64_t inner,
                           const float *scores, const float *labels, int64_t top_k,
                           int has_ignore, int32_t ignore_label,
                           float *accuracy, float *per_class, float *class_counts);

#ifdef __cplusplus
}
#endif
