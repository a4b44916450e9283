/* test-data-hdf5.c: HDF5Data over files written here with libhdf5 (rows
 * in order across two files and back, integer labels read as float,
 * shuffles that cover every row per pass and repeat with the seed, and
 * errors naming the file and dataset), and HDF5Output appending batches
 * that libhdf5 reads back. */
#include <string.h>
#include <hdf5.h>
#include <glib/gstdio.h>

#include "data-test-util.h"
#include "net.h"

/* A file with ROWS rows: data ROWS×2×3 (row r, element k: FIRST + r + k/10)
 * and label ROWS ints (FIRST + r). */
static void
write_h5 (const char *path, int rows, int first)
{
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t data_dims[3] = { (hsize_t) rows, 2, 3 }, label_dims[1] = { (hsize_t) rows };
  g_autofree float *data = g_new (float, rows * 6);
  g_autofree int *labels = g_new (int, rows);
  hid_t space, dset;

  g_assert_cmpint (file, >=, 0);
  for (int r = 0; r < rows; r++)
    {
      labels[r] = first + r;
      for (int k = 0; k < 6; k++)
        data[r * 6 + k] = (float) (first + r) + (float) k / 10.0f;
    }
  space = H5Screate_simple (3, data_dims, NULL);
  dset = H5Dcreate2 (file, "data", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT,
                     H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
  H5Dclose (dset);
  H5Sclose (space);
  space = H5Screate_simple (1, label_dims, NULL);
  dset = H5Dcreate2 (file, "label", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT,
                     H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels), >=, 0);
  H5Dclose (dset);
  H5Sclose (space);
  H5Fclose (file);
}

static char *
hdf5_net (const char *list, guint batch, gboolean shuffle)
{
  return g_strdup_printf ("layer { name: 'h5' type: 'HDF5Data' top: 'data' top: 'label'\n"
                          "  hdf5_data_param { source: '%s' batch_size: %u shuffle: %s } }",
                          list, batch, shuffle ? "true" : "false");
}

static char *
write_list (const char *dir, const char *const *files)
{
  g_autoptr (GString) text = g_string_new (NULL);
  char *list = g_build_filename (dir, "files.txt", NULL);

  for (; *files != NULL; files++)
    g_string_append_printf (text, "  %s  \n\n", *files);
  g_assert_true (g_file_set_contents (list, text->str, -1, NULL));
  return list;
}

static void
test_hdf5_data_in_order (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *a = g_build_filename (dir, "a.h5", NULL);
  g_autofree char *b = g_build_filename (dir, "b.h5", NULL);
  g_autofree char *list = NULL, *text = NULL;
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GError) error = NULL;
  guint checked = 0;

  write_h5 (a, 3, 0);    /* rows 0, 1, 2 */
  write_h5 (b, 2, 100);  /* rows 100, 101 */
  list = write_list (dir, (const char *const[]) { a, b, NULL });
  text = hdf5_net (list, 4, FALSE);
  net = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);
  g_assert_no_error (error);
  {
    CtBlob *data = ct_net_blob_by_name (net, "data");
    CtBlob *label = ct_net_blob_by_name (net, "label");
    const float expected[12] = { 0, 1, 2, 100, 101, 0, 1, 2, 100, 101, 0, 1 };

    g_assert_cmpint (ct_blob_num_axes (data), ==, 3);
    g_assert_cmpint (ct_blob_get_shape (data)[0], ==, 4);
    g_assert_cmpint (ct_blob_get_shape (data)[1], ==, 2);
    g_assert_cmpint (ct_blob_get_shape (data)[2], ==, 3);
    g_assert_cmpint (ct_blob_num_axes (label), ==, 1);
    for (int f = 0; f < 3; f++)
      {
        const float *d, *l;

        g_assert_true (ct_net_forward (net, NULL, &error));
        g_assert_no_error (error);
        d = ct_blob_cpu_data (data, NULL);
        l = ct_blob_cpu_data (label, NULL);
        for (int n = 0; n < 4; n++)
          {
            float row = expected[f * 4 + n];

            g_assert_cmpfloat (l[n], ==, row);
            for (int k = 0; k < 6; k++)
              g_assert_cmpfloat_with_epsilon (d[n * 6 + k], row + (float) k / 10.0f, 1e-6);
            checked++;
          }
      }
  }
  g_assert_cmpuint (checked, ==, 12);
  g_clear_pointer (&net, ct_net_free);
  ct_test_remove_tree (dir);
}

