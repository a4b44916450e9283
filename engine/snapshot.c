/* snapshot.c: caffemodel and solverstate files in Caffe's binary and HDF5
 * formats (see snapshot.h).
 *
 * HDF5 files are built in memory with HDF5's core driver and then saved
 * with ct_file_write_atomic, which gives them the same all-or-nothing
 * writes as the binary files. HDF5's own error printing is switched off
 * around every call: failures come back as GErrors naming the file and the
 * dataset. */
#include <string.h>
#include <glib/gi18n-lib.h>
#include <hdf5.h>

#include "atomic-write.h"
#include "binary-io.h"
#include "engine-error.h"
#include "error-place.h"
#include "snapshot.h"

/* ---- names ---- */

static const char *
format_suffix (CtSnapshotFormat format)
{
  return format == CAFFE__SOLVER_PARAMETER__SNAPSHOT_FORMAT__HDF5 ? ".h5" : "";
}

char *
ct_snapshot_model_filename (const char *prefix, int iter, CtSnapshotFormat format)
{
  return g_strdup_printf ("%s_iter_%d.caffemodel%s", prefix != NULL ? prefix : "", iter,
                          format_suffix (format));
}

char *
ct_snapshot_state_filename (const char *prefix, int iter, CtSnapshotFormat format)
{
  return g_strdup_printf ("%s_iter_%d.solverstate%s", prefix != NULL ? prefix : "", iter,
                          format_suffix (format));
}

gboolean
ct_snapshot_path_is_hdf5 (const char *path)
{
  return g_str_has_suffix (path, ".h5");
}

void
ct_solver_state_free (CtSolverState *state)
{
  if (state == NULL)
    return;
  g_free (state->learned_net);
  g_clear_pointer (&state->history, g_ptr_array_unref);
  g_free (state);
}

static CtSolverState *
solver_state_new (void)
{
  CtSolverState *state = g_new0 (CtSolverState, 1);

  state->history = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  return state;
}

/* ---- HDF5 helpers ---- */

/* Silences HDF5's printing of error stacks while Cortado handles errors. */
typedef struct {
  H5E_auto2_t func;
  void *data;
} QuietHdf5;

static void
hdf5_quiet_begin (QuietHdf5 *q)
{
  H5Eget_auto2 (H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
}

static void
hdf5_quiet_end (QuietHdf5 *q)
{
  H5Eset_auto2 (H5E_DEFAULT, q->func, q->data);
}

static gboolean
hdf5_fail (GError **error, const char *path, const char *what)
{
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
               /* TRANSLATORS: the second %s says what failed, e.g. "dataset 'iter'" */
               _("%s: HDF5 could not read or write %s"), path, what);
  return FALSE;
}

