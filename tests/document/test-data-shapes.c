/* test-data-shapes.c: a net whose data cannot be read (the LeNet example
 * copied without its LMDB folders) keeps the shapes of every other layer:
 * from the last shape a check saw, kept in the sidecar, or from a shape
 * the user gives; the Data layer keeps its error. */
#include <string.h>
#include <glib/gstdio.h>

#include "data-test-util.h"
#include "document.h"

/* The example's layers: mnist (TRAIN), mnist (TEST), conv1, ... */
enum { MNIST_TRAIN, MNIST_TEST, CONV1 };

/* A copy of the LeNet example in a new folder; its path. */
static char *
copy_lenet (const char *dir)
{
  g_autofree char *from = g_build_filename (g_getenv ("CT_SOURCE_ROOT"), "data", "examples",
                                            "lenet-fashion", "lenet_train_test.prototxt", NULL);
  char *to = g_build_filename (dir, "lenet_train_test.prototxt", NULL);
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (from, &text, NULL, NULL));
  g_assert_true (g_file_set_contents (to, text, -1, NULL));
  return to;
}

static CtDocument *
open_checked (const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (CtDocument) doc = ct_document_new ();
  g_autoptr (GError) error = NULL;

  g_assert_true (ct_document_load (doc, file, &error));
  g_assert_no_error (error);
  ct_document_set_phase (doc, CT_DOCUMENT_PHASE_BOTH);
  ct_document_wait_validated (doc);
  return g_steal_pointer (&doc);
}

/* The shape of the first top of layer SOURCE_INDEX in SHAPES, as
 * "64x20x24x24", or NULL when it has none. */
static char *
top_shape (const CtNetShapes *shapes, int source_index)
{
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *layer = shapes->layers->pdata[i];
      const CtNetShapeBlob *top;
      GString *out;

      if (layer->source_index != source_index || layer->tops->len == 0)
        continue;
      top = layer->tops->pdata[0];
      if (!top->known)
        return NULL;
      out = g_string_new (NULL);
      for (guint k = 0; k < top->n_axes; k++)
        g_string_append_printf (out, "%s%" G_GINT64_FORMAT, k > 0 ? "x" : "", top->dims[k]);
      return g_string_free (out, FALSE);
    }
  return NULL;
}

/* What the window shows with the databases missing and a stand-in shape:
 * the Data layers' errors, and every other layer's shapes and counts. */
static void
assert_shapes_kept (CtDocument *doc)
{
  g_autofree char *train_conv = top_shape (ct_document_get_shapes (doc), CONV1);
  g_autofree char *test_conv = top_shape (ct_document_get_test_shapes (doc), CONV1);
  g_autofree char *train_data = top_shape (ct_document_get_shapes (doc), MNIST_TRAIN);
  const char *summary = ct_document_get_summary (doc);

  g_assert_nonnull (strstr (ct_document_get_layer_error (doc, MNIST_TRAIN)->message, "fashion_train_lmdb"));
  g_assert_nonnull (strstr (ct_document_get_layer_error (doc, MNIST_TEST)->message, "fashion_test_lmdb"));
  for (guint i = CONV1; i < ct_document_get_net (doc)->n_layer; i++)
    g_assert_null (ct_document_get_layer_error (doc, i));
  /* Each phase's batch size, from the layer's text. */
  g_assert_cmpstr (train_data, ==, "64x1x28x28");
  g_assert_cmpstr (train_conv, ==, "64x20x24x24");
  g_assert_cmpstr (test_conv, ==, "100x20x24x24");
  g_assert_nonnull (strstr (summary, "431,080 parameters"));
  g_assert_nonnull (strstr (summary, "2 errors"));
}

static void
test_last_seen (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = copy_lenet (dir);
  g_autofree char *train_db = g_build_filename (dir, "fashion_train_lmdb", NULL);
  g_autofree char *test_db = g_build_filename (dir, "fashion_test_lmdb", NULL);
  g_autofree char *sidecar = g_strconcat (path, ".cortado", NULL);
  g_autofree char *kept = NULL;
  g_autoptr (GError) error = NULL;

  /* With its data, the net checks cleanly, and the shapes are remembered. */
  ct_test_write_db (train_db, CT_DB_LMDB, 3, 1, 28, 28);
  ct_test_write_db (test_db, CT_DB_LMDB, 3, 1, 28, 28);
  {
    g_autoptr (CtDocument) doc = open_checked (path);

    g_assert_null (ct_document_get_layer_error (doc, MNIST_TRAIN));
    g_assert_true (ct_document_save_sidecar (doc, &error));
    g_assert_no_error (error);
  }
  g_assert_true (g_file_get_contents (sidecar, &kept, NULL, NULL));
  g_assert_nonnull (strstr (kept, "[data mnist]"));
  g_assert_nonnull (strstr (kept, "seen=64x1x28x28;64"));

  /* Without it, the rest of the net keeps its shapes. */
  ct_test_remove_tree (train_db);
  ct_test_remove_tree (test_db);
  {
    g_autoptr (CtDocument) doc = open_checked (path);
    g_autofree char *shown = ct_document_dup_data_shape (doc, "mnist");

    assert_shapes_kept (doc);
    g_assert_cmpstr (shown, ==, "64×1×28×28; 64");
  }
  ct_test_remove_tree (dir);
}

static void
test_given (void)
{
  g_autofree char *dir = ct_test_make_temp_dir ();
  g_autofree char *path = copy_lenet (dir);
  g_autoptr (CtDocument) doc = open_checked (path);
  g_autoptr (GError) error = NULL;

  /* Never seen with its data: nothing to go on, as before. */
  g_assert_nonnull (ct_document_get_layer_error (doc, MNIST_TRAIN));
  g_assert_null (top_shape (ct_document_get_shapes (doc), CONV1));
  g_assert_null (ct_document_dup_data_shape (doc, "mnist"));

  g_assert_false (ct_document_set_data_shape (doc, "mnist", "64×one", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  /* The batch axis given is replaced by each layer's batch_size. */
  g_assert_true (ct_document_set_data_shape (doc, "mnist", " 1×1×28×28; 1 ", &error));
  g_assert_no_error (error);
  ct_document_wait_validated (doc);
  assert_shapes_kept (doc);

  /* Renaming the layer keeps its shape. */
  g_assert_true (ct_document_rename_layer (doc, MNIST_TRAIN, "fashion", &error));
  g_assert_no_error (error);
  {
    g_autofree char *renamed = ct_document_dup_data_shape (doc, "fashion");
    g_assert_cmpstr (renamed, ==, "1×1×28×28; 1");
  }
  g_assert_null (ct_document_dup_data_shape (doc, "mnist"));

  /* Forgetting it brings the unknown shapes back. */
  g_assert_true (ct_document_set_data_shape (doc, "fashion", "", &error));
  ct_document_wait_validated (doc);
  g_assert_null (top_shape (ct_document_get_shapes (doc), CONV1));
  ct_test_remove_tree (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/document/data-shapes/last-seen", test_last_seen);
  g_test_add_func ("/document/data-shapes/given", test_given);
  return g_test_run ();
}
