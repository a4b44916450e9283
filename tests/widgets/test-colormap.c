/* test-colormap.c: the heatmap's colour maps and colour scales against
 * hand-computed cases: the maps' ends and centre, interpolation between
 * control points, the colours of NaN and Inf, lightness that only grows for
 * viridis and grey, and the scale modes (per blob, per channel, locked,
 * fixed) on a small blob. */
#include <math.h>

#include "heatmap/heatmap.h"

#define assert_rgb(c, R, G, B) \
  G_STMT_START { \
    CtRgb c_ = (c); \
    g_assert_cmpuint (c_.r, ==, R); \
    g_assert_cmpuint (c_.g, ==, G); \
    g_assert_cmpuint (c_.b, ==, B); \
  } G_STMT_END

/* CIE L* of an sRGB colour. */
static double
lightness (CtRgb c)
{
  double lin[3];
  const guint8 v[3] = { c.r, c.g, c.b };
  double y;

  for (int i = 0; i < 3; i++)
    {
      double s = v[i] / 255.0;

      lin[i] = s <= 0.04045 ? s / 12.92 : pow ((s + 0.055) / 1.055, 2.4);
    }
  y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return y > 216.0 / 24389.0 ? 116.0 * cbrt (y) - 16.0 : y * 24389.0 / 27.0;
}

static void
test_ends_and_centre (void)
{
  /* ColorBrewer RdBu, reversed: #053061 ... #f7f7f7 ... #67001f. */
  assert_rgb (ct_colormap_at (CT_COLORMAP_DIVERGING, 0.0), 0x05, 0x30, 0x61);
  assert_rgb (ct_colormap_at (CT_COLORMAP_DIVERGING, 0.5), 0xf7, 0xf7, 0xf7);
  assert_rgb (ct_colormap_at (CT_COLORMAP_DIVERGING, 1.0), 0x67, 0x00, 0x1f);
  assert_rgb (ct_colormap_at (CT_COLORMAP_DIVERGING, 0.1), 0x21, 0x66, 0xac);
  /* Halfway between #053061 and #2166ac: (19, 75, 134.5 -> 135). */
  assert_rgb (ct_colormap_at (CT_COLORMAP_DIVERGING, 0.05), 19, 75, 135);
  /* Clamped outside [0, 1]. */
  assert_rgb (ct_colormap_at (CT_COLORMAP_DIVERGING, -3.0), 0x05, 0x30, 0x61);
  assert_rgb (ct_colormap_at (CT_COLORMAP_DIVERGING, 7.0), 0x67, 0x00, 0x1f);

  /* Viridis: #440154, #21918c at entry 128, #fde725. */
  assert_rgb (ct_colormap_at (CT_COLORMAP_VIRIDIS, 0.0), 0x44, 0x01, 0x54);
  assert_rgb (ct_colormap_at (CT_COLORMAP_VIRIDIS, 128 / 255.0), 0x21, 0x91, 0x8c);
  assert_rgb (ct_colormap_at (CT_COLORMAP_VIRIDIS, 1.0), 0xfd, 0xe7, 0x25);

  assert_rgb (ct_colormap_at (CT_COLORMAP_GREY, 0.0), 0, 0, 0);
  assert_rgb (ct_colormap_at (CT_COLORMAP_GREY, 0.5), 128, 128, 128);
  assert_rgb (ct_colormap_at (CT_COLORMAP_GREY, 1.0), 255, 255, 255);
}