/* A file in memory, saved by hdf5_memory_file_save. */
static hid_t
hdf5_memory_file_new (void)
{
  static gint counter;
  g_autofree char *name = g_strdup_printf ("cortado-snapshot-%d",
                                           g_atomic_int_add (&counter, 1));
  hid_t fapl = H5Pcreate (H5P_FILE_ACCESS);
  hid_t file;

  if (fapl < 0)
    return -1;
  /* grow by 1 MiB; nothing is ever written to disk by HDF5 itself */
  if (H5Pset_fapl_core (fapl, 1 << 20, 0) < 0)
    {
      H5Pclose (fapl);
      return -1;
    }
  file = H5Fcreate (name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose (fapl);
  return file;
}

static gboolean
hdf5_memory_file_save (hid_t file, const char *path, GError **error)
{
  g_autofree guint8 *image = NULL;
  ssize_t size;

  if (H5Fflush (file, H5F_SCOPE_GLOBAL) < 0 || (size = H5Fget_file_image (file, NULL, 0)) < 0)
    return hdf5_fail (error, path, _("the file image"));
  image = g_malloc ((gsize) size);
  if (H5Fget_file_image (file, image, (size_t) size) != size)
    return hdf5_fail (error, path, _("the file image"));
  return ct_file_write_atomic (path, image, (gsize) size, error);
}

/* Create group NAME in LOC, with intermediate groups for names that hold
 * '/' (HDF5 reads them as paths). */
static hid_t
hdf5_group_create (hid_t loc, const char *name)
{
  hid_t lcpl = H5Pcreate (H5P_LINK_CREATE);
  hid_t group;

  if (lcpl < 0)
    return -1;
  H5Pset_create_intermediate_group (lcpl, 1);
  group = H5Gcreate2 (loc, name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  H5Pclose (lcpl);
  return group;
}

static gboolean
hdf5_link_exists (hid_t loc, const char *name)
{
  /* a missing intermediate group makes H5Lexists fail rather than say no */
  return H5Lexists (loc, name, H5P_DEFAULT) > 0;
}

static gboolean
hdf5_write_floats (hid_t loc, const char *name, const gint64 *shape, guint n_axes,
                   const float *values)
{
  hsize_t dims[CT_BLOB_MAX_AXES];
  hid_t space, dataset;
  herr_t status;

  for (guint i = 0; i < n_axes; i++)
    dims[i] = (hsize_t) shape[i];
  space = n_axes > 0 ? H5Screate_simple ((int) n_axes, dims, NULL) : H5Screate (H5S_SCALAR);
  if (space < 0)
    return FALSE;
  dataset = H5Dcreate2 (loc, name, H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT);
  H5Sclose (space);
  if (dataset < 0)
    return FALSE;
  status = H5Dwrite (dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  H5Dclose (dataset);
  return status >= 0;
}

static gboolean
hdf5_write_blob (hid_t loc, const char *name, CtBlob *blob, gboolean diff, GError **error)
{
  const float *values = diff ? ct_blob_cpu_diff (blob, error) : ct_blob_cpu_data (blob, error);

  if (values == NULL)
    return FALSE;
  if (!hdf5_write_floats (loc, name, ct_blob_get_shape (blob), ct_blob_num_axes (blob), values))
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("HDF5 could not write dataset '%s'"), name);
      return FALSE;
    }
  return TRUE;
}

/* Caffe writes integers as one-element rank-1 datasets. */
static gboolean
hdf5_write_int (hid_t loc, const char *name, int value)
{
  hsize_t one = 1;
  hid_t space = H5Screate_simple (1, &one, NULL);
  hid_t dataset;
  herr_t status;

  if (space < 0)
    return FALSE;
  dataset = H5Dcreate2 (loc, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT);
  H5Sclose (space);
  if (dataset < 0)
    return FALSE;
  status = H5Dwrite (dataset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value);
  H5Dclose (dataset);
  return status >= 0;
}

/* A scalar fixed-length, NUL-terminated string, as Caffe writes one. */
static gboolean
hdf5_write_string (hid_t loc, const char *name, const char *value)
{
  hid_t type = H5Tcopy (H5T_C_S1);
  hid_t space, dataset = -1;
  herr_t status = -1;

  if (type < 0)
    return FALSE;
  space = H5Screate (H5S_SCALAR);
  if (space >= 0 && H5Tset_size (type, strlen (value) + 1) >= 0 &&
      H5Tset_strpad (type, H5T_STR_NULLTERM) >= 0)
    dataset = H5Dcreate2 (loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (dataset >= 0)
    status = H5Dwrite (dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, value);
  if (dataset >= 0)
    H5Dclose (dataset);
  if (space >= 0)
    H5Sclose (space);
  H5Tclose (type);
  return status >= 0;
}

/* Read dataset NAME of LOC into BLOB: reshaped to the stored shape with
 * RESHAPE, else the shapes must be equal. WHAT names the dataset in errors. */
static gboolean
hdf5_read_blob (hid_t loc, const char *name, CtBlob *blob, gboolean reshape,
                const char *path, const char *what, GError **error)
{
  hid_t dataset = H5Dopen2 (loc, name, H5P_DEFAULT);
  hid_t space = dataset >= 0 ? H5Dget_space (dataset) : -1;
  hid_t type = dataset >= 0 ? H5Dget_type (dataset) : -1;
  hsize_t dims[CT_BLOB_MAX_AXES];
  gint64 shape[CT_BLOB_MAX_AXES];
  int n_axes = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
  H5T_class_t klass = type >= 0 ? H5Tget_class (type) : H5T_NO_CLASS;
  gboolean ok = FALSE;
  float *values;

  if (n_axes < 0 || n_axes > CT_BLOB_MAX_AXES ||
      (klass != H5T_FLOAT && klass != H5T_INTEGER) ||
      H5Sget_simple_extent_dims (space, dims, NULL) < 0)
    {
      hdf5_fail (error, path, what);
      goto out;
    }
  for (int i = 0; i < n_axes; i++)
    shape[i] = (gint64) dims[i];
  if (reshape)
    {
      if (!ct_blob_reshape (blob, shape, (guint) n_axes, error))
        goto out;
    }
  else if ((guint) n_axes != ct_blob_num_axes (blob) ||
           memcmp (shape, ct_blob_get_shape (blob), sizeof (gint64) * (gsize) n_axes) != 0)
    {
      g_autoptr (CtBlob) stored = ct_blob_new ();
      g_autofree char *have = NULL;
      g_autofree char *want = ct_blob_shape_string (blob);

      ct_blob_reshape (stored, shape, (guint) n_axes, NULL);
      have = ct_blob_shape_string (stored);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   _("%s: %s has shape %s, but the net's blob has shape %s"),
                   path, what, have, want);
      goto out;
    }
  values = ct_blob_mutable_cpu_data (blob, error);
  if (values == NULL)
    goto out;
  if (ct_blob_count (blob) > 0 &&
      H5Dread (dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
    {
      hdf5_fail (error, path, what);
      goto out;
    }
  ok = TRUE;
out:
  if (type >= 0)
    H5Tclose (type);
  if (space >= 0)
    H5Sclose (space);
  if (dataset >= 0)
    H5Dclose (dataset);
  return ok;
}

static gboolean
hdf5_read_int (hid_t loc, const char *name, int *value)
{
  hid_t dataset = H5Dopen2 (loc, name, H5P_DEFAULT);
  hid_t space = dataset >= 0 ? H5Dget_space (dataset) : -1;
  gboolean ok = space >= 0 && H5Sget_simple_extent_npoints (space) == 1 &&
                H5Dread (dataset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, value) >= 0;

  if (space >= 0)
    H5Sclose (space);
  if (dataset >= 0)
    H5Dclose (dataset);
  return ok;
}

static char *
hdf5_read_string (hid_t loc, const char *name)
{
  hid_t dataset = H5Dopen2 (loc, name, H5P_DEFAULT);
  hid_t type = dataset >= 0 ? H5Dget_type (dataset) : -1;
  hid_t mem_type = -1;
  char *value = NULL;

  if (type < 0 || H5Tget_class (type) != H5T_STRING)
    goto out;
  mem_type = H5Tcopy (H5T_C_S1);
  if (H5Tis_variable_str (type) > 0)
    {
      char *vlen = NULL;

      if (H5Tset_size (mem_type, H5T_VARIABLE) >= 0 &&
          H5Dread (dataset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &vlen) >= 0 &&
          vlen != NULL)
        {
          value = g_strdup (vlen);
          H5free_memory (vlen);
        }
    }
  else
    {
      size_t size = H5Tget_size (type);
      g_autofree char *buf = g_malloc0 (size + 1);

      if (size > 0 && H5Tset_size (mem_type, size + 1) >= 0 &&
          H5Dread (dataset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
        value = g_steal_pointer (&buf);
    }
out:
  if (mem_type >= 0)
    H5Tclose (mem_type);
  if (type >= 0)
    H5Tclose (type);
  if (dataset >= 0)
    H5Dclose (dataset);
  return value;
}

static guint
hdf5_count_links (hid_t group)
{
  H5G_info_t info;

  return H5Gget_info (group, &info) >= 0 ? (guint) info.nlinks : 0;
}

/* ---- models ---- */

/* The net param of LAYER_INDEX's parameter PARAM_INDEX, or -1. */
static int
net_param_id (CtNet *net, guint layer_index, guint param_index)
{
  for (guint id = 0; id < ct_net_n_params (net); id++)
    {
      guint l, p;

      ct_net_get_param_location (net, id, &l, &p);
      if (l == layer_index && p == param_index)
        return (int) id;
    }
  return -1;
}

static gboolean
hdf5_write_layer (CtNet *net, guint layer_index, hid_t data, hid_t diff, GError **error)
{
  CtLayer *layer = ct_net_get_layer (net, layer_index);
  const char *name = ct_layer_get_name (layer);
  hid_t data_group = -1, diff_group = -1;
  gboolean ok = FALSE;

  if (hdf5_link_exists (data, name))
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("two layers are named '%s': an HDF5 snapshot needs distinct layer names"),
                   name);
      return FALSE;
    }
  data_group = hdf5_group_create (data, name);
  if (data_group < 0 || (diff >= 0 && (diff_group = hdf5_group_create (diff, name)) < 0))
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("HDF5 could not create the group of layer '%s'"), name);
      goto out;
    }
  for (guint j = 0; j < layer->blobs->len; j++)
    {
      char dataset[16];
      int id = net_param_id (net, layer_index, j);

      g_snprintf (dataset, sizeof dataset, "%u", j);
      /* a shared parameter is stored once, by its owner; diffs always */
      if (id >= 0 && ct_net_get_param_owner (net, (guint) id) < 0 &&
          !hdf5_write_blob (data_group, dataset, layer->blobs->pdata[j], FALSE, error))
        goto out;
      if (diff_group >= 0 &&
          !hdf5_write_blob (diff_group, dataset, layer->blobs->pdata[j], TRUE, error))
        goto out;
    }
  ok = TRUE;
out:
  if (diff_group >= 0)
    H5Gclose (diff_group);
  if (data_group >= 0)
    H5Gclose (data_group);
  return ok;
}

static gboolean
hdf5_write_model (CtNet *net, const char *path, gboolean write_diff, GError **error)
{
  g_autoptr (GError) local = NULL;
  hid_t file = hdf5_memory_file_new ();
  hid_t data = -1, diff = -1;
  gboolean ok = FALSE;

  if (file < 0 || (data = hdf5_group_create (file, "data")) < 0 ||
      (write_diff && (diff = hdf5_group_create (file, "diff")) < 0))
    {
      hdf5_fail (&local, path, _("the groups 'data' and 'diff'"));
      goto out;
    }
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    if (!hdf5_write_layer (net, i, data, diff, &local))
      goto out;
  H5Gclose (data);
  data = -1;
  if (diff >= 0)
    H5Gclose (diff);
  diff = -1;
  ok = hdf5_memory_file_save (file, path, &local);
out:
  if (diff >= 0)
    H5Gclose (diff);
  if (data >= 0)
    H5Gclose (data);
  if (file >= 0)
    H5Fclose (file);
  if (!ok)
    {
      if (g_str_has_prefix (local->message, path))
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
    }
  return ok;
}

gboolean
ct_snapshot_write_model (CtNet *net, const char *path, CtSnapshotFormat format,
                         gboolean write_diff, GError **error)
{
  QuietHdf5 quiet;
  gboolean ok;

  if (format != CAFFE__SOLVER_PARAMETER__SNAPSHOT_FORMAT__HDF5)
    return ct_net_write_caffemodel (net, path, write_diff, error);
  hdf5_quiet_begin (&quiet);
  ok = hdf5_write_model (net, path, write_diff, error);
  hdf5_quiet_end (&quiet);
  return ok;
}

/* Caffe's CopyTrainedLayersFromHDF5 for one layer of the net. */
static gboolean
hdf5_read_layer (CtNet *net, guint layer_index, hid_t data, const char *path, GError **error)
{
  CtLayer *layer = ct_net_get_layer (net, layer_index);
  const char *name = ct_layer_get_name (layer);
  hid_t group;
  guint n_stored;
  gboolean ok = TRUE;

  if (!hdf5_link_exists (data, name))
    return TRUE;
  group = H5Gopen2 (data, name, H5P_DEFAULT);
  if (group < 0)
    {
      g_autofree char *what = g_strdup_printf (_("the group of layer '%s'"), name);
      return hdf5_fail (error, path, what);
    }
  n_stored = hdf5_count_links (group);
  if (n_stored > layer->blobs->len)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "%s: layer '%s' has %u parameter blob in the file, but %u in the net",
                                "%s: layer '%s' has %u parameter blobs in the file, but %u in the net",
                                n_stored),
                   path, name, n_stored, layer->blobs->len);
      ct_error_set_place (error, name, NULL);
      ok = FALSE;
    }
  for (guint j = 0; ok && j < layer->blobs->len; j++)
    {
      char dataset[16];
      g_autofree char *what = NULL;
      int id = net_param_id (net, layer_index, j);

      g_snprintf (dataset, sizeof dataset, "%u", j);
      if (!hdf5_link_exists (group, dataset))
        {
          /* a shared parameter may be missing: its owner brings it */
          if (id >= 0 && ct_net_get_param_owner (net, (guint) id) >= 0)
            continue;
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                       _("%s: layer '%s' lacks parameter blob %u (the net has %u)"),
                       path, name, j, layer->blobs->len);
          ct_error_set_place (error, name, NULL);
          ok = FALSE;
          break;
        }
      what = g_strdup_printf (_("parameter blob %u of layer '%s'"), j, name);
      ok = hdf5_read_blob (group, dataset, layer->blobs->pdata[j], FALSE, path, what, error);
    }
  H5Gclose (group);
  return ok;
}

