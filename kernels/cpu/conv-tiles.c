/* cpu/conv-tiles.c: 2-D convolutions of small planes on column tiles that
 * stay in the L1 cache, with AVX-512.
 *
 * The im2col path (cpu/conv.c) writes an image's whole column matrix and
 * hands it to a BLAS product, which copies it again into blocks of its
 * own. For LeNet's conv2 (20 channels of 12 x 12, 5 x 5 kernel) that
 * matrix is 500 x 64 floats, 125 KiB: more than the L1 cache holds, so
 * it goes out to L2 and back twice. Here the column matrix is built a few
 * input channels at a time, in a tile of at most TILE_FLOATS, and
 * multiplied straight from there by a register-blocked kernel that reads
 * the weights where they are. The input gradient runs the same way
 * backwards: a tile of the column gradient, then its col2im, a few
 * channels at a time. (The weight gradient stays on im2col and BLAS.)
 *
 * The kernel computes C = A B for MR rows of C and up to 64 columns (four
 * vectors of 16): MR x 4 sums in registers (24 of AVX-512's 32 at MR = 6),
 * and for each k, four loads of B's row and MR broadcasts of A's column,
 * each broadcast feeding four fused multiply-adds; the last vector's loads
 * and stores are masked to the columns left. MR divides the rows where it
 * can (LeNet's 50 output channels go 5 at a time), so that no block
 * computes rows that are not there.
 *
 * The weights are read where they are: copying them into the kernel's
 * order before every call costs more than the layer gains.
 *
 * Every sum runs over k in order, one fused multiply-add per term: BLAS's
 * order is another, so results differ from the im2col path's in rounding
 * only (tests/kernels/test-conv-backends.c holds them to 1e-5 of the
 * output's scale). The bias is added to the finished sum, as Caffe adds
 * it. */
#include <stdatomic.h>
#include <string.h>

#include "conv-tiles.h"
#include "isa.h"
#include "switches.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_TILES 1
#endif

/* The most floats a tile holds (32 KiB of the 48 KiB L1 cache): LeNet's
 * conv2 takes five channels (125 rows of 64) at a time. */
#define TILE_FLOATS 8192

/* Columns of C per kernel call: four vectors of 16. */
#define NR 64

static atomic_int tiles_allowed = 1;

int
ct_cpu_conv_set_tiles (int use)
{
  return atomic_exchange (&tiles_allowed, use != 0);
}

/* Rows per block: one that divides ROWS, else 6. */
static int
choose_mr (int64_t rows)
{
  if (rows % 6 == 0)
    return 6;
  if (rows % 5 == 0)
    return 5;
  if (rows % 4 == 0)
    return 4;
  return 6;
}

#ifdef HAVE_TILES
#define TILES_TARGET __attribute__ ((target ("avx512f")))

/* C[i][0 .. n) (+)= sum over k of A[i][k] B[k][0 .. n), rows i < ROWS of
 * the block; n = 16 (NV - 1) + the lanes of TAIL. A[i][k] is
 * a[i * A_ROW + k * A_STEP]: the weights read in place, a row per output
 * channel forward (A_STEP 1), transposed for the input gradient (A_ROW 1);
 * rows past ROWS read the last one again and are not stored. With LOAD_C
 * the sums start from C, else from 0; BIAS (may be NULL) is added to each
 * finished sum. MR and NV are constants in each instance below. */
TILES_TARGET static inline __attribute__ ((always_inline)) void
tile_kernel (const int mr, const int nv, int64_t k, const float *a, int64_t a_row,
             int64_t a_step, const float *restrict b, int64_t ldb, __mmask16 tail,
             float *restrict c, int64_t ldc, int rows, int load_c, const float *bias)
{
  __m512 acc[6][4];
  int64_t row_at[6];

#pragma GCC unroll 6
  for (int i = 0; i < mr; i++)
    {
      row_at[i] = (i < rows ? i : rows - 1) * a_row;
#pragma GCC unroll 4
      for (int j = 0; j < nv; j++)
        acc[i][j] = load_c && i < rows ? _mm512_maskz_loadu_ps (j == nv - 1 ? tail : 0xffff,
                                                                c + i * ldc + 16 * j)
                                       : _mm512_setzero_ps ();
    }
  for (int64_t kk = 0; kk < k; kk++, a += a_step, b += ldb)
    {
      __m512 bv[4];

#pragma GCC unroll 4
      for (int j = 0; j < nv; j++)
        bv[j] = j == nv - 1 ? _mm512_maskz_loadu_ps (tail, b + 16 * j)
                            : _mm512_loadu_ps (b + 16 * j);
#pragma GCC unroll 6
      for (int i = 0; i < mr; i++)
        {
          const __m512 av = _mm512_set1_ps (a[row_at[i]]);

#pragma GCC unroll 4
          for (int j = 0; j < nv; j++)
            acc[i][j] = _mm512_fmadd_ps (av, bv[j], acc[i][j]);
        }
    }
#pragma GCC unroll 6
  for (int i = 0; i < mr; i++)
    if (i < rows)
      {
#pragma GCC unroll 4
        for (int j = 0; j < nv; j++)
          {
            __m512 v = acc[i][j];

            if (bias != NULL)
              v = _mm512_add_ps (v, _mm512_set1_ps (bias[i]));
            _mm512_mask_storeu_ps (c + i * ldc + 16 * j, j == nv - 1 ? tail : 0xffff, v);
          }
      }
}

