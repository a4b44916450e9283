/* blob.c: CtBlob (see blob.h). Shape bookkeeping and checks come first,
 * then memory access, then the operations that run where the data's head
 * is (update, norms, scaling). BlobProto conversion is blob-proto.c's. */
#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "blas.h"
#include "blob.h"
#include "blob-private.h"
#include "engine-error.h"

/* The largest element count: its size in bytes must fit in a gssize. */
#define CT_BLOB_MAX_COUNT ((gint64) (G_MAXSSIZE / sizeof (float)))

struct _CtBlob {
  CtMem *data;
  CtMem *diff;
  /* The shape again, in a CtMem, for GPU kernels that index N-D blobs; it
   * is written from `shape` when first asked for after a reshape. */
  CtMem *shape_data;
  gboolean shape_data_stale;
  gint64 shape[CT_BLOB_MAX_AXES];
  guint n_axes;
  gint64 count;
  gint64 capacity;
};

/* Shapes and their checks */

/* "2 3 4": a shape that is not (yet) a blob's, for error messages. */
char *
ct_blob_dims_to_string (const gint64 *dims, gsize n_axes)
{
  GString *str = g_string_new (NULL);

  for (gsize i = 0; i < n_axes; i++)
    g_string_append_printf (str, i ? " %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, dims[i]);
  return g_string_free (str, FALSE);
}

/* The element count of a shape in *COUNT_OUT, or an error when the shape is
 * not one a blob can have. The product of the non-zero dimensions must fit,
 * not only the count: a zero on one axis must not let count_range()
 * overflow on the others. */
gboolean
ct_blob_check_shape (const gint64 *dims, gsize n_axes, gint64 *count_out, GError **error)
{
  gint64 product = 1;
  gboolean has_zero = FALSE;

  if (n_axes > CT_BLOB_MAX_AXES)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   _("A blob shape has %zu axes; at most %d are allowed"),
                   n_axes, CT_BLOB_MAX_AXES);
      return FALSE;
    }
  for (gsize i = 0; i < n_axes; i++)
    {
      if (dims[i] < 0)
        {
          g_autofree char *shape = ct_blob_dims_to_string (dims, n_axes);
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                       _("Blob shape %s has a negative dimension on axis %zu"),
                       shape, i);
          return FALSE;
        }
      if (dims[i] == 0)
        {
          has_zero = TRUE;
          continue;
        }
      if (product > CT_BLOB_MAX_COUNT / dims[i])
        {
          g_autofree char *shape = ct_blob_dims_to_string (dims, n_axes);
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW,
                       _("Blob shape %s has more elements than memory can address"),
                       shape);
          return FALSE;
        }
      product *= dims[i];
    }
  *count_out = has_zero ? 0 : product;
  return TRUE;
}

static void
replace_mem (CtMem **mem, gsize size)
{
  ct_mem_unref (*mem);
  *mem = ct_mem_new (size);
}

CtBlob *
ct_blob_new (void)
{
  CtBlob *blob = g_new0 (CtBlob, 1);

  /* Empty memories rather than NULL ones, so that every accessor works on
   * a blob that was never reshaped, as on any other. */
  blob->data = ct_mem_new (0);
  blob->diff = ct_mem_new (0);
  return blob;
}

CtBlob *
ct_blob_new_with_shape (const gint64 *dims, guint n_axes, GError **error)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();

  if (!ct_blob_reshape (blob, dims, n_axes, error))
    return NULL;
  return g_steal_pointer (&blob);
}

void
ct_blob_free (CtBlob *blob)
{
  if (blob == NULL)
    return;
  ct_mem_unref (blob->data);
  ct_mem_unref (blob->diff);
  ct_mem_unref (blob->shape_data);
  g_free (blob);
}

