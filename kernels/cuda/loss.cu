/* loss.cu: the CUDA side of loss.h.
 *
 * Most loss kernels end in a scalar the host needs (the loss, the number
 * of labels counted) or in a verdict on the labels (a bad one is
 * CT_STATUS_INVALID, as on the CPU). Both come from one reduction: a term
 * per element (or per label position) adds to a sum, a count and the
 * smallest bad index; each block folds its threads' parts in a
 * shared-memory tree and the blocks' parts are folded in block order by
 * one thread, so the order, and with it the result, depends on the sizes
 * alone. The parts wait in a small __device__ array of this file (kernels
 * never allocate), used by one caller at a time; the result is copied back
 * to the host, which waits for it. Sums are formed in double from terms
 * computed in float as the CPU computes them.
 *
 * Products that the CPU rounds before an addition are written with
 * __fmul_rn/__fadd_rn where it matters, so that nvcc does not fuse them
 * into an FMA and the two devices round alike. */
#include <cfloat>
#include <climits>
#include <cmath>
#include <mutex>

#include "cuda-private.cuh"
#include "loss.h"

/* Caffe's floor for probabilities under a logarithm in the logistic and
 * infogain losses (the softmax loss floors at FLT_MIN). */
#define LOG_THRESHOLD 1e-20f

#define REDUCE_THREADS 256 /* a power of two */
#define REDUCE_BLOCKS 256
#define NO_BAD LLONG_MAX

/* What a reduction gathers: the sum of the terms, how many counted, and
 * the smallest index whose label named no class (NO_BAD when none). */
struct Acc {
  double sum;
  long long count;
  long long bad;
};

/* Blocks' parts, then the total at [REDUCE_BLOCKS]. */
__device__ static Acc reduce_slots[REDUCE_BLOCKS + 1];
static std::mutex reduce_lock;

enum { LABEL_CLASS, LABEL_IGNORED, LABEL_BAD };

/* As cpu/loss.c's label_kind: NaN and values beyond int range name
 * nothing; otherwise the label truncates toward zero. */
__device__ static inline int
label_kind (float value, int64_t n_classes, int has_ignore, int32_t ignore_label, int64_t *cls)
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

__device__ static inline void
mark_bad (Acc &acc, int64_t index)
{
  if (index < acc.bad)
    acc.bad = index;
}

static inline int
valid_3d (int64_t outer, int64_t channels, int64_t inner)
{
  return outer >= 0 && channels >= 0 && inner >= 0
         && (channels == 0 || inner <= INT64_MAX / channels)
         && (channels * inner == 0 || outer <= INT64_MAX / (channels * inner));
}

template <typename Term>
__global__ static void
reduce_kernel (int64_t n, Term term, Acc *slots)
{
  __shared__ double sums[REDUCE_THREADS];
  __shared__ long long counts[REDUCE_THREADS];
  __shared__ long long bads[REDUCE_THREADS];
  const unsigned int t = threadIdx.x;
  Acc acc = { 0.0, 0, NO_BAD };

  CT_CUDA_LOOP (i, n) term (i, acc);
  sums[t] = acc.sum;
  counts[t] = acc.count;
  bads[t] = acc.bad;
  __syncthreads ();
  for (unsigned int s = REDUCE_THREADS / 2; s > 0; s >>= 1)
    {
      if (t < s)
        {
          sums[t] += sums[t + s];
          counts[t] += counts[t + s];
          bads[t] = bads[t + s] < bads[t] ? bads[t + s] : bads[t];
        }
      __syncthreads ();
    }
  if (t == 0)
    slots[blockIdx.x] = Acc{ sums[0], counts[0], bads[0] };
}

__global__ static void
finish_kernel (unsigned int blocks, Acc *slots)
{
  Acc total = { 0.0, 0, NO_BAD };

  for (unsigned int b = 0; b < blocks; b++)
    {
      total.sum += slots[b].sum;
      total.count += slots[b].count;
      total.bad = slots[b].bad < total.bad ? slots[b].bad : total.bad;
    }
  slots[REDUCE_BLOCKS] = total;
}

