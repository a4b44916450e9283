/* hdf5-data.c: HDF5Data, rows of HDF5 datasets as batches. The source is a
 * text file naming one .h5 file per line; each top reads the dataset of
 * the same name (commonly "data" and "label"), every dataset of a file has
 * the same number of rows (the first axis), and each top is
 * batch_size × the dataset's other axes. As in Caffe: one file is held in
 * memory at a time, read as float whatever its numeric type; rows are taken
 * in order, moving to the next file at the end of one and back to the first
 * after the last; with shuffle the file order is shuffled at the start and
 * after each pass, and the row order each time a file is loaded (drawing
 * from the layer's seed). A missing dataset, a non-numeric one or a row
 * shape that differs from the first file's is an error naming the file and
 * the dataset. */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "data-error.h"
#include "engine-error.h"
#include "hdf5-private.h"
#include "layer.h"
#include "rng.h"

typedef struct {
  float *values;
  gint64 rows;
} Dataset;

typedef struct {
  CtLayer parent;
  char *source;
  char **files;        /* NULL-terminated */
  guint n_files;
  guint *file_order;
  guint current_file;  /* index into file_order */
  Dataset *datasets;   /* one per top, the current file's */
  guint n_datasets;
  gint64 rows;
  guint *row_order;
  gint64 current_row;
  guint batch_size;
  gboolean shuffle;
  CtRng *rng;
  GError *failure;     /* a file that failed to load: every later forward fails */
} CtHdf5DataLayer;

static void
shuffle (guint *order, gsize n, CtRng *rng)
{
  for (gsize i = n; i > 1; i--)
    {
      gsize j = ct_rng_uint32 (rng) % i;
      guint tmp = order[i - 1];

      order[i - 1] = order[j];
      order[j] = tmp;
    }
}

static void
clear_datasets (CtHdf5DataLayer *self)
{
  for (guint j = 0; self->datasets != NULL && j < self->n_datasets; j++)
    g_clear_pointer (&self->datasets[j].values, g_free);
}

/* Read NAME from FILE into DS, checking its row shape against TOP (the top
 * blob, shaped at setup; SET_SHAPE: shape it from this dataset instead). */
static gboolean
read_dataset (CtHdf5DataLayer *self, hid_t file, const char *path, const char *name,
              CtBlob *top, gboolean set_shape, Dataset *ds, GError **error)
{
  hid_t dset = -1, space = -1, type = -1;
  hsize_t dims[32];
  int n_dims;
  H5T_class_t klass;
  gint64 row_count = 1;
  gboolean ok = FALSE;

  if (H5Lexists (file, name, H5P_DEFAULT) <= 0 ||
      (dset = H5Dopen2 (file, name, H5P_DEFAULT)) < 0)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_NOT_FOUND,
                   _("%s: no dataset '%s' (each top reads the dataset of its name)"),
                   path, name);
      return FALSE;
    }
  type = H5Dget_type (dset);
  klass = H5Tget_class (type);
  space = H5Dget_space (dset);
  n_dims = H5Sget_simple_extent_ndims (space);
  if (klass != H5T_FLOAT && klass != H5T_INTEGER)
    g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                 _("%s: dataset '%s' is not numeric (float or integer)"), path, name);
  else if (n_dims < 1 || n_dims > 32)
    g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                 _("%s: dataset '%s' has %d axes; it needs 1 to 32"), path, name, n_dims);
  else
    {
      g_autoptr (GError) local = NULL;
      gint64 shape[32];

      H5Sget_simple_extent_dims (space, dims, NULL);
      for (int a = 0; a < n_dims; a++)
        shape[a] = (gint64) dims[a];
      for (int a = 1; a < n_dims; a++)
        row_count *= shape[a];
      shape[0] = self->batch_size;
      if (set_shape)
        ok = ct_blob_reshape (top, shape, (guint) n_dims, &local);
      else
        ok = ct_blob_num_axes (top) == (guint) n_dims &&
             memcmp (ct_blob_get_shape (top) + 1, shape + 1,
                     sizeof (gint64) * (gsize) (n_dims - 1)) == 0;
      if (!ok)
        {
          g_autofree char *want = ct_blob_shape_string (top);

          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                       local != NULL ? _("%s: dataset '%s': %s")
                                     : _("%s: dataset '%s': rows of another shape than in the "
                                         "first file (the top is %s)"),
                       path, name, local != NULL ? local->message : want);
        }
      else if (dims[0] == 0)
        {
          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_EMPTY,
                       _("%s: dataset '%s' has no rows"), path, name);
          ok = FALSE;
        }
      else
        {
          ds->rows = (gint64) dims[0];
          ds->values = g_try_new (float, (gsize) (ds->rows * row_count));
          ok = ds->values != NULL &&
               H5Dread (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ds->values) >= 0;
          if (!ok)
            g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_IO,
                         _("%s: dataset '%s' could not be read"), path, name);
        }
    }
  H5Sclose (space);
  H5Tclose (type);
  H5Dclose (dset);
  return ok;
}

