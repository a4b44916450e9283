/* test-conv.c: the convolution kernels (conv.h) against a direct
 * convolution written from its definition, in double: forward with and
 * without bias, and each backward output alone and all together, for 2-D
 * kernels with groups, 1x1 kernels (one image and sub-batches of several),
 * 1-D and 3-D shapes and no spatial axes at all; results that repeat; the
 * workspace query; shapes out of range. */
#include <math.h>
#include <string.h>
#include <glib.h>

#include "conv.h"

typedef struct {
  int64_t num, in_channels, out_channels, group;
  int n;
  int64_t dims[3], kernel[3], pad[3], stride[3], dilation[3];
} Case;

static const Case cases[] = {
  { 5, 4, 6, 2, 2, { 7, 6 }, { 3, 2 }, { 1, 0 }, { 2, 1 }, { 1, 2 } },
  { 3, 3, 4, 1, 2, { 9, 8 }, { 5, 5 }, { 2, 2 }, { 1, 1 }, { 1, 1 } },
  { 7, 4, 3, 1, 2, { 3, 4 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 1, 6, 4, 2, 2, { 5, 5 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, { 1, 1 } },
  { 4, 2, 3, 1, 1, { 11 }, { 3 }, { 1 }, { 2 }, { 2 } },
  { 2, 2, 4, 2, 3, { 4, 5, 3 }, { 2, 3, 2 }, { 1, 0, 1 }, { 1, 2, 2 }, { 1, 1, 2 } },
  { 6, 5, 2, 1, 0, { 0 }, { 0 }, { 0 }, { 0 }, { 0 } },
};

static CtConvShape
make_shape (const Case *c)
{
  CtConvShape s = { .num = c->num, .in_channels = c->in_channels,
                    .out_channels = c->out_channels, .group = c->group,
                    .num_spatial_axes = c->n };

  for (int i = 0; i < c->n; i++)
    {
      s.in_dims[i] = c->dims[i];
      s.kernel[i] = c->kernel[i];
      s.pad[i] = c->pad[i];
      s.stride[i] = c->stride[i];
      s.dilation[i] = c->dilation[i];
      s.out_dims[i] = (c->dims[i] + 2 * c->pad[i] - (c->dilation[i] * (c->kernel[i] - 1) + 1))
                      / c->stride[i] + 1;
    }
  return s;
}

static int64_t
product (const int64_t *v, int n)
{
  int64_t p = 1;

  for (int i = 0; i < n; i++)
    p *= v[i];
  return p;
}

/* Calls VISIT (input index, output index, weight index) for every term of
 * the convolution's sums: the one loop the reference passes share. */
typedef void (*Visit) (int64_t in, int64_t out, int64_t w, gpointer data);

static void
each_term (const CtConvShape *s, Visit visit, gpointer data)
{
  const int n = s->num_spatial_axes;
  const int64_t in_sp = product (s->in_dims, n), out_sp = product (s->out_dims, n);
  const int64_t k_sp = product (s->kernel, n);
  const int64_t cin = s->in_channels / s->group, cout = s->out_channels / s->group;

  for (int64_t b = 0; b < s->num; b++)
    for (int64_t o = 0; o < s->out_channels; o++)
      for (int64_t pos = 0; pos < out_sp; pos++)
        for (int64_t c = 0; c < cin; c++)
          for (int64_t k = 0; k < k_sp; k++)
            {
              int64_t rest_pos = pos, rest_k = k, in_pos = 0, inside = 1;

              for (int i = n - 1; i >= 0; i--)
                {
                  int64_t op = rest_pos % s->out_dims[i], kp = rest_k % s->kernel[i];
                  int64_t ip = op * s->stride[i] - s->pad[i] + kp * s->dilation[i];
                  int64_t scale = product (s->in_dims + i + 1, n - i - 1);

                  rest_pos /= s->out_dims[i];
                  rest_k /= s->kernel[i];
                  if (ip < 0 || ip >= s->in_dims[i])
                    inside = 0;
                  in_pos += ip * scale;
                }
              if (inside)
                visit ((b * s->in_channels + (o / cout) * cin + c) * in_sp + in_pos,
                       (b * s->out_channels + o) * out_sp + pos, (o * cin + c) * k_sp + k,
                       data);
            }
}

typedef struct {
  const float *x, *w, *dy;
  double *y, *dx, *dw;
} Ref;

static void
visit_forward (int64_t in, int64_t out, int64_t w, gpointer data)
{
  Ref *r = data;

  r->y[out] += (double) r->w[w] * r->x[in];
}

static void
visit_backward (int64_t in, int64_t out, int64_t w, gpointer data)
{
  Ref *r = data;

  r->dx[in] += (double) r->w[w] * r->dy[out];
  r->dw[w] += (double) r->x[in] * r->dy[out];
}

static void
fill (float *v, int64_t n, float phase)
{
  for (int64_t i = 0; i < n; i++)
    v[i] = sinf (0.37f * (float) i + phase);
}

static void
assert_close (const float *got, const double *want, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    if (fabs (got[i] - want[i]) > 1e-4 * (1.0 + fabs (want[i])))
      g_error ("element %" G_GINT64_FORMAT ": %.7g, expected %.7g", i, got[i], want[i]);
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  CtConvShape s = make_shape (c);
  const int n = s.num_spatial_axes;
  const int64_t in_count = s.num * s.in_channels * product (s.in_dims, n);
  const int64_t out_sp = product (s.out_dims, n);
  const int64_t out_count = s.num * s.out_channels * out_sp;
  const int64_t w_count = s.out_channels * (s.in_channels / s.group) * product (s.kernel, n);
  size_t ws = ct_cpu_conv_workspace_floats (&s);
  g_autofree float *x = g_new (float, in_count), *w = g_new (float, w_count);
  g_autofree float *bias = g_new (float, s.out_channels), *y = g_new (float, out_count);
  g_autofree float *again = g_new (float, out_count), *dy = g_new (float, out_count);
  g_autofree float *dx = g_new (float, in_count), *dw = g_new (float, w_count);
  g_autofree float *db = g_new (float, s.out_channels), *dw2 = g_new (float, w_count);
  g_autofree float *workspace = g_new (float, ws + 1);
  g_autofree double *ry = g_new0 (double, out_count), *rdx = g_new0 (double, in_count);
  g_autofree double *rdw = g_new0 (double, w_count), *rdb = g_new0 (double, s.out_channels);
  Ref ref = { x, w, dy, ry, rdx, rdw };

  g_assert_cmpuint (ws, >, 0);
  fill (x, in_count, 0.1f);
  fill (w, w_count, 1.3f);
  fill (bias, s.out_channels, 2.2f);
  fill (dy, out_count, 0.7f);
  each_term (&s, visit_forward, &ref);
  each_term (&s, visit_backward, &ref);

  /* Forward without and with the bias. */
  g_assert_cmpint (ct_cpu_conv_forward (&s, x, w, NULL, y, workspace), ==, CT_STATUS_OK);
  assert_close (y, ry, out_count);
  for (int64_t i = 0; i < out_count; i++)
    ry[i] += bias[(i / out_sp) % s.out_channels];
  g_assert_cmpint (ct_cpu_conv_forward (&s, x, w, bias, y, workspace), ==, CT_STATUS_OK);
  assert_close (y, ry, out_count);
  g_assert_cmpint (ct_cpu_conv_forward (&s, x, w, bias, again, workspace), ==, CT_STATUS_OK);
  g_assert_cmpmem (y, out_count * sizeof (float), again, out_count * sizeof (float));

  /* Each backward output alone; the parameter gradients add to what is there. */
  for (int64_t i = 0; i < out_count; i++)
    rdb[(i / out_sp) % s.out_channels] += dy[i];
  memset (dw, 0, w_count * sizeof (float));
  g_assert_cmpint (ct_cpu_conv_backward (&s, x, dy, NULL, dw, NULL, NULL, workspace), ==,
                   CT_STATUS_OK);
  assert_close (dw, rdw, w_count);
  memset (db, 0, s.out_channels * sizeof (float));
  g_assert_cmpint (ct_cpu_conv_backward (&s, NULL, dy, NULL, NULL, db, NULL, workspace), ==,
                   CT_STATUS_OK);
  assert_close (db, rdb, s.out_channels);
  fill (dx, in_count, 5.0f);
  g_assert_cmpint (ct_cpu_conv_backward (&s, NULL, dy, w, NULL, NULL, dx, workspace), ==,
                   CT_STATUS_OK);
  assert_close (dx, rdx, in_count);

  /* All together, on top of the first gradients: twice theirs. */
  memcpy (dw2, dw, w_count * sizeof (float));
  g_assert_cmpint (ct_cpu_conv_backward (&s, x, dy, w, dw, db, dx, workspace), ==,
                   CT_STATUS_OK);
  for (int64_t i = 0; i < w_count; i++)
    rdw[i] *= 2;
  for (int64_t i = 0; i < s.out_channels; i++)
    rdb[i] *= 2;
  assert_close (dw, rdw, w_count);
  assert_close (db, rdb, s.out_channels);
  assert_close (dx, rdx, in_count);
  memset (dw, 0, w_count * sizeof (float));
  g_assert_cmpint (ct_cpu_conv_backward (&s, x, dy, w, dw, NULL, NULL, workspace), ==,
                   CT_STATUS_OK);
  g_assert_cmpint (ct_cpu_conv_backward (&s, x, dy, w, dw2, NULL, NULL, workspace), ==,
                   CT_STATUS_OK);
  memset (rdw, 0, w_count * sizeof (double));
  each_term (&s, visit_backward, &ref);
  assert_close (dw, rdw, w_count);
  for (int64_t i = 0; i < w_count; i++)
    rdw[i] *= 2;
  assert_close (dw2, rdw, w_count);
}

static void
test_bias (void)
{
  const float bias[2] = { 1.5f, -2.0f };
  float data[6] = { 1, 2, 3, 4, 5, 6 }, diff[6] = { 1, 1, 1, 2, 2, 2 }, bias_diff[2] = { 1, 0 };
  const float want[6] = { 2.5f, 3.5f, 4.5f, 2, 3, 4 };

  g_assert_cmpint (ct_cpu_conv_bias_forward (1, 2, 3, bias, data), ==, CT_STATUS_OK);
  g_assert_cmpmem (data, sizeof data, want, sizeof want);
  g_assert_cmpint (ct_cpu_conv_bias_backward (1, 2, 3, diff, bias_diff), ==, CT_STATUS_OK);
  g_assert_cmpfloat (bias_diff[0], ==, 4.0f);
  g_assert_cmpfloat (bias_diff[1], ==, 6.0f);
}

static void
test_invalid (void)
{
  CtConvShape s = make_shape (&cases[0]);
  float dummy = 0;

  s.group = 3;
  g_assert_cmpuint (ct_cpu_conv_workspace_floats (&s), ==, 0);
  g_assert_cmpint (ct_cpu_conv_forward (&s, &dummy, &dummy, NULL, &dummy, &dummy), ==,
                   CT_STATUS_INVALID);
  s = make_shape (&cases[0]);
  s.stride[1] = 0;
  g_assert_cmpint (ct_cpu_conv_backward (&s, &dummy, &dummy, &dummy, &dummy, NULL, NULL,
                                         &dummy), ==, CT_STATUS_INVALID);
  s = make_shape (&cases[0]);
  s.num = 0;
  g_assert_cmpint (ct_cpu_conv_forward (&s, NULL, NULL, NULL, NULL, NULL), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_conv_forward (&s, NULL, NULL, NULL, NULL, NULL), ==,
                   CT_STATUS_NO_DEVICE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/kernels/conv/case-%u", i);

      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/kernels/conv/bias", test_bias);
  g_test_add_func ("/kernels/conv/invalid", test_invalid);
  return g_test_run ();
}