gboolean
ct_blob_reshape (CtBlob *blob, const gint64 *dims, guint n_axes, GError **error)
{
  gint64 count;

  g_return_val_if_fail (blob != NULL, FALSE);
  g_return_val_if_fail (dims != NULL || n_axes == 0, FALSE);

  if (!ct_blob_check_shape (dims, n_axes, &count, error))
    return FALSE;

  if (n_axes > 0)
    memmove (blob->shape, dims, n_axes * sizeof (gint64));
  blob->n_axes = n_axes;
  blob->count = count;
  blob->shape_data_stale = TRUE;

  gsize bytes = (gsize) count * sizeof (float);
  if (count > blob->capacity)
    {
      /* Grow only: a smaller shape keeps the memory (and its pointers). */
      blob->capacity = count;
      replace_mem (&blob->data, bytes);
      replace_mem (&blob->diff, bytes);
      return TRUE;
    }
  /* Memory taken from another blob by share_data() or set_cpu_data() may
   * be smaller than this blob's capacity; Caffe would then write past its
   * end. Such a blob gets memory of its own instead. */
  if (ct_mem_get_size (blob->data) < bytes)
    replace_mem (&blob->data, bytes);
  if (ct_mem_get_size (blob->diff) < bytes)
    replace_mem (&blob->diff, bytes);
  return TRUE;
}

gboolean
ct_blob_reshape_4d (CtBlob *blob, gint64 num, gint64 channels,
                    gint64 height, gint64 width, GError **error)
{
  const gint64 dims[4] = { num, channels, height, width };

  return ct_blob_reshape (blob, dims, 4, error);
}

gboolean
ct_blob_reshape_from_shape (CtBlob *blob, const Caffe__BlobShape *shape, GError **error)
{
  gint64 count;

  if (shape == NULL)
    return ct_blob_reshape (blob, NULL, 0, error);
  /* Checked here too: n_dim is a size_t and the blob takes a guint. */
  if (!ct_blob_check_shape ((const gint64 *) shape->dim, shape->n_dim, &count, error))
    return FALSE;
  return ct_blob_reshape (blob, (const gint64 *) shape->dim, (guint) shape->n_dim, error);
}

gboolean
ct_blob_reshape_like (CtBlob *blob, const CtBlob *other, GError **error)
{
  return ct_blob_reshape (blob, other->shape, other->n_axes, error);
}

const gint64 *
ct_blob_get_shape (const CtBlob *blob)
{
  return blob->shape;
}

guint
ct_blob_num_axes (const CtBlob *blob)
{
  return blob->n_axes;
}

gint64
ct_blob_count (const CtBlob *blob)
{
  return blob->count;
}

gint64
ct_blob_capacity (const CtBlob *blob)
{
  return blob->capacity;
}

char *
ct_blob_shape_string (const CtBlob *blob)
{
  GString *str = g_string_new (NULL);

  for (guint i = 0; i < blob->n_axes; i++)
    g_string_append_printf (str, "%" G_GINT64_FORMAT " ", blob->shape[i]);
  g_string_append_printf (str, "(%" G_GINT64_FORMAT ")", blob->count);
  return g_string_free (str, FALSE);
}

int
ct_blob_canonical_axis_index (const CtBlob *blob, int axis, GError **error)
{
  int n_axes = (int) blob->n_axes;

  if (axis < -n_axes || axis >= n_axes)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS,
                   _("Axis %d is out of range for the %d-axis blob with shape %s"),
                   axis, n_axes, shape);
      return -1;
    }
  return axis < 0 ? axis + n_axes : axis;
}

gint64
ct_blob_shape_at (const CtBlob *blob, int axis, GError **error)
{
  int index = ct_blob_canonical_axis_index (blob, axis, error);

  return index < 0 ? -1 : blob->shape[index];
}

gint64
ct_blob_count_range (const CtBlob *blob, int start_axis, int end_axis, GError **error)
{
  int n_axes = (int) blob->n_axes;
  gint64 count = 1;

  if (start_axis < 0 || end_axis < 0 || start_axis > end_axis
      || start_axis > n_axes || end_axis > n_axes)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS,
                   g_dngettext (GETTEXT_PACKAGE,
                                "Axis range [%d, %d) is not within the %d axis of the blob with shape %s",
                                "Axis range [%d, %d) is not within the %d axes of the blob with shape %s",
                                n_axes),
                   start_axis, end_axis, n_axes, shape);
      return -1;
    }
  /* check_shape() bounded the product of the non-zero dimensions. */
  for (int i = start_axis; i < end_axis; i++)
    count *= blob->shape[i];
  return count;
}

