/* im2col.cu: the CUDA side of im2col.h, and the batched forms conv.cu
 * uses (im2col-private.cuh).
 *
 * im2col gives each thread one (image, channel, output position) and lets
 * it write that position's column entry in every kernel row, so neighbouring
 * threads write neighbouring floats. col2im is a gather, never a scatter
 * with atomics: each thread owns one image element and adds, in ascending
 * kernel-offset order starting from 0, the column entries that were read
 * from it. That is the order in which the CPU's col2im adds them (each
 * offset reaches a given element at most once), so the two agree bit for
 * bit and results repeat from run to run.
 *
 * Index arithmetic runs in 32 bits when every index of the launch fits
 * with room for the grid-stride step (integer division is much cheaper
 * so), in 64 bits otherwise. */
#include <climits>

#include "cuda-private.cuh"
#include "im2col-private.cuh"
#include "im2col.h"

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

static int
mul_ok (int64_t a, int64_t b, int64_t *out)
{
  return !__builtin_mul_overflow (a, b, out);
}

/* The products of a geometry, with overflow checks. */
typedef struct {
  int64_t kernel_size; /* prod (kernel) */
  int64_t im_plane;    /* floats of one image: channels * prod (im_dims) */
  int64_t out_count;   /* prod (out_dims) */
  int64_t col_rows;    /* channels * kernel_size */
} Sizes;

static int
geometry_sizes (const CtIm2colGeometry *g, Sizes *z)
{
  z->kernel_size = z->im_plane = z->out_count = 1;
  if (g->n < 1 || g->n > CT_IM2COL_MAX_AXES || g->channels < 0)
    return 0;
  for (int i = 0; i < g->n; i++)
    {
      if (g->im_dims[i] <= 0 || g->out_dims[i] < 0 || g->kernel[i] <= 0 || g->pad[i] < 0
          || g->stride[i] <= 0 || g->dilation[i] <= 0
          || !mul_ok (z->kernel_size, g->kernel[i], &z->kernel_size)
          || !mul_ok (z->im_plane, g->im_dims[i], &z->im_plane)
          || !mul_ok (z->out_count, g->out_dims[i], &z->out_count))
        return 0;
    }
  return mul_ok (g->channels, z->kernel_size, &z->col_rows)
         && mul_ok (g->channels, z->im_plane, &z->im_plane) ? 1 : 0;
}

CtStatus
ct_cuda_im2col_geometry_check (const CtIm2colGeometry *g)
{
  Sizes z;

  return geometry_sizes (g, &z) ? CT_STATUS_OK : CT_STATUS_INVALID;
}

/* ---- 2-D ---------------------------------------------------------------- */

/* The 2-D geometry in the kernels' index type. */
template <typename I> struct Geo2 {
  I channels, height, width, kernel_h, kernel_w, pad_h, pad_w;
  I stride_h, stride_w, dilation_h, dilation_w, out_h, out_w;
};

template <typename I>
static Geo2<I>
geo2 (const CtIm2colGeometry *g)
{
  Geo2<I> o;

  o.channels = (I) g->channels;
  o.height = (I) g->im_dims[0];
  o.width = (I) g->im_dims[1];
  o.kernel_h = (I) g->kernel[0];
  o.kernel_w = (I) g->kernel[1];
  o.pad_h = (I) g->pad[0];
  o.pad_w = (I) g->pad[1];
  o.stride_h = (I) g->stride[0];
  o.stride_w = (I) g->stride[1];
  o.dilation_h = (I) g->dilation[0];
  o.dilation_w = (I) g->dilation[1];
  o.out_h = (I) g->out_dims[0];
  o.out_w = (I) g->out_dims[1];
  return o;
}

