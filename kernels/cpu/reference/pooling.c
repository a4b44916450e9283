/* cpu/reference/pooling.c: MAX and AVE pooling as Caffe's PoolingLayer
 * writes them, one output at a time (reference.h). */
#include <float.h>

#include "reference.h"

static int64_t
min64 (int64_t a, int64_t b)
{
  return a < b ? a : b;
}

static int64_t
max64 (int64_t a, int64_t b)
{
  return a > b ? a : b;
}

void
ct_ref_max_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top,
                         int32_t *mask)
{
  for (int64_t p = 0; p < g->planes; p++)
    for (int64_t ph = 0; ph < g->pooled_height; ph++)
      for (int64_t pw = 0; pw < g->pooled_width; pw++)
        {
          int64_t hstart = ph * g->stride_h - g->pad_h, wstart = pw * g->stride_w - g->pad_w;
          int64_t hend = min64 (hstart + g->kernel_h, g->height);
          int64_t wend = min64 (wstart + g->kernel_w, g->width);
          const float *in = bottom + p * g->height * g->width;
          int64_t out = (p * g->pooled_height + ph) * g->pooled_width + pw;
          float best = -FLT_MAX;
          int32_t winner = -1;

          for (int64_t h = max64 (hstart, 0); h < hend; h++)
            for (int64_t w = max64 (wstart, 0); w < wend; w++)
              if (in[h * g->width + w] > best)
                {
                  best = in[h * g->width + w];
                  winner = (int32_t) (h * g->width + w);
                }
          top[out] = best;
          mask[out] = winner;
        }
}

void
ct_ref_max_pool_backward (const CtPoolGeometry *g, const float *top_diff,
                          const int32_t *mask, float *bottom_diff)
{
  for (int64_t p = 0; p < g->planes; p++)
    for (int64_t i = 0; i < g->pooled_height * g->pooled_width; i++)
      {
        int64_t out = p * g->pooled_height * g->pooled_width + i;

        if (mask[out] >= 0)
          bottom_diff[p * g->height * g->width + mask[out]] += top_diff[out];
      }
}

/* The window of output (PH, PW): its extent in the image, and its size
 * counted in the padded image. */
static int64_t
ave_window (const CtPoolGeometry *g, int64_t ph, int64_t pw, int64_t *h0, int64_t *h1,
            int64_t *w0, int64_t *w1)
{
  int64_t hstart = ph * g->stride_h - g->pad_h, wstart = pw * g->stride_w - g->pad_w;
  int64_t hend = min64 (hstart + g->kernel_h, g->height + g->pad_h);
  int64_t wend = min64 (wstart + g->kernel_w, g->width + g->pad_w);
  int64_t size = (hend - hstart) * (wend - wstart);

  *h0 = max64 (hstart, 0);
  *w0 = max64 (wstart, 0);
  *h1 = min64 (hend, g->height);
  *w1 = min64 (wend, g->width);
  return size;
}

void
ct_ref_ave_pool_forward (const CtPoolGeometry *g, const float *bottom, float *top)
{
  for (int64_t p = 0; p < g->planes; p++)
    for (int64_t ph = 0; ph < g->pooled_height; ph++)
      for (int64_t pw = 0; pw < g->pooled_width; pw++)
        {
          const float *in = bottom + p * g->height * g->width;
          int64_t h0, h1, w0, w1, size = ave_window (g, ph, pw, &h0, &h1, &w0, &w1);
          float sum = 0.0f;

          for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++)
              sum += in[h * g->width + w];
          top[(p * g->pooled_height + ph) * g->pooled_width + pw] = sum / (float) size;
        }
}

void
ct_ref_ave_pool_backward (const CtPoolGeometry *g, const float *top_diff, float *bottom_diff)
{
  for (int64_t p = 0; p < g->planes; p++)
    for (int64_t ph = 0; ph < g->pooled_height; ph++)
      for (int64_t pw = 0; pw < g->pooled_width; pw++)
        {
          float *diff = bottom_diff + p * g->height * g->width;
          int64_t h0, h1, w0, w1, size = ave_window (g, ph, pw, &h0, &h1, &w0, &w1);
          float share = top_diff[(p * g->pooled_height + ph) * g->pooled_width + pw] / (float) size;

          for (int64_t h = h0; h < h1; h++)
            for (int64_t w = w0; w < w1; w++)
              diff[h * g->width + w] += share;
        }
}
