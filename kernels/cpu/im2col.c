/* cpu/im2col.c: the CPU side of im2col.h.
 *
 * Small planes (every plane of the nets in the benchmarks, past their first
 * layer) take the window path: a padded plane is copied once per channel
 * into a zero-bordered buffer on the stack, after which every (kernel
 * offset, output row) of the column buffer is a plain strided copy, with
 * no bounds to test. Unpadded planes are read in place. Per output row
 * the general path below costs a few calls and branches, which for rows of
 * 8 to 16 floats is most of the work.
 *
 * Larger planes take the general path: for each (channel, kernel offset)
 * row of the column buffer and each output row, the output columns that
 * read inside the image form one contiguous range, found once per kernel
 * offset; the loops copy that range (a memcpy at stride 1) and fill the
 * rest with zeros, instead of testing every element.
 *
 * col2im walks the entries in the same order as Caffe on both paths (the
 * window path sums into the padded buffer, then copies its interior out),
 * so its sums round identically.
 *
 * On CPUs with AVX-512, windows at stride 1 move as masked vectors of 16
 * floats (cpu/im2col-avx512.c): a row of the column buffer that
 * is shorter than a vector is one masked load and store, not a loop with
 * its own start and end. */
#include <stdatomic.h>
#include <string.h>

#include "im2col-private.h"
#include "im2col.h"
#include "isa.h"
#include "switches.h"

/* Copy and clear N floats. Rows of small images are a few floats long, and
 * a library call per row would cost more than the row: short ones move in
 * fixed-size pieces the compiler does inline. */
static inline void
copy_floats (float *dst, const float *src, int64_t n)
{
  int64_t i = 0;

  if (n > 32)
    {
      memcpy (dst, src, (size_t) n * sizeof (float));
      return;
    }
  for (; i + 8 <= n; i += 8)
    memcpy (dst + i, src + i, 8 * sizeof (float));
  if (i + 4 <= n)
    {
      memcpy (dst + i, src + i, 4 * sizeof (float));
      i += 4;
    }
  /* At most three left, as in zero_floats. */
  for (int64_t left = n - i; left > 0; left--, i++)
    dst[i] = src[i];
}

static inline void
zero_floats (float *dst, int64_t n)
{
  static const float zeros[8] = { 0 };
  int64_t i = 0;

  if (n > 32)
    {
      memset (dst, 0, (size_t) n * sizeof (float));
      return;
    }
  for (; i + 8 <= n; i += 8)
    memcpy (dst + i, zeros, sizeof zeros);
  if (i + 4 <= n)
    {
      memcpy (dst + i, zeros, 4 * sizeof (float));
      i += 4;
    }
  /* At most three left: written out, so that no loop becomes a call. */
  if (i < n)
    dst[i++] = 0.0f;
  if (i < n)
    dst[i++] = 0.0f;
  if (i < n)
    dst[i] = 0.0f;
}

/* ceil (A / S) clamped to [0, HI], for a possibly negative A and S > 0. */
static inline int64_t
div_up_clamped (int64_t a, int64_t s, int64_t hi)
{
  int64_t q;

  if (a <= 0)
    return 0;
  q = (a + s - 1) / s;
  return q < hi ? q : hi;
}

/* The output range [*LO, *HI) of one axis whose input position
 * o * stride - pad + offset lies in [0, size). */
static inline void
valid_range (int64_t size, int64_t out, int64_t stride, int64_t pad, int64_t offset,
             int64_t *lo, int64_t *hi)
{
  *lo = div_up_clamped (pad - offset, stride, out);
  *hi = div_up_clamped (size + pad - offset, stride, out);
  if (*hi < *lo)
    *hi = *lo;
}

/* Caffe's output size, or -1 when the arguments are out of range. */
static int64_t
output_size (int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation)
{
  int64_t extent;

  if (in <= 0 || kernel <= 0 || pad < 0 || stride <= 0 || dilation <= 0)
    return -1;
  if (kernel > (INT64_MAX - 1) / dilation || pad > (INT64_MAX - in) / 2)
    return -1;
  extent = dilation * (kernel - 1) + 1;
  if (in + 2 * pad < extent)
    return -1;
  return (in + 2 * pad - extent) / stride + 1;
}

