/* hdf5-output.c: HDF5Output, writes its two bottoms to the HDF5 file
 * hdf5_output_param.file_name as the datasets "data" and "label", in the
 * legacy 4-D shape num×channels×height×width as Caffe writes them. The file
 * is created (replacing an old one) at the first forward, not at setup, so
 * that building a net to look at its shapes writes nothing; each later
 * forward appends its rows along the first axis, where Caffe could write
 * only once. Backward does nothing. */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "hdf5-private.h"
#include "layer.h"

typedef struct {
  CtLayer parent;
  char *file_name;
  hid_t file;
  gboolean has_file; /* FALSE until the first forward */
} CtHdf5OutputLayer;

static const char *const dataset_names[2] = { "data", "label" };

static gboolean
hdf5_output_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtHdf5OutputLayer *self = (CtHdf5OutputLayer *) layer;
  const Caffe__HDF5OutputParameter *p = layer->param->hdf5_output_param;

  if (p == NULL || p->file_name == NULL || *p->file_name == '\0')
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("hdf5_output_param.file_name names no file"));
  self->file_name = g_strdup (p->file_name);
  return TRUE;
}

static gboolean
hdf5_output_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  for (guint i = 0; i < 2; i++)
    if (ct_blob_num_axes (CT_BOTTOM (bottom, i)) > 4)
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("bottom %u has %u axes; HDF5Output writes at most 4"), i,
                            ct_blob_num_axes (CT_BOTTOM (bottom, i)));
  if (ct_blob_legacy_shape (CT_BOTTOM (bottom, 0), 0, NULL) !=
      ct_blob_legacy_shape (CT_BOTTOM (bottom, 1), 0, NULL))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the data and label bottoms have different numbers of rows "
                            "(%" PRId64 " and %" PRId64 ")"),
                          ct_blob_legacy_shape (CT_BOTTOM (bottom, 0), 0, NULL),
                          ct_blob_legacy_shape (CT_BOTTOM (bottom, 1), 0, NULL));
  return TRUE;
}

/* Append BLOB's rows to dataset NAME (made on first use); under the lock. */
static gboolean
append (CtHdf5OutputLayer *self, const char *name, CtBlob *blob, GError **error)
{
  hsize_t dims[4], old[4] = { 0 }, start[4] = { 0 };
  const float *data = ct_blob_cpu_data (blob, NULL);
  hid_t dset, space, mem;
  herr_t status = -1;

  for (int a = 0; a < 4; a++)
    dims[a] = (hsize_t) ct_blob_legacy_shape (blob, a, NULL);
  if (ct_blob_count (blob) == 0 || data == NULL)
    return TRUE;

  if (H5Lexists (self->file, name, H5P_DEFAULT) <= 0)
    {
      hsize_t max[4] = { H5S_UNLIMITED, dims[1], dims[2], dims[3] };
      hid_t plist = H5Pcreate (H5P_DATASET_CREATE);

      H5Pset_chunk (plist, 4, dims);
      space = H5Screate_simple (4, dims, max);
      dset = H5Dcreate2 (self->file, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, plist,
                         H5P_DEFAULT);
      if (dset >= 0)
        status = H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
      H5Sclose (space);
      H5Pclose (plist);
    }
  else
    {
      hsize_t grown[4];

      dset = H5Dopen2 (self->file, name, H5P_DEFAULT);
      space = H5Dget_space (dset);
      H5Sget_simple_extent_dims (space, old, NULL);
      H5Sclose (space);
      if (old[1] != dims[1] || old[2] != dims[2] || old[3] != dims[3])
        {
          H5Dclose (dset);
          return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_SHAPE,
                                _("%s: dataset '%s' holds rows of another shape than this "
                                  "forward's"), self->file_name, name);
        }
      memcpy (grown, dims, sizeof grown);
      grown[0] = old[0] + dims[0];
      start[0] = old[0];
      if (H5Dset_extent (dset, grown) >= 0)
        {
          space = H5Dget_space (dset);
          mem = H5Screate_simple (4, dims, NULL);
          H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, dims, NULL);
          status = H5Dwrite (dset, H5T_NATIVE_FLOAT, mem, space, H5P_DEFAULT, data);
          H5Sclose (mem);
          H5Sclose (space);
        }
    }
  if (dset >= 0)
    H5Dclose (dset);
  if (status < 0)
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_INVALID,
                          _("%s: could not write dataset '%s'"), self->file_name, name);
  return TRUE;
}

static gboolean
hdf5_output_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                     gboolean gpu, GError **error)
{
  CtHdf5OutputLayer *self = (CtHdf5OutputLayer *) layer;
  gboolean ok = TRUE;

  ct_hdf5_lock ();
  if (!self->has_file)
    {
      self->file = H5Fcreate (self->file_name, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      self->has_file = self->file >= 0;
    }
  if (!self->has_file)
    ok = ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                        _("%s: could not create the HDF5 file"), self->file_name);
  for (guint i = 0; ok && i < 2; i++)
    ok = append (self, dataset_names[i], CT_BOTTOM (bottom, i), error);
  if (ok)
    H5Fflush (self->file, H5F_SCOPE_GLOBAL);
  ct_hdf5_unlock ();
  return ok;
}

static gboolean
hdf5_output_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                      GPtrArray *bottom, gboolean gpu, GError **error)
{
  return TRUE;
}

static void
hdf5_output_finalize (CtLayer *layer)
{
  CtHdf5OutputLayer *self = (CtHdf5OutputLayer *) layer;

  if (self->has_file)
    {
      ct_hdf5_lock ();
      H5Fclose (self->file);
      ct_hdf5_unlock ();
      self->has_file = FALSE;
    }
  g_clear_pointer (&self->file_name, g_free);
}

static const CtLayerExplanation hdf5_output_explanation = {
  .summary = N_("Writes its bottoms (data and labels) to an HDF5 file, to keep what a net "
                "computed."),
  .formula = N_("file[data], file[label] = data, label"),
  .parameters = N_("hdf5_output_param.file_name: the file written."),
  .gradient = N_("It has no top and passes no diff back."),
};

const CtLayerClass ct_hdf5_output_layer_class = {
  .explanation = &hdf5_output_explanation,
  .type = "HDF5Output",
  .family = CT_LAYER_FAMILY_DATA,
  .description = N_("Writes its data and label bottoms to an HDF5 file"),
  .instance_size = sizeof (CtHdf5OutputLayer),
  .bottoms = CT_EXACTLY (2),
  .tops = CT_EXACTLY (0),
  .setup = hdf5_output_setup,
  .reshape = hdf5_output_reshape,
  .forward = hdf5_output_forward,
  .backward = hdf5_output_backward,
  .finalize = hdf5_output_finalize,
  .param_field = "hdf5_output_param",
};