/* Load file number FILE_INDEX (into the file list) for every top. */
static gboolean
load_file (CtHdf5DataLayer *self, guint file_index, GPtrArray *top, gboolean set_shape,
           GError **error)
{
  const char *path = self->files[file_index];
  CtLayer *layer = &self->parent;
  hid_t file;
  gboolean ok = TRUE;

  clear_datasets (self);
  ct_hdf5_lock ();
  file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    {
      ct_hdf5_unlock ();
      g_set_error (error, CT_DATA_ERROR,
                   g_file_test (path, G_FILE_TEST_EXISTS) ? CT_DATA_ERROR_CORRUPT
                                                          : CT_DATA_ERROR_NOT_FOUND,
                   g_file_test (path, G_FILE_TEST_EXISTS) ? _("%s: not an HDF5 file")
                                                          : _("%s: no such file"), path);
      return FALSE;
    }
  for (guint j = 0; ok && j < top->len; j++)
    ok = read_dataset (self, file, path, layer->param->top[j], CT_TOP (top, j), set_shape,
                       &self->datasets[j], error);
  H5Fclose (file);
  ct_hdf5_unlock ();
  for (guint j = 1; ok && j < top->len; j++)
    if (self->datasets[j].rows != self->datasets[0].rows)
      {
        g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                     g_dngettext (GETTEXT_PACKAGE,
                                  "%s: dataset '%s' has %" PRId64 " row but '%s' has %" PRId64,
                                  "%s: dataset '%s' has %" PRId64 " rows but '%s' has %"
                                  PRId64, self->datasets[j].rows),
                     path, layer->param->top[j], self->datasets[j].rows,
                     layer->param->top[0], self->datasets[0].rows);
        ok = FALSE;
      }
  if (!ok)
    return FALSE;

  self->rows = self->datasets[0].rows;
  g_free (self->row_order);
  self->row_order = g_new (guint, self->rows);
  for (gint64 r = 0; r < self->rows; r++)
    self->row_order[r] = (guint) r;
  if (self->shuffle)
    shuffle (self->row_order, (gsize) self->rows, self->rng);
  return TRUE;
}

static gboolean
read_file_list (CtHdf5DataLayer *self, GError **error)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) local = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);

  if (!g_file_get_contents (self->source, &contents, NULL, &local))
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_INVALID,
                          _("cannot read the list of HDF5 files: %s"), local->message);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      if (*line != '\0')
        g_ptr_array_add (files, g_strdup (line));
    }
  if (files->len == 0)
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_INVALID,
                          _("%s: the list names no HDF5 file"), self->source);
  self->n_files = files->len;
  g_ptr_array_add (files, NULL);
  self->files = (char **) g_ptr_array_free (g_steal_pointer (&files), FALSE);
  return TRUE;
}

static gboolean
hdf5_data_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtHdf5DataLayer *self = (CtHdf5DataLayer *) layer;
  const Caffe__HDF5DataParameter *p = layer->param->hdf5_data_param;
  g_autoptr (GError) local = NULL;

  if (p == NULL || p->source == NULL || *p->source == '\0')
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("hdf5_data_param.source names no file list"));
  if (p->batch_size == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("hdf5_data_param.batch_size must be positive"));
  self->source = g_strdup (p->source);
  self->batch_size = p->batch_size;
  self->shuffle = p->shuffle;
  self->rng = ct_rng_new (layer->seed);
  if (!read_file_list (self, error))
    return FALSE;
  self->file_order = g_new (guint, self->n_files);
  for (guint f = 0; f < self->n_files; f++)
    self->file_order[f] = f;
  if (self->shuffle)
    shuffle (self->file_order, self->n_files, self->rng);
  self->datasets = g_new0 (Dataset, top->len);
  self->n_datasets = top->len;
  if (!load_file (self, self->file_order[0], top, TRUE, &local))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, "%s", local->message);
  return TRUE;
}