/* Runs TERM (i, acc) for every i in [0, N) and leaves the total in *OUT on
 * the host. The caller has entered the device. */
template <typename Term>
static CtStatus
reduce (int64_t n, const Term &term, Acc *out)
{
  int64_t wanted = (n + REDUCE_THREADS - 1) / REDUCE_THREADS;
  unsigned int blocks = (unsigned int) (wanted > REDUCE_BLOCKS ? REDUCE_BLOCKS : wanted);
  CtStatus status;
  Acc *slots;

  *out = Acc{ 0.0, 0, NO_BAD };
  if (n == 0)
    return CT_STATUS_OK;
  std::lock_guard<std::mutex> guard (reduce_lock);
  CT_CUDA_TRY (cudaGetSymbolAddress ((void **) &slots, reduce_slots));
  reduce_kernel<<<blocks, REDUCE_THREADS>>> (n, term, slots);
  if ((status = ct_cuda_launch_status ()) != CT_STATUS_OK)
    return status;
  finish_kernel<<<1, 1>>> (blocks, slots);
  if ((status = ct_cuda_launch_status ()) != CT_STATUS_OK)
    return status;
  CT_CUDA_TRY (cudaMemcpy (out, slots + REDUCE_BLOCKS, sizeof *out, cudaMemcpyDeviceToHost));
  return CT_STATUS_OK;
}

/* ---- labels ---- */

struct CheckLabelsTerm {
  const float *labels;
  int64_t n_classes;
  int has_ignore;
  int32_t ignore_label;

  __device__ void
  operator() (int64_t i, Acc &acc) const
  {
    int64_t cls;

    if (label_kind (labels[i], n_classes, has_ignore, ignore_label, &cls) == LABEL_BAD)
      mark_bad (acc, i);
  }
};

extern "C" CtStatus
ct_cuda_check_labels (int64_t n, const float *labels, int64_t n_classes,
                      int has_ignore, int32_t ignore_label, int64_t *bad)
{
  CtStatus status;
  Acc acc;

  if (n < 0 || n_classes < 0)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (n, CheckLabelsTerm{ labels, n_classes, has_ignore, ignore_label }, &acc);
  if (status != CT_STATUS_OK)
    return status;
  if (acc.bad != NO_BAD)
    {
      if (bad != nullptr)
        *bad = acc.bad;
      return CT_STATUS_INVALID;
    }
  return CT_STATUS_OK;
}

/* ---- softmax loss ---- */

struct SoftmaxLossForwardTerm {
  const float *prob, *labels;
  int64_t channels, inner;
  int has_ignore;
  int32_t ignore_label;

  __device__ void
  operator() (int64_t p, Acc &acc) const
  {
    const int64_t i = p / inner, j = p % inner;
    int64_t l;

    switch (label_kind (labels[p], channels, has_ignore, ignore_label, &l))
      {
      case LABEL_IGNORED:
        return;
      case LABEL_BAD:
        mark_bad (acc, p);
        return;
      default:
        break;
      }
    acc.sum -= logf (fmaxf (prob[(i * channels + l) * inner + j], FLT_MIN));
    acc.count++;
  }
};

extern "C" CtStatus
ct_cuda_softmax_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                              const float *prob, const float *labels,
                              int has_ignore, int32_t ignore_label,
                              float *loss, int64_t *valid)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (outer * inner,
                   SoftmaxLossForwardTerm{ prob, labels, channels, inner, has_ignore,
                                           ignore_label },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  if (acc.bad != NO_BAD)
    return CT_STATUS_INVALID;
  *loss = (float) acc.sum;
  *valid = acc.count;
  return CT_STATUS_OK;
}

/* BOTTOM_DIFF already holds PROB: take 1 at the label, clear ignored
 * positions. */