static void
test_not_finite (void)
{
  CtColorScale s = { -1.0, 1.0 };

  assert_rgb (ct_colormap_nan_color (), 0xff, 0x00, 0xff);
  for (int m = 0; m < CT_COLORMAP_N; m++)
    {
      CtRgb nan_c = ct_colormap_map (m, &s, NAN);
      CtRgb pinf = ct_colormap_map (m, &s, INFINITY);
      CtRgb ninf = ct_colormap_map (m, &s, -INFINITY);

      assert_rgb (nan_c, 0xff, 0x00, 0xff);
      assert_rgb (pinf, 0x00, 0xff, 0x00);
      assert_rgb (ninf, 0x00, 0xff, 0xff);
      /* None of the three appears in the map itself. */
      for (int i = 0; i <= 255; i++)
        {
          CtRgb c = ct_colormap_at (m, i / 255.0);
          guint32 px = ct_rgb_to_argb (c);

          g_assert_cmpuint (px, !=, ct_rgb_to_argb (nan_c));
          g_assert_cmpuint (px, !=, ct_rgb_to_argb (pinf));
          g_assert_cmpuint (px, !=, ct_rgb_to_argb (ninf));
        }
    }
  /* Zero under a symmetric scale is the centre. */
  assert_rgb (ct_colormap_map (CT_COLORMAP_DIVERGING, &s, 0.0), 0xf7, 0xf7, 0xf7);
  assert_rgb (ct_colormap_map (CT_COLORMAP_DIVERGING, &s, -5.0), 0x05, 0x30, 0x61);
}

static void
test_lightness (void)
{
  double last_v = -1, last_g = -1;

  for (int i = 0; i <= 64; i++)
    {
      double v = lightness (ct_colormap_at (CT_COLORMAP_VIRIDIS, i / 64.0));
      double g = lightness (ct_colormap_at (CT_COLORMAP_GREY, i / 64.0));

      g_assert_cmpfloat (v, >, last_v);
      g_assert_cmpfloat (g, >, last_g);
      last_v = v;
      last_g = g;
    }
  /* The diverging map: lighter towards zero from both sides, and the two
   * halves balanced (equal lightness at +-t within a few units). */
  for (int i = 0; i < 32; i++)
    {
      double a = lightness (ct_colormap_at (CT_COLORMAP_DIVERGING, i / 64.0));
      double b = lightness (ct_colormap_at (CT_COLORMAP_DIVERGING, (i + 1) / 64.0));
      double c = lightness (ct_colormap_at (CT_COLORMAP_DIVERGING, 1.0 - i / 64.0));
      double d = lightness (ct_colormap_at (CT_COLORMAP_DIVERGING, 1.0 - (i + 1) / 64.0));

      g_assert_cmpfloat (a, <, b);
      g_assert_cmpfloat (c, <, d);
      g_assert_cmpfloat (fabs (a - c), <, 12.0);
    }
}

static void
test_scale_for_range (void)
{
  CtColorScale s;
  CtScaleLock lock = { 0 };
  const float v[] = { NAN, 2.0f, -INFINITY, -0.5f, 1.0f };
  double lo, hi;

  s = ct_color_scale_for_range (CT_COLORMAP_DIVERGING, TRUE, -2.0, 1.0);
  g_assert_cmpfloat (s.lo, ==, -2.0);
  g_assert_cmpfloat (s.hi, ==, 2.0);
  s = ct_color_scale_for_range (CT_COLORMAP_DIVERGING, TRUE, 0.0, 0.0);
  g_assert_cmpfloat (s.lo, ==, -1.0);
  g_assert_cmpfloat (s.hi, ==, 1.0);
  s = ct_color_scale_for_range (CT_COLORMAP_VIRIDIS, TRUE, 1.0, 3.0);
  g_assert_cmpfloat (s.lo, ==, 1.0);
  g_assert_cmpfloat (s.hi, ==, 3.0);
  s = ct_color_scale_for_range (CT_COLORMAP_GREY, TRUE, 4.0, 4.0);
  g_assert_cmpfloat (s.lo, ==, 2.0);
  g_assert_cmpfloat (s.hi, ==, 6.0);
  s = ct_color_scale_for_range (CT_COLORMAP_VIRIDIS, FALSE, 0, 0);
  g_assert_cmpfloat (s.lo, ==, 0.0);
  g_assert_cmpfloat (s.hi, ==, 1.0);
  g_assert_cmpfloat (ct_color_scale_position (&(CtColorScale) { 1.0, 3.0 }, 2.5), ==, 0.75);

  g_assert_true (ct_value_range (v, G_N_ELEMENTS (v), &lo, &hi));
  g_assert_cmpfloat (lo, ==, -0.5);
  g_assert_cmpfloat (hi, ==, 2.0);
  g_assert_false (ct_value_range (v, 1, &lo, &hi));

  ct_scale_lock_widen (&lock, -1.0, 1.0);
  ct_scale_lock_widen (&lock, -0.5, 3.0);
  ct_scale_lock_widen (&lock, 0.0, 0.5);
  g_assert_true (lock.valid);
  g_assert_cmpfloat (lock.lo, ==, -1.0);
  g_assert_cmpfloat (lock.hi, ==, 3.0);
  ct_scale_lock_reset (&lock);
  g_assert_false (lock.valid);
}

