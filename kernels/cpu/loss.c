/* cpu/loss.c: the CPU side of loss.h.
 *
 * Sums are accumulated in float, element by element in Caffe's order, and
 * the transcendental functions take the precision Caffe's calls take, so
 * that losses and diffs agree with real Caffe to float rounding. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "loss.h"

/* Caffe's floor for probabilities under a logarithm in the logistic and
 * infogain losses. */
#define LOG_THRESHOLD 1e-20f

typedef enum {
  LABEL_CLASS,
  LABEL_IGNORED,
  LABEL_BAD,
} LabelKind;

/* What float label VALUE names: a class (*CLS), the ignore label, or
 * nothing. NaN and values beyond int range name nothing, since casting
 * them is undefined. */
static inline LabelKind
label_kind (float value, int64_t n_classes, int has_ignore, int32_t ignore_label,
            int64_t *cls)
{
  int32_t v;

  if (!((double) value > -2147483649.0 && (double) value < 2147483648.0))
    return LABEL_BAD;
  v = (int32_t) value;
  if (has_ignore && v == ignore_label)
    return LABEL_IGNORED;
  if (v < 0 || v >= n_classes)
    return LABEL_BAD;
  *cls = v;
  return LABEL_CLASS;
}

static inline int
valid_3d (int64_t outer, int64_t channels, int64_t inner)
{
  return outer >= 0 && channels >= 0 && inner >= 0
         && (channels == 0 || inner <= INT64_MAX / channels)
         && (channels * inner == 0 || outer <= INT64_MAX / (channels * inner));
}

CtStatus
ct_cpu_check_labels (int64_t n, const float *labels, int64_t n_classes,
                     int has_ignore, int32_t ignore_label, int64_t *bad)
{
  int64_t cls;

  if (n < 0 || n_classes < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    if (label_kind (labels[i], n_classes, has_ignore, ignore_label, &cls) == LABEL_BAD)
      {
        if (bad != NULL)
          *bad = i;
        return CT_STATUS_INVALID;
      }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_softmax_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                             const float *prob, const float *labels,
                             int has_ignore, int32_t ignore_label,
                             float *loss, int64_t *valid)
{
  const int64_t dim = channels * inner;
  float sum = 0.0f;
  int64_t count = 0;

  if (!valid_3d (outer, channels, inner))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < outer; i++)
    for (int64_t j = 0; j < inner; j++)
      {
        int64_t l;

        switch (label_kind (labels[i * inner + j], channels, has_ignore, ignore_label, &l))
          {
          case LABEL_IGNORED:
            continue;
          case LABEL_BAD:
            return CT_STATUS_INVALID;
          case LABEL_CLASS:
          default:
            break;
          }
        sum -= logf (fmaxf (prob[i * dim + l * inner + j], FLT_MIN));
        count++;
      }
  *loss = sum;
  *valid = count;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_softmax_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                              const float *prob, const float *labels,
                              int has_ignore, int32_t ignore_label,
                              float *bottom_diff, int64_t *valid)
{
  const int64_t dim = channels * inner;
  int64_t count = 0;

  if (!valid_3d (outer, channels, inner))
    return CT_STATUS_INVALID;
  if (bottom_diff != prob)
    memcpy (bottom_diff, prob, (size_t) (outer * dim) * sizeof (float));
  for (int64_t i = 0; i < outer; i++)
    for (int64_t j = 0; j < inner; j++)
      {
        int64_t l;

        switch (label_kind (labels[i * inner + j], channels, has_ignore, ignore_label, &l))
          {
          case LABEL_IGNORED:
            for (int64_t c = 0; c < channels; c++)
              bottom_diff[i * dim + c * inner + j] = 0.0f;
            continue;
          case LABEL_BAD:
            return CT_STATUS_INVALID;
          case LABEL_CLASS:
          default:
            break;
          }
        bottom_diff[i * dim + l * inner + j] -= 1.0f;
        count++;
      }
  *valid = count;
  return CT_STATUS_OK;
}

/* The integer part of a target, compared with the ignore label as Caffe
 * does; NaN and huge targets are never ignored. */
static inline int
target_ignored (float target, int has_ignore, int32_t ignore_label)
{
  if (!has_ignore || !((double) target > -2147483649.0 && (double) target < 2147483648.0))
    return 0;
  return (int32_t) target == ignore_label;
}

