/* colormap.h: the heatmap's colour maps and colour scales, GTK-free.
 *
 * Three maps, all colour-blind safe: a diverging blue-white-red map for
 * signed values and diffs (ColorBrewer's 11-class RdBu, reversed so that
 * negative is blue), centred on zero; viridis, perceptually uniform, for
 * non-negative values; and grey. Each map is a table of published control
 * points with linear interpolation between them. NaN, +Inf and -Inf get
 * colours that appear in none of the maps.
 *
 * A CtColorScale says which values map to the ends of the map. How the
 * scale is chosen (per blob, per channel, locked across steps, fixed) is
 * CtScaleMode; a CtScaleLock is the caller-kept range of the locked mode,
 * which only ever widens so that changes between steps show. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  CT_COLORMAP_DIVERGING, /* blue-white-red, symmetric around zero */
  CT_COLORMAP_VIRIDIS,   /* dark purple to yellow, for values >= 0 */
  CT_COLORMAP_GREY,      /* black to white */
  CT_COLORMAP_N
} CtColormap;

typedef enum {
  CT_SCALE_PER_BLOB,    /* one range over the whole blob, every sample */
  CT_SCALE_PER_CHANNEL, /* each channel of the sample its own range */
  CT_SCALE_LOCKED,      /* a range kept across steps that only widens */
  CT_SCALE_FIXED,       /* a range the caller gives */
  CT_SCALE_N
} CtScaleMode;

typedef struct {
  guint8 r, g, b;
} CtRgb;

/* Values lo and hi map to the two ends of the map; lo < hi always. */
typedef struct {
  double lo, hi;
} CtColorScale;

/* The caller-kept range of CT_SCALE_LOCKED. */
typedef struct {
  gboolean valid;
  double lo, hi;
} CtScaleLock;

/* A look-up table of cairo ARGB32 pixels (opaque), for mapping many values
 * fast. An odd number of entries, so that the middle of a scale (zero on
 * the diverging map) has an entry of its own: exactly the centre colour. */
#define CT_COLOR_LUT_SIZE 257
typedef struct {
  CtColormap map;
  guint32 argb[CT_COLOR_LUT_SIZE];
} CtColorLut;

/* The map's colour at T in [0, 1] (clamped; NaN gives the NaN colour). */
CtRgb ct_colormap_at (CtColormap map, double t);

/* The colours of values that are not finite, the same for every map. */
CtRgb ct_colormap_nan_color (void);
CtRgb ct_colormap_inf_color (gboolean positive);

/* V's colour under SCALE: finite values through the map (clamped to the
 * scale), NaN and +-Inf their own colours. */
CtRgb ct_colormap_map (CtColormap map, const CtColorScale *scale, double v);

/* Where V falls on SCALE, in [0, 1] (clamped). */
double ct_color_scale_position (const CtColorScale *scale, double v);

/* A short translated name for menus and the legend ("Blue–white–red"). */
const char *ct_colormap_get_label (CtColormap map);
const char *ct_scale_mode_get_label (CtScaleMode mode);

/* The smallest and largest finite values among N; FALSE when there are
 * none (every value NaN or infinite, or N == 0). */
gboolean ct_value_range (const float *values, gsize n, double *lo, double *hi);

/* The scale that shows the data range [LO, HI] under MAP: symmetric +-m
 * around zero for the diverging map (m = max |lo|, |hi|), LO..HI for the
 * others. HAVE_RANGE FALSE (no finite data) gives -1..1 or 0..1; an empty
 * range (lo == hi) is widened so that lo < hi. */
CtColorScale ct_color_scale_for_range (CtColormap map,
                                       gboolean have_range,
                                       double lo,
                                       double hi);

/* Widen LOCK to take in [LO, HI]; it never narrows. */
void ct_scale_lock_widen (CtScaleLock *lock, double lo, double hi);
void ct_scale_lock_reset (CtScaleLock *lock);

/* Fill LUT with samples of MAP (entry i at t = i / (CT_COLOR_LUT_SIZE - 1)). */
void ct_color_lut_init (CtColorLut *lut, CtColormap map);

/* Map N values to ARGB32 pixels through LUT, rounding each value to the
 * nearest entry. */
void ct_color_lut_map (const CtColorLut *lut,
                       const CtColorScale *scale,
                       const float *values,
                       gsize n,
                       guint32 *pixels);

/* An opaque ARGB32 pixel (cairo's format, native endian). */
static inline guint32
ct_rgb_to_argb (CtRgb c)
{
  return 0xff000000u | ((guint32) c.r << 16) | ((guint32) c.g << 8) | c.b;
}

G_END_DECLS