static gboolean
hdf5_read_model (CtNet *net, const char *path, GError **error)
{
  hid_t file, data;
  gboolean ok = TRUE;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                   _("%s: no such file"), path);
      return FALSE;
    }
  file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("%s: not an HDF5 file"), path);
      return FALSE;
    }
  data = H5Gopen2 (file, "data", H5P_DEFAULT);
  if (data < 0)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("%s: not an HDF5 caffemodel: it has no group 'data'"), path);
      H5Fclose (file);
      return FALSE;
    }
  for (guint i = 0; ok && i < ct_net_n_layers (net); i++)
    ok = hdf5_read_layer (net, i, data, path, error);
  H5Gclose (data);
  H5Fclose (file);
  return ok;
}

gboolean
ct_snapshot_load_weights (CtNet *net, const char *path, GError **error)
{
  QuietHdf5 quiet;
  gboolean ok;

  if (!ct_snapshot_path_is_hdf5 (path))
    return ct_net_copy_trained_layers_from_file (net, path, error);
  hdf5_quiet_begin (&quiet);
  ok = hdf5_read_model (net, path, error);
  hdf5_quiet_end (&quiet);
  return ok;
}

gboolean
ct_snapshot_load_weights_list (CtNet *net, const char *list, GError **error)
{
  g_auto (GStrv) files = g_strsplit (list, ",", -1);

  for (char **f = files; *f != NULL; f++)
    if (**f != '\0' && !ct_snapshot_load_weights (net, *f, error))
      return FALSE;
  return TRUE;
}