static GArray *
labels_seen (const char *text, guint64 seed, int forwards)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_test_build_net (text, CAFFE__PHASE__TRAIN, seed, &error);
  GArray *seen = g_array_new (FALSE, FALSE, sizeof (float));

  g_assert_no_error (error);
  for (int f = 0; f < forwards; f++)
    {
      CtBlob *label = ct_net_blob_by_name (net, "label");

      g_assert_true (ct_net_forward (net, NULL, &error));
      g_array_append_vals (seen, ct_blob_cpu_data (label, NULL), (guint) ct_blob_count (label));
    }
  return seen;
}

/* Shuffled: each pass over the 10 rows of two files holds each once, and
 * the order is not the file order; one seed gives one order. */
static void
test_hdf5_data_shuffle (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *a = g_build_filename (dir, "a.h5", NULL);
  g_autofree char *b = g_build_filename (dir, "b.h5", NULL);
  g_autofree char *list = NULL, *text = NULL;
  g_autoptr (GArray) one = NULL, two = NULL;
  gboolean unsorted = FALSE;

  write_h5 (a, 5, 0);
  write_h5 (b, 5, 5);
  list = write_list (dir, (const char *const[]) { a, b, NULL });
  text = hdf5_net (list, 5, TRUE);
  one = labels_seen (text, 9, 6);
  two = labels_seen (text, 9, 6);
  g_assert_cmpuint (one->len, ==, 30);
  g_assert_cmpmem (one->data, one->len * sizeof (float), two->data, two->len * sizeof (float));
  for (int pass = 0; pass < 3; pass++)
    {
      guint mask = 0;

      for (int i = 0; i < 10; i++)
        {
          float v = g_array_index (one, float, pass * 10 + i);
          mask |= 1u << (int) v;
          unsorted |= v != (float) i;
        }
      g_assert_cmpuint (mask, ==, 0x3ff);
    }
  g_assert_true (unsorted);
  ct_test_remove_tree (dir);
}

static void
write_string_dataset (const char *path)
{
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t dims[1] = { 2 };
  hid_t type = H5Tcopy (H5T_C_S1);
  hid_t space = H5Screate_simple (1, dims, NULL);
  hid_t dset;

  H5Tset_size (type, 4);
  dset = H5Dcreate2 (file, "data", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite (dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, "abcdefgh");
  H5Dclose (dset);
  H5Sclose (space);
  H5Tclose (type);
  H5Fclose (file);
}

static void
expect_setup_error (const char *text, const char *const *needles)
{
  g_autoptr (GError) error = NULL;
  CtNet *net = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);

  g_assert_null (net);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  for (; *needles != NULL; needles++)
    g_assert_nonnull (strstr (error->message, *needles));
}