/* One thread per (image, channel, output row, output column). */
template <typename I>
__global__ static void
im2col_2d_kernel (I total, Geo2<I> g, const float *__restrict__ im, I im_stride,
                  float *__restrict__ col, I col_stride, I ld)
{
  for (I index = (I) blockIdx.x * blockDim.x + threadIdx.x; index < total;
       index += (I) blockDim.x * gridDim.x)
    {
      I ow = index % g.out_w;
      I rest = index / g.out_w;
      I oh = rest % g.out_h;
      I c, n;
      const float *src;
      float *dst;
      I h0, w0;

      rest /= g.out_h;
      c = rest % g.channels;
      n = rest / g.channels;
      src = im + n * im_stride + c * g.height * g.width;
      dst = col + n * col_stride + c * g.kernel_h * g.kernel_w * ld + oh * g.out_w + ow;
      h0 = oh * g.stride_h - g.pad_h;
      w0 = ow * g.stride_w - g.pad_w;
      for (I a = 0; a < g.kernel_h; a++)
        {
          I h = h0 + a * g.dilation_h;
          int row_inside = h >= 0 && h < g.height;

          for (I b = 0; b < g.kernel_w; b++)
            {
              I w = w0 + b * g.dilation_w;

              *dst = row_inside && w >= 0 && w < g.width ? src[h * g.width + w] : 0.0f;
              dst += ld;
            }
        }
    }
}

/* One thread per (image, channel, row, column) of the image: the gather. */
template <typename I>
__global__ static void
col2im_2d_kernel (I total, Geo2<I> g, const float *__restrict__ col, I col_stride, I ld,
                  float *__restrict__ im, I im_stride)
{
  for (I index = (I) blockIdx.x * blockDim.x + threadIdx.x; index < total;
       index += (I) blockDim.x * gridDim.x)
    {
      I w = index % g.width;
      I rest = index / g.width;
      I h = rest % g.height;
      I c, n;
      const float *src;
      float sum = 0.0f;

      rest /= g.height;
      c = rest % g.channels;
      n = rest / g.channels;
      src = col + n * col_stride + c * g.kernel_h * g.kernel_w * ld;
      for (I a = 0; a < g.kernel_h; a++)
        {
          /* The output row that read image row H through kernel row A. */
          I hh = h + g.pad_h - a * g.dilation_h;
          I oh;

          if (hh < 0)
            break;   /* hh only falls as A grows */
          if (hh % g.stride_h != 0 || (oh = hh / g.stride_h) >= g.out_h)
            continue;
          for (I b = 0; b < g.kernel_w; b++)
            {
              I ww = w + g.pad_w - b * g.dilation_w;
              I ow;

              if (ww < 0)
                break;
              if (ww % g.stride_w != 0 || (ow = ww / g.stride_w) >= g.out_w)
                continue;
              sum += src[(a * g.kernel_w + b) * ld + oh * g.out_w + ow];
            }
        }
      im[n * im_stride + (c * g.height + h) * g.width + w] = sum;
    }
}

/* ---- N-D ---------------------------------------------------------------- */

/* The geometry by value (about 1.6 KB of kernel parameters). */
typedef struct {
  int n;
  int64_t channels, kernel_size, out_count;
  int64_t im_dims[CT_IM2COL_MAX_AXES];
  int64_t out_dims[CT_IM2COL_MAX_AXES];
  int64_t kernel[CT_IM2COL_MAX_AXES];
  int64_t pad[CT_IM2COL_MAX_AXES];
  int64_t stride[CT_IM2COL_MAX_AXES];
  int64_t dilation[CT_IM2COL_MAX_AXES];
} GeoNd;

static GeoNd
geo_nd (const CtIm2colGeometry *g, const Sizes *z)
{
  GeoNd o;

  o.n = g->n;
  o.channels = g->channels;
  o.kernel_size = z->kernel_size;
  o.out_count = z->out_count;
  for (int i = 0; i < CT_IM2COL_MAX_AXES; i++)
    {
      int inside = i < g->n;

      o.im_dims[i] = inside ? g->im_dims[i] : 1;
      o.out_dims[i] = inside ? g->out_dims[i] : 1;
      o.kernel[i] = inside ? g->kernel[i] : 1;
      o.pad[i] = inside ? g->pad[i] : 0;
      o.stride[i] = inside ? g->stride[i] : 1;
      o.dilation[i] = inside ? g->dilation[i] : 1;
    }
  return o;
}

