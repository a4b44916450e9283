/* cpu/crop.c: the CPU side of crop.h: one memcpy per row of the last axis,
 * the rows visited with an odometer over the leading axes. */
#include <string.h>

#include "crop.h"

static int
valid_window (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
              const int64_t *offsets)
{
  if (n_axes < 1 || n_axes > CT_CROP_MAX_AXES)
    return 0;
  for (int i = 0; i < n_axes; i++)
    if (big_shape[i] < 0 || small_shape[i] < 0 || offsets[i] < 0
        || offsets[i] > big_shape[i] - small_shape[i])
      return 0;
  return 1;
}

/* The window's rows: how many, and where the one at ITER starts in BIG. */
static int64_t
row_count (int n_axes, const int64_t *small_shape)
{
  int64_t rows = 1;

  for (int i = 0; i < n_axes - 1; i++)
    rows *= small_shape[i];
  return small_shape[n_axes - 1] > 0 ? rows : 0;
}

static int64_t
row_start (int n_axes, const int64_t *big_shape, const int64_t *offsets, const int64_t *iter)
{
  int64_t index = 0;

  for (int i = 0; i < n_axes - 1; i++)
    index = index * big_shape[i] + iter[i] + offsets[i];
  return index * big_shape[n_axes - 1] + offsets[n_axes - 1];
}

static void
next_row (int n_axes, const int64_t *small_shape, int64_t *iter)
{
  for (int i = n_axes - 2; i >= 0; i--)
    {
      if (++iter[i] < small_shape[i])
        return;
      iter[i] = 0;
    }
}

CtStatus
ct_cpu_crop_forward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                     const int64_t *offsets, const float *big, float *small)
{
  int64_t iter[CT_CROP_MAX_AXES] = { 0 };
  int64_t rows, row;

  if (!valid_window (n_axes, big_shape, small_shape, offsets))
    return CT_STATUS_INVALID;
  rows = row_count (n_axes, small_shape);
  row = small_shape[n_axes - 1];
  for (int64_t r = 0; r < rows; r++, next_row (n_axes, small_shape, iter))
    memcpy (small + r * row, big + row_start (n_axes, big_shape, offsets, iter),
            (size_t) row * sizeof (float));
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_crop_backward (int n_axes, const int64_t *big_shape, const int64_t *small_shape,
                      const int64_t *offsets, const float *small, float *big)
{
  int64_t iter[CT_CROP_MAX_AXES] = { 0 };
  int64_t rows, row;

  if (!valid_window (n_axes, big_shape, small_shape, offsets))
    return CT_STATUS_INVALID;
  rows = row_count (n_axes, small_shape);
  row = small_shape[n_axes - 1];
  for (int64_t r = 0; r < rows; r++, next_row (n_axes, small_shape, iter))
    memcpy (big + row_start (n_axes, big_shape, offsets, iter), small + r * row,
            (size_t) row * sizeof (float));
  return CT_STATUS_OK;
}
