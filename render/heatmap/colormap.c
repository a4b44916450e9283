/* colormap.c: the colour maps' control points, interpolation and scales
 * (see colormap.h). */
#include "colormap.h"

#include <glib/gi18n-lib.h>
#include <math.h>

typedef struct {
  double t;       /* position in [0, 1] */
  double r, g, b; /* sRGB, 0..1 */
} ControlPoint;

#define HEX(t, rgb) \
  { (t), ((rgb) >> 16 & 0xff) / 255.0, ((rgb) >> 8 & 0xff) / 255.0, ((rgb) & 0xff) / 255.0 }

/* ColorBrewer 2.0's RdBu, 11 classes (Cynthia Brewer, colorbrewer2.org,
 * marked colour-blind safe there), reversed so that low is blue; the
 * centre class #f7f7f7 is the colour of zero. */
static const ControlPoint diverging_points[] = {
  HEX (0.0, 0x053061), HEX (0.1, 0x2166ac), HEX (0.2, 0x4393c3),
  HEX (0.3, 0x92c5de), HEX (0.4, 0xd1e5f0), HEX (0.5, 0xf7f7f7),
  HEX (0.6, 0xfddbc7), HEX (0.7, 0xf4a582), HEX (0.8, 0xd6604d),
  HEX (0.9, 0xb2182b), HEX (1.0, 0x67001f),
};

/* Viridis (van der Walt and Smith, 2015; the data is CC0): every eighth
 * entry of its published 256-entry table and the last one, at entry / 255.
 * Linear interpolation between them stays within 0.002 of the full table. */
#define V(i, r, g, b) { (i) / 255.0, r, g, b }
static const ControlPoint viridis_points[] = {
  V (0, 0.2670040, 0.0048743, 0.3294152),   V (8, 0.2770184, 0.0503444, 0.3757145),
  V (16, 0.2823274, 0.0949555, 0.4173309),  V (24, 0.2828839, 0.1359201, 0.4534273),
  V (32, 0.2788262, 0.1754902, 0.4833965),  V (40, 0.2705947, 0.2140690, 0.5070524),
  V (48, 0.2589645, 0.2515369, 0.5247361),  V (56, 0.2449721, 0.2876755, 0.5372602),
  V (64, 0.2297393, 0.3223613, 0.5457063),  V (72, 0.2142976, 0.3556191, 0.5511844),
  V (80, 0.1994295, 0.3876068, 0.5546421),  V (88, 0.1855559, 0.4185704, 0.5567529),
  V (96, 0.1727188, 0.4487906, 0.5578853),  V (104, 0.1606647, 0.4785396, 0.5581147),
  V (112, 0.1490392, 0.5080514, 0.5572505), V (120, 0.1377705, 0.5374921, 0.5549063),
  V (128, 0.1275677, 0.5669489, 0.5505555), V (136, 0.1205650, 0.5964219, 0.5436106),
  V (144, 0.1206382, 0.6258283, 0.5334883), V (152, 0.1322680, 0.6550136, 0.5196609),
  V (160, 0.1578515, 0.6837653, 0.5016857), V (168, 0.1965706, 0.7118267, 0.4792211),
  V (176, 0.2460697, 0.7389097, 0.4520241), V (184, 0.3041480, 0.7647043, 0.4199435),
  V (192, 0.3692142, 0.7888879, 0.3829144), V (200, 0.4401369, 0.8111384, 0.3409673),
  V (208, 0.5159918, 0.8311578, 0.2942789), V (216, 0.5958393, 0.8487172, 0.2433288),
  V (224, 0.6784887, 0.8637421, 0.1895033), V (232, 0.7623734, 0.8764239, 0.1370645),
  V (240, 0.8455606, 0.8873224, 0.0997022), V (248, 0.9261058, 0.8973298, 0.1040707),
  V (255, 0.9932479, 0.9061566, 0.1439362),
};

static const ControlPoint grey_points[] = {
  { 0.0, 0.0, 0.0, 0.0 },
  { 1.0, 1.0, 1.0, 1.0 },
};

typedef struct {
  const ControlPoint *points;
  guint n_points;
} MapTable;

static const MapTable map_tables[] = {
  [CT_COLORMAP_DIVERGING] = { diverging_points, G_N_ELEMENTS (diverging_points) },
  [CT_COLORMAP_VIRIDIS] = { viridis_points, G_N_ELEMENTS (viridis_points) },
  [CT_COLORMAP_GREY] = { grey_points, G_N_ELEMENTS (grey_points) },
};
G_STATIC_ASSERT (G_N_ELEMENTS (map_tables) == CT_COLORMAP_N);

static guint8
to_byte (double v)
{
  return (guint8) CLAMP (lround (v * 255.0), 0, 255);
}

CtRgb
ct_colormap_nan_color (void)
{
  /* Magenta: in none of the maps, and far from each in lightness or hue. */
  return (CtRgb) { 0xff, 0x00, 0xff };
}

CtRgb
ct_colormap_inf_color (gboolean positive)
{
  /* Pure green for +Inf and cyan for -Inf: saturated beyond any map entry. */
  return positive ? (CtRgb) { 0x00, 0xff, 0x00 } : (CtRgb) { 0x00, 0xff, 0xff };
}