gint64
ct_blob_count_from (const CtBlob *blob, int start_axis, GError **error)
{
  return ct_blob_count_range (blob, start_axis, (int) blob->n_axes, error);
}

gint64
ct_blob_legacy_shape (const CtBlob *blob, int index, GError **error)
{
  int n_axes = (int) blob->n_axes;

  if (n_axes > 4)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   _("The blob with shape %s has more than 4 axes, so it has no "
                     "num/channels/height/width"),
                   shape);
      return -1;
    }
  if (index < -4 || index >= 4)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS,
                   _("Legacy axis %d is out of range: num, channels, height and width "
                     "are axes 0 to 3 (or -4 to -1)"),
                   index);
      return -1;
    }
  /* Within the 4 legacy axes but beyond this blob's: the padding with 1s
   * that lets a bias (N) read as 1 x 1 x 1 x N, as Caffe does. */
  if (index >= n_axes || index < -n_axes)
    return 1;
  return blob->shape[index < 0 ? index + n_axes : index];
}

gint64
ct_blob_num (const CtBlob *blob, GError **error)
{
  return ct_blob_legacy_shape (blob, 0, error);
}

gint64
ct_blob_channels (const CtBlob *blob, GError **error)
{
  return ct_blob_legacy_shape (blob, 1, error);
}

gint64
ct_blob_height (const CtBlob *blob, GError **error)
{
  return ct_blob_legacy_shape (blob, 2, error);
}

gint64
ct_blob_width (const CtBlob *blob, GError **error)
{
  return ct_blob_legacy_shape (blob, 3, error);
}

gint64
ct_blob_offset (const CtBlob *blob, gint64 n, gint64 c, gint64 h, gint64 w, GError **error)
{
  static const char *const names[4] = { "num", "channels", "height", "width" };
  const gint64 index[4] = { n, c, h, w };
  gint64 offset = 0;

  for (int i = 0; i < 4; i++)
    {
      gint64 dim = ct_blob_legacy_shape (blob, i, error);
      if (dim < 0)
        return -1;
      /* Inclusive upper bound, as Caffe's: offset (num) is a valid end. */
      if (index[i] < 0 || index[i] > dim)
        {
          g_autofree char *shape = ct_blob_shape_string (blob);
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS,
                       _("Index %" PRId64 " is out of range for %s "
                         "(%" PRId64 ") of the blob with shape %s"),
                       index[i], names[i], dim, shape);
          return -1;
        }
      /* No overflow: even one past the end on every axis, the offset is at
       * most 4 times the count bound check_shape() enforces (2^61). */
      offset = offset * dim + index[i];
    }
  return offset;
}

gint64
ct_blob_offset_index (const CtBlob *blob, const gint64 *indices, guint n_indices,
                      GError **error)
{
  gint64 offset = 0;

  if (n_indices > blob->n_axes)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS,
                   g_dngettext (GETTEXT_PACKAGE, "%u index given for the %u-axis blob with shape %s",
                                "%u indices given for the %u-axis blob with shape %s", n_indices),
                   n_indices, blob->n_axes, shape);
      return -1;
    }
  for (guint i = 0; i < blob->n_axes; i++)
    {
      offset *= blob->shape[i];
      if (i >= n_indices)
        continue;
      if (indices[i] < 0 || indices[i] >= blob->shape[i])
        {
          g_autofree char *shape = ct_blob_shape_string (blob);
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS,
                       _("Index %" PRId64 " on axis %u is out of range for the "
                         "blob with shape %s"),
                       indices[i], i, shape);
          return -1;
        }
      offset += indices[i];
    }
  return offset;
}

/* Memory access */

CtMem *
ct_blob_get_data_mem (const CtBlob *blob)
{
  return blob->data;
}

CtMem *
ct_blob_get_diff_mem (const CtBlob *blob)
{
  return blob->diff;
}

const float *
ct_blob_cpu_data (CtBlob *blob, GError **error)
{
  return ct_mem_cpu_data (blob->data, error);
}

float *
ct_blob_mutable_cpu_data (CtBlob *blob, GError **error)
{
  return ct_mem_mutable_cpu_data (blob->data, error);
}

