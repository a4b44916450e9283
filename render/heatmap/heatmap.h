/* heatmap.h: a blob drawn as a heatmap, without GTK.
 *
 * A CtHeatmap holds a float array with a shape and how to show it: the
 * sample, the colour map, the scale mode, the kind (channel grid, matrix,
 * bars, RGB filters), the zoomed channel. It lays itself out in a rectangle,
 * answers "what is under this point" as `(n, c, h, w) = v`, and draws with
 * cairo: tiles of colour-mapped cells scaled with CAIRO_FILTER_NEAREST,
 * gaps, bars, and a legend (a colour bar with its range). The colour-mapped
 * pixels are kept until something that changes them changes, so a redraw
 * for a moved pointer or a new size does not map the values again.
 *
 * The GTK widget CtHeatmapView (widgets/heatmap-view.h) is a thin shell
 * around it; the tests and the benchmark use it directly, with no display. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "colormap.h"
#include "geometry.h"

G_BEGIN_DECLS

typedef struct _CtHeatmap CtHeatmap;

/* Height of the legend strip below the heatmap, when there is room. */
#define CT_HEATMAP_LEGEND_HEIGHT 40

CtHeatmap *ct_heatmap_new (void);
void ct_heatmap_free (CtHeatmap *heatmap);

/* Show FLOATS (native-endian float32, borrowed with a reference) with the
 * shape DIMS. Keeps the sample and zoom when they still fit, else resets
 * them. FALSE with an error when the shape is not one a heatmap shows or
 * the byte count is not 4 bytes per value. NULL FLOATS clears the data. */
gboolean ct_heatmap_set_data (CtHeatmap *heatmap,
                              GBytes *floats,
                              const gint64 *dims,
                              guint ndims,
                              GError **error);
gboolean ct_heatmap_has_data (const CtHeatmap *heatmap);
const CtHeatmapShape *ct_heatmap_get_shape (const CtHeatmap *heatmap);
const float *ct_heatmap_get_values (const CtHeatmap *heatmap, gsize *n_values);
/* Values that are NaN, and that are +-Inf, in the whole blob. */
gsize ct_heatmap_get_nan_count (const CtHeatmap *heatmap);
gsize ct_heatmap_get_inf_count (const CtHeatmap *heatmap);

/* Each setter returns TRUE when the value changed (clamped to what fits). */
gboolean ct_heatmap_set_sample (CtHeatmap *heatmap, int sample);
int ct_heatmap_get_sample (const CtHeatmap *heatmap);
int ct_heatmap_get_n_samples (const CtHeatmap *heatmap);
gboolean ct_heatmap_set_colormap (CtHeatmap *heatmap, CtColormap map);
CtColormap ct_heatmap_get_colormap (const CtHeatmap *heatmap);
gboolean ct_heatmap_set_scale_mode (CtHeatmap *heatmap, CtScaleMode mode);
CtScaleMode ct_heatmap_get_scale_mode (const CtHeatmap *heatmap);
/* The range of CT_SCALE_FIXED (LO < HI). */
gboolean ct_heatmap_set_fixed_range (CtHeatmap *heatmap, double lo, double hi);
/* Forget the locked range; the current data starts a new one. */
void ct_heatmap_reset_lock (CtHeatmap *heatmap);
const CtScaleLock *ct_heatmap_get_lock (const CtHeatmap *heatmap);
/* KIND must fit the shape (ct_heatmap_shape_fits_kind); FALSE otherwise.
 * Setting data picks the shape's default kind unless the kind was set
 * and still fits. */
gboolean ct_heatmap_set_kind (CtHeatmap *heatmap, CtHeatmapKind kind);
CtHeatmapKind ct_heatmap_get_kind (const CtHeatmap *heatmap);
/* RGB filters: each filter rescaled to its own range, or all to the
 * blob's range. */
gboolean ct_heatmap_set_rgb_per_filter (CtHeatmap *heatmap, gboolean per_filter);
gboolean ct_heatmap_get_rgb_per_filter (const CtHeatmap *heatmap);
/* The channel shown alone (grid only), or -1 for the grid. */
gboolean ct_heatmap_set_zoom (CtHeatmap *heatmap, int channel);
int ct_heatmap_get_zoom (const CtHeatmap *heatmap);
/* The tile outlined as the keyboard's position, or -1 for none. */
gboolean ct_heatmap_set_focus (CtHeatmap *heatmap, int tile);
int ct_heatmap_get_focus (const CtHeatmap *heatmap);
/* How many tiles the grid has (channels, filters; 1 for matrix and bars). */
int ct_heatmap_get_n_tiles (const CtHeatmap *heatmap);
/* The colour of the legend's text and outlines (RGB 0..1). */
void ct_heatmap_set_text_color (CtHeatmap *heatmap, double r, double g, double b);

/* The colour scale of channel C of the current sample (any C for modes
 * other than per channel). */
CtColorScale ct_heatmap_get_scale (CtHeatmap *heatmap, int channel);

/* The layout in a WIDTH x HEIGHT area, the legend strip left out. */
void ct_heatmap_get_layout (CtHeatmap *heatmap,
                            double width,
                            double height,
                            CtHeatmapLayout *layout);

/* The cell under (X, Y) in a WIDTH x HEIGHT area, if any. */
gboolean ct_heatmap_hit (CtHeatmap *heatmap,
                         double width,
                         double height,
                         double x,
                         double y,
                         CtHeatmapHit *hit);
/* The tile under (X, Y), or -1 (a channel of the grid, a filter). */
int ct_heatmap_hit_tile (CtHeatmap *heatmap,
                         double width,
                         double height,
                         double x,
                         double y);

/* "(0, 3, 4, 5) = -0.25": the hit's index in the blob's axes and value;
 * RGB filters give the three values: "(2, :, 4, 5) = (0.1, 0.2, 0.3)". */
char *ct_heatmap_hit_text (CtHeatmap *heatmap, const CtHeatmapHit *hit);

/* A value as the heatmap prints it: "%.6g" in the C locale, "NaN", "Inf". */
void ct_heatmap_format_value (char *buf, gsize len, double v);

/* Draw into CR over (0, 0, WIDTH, HEIGHT); the background is left as is. */
void ct_heatmap_draw (CtHeatmap *heatmap, cairo_t *cr, double width, double height);

/* How many times the colour-mapped pixels were computed (for tests and
 * the benchmark: a redraw alone must not raise it). */
guint ct_heatmap_get_pixel_builds (const CtHeatmap *heatmap);
/* Drop the colour-mapped pixels, as a change of data would. */
void ct_heatmap_invalidate (CtHeatmap *heatmap);

/* Save the heatmap drawn at WIDTH x HEIGHT on a white background as a PNG,
 * atomically. */
gboolean ct_heatmap_save_png (CtHeatmap *heatmap,
                              const char *path,
                              int width,
                              int height,
                              GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtHeatmap, ct_heatmap_free)

G_END_DECLS