CtRgb
ct_colormap_at (CtColormap map, double t)
{
  const MapTable *table;
  guint i;

  g_return_val_if_fail (map < CT_COLORMAP_N, ct_colormap_nan_color ());
  if (isnan (t))
    return ct_colormap_nan_color ();
  table = &map_tables[map];
  t = CLAMP (t, 0.0, 1.0);
  for (i = 1; i + 1 < table->n_points && t > table->points[i].t; i++)
    ;
  {
    const ControlPoint *a = &table->points[i - 1];
    const ControlPoint *b = &table->points[i];
    double f = (t - a->t) / (b->t - a->t);

    return (CtRgb) {
      to_byte (a->r + f * (b->r - a->r)),
      to_byte (a->g + f * (b->g - a->g)),
      to_byte (a->b + f * (b->b - a->b)),
    };
  }
}

double
ct_color_scale_position (const CtColorScale *scale, double v)
{
  double t = (v - scale->lo) / (scale->hi - scale->lo);

  return CLAMP (t, 0.0, 1.0);
}

CtRgb
ct_colormap_map (CtColormap map, const CtColorScale *scale, double v)
{
  if (isnan (v))
    return ct_colormap_nan_color ();
  if (isinf (v))
    return ct_colormap_inf_color (v > 0);
  return ct_colormap_at (map, ct_color_scale_position (scale, v));
}

const char *
ct_colormap_get_label (CtColormap map)
{
  switch (map)
    {
    case CT_COLORMAP_DIVERGING:
      return _("Blue–white–red");
    case CT_COLORMAP_VIRIDIS:
      return _("Viridis");
    case CT_COLORMAP_GREY:
      return _("Grey");
    case CT_COLORMAP_N:
    default:
      break;
    }
  g_return_val_if_reached (NULL);
}

const char *
ct_scale_mode_get_label (CtScaleMode mode)
{
  switch (mode)
    {
    case CT_SCALE_PER_BLOB:
      return _("Per blob");
    case CT_SCALE_PER_CHANNEL:
      return _("Per channel");
    case CT_SCALE_LOCKED:
      return _("Locked");
    case CT_SCALE_FIXED:
      return _("Fixed");
    case CT_SCALE_N:
    default:
      break;
    }
  g_return_val_if_reached (NULL);
}

gboolean
ct_value_range (const float *values, gsize n, double *lo, double *hi)
{
  float min = INFINITY, max = -INFINITY;
  gboolean any = FALSE;

  for (gsize i = 0; i < n; i++)
    {
      float v = values[i];

      if (!isfinite (v))
        continue;
      any = TRUE;
      if (v < min)
        min = v;
      if (v > max)
        max = v;
    }
  if (lo != NULL)
    *lo = any ? min : 0.0;
  if (hi != NULL)
    *hi = any ? max : 0.0;
  return any;
}

CtColorScale
ct_color_scale_for_range (CtColormap map, gboolean have_range, double lo, double hi)
{
  CtColorScale s;

  if (!have_range)
    return map == CT_COLORMAP_DIVERGING ? (CtColorScale) { -1.0, 1.0 }
                                        : (CtColorScale) { 0.0, 1.0 };
  if (map == CT_COLORMAP_DIVERGING)
    {
      double m = MAX (fabs (lo), fabs (hi));

      /* All zeros: any symmetric range shows them white. */
      if (m == 0.0)
        m = 1.0;
      return (CtColorScale) { -m, m };
    }
  s.lo = lo;
  s.hi = hi;
  if (!(s.lo < s.hi))
    {
      /* A constant blob: put its value in the middle of the map. */
      double pad = fabs (lo) > 0.0 ? fabs (lo) * 0.5 : 0.5;

      s.lo = lo - pad;
      s.hi = hi + pad;
    }
  return s;
}

void
ct_scale_lock_widen (CtScaleLock *lock, double lo, double hi)
{
  if (!lock->valid)
    {
      lock->valid = TRUE;
      lock->lo = lo;
      lock->hi = hi;
      return;
    }
  lock->lo = MIN (lock->lo, lo);
  lock->hi = MAX (lock->hi, hi);
}

void
ct_scale_lock_reset (CtScaleLock *lock)
{
  lock->valid = FALSE;
  lock->lo = lock->hi = 0.0;
}

void
ct_color_lut_init (CtColorLut *lut, CtColormap map)
{
  lut->map = map;
  for (guint i = 0; i < CT_COLOR_LUT_SIZE; i++)
    lut->argb[i] = ct_rgb_to_argb (ct_colormap_at (map, i / (CT_COLOR_LUT_SIZE - 1.0)));
}

void
ct_color_lut_map (const CtColorLut *lut,
                  const CtColorScale *scale,
                  const float *values,
                  gsize n,
                  guint32 *pixels)
{
  const float lo = (float) scale->lo;
  const float last = CT_COLOR_LUT_SIZE - 1;
  const float k = (float) (last / (scale->hi - scale->lo));
  const guint32 nan_px = ct_rgb_to_argb (ct_colormap_nan_color ());
  const guint32 pinf_px = ct_rgb_to_argb (ct_colormap_inf_color (TRUE));
  const guint32 ninf_px = ct_rgb_to_argb (ct_colormap_inf_color (FALSE));

  for (gsize i = 0; i < n; i++)
    {
      float v = values[i];
      float x;

      if (G_UNLIKELY (!isfinite (v)))
        {
          pixels[i] = isnan (v) ? nan_px : (v > 0 ? pinf_px : ninf_px);
          continue;
        }
      x = (v - lo) * k + 0.5f;
      x = x < 0.0f ? 0.0f : (x > last ? last : x);
      pixels[i] = lut->argb[(int) x];
    }
}
