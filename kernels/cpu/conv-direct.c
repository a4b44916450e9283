/* cpu/conv-direct.c: the forward pass of 2-D convolutions of inputs
 * with a few channels (a net's first layer) at stride 1, straight from
 * the image, with AVX-512.
 *
 * A first layer has few weights per output channel (LeNet's conv1 25,
 * CIFAR-10's 75) and large planes, so the column tiles (cpu/conv-tiles.c)
 * spend about as long writing and reading columns as multiplying them,
 * and oneDNN pads the channels to 16. Here each image is copied once into
 * a buffer with its padding and a few zero floats at the end of each row,
 * and the kernel reads the inputs of weight k at a fixed offset from an
 * output's position in that copy. For up to 12 output channels and two
 * vectors (32 outputs) of an output row, 24 sums stay in registers; for
 * each weight, two loads of the copy and, per channel, one broadcast
 * weight feeding two fused multiply-adds. The sums run over k in order,
 * one fused multiply-add per term, so results differ from the im2col
 * path's BLAS products in rounding only (tests/kernels/
 * test-conv-backends.c holds them to 1e-5 of the output's scale); the
 * bias is added to each finished sum, as Caffe adds it.
 *
 * Only the forward pass: the same scheme for the weight gradient was
 * slower than im2col (PERFORMANCE.md). */
#include <stdatomic.h>
#include <string.h>

#include "conv-direct.h"
#include "isa.h"
#include "switches.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_DIRECT 1
#endif

/* The most input channels: beyond a first layer's few, the column tiles
 * (cpu/conv-tiles.c) and oneDNN have enough sums per element. */
#define MAX_IN_CHANNELS 4

/* Output channels per block. */
#define FORWARD_OB 12

static atomic_int direct_allowed = 1;

int
ct_cpu_conv_set_direct (int use)
{
  return atomic_exchange (&direct_allowed, use != 0);
}

static int
shape_fits (const CtConvShape *s)
{
  if (s->num_spatial_axes != 2 || s->group != 1 || s->in_channels < 1
      || s->in_channels > MAX_IN_CHANNELS || s->out_channels < 1)
    return 0;
  for (int i = 0; i < 2; i++)
    if (s->stride[i] != 1 || s->dilation[i] != 1 || s->pad[i] < 0 || s->kernel[i] < 1
        || s->in_dims[i] < 1 || s->out_dims[i] < 1
        || s->out_dims[i] != s->in_dims[i] + 2 * s->pad[i] - s->kernel[i] + 1)
      return 0;
  return s->in_channels * s->kernel[0] * s->kernel[1] <= CT_CONV_DIRECT_MAX_K;
}

int
ct_conv_direct_plan (const CtConvShape *s, CtConvDirect *d)
{
#ifdef HAVE_DIRECT
  int64_t step, rows;

  memset (d, 0, sizeof *d);
  if (!atomic_load (&direct_allowed) || !ct_cpu_have_avx512 () || !shape_fits (s))
    return 0;
  d->k = s->in_channels * s->kernel[0] * s->kernel[1];
  d->out_h = s->out_dims[0];
  d->out_w = s->out_dims[1];
  d->positions = d->out_h * d->out_w;
  d->vectors = d->out_w > 16 ? 2 : 1;
  step = 16 * d->vectors;
  /* A block's loads reach STEP - 1 floats past its first output, plus the
   * kernel's width: rows are padded to whole blocks. */
  d->pitch = (d->out_w + step - 1) / step * step + s->kernel[1] - 1;
  rows = d->out_h + s->kernel[0] - 1;
  if (rows > INT32_MAX / d->pitch / s->in_channels)
    return 0;
  d->plane = rows * d->pitch;
  for (int64_t c = 0, k = 0; c < s->in_channels; c++)
    for (int64_t ky = 0; ky < s->kernel[0]; ky++)
      for (int64_t kx = 0; kx < s->kernel[1]; kx++)
        d->offset[k++] = (int32_t) (c * d->plane + ky * d->pitch + kx);
  return 1;
#else
  (void) s;
  memset (d, 0, sizeof *d);
  return 0;
#endif
}

static size_t
copy_floats (const CtConvDirect *d, const CtConvShape *s)
{
  return (size_t) ((s->in_channels * d->plane + 15) / 16 * 16);
}

size_t
ct_conv_direct_forward_floats (const CtConvDirect *d, const CtConvShape *s)
{
  return copy_floats (d, s);
}

#ifdef HAVE_DIRECT
#define DIRECT_TARGET __attribute__ ((target ("avx512f")))

/* The image INPUT into COPY, whose padding and rows' ends the caller
 * zeroed once: images only ever write the rest. */
static void
pad_copy (const CtConvDirect *d, const CtConvShape *s, const float *input, float *copy)
{
  const int64_t h = s->in_dims[0], w = s->in_dims[1];

  for (int64_t c = 0; c < s->in_channels; c++)
    for (int64_t y = 0; y < h; y++)
      memcpy (copy + c * d->plane + (y + s->pad[0]) * d->pitch + s->pad[1],
              input + (c * h + y) * w, (size_t) w * sizeof (float));
}

/* OUT[i][16 j + l] = sum over k of W[i * K + k] SRC[OFFSET[k] + 16 j + l]
 * (+ BIAS[i]), for the block's OB channels (row pitch OUT_ROW) and NV
 * vectors, the last one's stores masked to TAIL. OB and NV are constants
 * in each instance below. */