/* One thread per column entry (image, row, output position). */
__global__ static void
im2col_nd_kernel (int64_t total, GeoNd g, const float *__restrict__ im, int64_t im_stride,
                  float *__restrict__ col, int64_t col_stride, int64_t ld)
{
  const int64_t rows = g.channels * g.kernel_size;

  CT_CUDA_LOOP (index, total)
    {
      int64_t o = index % g.out_count;
      int64_t rest = index / g.out_count;
      int64_t r = rest % rows;
      int64_t n = rest / rows;
      int64_t k = r % g.kernel_size;
      int64_t im_index = r / g.kernel_size;   /* the channel, then the position */
      int64_t pos_o = o;
      int64_t place = 1;
      int inside = 1;

      /* The last axis is the fastest in both the kernel offset and the
       * output position; walk the axes from the last, building the image
       * index from its least significant digit. */
      int64_t im_offset = 0;

      for (int i = g.n - 1; i >= 0; i--)
        {
          int64_t oi = pos_o % g.out_dims[i];
          int64_t ki = k % g.kernel[i];
          int64_t d = oi * g.stride[i] - g.pad[i] + ki * g.dilation[i];

          pos_o /= g.out_dims[i];
          k /= g.kernel[i];
          if (d < 0 || d >= g.im_dims[i])
            inside = 0;
          im_offset += d * place;
          place *= g.im_dims[i];
        }
      im_index = im_index * place + im_offset;
      col[n * col_stride + r * ld + o] = inside ? im[n * im_stride + im_index] : 0.0f;
    }
}

/* One thread per image element (image, channel, position): the gather,
 * over kernel offsets in ascending order. */
__global__ static void
col2im_nd_kernel (int64_t total, int64_t plane, GeoNd g, const float *__restrict__ col,
                  int64_t col_stride, int64_t ld, float *__restrict__ im, int64_t im_stride)
{
  CT_CUDA_LOOP (index, total)
    {
      int64_t p = index % plane;
      int64_t rest = index / plane;
      int64_t c = rest % g.channels;
      int64_t n = rest / g.channels;
      int64_t pos[CT_IM2COL_MAX_AXES];
      int64_t off[CT_IM2COL_MAX_AXES];
      const float *src = col + n * col_stride + c * g.kernel_size * ld;
      float sum = 0.0f;

      for (int i = g.n - 1; i >= 0; i--)
        {
          pos[i] = p % g.im_dims[i];
          p /= g.im_dims[i];
          off[i] = 0;
        }
      for (int64_t k = 0; k < g.kernel_size; k++)
        {
          int64_t o = 0;
          int valid = 1;

          for (int i = 0; i < g.n && valid; i++)
            {
              int64_t t = pos[i] + g.pad[i] - off[i] * g.dilation[i];

              if (t < 0 || t % g.stride[i] != 0 || t / g.stride[i] >= g.out_dims[i])
                valid = 0;
              else
                o = o * g.out_dims[i] + t / g.stride[i];
            }
          if (valid)
            sum += src[k * ld + o];
          /* Next kernel offset, last axis fastest. */
          for (int i = g.n - 1; i >= 0; i--)
            {
              if (++off[i] < g.kernel[i])
                break;
              off[i] = 0;
            }
        }
      im[n * im_stride + index % (plane * g.channels)] = sum;
    }
}

/* ---- launchers ---------------------------------------------------------- */

/* Whether every index a batched launch forms fits in 32 bits: the
 * offsets it reads and writes, and (2-D) the positions it computes from
 * the geometry on the way. */
static int
fits_int (const CtIm2colGeometry *g, int64_t nb, int64_t im_stride, int64_t im_count,
          int64_t col_stride, int64_t ld, int64_t col_rows, int64_t out_count, int64_t threads)
{
  const int64_t limit = INT_MAX / 2, small = INT_MAX / 8;
  int64_t im_end, col_end;

  if (threads > limit || im_stride > limit || col_stride > limit || ld > limit)
    return 0;
  for (int i = 0; i < g->n; i++)
    if (g->im_dims[i] > small || g->pad[i] > small || g->stride[i] > small
        || g->dilation[i] > small || g->kernel[i] > small || g->out_dims[i] > small
        || g->dilation[i] * (g->kernel[i] - 1) > small)
      return 0;
  /* The largest offsets read or written, plus what the kernels add. */
  if (__builtin_mul_overflow (nb - 1, im_stride, &im_end)
      || __builtin_add_overflow (im_end, im_count, &im_end)
      || __builtin_mul_overflow (nb - 1, col_stride, &col_end)
      || __builtin_mul_overflow (col_rows, ld, &col_rows)
      || __builtin_add_overflow (col_end, col_rows, &col_end)
      || __builtin_add_overflow (col_end, out_count, &col_end))
    return 0;
  return im_end < limit && col_end < limit;
}

