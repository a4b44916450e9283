/* test-solver-snapshot.c: snapshots and resuming. File names and the
 * default snapshot_prefix; solverstate and caffemodel round trips in the
 * binary and HDF5 formats (Caffe's trained LeNet through HDF5 and back);
 * a solverstate with legacy 4-D history shapes; resuming at iteration 5 of
 * 10 reaching bit for bit the weights and history of the uninterrupted run
 * (SGD, Nesterov, AdaGrad, RMSProp, AdaDelta and Adam, both formats);
 * and states that do not fit
 * or are not states at all. Saves that fail midway (a file size limit
 * stops the write after the temporary file exists) leave the old
 * caffemodel or solverstate as it was, in both formats. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <glib/gstdio.h>
#include <hdf5.h>

#include "binary-io.h"
#include "snapshot.h"
#include "test-solver-common.h"
#include "text-format.h"

#define HDF5_FORMAT CAFFE__SOLVER_PARAMETER__SNAPSHOT_FORMAT__HDF5
#define BINARY_FORMAT CAFFE__SOLVER_PARAMETER__SNAPSHOT_FORMAT__BINARYPROTO

#define REGRESSION_NET REGRESSION_NET_BASE "random_seed: 5 "
#define REGRESSION_NET_BASE \
  "net_param { name: 'reg' " \
  "  layer { name: 'in' type: 'Input' top: 'x' top: 'y' " \
  "          input_param { shape { dim: 16 dim: 8 } shape { dim: 16 dim: 3 } } } " \
  "  layer { name: 'fc1' type: 'InnerProduct' bottom: 'x' top: 'h' " \
  "          inner_product_param { num_output: 6 " \
  "            weight_filler { type: 'xavier' } bias_filler { type: 'constant' value: 0.1 } } } " \
  "  layer { name: 'relu' type: 'ReLU' bottom: 'h' top: 'h' } " \
  "  layer { name: 'fc2' type: 'InnerProduct' bottom: 'h' top: 'p' " \
  "          inner_product_param { num_output: 3 weight_filler { type: 'gaussian' std: 0.2 } } } " \
  "  layer { name: 'loss' type: 'EuclideanLoss' bottom: 'p' bottom: 'y' top: 'loss' } " \
  "} " \
  "base_lr: 0.01 weight_decay: 0.0005 max_iter: 10 display: 0 "

static void
test_names (void)
{
  g_autofree char *a = ct_snapshot_model_filename ("out/lenet", 100, BINARY_FORMAT);
  g_autofree char *b = ct_snapshot_state_filename ("out/lenet", 100, BINARY_FORMAT);
  g_autofree char *c = ct_snapshot_model_filename ("out/lenet", 5000, HDF5_FORMAT);
  g_autofree char *d = ct_snapshot_state_filename ("out/lenet", 5000, HDF5_FORMAT);

  g_assert_cmpstr (a, ==, "out/lenet_iter_100.caffemodel");
  g_assert_cmpstr (b, ==, "out/lenet_iter_100.solverstate");
  g_assert_cmpstr (c, ==, "out/lenet_iter_5000.caffemodel.h5");
  g_assert_cmpstr (d, ==, "out/lenet_iter_5000.solverstate.h5");
  g_assert_true (ct_snapshot_path_is_hdf5 (c));
  g_assert_false (ct_snapshot_path_is_hdf5 (a));
}

static void
test_default_prefix (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *path = g_build_filename (dir, "my_solver.prototxt", NULL);
  g_autofree char *want = g_build_filename (dir, "my_solver", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param;

  g_assert_true (g_file_set_contents (path, "net: 'x.prototxt'\nbase_lr: 0.1\n", -1, NULL));
  param = ct_solver_param_load_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (param->snapshot_prefix, ==, want);
  protobuf_c_message_free_unpacked (&param->base, NULL);

  /* a prefix naming a folder gets the solver file's stem */
  text = g_strdup_printf ("net: 'x.prototxt'\nsnapshot_prefix: '%s'\n", dir);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  param = ct_solver_param_load_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (param->snapshot_prefix, ==, want);
  protobuf_c_message_free_unpacked (&param->base, NULL);

  /* the legacy solver_type enum becomes the type string */
  g_assert_true (g_file_set_contents (path, "net: 'x.prototxt'\nsolver_type: NESTEROV\n", -1,
                                      NULL));
  param = ct_solver_param_load_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (param->type, ==, "Nesterov");
  protobuf_c_message_free_unpacked (&param->base, NULL);
  ct_test_remove_tree (dir);
}