static void
test_hdf5_data_bad_inputs (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *good = g_build_filename (dir, "good.h5", NULL);
  g_autofree char *strings = g_build_filename (dir, "strings.h5", NULL);
  g_autofree char *fake = g_build_filename (dir, "fake.h5", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.h5", NULL);
  g_autofree char *other = g_build_filename (dir, "other.h5", NULL);
  g_autofree char *list = NULL, *text = NULL;

  write_h5 (good, 2, 0);
  write_string_dataset (strings);
  g_assert_true (g_file_set_contents (fake, "not hdf5", -1, NULL));

  /* a dataset the file lacks: tops read datasets of their name */
  list = write_list (dir, (const char *const[]) { good, NULL });
  text = g_strdup_printf ("layer { name: 'h5' type: 'HDF5Data' top: 'data' top: 'labels'\n"
                          "  hdf5_data_param { source: '%s' batch_size: 2 } }", list);
  expect_setup_error (text, (const char *const[]) { "layer 'h5' (HDF5Data)", "good.h5",
                                                    "'labels'", NULL });
  g_clear_pointer (&list, g_free);
  g_clear_pointer (&text, g_free);

  list = write_list (dir, (const char *const[]) { strings, NULL });
  text = hdf5_net (list, 1, FALSE);
  expect_setup_error (text, (const char *const[]) { "strings.h5", "not numeric", NULL });
  g_clear_pointer (&list, g_free);
  g_clear_pointer (&text, g_free);

  list = write_list (dir, (const char *const[]) { fake, NULL });
  text = hdf5_net (list, 1, FALSE);
  expect_setup_error (text, (const char *const[]) { "fake.h5", "not an HDF5 file", NULL });
  g_clear_pointer (&list, g_free);
  g_clear_pointer (&text, g_free);

  text = hdf5_net ("/nonexistent/list.txt", 1, FALSE);
  expect_setup_error (text, (const char *const[]) { "list.txt", NULL });
  g_clear_pointer (&text, g_free);

  /* a second file missing, or with rows of another shape: the forward
   * that reaches it fails naming it */
  {
    hid_t file = H5Fcreate (other, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = { 2, 5 };
    float values[10] = { 0 };
    hid_t space = H5Screate_simple (2, dims, NULL);
    hid_t dset = H5Dcreate2 (file, "data", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);

    H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    H5Dclose (dset);
    H5Sclose (space);
    dset = H5Dcreate2 (file, "label", H5T_NATIVE_FLOAT, (space = H5Screate_simple (1, dims, NULL)),
                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    H5Dclose (dset);
    H5Sclose (space);
    H5Fclose (file);
  }
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtNet) net = NULL;

      list = write_list (dir, (const char *const[]) { good, k == 0 ? missing : other, NULL });
      text = hdf5_net (list, 1, FALSE);
      net = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 1, &error);
      g_assert_no_error (error);
      g_assert_true (ct_net_forward (net, NULL, &error));
      g_assert_false (ct_net_forward (net, NULL, &error));
      g_test_message ("%s", error->message);
      /* and every forward after it */
      {
        g_autoptr (GError) again = NULL;
        g_assert_false (ct_net_forward (net, NULL, &again));
        g_assert_cmpstr (again->message, ==, error->message);
      }
      g_assert_nonnull (strstr (error->message, k == 0 ? "missing.h5" : "other.h5"));
      if (k == 1)
        g_assert_nonnull (strstr (error->message, "'data'"));
      g_clear_pointer (&list, g_free);
      g_clear_pointer (&text, g_free);
    }
  ct_test_remove_tree (dir);
}

/* Two forwards of a DummyData net appended to an HDF5 file, read back. */
static void
test_hdf5_output (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "out.h5", NULL);
  g_autofree char *text = g_strdup_printf (
    "layer { name: 'd' type: 'DummyData' top: 'data' top: 'label'\n"
    "  dummy_data_param { data_filler { type: 'uniform' } data_filler { type: 'constant' value: 3 }\n"
    "    shape { dim: 2 dim: 3 dim: 2 } shape { dim: 2 } } }\n"
    "layer { name: 'out' type: 'HDF5Output' bottom: 'data' bottom: 'label'\n"
    "  hdf5_output_param { file_name: '%s' } }", out);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_test_build_net (text, CAFFE__PHASE__TRAIN, 3, &error);
  float written[24];
  float read_back[24], labels[4];
  hsize_t dims[4];
  hid_t file, dset, space;

  g_assert_no_error (error);
  /* building the net writes nothing */
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  for (int f = 0; f < 2; f++)
    {
      g_assert_true (ct_net_forward (net, NULL, &error));
      g_assert_no_error (error);
      memcpy (written + f * 12, ct_blob_cpu_data (ct_net_blob_by_name (net, "data"), NULL),
              12 * sizeof (float));
    }
  g_clear_pointer (&net, ct_net_free);

  file = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  dset = H5Dopen2 (file, "data", H5P_DEFAULT);
  space = H5Dget_space (dset);
  g_assert_cmpint (H5Sget_simple_extent_ndims (space), ==, 4);
  H5Sget_simple_extent_dims (space, dims, NULL);
  g_assert_cmpuint (dims[0], ==, 4);
  g_assert_cmpuint (dims[1], ==, 3);
  g_assert_cmpuint (dims[2], ==, 2);
  g_assert_cmpuint (dims[3], ==, 1);
  H5Dread (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, read_back);
  g_assert_cmpmem (read_back, sizeof read_back, written, sizeof written);
  H5Sclose (space);
  H5Dclose (dset);
  dset = H5Dopen2 (file, "label", H5P_DEFAULT);
  H5Dread (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels);
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (labels[i], ==, 3.0f);
  H5Dclose (dset);
  H5Fclose (file);
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/engine/data-hdf5/data/in-order", test_hdf5_data_in_order);
  g_test_add_func ("/engine/data-hdf5/data/shuffle", test_hdf5_data_shuffle);
  g_test_add_func ("/engine/data-hdf5/data/bad-inputs", test_hdf5_data_bad_inputs);
  g_test_add_func ("/engine/data-hdf5/output", test_hdf5_output);
  return g_test_run ();
}