CtStatus
ct_cpu_sigmoid_cross_entropy_forward (int64_t n, const float *input, const float *target,
                                      int has_ignore, int32_t ignore_label,
                                      float *sigmoid, float *loss, int64_t *valid)
{
  float sum = 0.0f;
  int64_t count = 0;

  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    sigmoid[i] = (float) (0.5 * tanh (0.5 * (double) input[i]) + 0.5);
  for (int64_t i = 0; i < n; i++)
    {
      const float x = input[i];
      const float positive = x >= 0.0f ? 1.0f : 0.0f;

      if (target_ignored (target[i], has_ignore, ignore_label))
        continue;
      /* log (1 + exp (-|x|)) without overflow, the form Caffe uses. */
      sum -= x * (target[i] - positive) - logf (1.0f + expf (x - 2.0f * x * positive));
      count++;
    }
  *loss = sum;
  *valid = count;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_sigmoid_cross_entropy_backward (int64_t n, const float *sigmoid, const float *target,
                                       int has_ignore, int32_t ignore_label,
                                       float scale, float *bottom_diff)
{
  if (n < 0)
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < n; i++)
    {
      float d = sigmoid[i] - target[i];

      if (target_ignored (target[i], has_ignore, ignore_label))
        d = 0.0f;
      bottom_diff[i] = d * scale;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_hinge_forward (int64_t num, int64_t dim, const float *bottom, const float *labels,
                      int norm, float *margins, float *loss)
{
  float sum = 0.0f;

  if (!valid_3d (num, dim, 1) || (norm != 1 && norm != 2))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    {
      int64_t l;

      if (label_kind (labels[i], dim, 0, 0, &l) != LABEL_CLASS)
        return CT_STATUS_INVALID;
      for (int64_t j = 0; j < dim; j++)
        {
          float x = bottom[i * dim + j];
          float m = 1.0f + (j == l ? -x : x);

          margins[i * dim + j] = m > 0.0f ? m : 0.0f;
        }
    }
  for (int64_t k = 0; k < num * dim; k++)
    sum += norm == 1 ? margins[k] : margins[k] * margins[k];
  *loss = sum;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_hinge_backward (int64_t num, int64_t dim, const float *margins, const float *labels,
                       int norm, float scale, float *bottom_diff)
{
  if (!valid_3d (num, dim, 1) || (norm != 1 && norm != 2))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    {
      int64_t l;

      if (label_kind (labels[i], dim, 0, 0, &l) != LABEL_CLASS)
        return CT_STATUS_INVALID;
      for (int64_t j = 0; j < dim; j++)
        {
          float v = j == l ? -margins[i * dim + j] : margins[i * dim + j];

          if (norm == 1)
            v = (float) ((0.0f < v) - (v < 0.0f));
          bottom_diff[i * dim + j] = v * scale;
        }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_infogain_row_sums (int64_t channels, const float *h, float *sums)
{
  if (!valid_3d (channels, channels, 1))
    return CT_STATUS_INVALID;
  for (int64_t r = 0; r < channels; r++)
    {
      float s = 0.0f;

      for (int64_t c = 0; c < channels; c++)
        s += h[r * channels + c];
      sums[r] = s;
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_infogain_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                              const float *prob, const float *labels, const float *h,
                              int has_ignore, int32_t ignore_label,
                              float *loss, int64_t *valid)
{
  const int64_t dim = channels * inner;
  float sum = 0.0f;
  int64_t count = 0;

  if (!valid_3d (outer, channels, inner) || !valid_3d (channels, channels, 1))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < outer; i++)
    for (int64_t j = 0; j < inner; j++)
      {
        int64_t l;

        switch (label_kind (labels[i * inner + j], channels, has_ignore, ignore_label, &l))
          {
          case LABEL_IGNORED:
            continue;
          case LABEL_BAD:
            return CT_STATUS_INVALID;
          case LABEL_CLASS:
          default:
            break;
          }
        for (int64_t c = 0; c < channels; c++)
          sum -= h[l * channels + c]
                 * logf (fmaxf (prob[i * dim + c * inner + j], LOG_THRESHOLD));
        count++;
      }
  *loss = sum;
  *valid = count;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_infogain_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                               const float *prob, const float *labels, const float *h,
                               const float *sums, int has_ignore, int32_t ignore_label,
                               float *bottom_diff, int64_t *valid)
{
  const int64_t dim = channels * inner;
  int64_t count = 0;

  if (!valid_3d (outer, channels, inner) || !valid_3d (channels, channels, 1))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < outer; i++)
    for (int64_t j = 0; j < inner; j++)
      {
        int64_t l;

        switch (label_kind (labels[i * inner + j], channels, has_ignore, ignore_label, &l))
          {
          case LABEL_IGNORED:
            for (int64_t c = 0; c < channels; c++)
              bottom_diff[i * dim + c * inner + j] = 0.0f;
            continue;
          case LABEL_BAD:
            return CT_STATUS_INVALID;
          case LABEL_CLASS:
          default:
            break;
          }
        for (int64_t c = 0; c < channels; c++)
          bottom_diff[i * dim + c * inner + j] =
            prob[i * dim + c * inner + j] * sums[l] - h[l * channels + c];
        count++;
      }
  *valid = count;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_multinomial_logistic_forward (int64_t num, int64_t dim, const float *prob,
                                     const float *labels, float *loss)
{
  float sum = 0.0f;

  if (!valid_3d (num, dim, 1))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    {
      int64_t l;

      if (label_kind (labels[i], dim, 0, 0, &l) != LABEL_CLASS)
        return CT_STATUS_INVALID;
      sum -= logf (fmaxf (prob[i * dim + l], LOG_THRESHOLD));
    }
  *loss = sum;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_multinomial_logistic_backward (int64_t num, int64_t dim, const float *prob,
                                      const float *labels, float scale, float *bottom_diff)
{
  if (!valid_3d (num, dim, 1))
    return CT_STATUS_INVALID;
  memset (bottom_diff, 0, (size_t) (num * dim) * sizeof (float));
  for (int64_t i = 0; i < num; i++)
    {
      int64_t l;

      if (label_kind (labels[i], dim, 0, 0, &l) != LABEL_CLASS)
        return CT_STATUS_INVALID;
      bottom_diff[i * dim + l] = scale / fmaxf (prob[i * dim + l], LOG_THRESHOLD);
    }
  return CT_STATUS_OK;
}

/* Caffe casts the similarity to int: any value whose integer part is not
 * zero marks a similar pair. Written without the cast so NaN is defined
 * (dissimilar). */
static inline int
is_similar (float y)
{
  return y >= 1.0f || y <= -1.0f;
}

CtStatus
ct_cpu_contrastive_forward (int64_t num, int64_t channels, const float *a, const float *b,
                            const float *similar, float margin, int legacy,
                            float *diff, float *dist_sq, float *loss)
{
  float sum = 0.0f;

  if (!valid_3d (num, channels, 1))
    return CT_STATUS_INVALID;
  for (int64_t k = 0; k < num * channels; k++)
    diff[k] = a[k] - b[k];
  for (int64_t i = 0; i < num; i++)
    {
      const float *d = diff + i * channels;
      float s = 0.0f;

      for (int64_t c = 0; c < channels; c++)
        s += d[c] * d[c];
      dist_sq[i] = s;
      if (is_similar (similar[i]))
        sum += s;
      else if (legacy)
        sum += fmaxf (margin - s, 0.0f);
      else
        {
          float m = fmaxf (margin - sqrtf (s), 0.0f);
          sum += m * m;
        }
    }
  *loss = sum;
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_contrastive_backward (int64_t num, int64_t channels, const float *diff,
                             const float *dist_sq, const float *similar, float margin,
                             int legacy, float alpha, float *bottom_diff)
{
  if (!valid_3d (num, channels, 1))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    {
      const float *d = diff + i * channels;
      float *out = bottom_diff + i * channels;
      float beta;

      if (is_similar (similar[i]))
        beta = alpha;
      else
        {
          float mdist;

          if (legacy)
            {
              mdist = margin - dist_sq[i];
              beta = -alpha;
            }
          else
            {
              float dist = sqrtf (dist_sq[i]);

              mdist = margin - dist;
              /* 1e-4 keeps the step finite when the two features coincide. */
              beta = -alpha * mdist / (dist + 1e-4f);
            }
          if (!(mdist > 0.0f))
            {
              /* Outside the margin: no gradient at all (not beta * diff). */
              memset (out, 0, (size_t) channels * sizeof (float));
              continue;
            }
        }
      for (int64_t c = 0; c < channels; c++)
        out[c] = beta * d[c];
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_accuracy (int64_t outer, int64_t classes, int64_t inner,
                 const float *scores, const float *labels, int64_t top_k,
                 int has_ignore, int32_t ignore_label,
                 float *accuracy, float *per_class, float *class_counts)
{
  const int64_t dim = classes * inner;
  float hits = 0.0f;
  int64_t count = 0;

  if (!valid_3d (outer, classes, inner) || top_k < 0)
    return CT_STATUS_INVALID;
  if (per_class != NULL)
    for (int64_t c = 0; c < classes; c++)
      per_class[c] = class_counts[c] = 0.0f;

  for (int64_t i = 0; i < outer; i++)
    for (int64_t j = 0; j < inner; j++)
      {
        int64_t l, better = -1; /* the true class counts itself once */
        float truth;

        switch (label_kind (labels[i * inner + j], classes, has_ignore, ignore_label, &l))
          {
          case LABEL_IGNORED:
            continue;
          case LABEL_BAD:
            return CT_STATUS_INVALID;
          case LABEL_CLASS:
          default:
            break;
          }
        if (per_class != NULL)
          class_counts[l] += 1.0f;
        truth = scores[i * dim + l * inner + j];
        for (int64_t k = 0; k < classes && better < top_k; k++)
          better += scores[i * dim + k * inner + j] >= truth;
        if (better < top_k)
          {
            hits += 1.0f;
            if (per_class != NULL)
              per_class[l] += 1.0f;
          }
        count++;
      }

  *accuracy = count == 0 ? 0.0f : hits / (float) count;
  if (per_class != NULL)
    for (int64_t c = 0; c < classes; c++)
      per_class[c] = class_counts[c] == 0.0f ? 0.0f : per_class[c] / class_counts[c];
  return CT_STATUS_OK;
}
