/* source-transform.c: pictures into a data layer's samples through its
 * transform_param (see source-transform.h). */
#include <math.h>
#include <string.h>

#include "data-transformer.h"
#include "source-transform.h"

float *
ct_source_transform_pixels (const Caffe__TransformationParameter *transform,
                            const guint8 *pixels, guint n_items, int channels, int height,
                            int width, const char *where, gint64 out_shape[3], GError **error)
{
  g_autoptr (CtDataTransformer) t = NULL;
  g_autofree float *out = NULL;
  gsize in_count = (gsize) channels * height * width, out_count;
  CtPixels first = { .channels = channels, .height = height, .width = width, .u8 = pixels };

  Caffe__TransformationParameter fixed = CAFFE__TRANSFORMATION_PARAMETER__INIT;

  g_return_val_if_fail (n_items > 0 && channels > 0 && height > 0 && width > 0, NULL);
  /* A chosen picture is shown as it is: never mirrored by a coin flip
   * (Caffe flips in either phase when mirror is set). TEST crops in the
   * centre, so the seed does not matter. The copy is shallow: the
   * transformer copies what it keeps. */
  if (transform != NULL)
    fixed = *transform;
  fixed.mirror = FALSE;
  t = ct_data_transformer_new (&fixed, CAFFE__PHASE__TEST, 1, error);
  if (t == NULL || !ct_data_transformer_shape (t, &first, out_shape, where, error))
    return NULL;
  out_count = (gsize) (out_shape[0] * out_shape[1] * out_shape[2]);
  out = g_new (float, out_count * n_items);
  for (guint n = 0; n < n_items; n++)
    {
      CtPixels px = first;

      px.u8 = pixels + in_count * n;
      if (!ct_data_transformer_apply (t, &px, out + out_count * n, where, error))
        return NULL;
    }
  return g_steal_pointer (&out);
}

guint8 *
ct_source_pixels_from_values (const float *values, int channels, int height, int width)
{
  gsize plane = (gsize) height * width;
  guint8 *pixels = g_new (guint8, plane * channels);

  for (gsize i = 0; i < plane; i++)
    pixels[i] = (guint8) lrintf (CLAMP (values[i], 0.0f, 1.0f) * 255.0f);
  for (int c = 1; c < channels; c++)
    memcpy (pixels + plane * c, pixels, plane);
  return pixels;
}