const float *
ct_blob_cpu_diff (CtBlob *blob, GError **error)
{
  return ct_mem_cpu_data (blob->diff, error);
}

float *
ct_blob_mutable_cpu_diff (CtBlob *blob, GError **error)
{
  return ct_mem_mutable_cpu_data (blob->diff, error);
}

const float *
ct_blob_gpu_data (CtBlob *blob, GError **error)
{
  return ct_mem_gpu_data (blob->data, error);
}

float *
ct_blob_mutable_gpu_data (CtBlob *blob, GError **error)
{
  return ct_mem_mutable_gpu_data (blob->data, error);
}

const float *
ct_blob_gpu_diff (CtBlob *blob, GError **error)
{
  return ct_mem_gpu_data (blob->diff, error);
}

float *
ct_blob_mutable_gpu_diff (CtBlob *blob, GError **error)
{
  return ct_mem_mutable_gpu_data (blob->diff, error);
}

const float *
ct_blob_data_on (CtBlob *blob, gboolean gpu, GError **error)
{
  return gpu ? ct_blob_gpu_data (blob, error) : ct_blob_cpu_data (blob, error);
}

float *
ct_blob_mutable_data_on (CtBlob *blob, gboolean gpu, GError **error)
{
  return gpu ? ct_blob_mutable_gpu_data (blob, error) : ct_blob_mutable_cpu_data (blob, error);
}

const float *
ct_blob_diff_on (CtBlob *blob, gboolean gpu, GError **error)
{
  return gpu ? ct_blob_gpu_diff (blob, error) : ct_blob_cpu_diff (blob, error);
}

float *
ct_blob_mutable_diff_on (CtBlob *blob, gboolean gpu, GError **error)
{
  return gpu ? ct_blob_mutable_gpu_diff (blob, error) : ct_blob_mutable_cpu_diff (blob, error);
}

const gint64 *
ct_blob_gpu_shape (CtBlob *blob, GError **error)
{
  gsize bytes = MAX (blob->n_axes, 1) * sizeof (gint64);

  if (blob->shape_data == NULL || ct_mem_get_size (blob->shape_data) < bytes)
    {
      ct_mem_unref (blob->shape_data);
      blob->shape_data = ct_mem_new (bytes);
      blob->shape_data_stale = TRUE;
    }
  if (blob->shape_data_stale)
    {
      gint64 *shape = ct_mem_mutable_cpu_data (blob->shape_data, error);
      if (shape == NULL)
        return NULL;
      memcpy (shape, blob->shape, blob->n_axes * sizeof (gint64));
      blob->shape_data_stale = FALSE;
    }
  return ct_mem_gpu_data (blob->shape_data, error);
}

static float
value_at (CtBlob *blob, CtMem *mem, gint64 offset, GError **error)
{
  const float *values;

  if (offset < 0)
    return 0.0f;
  if (offset >= blob->count)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_AXIS,
                   _("Element %" PRId64 " is past the end of the blob with shape %s"),
                   offset, shape);
      return 0.0f;
    }
  values = ct_mem_cpu_data (mem, error);
  return values != NULL ? values[offset] : 0.0f;
}

float
ct_blob_data_at (CtBlob *blob, gint64 n, gint64 c, gint64 h, gint64 w, GError **error)
{
  return value_at (blob, blob->data, ct_blob_offset (blob, n, c, h, w, error), error);
}

float
ct_blob_diff_at (CtBlob *blob, gint64 n, gint64 c, gint64 h, gint64 w, GError **error)
{
  return value_at (blob, blob->diff, ct_blob_offset (blob, n, c, h, w, error), error);
}

float
ct_blob_data_at_index (CtBlob *blob, const gint64 *indices, guint n_indices, GError **error)
{
  return value_at (blob, blob->data,
                   ct_blob_offset_index (blob, indices, n_indices, error), error);
}

float
ct_blob_diff_at_index (CtBlob *blob, const gint64 *indices, guint n_indices, GError **error)
{
  return value_at (blob, blob->diff,
                   ct_blob_offset_index (blob, indices, n_indices, error), error);
}

/* As Caffe does, external memory replaces data and diff with memories of
 * exactly count floats when the current ones differ, so that data and diff
 * keep the same size. */
