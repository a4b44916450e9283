/* source-transform.c: pictures into a data layer's samples through its
 * transform_param (see source-transform.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "binary-io.h"
#include "blob.h"
#include "data-transformer.h"
#include "runner.h"
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

Caffe__TransformationParameter *
ct_source_transform_resolve (const Caffe__TransformationParameter *transform,
                             const char *base_dir)
{
  Caffe__TransformationParameter *copy;
  gsize size;
  g_autofree guint8 *bytes = NULL;

  if (transform == NULL)
    return NULL;
  size = caffe__transformation_parameter__get_packed_size (transform);
  bytes = g_malloc (MAX (size, 1));
  caffe__transformation_parameter__pack (transform, bytes);
  copy = caffe__transformation_parameter__unpack (NULL, size, bytes);
  if (copy != NULL && copy->mean_file != NULL && *copy->mean_file != '\0'
      && !g_path_is_absolute (copy->mean_file) && base_dir != NULL)
    {
      char *full = g_build_filename (base_dir, copy->mean_file, NULL);

      /* protobuf-c frees it with the system allocator, as GLib's is */
      free (copy->mean_file);
      copy->mean_file = full;
    }
  return copy;
}

static char *
shape_text (const gint64 shape[3])
{
  return g_strdup_printf ("%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT,
                          shape[0], shape[1], shape[2]);
}

static gboolean
check_shape (const gint64 got[3], const gint64 want[3], GError **error)
{
  g_autofree char *got_text = NULL;
  g_autofree char *want_text = NULL;

  if (got[0] == want[0] && got[1] == want[1] && got[2] == want[2])
    return TRUE;
  got_text = shape_text (got);
  want_text = shape_text (want);
  g_set_error (error, CT_RUN_ERROR, CT_RUN_ERROR_ITEM_SIZE,
               /* TRANSLATORS: each %s is a shape channels×height×width, such as 1×28×28 */
               _("The chosen images become samples of %s but the layer's are %s"), got_text,
               want_text);
  return FALSE;
}

float *
ct_source_transform_fashion (const Caffe__TransformationParameter *transform,
                             const CtFashionSet *set, const guint *items, guint n_items,
                             const gint64 dims[3], float **labels, const char *where,
                             GError **error)
{
  gsize plane = (gsize) set->rows * set->cols;
  g_autofree guint8 *pixels = g_new (guint8, plane * n_items);
  g_autofree float *out = NULL;
  gint64 shape[3];

  for (guint n = 0; n < n_items; n++)
    {
      if (items[n] >= set->count)
        {
          g_set_error (error, CT_RUN_ERROR, CT_RUN_ERROR_ITEM_SIZE,
                       _("Fashion-MNIST has no item %u"), items[n]);
          return NULL;
        }
      memcpy (pixels + plane * n, set->pixels + plane * items[n], plane);
    }
  out = ct_source_transform_pixels (transform, pixels, n_items, 1, (int) set->rows,
                                    (int) set->cols, where, shape, error);
  if (out == NULL || !check_shape (shape, dims, error))
    return NULL;
  if (labels != NULL)
    {
      *labels = g_new (float, n_items);
      for (guint n = 0; n < n_items; n++)
        (*labels)[n] = set->labels[items[n]];
    }
  return g_steal_pointer (&out);
}

/* The height and width of the mean image in PATH. */
static gboolean
mean_size (const char *path, gint64 *height, gint64 *width, GError **error)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  Caffe__BlobProto *proto;
  gboolean ok;

  proto = (Caffe__BlobProto *) ct_binary_read_file (&caffe__blob_proto__descriptor, path, error);
  if (proto == NULL)
    return FALSE;
  ok = ct_blob_from_proto (blob, proto, TRUE, error);
  protobuf_c_message_free_unpacked (&proto->base, NULL);
  if (!ok)
    return FALSE;
  *height = ct_blob_height (blob, NULL);
  *width = ct_blob_width (blob, NULL);
  return TRUE;
}

float *
ct_source_transform_path (const Caffe__TransformationParameter *transform, const char *path,
                          guint n_items, const gint64 dims[3], const char *where,
                          GError **error)
{
  CtInputTransform raw;
  gint64 read[4] = { n_items, dims[0], dims[1], dims[2] };
  g_autofree float *values = NULL;
  g_autofree guint8 *pixels = NULL;
  g_autofree float *out = NULL;
  gint64 shape[3];
  gsize count;

  if (transform != NULL && transform->crop_size > 0 && transform->mean_file != NULL
      && *transform->mean_file != '\0' && !mean_size (transform->mean_file, &read[2], &read[3], error))
    return NULL;
  /* the pixels as they are (0..255, the source's channel order) */
  ct_input_transform_init (&raw);
  values = ct_input_load_path (path, &raw, read, 4, error);
  if (values == NULL)
    return NULL;
  count = (gsize) (read[0] * read[1] * read[2] * read[3]);
  pixels = g_new (guint8, count);
  for (gsize i = 0; i < count; i++)
    pixels[i] = (guint8) CLAMP (lrintf (values[i]), 0, 255);
  out = ct_source_transform_pixels (transform, pixels, n_items, (int) read[1], (int) read[2],
                                    (int) read[3], where, shape, error);
  if (out == NULL || !check_shape (shape, dims, error))
    return NULL;
  return g_steal_pointer (&out);
}
