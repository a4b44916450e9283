/* common-private.h: small helpers shared by the Common and Utility layer
 * files: errors from the blob API, fillers and kernels, reworded so that
 * they name the layer, and the buffers a layer keeps between reshape and
 * backward. Static inline so that each layer file stays on its own. */
#pragma once

#include <string.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "filler.h"
#include "status.h"

G_BEGIN_DECLS

/* Forward and backward of the types with nothing to compute: the top
 * shares the bottom's data and diff (Flatten, Reshape), or nothing goes
 * down (Parameter). */
static inline gboolean
ct_common_nothing_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                           GError **error)
{
  return TRUE;
}

static inline gboolean
ct_common_nothing_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                            GPtrArray *bottom, gboolean gpu, GError **error)
{
  return TRUE;
}

/* AXIS of BLOB made non-negative, or -1 with an error naming LAYER. */
static inline int
ct_common_axis (const CtLayer *layer, const CtBlob *blob, int axis, GError **error)
{
  g_autoptr (GError) local = NULL;
  int index = ct_blob_canonical_axis_index (blob, axis, &local);

  if (index < 0)
    ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS, "%s", local->message);
  return index;
}

/* Reshape BLOB to DIMS, with an error naming LAYER and the top. */
static inline gboolean
ct_common_reshape_top (const CtLayer *layer, CtBlob *blob, guint top_index,
                       const gint64 *dims, guint n_axes, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (ct_blob_reshape (blob, dims, n_axes, &local))
    return TRUE;
  return ct_layer_fail (layer, error, local->code, _("top %u: %s"), top_index, local->message);
}

/* A new parameter blob of shape DIMS appended to layer->blobs. */
static inline CtBlob *
ct_common_add_param (CtLayer *layer, const gint64 *dims, guint n_axes, GError **error)
{
  g_autoptr (GError) local = NULL;
  CtBlob *blob = ct_blob_new_with_shape (dims, n_axes, &local);

  if (blob == NULL)
    {
      ct_layer_fail (layer, error, local->code, "%s", local->message);
      return NULL;
    }
  g_ptr_array_add (layer->blobs, blob);
  return blob;
}

/* A kernel's status as a layer error. */
static inline gboolean
ct_common_check (const CtLayer *layer, CtStatus status, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (ct_engine_check_status (status, _("Computing the layer"), &local))
    return TRUE;
  return ct_layer_fail (layer, error, local->code, "%s", local->message);
}

/* A scratch array that only grows, as Caffe's buffers do: *BUFFER holds
 * *CAPACITY elements of SIZE bytes, enough for N after this call. */
static inline void
ct_common_grow (gpointer *buffer, gsize *capacity, gsize n, gsize size)
{
  if (n <= *capacity)
    return;
  g_free (*buffer);
  *buffer = g_malloc0_n (n, size);
  *capacity = n;
}

/* Whether every dimension of A equals B's. */
static inline gboolean
ct_common_same_shape (const CtBlob *a, const CtBlob *b)
{
  if (ct_blob_num_axes (a) != ct_blob_num_axes (b))
    return FALSE;
  return memcmp (ct_blob_get_shape (a), ct_blob_get_shape (b),
                 ct_blob_num_axes (a) * sizeof (gint64)) == 0;
}

/* Types that cannot compute in place refuse a top that is a bottom. */
static inline gboolean
ct_common_not_in_place (const CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                        GError **error)
{
  for (guint t = 0; t < top->len; t++)
    for (guint b = 0; b < bottom->len; b++)
      if (g_ptr_array_index (top, t) == g_ptr_array_index (bottom, b))
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              _("cannot compute in place (top %u is bottom %u)"), t, b);
  return TRUE;
}

/* Bias and Scale: VECTOR (the parameter, or the second bottom) applied to
 * BLOB from axis AXIS on, as Caffe's broadcasting sees it: OUTER x DIM x
 * INNER with VECTOR's shape matching BLOB's axes from AXIS. A vector with
 * no axes is a scalar (axis 0). WHAT is "scale" or "bias": each has its
 * own error messages, so that no translation has to hold an English word. */
static inline gboolean
ct_common_broadcast (const CtLayer *layer, const CtBlob *blob, const CtBlob *vector,
                     int axis_param, const char *what, gint64 *outer, gint64 *dim,
                     gint64 *inner, GError **error)
{
  guint n = ct_blob_num_axes (vector);
  int axis = 0;

  if (n > 0)
    {
      axis = ct_common_axis (layer, blob, axis_param, error);
      if (axis < 0)
        return FALSE;
    }
  if ((guint) axis + n > ct_blob_num_axes (blob))
    {
      g_autofree char *shape = ct_blob_shape_string (vector);
      g_autofree char *blob_shape = ct_blob_shape_string (blob);
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            g_str_equal (what, "bias")
                            ? _("the bias blob's shape %s extends past bottom 0's shape %s "
                                "when applied from axis %d")
                            : _("the scale blob's shape %s extends past bottom 0's shape %s "
                                "when applied from axis %d"), shape, blob_shape, axis);
    }
  for (guint i = 0; i < n; i++)
    if (ct_blob_get_shape (blob)[axis + i] != ct_blob_get_shape (vector)[i])
      {
        g_autofree char *shape = ct_blob_shape_string (vector);
        g_autofree char *blob_shape = ct_blob_shape_string (blob);
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                              g_str_equal (what, "bias")
                              ? _("the bias blob's shape %s does not match bottom 0's shape %s "
                                  "from axis %d")
                              : _("the scale blob's shape %s does not match bottom 0's shape %s "
                                  "from axis %d"), shape, blob_shape, axis);
      }
  *outer = ct_blob_count_range (blob, 0, axis, NULL);
  *dim = ct_blob_count (vector);
  *inner = ct_blob_count_from (blob, axis + n, NULL);
  return TRUE;
}

/* The shape of a learned Bias or Scale vector: BLOB's axes from AXIS_PARAM,
 * NUM_AXES of them (-1: to the end). DIMS holds CT_BLOB_MAX_AXES. */
static inline gboolean
ct_common_broadcast_shape (const CtLayer *layer, const CtBlob *blob, int axis_param,
                           int num_axes, const char *what, gint64 *dims, guint *n_dims,
                           GError **error)
{
  int axis = ct_common_axis (layer, blob, axis_param, error);
  int n_axes = (int) ct_blob_num_axes (blob);

  if (axis < 0)
    return FALSE;
  if (num_axes < -1)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                          _("num_axes must be non-negative, or -1 to extend to the end of "
                            "bottom 0; got %d"), num_axes);
  if (num_axes >= 0 && axis + num_axes > n_axes)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_AXIS,
                            g_str_equal (what, "bias")
                            ? g_dngettext (GETTEXT_PACKAGE,
                                           "the bias blob's %d axis from axis %d extends past "
                                           "bottom 0's shape %s",
                                           "the bias blob's %d axes from axis %d extend past "
                                           "bottom 0's shape %s", num_axes)
                            : g_dngettext (GETTEXT_PACKAGE,
                                           "the scale blob's %d axis from axis %d extends past "
                                           "bottom 0's shape %s",
                                           "the scale blob's %d axes from axis %d extend past "
                                           "bottom 0's shape %s", num_axes),
                            num_axes, axis, shape);
    }
  *n_dims = num_axes < 0 ? (guint) (n_axes - axis) : (guint) num_axes;
  memcpy (dims, ct_blob_get_shape (blob) + axis, *n_dims * sizeof (gint64));
  return TRUE;
}

G_END_DECLS
