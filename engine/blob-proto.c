/* blob-proto.c: CtBlob to and from Caffe's BlobProto (blob.h): the
 * shape (or the legacy num/channels/height/width), and the values as
 * floats or doubles. */
#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "blob.h"
#include "blob-private.h"
#include "engine-error.h"

static gboolean
has_legacy_shape (const Caffe__BlobProto *proto)
{
  return proto->has_num || proto->has_channels || proto->has_height || proto->has_width;
}

static char *
proto_shape_string (const Caffe__BlobProto *proto)
{
  if (has_legacy_shape (proto))
    return g_strdup_printf ("%d %d %d %d", proto->num, proto->channels,
                            proto->height, proto->width);
  if (proto->shape == NULL || proto->shape->n_dim == 0)
    return g_strdup ("()");
  return ct_blob_dims_to_string ((const gint64 *) proto->shape->dim, proto->shape->n_dim);
}

gboolean
ct_blob_shape_equals (const CtBlob *blob, const Caffe__BlobProto *proto)
{
  const Caffe__BlobShape *shape = proto->shape;
  gsize n_dim = shape != NULL ? shape->n_dim : 0;

  if (has_legacy_shape (proto))
    {
      /* Legacy 4-D protos compare from the end, so that a (1 1 1 N) bias
       * proto matches a blob of shape (N); blobs of 5+ axes never match. */
      return ct_blob_num_axes (blob) <= 4
             && ct_blob_legacy_shape (blob, -4, NULL) == proto->num
             && ct_blob_legacy_shape (blob, -3, NULL) == proto->channels
             && ct_blob_legacy_shape (blob, -2, NULL) == proto->height
             && ct_blob_legacy_shape (blob, -1, NULL) == proto->width;
    }
  if (n_dim != ct_blob_num_axes (blob))
    return FALSE;
  for (gsize i = 0; i < n_dim; i++)
    if (shape->dim[i] != ct_blob_get_shape (blob)[i])
      return FALSE;
  return TRUE;
}

/* The shape FROM_PROTO reshapes to: the legacy fields when any is set
 * (missing ones as their default 0, as Caffe reads them), else `shape`. */
static gboolean
proto_target_shape (const Caffe__BlobProto *proto, gint64 *dims, guint *n_axes,
                    gint64 *count, GError **error)
{
  if (has_legacy_shape (proto))
    {
      dims[0] = proto->num;
      dims[1] = proto->channels;
      dims[2] = proto->height;
      dims[3] = proto->width;
      *n_axes = 4;
    }
  else if (proto->shape != NULL)
    {
      /* Checked before copying: DIMS holds at most CT_BLOB_MAX_AXES. */
      if (!ct_blob_check_shape ((const gint64 *) proto->shape->dim, proto->shape->n_dim, count, error))
        return FALSE;
      *n_axes = (guint) proto->shape->n_dim;
      memcpy (dims, proto->shape->dim, *n_axes * sizeof (gint64));
      return TRUE;
    }
  else
    *n_axes = 0;
  return ct_blob_check_shape (dims, *n_axes, count, error);
}

static gboolean
check_value_count (gsize n_values, gint64 count, const char *field,
                   const Caffe__BlobProto *proto, GError **error)
{
  if (n_values == (guint64) count)
    return TRUE;
  g_autofree char *shape = proto_shape_string (proto);
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
               g_dngettext (GETTEXT_PACKAGE, "BlobProto field '%s' holds %zu value, but the shape %s "
                            "has %" PRId64 " elements",
                            "BlobProto field '%s' holds %zu values, but the shape %s "
                            "has %" PRId64 " elements", n_values),
               field, n_values, shape, count);
  return FALSE;
}

/* Fills the first COUNT floats of DST from the float or the double field. */
static void
load_values (float *dst, gint64 count, const float *floats, const double *doubles)
{
  if (doubles != NULL)
    for (gint64 i = 0; i < count; i++)
      dst[i] = (float) doubles[i];
  else if (count > 0)
    memcpy (dst, floats, (gsize) count * sizeof (float));
}