static void
check_dims (hid_t file, const char *name, int rank, const hsize_t *want)
{
  hid_t dataset = H5Dopen2 (file, name, H5P_DEFAULT);
  hid_t space = H5Dget_space (dataset);
  hsize_t dims[8];

  g_assert_cmpint (dataset, >=, 0);
  g_assert_cmpint (H5Sget_simple_extent_ndims (space), ==, rank);
  H5Sget_simple_extent_dims (space, dims, NULL);
  g_assert_cmpmem (dims, sizeof (hsize_t) * (gsize) rank, want, sizeof (hsize_t) * (gsize) rank);
  H5Sclose (space);
  H5Dclose (dataset);
}

/* Caffe's layout: data/LAYER/INDEX datasets shaped as the blobs. */
static void
check_hdf5_layout (const char *path)
{
  const hsize_t conv1[] = { 20, 1, 5, 5 }, ip2_bias[] = { 10 };
  hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  H5G_info_t info;
  hid_t group;

  g_assert_cmpint (file, >=, 0);
  check_dims (file, "data/conv1/0", 4, conv1);
  check_dims (file, "data/ip2/1", 1, ip2_bias);
  /* every layer has a group, parameters or not */
  g_assert_cmpint (H5Lexists (file, "data/pool1", H5P_DEFAULT), >, 0);
  group = H5Gopen2 (file, "data/relu1", H5P_DEFAULT);
  g_assert_cmpint (group, >=, 0);
  H5Gget_info (group, &info);
  g_assert_cmpuint (info.nlinks, ==, 0);
  H5Gclose (group);
  g_assert_cmpint (H5Lexists (file, "diff", H5P_DEFAULT), ==, 0);
  H5Fclose (file);
}

static CtBlob *
blob_with (const gint64 *dims, guint n_axes, float start)
{
  CtBlob *blob = ct_blob_new_with_shape (dims, n_axes, NULL);
  float *data = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    data[i] = start + 0.25f * (float) i;
  return blob;
}

static void
check_state_round_trip (CtSnapshotFormat format, const char *name)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GPtrArray) history = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (CtSolverState) state = NULL;
  g_autoptr (GError) error = NULL;
  const gint64 a[] = { 2, 3 }, b[] = { 4 };

  g_ptr_array_add (history, blob_with (a, 2, -1.0f));
  g_ptr_array_add (history, blob_with (b, 1, 7.5f));
  g_assert_true (ct_solver_state_write (path, format, 1234, "x_iter_1234.caffemodel", 3,
                                        history, &error));
  g_assert_no_error (error);
  state = ct_solver_state_read (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (state->iter, ==, 1234);
  if (format == HDF5_FORMAT)
    {
      const hsize_t one[] = { 1 }, shape0[] = { 2, 3 };
      hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);

      /* Caffe's layout: one-element integers, a string, a history group */
      check_dims (file, "iter", 1, one);
      check_dims (file, "current_step", 1, one);
      check_dims (file, "history/0", 2, shape0);
      g_assert_cmpint (H5Lexists (file, "learned_net", H5P_DEFAULT), >, 0);
      H5Fclose (file);
    }
  g_assert_cmpint (state->current_step, ==, 3);
  g_assert_cmpstr (state->learned_net, ==, "x_iter_1234.caffemodel");
  g_assert_cmpuint (state->history->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      CtBlob *x = history->pdata[i], *y = state->history->pdata[i];

      g_assert_cmpuint (ct_blob_num_axes (x), ==, ct_blob_num_axes (y));
      g_assert_cmpmem (ct_blob_get_shape (x), sizeof (gint64) * ct_blob_num_axes (x),
                       ct_blob_get_shape (y), sizeof (gint64) * ct_blob_num_axes (y));
      g_assert_cmpmem (ct_blob_cpu_data (x, NULL), sizeof (float) * ct_blob_count (x),
                       ct_blob_cpu_data (y, NULL), sizeof (float) * ct_blob_count (y));
    }
  ct_test_remove_tree (dir);
}