static void
prepare_external (CtBlob *blob)
{
  gsize bytes = (gsize) blob->count * sizeof (float);

  if (ct_mem_get_size (blob->data) != bytes)
    {
      replace_mem (&blob->data, bytes);
      replace_mem (&blob->diff, bytes);
    }
}

void
ct_blob_set_cpu_data (CtBlob *blob, float *data)
{
  g_return_if_fail (data != NULL);
  prepare_external (blob);
  ct_mem_set_cpu_data (blob->data, data);
}

void
ct_blob_set_gpu_data (CtBlob *blob, float *data)
{
  g_return_if_fail (data != NULL);
  prepare_external (blob);
  ct_mem_set_gpu_data (blob->data, data);
}

/* Copying and sharing */

static gboolean
same_shape (const CtBlob *a, const CtBlob *b)
{
  /* Count too: a new blob and a scalar both have 0 axes, counts 0 and 1. */
  return a->count == b->count && a->n_axes == b->n_axes
         && memcmp (a->shape, b->shape, a->n_axes * sizeof (gint64)) == 0;
}

gboolean
ct_blob_copy_from (CtBlob *blob, CtBlob *source, CtBlobCopyFlags flags, GError **error)
{
  gboolean diff = (flags & CT_BLOB_COPY_DIFF) != 0;
  const float *from;
  float *to;

  if (!same_shape (blob, source))
    {
      if (!(flags & CT_BLOB_COPY_RESHAPE))
        {
          g_autofree char *from_shape = ct_blob_shape_string (source);
          g_autofree char *to_shape = ct_blob_shape_string (blob);
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                       _("Cannot copy a blob with shape %s into a blob with shape %s"),
                       from_shape, to_shape);
          return FALSE;
        }
      if (!ct_blob_reshape_like (blob, source, error))
        return FALSE;
    }
  /* On the CPU for now: the GPU copy arrives with the CUDA kernels and the
   * engine's device mode. Reading on the CPU is correct from any head. */
  from = diff ? ct_blob_cpu_diff (source, error) : ct_blob_cpu_data (source, error);
  if (from == NULL)
    return FALSE;
  to = diff ? ct_blob_mutable_cpu_diff (blob, error) : ct_blob_mutable_cpu_data (blob, error);
  if (to == NULL)
    return FALSE;
  return ct_engine_check_status (ct_cpu_copy (blob->count, from, to),
                                 _("Copying a blob"), error);
}

static gboolean
share (CtBlob *blob, const CtBlob *other, CtMem **mem, CtMem *other_mem,
       gboolean diff, GError **error)
{
  if (blob->count != other->count)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_autofree char *other_shape = ct_blob_shape_string (other);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   diff ? _("Cannot share the diff of a blob with shape %s with a blob with "
                            "shape %s: their counts differ")
                        : _("Cannot share the data of a blob with shape %s with a blob with "
                            "shape %s: their counts differ"),
                   other_shape, shape);
      return FALSE;
    }
  /* Ref before unref: sharing a blob's memory with itself is harmless. */
  ct_mem_ref (other_mem);
  ct_mem_unref (*mem);
  *mem = other_mem;
  return TRUE;
}

gboolean
ct_blob_share_data (CtBlob *blob, const CtBlob *other, GError **error)
{
  return share (blob, other, &blob->data, other->data, FALSE, error);
}

gboolean
ct_blob_share_diff (CtBlob *blob, const CtBlob *other, GError **error)
{
  return share (blob, other, &blob->diff, other->diff, TRUE, error);
}

void
ct_blob_set_mem (CtBlob *blob, gboolean diff, CtMem *mem)
{
  CtMem **slot = diff ? &blob->diff : &blob->data;

  g_return_if_fail (ct_mem_get_size (mem) >= (gsize) blob->count * sizeof (float));
  ct_mem_ref (mem);
  ct_mem_unref (*slot);
  *slot = mem;
}

/* Operations that run where the head is. A head on the GPU runs the CUDA
 * kernel; if this build has none (CT_STATUS_NO_DEVICE) the CPU takes over,
 * which copies the values back from the device first. */