/* ---- solver states ---- */

static gboolean
binary_write_state (const char *path, int iter, const char *learned_net, int current_step,
                    GPtrArray *history, GError **error)
{
  Caffe__SolverState *state = g_new0 (Caffe__SolverState, 1);
  gboolean ok = TRUE;

  caffe__solver_state__init (state);
  state->has_iter = TRUE;
  state->iter = iter;
  state->learned_net = learned_net != NULL ? g_strdup (learned_net) : NULL;
  state->has_current_step = TRUE;
  state->current_step = current_step;
  state->history = g_new0 (Caffe__BlobProto *, MAX (history->len, 1));
  for (guint i = 0; ok && i < history->len; i++)
    {
      state->history[i] = ct_blob_to_proto (history->pdata[i], CT_BLOB_PROTO_DEFAULT, error);
      ok = state->history[i] != NULL;
      state->n_history = i + ok;
    }
  ok = ok && ct_binary_write_file (&state->base, path, error);
  protobuf_c_message_free_unpacked (&state->base, NULL);
  return ok;
}

static gboolean
hdf5_write_state (const char *path, int iter, const char *learned_net, int current_step,
                  GPtrArray *history, GError **error)
{
  hid_t file = hdf5_memory_file_new ();
  hid_t group = -1;
  gboolean ok = FALSE;

  if (file < 0 || !hdf5_write_int (file, "iter", iter) ||
      !hdf5_write_string (file, "learned_net", learned_net != NULL ? learned_net : "") ||
      !hdf5_write_int (file, "current_step", current_step) ||
      (group = hdf5_group_create (file, "history")) < 0)
    {
      hdf5_fail (error, path, _("the solver state"));
      goto out;
    }
  for (guint i = 0; i < history->len; i++)
    {
      char name[16];

      g_snprintf (name, sizeof name, "%u", i);
      if (!hdf5_write_blob (group, name, history->pdata[i], FALSE, NULL))
        {
          hdf5_fail (error, path, _("the solver history"));
          goto out;
        }
    }
  H5Gclose (group);
  group = -1;
  ok = hdf5_memory_file_save (file, path, error);
out:
  if (group >= 0)
    H5Gclose (group);
  if (file >= 0)
    H5Fclose (file);
  return ok;
}