CtStatus
ct_cuda_im2col_batch (const CtIm2colGeometry *g, int64_t nb, const float *im,
                      int64_t im_stride, float *col, int64_t col_stride, int64_t ld)
{
  Sizes z;
  int64_t total;

  if (nb < 0 || !geometry_sizes (g, &z) || ld < z.out_count || im_stride < 0 || col_stride < 0)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (nb == 0 || z.col_rows == 0 || z.out_count == 0)
    return CT_STATUS_OK;
  if (g->n == 2)
    {
      if (__builtin_mul_overflow (nb, g->channels * z.out_count, &total))
        return CT_STATUS_INVALID;
      if (fits_int (g, nb, im_stride, z.im_plane, col_stride, ld, z.col_rows, z.out_count, total))
        im2col_2d_kernel<int><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
          (int) total, geo2<int> (g), im, (int) im_stride, col, (int) col_stride, (int) ld);
      else
        im2col_2d_kernel<int64_t><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
          total, geo2<int64_t> (g), im, im_stride, col, col_stride, ld);
    }
  else
    {
      if (__builtin_mul_overflow (nb, z.col_rows, &total)
          || __builtin_mul_overflow (total, z.out_count, &total))
        return CT_STATUS_INVALID;
      im2col_nd_kernel<<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (total, geo_nd (g, &z), im,
                                                                      im_stride, col, col_stride,
                                                                      ld);
    }
  return ct_cuda_launch_status ();
}

CtStatus
ct_cuda_col2im_batch (const CtIm2colGeometry *g, int64_t nb, const float *col,
                      int64_t col_stride, int64_t ld, float *im, int64_t im_stride)
{
  Sizes z;
  int64_t total;

  if (nb < 0 || !geometry_sizes (g, &z) || ld < z.out_count || im_stride < 0 || col_stride < 0)
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (nb == 0 || z.im_plane == 0)
    return CT_STATUS_OK;
  if (__builtin_mul_overflow (nb, z.im_plane, &total))
    return CT_STATUS_INVALID;
  if (g->n == 2)
    {
      if (fits_int (g, nb, im_stride, z.im_plane, col_stride, ld, z.col_rows, z.out_count, total))
        col2im_2d_kernel<int><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
          (int) total, geo2<int> (g), col, (int) col_stride, (int) ld, im, (int) im_stride);
      else
        col2im_2d_kernel<int64_t><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
          total, geo2<int64_t> (g), col, col_stride, ld, im, im_stride);
    }
  else
    col2im_nd_kernel<<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
      total, z.im_plane / g->channels, geo_nd (g, &z), col, col_stride, ld, im, im_stride);
  return ct_cuda_launch_status ();
}

/* ---- im2col.h ----------------------------------------------------------- */

static int
geometry_2d (CtIm2colGeometry *g, int64_t channels, int64_t height, int64_t width,
             int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
             int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w)
{
  g->n = 2;
  g->channels = channels;
  g->im_dims[0] = height;
  g->im_dims[1] = width;
  g->kernel[0] = kernel_h;
  g->kernel[1] = kernel_w;
  g->pad[0] = pad_h;
  g->pad[1] = pad_w;
  g->stride[0] = stride_h;
  g->stride[1] = stride_w;
  g->dilation[0] = dilation_h;
  g->dilation[1] = dilation_w;
  g->out_dims[0] = output_size (height, kernel_h, pad_h, stride_h, dilation_h);
  g->out_dims[1] = output_size (width, kernel_w, pad_w, stride_w, dilation_w);
  return channels >= 0 && g->out_dims[0] >= 0 && g->out_dims[1] >= 0;
}

