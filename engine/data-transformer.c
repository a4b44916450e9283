/* data-transformer.c: scale, mean, crop and mirror, as Caffe's
 * DataTransformer computes them for Datum records and decoded images. */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "binary-io.h"
#include "blob.h"
#include "data-error.h"
#include "data-transformer.h"
#include "rng.h"

struct _CtDataTransformer {
  Caffe__Phase phase;
  float scale;
  gboolean mirror;
  guint crop_size;
  CtImageColor color;
  char *mean_file;
  float *mean;               /* the mean file's values, C×H×W */
  gint64 mean_shape[3];
  float *mean_values;        /* per channel, or NULL */
  guint n_mean_values;
  CtRng *rng;
};

static gboolean
load_mean_file (CtDataTransformer *t, const char *path, GError **error)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  g_autoptr (GError) local = NULL;
  Caffe__BlobProto *proto;
  gboolean ok;

  proto = (Caffe__BlobProto *) ct_binary_read_file (&caffe__blob_proto__descriptor, path,
                                                    &local);
  if (proto == NULL)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND,
                   _("mean_file: %s"), local->message);
      return FALSE;
    }
  ok = ct_blob_from_proto (blob, proto, TRUE, &local);
  protobuf_c_message_free_unpacked (&proto->base, NULL);
  if (!ok || ct_blob_num_axes (blob) > 4 || ct_blob_count (blob) == 0)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_CORRUPT,
                   _("mean_file %s: not a mean image: %s"), path,
                   local != NULL ? local->message : _("no values, or more than 4 axes"));
      return FALSE;
    }
  t->mean_shape[0] = ct_blob_channels (blob, NULL);
  t->mean_shape[1] = ct_blob_height (blob, NULL);
  t->mean_shape[2] = ct_blob_width (blob, NULL);
  /* the first image of the blob is the mean, as Caffe reads it */
  t->mean = g_new (float, t->mean_shape[0] * t->mean_shape[1] * t->mean_shape[2]);
  memcpy (t->mean, ct_blob_cpu_data (blob, NULL),
          sizeof (float) * (gsize) (t->mean_shape[0] * t->mean_shape[1] * t->mean_shape[2]));
  t->mean_file = g_strdup (path);
  return TRUE;
}

CtDataTransformer *
ct_data_transformer_new (const Caffe__TransformationParameter *param, Caffe__Phase phase,
                         guint64 seed, GError **error)
{
  static const Caffe__TransformationParameter defaults = CAFFE__TRANSFORMATION_PARAMETER__INIT;
  g_autoptr (CtDataTransformer) t = g_new0 (CtDataTransformer, 1);
  const Caffe__TransformationParameter *p = param != NULL ? param : &defaults;

  t->phase = phase;
  t->scale = p->scale;
  t->mirror = p->mirror;
  t->crop_size = p->crop_size;
  t->rng = ct_rng_new (seed);
  if (p->force_color && p->force_gray)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   _("transform_param: force_color and force_gray cannot both be set"));
      return NULL;
    }
  t->color = p->force_color ? CT_IMAGE_COLOR : p->force_gray ? CT_IMAGE_GRAY : CT_IMAGE_NATIVE;
  if (p->mean_file != NULL && *p->mean_file != '\0' && p->n_mean_value > 0)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   _("transform_param: give mean_file or mean_value, not both"));
      return NULL;
    }
  if (p->mean_file != NULL && *p->mean_file != '\0' && !load_mean_file (t, p->mean_file, error))
    return NULL;
  if (p->n_mean_value > 0)
    {
      t->n_mean_values = (guint) p->n_mean_value;
      t->mean_values = g_memdup2 (p->mean_value, sizeof (float) * p->n_mean_value);
    }
  return g_steal_pointer (&t);
}