static gboolean
hdf5_data_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return TRUE;
}

/* Move to the next row, loading the next file at the end of this one. */
static gboolean
next_row (CtHdf5DataLayer *self, GPtrArray *top, GError **error)
{
  if (++self->current_row < self->rows)
    return TRUE;
  if (self->n_files > 1)
    {
      if (++self->current_file == self->n_files)
        {
          self->current_file = 0;
          if (self->shuffle)
            shuffle (self->file_order, self->n_files, self->rng);
        }
      if (!load_file (self, self->file_order[self->current_file], top, FALSE, error))
        return FALSE;
    }
  else if (self->shuffle)
    shuffle (self->row_order, (gsize) self->rows, self->rng);
  self->current_row = 0;
  return TRUE;
}

static gboolean
hdf5_data_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  CtHdf5DataLayer *self = (CtHdf5DataLayer *) layer;
  g_autoptr (GError) local = NULL;

  if (self->failure != NULL)
    {
      g_propagate_error (error, g_error_copy (self->failure));
      return FALSE;
    }
  for (guint i = 0; i < self->batch_size; i++)
    {
      for (guint j = 0; j < top->len; j++)
        {
          CtBlob *blob = CT_TOP (top, j);
          gsize row = (gsize) (ct_blob_count (blob) / self->batch_size);
          float *out = ct_blob_mutable_cpu_data (blob, &local);

          if (out == NULL)
            return ct_layer_fail (layer, error, CT_ENGINE_ERROR_OUT_OF_MEMORY, "%s",
                                  local->message);
          memcpy (out + i * row, self->datasets[j].values +
                                   (gsize) self->row_order[self->current_row] * row,
                  row * sizeof (float));
        }
      if (!next_row (self, top, &local))
        {
          ct_layer_fail (layer, &self->failure, CT_ENGINE_ERROR_INVALID, "%s", local->message);
          g_propagate_error (error, g_error_copy (self->failure));
          return FALSE;
        }
    }
  return TRUE;
}

static void
hdf5_data_finalize (CtLayer *layer)
{
  CtHdf5DataLayer *self = (CtHdf5DataLayer *) layer;

  clear_datasets (self);
  g_clear_pointer (&self->datasets, g_free);
  g_clear_pointer (&self->files, g_strfreev);
  g_clear_pointer (&self->file_order, g_free);
  g_clear_pointer (&self->row_order, g_free);
  g_clear_pointer (&self->source, g_free);
  g_clear_pointer (&self->rng, ct_rng_free);
  g_clear_error (&self->failure);
}

/* Where the text gives the batch size (for the editor and the runner). */
static guint32 *
hdf5_data_batch_size (Caffe__LayerParameter *param)
{
  return param->hdf5_data_param != NULL ? &param->hdf5_data_param->batch_size : NULL;
}

static const CtLayerExplanation hdf5_data_explanation = {
  .summary = N_("Reads rows of the datasets of HDF5 files, one top per dataset name, for "
                "data that are not images (features, targets of a regression)."),
  .formula = N_("top[k][n] = row n of dataset k"),
  .parameters = N_("source: a text file listing HDF5 files; batch_size; shuffle."),
  .gradient = N_("Data is given, not learned: no diff is computed for it."),
};

const CtLayerClass ct_hdf5_data_layer_class = {
  .explanation = &hdf5_data_explanation,
  .type = "HDF5Data",
  .family = CT_LAYER_FAMILY_DATA,
  .description = N_("Batches of rows from the datasets of HDF5 files"),
  .instance_size = sizeof (CtHdf5DataLayer),
  .bottoms = CT_EXACTLY (0),
  .tops = CT_AT_LEAST (1),
  .setup = hdf5_data_setup,
  .reshape = hdf5_data_reshape,
  .forward = hdf5_data_forward,
  .finalize = hdf5_data_finalize,
  .new_layer_text = "hdf5_data_param { source: \"hdf5_files.txt\" batch_size: 64 }",
  .param_field = "hdf5_data_param",
  .is_data_source = TRUE,
  .reads_files = TRUE,
  .batch_size = hdf5_data_batch_size,
};