/* Padded planes up to this many floats take the window path (16 KiB of
 * stack): a 58 x 58 plane, GoogLeNet's 56 x 56 with a pad of 1, fits. */
#define WINDOW_PLANE_MAX 4096


/* Whether the window path takes a plane: it is read in place, or its
 * padded copy fits. (The callers have checked that height + 2 pad_h and
 * width + 2 pad_w fit.) */
static int
windows_take (int64_t height, int64_t width, int64_t pad_h, int64_t pad_w)
{
  int64_t rows = height + 2 * pad_h, cols = width + 2 * pad_w;

  if (pad_h == 0 && pad_w == 0)
    return 1;
  return rows <= WINDOW_PLANE_MAX && cols <= WINDOW_PLANE_MAX && rows * cols <= WINDOW_PLANE_MAX;
}

/* PLANE (one channel, row pitch W->pitch) into its rows of the column
 * buffer, one per kernel offset, each LD_COL floats apart. The sizes are
 * read into locals: the build has -fno-strict-aliasing, under which every
 * store to the column buffer could change W, and the loops would reload
 * it. */
static float *
windows_to_col (const Windows *w, const float *plane, float *col, int64_t ld_col)
{
  const int64_t out_h = w->out_h, out_w = w->out_w, stride_w = w->stride_w;
  const int64_t row_step = w->stride_h * w->pitch;

  for (int64_t kh = 0; kh < w->kernel_h; kh++)
    for (int64_t kw = 0; kw < w->kernel_w; kw++, col += ld_col)
      {
        const float *src = plane + kh * w->dilation_h * w->pitch + kw * w->dilation_w;
        float *dst = col;

        if (stride_w == 1)
          for (int64_t oh = 0; oh < out_h; oh++, dst += out_w, src += row_step)
            for (int64_t ow = 0; ow < out_w; ow++)
              dst[ow] = src[ow];
        else
          for (int64_t oh = 0; oh < out_h; oh++, dst += out_w, src += row_step)
            for (int64_t ow = 0; ow < out_w; ow++)
              dst[ow] = src[ow * stride_w];
      }
  return col;
}

/* The adjoint: the column buffer's rows of one channel added into PLANE,
 * in Caffe's order. Returns where the next channel's rows start. */
static const float *
windows_from_col (const Windows *w, const float *col, int64_t ld_col, float *plane)
{
  const int64_t out_h = w->out_h, out_w = w->out_w, stride_w = w->stride_w;
  const int64_t row_step = w->stride_h * w->pitch;

  for (int64_t kh = 0; kh < w->kernel_h; kh++)
    for (int64_t kw = 0; kw < w->kernel_w; kw++, col += ld_col)
      {
        float *dst = plane + kh * w->dilation_h * w->pitch + kw * w->dilation_w;
        const float *src = col;

        if (stride_w == 1)
          for (int64_t oh = 0; oh < out_h; oh++, src += out_w, dst += row_step)
            for (int64_t ow = 0; ow < out_w; ow++)
              dst[ow] += src[ow];
        else
          for (int64_t oh = 0; oh < out_h; oh++, src += out_w, dst += row_step)
            for (int64_t ow = 0; ow < out_w; ow++)
              dst[ow * stride_w] += src[ow];
      }
  return col;
}

/* Copies rows x cols floats between planes of pitches FROM_PITCH and
 * TO_PITCH. */
static void
copy_plane (const float *from, int64_t from_pitch, float *to, int64_t to_pitch, int64_t rows,
            int64_t cols)
{
  for (int64_t r = 0; r < rows; r++)
    memcpy (to + r * to_pitch, from + r * from_pitch, (size_t) cols * sizeof (float));
}

#ifdef HAVE_AVX512_WINDOWS
/* The tests' switch (switches.h). */
static atomic_int avx512_allowed = 1;

static int
have_avx512 (void)
{
  return ct_cpu_have_avx512 () && atomic_load (&avx512_allowed);
}
#endif