extern "C" CtStatus
ct_cuda_im2col (const float *data_im, int64_t channels, int64_t height, int64_t width,
                int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                float *data_col)
{
  CtIm2colGeometry g;

  if (!geometry_2d (&g, channels, height, width, kernel_h, kernel_w, pad_h, pad_w, stride_h,
                    stride_w, dilation_h, dilation_w))
    return CT_STATUS_INVALID;
  return ct_cuda_im2col_batch (&g, 1, data_im, 0, data_col, 0, g.out_dims[0] * g.out_dims[1]);
}

extern "C" CtStatus
ct_cuda_im2col_ld (const float *data_im, int64_t channels, int64_t height, int64_t width,
                   int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                   int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                   float *data_col, int64_t ld_col)
{
  CtIm2colGeometry g;

  if (!geometry_2d (&g, channels, height, width, kernel_h, kernel_w, pad_h, pad_w, stride_h,
                    stride_w, dilation_h, dilation_w))
    return CT_STATUS_INVALID;
  return ct_cuda_im2col_batch (&g, 1, data_im, 0, data_col, 0, ld_col);
}

extern "C" CtStatus
ct_cuda_col2im (const float *data_col, int64_t channels, int64_t height, int64_t width,
                int64_t kernel_h, int64_t kernel_w, int64_t pad_h, int64_t pad_w,
                int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                float *data_im)
{
  CtIm2colGeometry g;

  if (!geometry_2d (&g, channels, height, width, kernel_h, kernel_w, pad_h, pad_w, stride_h,
                    stride_w, dilation_h, dilation_w))
    return CT_STATUS_INVALID;
  return ct_cuda_col2im_batch (&g, 1, data_col, 0, g.out_dims[0] * g.out_dims[1], data_im, 0);
}

extern "C" CtStatus
ct_cuda_col2im_ld (const float *data_col, int64_t ld_col, int64_t channels, int64_t height,
                   int64_t width, int64_t kernel_h, int64_t kernel_w, int64_t pad_h,
                   int64_t pad_w, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                   int64_t dilation_w, float *data_im)
{
  CtIm2colGeometry g;

  if (!geometry_2d (&g, channels, height, width, kernel_h, kernel_w, pad_h, pad_w, stride_h,
                    stride_w, dilation_h, dilation_w))
    return CT_STATUS_INVALID;
  return ct_cuda_col2im_batch (&g, 1, data_col, 0, ld_col, data_im, 0);
}

/* The N-D arguments as a geometry; 0 when they break im2col.h's rules. */
static int
geometry_nd (CtIm2colGeometry *g, int n, const int64_t *im_shape, const int64_t *col_shape,
             const int64_t *kernel, const int64_t *pad, const int64_t *stride,
             const int64_t *dilation)
{
  Sizes z;

  if (n < 1 || n > CT_IM2COL_MAX_AXES)
    return 0;
  g->n = n;
  g->channels = im_shape[0];
  for (int i = 0; i < n; i++)
    {
      g->im_dims[i] = im_shape[i + 1];
      g->out_dims[i] = col_shape[i + 1];
      g->kernel[i] = kernel[i];
      g->pad[i] = pad[i];
      g->stride[i] = stride[i];
      g->dilation[i] = dilation[i];
    }
  return geometry_sizes (g, &z) && col_shape[0] == z.col_rows;
}

/* The N-D functions always take the general kernels (as the CPU's do),
 * whatever the number of axes. */