static void
test_lut (void)
{
  CtColorLut lut;
  CtColorScale s = { -1.0, 1.0 };
  const float v[] = { -1.0f, 1.0f, 0.0f, -9.0f, NAN, INFINITY, -INFINITY };
  guint32 px[G_N_ELEMENTS (v)];

  ct_color_lut_init (&lut, CT_COLORMAP_DIVERGING);
  ct_color_lut_map (&lut, &s, v, G_N_ELEMENTS (v), px);
  g_assert_cmphex (px[0], ==, 0xff053061);
  g_assert_cmphex (px[1], ==, 0xff67001f);
  /* 0 falls on the middle entry, the centre colour exactly. */
  g_assert_cmphex (px[2], ==, 0xfff7f7f7);
  g_assert_cmphex (px[3], ==, 0xff053061);
  g_assert_cmphex (px[4], ==, 0xffff00ff);
  g_assert_cmphex (px[5], ==, 0xff00ff00);
  g_assert_cmphex (px[6], ==, 0xff00ffff);
}

/* A (2, 2, 1, 2) blob: sample 0 channel 0 in [-1, 1], channel 1 in
 * [0, 4]; sample 1 in [-8, 2]. */
static const float blob[] = {
  -1, 1, 0, 4,
  -8, 2, 0, 1,
};
static const gint64 blob_dims[] = { 2, 2, 1, 2 };