typedef void (*TileKernel) (int64_t k, const float *a, int64_t a_row, int64_t a_step,
                            const float *b, int64_t ldb, __mmask16 tail, float *c, int64_t ldc,
                            int rows, int load_c, const float *bias);

#define TILE_KERNEL(MR, NV)                                                                   \
  TILES_TARGET static void tile_kernel_##MR##_##NV (                                          \
    int64_t k, const float *a, int64_t a_row, int64_t a_step, const float *b, int64_t ldb,    \
    __mmask16 tail, float *c, int64_t ldc, int rows, int load_c, const float *bias)           \
  {                                                                                           \
    tile_kernel (MR, NV, k, a, a_row, a_step, b, ldb, tail, c, ldc, rows, load_c, bias);      \
  }
TILE_KERNEL (4, 1)
TILE_KERNEL (4, 2)
TILE_KERNEL (4, 3)
TILE_KERNEL (4, 4)
TILE_KERNEL (5, 1)
TILE_KERNEL (5, 2)
TILE_KERNEL (5, 3)
TILE_KERNEL (5, 4)
TILE_KERNEL (6, 1)
TILE_KERNEL (6, 2)
TILE_KERNEL (6, 3)
TILE_KERNEL (6, 4)

/* [MR - 4][NV - 1] */
static const TileKernel tile_kernels[3][4] = {
  { tile_kernel_4_1, tile_kernel_4_2, tile_kernel_4_3, tile_kernel_4_4 },
  { tile_kernel_5_1, tile_kernel_5_2, tile_kernel_5_3, tile_kernel_5_4 },
  { tile_kernel_6_1, tile_kernel_6_2, tile_kernel_6_3, tile_kernel_6_4 },
};

/* C (ROWS x N, row pitch LDC) (+)= A B, A[i][k] at a[i * A_ROW + k *
 * A_STEP], B K x N (row pitch LDB): MR rows and NR columns at a time. */
static void
multiply (int mr, int64_t rows, int64_t n, int64_t k, const float *a, int64_t a_row,
          int64_t a_step, const float *b, int64_t ldb, float *c, int64_t ldc, int load_c,
          const float *bias)
{
  for (int64_t row = 0; row < rows; row += mr)
    {
      const int block_rows = rows - row < mr ? (int) (rows - row) : mr;

      for (int64_t col = 0; col < n; col += NR)
        {
          const int64_t left = n - col < NR ? n - col : NR;
          const int nv = (int) ((left + 15) / 16);
          const int tail_lanes = (int) (left - 16 * (nv - 1));
          const __mmask16 tail = (__mmask16) ((1u << tail_lanes) - 1);

          tile_kernels[mr - 4][nv - 1](k, a + row * a_row, a_row, a_step, b + col, ldb, tail,
                                       c + row * ldc + col, ldc, block_rows, load_c,
                                       bias != NULL ? bias + row : NULL);
        }
    }
}

#endif

int
ct_conv_tiles_plan (const CtConvShape *s, CtConvTiles *t)
{
#ifdef HAVE_TILES
  memset (t, 0, sizeof *t);
  if (!atomic_load (&tiles_allowed) || !ct_cpu_have_avx512 () || s->num_spatial_axes != 2
      || s->group <= 0 || s->in_channels % s->group != 0 || s->out_channels % s->group != 0)
    return 0;
  t->m = s->out_channels / s->group;
  t->in_channels = s->in_channels / s->group;
  t->window = s->kernel[0] * s->kernel[1];
  t->width = s->out_dims[1];
  t->positions = s->out_dims[0] * t->width;
  /* Fewer than two vectors of positions waste most lanes; a 1x1 kernel
   * at stride 1 needs no column matrix at all. */
  if (t->positions < 32 || (t->window == 1 && s->stride[0] == 1 && s->stride[1] == 1))
    return 0;
  t->k = t->in_channels * t->window;
  t->rows_per_tile = s->out_dims[0];
  if (t->window > TILE_FLOATS / t->positions)
    {
      /* A plane too large for one channel's tile is cut into strips of
       * output rows, for the forward pass (whose strips read from a
       * strip of the input; without padding above and below, that is a
       * smaller image of its own). LeNet's conv1 (28 x 28, 5 x 5 kernel)
       * goes 13 rows at a time. */
      t->rows_per_tile = TILE_FLOATS / (t->window * t->width);
      if (t->rows_per_tile < 1 || s->pad[0] != 0 || t->rows_per_tile * t->width < 32)
        return 0;
      t->channels_per_tile = 1;
    }
  else
    t->channels_per_tile = TILE_FLOATS / (t->window * t->positions);
  if (t->channels_per_tile > t->in_channels)
    t->channels_per_tile = t->in_channels;
  t->mr_forward = choose_mr (t->m);
  t->mr_backward = choose_mr (t->channels_per_tile * t->window);
  return 1;
#else
  (void) s;
  (void) t;
  return 0;
#endif
}