static void
test_state_round_trip (void)
{
  check_state_round_trip (BINARY_FORMAT, "s.solverstate");
  check_state_round_trip (HDF5_FORMAT, "s.solverstate.h5");
}

static void
check_model_round_trip (CtSnapshotFormat format, const char *name)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (CtSolver) trained = ct_test_solver_new_ok (REGRESSION_NET "lr_policy: 'fixed'");
  g_autoptr (CtSolver) fresh = ct_test_solver_new_ok (REGRESSION_NET_BASE "lr_policy: 'fixed' "
                                                      "random_seed: 6");
  g_autoptr (GError) error = NULL;

  ct_test_solver_feed_inputs (trained);
  g_assert_true (ct_solver_step (trained, 3, &error));
  g_assert_false (ct_test_same_weights (ct_solver_get_net (trained), ct_solver_get_net (fresh)));
  g_assert_true (ct_snapshot_write_model (ct_solver_get_net (trained), path, format, TRUE,
                                          &error));
  g_assert_no_error (error);
  g_assert_true (ct_snapshot_load_weights (ct_solver_get_net (fresh), path, &error));
  g_assert_no_error (error);
  g_assert_true (ct_test_same_weights (ct_solver_get_net (trained), ct_solver_get_net (fresh)));
  ct_test_remove_tree (dir);
}

static void
test_model_round_trip (void)
{
  check_model_round_trip (BINARY_FORMAT, "m.caffemodel");
  check_model_round_trip (HDF5_FORMAT, "m.caffemodel.h5");
}

/* Caffe's trained LeNet: binary -> net -> HDF5 -> another net. */
static void
test_lenet_hdf5 (void)
{
  const char *data_dir = g_getenv ("CT_TEST_DATA");
  g_autofree char *net_path = NULL;
  g_autofree char *weights = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *h5 = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) a = NULL;
  g_autoptr (CtNet) b = NULL;
  Caffe__NetParameter *param;
  guint64 total = 0;

  g_assert_nonnull (data_dir);
  net_path = g_build_filename (data_dir, "reference", "lenet_fashion_deploy_loss.prototxt", NULL);
  weights = g_build_filename (data_dir, "reference", "fashion_lenet_iter_10000.caffemodel", NULL);
  param = (Caffe__NetParameter *) ct_text_parse_file (&caffe__net_parameter__descriptor,
                                                      net_path, CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  a = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 1, &error);
  g_assert_no_error (error);
  b = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 2, &error);
  g_assert_no_error (error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_true (ct_snapshot_load_weights (a, weights, &error));
  g_assert_no_error (error);
  dir = ct_test_tmpdir_new ();
  h5 = g_build_filename (dir, "lenet.caffemodel.h5", NULL);
  g_assert_true (ct_snapshot_write_model (a, h5, HDF5_FORMAT, FALSE, &error));
  g_assert_no_error (error);
  g_assert_false (ct_test_same_weights (a, b));
  g_assert_true (ct_snapshot_load_weights (b, h5, &error));
  g_assert_no_error (error);
  g_assert_true (ct_test_same_weights (a, b));
  for (guint i = 0; i < ct_net_n_learnable (b); i++)
    total += (guint64) ct_blob_count (ct_net_get_learnable (b, i)->blob);
  g_test_message ("%u parameter blobs, %" G_GUINT64_FORMAT " values through HDF5",
                  ct_net_n_learnable (b), total);
  g_assert_cmpuint (ct_net_n_learnable (b), ==, 8);
  g_assert_cmpuint (total, ==, 431080);

  check_hdf5_layout (h5);

  /* a file that is not HDF5 */
  {
    g_autofree char *fake = g_build_filename (dir, "fake.caffemodel.h5", NULL);

    g_assert_true (g_file_set_contents (fake, "not hdf5", -1, NULL));
    g_assert_false (ct_snapshot_load_weights (b, fake, &error));
    g_assert_nonnull (strstr (error->message, "fake.caffemodel.h5"));
  }
  ct_test_remove_tree (dir);
}

/* Run REGRESSION_NET with FIELDS to iteration 10, snapshotting every 5,
 * then again from the iteration-5 state; the two must agree bit for bit. */