static CtHeatmap *
blob_heatmap (const float *values)
{
  g_autoptr(CtHeatmap) h = ct_heatmap_new ();
  g_autoptr(GBytes) bytes = g_bytes_new (values, sizeof blob);
  g_autoptr(GError) error = NULL;

  g_assert_true (ct_heatmap_set_data (h, bytes, blob_dims, 4, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&h);
}

static void
test_scale_modes (void)
{
  g_autoptr(CtHeatmap) h = blob_heatmap (blob);
  g_autoptr(GBytes) wider = NULL;
  float values[8];
  CtColorScale s;

  /* Per blob, diverging: +-8 for every channel and sample. */
  s = ct_heatmap_get_scale (h, 1);
  g_assert_cmpfloat (s.lo, ==, -8);
  g_assert_cmpfloat (s.hi, ==, 8);
  /* Per blob, viridis: the blob's range. */
  g_assert_true (ct_heatmap_set_colormap (h, CT_COLORMAP_VIRIDIS));
  s = ct_heatmap_get_scale (h, 0);
  g_assert_cmpfloat (s.lo, ==, -8);
  g_assert_cmpfloat (s.hi, ==, 4);

  /* Per channel: each channel of the sample shown. */
  g_assert_true (ct_heatmap_set_scale_mode (h, CT_SCALE_PER_CHANNEL));
  g_assert_false (ct_heatmap_set_scale_mode (h, CT_SCALE_PER_CHANNEL));
  s = ct_heatmap_get_scale (h, 0);
  g_assert_cmpfloat (s.lo, ==, -1);
  g_assert_cmpfloat (s.hi, ==, 1);
  s = ct_heatmap_get_scale (h, 1);
  g_assert_cmpfloat (s.lo, ==, 0);
  g_assert_cmpfloat (s.hi, ==, 4);
  g_assert_true (ct_heatmap_set_sample (h, 1));
  s = ct_heatmap_get_scale (h, 0);
  g_assert_cmpfloat (s.lo, ==, -8);
  g_assert_cmpfloat (s.hi, ==, 2);
  g_assert_true (ct_heatmap_set_colormap (h, CT_COLORMAP_DIVERGING));
  s = ct_heatmap_get_scale (h, 1);
  g_assert_cmpfloat (s.lo, ==, -1);
  g_assert_cmpfloat (s.hi, ==, 1);

  /* Locked: the range of every step so far, never narrower. */
  g_assert_true (ct_heatmap_set_scale_mode (h, CT_SCALE_LOCKED));
  s = ct_heatmap_get_scale (h, 0);
  g_assert_cmpfloat (s.hi, ==, 8);
  for (int i = 0; i < 8; i++)
    values[i] = blob[i] / 4;
  {
    g_autoptr(GBytes) smaller = g_bytes_new (values, sizeof values);

    g_assert_true (ct_heatmap_set_data (h, smaller, blob_dims, 4, NULL));
  }
  s = ct_heatmap_get_scale (h, 0);
  g_assert_cmpfloat (s.lo, ==, -8);
  g_assert_cmpfloat (s.hi, ==, 8);
  values[3] = 20;
  wider = g_bytes_new (values, sizeof values);
  g_assert_true (ct_heatmap_set_data (h, wider, blob_dims, 4, NULL));
  s = ct_heatmap_get_scale (h, 0);
  g_assert_cmpfloat (s.lo, ==, -20);
  g_assert_cmpfloat (s.hi, ==, 20);
  g_assert_cmpfloat (ct_heatmap_get_lock (h)->lo, ==, -8);
  g_assert_cmpfloat (ct_heatmap_get_lock (h)->hi, ==, 20);
  ct_heatmap_reset_lock (h);
  s = ct_heatmap_get_scale (h, 0);
  g_assert_cmpfloat (s.lo, ==, -20);
  g_assert_cmpfloat (ct_heatmap_get_lock (h)->lo, ==, -2);

  /* Fixed: what the caller says. */
  g_assert_true (ct_heatmap_set_scale_mode (h, CT_SCALE_FIXED));
  g_assert_true (ct_heatmap_set_fixed_range (h, -0.5, 3.0));
  s = ct_heatmap_get_scale (h, 0);
  g_assert_cmpfloat (s.lo, ==, -0.5);
  g_assert_cmpfloat (s.hi, ==, 3.0);
}

/* The cached pixels are the map of the values, and a redraw alone does
 * not compute them again. */
static void
test_pixels_cached (void)
{
  g_autoptr(CtHeatmap) h = blob_heatmap (blob);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 200, 100);
  cairo_t *cr = cairo_create (surface);
  guint builds;

  ct_heatmap_draw (h, cr, 200, 100);
  builds = ct_heatmap_get_pixel_builds (h);
  g_assert_cmpuint (builds, ==, 1);
  ct_heatmap_draw (h, cr, 200, 100);
  ct_heatmap_draw (h, cr, 300, 120);
  g_assert_true (ct_heatmap_set_zoom (h, 1));
  g_assert_true (ct_heatmap_set_focus (h, 1));
  ct_heatmap_draw (h, cr, 200, 100);
  g_assert_cmpuint (ct_heatmap_get_pixel_builds (h), ==, builds);
  g_assert_true (ct_heatmap_set_sample (h, 1));
  ct_heatmap_draw (h, cr, 200, 100);
  g_assert_cmpuint (ct_heatmap_get_pixel_builds (h), ==, builds + 1);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/colormap/ends-and-centre", test_ends_and_centre);
  g_test_add_func ("/widgets/colormap/not-finite", test_not_finite);
  g_test_add_func ("/widgets/colormap/lightness", test_lightness);
  g_test_add_func ("/widgets/colormap/scale-for-range", test_scale_for_range);
  g_test_add_func ("/widgets/colormap/lut", test_lut);
  g_test_add_func ("/widgets/colormap/scale-modes", test_scale_modes);
  g_test_add_func ("/widgets/colormap/pixels-cached", test_pixels_cached);
  return g_test_run ();
}