DIRECT_TARGET static inline __attribute__ ((always_inline)) void
forward_block (const int ob, const int nv, int64_t k, const int32_t *offset,
               const float *src, const float *w, __mmask16 tail, float *out,
               int64_t out_row, const float *bias)
{
  __m512 acc[FORWARD_OB][2];

#pragma GCC unroll 12
  for (int i = 0; i < ob; i++)
#pragma GCC unroll 2
    for (int j = 0; j < nv; j++)
      acc[i][j] = _mm512_setzero_ps ();
  for (int64_t kk = 0; kk < k; kk++)
    {
      const float *p = src + offset[kk];
      __m512 v[2];

#pragma GCC unroll 2
      for (int j = 0; j < nv; j++)
        v[j] = _mm512_loadu_ps (p + 16 * j);
#pragma GCC unroll 12
      for (int i = 0; i < ob; i++)
        {
          const __m512 a = _mm512_set1_ps (w[i * k + kk]);

#pragma GCC unroll 2
          for (int j = 0; j < nv; j++)
            acc[i][j] = _mm512_fmadd_ps (a, v[j], acc[i][j]);
        }
    }
#pragma GCC unroll 12
  for (int i = 0; i < ob; i++)
#pragma GCC unroll 2
    for (int j = 0; j < nv; j++)
      {
        __m512 r = acc[i][j];

        if (bias != NULL)
          r = _mm512_add_ps (r, _mm512_set1_ps (bias[i]));
        _mm512_mask_storeu_ps (out + i * out_row + 16 * j, j == nv - 1 ? tail : 0xffff, r);
      }
}

typedef void (*ForwardKernel) (int64_t k, const int32_t *offset, const float *src,
                               const float *w, __mmask16 tail, float *out, int64_t out_row,
                               const float *bias);

#define FORWARD_KERNEL(OB, NV)                                                               \
  DIRECT_TARGET static void forward_##OB##_##NV (int64_t k, const int32_t *offset,           \
                                                 const float *src, const float *w,           \
                                                 __mmask16 tail, float *out,                 \
                                                 int64_t out_row, const float *bias)         \
  {                                                                                          \
    forward_block (OB, NV, k, offset, src, w, tail, out, out_row, bias);                     \
  }
#define FORWARD_KERNELS(OB) FORWARD_KERNEL (OB, 1) FORWARD_KERNEL (OB, 2)
FORWARD_KERNELS (1)
FORWARD_KERNELS (2)
FORWARD_KERNELS (3)
FORWARD_KERNELS (4)
FORWARD_KERNELS (5)
FORWARD_KERNELS (6)
FORWARD_KERNELS (7)
FORWARD_KERNELS (8)
FORWARD_KERNELS (9)
FORWARD_KERNELS (10)
FORWARD_KERNELS (11)
FORWARD_KERNELS (12)

/* [OB - 1][NV - 1] */
static const ForwardKernel forward_kernels[FORWARD_OB][2] = {
  { forward_1_1, forward_1_2 },   { forward_2_1, forward_2_2 },
  { forward_3_1, forward_3_2 },   { forward_4_1, forward_4_2 },
  { forward_5_1, forward_5_2 },   { forward_6_1, forward_6_2 },
  { forward_7_1, forward_7_2 },   { forward_8_1, forward_8_2 },
  { forward_9_1, forward_9_2 },   { forward_10_1, forward_10_2 },
  { forward_11_1, forward_11_2 }, { forward_12_1, forward_12_2 },
};

/* One image, its copy made. */
static void
forward_image (const CtConvDirect *d, const CtConvShape *s, const float *copy,
               const float *weights, const float *bias, float *output)
{
  const int64_t m = s->out_channels, k = d->k, step = 16 * d->vectors;
  /* Blocks of equal size: LeNet's 20 channels go 10 and 10. */
  const int64_t blocks = (m + FORWARD_OB - 1) / FORWARD_OB, ob = (m + blocks - 1) / blocks;

  for (int64_t o = 0; o < m; o += ob)
    {
      const int rows = (int) (m - o < ob ? m - o : ob);

      for (int64_t y = 0; y < d->out_h; y++)
        for (int64_t x = 0; x < d->out_w; x += step)
          {
            const int64_t left = d->out_w - x < step ? d->out_w - x : step;
            const int nv = (int) ((left + 15) / 16);
            const int tail_lanes = (int) (left - 16 * (nv - 1));
            const __mmask16 tail = (__mmask16) ((1u << tail_lanes) - 1);

            forward_kernels[rows - 1][nv - 1](k, d->offset, copy + y * d->pitch + x,
                                              weights + o * k, tail,
                                              output + o * d->positions + y * d->out_w + x,
                                              d->positions, bias != NULL ? bias + o : NULL);
          }
    }
}
#endif

void
ct_conv_direct_forward (const CtConvDirect *d, const CtConvShape *s, int64_t num,
                        const float *input, const float *weights, const float *bias,
                        float *output, float *scratch)
{
#ifdef HAVE_DIRECT
  const int64_t in_dim = s->in_channels * s->in_dims[0] * s->in_dims[1];

  memset (scratch, 0, copy_floats (d, s) * sizeof (float));
  for (int64_t n = 0; n < num; n++)
    {
      pad_copy (d, s, input + n * in_dim, scratch);
      forward_image (d, s, scratch, weights, bias, output + n * s->out_channels * d->positions);
    }
#else
  (void) d, (void) s, (void) num, (void) input, (void) weights, (void) bias, (void) output,
    (void) scratch;
#endif
}
