/* crop.cu: the CUDA side of crop.h. One thread per element of the window:
 * its coordinates in SMALL, shifted by the offsets, give its place in BIG.
 * The shapes travel to the kernel by value, so the caller's arrays stay
 * on the host, as for the CPU twin. */
#include <cstdint>

#include "crop.h"
#include "cuda-private.cuh"

typedef struct
{
  int n_axes;
  int64_t big[CT_CROP_MAX_AXES], small[CT_CROP_MAX_AXES], offsets[CT_CROP_MAX_AXES];
} Window;

static int
make_window (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
             const int64_t *offsets, Window *w, int64_t *count)
{
  if (n_axes < 1 || n_axes > CT_CROP_MAX_AXES)
    return 0;
  w->n_axes = n_axes;
  *count = 1;
  for (int i = 0; i < n_axes; i++)
    {
      if (big_shape[i] < 0 || small_shape[i] < 0 || offsets[i] < 0
          || offsets[i] > big_shape[i] - small_shape[i])
        return 0;
      w->big[i] = big_shape[i];
      w->small[i] = small_shape[i];
      w->offsets[i] = offsets[i];
      *count *= small_shape[i];
    }
  return 1;
}

/* Where element K of the window lies in BIG. */
__device__ static inline int64_t
big_index (const Window &w, int64_t k)
{
  int64_t index = 0, stride = 1;

  for (int a = w.n_axes - 1; a >= 0; a--)
    {
      int64_t q = k / w.small[a];

      index += (k - q * w.small[a] + w.offsets[a]) * stride;
      stride *= w.big[a];
      k = q;
    }
  return index;
}

__global__ static void
crop_kernel (Window w, int64_t n, int backward, const float *from, float *to)
{
  CT_CUDA_LOOP (k, n)
    {
      if (backward)
        to[big_index (w, k)] = from[k];
      else
        to[k] = from[big_index (w, k)];
    }
}

static CtStatus
crop (int n_axes, const int64_t *big_shape, const int64_t *small_shape, const int64_t *offsets,
      int backward, const float *from, float *to)
{
  Window w;
  int64_t n;

  if (!make_window (n_axes, big_shape, small_shape, offsets, &w, &n))
    return CT_STATUS_INVALID;
  CT_CUDA_ENTER ();
  if (n == 0)
    return CT_STATUS_OK;
  crop_kernel<<<ct_cuda_blocks (n), CT_CUDA_THREADS>>> (w, n, backward, from, to);
  return ct_cuda_launch_status ();
}

extern "C" CtStatus
ct_cuda_crop_forward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                      const int64_t *offsets, const float *big, float *small)
{
  return crop (n_axes, big_shape, small_shape, offsets, 0, big, small);
}

extern "C" CtStatus
ct_cuda_crop_backward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                       const int64_t *offsets, const float *small, float *big)
{
  return crop (n_axes, big_shape, small_shape, offsets, 1, small, big);
}
