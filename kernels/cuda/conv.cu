/* conv.cu: the CUDA side of conv.h.
 *
 * Two ways to run a convolution. With cuDNN (the `cudnn` build option),
 * 2-D shapes go to cuDNN's legacy convolution API: descriptors and the
 * algorithm of each pass are chosen once per shape (and device) and kept;
 * only deterministic algorithms are taken, so that training runs repeat,
 * FFT-based ones are left out (they round several times more than the
 * direct sums), and the math type is plain FP32 (no TF32 tensor cores,
 * which would miss the CPU by ~1e-3). cuDNN's workspace is part of what
 * ct_cuda_conv_workspace_floats asks for.
 *
 * Everything else, and every shape when the backend is IM2COL (the
 * environment variable CT_CUDA_CONV=im2col, or ct_cuda_conv_set_backend),
 * runs on im2col (cuda/im2col.cu) and cuBLAS: a sub-batch of images is
 * unfolded at once into one column matrix, the images side by side; the
 * forward and backward-data products are strided batched GEMMs straight
 * between the images and that matrix, and the weight gradient is one GEMM
 * over the whole sub-batch (its output diff packed side by side too). A
 * 1x1 kernel with stride 1 and no padding needs no unfolding.
 *
 * Everything runs on the default stream, in order, as cuBLAS and cuDNN
 * do here; nothing waits for the device. */
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <atomic>

#include "blas.h"
#include "common.h"
#include "conv.h"
#include "cuda-private.cuh"
#include "im2col-private.cuh"
#include "switches.h"

#ifdef CT_HAVE_CUDNN
#include <cudnn.h>
#include <dlfcn.h>

#define CT_STRINGIFY_(x) #x
#define CT_STRINGIFY(x) CT_STRINGIFY_ (x)
#endif

/* The floats a sub-batch's column matrix and packed output diff may take
 * (64 MiB): enough images side by side that the products run at speed,
 * while the one workspace a thread keeps for every layer stays modest. */
#define SUB_BATCH_FLOATS ((int64_t) 1 << 24)

/* ---- backend ------------------------------------------------------------ */

/* CtConvBackend; -1 until the environment has been read. */
static std::atomic<int> backend{-1};

static CtConvBackend
get_backend (void)
{
  int b = backend.load ();

  if (b < 0)
    {
      const char *env = getenv ("CT_CUDA_CONV");

      b = env != nullptr && strcmp (env, "im2col") == 0 ? CT_CONV_BACKEND_IM2COL
                                                        : CT_CONV_BACKEND_AUTO;
      backend.store (b);
    }
  return (CtConvBackend) b;
}

extern "C" CtConvBackend
ct_cuda_conv_set_backend (CtConvBackend b)
{
  CtConvBackend old = get_backend ();

  backend.store (b == CT_CONV_BACKEND_IM2COL ? CT_CONV_BACKEND_IM2COL : CT_CONV_BACKEND_AUTO);
  return old;
}

/* ---- the shape ---------------------------------------------------------- */

typedef struct {
  int64_t positions;   /* output positions per image */
  int64_t in_spatial;  /* input positions per image */
  int64_t m;           /* output channels per group */
  int64_t kernel_dim;  /* weights per output channel: in / group * prod (kernel) */
  int64_t col_rows;    /* kernel_dim * group */
  int64_t in_dim, out_dim;  /* floats per image */
  int64_t sub_batch;   /* images per column matrix */
  int one_by_one;      /* the column matrix is the input itself */
  CtIm2colGeometry geometry;
} Plan;

static int
mul_ok (int64_t a, int64_t b, int64_t *out)
{
  return !__builtin_mul_overflow (a, b, out);
}