static gboolean
is_gpu_head (CtMem *mem)
{
  CtMemHead head = ct_mem_get_head (mem);

  return head == CT_MEM_HEAD_AT_GPU || head == CT_MEM_SYNCED;
}

gboolean
ct_blob_update (CtBlob *blob, GError **error)
{
  const float *diff;
  float *data;

  if (ct_mem_get_head (blob->data) == CT_MEM_UNINITIALIZED)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_STATE,
                   _("Cannot update the blob with shape %s: its data was never written"),
                   shape);
      return FALSE;
    }
  if (is_gpu_head (blob->data))
    {
      CtStatus status;
      if ((diff = ct_blob_gpu_diff (blob, error)) == NULL
          || (data = ct_blob_mutable_gpu_data (blob, error)) == NULL)
        return FALSE;
      status = ct_cuda_axpy (blob->count, -1.0f, diff, data);
      if (status != CT_STATUS_NO_DEVICE)
        return ct_engine_check_status (status, _("Updating a blob on the GPU"), error);
    }
  if ((diff = ct_blob_cpu_diff (blob, error)) == NULL
      || (data = ct_blob_mutable_cpu_data (blob, error)) == NULL)
    return FALSE;
  return ct_engine_check_status (ct_cpu_axpy (blob->count, -1.0f, diff, data),
                                 _("Updating a blob"), error);
}

/* The L1 norm (SQUARED false) or squared L2 norm of the first COUNT floats
 * of MEM; a memory never written holds zeros. */
static float
norm (CtMem *mem, gint64 count, gboolean squared, GError **error)
{
  const float *x;
  float result = 0.0f;
  CtStatus status;

  if (ct_mem_get_head (mem) == CT_MEM_UNINITIALIZED)
    return 0.0f;
  if (is_gpu_head (mem))
    {
      if ((x = ct_mem_gpu_data (mem, error)) == NULL)
        return 0.0f;
      status = squared ? ct_cuda_dot (count, x, x, &result) : ct_cuda_asum (count, x, &result);
      if (status != CT_STATUS_NO_DEVICE)
        return ct_engine_check_status (status, _("Summing blob values on the GPU"), error)
               ? result : 0.0f;
    }
  if ((x = ct_mem_cpu_data (mem, error)) == NULL)
    return 0.0f;
  status = squared ? ct_cpu_dot (count, x, x, &result) : ct_cpu_asum (count, x, &result);
  return ct_engine_check_status (status, _("Summing blob values"), error) ? result : 0.0f;
}

float
ct_blob_asum_data (CtBlob *blob, GError **error)
{
  return norm (blob->data, blob->count, FALSE, error);
}

float
ct_blob_asum_diff (CtBlob *blob, GError **error)
{
  return norm (blob->diff, blob->count, FALSE, error);
}

float
ct_blob_sumsq_data (CtBlob *blob, GError **error)
{
  return norm (blob->data, blob->count, TRUE, error);
}

float
ct_blob_sumsq_diff (CtBlob *blob, GError **error)
{
  return norm (blob->diff, blob->count, TRUE, error);
}

static gboolean
scale (CtMem *mem, gint64 count, float factor, GError **error)
{
  float *x;

  /* Zeros scaled are zeros: nothing to allocate. */
  if (ct_mem_get_head (mem) == CT_MEM_UNINITIALIZED)
    return TRUE;
  if (is_gpu_head (mem))
    {
      CtStatus status;
      if ((x = ct_mem_mutable_gpu_data (mem, error)) == NULL)
        return FALSE;
      status = ct_cuda_scal (count, factor, x);
      if (status != CT_STATUS_NO_DEVICE)
        return ct_engine_check_status (status, _("Scaling a blob on the GPU"), error);
    }
  if ((x = ct_mem_mutable_cpu_data (mem, error)) == NULL)
    return FALSE;
  return ct_engine_check_status (ct_cpu_scal (count, factor, x), _("Scaling a blob"), error);
}

gboolean
ct_blob_scale_data (CtBlob *blob, float scale_factor, GError **error)
{
  return scale (blob->data, blob->count, scale_factor, error);
}

gboolean
ct_blob_scale_diff (CtBlob *blob, float scale_factor, GError **error)
{
  return scale (blob->diff, blob->count, scale_factor, error);
}
