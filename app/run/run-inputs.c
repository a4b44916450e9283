/* run-inputs.c: image files, folders and Fashion-MNIST items as Input
 * blob values. See run-inputs.h. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "data-error.h"
#include "idx.h"
#include "image.h"
#include "run-inputs.h"

void
ct_input_transform_init (CtInputTransform *transform)
{
  memset (transform, 0, sizeof *transform);
  transform->scale = 1.0f;
  transform->order = CT_INPUT_ORDER_BGR;
}

static gboolean
is_image_name (const char *name)
{
  static const char *const suffixes[] = {
    ".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".pgm", ".ppm", ".pnm",
  };
  g_autofree char *lower = g_ascii_strdown (name, -1);

  for (gsize i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (g_str_has_suffix (lower, suffixes[i]))
      return TRUE;
  return FALSE;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
ct_input_list_folder (const char *dir, GError **error)
{
  g_autoptr (GDir) folder = g_dir_open (dir, 0, error);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (folder == NULL)
    return NULL;
  while ((name = g_dir_read_name (folder)) != NULL)
    if (is_image_name (name))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  g_ptr_array_sort (paths, compare_names);
  return g_steal_pointer (&paths);
}

gboolean
ct_input_load_image (const char *path, const CtInputTransform *transform, int channels,
                     int height, int width, float *out, GError **error)
{
  g_auto (CtPixels) pixels = { 0 };
  g_autoptr (GError) local = NULL;
  gsize plane = (gsize) height * width;

  if (channels != 1 && channels != 3)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   _("%s: the input has %d channels; images fill 1 (grey) or 3 (colour)"),
                   path, channels);
      return FALSE;
    }
  if (!ct_image_load (path, channels == 1 ? CT_IMAGE_GRAY : CT_IMAGE_COLOR, height, width,
                      &pixels, &local))
    {
      /* engine errors about decoding do not always name the file */
      if (strstr (local->message, path) != NULL)
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, local->domain, local->code, "%s: %s", path, local->message);
      return FALSE;
    }
  for (int c = 0; c < channels; c++)
    {
      /* the decoded pixels are blue, green, red */
      int from = transform->order == CT_INPUT_ORDER_RGB && channels == 3 ? 2 - c : c;
      const guint8 *src = pixels.u8 + (gsize) from * plane;
      float *dst = out + (gsize) c * plane;

      for (gsize i = 0; i < plane; i++)
        dst[i] = ((float) src[i] - transform->mean[c]) * transform->scale;
    }
  return TRUE;
}

static gboolean
check_dims (const char *what, const gint64 *dims, guint n_axes, GError **error)
{
  if (n_axes != 4 || dims[0] < 1 || dims[1] < 1 || dims[2] < 1 || dims[3] < 1
      || dims[1] * dims[2] * dims[3] > G_MAXINT32 / MAX (dims[0], 1))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   _("%s: images fill an input of shape N×C×H×W only"), what);
      return FALSE;
    }
  return TRUE;
}

float *
ct_input_load_path (const char *path, const CtInputTransform *transform, const gint64 *dims,
                    guint n_axes, GError **error)
{
  g_autoptr (GPtrArray) paths = NULL;
  g_autofree float *values = NULL;
  gsize sample;

  if (!check_dims (path, dims, n_axes, error))
    return NULL;
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      paths = ct_input_list_folder (path, error);
      if (paths == NULL)
        return NULL;
      if (paths->len == 0)
        {
          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND,
                       _("%s: the folder holds no image files"), path);
          return NULL;
        }
    }
  else
    {
      paths = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (paths, g_strdup (path));
    }
  sample = (gsize) (dims[1] * dims[2] * dims[3]);
  values = g_new (float, sample * (gsize) dims[0]);
  for (gint64 n = 0; n < dims[0]; n++)
    {
      if ((guint) n < paths->len)
        {
          if (!ct_input_load_image (paths->pdata[n], transform, (int) dims[1], (int) dims[2],
                                    (int) dims[3], values + (gsize) n * sample, error))
            return NULL;
        }
      else
        /* fewer images than samples: repeat from the first */
        memcpy (values + (gsize) n * sample, values + (gsize) (n % paths->len) * sample,
                sample * sizeof (float));
    }
  return g_steal_pointer (&values);
}

/* Fashion-MNIST */

CtFashionSet *
ct_fashion_set_load (const char *dir, GError **error)
{
  g_autofree char *images_path = g_build_filename (dir != NULL ? dir : CT_FASHION_DIR,
                                                   CT_FASHION_IMAGES, NULL);
  g_autofree char *labels_path = g_build_filename (dir != NULL ? dir : CT_FASHION_DIR,
                                                   CT_FASHION_LABELS, NULL);
  g_autoptr (CtIdxFile) images = ct_idx_open (images_path, CT_IDX_IMAGES, error);
  g_autoptr (CtIdxFile) labels = NULL;
  g_autoptr (CtFashionSet) set = NULL;
  gsize size;

  if (images == NULL)
    return NULL;
  labels = ct_idx_open (labels_path, CT_IDX_LABELS, error);
  if (labels == NULL)
    return NULL;
  if (ct_idx_count (images) != ct_idx_count (labels))
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   g_dngettext (GETTEXT_PACKAGE, "%s holds %u image but %s holds %u labels",
                                "%s holds %u images but %s holds %u labels",
                                ct_idx_count (images)),
                   images_path, ct_idx_count (images), labels_path, ct_idx_count (labels));
      return NULL;
    }
  set = g_new0 (CtFashionSet, 1);
  set->count = ct_idx_count (images);
  set->rows = ct_idx_rows (images);
  set->cols = ct_idx_cols (images);
  size = (gsize) set->rows * set->cols;
  set->pixels = g_malloc ((gsize) set->count * size + 1);
  set->labels = g_malloc ((gsize) set->count + 1);
  for (guint32 i = 0; i < set->count; i++)
    if (!ct_idx_read_next (images, set->pixels + (gsize) i * size, error)
        || !ct_idx_read_next (labels, set->labels + i, error))
      return NULL;
  return g_steal_pointer (&set);
}

void
ct_fashion_set_free (CtFashionSet *set)
{
  if (set == NULL)
    return;
  g_free (set->pixels);
  g_free (set->labels);
  g_free (set);
}

float *
ct_fashion_set_batch (const CtFashionSet *set, const guint *items, guint n_items,
                      const gint64 *dims, guint n_axes, float scale, float **labels,
                      GError **error)
{
  gsize size = (gsize) set->rows * set->cols;
  gint64 sample = 1;
  g_autofree float *values = NULL;
  g_autofree float *label_values = NULL;

  for (guint a = 1; a < n_axes; a++)
    sample *= dims[a];
  if (n_axes < 2 || dims[0] < 1 || sample != (gint64) size || n_items == 0)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   _("Fashion-MNIST items are 1×%u×%u: they do not fit this input"),
                   set->rows, set->cols);
      return NULL;
    }
  values = g_new (float, size * (gsize) dims[0]);
  label_values = g_new (float, (gsize) dims[0]);
  for (gint64 n = 0; n < dims[0]; n++)
    {
      guint item = items[n % n_items];
      const guint8 *src;

      if (item >= set->count)
        {
          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                       _("Fashion-MNIST has no item %u"), item);
          return NULL;
        }
      src = set->pixels + (gsize) item * size;
      for (gsize i = 0; i < size; i++)
        values[(gsize) n * size + i] = (float) src[i] * scale;
      label_values[n] = set->labels[item];
    }
  if (labels != NULL)
    *labels = g_steal_pointer (&label_values);
  return g_steal_pointer (&values);
}