int
ct_cpu_im2col_set_avx512 (int use)
{
#ifdef HAVE_AVX512_WINDOWS
  return atomic_exchange (&avx512_allowed, use != 0);
#else
  (void) use;
  return 0;
#endif
}

/* windows_to_col, on AVX-512 where it can. */
static float *
windows_to_col_fast (const Windows *w, const float *plane, float *col, int64_t ld_col)
{
#ifdef HAVE_AVX512_WINDOWS
  if (w->stride_w == 1 && have_avx512 ())
    return ct_im2col_windows_to_col_avx512 (w, plane, col, ld_col);
#endif
  return windows_to_col (w, plane, col, ld_col);
}

static void
im2col_windows (const float *data_im, int64_t channels, int64_t height, int64_t width,
                int64_t pad_h, int64_t pad_w, const Windows *geometry, float *data_col,
                int64_t ld_col)
{
  float padded[WINDOW_PLANE_MAX];
  Windows w = *geometry;
  const int64_t plane = height * width;

  if (pad_h == 0 && pad_w == 0)
    {
      w.pitch = width;
      for (int64_t c = 0; c < channels; c++)
        data_col = windows_to_col_fast (&w, data_im + c * plane, data_col, ld_col);
      return;
    }
  /* The border is zeroed once; each channel overwrites the interior. */
  w.pitch = width + 2 * pad_w;
  memset (padded, 0, (size_t) ((height + 2 * pad_h) * w.pitch) * sizeof (float));
  for (int64_t c = 0; c < channels; c++)
    {
      copy_plane (data_im + c * plane, width, padded + pad_h * w.pitch + pad_w, w.pitch, height,
                  width);
      data_col = windows_to_col_fast (&w, padded, data_col, ld_col);
    }
}

static void
col2im_windows (const float *data_col, int64_t ld_col, int64_t channels, int64_t height,
                int64_t width, int64_t pad_h, int64_t pad_w, const Windows *geometry,
                float *data_im)
{
  float padded[WINDOW_PLANE_MAX];
  Windows w = *geometry;
  const int64_t plane = height * width;

#ifdef HAVE_AVX512_WINDOWS
  if (ct_col2im_rows_take (&w, ld_col, height, width, pad_h, pad_w) && have_avx512 ())
    {
      for (int64_t c = 0; c < channels; c++)
        data_col = ct_col2im_rows_avx512 (&w, data_col, ld_col, height, width, pad_h, pad_w,
                                          data_im + c * plane);
      return;
    }
#endif
  if (pad_h == 0 && pad_w == 0)
    {
      w.pitch = width;
      memset (data_im, 0, (size_t) (channels * plane) * sizeof (float));
      for (int64_t c = 0; c < channels; c++)
        data_col = windows_from_col (&w, data_col, ld_col, data_im + c * plane);
      return;
    }
  w.pitch = width + 2 * pad_w;
  for (int64_t c = 0; c < channels; c++)
    {
      /* Sums start from 0, as Caffe's do; the border's are dropped. */
      memset (padded, 0, (size_t) ((height + 2 * pad_h) * w.pitch) * sizeof (float));
      data_col = windows_from_col (&w, data_col, ld_col, padded);
      copy_plane (padded + pad_h * w.pitch + pad_w, w.pitch, data_im + c * plane, width, height,
                  width);
    }
}

CtStatus
ct_cpu_im2col (const float *data_im, int64_t channels, int64_t height, int64_t width,
               int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
               int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
               float *data_col)
{
  int64_t out_h = output_size (height, kernel_h, pad_h, stride_h, dilation_h);
  int64_t out_w = output_size (width, kernel_w, pad_w, stride_w, dilation_w);

  if (out_h < 0 || out_w < 0)
    return CT_STATUS_INVALID;
  return ct_cpu_im2col_ld (data_im, channels, height, width, kernel_h, kernel_w, pad_h, pad_w,
                           stride_h, stride_w, dilation_h, dilation_w, data_col,
                           out_h * out_w);
}