static void
check_resume (const char *fields, CtSnapshotFormat format)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *prefix_a = g_build_filename (dir, "a", NULL);
  g_autofree char *prefix_b = g_build_filename (dir, "b", NULL);
  g_autofree char *text_a = g_strdup_printf (REGRESSION_NET "%s snapshot: 5 "
                                             "snapshot_prefix: '%s'", fields, prefix_a);
  g_autofree char *text_b = g_strdup_printf (REGRESSION_NET "%s snapshot: 5 "
                                             "snapshot_prefix: '%s'", fields, prefix_b);
  g_autoptr (CtSolver) a = ct_test_solver_new_ok (text_a);
  g_autoptr (CtSolver) b = ct_test_solver_new_ok (text_b);
  g_autofree char *state5 = ct_snapshot_state_filename (prefix_a, 5, format);
  g_autofree char *model10 = ct_snapshot_model_filename (prefix_a, 10, format);
  g_autofree char *model_b10 = ct_snapshot_model_filename (prefix_b, 10, format);
  g_autoptr (GError) error = NULL;
  GPtrArray *ha, *hb;

  ct_test_solver_feed_inputs (a);
  ct_test_solver_feed_inputs (b);
  g_assert_true (ct_solver_solve (a, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (state5, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (model10, G_FILE_TEST_IS_REGULAR));

  g_assert_true (ct_solver_solve (b, state5, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_solver_get_iter (b), ==, 10);
  g_assert_true (g_file_test (model_b10, G_FILE_TEST_IS_REGULAR));
  g_assert_true (ct_test_same_weights (ct_solver_get_net (a), ct_solver_get_net (b)));
  ha = ct_solver_get_history (a);
  hb = ct_solver_get_history (b);
  g_assert_cmpuint (ha->len, ==, hb->len);
  g_assert_cmpuint (ha->len, >, 0);
  for (guint i = 0; i < ha->len; i++)
    g_assert_cmpmem (ct_blob_cpu_data (ha->pdata[i], NULL),
                     sizeof (float) * ct_blob_count (ha->pdata[i]),
                     ct_blob_cpu_data (hb->pdata[i], NULL),
                     sizeof (float) * ct_blob_count (hb->pdata[i]));
  ct_test_remove_tree (dir);
}

static void
test_resume_adam_binary (void)
{
  check_resume ("type: 'Adam' lr_policy: 'multistep' gamma: 0.5 stepvalue: 3 stepvalue: 7",
                BINARY_FORMAT);
}

static void
test_resume_sgd_hdf5 (void)
{
  check_resume ("type: 'SGD' momentum: 0.9 lr_policy: 'step' gamma: 0.5 stepsize: 4 "
                "snapshot_format: HDF5", HDF5_FORMAT);
}

static void
test_resume_adadelta (void)
{
  check_resume ("type: 'AdaDelta' momentum: 0.95 lr_policy: 'fixed'",
                BINARY_FORMAT);
}

static void
test_resume_nesterov (void)
{
  check_resume ("type: 'Nesterov' momentum: 0.9 lr_policy: 'step' gamma: 0.5 stepsize: 3",
                BINARY_FORMAT);
}

/* AdaGrad takes no momentum (Caffe refuses one). */
static void
test_resume_adagrad_hdf5 (void)
{
  check_resume ("type: 'AdaGrad' delta: 1e-6 lr_policy: 'inv' gamma: 0.1 power: 0.75 "
                "snapshot_format: HDF5", HDF5_FORMAT);
}

static void
test_resume_rmsprop (void)
{
  check_resume ("type: 'RMSProp' rms_decay: 0.95 delta: 1e-6 lr_policy: 'exp' gamma: 0.9",
                BINARY_FORMAT);
}

/* A state as old Caffe wrote it: history with legacy num/channels/height/
 * width shapes. It restores: only the sizes must agree. */
static void
test_legacy_state (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *path = g_build_filename (dir, "legacy.solverstate", NULL);
  g_autoptr (CtSolver) solver = ct_test_solver_new_ok (REGRESSION_NET "lr_policy: 'fixed' "
                                                       "momentum: 0.9");
  g_autoptr (GError) error = NULL;
  CtNet *net = ct_solver_get_net (solver);
  guint n = ct_net_n_learnable (net);
  Caffe__SolverState state = CAFFE__SOLVER_STATE__INIT;
  Caffe__BlobProto **protos = g_new0 (Caffe__BlobProto *, n);
  Caffe__BlobProto *storage = g_new0 (Caffe__BlobProto, n);
  g_autofree float *values = g_new0 (float, 100);

  for (guint i = 0; i < 100; i++)
    values[i] = 0.5f + (float) i;
  for (guint i = 0; i < n; i++)
    {
      CtBlob *p = ct_net_get_learnable (net, i)->blob;

      caffe__blob_proto__init (&storage[i]);
      storage[i].has_num = storage[i].has_channels = TRUE;
      storage[i].has_height = storage[i].has_width = TRUE;
      storage[i].num = storage[i].channels = 1;
      storage[i].height = (int) ct_blob_shape_at (p, 0, NULL);
      storage[i].width = (int) (ct_blob_count (p) / storage[i].height);
      storage[i].n_data = (gsize) ct_blob_count (p);
      storage[i].data = values;
      protos[i] = &storage[i];
    }
  state.has_iter = TRUE;
  state.iter = 42;
  state.n_history = n;
  state.history = protos;
  g_assert_true (ct_binary_write_file (&state.base, path, &error));
  g_free (protos);
  g_free (storage);
  g_assert_true (ct_solver_restore (solver, path, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_solver_get_iter (solver), ==, 42);
  g_assert_cmpfloat (ct_blob_cpu_data (ct_solver_get_history (solver)->pdata[0], NULL)[3], ==,
                     3.5f);
  ct_test_remove_tree (dir);
}

static void
test_bad_states (void)
{
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *prefix = g_build_filename (dir, "sgd", NULL);
  g_autofree char *text = g_strdup_printf (REGRESSION_NET "lr_policy: 'fixed' "
                                           "snapshot_prefix: '%s'", prefix);
  g_autoptr (CtSolver) sgd = ct_test_solver_new_ok (text);
  g_autoptr (CtSolver) adam = ct_test_solver_new_ok (REGRESSION_NET "lr_policy: 'fixed' "
                                                     "type: 'Adam'");
  g_autofree char *state = ct_snapshot_state_filename (prefix, 2, BINARY_FORMAT);
  g_autofree char *junk = g_build_filename (dir, "junk.solverstate", NULL);
  g_autoptr (GError) error = NULL;

  ct_test_solver_feed_inputs (sgd);
  g_assert_true (ct_solver_step (sgd, 2, &error));
  g_assert_true (ct_solver_snapshot (sgd, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (state, G_FILE_TEST_IS_REGULAR));

  /* an SGD state does not fit an Adam solver */
  g_assert_false (ct_solver_restore (adam, state, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_STATE);
  g_assert_nonnull (strstr (error->message, "4 history blobs"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (junk, "\xff\xff\xff\xff garbage", -1, NULL));
  g_assert_false (ct_solver_restore (sgd, junk, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "junk.solverstate"));
  g_clear_error (&error);

  g_assert_false (ct_solver_restore (sgd, "/nonexistent/x.solverstate.h5", &error));
  g_assert_nonnull (strstr (error->message, "/nonexistent/x.solverstate.h5"));
  ct_test_remove_tree (dir);
}

/* ---- saves that fail midway ---- */

typedef gboolean (*SaveFunc) (const char *path, gconstpointer data, GError **error);

/* Saves with SAVE over an older, smaller file NAME under a file size limit
 * (RLIMIT_FSIZE, SIGXFSZ ignored) of half the new file's size, so that
 * the write fails after the temporary file exists. The save must fail with
 * an error naming the file and the cause, the old file must be unchanged
 * byte for byte, and no temporary file may be left beside it. Run in a
 * subprocess: SIGXFSZ stays ignored there. */
static void
check_save_fails_midway (const char *name, SaveFunc save, gconstpointer data)
{
  static const char old[] = "the old file\n";
  g_autofree char *dir = ct_test_tmpdir_new ();
  g_autofree char *probe = g_build_filename (dir, "probe", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) listing = NULL;
  g_autofree char *after = NULL;
  gsize after_len;
  struct rlimit limit, unlimited;
  GStatBuf st;

  /* the new file's size, from a save without the limit */
  g_assert_true (save (probe, data, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (probe, &st), ==, 0);
  g_assert_cmpint (g_remove (probe), ==, 0);
  g_assert_cmpint (st.st_size, >, 2 * (sizeof old));
  g_assert_true (g_file_set_contents (path, old, sizeof old - 1, NULL));

  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &unlimited), ==, 0);
  limit = unlimited;
  limit.rlim_cur = (rlim_t) st.st_size / 2;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  g_assert_false (save (path, data, &error));
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &unlimited), ==, 0);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, name));
  g_assert_nonnull (strstr (error->message, g_strerror (EFBIG)));

  g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
  g_assert_cmpmem (after, after_len, old, sizeof old - 1);
  listing = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (listing);
  for (const char *entry; (entry = g_dir_read_name (listing)) != NULL;)
    g_assert_cmpstr (entry, ==, name);
  ct_test_remove_tree (dir);
}

/* A solver of REGRESSION_NET after two steps (history not zero). */
static CtSolver *
trained_solver (void)
{
  CtSolver *solver = ct_test_solver_new_ok (REGRESSION_NET "lr_policy: 'fixed' "
                                            "momentum: 0.9");
  g_autoptr (GError) error = NULL;

  ct_test_solver_feed_inputs (solver);
  g_assert_true (ct_solver_step (solver, 2, &error));
  g_assert_no_error (error);
  return solver;
}

typedef struct {
  CtSolver *solver;
  CtSnapshotFormat format;
} SaveJob;

static gboolean
save_model (const char *path, gconstpointer data, GError **error)
{
  const SaveJob *job = data;

  return ct_snapshot_write_model (ct_solver_get_net (job->solver), path, job->format, FALSE,
                                  error);
}

static gboolean
save_state (const char *path, gconstpointer data, GError **error)
{
  const SaveJob *job = data;

  return ct_solver_state_write (path, job->format, 2, "reg_iter_2.caffemodel", 0,
                                ct_solver_get_history (job->solver), error);
}

static void
test_save_fails_midway (void)
{
  g_autoptr (CtSolver) solver = NULL;
  SaveJob binary, hdf5;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  solver = trained_solver ();
  binary = (SaveJob) { solver, BINARY_FORMAT };
  hdf5 = (SaveJob) { solver, HDF5_FORMAT };
  check_save_fails_midway ("reg_iter_2.caffemodel", save_model, &binary);
  check_save_fails_midway ("reg_iter_2.solverstate", save_state, &binary);
  check_save_fails_midway ("reg_iter_2.caffemodel.h5", save_model, &hdf5);
  check_save_fails_midway ("reg_iter_2.solverstate.h5", save_state, &hdf5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/solver-snapshot/names", test_names);
  g_test_add_func ("/engine/solver-snapshot/default-prefix", test_default_prefix);
  g_test_add_func ("/engine/solver-snapshot/state-round-trip", test_state_round_trip);
  g_test_add_func ("/engine/solver-snapshot/model-round-trip", test_model_round_trip);
  g_test_add_func ("/engine/solver-snapshot/lenet-hdf5", test_lenet_hdf5);
  g_test_add_func ("/engine/solver-snapshot/resume/adam-binary", test_resume_adam_binary);
  g_test_add_func ("/engine/solver-snapshot/resume/sgd-hdf5", test_resume_sgd_hdf5);
  g_test_add_func ("/engine/solver-snapshot/resume/adadelta", test_resume_adadelta);
  g_test_add_func ("/engine/solver-snapshot/resume/nesterov", test_resume_nesterov);
  g_test_add_func ("/engine/solver-snapshot/resume/adagrad-hdf5", test_resume_adagrad_hdf5);
  g_test_add_func ("/engine/solver-snapshot/resume/rmsprop", test_resume_rmsprop);
  g_test_add_func ("/engine/solver-snapshot/legacy-state", test_legacy_state);
  g_test_add_func ("/engine/solver-snapshot/bad-states", test_bad_states);
  g_test_add_func ("/engine/solver-snapshot/save-fails-midway", test_save_fails_midway);
  return g_test_run ();
}