gboolean
ct_blob_from_proto (CtBlob *blob, const Caffe__BlobProto *proto, gboolean reshape,
                    GError **error)
{
  gint64 dims[CT_BLOB_MAX_AXES];
  guint n_axes = 0;
  gint64 count = ct_blob_count (blob);
  gboolean double_data = proto->n_double_data > 0;
  gboolean double_diff = proto->n_double_diff > 0;
  gboolean has_diff = double_diff || proto->n_diff > 0;
  float *values;

  if (reshape)
    {
      if (!proto_target_shape (proto, dims, &n_axes, &count, error))
        return FALSE;
    }
  else if (!ct_blob_shape_equals (blob, proto))
    {
      g_autofree char *proto_shape = proto_shape_string (proto);
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   _("BlobProto shape %s does not match the blob's shape %s"),
                   proto_shape, shape);
      return FALSE;
    }

  /* Everything is checked before anything changes. */
  if (!check_value_count (double_data ? proto->n_double_data : proto->n_data, count,
                          double_data ? "double_data" : "data", proto, error))
    return FALSE;
  if (has_diff
      && !check_value_count (double_diff ? proto->n_double_diff : proto->n_diff, count,
                             double_diff ? "double_diff" : "diff", proto, error))
    return FALSE;
  if (reshape && !ct_blob_reshape (blob, dims, n_axes, error))
    return FALSE;

  if ((values = ct_blob_mutable_cpu_data (blob, error)) == NULL)
    return FALSE;
  load_values (values, count, proto->data, double_data ? proto->double_data : NULL);
  if (!has_diff)
    return TRUE;
  if ((values = ct_blob_mutable_cpu_diff (blob, error)) == NULL)
    return FALSE;
  load_values (values, count, proto->diff, double_diff ? proto->double_diff : NULL);
  return TRUE;
}

/* Copies COUNT floats into a new array of the proto's float or double
 * field; allocated with g_try_malloc (malloc) so that free_unpacked frees
 * it, and tried, because a blob can be larger than free memory. */
static gboolean
store_values (const float *src, gint64 count, gboolean as_double,
              size_t *n_out, float **floats_out, double **doubles_out, GError **error)
{
  gsize size = as_double ? sizeof (double) : sizeof (float);
  void *values;

  if (count == 0)
    return TRUE;
  if ((guint64) count > G_MAXSIZE / size || (values = g_try_malloc ((gsize) count * size)) == NULL)
    {
      g_autofree char *bytes = g_format_size_full ((guint64) count * size,
                                                   G_FORMAT_SIZE_IEC_UNITS);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                   _("Could not allocate %s of memory for a BlobProto"), bytes);
      return FALSE;
    }
  if (as_double)
    {
      double *doubles = values;
      for (gint64 i = 0; i < count; i++)
        doubles[i] = src[i];
      *doubles_out = doubles;
    }
  else
    {
      memcpy (values, src, (gsize) count * sizeof (float));
      *floats_out = values;
    }
  *n_out = (size_t) count;
  return TRUE;
}

/* Freed the way callers free it, so that a half-filled proto leaks nothing.
 * (No autoptr for the generated type here: proto/ may declare one.) */
static Caffe__BlobProto *
fail_proto (Caffe__BlobProto *proto)
{
  protobuf_c_message_free_unpacked ((ProtobufCMessage *) proto, NULL);
  return NULL;
}

Caffe__BlobProto *
ct_blob_to_proto (CtBlob *blob, CtBlobProtoFlags flags, GError **error)
{
  Caffe__BlobProto *proto = g_new0 (Caffe__BlobProto, 1);
  gboolean as_double = (flags & CT_BLOB_PROTO_DOUBLE) != 0;
  const float *values;

  caffe__blob_proto__init (proto);
  /* A 0-axis blob writes no shape at all, as Caffe's ToProto does; reading
   * it back gives 0 axes again. */
  if (ct_blob_num_axes (blob) > 0)
    {
      proto->shape = g_new0 (Caffe__BlobShape, 1);
      caffe__blob_shape__init (proto->shape);
      proto->shape->dim = g_new (int64_t, ct_blob_num_axes (blob));
      proto->shape->n_dim = ct_blob_num_axes (blob);
      memcpy (proto->shape->dim, ct_blob_get_shape (blob), ct_blob_num_axes (blob) * sizeof (int64_t));
    }

  if ((values = ct_blob_cpu_data (blob, error)) == NULL
      || !store_values (values, ct_blob_count (blob), as_double,
                        as_double ? &proto->n_double_data : &proto->n_data,
                        &proto->data, &proto->double_data, error))
    return fail_proto (proto);
  if (flags & CT_BLOB_PROTO_WRITE_DIFF)
    {
      if ((values = ct_blob_cpu_diff (blob, error)) == NULL
          || !store_values (values, ct_blob_count (blob), as_double,
                            as_double ? &proto->n_double_diff : &proto->n_diff,
                            &proto->diff, &proto->double_diff, error))
        return fail_proto (proto);
    }
  return proto;
}