/* The same checks as the CPU side's. */
static int
plan_shape (const CtConvShape *s, Plan *p)
{
  int64_t kernel_size = 1, per_image, fit;

  memset (p, 0, sizeof *p);
  if (s->num < 0 || s->in_channels <= 0 || s->out_channels <= 0 || s->group <= 0
      || s->in_channels % s->group != 0 || s->out_channels % s->group != 0
      || s->num_spatial_axes < 0 || s->num_spatial_axes > CT_IM2COL_MAX_AXES)
    return 0;
  p->positions = 1;
  p->in_spatial = 1;
  p->one_by_one = 1;
  for (int i = 0; i < s->num_spatial_axes; i++)
    {
      if (s->in_dims[i] <= 0 || s->out_dims[i] <= 0 || s->kernel[i] <= 0 || s->pad[i] < 0
          || s->stride[i] <= 0 || s->dilation[i] <= 0
          || !mul_ok (p->in_spatial, s->in_dims[i], &p->in_spatial)
          || !mul_ok (p->positions, s->out_dims[i], &p->positions)
          || !mul_ok (kernel_size, s->kernel[i], &kernel_size))
        return 0;
      if (s->kernel[i] != 1 || s->stride[i] != 1 || s->pad[i] != 0)
        p->one_by_one = 0;
    }
  if (p->one_by_one && p->in_spatial != p->positions)
    return 0;
  p->m = s->out_channels / s->group;
  if (!mul_ok (s->in_channels / s->group, kernel_size, &p->kernel_dim)
      || !mul_ok (p->kernel_dim, s->group, &p->col_rows)
      || !mul_ok (s->in_channels, p->in_spatial, &p->in_dim)
      || !mul_ok (s->out_channels, p->positions, &p->out_dim)
      || !mul_ok (p->col_rows + s->out_channels, p->positions, &per_image)
      || !mul_ok (s->num, p->in_dim, &fit) || !mul_ok (s->num, p->out_dim, &fit))
    return 0;

  fit = SUB_BATCH_FLOATS / per_image;
  p->sub_batch = fit < 1 ? 1 : fit > s->num ? s->num : fit;
  if (p->sub_batch < 1)
    p->sub_batch = 1;

  p->geometry.n = s->num_spatial_axes;
  p->geometry.channels = s->in_channels;
  for (int i = 0; i < s->num_spatial_axes; i++)
    {
      p->geometry.im_dims[i] = s->in_dims[i];
      p->geometry.out_dims[i] = s->out_dims[i];
      p->geometry.kernel[i] = s->kernel[i];
      p->geometry.pad[i] = s->pad[i];
      p->geometry.stride[i] = s->stride[i];
      p->geometry.dilation[i] = s->dilation[i];
    }
  /* The output size must be Caffe's, or im2col would read past the image. */
  for (int i = 0; i < s->num_spatial_axes; i++)
    {
      int64_t extent, padded;

      if (!mul_ok (s->dilation[i], s->kernel[i] - 1, &extent) || !mul_ok (s->pad[i], 2, &padded)
          || __builtin_add_overflow (padded, s->in_dims[i], &padded) || padded <= extent
          || s->out_dims[i] != (padded - extent - 1) / s->stride[i] + 1)
        return 0;
    }
  return p->one_by_one || ct_cuda_im2col_geometry_check (&p->geometry) == CT_STATUS_OK;
}

static size_t
im2col_workspace_floats (const Plan *p, const CtConvShape *s)
{
  return (size_t) (p->sub_batch * (p->col_rows + s->out_channels) * p->positions);
}

/* ---- cuBLAS ------------------------------------------------------------- */

/* Row-major C_i = alpha op(A_i) op(B_i) + beta C_i for BATCH triples, each
 * matrix with its own leading dimension and batch stride (0: the same
 * matrix for every i). As in blas.cu, the row-major product is cuBLAS's
 * column-major one with the operands swapped. */
static CtStatus
gemm_batched (CtTranspose ta, CtTranspose tb, int64_t m, int64_t n, int64_t k, float alpha,
              const float *a, int64_t lda, int64_t stride_a, const float *b, int64_t ldb,
              int64_t stride_b, float beta, float *c, int64_t ldc, int64_t stride_c,
              int64_t batch)
{
  cublasHandle_t handle = ct_cuda_blas_handle ();

  if (handle == nullptr)
    return CT_STATUS_DEVICE_ERROR;
  if (batch == 0 || m == 0 || n == 0)
    return CT_STATUS_OK;
  CT_CUBLAS_TRY (cublasSgemmStridedBatched_64 (
    handle, tb == CT_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N, ta == CT_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N,
    n, m, k, &alpha, b, ldb, stride_b, a, lda, stride_a, &beta, c, ldc, stride_c, batch));
  return CT_STATUS_OK;
}

/* ---- the im2col path ---------------------------------------------------- */