struct SoftmaxLossBackwardTerm {
  const float *labels;
  float *bottom_diff;
  int64_t channels, inner;
  int has_ignore;
  int32_t ignore_label;

  __device__ void
  operator() (int64_t p, Acc &acc) const
  {
    const int64_t i = p / inner, j = p % inner;
    float *d = bottom_diff + i * channels * inner + j;
    int64_t l;

    switch (label_kind (labels[p], channels, has_ignore, ignore_label, &l))
      {
      case LABEL_IGNORED:
        for (int64_t c = 0; c < channels; c++)
          d[c * inner] = 0.0f;
        return;
      case LABEL_BAD:
        mark_bad (acc, p);
        return;
      default:
        break;
      }
    d[l * inner] -= 1.0f;
    acc.count++;
  }
};

extern "C" CtStatus
ct_cuda_softmax_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                               const float *prob, const float *labels,
                               int has_ignore, int32_t ignore_label,
                               float *bottom_diff, int64_t *valid)
{
  const int64_t count = outer * channels * inner;
  CtStatus status;
  Acc acc;

  if (!valid_3d (outer, channels, inner))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (bottom_diff != prob && count > 0)
    CT_CUDA_TRY (cudaMemcpyAsync (bottom_diff, prob, (size_t) count * sizeof (float),
                                  cudaMemcpyDeviceToDevice));
  status = reduce (outer * inner,
                   SoftmaxLossBackwardTerm{ labels, bottom_diff, channels, inner, has_ignore,
                                            ignore_label },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  if (acc.bad != NO_BAD)
    return CT_STATUS_INVALID;
  *valid = acc.count;
  return CT_STATUS_OK;
}

/* ---- sigmoid cross-entropy ---- */

/* As cpu/loss.c: the integer part of a target against the ignore label;
 * NaN and huge targets are never ignored. */
__device__ static inline int
target_ignored (float target, int has_ignore, int32_t ignore_label)
{
  if (!has_ignore || !((double) target > -2147483649.0 && (double) target < 2147483648.0))
    return 0;
  return (int32_t) target == ignore_label;
}

struct SigmoidCrossEntropyTerm {
  const float *input, *target;
  float *sigmoid;
  int has_ignore;
  int32_t ignore_label;

  __device__ void
  operator() (int64_t i, Acc &acc) const
  {
    const float x = input[i], t = target[i];
    const float positive = x >= 0.0f ? 1.0f : 0.0f;
    float term;

    sigmoid[i] = (float) (0.5 * tanh (0.5 * (double) x) + 0.5);
    if (target_ignored (t, has_ignore, ignore_label))
      return;
    /* log (1 + exp (-|x|)) without overflow, as the CPU writes it. */
    term = __fadd_rn (__fmul_rn (x, t - positive),
                      -logf (1.0f + expf (x - __fmul_rn (2.0f * x, positive))));
    acc.sum -= term;
    acc.count++;
  }
};

extern "C" CtStatus
ct_cuda_sigmoid_cross_entropy_forward (int64_t n, const float *input, const float *target,
                                       int has_ignore, int32_t ignore_label,
                                       float *sigmoid, float *loss, int64_t *valid)
{
  CtStatus status;
  Acc acc;

  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  status = reduce (n, SigmoidCrossEntropyTerm{ input, target, sigmoid, has_ignore,
                                               ignore_label },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  *loss = (float) acc.sum;
  *valid = acc.count;
  return CT_STATUS_OK;
}

__global__ static void
sigmoid_cross_entropy_backward_kernel (int64_t n, const float *sigmoid, const float *target,
                                       int has_ignore, int32_t ignore_label, float scale,
                                       float *bottom_diff)
{
  CT_CUDA_LOOP (i, n)
    {
      float d = sigmoid[i] - target[i];

      if (target_ignored (target[i], has_ignore, ignore_label))
        d = 0.0f;
      bottom_diff[i] = d * scale;
    }
}

extern "C" CtStatus
ct_cuda_sigmoid_cross_entropy_backward (int64_t n, const float *sigmoid, const float *target,
                                        int has_ignore, int32_t ignore_label,
                                        float scale, float *bottom_diff)
{
  CT_CUDA_CHECK_COUNT (n);
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  sigmoid_cross_entropy_backward_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (
    n, sigmoid, target, has_ignore, ignore_label, scale, bottom_diff);
  return ct_cuda_launch_status ();
}

/* ---- hinge ---- */

struct HingeForwardTerm {
  const float *bottom, *labels;
  float *margins;
  int64_t dim;
  int norm;

  __device__ void
  operator() (int64_t k, Acc &acc) const
  {
    const int64_t i = k / dim, j = k % dim;
    float x = bottom[k], m;
    int64_t l;

    if (label_kind (labels[i], dim, 0, 0, &l) != LABEL_CLASS)
      {
        mark_bad (acc, i);
        return;
      }
    m = 1.0f + (j == l ? -x : x);
    m = m > 0.0f ? m : 0.0f;
    margins[k] = m;
    acc.sum += norm == 1 ? m : __fmul_rn (m, m);
  }
};

extern "C" CtStatus
ct_cuda_hinge_forward (int64_t num, int64_t dim, const float *bottom, const float *labels,
                       int norm, float *margins, float *loss)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (num, dim, 1) || (norm != 1 && norm != 2))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (num * dim, HingeForwardTerm{ bottom, labels, margins, dim, norm }, &acc);
  if (status != CT_STATUS_OK)
    return status;
  if (acc.bad != NO_BAD)
    return CT_STATUS_INVALID;
  *loss = (float) acc.sum;
  return CT_STATUS_OK;
}

