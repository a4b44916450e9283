/* heatmap-view.h: CtHeatmapView, a blob as a heatmap (GTK 4).
 *
 * The widget draws a float array with a shape; it knows nothing of nets.
 * It shows one sample's channels as a grid of tiles (or a matrix, bars, or
 * a first layer's RGB filters; see heatmap/geometry.h), with a legend. A
 * click on a channel zooms into it; Escape, BackSpace or the mouse's back
 * button leave the zoom. The arrow keys move between channels (between
 * channels of the zoom, when zoomed), Enter zooms, Page Up and Page Down
 * pick the sample. A click on a value of a zoomed channel, a matrix or
 * bars emits "value-activated" (n, c, h, w, x, y: the value's place in
 * the blob's (N, C, H, W) and the point clicked), so that the app can say
 * where it comes from. The value under the pointer is the `pointer-text`
 * property, `(n, c, h, w) = v`, and the tooltip. The accessible label is
 * the blob's name and the description names it with its shape.
 *
 * Drawing and geometry live in the GTK-free CtHeatmap (heatmap/heatmap.h);
 * the widget caches the render node and drops it on any change. */
#pragma once

#include <gtk/gtk.h>

#include "heatmap/heatmap.h"

G_BEGIN_DECLS

#define CT_TYPE_COLORMAP (ct_colormap_get_type ())
GType ct_colormap_get_type (void);
#define CT_TYPE_SCALE_MODE (ct_scale_mode_get_type ())
GType ct_scale_mode_get_type (void);
#define CT_TYPE_HEATMAP_KIND (ct_heatmap_kind_get_type ())
GType ct_heatmap_kind_get_type (void);

#define CT_TYPE_HEATMAP_VIEW (ct_heatmap_view_get_type ())
G_DECLARE_FINAL_TYPE (CtHeatmapView, ct_heatmap_view, CT, HEATMAP_VIEW, GtkWidget)

GtkWidget *ct_heatmap_view_new (void);

/* Show FLOATS (float32, native endian; a reference is kept) with shape
 * DIMS. FALSE with an error when they do not fit together; NULL clears. */
gboolean ct_heatmap_view_set_data (CtHeatmapView *self,
                                   GBytes *floats,
                                   const gint64 *dims,
                                   guint ndims,
                                   GError **error);
/* The same with a copy of VALUES. */
gboolean ct_heatmap_view_set_values (CtHeatmapView *self,
                                     const float *values,
                                     const gint64 *dims,
                                     guint ndims,
                                     GError **error);

/* The blob's name, for the accessible label and description. */
void ct_heatmap_view_set_blob_name (CtHeatmapView *self, const char *name);
const char *ct_heatmap_view_get_blob_name (CtHeatmapView *self);

void ct_heatmap_view_set_sample (CtHeatmapView *self, int sample);
int ct_heatmap_view_get_sample (CtHeatmapView *self);
int ct_heatmap_view_get_n_samples (CtHeatmapView *self);

void ct_heatmap_view_set_colormap (CtHeatmapView *self, CtColormap map);
CtColormap ct_heatmap_view_get_colormap (CtHeatmapView *self);

void ct_heatmap_view_set_scale_mode (CtHeatmapView *self, CtScaleMode mode);
CtScaleMode ct_heatmap_view_get_scale_mode (CtHeatmapView *self);
/* The range used by CT_SCALE_FIXED. */
void ct_heatmap_view_set_fixed_range (CtHeatmapView *self, double lo, double hi);
/* Start the locked range anew from the current data. */
void ct_heatmap_view_reset_lock (CtHeatmapView *self);

/* A kind that does not fit the data is ignored. */
void ct_heatmap_view_set_kind (CtHeatmapView *self, CtHeatmapKind kind);
CtHeatmapKind ct_heatmap_view_get_kind (CtHeatmapView *self);

void ct_heatmap_view_set_rgb_per_filter (CtHeatmapView *self, gboolean per_filter);
gboolean ct_heatmap_view_get_rgb_per_filter (CtHeatmapView *self);

/* The zoomed channel, or -1 for the grid. */
void ct_heatmap_view_set_zoom_channel (CtHeatmapView *self, int channel);
int ct_heatmap_view_get_zoom_channel (CtHeatmapView *self);

/* The keyboard's channel (outlined while the view has the focus). */
int ct_heatmap_view_get_focus_channel (CtHeatmapView *self);

/* `(n, c, h, w) = v` for the cell under the pointer, or NULL. */
const char *ct_heatmap_view_get_pointer_text (CtHeatmapView *self);

/* The text for the cell at (X, Y) in the widget, or NULL (what motion
 * and the tooltip show). */
char *ct_heatmap_view_dup_text_at (CtHeatmapView *self, double x, double y);

/* The drawing state, for exports (borrowed). */
CtHeatmap *ct_heatmap_view_get_heatmap (CtHeatmapView *self);

G_END_DECLS