static CtStatus
im2col_forward (const CtConvShape *s, const Plan *p, const float *input, const float *weights,
                float *output, float *workspace)
{
  const int64_t m = p->m, k = p->kernel_dim, pos = p->positions;
  /* A 1x1 kernel reads the images themselves, all in one batch. */
  const int64_t step = p->one_by_one ? s->num : p->sub_batch;
  CtStatus status = CT_STATUS_OK;

  for (int64_t n = 0; n < s->num && status == CT_STATUS_OK; n += step)
    {
      int64_t nb = s->num - n < step ? s->num - n : step;
      const float *col = input + n * p->in_dim;
      int64_t ld = pos, col_stride = p->in_dim;

      if (!p->one_by_one)
        {
          col = workspace;
          ld = nb * pos;
          col_stride = pos;
          status = ct_cuda_im2col_batch (&p->geometry, nb, input + n * p->in_dim, p->in_dim,
                                         workspace, col_stride, ld);
        }
      for (int64_t g = 0; g < s->group && status == CT_STATUS_OK; g++)
        status = gemm_batched (CT_NO_TRANS, CT_NO_TRANS, m, pos, k, 1.0f,
                               weights + g * m * k, k, 0,
                               col + g * k * ld, ld, col_stride,
                               0.0f, output + n * p->out_dim + g * m * pos, pos, p->out_dim, nb);
    }
  return status;
}

/* WEIGHT_DIFF += the weight gradient, a sub-batch at a time: the columns
 * and the output diff side by side, one GEMM per group. */
static CtStatus
im2col_weight_diff (const CtConvShape *s, const Plan *p, const float *input,
                    const float *output_diff, float *weight_diff, float *workspace)
{
  const int64_t m = p->m, k = p->kernel_dim, pos = p->positions;
  CtStatus status = CT_STATUS_OK;

  for (int64_t n = 0; n < s->num && status == CT_STATUS_OK; n += p->sub_batch)
    {
      int64_t nb = s->num - n < p->sub_batch ? s->num - n : p->sub_batch;
      int64_t ld = nb * pos;
      const float *in = input + n * p->in_dim;
      const float *top = output_diff + n * p->out_dim;
      float *col = workspace, *rows = workspace + p->col_rows * ld;

      if (nb == 1 && p->one_by_one)
        col = (float *) in;
      else if (p->one_by_one)
        status = ct_cuda_batch_pack (nb, p->col_rows, pos, in, col, nullptr);
      else
        status = ct_cuda_im2col_batch (&p->geometry, nb, in, p->in_dim, col, pos, ld);
      if (status == CT_STATUS_OK && nb > 1)
        status = ct_cuda_batch_pack (nb, s->out_channels, pos, top, rows, nullptr);
      else
        rows = (float *) top;
      for (int64_t g = 0; g < s->group && status == CT_STATUS_OK; g++)
        status = ct_cuda_gemm (CT_NO_TRANS, CT_TRANS, m, k, ld, 1.0f, rows + g * m * ld,
                               col + g * k * ld, 1.0f, weight_diff + g * m * k);
    }
  return status;
}

/* INPUT_DIFF = the input gradient: per image W^T times its output diff,
 * into the column matrix (or, 1x1, straight into the input diff), then
 * col2im. */
static CtStatus
im2col_input_diff (const CtConvShape *s, const Plan *p, const float *output_diff,
                   const float *weights, float *input_diff, float *workspace)
{
  const int64_t m = p->m, k = p->kernel_dim, pos = p->positions;
  const int64_t step = p->one_by_one ? s->num : p->sub_batch;
  CtStatus status = CT_STATUS_OK;

  for (int64_t n = 0; n < s->num && status == CT_STATUS_OK; n += step)
    {
      int64_t nb = s->num - n < step ? s->num - n : step;
      float *col = input_diff + n * p->in_dim;
      int64_t ld = pos, col_stride = p->in_dim;

      if (!p->one_by_one)
        {
          col = workspace;
          ld = nb * pos;
          col_stride = pos;
        }
      for (int64_t g = 0; g < s->group && status == CT_STATUS_OK; g++)
        status = gemm_batched (CT_TRANS, CT_NO_TRANS, k, pos, m, 1.0f,
                               weights + g * m * k, k, 0,
                               output_diff + n * p->out_dim + g * m * pos, pos, p->out_dim,
                               0.0f, col + g * k * ld, ld, col_stride, nb);
      if (status == CT_STATUS_OK && !p->one_by_one)
        status = ct_cuda_col2im_batch (&p->geometry, nb, workspace, pos, ld,
                                       input_diff + n * p->in_dim, p->in_dim);
    }
  return status;
}

/* ---- cuDNN -------------------------------------------------------------- */

#ifdef CT_HAVE_CUDNN

/* cuDNN is opened at run time (libcudnn.so.9), not linked: a machine
 * without it, or with another major version, still runs every
 * convolution, on im2col. The table holds the functions used here, typed
 * from the header. */
