/* cpu/pooling.c: the CPU side of pooling.h: the switches of the vector
 * rows, and STOCHASTIC pooling. MAX is cpu/pool-max.c's, AVE
 * cpu/pool-ave.c's.
 *
 * Window bounds follow Caffe exactly: STOCHASTIC has no padding. */
#include <float.h>
#include <stdatomic.h>

#include "isa.h"
#include "parallel.h"
#include "pooling-private.h"
#include "switches.h"

#ifdef HAVE_AVX2_ROWS
static atomic_int avx2_allowed = 1;
static atomic_int avx512_allowed = 1;

int
ct_pool_have_avx2 (void)
{
  return ct_cpu_have_avx2 () && atomic_load (&avx2_allowed);
}

int
ct_pool_have_avx512 (void)
{
  return ct_cpu_have_avx512 () && atomic_load (&avx512_allowed);
}

int
ct_pool_avx512_switch (void)
{
  return atomic_load (&avx512_allowed);
}
#else
int
ct_pool_avx512_switch (void)
{
  return 0;
}

int
ct_pool_have_avx2 (void)
{
  return 0;
}

int
ct_pool_have_avx512 (void)
{
  return 0;
}
#endif

int
ct_cpu_max_pool_set_avx2 (int use)
{
#ifdef HAVE_AVX2_ROWS
  int old = atomic_exchange (&avx2_allowed, use != 0);

  return old;
#else
  return 0;
#endif
}

int
ct_cpu_pool_set_avx512 (int use)
{
#ifdef HAVE_AVX2_ROWS
  return atomic_exchange (&avx512_allowed, use != 0);
#else
  (void) use;
  return 0;
#endif
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