struct HingeBackwardTerm {
  const float *margins, *labels;
  float *bottom_diff;
  int64_t dim;
  int norm;
  float scale;

  __device__ void
  operator() (int64_t k, Acc &acc) const
  {
    const int64_t i = k / dim, j = k % dim;
    float v;
    int64_t l;

    if (label_kind (labels[i], dim, 0, 0, &l) != LABEL_CLASS)
      {
        mark_bad (acc, i);
        return;
      }
    v = j == l ? -margins[k] : margins[k];
    if (norm == 1)
      v = (float) ((0.0f < v) - (v < 0.0f));
    bottom_diff[k] = v * scale;
  }
};

extern "C" CtStatus
ct_cuda_hinge_backward (int64_t num, int64_t dim, const float *margins, const float *labels,
                        int norm, float scale, float *bottom_diff)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (num, dim, 1) || (norm != 1 && norm != 2))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (num * dim, HingeBackwardTerm{ margins, labels, bottom_diff, dim, norm, scale },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  return acc.bad != NO_BAD ? CT_STATUS_INVALID : CT_STATUS_OK;
}

/* ---- infogain ---- */

/* One thread per row, adding in column order as the CPU does. */
__global__ static void
infogain_row_sums_kernel (int64_t channels, const float *h, float *sums)
{
  CT_CUDA_LOOP (r, channels)
    {
      float s = 0.0f;

      for (int64_t c = 0; c < channels; c++)
        s += h[r * channels + c];
      sums[r] = s;
    }
}

extern "C" CtStatus
ct_cuda_infogain_row_sums (int64_t channels, const float *h, float *sums)
{
  if (!valid_3d (channels, channels, 1))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (channels == 0)
    return CT_STATUS_OK;
  infogain_row_sums_kernel<<<ct_cuda_blocks (channels), CT_CUDA_THREADS>>> (channels, h, sums);
  return ct_cuda_launch_status ();
}

struct InfogainForwardTerm {
  const float *prob, *labels, *h;
  int64_t channels, inner;
  int has_ignore;
  int32_t ignore_label;

