/* data-transformer.h: CtDataTransformer, TransformationParameter applied to
 * each image on its way into a data layer's top, in Caffe's order: decide
 * the mirror (a coin flip per image when `mirror` is set, in either phase),
 * then the crop offsets (random in TRAIN, centred in TEST), then for every
 * kept pixel subtract the mean (the mean file's value at the same uncropped
 * position, or the channel's mean_value), multiply by `scale` and write it,
 * flipped left-right when mirrored.
 *
 * Random draws come from the transformer's own generator, seeded once: the
 * same seed and the same sequence of images give the same output. Not
 * thread safe: one transformer per data layer, used by one thread at a
 * time. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "image.h"

G_BEGIN_DECLS

typedef struct _CtDataTransformer CtDataTransformer;

/* PARAM may be NULL (no transformation). A mean_file is read here. WHERE
 * names the owner in errors ("layer 'data' (Data)"). */
CtDataTransformer *ct_data_transformer_new (const Caffe__TransformationParameter *param,
                                            Caffe__Phase phase, guint64 seed, GError **error);
void ct_data_transformer_free (CtDataTransformer *transformer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtDataTransformer, ct_data_transformer_free)

/* How encoded images are to be decoded: force_color, force_gray or
 * native. */
CtImageColor ct_data_transformer_get_color (const CtDataTransformer *transformer);

/* The output shape (channels, height, width) for an input like PIXELS;
 * an error naming WHERE when the crop or the mean does not fit it. */
gboolean ct_data_transformer_shape (const CtDataTransformer *transformer,
                                    const CtPixels *pixels, gint64 shape[3],
                                    const char *where, GError **error);

/* Transform PIXELS into OUT (as many floats as the shape's product). */
gboolean ct_data_transformer_apply (CtDataTransformer *transformer, const CtPixels *pixels,
                                    float *out, const char *where, GError **error);

G_END_DECLS
