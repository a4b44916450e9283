/* source-transform.h: chosen or drawn pictures made into samples of a
 * data-source layer (Data, ImageData...) exactly as that layer makes its
 * own images into samples: 8-bit pixels through the layer's
 * transform_param by the engine's CtDataTransformer, in the TEST phase
 * (centred crop, no mirror): the mean file's value at the same position
 * or the channel's mean_value subtracted, then × scale. The window uses
 * it for Fashion-MNIST items, image files and drawings given to a
 * training net, so that mean_file applies to them as it does to the
 * layer's source. No GTK. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "run-inputs.h"

G_BEGIN_DECLS

/* N_ITEMS pictures of CHANNELS × HEIGHT × WIDTH bytes each (channel-major)
 * at PIXELS through TRANSFORM (may be NULL: none): N_ITEMS samples of
 * OUT_SHAPE (channels, height, width) floats. NULL and an error naming
 * WHERE when the crop or the mean file does not fit the pictures, or the
 * mean file cannot be read. */
float *ct_source_transform_pixels (const Caffe__TransformationParameter *transform,
                                   const guint8 *pixels, guint n_items, int channels,
                                   int height, int width, const char *where,
                                   gint64 out_shape[3], GError **error);

/* Drawn values (0..1, HEIGHT × WIDTH, row by row) as 8-bit grey pixels
 * repeated over CHANNELS: CHANNELS × HEIGHT × WIDTH bytes. */
guint8 *ct_source_pixels_from_values (const float *values, int channels, int height, int width);

/* A copy of TRANSFORM (NULL: NULL) whose relative mean_file is taken
 * from BASE_DIR (the net's folder), as the run's copy of the net has it. */
Caffe__TransformationParameter *ct_source_transform_resolve (
    const Caffe__TransformationParameter *transform, const char *base_dir);

/* Fashion-MNIST ITEMS (N_ITEMS of them) as N_ITEMS samples of DIMS
 * (channels, height, width: the layer's top without its batch axis)
 * through TRANSFORM; with LABELS, their N_ITEMS labels too. An error
 * (CT_RUN_ERROR_ITEM_SIZE) when they do not come out as DIMS. */
float *ct_source_transform_fashion (const Caffe__TransformationParameter *transform,
                                    const CtFashionSet *set, const guint *items, guint n_items,
                                    const gint64 dims[3], float **labels, const char *where,
                                    GError **error);

/* The image file or folder PATH as N_ITEMS samples of DIMS through
 * TRANSFORM (run-inputs.h says how a folder fills them). The images are
 * read at the size the layer's source has: DIMS' height and width, or,
 * with a crop and a mean file, the mean's. */
float *ct_source_transform_path (const Caffe__TransformationParameter *transform,
                                 const char *path, guint n_items, const gint64 dims[3],
                                 const char *where, GError **error);

G_END_DECLS