  __device__ void
  operator() (int64_t p, Acc &acc) const
  {
    const int64_t i = p / inner, j = p % inner;
    const float *x = prob + i * channels * inner + j;
    int64_t l;

    switch (label_kind (labels[p], channels, has_ignore, ignore_label, &l))
      {
      case LABEL_IGNORED:
        return;
      case LABEL_BAD:
        mark_bad (acc, p);
        return;
      default:
        break;
      }
    for (int64_t c = 0; c < channels; c++)
      acc.sum -= __fmul_rn (h[l * channels + c], logf (fmaxf (x[c * inner], LOG_THRESHOLD)));
    acc.count++;
  }
};

extern "C" CtStatus
ct_cuda_infogain_loss_forward (int64_t outer, int64_t channels, int64_t inner,
                               const float *prob, const float *labels, const float *h,
                               int has_ignore, int32_t ignore_label,
                               float *loss, int64_t *valid)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (outer, channels, inner) || !valid_3d (channels, channels, 1))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (outer * inner,
                   InfogainForwardTerm{ prob, labels, h, channels, inner, has_ignore,
                                        ignore_label },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  if (acc.bad != NO_BAD)
    return CT_STATUS_INVALID;
  *loss = (float) acc.sum;
  *valid = acc.count;
  return CT_STATUS_OK;
}

struct InfogainBackwardTerm {
  const float *prob, *labels, *h, *sums;
  float *bottom_diff;
  int64_t channels, inner;
  int has_ignore;
  int32_t ignore_label;

  __device__ void
  operator() (int64_t p, Acc &acc) const
  {
    const int64_t offset = (p / inner) * channels * inner + p % inner;
    const float *x = prob + offset;
    float *d = bottom_diff + offset;
    int64_t l;

    switch (label_kind (labels[p], channels, has_ignore, ignore_label, &l))
      {
      case LABEL_IGNORED:
        for (int64_t c = 0; c < channels; c++)
          d[c * inner] = 0.0f;
        return;
      case LABEL_BAD:
        mark_bad (acc, p);
        return;
      default:
        break;
      }
    for (int64_t c = 0; c < channels; c++)
      d[c * inner] = __fadd_rn (__fmul_rn (x[c * inner], sums[l]), -h[l * channels + c]);
    acc.count++;
  }
};

extern "C" CtStatus
ct_cuda_infogain_loss_backward (int64_t outer, int64_t channels, int64_t inner,
                                const float *prob, const float *labels, const float *h,
                                const float *sums, int has_ignore, int32_t ignore_label,
                                float *bottom_diff, int64_t *valid)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (outer, channels, inner) || !valid_3d (channels, channels, 1))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (outer * inner,
                   InfogainBackwardTerm{ prob, labels, h, sums, bottom_diff, channels, inner,
                                         has_ignore, ignore_label },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  if (acc.bad != NO_BAD)
    return CT_STATUS_INVALID;
  *valid = acc.count;
  return CT_STATUS_OK;
}

/* ---- multinomial logistic ---- */

struct MultinomialForwardTerm {
  const float *prob, *labels;
  int64_t dim;

  __device__ void
  operator() (int64_t i, Acc &acc) const
  {
    int64_t l;

    if (label_kind (labels[i], dim, 0, 0, &l) != LABEL_CLASS)
      {
        mark_bad (acc, i);
        return;
      }
    acc.sum -= logf (fmaxf (prob[i * dim + l], LOG_THRESHOLD));
  }
};

extern "C" CtStatus
ct_cuda_multinomial_logistic_forward (int64_t num, int64_t dim, const float *prob,
                                      const float *labels, float *loss)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (num, dim, 1))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (num, MultinomialForwardTerm{ prob, labels, dim }, &acc);
  if (status != CT_STATUS_OK)
    return status;
  if (acc.bad != NO_BAD)
    return CT_STATUS_INVALID;
  *loss = (float) acc.sum;
  return CT_STATUS_OK;
}

struct MultinomialBackwardTerm {
  const float *prob, *labels;
  float *bottom_diff;
  int64_t dim;
  float scale;

