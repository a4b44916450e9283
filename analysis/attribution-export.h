/* attribution-export.h: a map over an image (saliency, Grad-CAM,
 * occlusion), drawn as a PNG for people and saved as .npy for NumPy.
 *
 * The picture is the image in grey (one channel) or colour (three, in
 * Caffe's blue-green-red order), stretched to its own range, with the map
 * over it at an opacity: a map with negative values in the diverging
 * blue-white-red colours centred on zero, a non-negative one in viridis
 * from 0 to its maximum. Each pixel becomes SCALE × SCALE pixels. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The picture as cairo ARGB32 pixels (opaque), H·SCALE rows of W·SCALE. */
guint32 *ct_attribution_pixels (const float *image, guint channels, guint height, guint width,
                                const float *map, double opacity, guint scale);

gboolean ct_attribution_save_png (const char *path, const float *image, guint channels,
                                  guint height, guint width, const float *map, double opacity,
                                  guint scale, GError **error);

/* MAP (H × W) as a float32 .npy of shape (H, W). */
gboolean ct_attribution_save_npy (const char *path, const float *map, guint height, guint width,
                                  GError **error);

G_END_DECLS