#define CT_CUDNN_FUNCTIONS(X)                                                          \
  X (cudnnGetVersion) X (cudnnCreate) X (cudnnCreateTensorDescriptor)                  \
  X (cudnnCreateFilterDescriptor) X (cudnnCreateConvolutionDescriptor)                 \
  X (cudnnDestroyTensorDescriptor) X (cudnnDestroyFilterDescriptor)                    \
  X (cudnnDestroyConvolutionDescriptor) X (cudnnSetTensor4dDescriptor)                 \
  X (cudnnSetFilter4dDescriptor) X (cudnnSetConvolution2dDescriptor)                   \
  X (cudnnSetConvolutionGroupCount) X (cudnnSetConvolutionMathType)                    \
  X (cudnnGetConvolution2dForwardOutputDim) X (cudnnGetConvolutionForwardAlgorithm_v7) \
  X (cudnnGetConvolutionBackwardDataAlgorithm_v7)                                      \
  X (cudnnGetConvolutionBackwardFilterAlgorithm_v7)                                    \
  X (cudnnGetConvolutionForwardWorkspaceSize)                                          \
  X (cudnnGetConvolutionBackwardDataWorkspaceSize)                                     \
  X (cudnnGetConvolutionBackwardFilterWorkspaceSize) X (cudnnConvolutionForward)       \
  X (cudnnConvolutionBackwardFilter) X (cudnnConvolutionBackwardData)

static struct {
#define CT_CUDNN_FIELD(f) decltype (&::f) f;
  CT_CUDNN_FUNCTIONS (CT_CUDNN_FIELD)
#undef CT_CUDNN_FIELD
} dnn;

static std::once_flag dnn_once;
static int dnn_loaded;