  __device__ void
  operator() (int64_t k, Acc &acc) const
  {
    const int64_t i = k / dim, j = k % dim;
    int64_t l;

    if (label_kind (labels[i], dim, 0, 0, &l) != LABEL_CLASS)
      {
        bottom_diff[k] = 0.0f;
        mark_bad (acc, i);
        return;
      }
    bottom_diff[k] = j == l ? scale / fmaxf (prob[k], LOG_THRESHOLD) : 0.0f;
  }
};

extern "C" CtStatus
ct_cuda_multinomial_logistic_backward (int64_t num, int64_t dim, const float *prob,
                                       const float *labels, float scale, float *bottom_diff)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (num, dim, 1))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (num * dim, MultinomialBackwardTerm{ prob, labels, bottom_diff, dim, scale },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  return acc.bad != NO_BAD ? CT_STATUS_INVALID : CT_STATUS_OK;
}

/* ---- contrastive ---- */

/* As cpu/loss.c: a similarity whose integer part is not zero; NaN is
 * dissimilar. */
__device__ static inline int
is_similar (float y)
{
  return y >= 1.0f || y <= -1.0f;
}

/* One pair per term: its difference, its squared distance (added in
 * channel order, rounded as the CPU rounds), and its cost. */
struct ContrastiveForwardTerm {
  const float *a, *b, *similar;
  float *diff, *dist_sq;
  int64_t channels;
  float margin;
  int legacy;

  __device__ void
  operator() (int64_t i, Acc &acc) const
  {
    float s = 0.0f;

    for (int64_t c = 0; c < channels; c++)
      {
        const int64_t k = i * channels + c;
        const float d = a[k] - b[k];

        diff[k] = d;
        s = __fadd_rn (s, __fmul_rn (d, d));
      }
    dist_sq[i] = s;
    if (is_similar (similar[i]))
      acc.sum += s;
    else if (legacy)
      acc.sum += fmaxf (margin - s, 0.0f);
    else
      {
        float m = fmaxf (margin - sqrtf (s), 0.0f);

        acc.sum += __fmul_rn (m, m);
      }
  }
};

extern "C" CtStatus
ct_cuda_contrastive_forward (int64_t num, int64_t channels, const float *a, const float *b,
                             const float *similar, float margin, int legacy,
                             float *diff, float *dist_sq, float *loss)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (num, channels, 1))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (num, ContrastiveForwardTerm{ a, b, similar, diff, dist_sq, channels, margin,
                                                legacy },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  *loss = (float) acc.sum;
  return CT_STATUS_OK;
}

__global__ static void
contrastive_backward_kernel (int64_t num, int64_t channels, const float *diff,
                             const float *dist_sq, const float *similar, float margin,
                             int legacy, float alpha, float *bottom_diff)
{
  CT_CUDA_LOOP (k, num * channels)
    {
      const int64_t i = k / channels;
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
              beta = __fmul_rn (-alpha, mdist) / (dist + 1e-4f);
            }
          if (!(mdist > 0.0f))
            {
              /* Outside the margin: no gradient at all (not beta * diff). */
              bottom_diff[k] = 0.0f;
              continue;
            }
        }
      bottom_diff[k] = beta * diff[k];
    }
}

extern "C" CtStatus
ct_cuda_contrastive_backward (int64_t num, int64_t channels, const float *diff,
                              const float *dist_sq, const float *similar, float margin,
                              int legacy, float alpha, float *bottom_diff)
{
  if (!valid_3d (num, channels, 1))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (num * channels == 0)
    return CT_STATUS_OK;
  contrastive_backward_kernel<<<ct_cuda_blocks (num * channels), CT_CUDA_THREADS>>> (
    num, channels, diff, dist_sq, similar, margin, legacy, alpha, bottom_diff);
  return ct_cuda_launch_status ();
}

/* ---- accuracy ---- */

/* Whether the label at position (I, J), of class L, is among the TOP_K
 * best scores: fewer than TOP_K others are >= its own, counted as the CPU
 * counts them (stopping once TOP_K are found). */