CtStatus
ct_cpu_im2col_ld (const float *data_im, int64_t channels, int64_t height, int64_t width,
                  int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                  int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                  float *data_col, int64_t ld_col)
{
  int64_t out_h = output_size (height, kernel_h, pad_h, stride_h, dilation_h);
  int64_t out_w = output_size (width, kernel_w, pad_w, stride_w, dilation_w);
  const int64_t plane = height * width;

  if (channels < 0 || out_h < 0 || out_w < 0 || ld_col < out_h * out_w)
    return CT_STATUS_INVALID;
  if (windows_take (height, width, pad_h, pad_w))
    {
      Windows w = { kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w,
                    out_h, out_w, 0 };

      im2col_windows (data_im, channels, height, width, pad_h, pad_w, &w, data_col, ld_col);
      return CT_STATUS_OK;
    }

  for (int64_t c = 0; c < channels; c++)
    {
      const float *im = data_im + c * plane;

      for (int64_t kh = 0; kh < kernel_h; kh++)
        for (int64_t kw = 0; kw < kernel_w; kw++)
          {
            int64_t lo, hi;

            valid_range (width, out_w, stride_w, pad_w, kw * dilation_w, &lo, &hi);
            for (int64_t oh = 0; oh < out_h; oh++)
              {
                int64_t ih = oh * stride_h - pad_h + kh * dilation_h;
                float *dst = data_col + oh * out_w;
                const float *src;

                if (ih < 0 || ih >= height)
                  {
                    zero_floats (dst, out_w);
                    continue;
                  }
                if (lo > 0)
                  zero_floats (dst, lo);
                if (hi > lo)
                  {
                    src = im + ih * width + lo * stride_w - pad_w + kw * dilation_w;
                    if (stride_w == 1)
                      copy_floats (dst + lo, src, hi - lo);
                    else
                      for (int64_t ow = lo; ow < hi; ow++, src += stride_w)
                        dst[ow] = *src;
                  }
                if (hi < out_w)
                  zero_floats (dst + hi, out_w - hi);
              }
            data_col += ld_col;
          }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_col2im (const float *data_col, int64_t channels, int64_t height, int64_t width,
               int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
               int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
               float *data_im)
{
  int64_t out_h = output_size (height, kernel_h, pad_h, stride_h, dilation_h);
  int64_t out_w = output_size (width, kernel_w, pad_w, stride_w, dilation_w);

  if (out_h < 0 || out_w < 0)
    return CT_STATUS_INVALID;
  return ct_cpu_col2im_ld (data_col, out_h * out_w, channels, height, width, kernel_h,
                           kernel_w, pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w,
                           data_im);
}

CtStatus
ct_cpu_col2im_ld (const float *data_col, int64_t ld_col, int64_t channels, int64_t height,
                  int64_t width, int64_t kernel_h, int64_t kernel_w, int64_t pad_h,
                  int64_t pad_w, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                  int64_t dilation_w, float *data_im)
{
  int64_t out_h = output_size (height, kernel_h, pad_h, stride_h, dilation_h);
  int64_t out_w = output_size (width, kernel_w, pad_w, stride_w, dilation_w);
  const int64_t plane = height * width;

  if (channels < 0 || out_h < 0 || out_w < 0 || ld_col < out_h * out_w)
    return CT_STATUS_INVALID;
  if (windows_take (height, width, pad_h, pad_w))
    {
      Windows w = { kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w,
                    out_h, out_w, 0 };

      col2im_windows (data_col, ld_col, channels, height, width, pad_h, pad_w, &w, data_im);
      return CT_STATUS_OK;
    }

  memset (data_im, 0, (size_t) (channels * plane) * sizeof (float));
  for (int64_t c = 0; c < channels; c++)
    {
      float *im = data_im + c * plane;

      for (int64_t kh = 0; kh < kernel_h; kh++)
        for (int64_t kw = 0; kw < kernel_w; kw++)
          {
            int64_t lo, hi;

            valid_range (width, out_w, stride_w, pad_w, kw * dilation_w, &lo, &hi);
            for (int64_t oh = 0; oh < out_h; oh++)
              {
                int64_t ih = oh * stride_h - pad_h + kh * dilation_h;
                const float *src = data_col + oh * out_w;
                float *dst;

                if (ih < 0 || ih >= height || hi == lo)
                  continue;
                dst = im + ih * width + lo * stride_w - pad_w + kw * dilation_w;
                if (stride_w == 1)
                  for (int64_t ow = lo; ow < hi; ow++)
                    dst[ow - lo] += src[ow];
                else
                  for (int64_t ow = lo; ow < hi; ow++, dst += stride_w)
                    *dst += src[ow];
              }
            data_col += ld_col;
          }
    }
  return CT_STATUS_OK;
}

static int
valid_batch (int64_t num, int64_t rows, int64_t spatial)
{
  return num >= 0 && rows >= 0 && spatial >= 0
         && (rows == 0 || spatial == 0 || num <= INT64_MAX / rows / spatial);
}

/* The sum of N floats in eight interleaved partial sums, which the
 * compiler turns into one vector register: a single running sum would wait
 * on every add's latency. */
static float
row_sum (int64_t n, const float *x)
{
  float part[8] = { 0 };
  float sum = 0.0f;
  int64_t i = 0;

  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++)
      part[j] += x[i + j];
  for (; i < n; i++)
    part[i % 8] += x[i];
  for (int j = 0; j < 8; j++)
    sum += part[j];
  return sum;
}

CtStatus
ct_cpu_batch_pack (int64_t num, int64_t rows, int64_t spatial, const float *src, float *dst,
                   float *row_sums)
{
  const int64_t ld = num * spatial;

  if (!valid_batch (num, rows, spatial))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    for (int64_t r = 0; r < rows; r++)
      {
        const float *from = src + (i * rows + r) * spatial;
        float *to = dst + r * ld + i * spatial;

        memcpy (to, from, (size_t) spatial * sizeof (float));
        if (row_sums != NULL)
          row_sums[r] += row_sum (spatial, from);
      }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_batch_unpack (int64_t num, int64_t rows, int64_t spatial, const float *src,
                     const float *bias, float *dst)
{
  const int64_t ld = num * spatial;

  if (!valid_batch (num, rows, spatial))
    return CT_STATUS_INVALID;
  for (int64_t i = 0; i < num; i++)
    for (int64_t r = 0; r < rows; r++)
      {
        const float *from = src + r * ld + i * spatial;
        float *to = dst + (i * rows + r) * spatial;

        if (bias == NULL)
          memcpy (to, from, (size_t) spatial * sizeof (float));
        else
          {
            const float b = bias[r];

            for (int64_t s = 0; s < spatial; s++)
              to[s] = from[s] + b;
          }
      }
  return CT_STATUS_OK;
}

/* What the N-D functions share: the checked geometry. */
typedef struct {
  int n;                         /* spatial axes */
  int64_t channels;              /* image channels */
  int64_t kernel_size;           /* prod (kernel) */
  int64_t im_plane;              /* prod of the image's spatial dims */
  int64_t out_count;             /* prod of the column buffer's spatial dims */
  int64_t out_rows;              /* out_count / last output dim */
} NdGeometry;

static int
nd_geometry (int n, const int64_t *im_shape, const int64_t *col_shape,
             const int64_t *kernel, const int64_t *pad, const int64_t *stride,
             const int64_t *dilation, NdGeometry *g)
{
  if (n < 1 || n > CT_IM2COL_MAX_AXES || im_shape[0] < 0)
    return 0;
  g->n = n;
  g->channels = im_shape[0];
  g->kernel_size = 1;
  g->im_plane = 1;
  g->out_count = 1;
  for (int i = 0; i < n; i++)
    {
      if (im_shape[i + 1] <= 0 || col_shape[i + 1] < 0 || kernel[i] <= 0 || pad[i] < 0
          || stride[i] <= 0 || dilation[i] <= 0)
        return 0;
      g->kernel_size *= kernel[i];
      g->im_plane *= im_shape[i + 1];
      g->out_count *= col_shape[i + 1];
    }
  if (col_shape[0] != g->channels * g->kernel_size)
    return 0;
  g->out_rows = col_shape[n] > 0 ? g->out_count / col_shape[n] : 0;
  return 1;
}

/* One pass over the column buffer, reading the image (IM2COL) or adding
 * into it. Rows of the last output axis are handled at once; the leading
 * axes are tracked with an odometer. */
static void
nd_walk (const NdGeometry *g, const int64_t *im_shape, const int64_t *col_shape,
         const int64_t *kernel, const int64_t *pad, const int64_t *stride,
         const int64_t *dilation, int im2col, const float *in, float *out)
{
  const int n = g->n;
  const int last = n - 1;
  const int64_t out_w = col_shape[n];
  const int64_t width = im_shape[n];
  int64_t offset[CT_IM2COL_MAX_AXES];
  int64_t iter[CT_IM2COL_MAX_AXES];

  for (int64_t c_col = 0; c_col < g->channels * g->kernel_size; c_col++)
    {
      int64_t rest = c_col;
      int64_t c_im = c_col / g->kernel_size;
      int64_t lo, hi;

      /* The kernel offset of this row, last axis fastest. */
      for (int i = n - 1; i >= 0; i--)
        {
          offset[i] = (rest % kernel[i]) * dilation[i];
          rest /= kernel[i];
        }
      valid_range (width, out_w, stride[last], pad[last], offset[last], &lo, &hi);
      for (int i = 0; i < n; i++)
        iter[i] = 0;

      for (int64_t row = 0; row < g->out_rows; row++)
        {
          int64_t col_index = (c_col * g->out_rows + row) * out_w;
          int64_t im_index = c_im;
          int inside = 1;

          for (int i = 0; i < last; i++)
            {
              int64_t d = iter[i] * stride[i] - pad[i] + offset[i];

              if (d < 0 || d >= im_shape[i + 1])
                inside = 0;
              im_index = im_index * im_shape[i + 1] + d;
            }
          im_index = im_index * width - pad[last] + offset[last];

          if (im2col)
            {
              float *dst = out + col_index;

              if (!inside)
                memset (dst, 0, (size_t) out_w * sizeof (float));
              else
                {
                  for (int64_t o = 0; o < lo; o++)
                    dst[o] = 0.0f;
                  for (int64_t o = lo; o < hi; o++)
                    dst[o] = in[im_index + o * stride[last]];
                  for (int64_t o = hi; o < out_w; o++)
                    dst[o] = 0.0f;
                }
            }
          else if (inside)
            {
              const float *src = in + col_index;

              for (int64_t o = lo; o < hi; o++)
                out[im_index + o * stride[last]] += src[o];
            }

          /* Next row: advance the odometer over the leading output axes. */
          for (int i = last - 1; i >= 0; i--)
            {
              if (++iter[i] < col_shape[i + 1])
                break;
              iter[i] = 0;
            }
        }
    }
}

CtStatus
ct_cpu_im2col_nd (const float *data_im, int num_spatial_axes,
                  const int64_t *im_shape, const int64_t *col_shape,
                  const int64_t *kernel, const int64_t *pad,
                  const int64_t *stride, const int64_t *dilation,
                  float *data_col)
{
  NdGeometry g;

  if (!nd_geometry (num_spatial_axes, im_shape, col_shape, kernel, pad, stride, dilation, &g))
    return CT_STATUS_INVALID;
  nd_walk (&g, im_shape, col_shape, kernel, pad, stride, dilation, 1, data_im, data_col);
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_col2im_nd (const float *data_col, int num_spatial_axes,
                  const int64_t *im_shape, const int64_t *col_shape,
                  const int64_t *kernel, const int64_t *pad,
                  const int64_t *stride, const int64_t *dilation,
                  float *data_im)
{
  NdGeometry g;

  if (!nd_geometry (num_spatial_axes, im_shape, col_shape, kernel, pad, stride, dilation, &g))
    return CT_STATUS_INVALID;
  memset (data_im, 0, (size_t) (g.channels * g.im_plane) * sizeof (float));
  nd_walk (&g, im_shape, col_shape, kernel, pad, stride, dilation, 0, data_col, data_im);
  return CT_STATUS_OK;
}