static CtStatus
nd_pass (int to_col, const float *src, int n, const int64_t *im_shape,
         const int64_t *col_shape, const int64_t *kernel, const int64_t *pad,
         const int64_t *stride, const int64_t *dilation, float *dst)
{
  CtIm2colGeometry g;
  Sizes z;
  int64_t total;

  if (!geometry_nd (&g, n, im_shape, col_shape, kernel, pad, stride, dilation))
    return CT_STATUS_INVALID;
  geometry_sizes (&g, &z);
  CT_CUDA_ENTER ();
  if (to_col)
    {
      if (__builtin_mul_overflow (z.col_rows, z.out_count, &total))
        return CT_STATUS_INVALID;
      if (total == 0)
        return CT_STATUS_OK;
      im2col_nd_kernel<<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (total, geo_nd (&g, &z), src,
                                                                      0, dst, 0, z.out_count);
    }
  else
    {
      total = z.im_plane;
      if (total == 0)
        return CT_STATUS_OK;
      col2im_nd_kernel<<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
        total, z.im_plane / g.channels, geo_nd (&g, &z), src, 0, z.out_count, dst, 0);
    }
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_im2col_nd (const float *data_im, int num_spatial_axes, const int64_t *im_shape,
                   const int64_t *col_shape, const int64_t *kernel, const int64_t *pad,
                   const int64_t *stride, const int64_t *dilation, float *data_col)
{
  return nd_pass (1, data_im, num_spatial_axes, im_shape, col_shape, kernel, pad, stride,
                  dilation, data_col);
}

extern "C" CtStatus
ct_cuda_col2im_nd (const float *data_col, int num_spatial_axes, const int64_t *im_shape,
                   const int64_t *col_shape, const int64_t *kernel, const int64_t *pad,
                   const int64_t *stride, const int64_t *dilation, float *data_im)
{
  return nd_pass (0, data_col, num_spatial_axes, im_shape, col_shape, kernel, pad, stride,
                  dilation, data_im);
}

/* ---- batches and row sums ----------------------------------------------- */

static int
valid_batch (int64_t num, int64_t rows, int64_t spatial)
{
  return num >= 0 && rows >= 0 && spatial >= 0
         && (rows == 0 || spatial == 0 || num <= INT64_MAX / rows / spatial);
}

/* dst[r][i * spatial + s] = src[i][r][s], one thread per element of DST
 * (coalesced writes; reads are contiguous runs of SPATIAL floats). */
template <typename I>
__global__ static void
pack_kernel (I total, I num, I rows, I spatial, const float *__restrict__ src,
             float *__restrict__ dst)
{
  const I ld = num * spatial;

  for (I index = (I) blockIdx.x * blockDim.x + threadIdx.x; index < total;
       index += (I) blockDim.x * gridDim.x)
    {
      I r = index / ld;
      I j = index - r * ld;
      I i = j / spatial;
      I s = j - i * spatial;

      dst[index] = src[(i * rows + r) * spatial + s];
    }
}

/* dst[i][r][s] = src[r][i * spatial + s] (+ bias[r]), one thread per
 * element of DST. */
template <typename I>
__global__ static void
unpack_kernel (I total, I num, I rows, I spatial, const float *__restrict__ src,
               const float *__restrict__ bias, float *__restrict__ dst)
{
  const I ld = num * spatial;

  for (I index = (I) blockIdx.x * blockDim.x + threadIdx.x; index < total;
       index += (I) blockDim.x * gridDim.x)
    {
      I s = index % spatial;
      I rest = index / spatial;
      I r = rest % rows;
      I i = rest / rows;
      float v = src[r * ld + i * spatial + s];

      dst[index] = bias != nullptr ? v + bias[r] : v;
    }
}

#define SUM_THREADS 512

/* A block's sum of its threads' values, in a fixed tree (all threads
 * call it; thread 0 gets the result). */
__device__ static float
block_sum (float value, float *shared)
{
  shared[threadIdx.x] = value;
  __syncthreads ();
  for (unsigned int half = blockDim.x / 2; half > 0; half /= 2)
    {
      if (threadIdx.x < half)
        shared[threadIdx.x] += shared[threadIdx.x + half];
      __syncthreads ();
    }
  return shared[0];
}

/* One block per row: its NUM x SPATIAL values, strided over the threads. */
template <typename I>
__global__ static void
row_sums_kernel (I num, I rows, I spatial, const float *__restrict__ src, float *sums)
{
  __shared__ float shared[SUM_THREADS];
  const I count = num * spatial;

  for (I r = blockIdx.x; r < rows; r += gridDim.x)
    {
      float sum = 0.0f;

      for (I j = threadIdx.x; j < count; j += blockDim.x)
        {
          I i = j / spatial;

          sum += src[(i * rows + r) * spatial + (j - i * spatial)];
        }
      sum = block_sum (sum, shared);
      if (threadIdx.x == 0)
        sums[r] += sum;
      __syncthreads ();
    }
}