__device__ static inline int
top_k_hit (const float *scores, int64_t classes, int64_t inner, int64_t i, int64_t j,
           int64_t l, int64_t top_k)
{
  const float *x = scores + i * classes * inner + j;
  const float truth = x[l * inner];
  int64_t better = -1; /* the true class counts itself once */

  for (int64_t k = 0; k < classes && better < top_k; k++)
    better += x[k * inner] >= truth;
  return better < top_k;
}

struct AccuracyTerm {
  const float *scores, *labels;
  int64_t classes, inner, top_k;
  int has_ignore;
  int32_t ignore_label;

  __device__ void
  operator() (int64_t p, Acc &acc) const
  {
    int64_t l;

    switch (label_kind (labels[p], classes, has_ignore, ignore_label, &l))
      {
      case LABEL_IGNORED:
        return;
      case LABEL_BAD:
        mark_bad (acc, p);
        return;
      default:
        break;
      }
    if (top_k_hit (scores, classes, inner, p / inner, p % inner, l, top_k))
      acc.sum += 1.0;
    acc.count++;
  }
};

/* One block per class: its labels and its hits among all positions, in
 * integers (exact in any order). */
__global__ static void
accuracy_per_class_kernel (int64_t positions, int64_t classes, int64_t inner,
                           const float *scores, const float *labels, int64_t top_k,
                           int has_ignore, int32_t ignore_label,
                           float *per_class, float *class_counts)
{
  __shared__ long long counts[REDUCE_THREADS];
  __shared__ long long hits[REDUCE_THREADS];
  const unsigned int t = threadIdx.x;

  for (int64_t c = blockIdx.x; c < classes; c += gridDim.x)
    {
      long long count = 0, hit = 0;

      for (int64_t p = t; p < positions; p += blockDim.x)
        {
          int64_t l;

          if (label_kind (labels[p], classes, has_ignore, ignore_label, &l) != LABEL_CLASS
              || l != c)
            continue;
          count++;
          hit += top_k_hit (scores, classes, inner, p / inner, p % inner, l, top_k);
        }
      counts[t] = count;
      hits[t] = hit;
      __syncthreads ();
      for (unsigned int s = REDUCE_THREADS / 2; s > 0; s >>= 1)
        {
          if (t < s)
            {
              counts[t] += counts[t + s];
              hits[t] += hits[t + s];
            }
          __syncthreads ();
        }
      if (t == 0)
        {
          class_counts[c] = (float) counts[0];
          per_class[c] = counts[0] == 0 ? 0.0f : (float) hits[0] / (float) counts[0];
        }
      /* The shared arrays are read before the next class writes them. */
      __syncthreads ();
    }
}

extern "C" CtStatus
ct_cuda_accuracy (int64_t outer, int64_t classes, int64_t inner,
                  const float *scores, const float *labels, int64_t top_k,
                  int has_ignore, int32_t ignore_label,
                  float *accuracy, float *per_class, float *class_counts)
{
  CtStatus status;
  Acc acc;

  if (!valid_3d (outer, classes, inner) || top_k < 0)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  status = reduce (outer * inner,
                   AccuracyTerm{ scores, labels, classes, inner, top_k, has_ignore,
                                 ignore_label },
                   &acc);
  if (status != CT_STATUS_OK)
    return status;
  if (acc.bad != NO_BAD)
    return CT_STATUS_INVALID;
  if (per_class != nullptr && classes > 0)
    {
      unsigned int blocks = (unsigned int) (classes < 65535 ? classes : 65535);

      accuracy_per_class_kernel<<<blocks, REDUCE_THREADS>>> (outer * inner, classes, inner,
                                                             scores, labels, top_k, has_ignore,
                                                             ignore_label, per_class,
                                                             class_counts);
      if ((status = ct_cuda_launch_status ()) != CT_STATUS_OK)
        return status;
    }
  *accuracy = acc.count == 0 ? 0.0f : (float) acc.sum / (float) acc.count;
  return CT_STATUS_OK;
}