size_t
ct_conv_tiles_tile_floats (const CtConvTiles *t)
{
  return (size_t) (t->channels_per_tile * t->window * t->rows_per_tile * t->width);
}

/* The output rows of the strip that starts at row R0. */
static int64_t
strip_rows (const CtConvTiles *t, const CtConvShape *s, int64_t r0)
{
  return s->out_dims[0] - r0 < t->rows_per_tile ? s->out_dims[0] - r0 : t->rows_per_tile;
}

/* The input channels of the tile that starts at channel FIRST. */
static int64_t
tile_channels (const CtConvTiles *t, int64_t first)
{
  return t->in_channels - first < t->channels_per_tile ? t->in_channels - first
                                                       : t->channels_per_tile;
}

void
ct_conv_tiles_forward (const CtConvTiles *t, const CtConvShape *s, const float *input,
                       const float *weights, const float *bias, float *output, float *tile)
{
#ifdef HAVE_TILES
  const int64_t plane = s->in_dims[0] * s->in_dims[1];

  for (int64_t g = 0; g < s->group; g++)
    for (int64_t r0 = 0; r0 < s->out_dims[0]; r0 += t->rows_per_tile)
      {
        const int64_t rows = strip_rows (t, s, r0), n = rows * t->width;
        /* The input rows the strip's windows read, from the first. */
        const int64_t height = rows == s->out_dims[0] ? s->in_dims[0]
                                                      : (rows - 1) * s->stride[0]
                                                          + s->dilation[0] * (s->kernel[0] - 1) + 1;
        const float *in = input + g * t->in_channels * plane + r0 * s->stride[0] * s->in_dims[1];
        const float *w = weights + g * t->m * t->k;
        float *out = output + g * t->m * t->positions + r0 * t->width;

        for (int64_t c0 = 0; c0 < t->in_channels; c0 += t->channels_per_tile)
          {
            const int64_t channels = tile_channels (t, c0);
            const int last = c0 + channels == t->in_channels;

            /* The geometry was checked by the caller's plan. */
            ct_cpu_im2col_ld (in + c0 * plane, channels, height, s->in_dims[1], s->kernel[0],
                              s->kernel[1], s->pad[0], s->pad[1], s->stride[0], s->stride[1],
                              s->dilation[0], s->dilation[1], tile, n);
            multiply (t->mr_forward, t->m, n, channels * t->window, w + c0 * t->window, t->k, 1,
                      tile, n, out, t->positions, c0 > 0,
                      last && bias != NULL ? bias + g * t->m : NULL);
          }
      }
#else
  (void) t, (void) s, (void) input, (void) weights, (void) bias, (void) output, (void) tile;
#endif
}

void
ct_conv_tiles_backward_data (const CtConvTiles *t, const CtConvShape *s,
                             const float *output_diff, const float *weights,
                             float *input_diff, float *tile)
{
#ifdef HAVE_TILES
  const int64_t plane = s->in_dims[0] * s->in_dims[1];

  for (int64_t g = 0; g < s->group; g++)
    {
      const float *dy = output_diff + g * t->m * t->positions;
      const float *w = weights + g * t->m * t->k;
      float *dx = input_diff + g * t->in_channels * plane;

      for (int64_t c0 = 0; c0 < t->in_channels; c0 += t->channels_per_tile)
        {
          const int64_t channels = tile_channels (t, c0);

          /* The tile's column rows: the weights' columns, read down. */
          multiply (t->mr_backward, channels * t->window, t->positions, t->m,
                    w + c0 * t->window, 1, t->k, dy, t->positions, tile, t->positions, 0,
                    NULL);
          ct_cpu_col2im_ld (tile, t->positions, channels, s->in_dims[0], s->in_dims[1],
                            s->kernel[0], s->kernel[1], s->pad[0], s->pad[1], s->stride[0],
                            s->stride[1], s->dilation[0], s->dilation[1], dx + c0 * plane);
        }
    }
#else
  (void) t, (void) s, (void) output_diff, (void) weights, (void) input_diff, (void) tile;
#endif
}