gboolean
ct_solver_state_write (const char *path, CtSnapshotFormat format, int iter,
                       const char *learned_net, int current_step, GPtrArray *history,
                       GError **error)
{
  QuietHdf5 quiet;
  gboolean ok;

  if (format != CAFFE__SOLVER_PARAMETER__SNAPSHOT_FORMAT__HDF5)
    return binary_write_state (path, iter, learned_net, current_step, history, error);
  hdf5_quiet_begin (&quiet);
  ok = hdf5_write_state (path, iter, learned_net, current_step, history, error);
  hdf5_quiet_end (&quiet);
  return ok;
}

static CtSolverState *
binary_read_state (const char *path, GError **error)
{
  g_autoptr (CtSolverState) state = solver_state_new ();
  Caffe__SolverState *msg;
  gboolean ok = TRUE;

  msg = (Caffe__SolverState *) ct_binary_read_file (&caffe__solver_state__descriptor, path,
                                                    error);
  if (msg == NULL)
    return NULL;
  state->iter = msg->iter;
  state->learned_net = msg->learned_net != NULL && msg->learned_net[0] != '\0'
                       ? g_strdup (msg->learned_net) : NULL;
  state->current_step = msg->current_step;
  for (gsize i = 0; ok && i < msg->n_history; i++)
    {
      g_autoptr (CtBlob) blob = ct_blob_new ();
      g_autoptr (GError) local = NULL;

      ok = ct_blob_from_proto (blob, msg->history[i], TRUE, &local);
      if (!ok)
        g_set_error (error, local->domain, local->code, _("%s: history blob %u: %s"),
                     path, (guint) i, local->message);
      else
        g_ptr_array_add (state->history, g_steal_pointer (&blob));
    }
  protobuf_c_message_free_unpacked (&msg->base, NULL);
  return ok ? g_steal_pointer (&state) : NULL;
}