/* SPATIAL 1 (a bias over rows of a matrix): 32 neighbouring rows per
 * block, so that a warp reads 32 neighbouring floats, and 8 threads down
 * the images for each. */
#define COLUMN_WIDTH 32
#define COLUMN_DEPTH 8

template <typename I>
__global__ static void
column_sums_kernel (I num, I rows, const float *__restrict__ src, float *sums)
{
  __shared__ float shared[COLUMN_DEPTH][COLUMN_WIDTH];
  I r = (I) blockIdx.x * COLUMN_WIDTH + threadIdx.x;
  float sum = 0.0f;

  if (r < rows)
    for (I i = threadIdx.y; i < num; i += COLUMN_DEPTH)
      sum += src[i * rows + r];
  shared[threadIdx.y][threadIdx.x] = sum;
  __syncthreads ();
  if (threadIdx.y == 0 && r < rows)
    {
      float total = 0.0f;

      for (int k = 0; k < COLUMN_DEPTH; k++)
        total += shared[k][threadIdx.x];
      sums[r] += total;
    }
}

CtStatus
ct_cuda_row_sums (int64_t num, int64_t rows, int64_t spatial, const float *src, float *sums)
{
  int64_t count;

  if (!valid_batch (num, rows, spatial))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (rows == 0)
    return CT_STATUS_OK;
  count = num * rows * spatial;
  if (spatial == 1)
    {
      dim3 threads (COLUMN_WIDTH, COLUMN_DEPTH);
      int64_t blocks = (rows + COLUMN_WIDTH - 1) / COLUMN_WIDTH;

      if (blocks > INT_MAX)
        return CT_STATUS_INVALID;
      if (count < INT_MAX / 2)
        column_sums_kernel<int><<<(unsigned int) blocks, threads>>> ((int) num, (int) rows, src,
                                                                     sums);
      else
        column_sums_kernel<int64_t><<<(unsigned int) blocks, threads>>> (num, rows, src, sums);
    }
  else
    {
      unsigned int blocks = (unsigned int) (rows < 65535 * 8 ? rows : 65535 * 8);

      if (count < INT_MAX / 2)
        row_sums_kernel<int><<<blocks, SUM_THREADS>>> ((int) num, (int) rows, (int) spatial, src,
                                                       sums);
      else
        row_sums_kernel<int64_t><<<blocks, SUM_THREADS>>> (num, rows, spatial, src, sums);
    }
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_batch_pack (int64_t num, int64_t rows, int64_t spatial, const float *src, float *dst,
                    float *row_sums)
{
  int64_t total;
  CtStatus status;

  if (!valid_batch (num, rows, spatial))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  total = num * rows * spatial;
  if (total == 0)
    return CT_STATUS_OK;
  if (total < INT_MAX / 2)
    pack_kernel<int><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
      (int) total, (int) num, (int) rows, (int) spatial, src, dst);
  else
    pack_kernel<int64_t><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (total, num, rows, spatial,
                                                                       src, dst);
  if ((status = ct_cuda_launch_status ()) != CT_STATUS_OK || row_sums == nullptr)
    return status;
  return ct_cuda_row_sums (num, rows, spatial, src, row_sums);
}

extern "C" CtStatus
ct_cuda_batch_unpack (int64_t num, int64_t rows, int64_t spatial, const float *src,
                      const float *bias, float *dst)
{
  int64_t total;

  if (!valid_batch (num, rows, spatial))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  total = num * rows * spatial;
  if (total == 0)
    return CT_STATUS_OK;
  if (total < INT_MAX / 2)
    unpack_kernel<int><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
      (int) total, (int) num, (int) rows, (int) spatial, src, bias, dst);
  else
    unpack_kernel<int64_t><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (total, num, rows,
                                                                         spatial, src, bias, dst);
  return ct_cuda_launch_status ();
}