void
ct_data_transformer_free (CtDataTransformer *t)
{
  if (t == NULL)
    return;
  g_free (t->mean_file);
  g_free (t->mean);
  g_free (t->mean_values);
  g_clear_pointer (&t->rng, ct_rng_free);
  g_free (t);
}

CtImageColor
ct_data_transformer_get_color (const CtDataTransformer *t)
{
  return t->color;
}

gboolean
ct_data_transformer_shape (const CtDataTransformer *t, const CtPixels *px, gint64 shape[3],
                           const char *where, GError **error)
{
  if (t->crop_size > 0 && ((guint) px->height < t->crop_size || (guint) px->width < t->crop_size))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                   _("%s: crop_size %u is larger than the image (%d×%d)"), where,
                   t->crop_size, px->height, px->width);
      return FALSE;
    }
  if (t->mean != NULL &&
      (t->mean_shape[0] != px->channels || t->mean_shape[1] != px->height ||
       t->mean_shape[2] != px->width))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                   _("%s: the image is %d×%d×%d but the mean in %s is %" PRId64 "×%"
                     PRId64 "×%" PRId64 " (channels×height×width)"),
                   where, px->channels, px->height, px->width, t->mean_file,
                   t->mean_shape[0], t->mean_shape[1], t->mean_shape[2]);
      return FALSE;
    }
  if (t->n_mean_values > 1 && t->n_mean_values != (guint) px->channels)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "%s: %u mean_value given for an image of %d channel; give one, or "
                                "one per channel",
                                "%s: %u mean_value given for an image of %d channels; give one, or "
                                "one per channel", px->channels),
                   where, t->n_mean_values, px->channels);
      return FALSE;
    }
  shape[0] = px->channels;
  shape[1] = t->crop_size > 0 ? t->crop_size : (guint) px->height;
  shape[2] = t->crop_size > 0 ? t->crop_size : (guint) px->width;
  return TRUE;
}

/* What is subtracted from channel C's pixel at uncropped index I. */
static inline float
mean_at (const CtDataTransformer *t, int c, gsize i)
{
  if (t->mean != NULL)
    return t->mean[i];
  if (t->mean_values != NULL)
    return t->mean_values[t->n_mean_values == 1 ? 0 : c];
  return 0.0f;
}

gboolean
ct_data_transformer_apply (CtDataTransformer *t, const CtPixels *px, float *out,
                           const char *where, GError **error)
{
  gint64 shape[3];
  int height, width, h_off = 0, w_off = 0;
  gboolean mirror;

  if (!ct_data_transformer_shape (t, px, shape, where, error))
    return FALSE;
  height = (int) shape[1];
  width = (int) shape[2];
  /* draws in Caffe's order: the mirror coin, then the crop offsets */
  mirror = t->mirror && ct_rng_uint32 (t->rng) % 2 != 0;
  if (t->crop_size > 0)
    {
      if (t->phase == CAFFE__PHASE__TRAIN)
        {
          h_off = (int) (ct_rng_uint32 (t->rng) % (guint32) (px->height - height + 1));
          w_off = (int) (ct_rng_uint32 (t->rng) % (guint32) (px->width - width + 1));
        }
      else
        {
          h_off = (px->height - height) / 2;
          w_off = (px->width - width) / 2;
        }
    }

  for (int c = 0; c < px->channels; c++)
    for (int h = 0; h < height; h++)
      {
        gsize src_row = ((gsize) c * (gsize) px->height + (gsize) (h_off + h)) * (gsize) px->width
                        + (gsize) w_off;
        float *dst_row = out + ((gsize) c * (gsize) height + (gsize) h) * (gsize) width;

        for (int w = 0; w < width; w++)
          {
            gsize i = src_row + (gsize) w;
            float v = px->u8 != NULL ? (float) px->u8[i] : px->f32[i];
            int dst_w = mirror ? width - 1 - w : w;

            dst_row[dst_w] = (v - mean_at (t, c, i)) * t->scale;
          }
      }
  return TRUE;
}