static gboolean
hdf5_read_history (hid_t file, CtSolverState *state, const char *path, GError **error)
{
  hid_t group = H5Gopen2 (file, "history", H5P_DEFAULT);
  guint n;
  gboolean ok = TRUE;

  if (group < 0)
    return hdf5_fail (error, path, _("group 'history'"));
  n = hdf5_count_links (group);
  for (guint i = 0; ok && i < n; i++)
    {
      g_autoptr (CtBlob) blob = ct_blob_new ();
      g_autofree char *what = g_strdup_printf (_("history blob %u"), i);
      char name[16];

      g_snprintf (name, sizeof name, "%u", i);
      ok = hdf5_read_blob (group, name, blob, TRUE, path, what, error);
      if (ok)
        g_ptr_array_add (state->history, g_steal_pointer (&blob));
    }
  H5Gclose (group);
  return ok;
}

static CtSolverState *
hdf5_read_state (const char *path, GError **error)
{
  g_autoptr (CtSolverState) state = solver_state_new ();
  hid_t file;
  gboolean ok;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, _("%s: no such file"), path);
      return NULL;
    }
  file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("%s: not an HDF5 file"), path);
      return NULL;
    }
  ok = hdf5_read_int (file, "iter", &state->iter) || hdf5_fail (error, path, _("dataset 'iter'"));
  if (ok && hdf5_link_exists (file, "learned_net"))
    {
      state->learned_net = hdf5_read_string (file, "learned_net");
      ok = state->learned_net != NULL || hdf5_fail (error, path, _("dataset 'learned_net'"));
      if (ok && state->learned_net[0] == '\0')
        g_clear_pointer (&state->learned_net, g_free);
    }
  ok = ok && (hdf5_read_int (file, "current_step", &state->current_step) ||
              hdf5_fail (error, path, _("dataset 'current_step'")));
  ok = ok && hdf5_read_history (file, state, path, error);
  H5Fclose (file);
  return ok ? g_steal_pointer (&state) : NULL;
}

CtSolverState *
ct_solver_state_read (const char *path, GError **error)
{
  QuietHdf5 quiet;
  CtSolverState *state;

  if (!ct_snapshot_path_is_hdf5 (path))
    return binary_read_state (path, error);
  hdf5_quiet_begin (&quiet);
  state = hdf5_read_state (path, error);
  hdf5_quiet_end (&quiet);
  return state;
}