static void
dnn_load (void)
{
  void *lib = dlopen ("libcudnn.so." CT_STRINGIFY (CUDNN_MAJOR), RTLD_NOW | RTLD_LOCAL);

  if (lib == nullptr)
    return;
#define CT_CUDNN_LOAD(f)                                \
  if ((dnn.f = (decltype (&::f)) dlsym (lib, #f)) == nullptr) \
    return;
  CT_CUDNN_FUNCTIONS (CT_CUDNN_LOAD)
#undef CT_CUDNN_LOAD
  /* The legacy API's types are those of the header's major version. */
  dnn_loaded = dnn.cudnnGetVersion () / 10000 == CUDNN_MAJOR;
}

/* Whether cuDNN can be called (loading it the first time). */
static int
dnn_available (void)
{
  std::call_once (dnn_once, dnn_load);
  return dnn_loaded;
}

/* What a shape runs with on one device; ok 0 when cuDNN declined it. */
typedef struct {
  int ok;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  cudnnConvolutionFwdAlgo_t forward;
  cudnnConvolutionBwdDataAlgo_t backward_data;
  cudnnConvolutionBwdFilterAlgo_t backward_filter;
  size_t bytes; /* the largest workspace of the three */
} Dnn;

/* The largest workspace an algorithm may ask for (1 GiB). */
#define CUDNN_WORKSPACE_LIMIT ((size_t) 1 << 30)

typedef std::array<int64_t, 17> DnnKey;

/* Plans are shared by every thread (so that the workspace a thread was
 * told about matches whatever thread runs the pass); handles are per
 * thread, as cuDNN wants. Plans live until the process ends; a net has a
 * few dozen shapes. */
static std::mutex dnn_lock;
static std::map<DnnKey, Dnn> dnn_plans;

static thread_local cudnnHandle_t thread_dnn = nullptr;
static thread_local int thread_dnn_device = -1;
static thread_local int thread_dnn_failed = 0;

static CtStatus
dnn_status (cudnnStatus_t status)
{
  switch (status)
    {
    case CUDNN_STATUS_SUCCESS:
      return CT_STATUS_OK;
    case CUDNN_STATUS_ALLOC_FAILED:
      return CT_STATUS_OUT_OF_MEMORY;
    case CUDNN_STATUS_BAD_PARAM:
      return CT_STATUS_INVALID;
    default:
      return CT_STATUS_DEVICE_ERROR;
    }
}

#define CT_CUDNN_TRY(call)                              \
  do {                                                  \
    cudnnStatus_t ct_dnn_status_ = (call);              \
    if (ct_dnn_status_ != CUDNN_STATUS_SUCCESS)         \
      return dnn_status (ct_dnn_status_);               \
  } while (0)

/* This thread's handle on its device; nullptr when cuDNN cannot start. */
static cudnnHandle_t
dnn_handle (void)
{
  int device = -1;

  if (cudaGetDevice (&device) != cudaSuccess)
    {
      cudaGetLastError ();
      return nullptr;
    }
  if (thread_dnn != nullptr && thread_dnn_device == device)
    return thread_dnn;
  if (thread_dnn_failed || !dnn_available ())
    return nullptr;
  /* A thread that moved to another device gets a handle there; the old
   * one is left to the process's exit, as device.cu does with cuBLAS. */
  if (dnn.cudnnCreate (&thread_dnn) != CUDNN_STATUS_SUCCESS)
        {
          thread_dnn = nullptr;
      thread_dnn_failed = 1;
      return nullptr;
    }
  thread_dnn_device = device;
  return thread_dnn;
}

static int
fits_int (int64_t v)
{
  return v > 0 && v <= INT_MAX;
}

/* FFT and the non-fused Winograd transforms round too coarsely for the
 * contract's 1e-4: measured on the H200, a 5x5 weight gradient through
 * WINOGRAD_NONFUSED was 1.2e-3 away from the CPU's. */
static int
is_fft_forward (cudnnConvolutionFwdAlgo_t a)
{
  return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING
         || a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}

static int
is_fft_data (cudnnConvolutionBwdDataAlgo_t a)
{
  return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT
         || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING
         || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

static int
is_fft_filter (cudnnConvolutionBwdFilterAlgo_t a)
{
  return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT
         || a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING
         || a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
}

/* The algorithms cuDNN documents as nondeterministic, refused whatever the
 * heuristics' determinism field says. */
static int
is_fft_or_racy_data (cudnnConvolutionBwdDataAlgo_t a)
{
  return is_fft_data (a) || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
}

static int
is_fft_or_racy_filter (cudnnConvolutionBwdFilterAlgo_t a)
{
  return is_fft_filter (a) || a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0
         || a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
}

static int
plain_fp32 (cudnnMathType_t math)
{
  return math == CUDNN_DEFAULT_MATH || math == CUDNN_FMA_MATH;
}

/* Which of the heuristics' candidates (best first) a pass takes: the
 * first that works, is deterministic, is not REFUSED (FFT-based or racy),
 * is plain FP32 and fits the workspace limit; 0 when none does. BYTES
 * grows to its workspace. */
template <typename Perf, typename Algo>
static int
pick (const Perf *perf, int returned, int (*refused) (Algo), Algo *out, size_t *bytes)
{
  for (int i = 0; i < returned; i++)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].determinism == CUDNN_DETERMINISTIC
        && !refused (perf[i].algo) && plain_fp32 (perf[i].mathType)
        && perf[i].memory <= CUDNN_WORKSPACE_LIMIT)
      {
        *out = perf[i].algo;
        if (perf[i].memory > *bytes)
          *bytes = perf[i].memory;
        return 1;
      }
  return 0;
}

/* In dnn_plan: 0 when a cuDNN call fails. */
#define PLAN_TRY(call)                                  \
  do {                                                  \
    if ((call) != CUDNN_STATUS_SUCCESS)                 \
      return 0;                                         \
  } while (0)

/* Descriptors and algorithms for S, in D; 0 when cuDNN fails or has no
 * algorithm that suits one of the passes. */
static int
dnn_plan (cudnnHandle_t handle, const CtConvShape *s, Dnn *d)
{
  cudnnConvolutionFwdAlgoPerf_t fwd[2 * CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  cudnnConvolutionBwdDataAlgoPerf_t data[2 * CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  cudnnConvolutionBwdFilterAlgoPerf_t filter[2 * CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int returned = 0, n, c, h, w;

  PLAN_TRY (dnn.cudnnCreateTensorDescriptor (&d->x));
  PLAN_TRY (dnn.cudnnCreateTensorDescriptor (&d->y));
  PLAN_TRY (dnn.cudnnCreateFilterDescriptor (&d->w));
  PLAN_TRY (dnn.cudnnCreateConvolutionDescriptor (&d->conv));
  PLAN_TRY (dnn.cudnnSetTensor4dDescriptor (d->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                            (int) s->num, (int) s->in_channels,
                                            (int) s->in_dims[0], (int) s->in_dims[1]));
  PLAN_TRY (dnn.cudnnSetTensor4dDescriptor (d->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                            (int) s->num, (int) s->out_channels,
                                            (int) s->out_dims[0], (int) s->out_dims[1]));
  PLAN_TRY (dnn.cudnnSetFilter4dDescriptor (d->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                            (int) s->out_channels,
                                            (int) (s->in_channels / s->group),
                                            (int) s->kernel[0], (int) s->kernel[1]));
  PLAN_TRY (dnn.cudnnSetConvolution2dDescriptor (d->conv, (int) s->pad[0], (int) s->pad[1],
                                                 (int) s->stride[0], (int) s->stride[1],
                                                 (int) s->dilation[0], (int) s->dilation[1],
                                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  PLAN_TRY (dnn.cudnnSetConvolutionGroupCount (d->conv, (int) s->group));
  /* FP32 arithmetic only: no TF32 on Ampere and later. */
  PLAN_TRY (dnn.cudnnSetConvolutionMathType (d->conv, CUDNN_FMA_MATH));
  PLAN_TRY (dnn.cudnnGetConvolution2dForwardOutputDim (d->conv, d->x, d->w, &n, &c, &h, &w));
  if (n != s->num || c != s->out_channels || h != s->out_dims[0] || w != s->out_dims[1])
    return 0;

  d->bytes = 0;
  PLAN_TRY (dnn.cudnnGetConvolutionForwardAlgorithm_v7 (
    handle, d->x, d->w, d->conv, d->y, (int) (sizeof fwd / sizeof fwd[0]), &returned, fwd));
  if (!pick (fwd, returned, is_fft_forward, &d->forward, &d->bytes))
    return 0;
  PLAN_TRY (dnn.cudnnGetConvolutionBackwardDataAlgorithm_v7 (
    handle, d->w, d->y, d->conv, d->x, (int) (sizeof data / sizeof data[0]), &returned, data));
  if (!pick (data, returned, is_fft_or_racy_data, &d->backward_data, &d->bytes))
    return 0;
  PLAN_TRY (dnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7 (
    handle, d->x, d->y, d->conv, d->w, (int) (sizeof filter / sizeof filter[0]), &returned,
    filter));
  if (!pick (filter, returned, is_fft_or_racy_filter, &d->backward_filter, &d->bytes))
    return 0;

  /* The heuristics' sizes are estimates; ask for the exact ones. */
  {
    size_t bytes = 0;

    PLAN_TRY (dnn.cudnnGetConvolutionForwardWorkspaceSize (handle, d->x, d->w, d->conv, d->y,
                                                           d->forward, &bytes));
    d->bytes = bytes > d->bytes ? bytes : d->bytes;
    PLAN_TRY (dnn.cudnnGetConvolutionBackwardDataWorkspaceSize (handle, d->w, d->y, d->conv,
                                                                d->x, d->backward_data, &bytes));
    d->bytes = bytes > d->bytes ? bytes : d->bytes;
    PLAN_TRY (dnn.cudnnGetConvolutionBackwardFilterWorkspaceSize (
      handle, d->x, d->y, d->conv, d->w, d->backward_filter, &bytes));
    d->bytes = bytes > d->bytes ? bytes : d->bytes;
  }
  return 1;
}

static void
dnn_destroy (Dnn *d)
{
  if (d->x != nullptr)
    dnn.cudnnDestroyTensorDescriptor (d->x);
  if (d->y != nullptr)
    dnn.cudnnDestroyTensorDescriptor (d->y);
  if (d->w != nullptr)
    dnn.cudnnDestroyFilterDescriptor (d->w);
  if (d->conv != nullptr)
    dnn.cudnnDestroyConvolutionDescriptor (d->conv);
  memset (d, 0, sizeof *d);
}

/* Whether cuDNN can take S at all (before asking it). */
static int
dnn_shape_ok (const CtConvShape *s, const Plan *p)
{
  int64_t count;

  if (s->num_spatial_axes != 2 || s->num == 0)
    return 0;
  if (!fits_int (s->num) || !fits_int (s->in_channels) || !fits_int (s->out_channels)
      || !fits_int (s->group))
    return 0;
  for (int i = 0; i < 2; i++)
    if (!fits_int (s->in_dims[i]) || !fits_int (s->out_dims[i]) || !fits_int (s->kernel[i])
        || s->pad[i] > INT_MAX || !fits_int (s->stride[i]) || !fits_int (s->dilation[i]))
      return 0;
  /* The legacy API indexes tensors in 32 bits. */
  return mul_ok (s->num, p->in_dim, &count) && count <= INT_MAX
         && mul_ok (s->num, p->out_dim, &count) && count <= INT_MAX;
}

/* The plan S runs with on this thread's device, or nullptr for im2col
 * (the backend says so, cuDNN declined the shape, or cannot start). */
static const Dnn *
dnn_lookup (const CtConvShape *s, const Plan *p)
{
  cudnnHandle_t handle;
  int device = 0;
  DnnKey key;
  Dnn d;

  if (get_backend () == CT_CONV_BACKEND_IM2COL || !dnn_shape_ok (s, p))
    return nullptr;
  if (cudaGetDevice (&device) != cudaSuccess)
    {
      cudaGetLastError ();
      return nullptr;
    }
  key = { device, s->num, s->in_channels, s->out_channels, s->group,
          s->in_dims[0], s->in_dims[1], s->out_dims[0], s->out_dims[1],
          s->kernel[0], s->kernel[1], s->pad[0], s->pad[1],
          s->stride[0], s->stride[1], s->dilation[0], s->dilation[1] };
  {
    std::lock_guard<std::mutex> guard (dnn_lock);
    auto found = dnn_plans.find (key);

    if (found != dnn_plans.end ())
      return found->second.ok ? &found->second : nullptr;
  }
  if ((handle = dnn_handle ()) == nullptr)
    return nullptr;
  memset (&d, 0, sizeof d);
  d.ok = dnn_plan (handle, s, &d);
  if (!d.ok)
    dnn_destroy (&d);
  {
    std::lock_guard<std::mutex> guard (dnn_lock);
    /* Another thread may have planned the same shape meanwhile: keep
     * the first plan, so that every thread uses the same algorithms. */
    auto inserted = dnn_plans.emplace (key, d);

    if (!inserted.second)
      dnn_destroy (&d);
    return inserted.first->second.ok ? &inserted.first->second : nullptr;
  }
}

static CtStatus
dnn_forward (const Dnn *d, const float *input, const float *weights, float *output,
             float *workspace)
{
  const float one = 1.0f, zero = 0.0f;
  cudnnHandle_t handle = dnn_handle ();

  if (handle == nullptr)
    return CT_STATUS_DEVICE_ERROR;
  CT_CUDNN_TRY (dnn.cudnnConvolutionForward (handle, &one, d->x, input, d->w, weights, d->conv,
                                             d->forward, workspace, d->bytes, &zero, d->y, output));
  return CT_STATUS_OK;
}

static CtStatus
dnn_backward (const Dnn *d, const float *input, const float *output_diff,
              const float *weights, float *weight_diff, float *input_diff, float *workspace)
{
  const float one = 1.0f, zero = 0.0f;
  cudnnHandle_t handle = dnn_handle ();

  if (handle == nullptr)
    return CT_STATUS_DEVICE_ERROR;
  /* beta 1: the weight gradient accumulates, as conv.h says. */
  if (weight_diff != nullptr)
    CT_CUDNN_TRY (dnn.cudnnConvolutionBackwardFilter (handle, &one, d->x, input, d->y, output_diff,
                                                      d->conv, d->backward_filter, workspace,
                                                      d->bytes, &one, d->w, weight_diff));
  if (input_diff != nullptr)
    CT_CUDNN_TRY (dnn.cudnnConvolutionBackwardData (handle, &one, d->w, weights, d->y, output_diff,
                                                    d->conv, d->backward_data, workspace, d->bytes,
                                                    &zero, d->x, input_diff));
  return CT_STATUS_OK;
}

#else /* !CT_HAVE_CUDNN */

typedef struct {
  size_t bytes;
} Dnn;

static const Dnn *
dnn_lookup (const CtConvShape *, const Plan *)
{
  return nullptr;
}

static CtStatus
dnn_forward (const Dnn *, const float *, const float *, float *, float *)
{
  return CT_STATUS_DEVICE_ERROR;
}

static CtStatus
dnn_backward (const Dnn *, const float *, const float *, const float *, float *, float *,
              float *)
{
  return CT_STATUS_DEVICE_ERROR;
}

#endif

/* ---- conv.h ------------------------------------------------------------- */

extern "C" int
ct_cuda_conv_have_cudnn (void)
{
#ifdef CT_HAVE_CUDNN
  return dnn_available ();
#else
  return 0;
#endif
}

extern "C" int
ct_cuda_conv_uses_cudnn (const CtConvShape *s)
{
  Plan p;

  if (!plan_shape (s, &p) || ct_cuda_enter () != CT_STATUS_OK)
    return 0;
  return dnn_lookup (s, &p) != nullptr;
}

extern "C" size_t
ct_cuda_conv_workspace_floats (const CtConvShape *s)
{
  Plan p;
  const Dnn *d;

  if (!plan_shape (s, &p) || s->num == 0)
    return 0;
  if (ct_cuda_enter () == CT_STATUS_OK && (d = dnn_lookup (s, &p)) != nullptr)
    return (d->bytes + sizeof (float) - 1) / sizeof (float);
  return im2col_workspace_floats (&p, s);
}

/* Adds bias[c] to channel c of NUM images of CHANNELS x SPATIAL floats. */
template <typename I>
__global__ static void
bias_kernel (I total, I channels, I spatial, const float *__restrict__ bias, float *data)
{
  for (I index = (I) blockIdx.x * blockDim.x + threadIdx.x; index < total;
       index += (I) blockDim.x * gridDim.x)
    data[index] += bias[(index / spatial) % channels];
}

extern "C" CtStatus
ct_cuda_conv_bias_forward (int64_t num, int64_t channels, int64_t spatial, const float *bias,
                           float *data)
{
  int64_t total;

  if (num < 0 || channels < 0 || spatial < 0
      || (channels > 0 && spatial > 0 && num > INT64_MAX / channels / spatial))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  total = num * channels * spatial;
  if (total == 0)
    return CT_STATUS_OK;
  if (total < INT_MAX / 2)
    bias_kernel<int><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (
      (int) total, (int) channels, (int) spatial, bias, data);
  else
    bias_kernel<int64_t><<<ct_cuda_blocks (total), CT_CUDA_THREADS>>> (total, channels, spatial,
                                                                       bias, data);
  return ct_cuda_launch_status ();
}

/* bias_diff[c] += channel C's sum over NUM images of SPATIAL positions.
 * common.cu's channel sums (segment-sum.cuh) spread a few long channels
 * over the whole GPU, deterministically, summing in double. */
static CtStatus
bias_diff_sums (int64_t num, int64_t channels, int64_t spatial, const float *diff,
                float *bias_diff)
{
  if (num < 0 || channels < 0 || spatial < 0
      || (channels > 0 && spatial > 0 && num > INT64_MAX / channels / spatial))
    return CT_STATUS_INVALID;
  return ct_cuda_bias_backward (num, channels, spatial, diff, 1, bias_diff);
}

extern "C" CtStatus
ct_cuda_conv_bias_backward (int64_t num, int64_t channels, int64_t spatial, const float *diff,
                            float *bias_diff)
{
  return bias_diff_sums (num, channels, spatial, diff, bias_diff);
}

extern "C" CtStatus
ct_cuda_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                      const float *bias, float *output, float *workspace)
{
  Plan p;
  const Dnn *d;
  CtStatus status;

  if (!plan_shape (s, &p))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (s->num == 0)
    return CT_STATUS_OK;
  if ((d = dnn_lookup (s, &p)) != nullptr)
    status = dnn_forward (d, input, weights, output, workspace);
  else
    status = im2col_forward (s, &p, input, weights, output, workspace);
  /* The bias after the product, one rounding per element, as Caffe adds it. */
  if (status == CT_STATUS_OK && bias != nullptr)
    status = ct_cuda_conv_bias_forward (s->num, s->out_channels, p.positions, bias, output);
  return status;
}

extern "C" CtStatus
ct_cuda_conv_backward (const CtConvShape *s, const float *input, const float *output_diff,
                       const float *weights, float *weight_diff, float *bias_diff,
                       float *input_diff, float *workspace)
{
  Plan p;
  const Dnn *d;
  CtStatus status = CT_STATUS_OK;

  if (!plan_shape (s, &p))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (s->num == 0 || (weight_diff == nullptr && bias_diff == nullptr && input_diff == nullptr))
    return CT_STATUS_OK;
  if (bias_diff != nullptr)
    status = bias_diff_sums (s->num, s->out_channels, p.positions, output_diff, bias_diff);
  if (status != CT_STATUS_OK || (weight_diff == nullptr && input_diff == nullptr))
    return status;
  if ((d = dnn_lookup (s, &p)) != nullptr)
    return dnn_backward (d, input, output_diff, weights, weight_diff, input_diff, workspace);
  if (weight_diff != nullptr)
    status = im2col_weight_diff (s, &p, input, output_diff, weight_diff, workspace);
  if (status == CT_STATUS_OK && input_diff != nullptr)
    status = im2col_input_diff (s, &p, output_diff, weights, input_diff, workspace);
  return status;
}
