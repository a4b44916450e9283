/* test-document.c: the workbench's document model without a display:
 * net edits, the source map, and CtDocument's text, undo,
 * files, sidecar, drafts and validation. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <glib/gstdio.h>

#include "document.h"
#include "net-edit.h"
#include "source-map.h"
#include "text-format.h"
#include "test-files.h"

static char *
example_path (const char *dir, const char *file)
{
  return g_build_filename (g_getenv ("CT_SOURCE_ROOT"), "data", "examples", dir, file, NULL);
}

static Caffe__NetParameter *
parse_net (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1, "test",
                                         CT_TEXT_LENIENT, &error);
  g_assert_no_error (error);
  return (Caffe__NetParameter *) msg;
}

static void
free_net (Caffe__NetParameter *net)
{
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

/* Net edits. */

static const char *const lenet_head =
  "name: \"t\"\n"
  "layer { name: \"data\" type: \"Input\" top: \"data\" top: \"label\"\n"
  "  input_param { shape { dim: 2 dim: 1 dim: 28 dim: 28 } shape { dim: 2 } } }\n"
  "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\"\n"
  "  convolution_param { num_output: 4 kernel_size: 5 } }\n"
  "layer { name: \"pool1\" type: \"Pooling\" bottom: \"conv1\" top: \"pool1\"\n"
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n";

static void
test_net_edit_add (void)
{
  Caffe__NetParameter *net = parse_net (lenet_head);
  g_autoptr (GError) error = NULL;
  int index;

  index = ct_net_edit_add_layer (net, "Convolution", "pool1", &error);
  g_assert_no_error (error);
  g_assert_cmpint (index, ==, 3);
  g_assert_cmpstr (net->layer[3]->name, ==, "conv2");
  g_assert_cmpstr (net->layer[3]->bottom[0], ==, "pool1");
  g_assert_cmpstr (net->layer[3]->top[0], ==, "conv2");
  g_assert_cmpuint (net->layer[3]->convolution_param->num_output, ==, 32);

  /* In place after its bottom's writer. */
  index = ct_net_edit_add_layer (net, "ReLU", "conv1", &error);
  g_assert_cmpint (index, ==, 2);
  g_assert_cmpstr (net->layer[2]->name, ==, "relu1");
  g_assert_cmpstr (net->layer[2]->top[0], ==, "conv1");

  /* A loss reads the labels too. */
  index = ct_net_edit_add_layer (net, "SoftmaxWithLoss", "conv2", &error);
  g_assert_cmpuint (net->layer[index]->n_bottom, ==, 2);
  g_assert_cmpstr (net->layer[index]->bottom[1], ==, "label");
  g_assert_cmpstr (net->layer[index]->name, ==, "loss1");

  /* Reading nothing: first. */
  index = ct_net_edit_add_layer (net, "Input", NULL, &error);
  g_assert_cmpint (index, ==, 1);
  g_assert_cmpstr (net->layer[1]->name, ==, "input1");
  g_assert_false (ct_net_edit_add_layer (net, "", NULL, &error) >= 0);
  g_assert_nonnull (error);
  free_net (net);
}

static void
test_net_edit_connect (void)
{
  Caffe__NetParameter *net = parse_net (lenet_head);
  g_autoptr (GError) error = NULL;
  int fc;

  /* Added unconnected, at the end; then a data layer at the end too. */
  fc = ct_net_edit_add_layer (net, "InnerProduct", NULL, &error);
  g_assert_cmpint (fc, ==, 3);
  g_assert_cmpuint (net->layer[3]->n_bottom, ==, 0);
  g_assert_true (ct_net_edit_connect (net, 2, 0, 3, -1, &error));
  g_assert_cmpstr (net->layer[3]->bottom[0], ==, "pool1");

  /* Connecting backwards reorders so that the writer comes first. */
  {
    Caffe__NetParameter *two = parse_net (
      "layer { name: \"a\" type: \"ReLU\" bottom: \"x\" top: \"a\" }\n"
      "layer { name: \"b\" type: \"ReLU\" bottom: \"a\" top: \"b\" }\n"
      "layer { name: \"src\" type: \"Input\" top: \"x\" input_param { shape { dim: 1 } } }\n");
    g_assert_true (ct_net_edit_sort (two, &error));
    g_assert_cmpstr (two->layer[0]->name, ==, "src");
    g_assert_cmpstr (two->layer[1]->name, ==, "a");
    g_assert_cmpstr (two->layer[2]->name, ==, "b");
    /* b -> a would be a cycle, and changes nothing. */
    g_assert_false (ct_net_edit_connect (two, 2, 0, 1, 0, &error));
    g_assert_error (error, CT_NET_EDIT_ERROR, 1);
    g_clear_error (&error);
    g_assert_cmpstr (two->layer[1]->bottom[0], ==, "x");
    free_net (two);
  }

  g_assert_true (ct_net_edit_disconnect (net, 3, 0, &error));
  g_assert_cmpuint (net->layer[3]->n_bottom, ==, 0);
  g_assert_false (ct_net_edit_disconnect (net, 3, 0, &error));
  g_clear_error (&error);
  g_assert_false (ct_net_edit_connect (net, 3, 0, 3, -1, &error));
  g_clear_error (&error);
  free_net (net);
}

static void
test_net_edit_delete_insert (void)
{
  Caffe__NetParameter *net = parse_net (lenet_head);
  g_autoptr (GError) error = NULL;
  int index;

  index = ct_net_edit_add_layer (net, "InnerProduct", "pool1", &error);
  g_assert_cmpint (index, ==, 3);
  /* Deleting pool1 bridges: fc1 now reads conv1. */
  g_assert_true (ct_net_edit_delete_layer (net, 2, &error));
  g_assert_cmpuint (net->n_layer, ==, 3);
  g_assert_cmpstr (net->layer[2]->bottom[0], ==, "conv1");

  /* Insert a Pooling into conv1 -> fc1. */
  index = ct_net_edit_insert_layer (net, "Pooling", 1, 0, 2, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (index, ==, 2);
  g_assert_cmpstr (net->layer[2]->bottom[0], ==, "conv1");
  g_assert_cmpstr (net->layer[3]->bottom[0], ==, net->layer[2]->top[0]);

  /* An in-place type inserted leaves the reader as it was. */
  index = ct_net_edit_insert_layer (net, "ReLU", 1, 0, 2, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (index, ==, 2);
  g_assert_cmpstr (net->layer[2]->type, ==, "ReLU");
  g_assert_cmpstr (net->layer[3]->bottom[0], ==, "conv1");

  g_assert_false (ct_net_edit_rename_layer (net, 0, "conv1", &error));
  g_clear_error (&error);
  g_assert_false (ct_net_edit_rename_layer (net, 0, "  ", &error));
  g_clear_error (&error);
  g_assert_true (ct_net_edit_rename_layer (net, 0, " input ", &error));
  g_assert_cmpstr (net->layer[0]->name, ==, "input");
  free_net (net);
}

static void
test_net_edit_clipboard (void)
{
  Caffe__NetParameter *net = parse_net (lenet_head);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) added = g_array_new (FALSE, FALSE, sizeof (int));
  guint which[] = { 1, 2 };
  g_autofree char *text = ct_net_edit_copy_text (net, which, 2);

  g_assert_true (g_str_has_prefix (text, "layer {\n  name: \"conv1\""));
  g_assert_true (ct_net_edit_paste_text (net, text, added, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (added->len, ==, 2);
  g_assert_cmpuint (net->n_layer, ==, 5);
  {
    const Caffe__LayerParameter *conv = net->layer[g_array_index (added, int, 0)];
    const Caffe__LayerParameter *pool = net->layer[g_array_index (added, int, 1)];

    g_assert_cmpstr (conv->name, ==, "conv2");
    g_assert_cmpstr (conv->top[0], ==, "conv2");
    /* Still reads the net's data, and the pasted pool reads the new conv. */
    g_assert_cmpstr (conv->bottom[0], ==, "data");
    g_assert_cmpstr (pool->name, ==, "pool2");
    g_assert_cmpstr (pool->bottom[0], ==, "conv2");
  }
  /* A bare layer body pastes too; garbage does not. */
  g_assert_true (ct_net_edit_paste_text (net, "name: \"x\" type: \"ReLU\"", NULL, &error));
  g_assert_cmpstr (net->layer[net->n_layer - 1]->name, ==, "x");
  g_assert_false (ct_net_edit_paste_text (net, "this is { not a net", NULL, &error));
  g_assert_nonnull (error);
  free_net (net);
}

static void
test_source_map (void)
{
  g_autofree char *path = example_path ("lenet-fashion", "lenet_train_test.prototxt");
  g_autofree char *text = NULL;
  g_autoptr (GArray) spans = NULL;
  g_autofree char *head = NULL;
  const CtSourceSpan *conv1;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  spans = ct_source_map_layers (text);
  g_assert_cmpuint (spans->len, ==, 11);
  conv1 = &g_array_index (spans, CtSourceSpan, 2);
  g_assert_cmpint (strncmp (text + conv1->name_start, "conv1\"", 6), ==, 0);
  g_assert_cmpint (strncmp (text + conv1->start, "layer {", 7), ==, 0);
  g_assert_cmpint (text[conv1->end - 1], ==, '}');
  g_assert_cmpint (ct_source_map_find (spans, conv1->start + 10), ==, 2);
  g_assert_cmpint (ct_source_map_find (spans, 0), ==, -1);
  head = ct_source_leading_comment (text);
  g_assert_true (g_str_has_prefix (head, "# LeNet for Fashion-MNIST"));
  g_assert_true (g_str_has_suffix (head, "\n"));
  g_assert_null (strstr (head, "name:"));

  /* Braces in strings and comments do not count; unterminated text is fine. */
  {
    g_autoptr (GArray) tricky = ct_source_map_layers (
      "# layer { not one }\nlayer { name: \"a}\" type: \"X\" }\nlayer: < name: 'b' >\nlayer {");
    g_assert_cmpuint (tricky->len, ==, 2);
  }
}

/* The document. */

static char *
temp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("cortado-doc-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static guint n_changed;

static void
count_changed (CtDocument *doc, guint flags, gpointer data)
{
  n_changed++;
}

static void
test_document_edit_undo_save (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *source = example_path ("lenet-fashion", "lenet_train_test.prototxt");
  g_autofree char *copy = g_build_filename (dir, "lenet.prototxt", NULL);
  g_autofree char *original = NULL;
  g_autoptr (GFile) file = NULL;
  g_autoptr (CtDocument) doc = ct_document_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *after_add = NULL;
  g_autofree char *saved = NULL;
  const Caffe__NetParameter *net;
  int index;

  g_setenv ("CORTADO_DRAFTS_DIR", dir, TRUE);
  g_assert_true (g_file_get_contents (source, &original, NULL, NULL));
  g_assert_true (g_file_set_contents (copy, original, -1, NULL));
  file = g_file_new_for_path (copy);
  g_signal_connect (doc, "changed", G_CALLBACK (count_changed), NULL);
  g_assert_true (ct_document_load (doc, file, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (ct_document_get_text (doc), ==, original);
  g_assert_cmpstr (ct_document_get_title (doc), ==, "lenet.prototxt");
  g_assert_false (ct_document_get_modified (doc));
  g_assert_false (ct_document_can_undo (doc));
  net = ct_document_get_net (doc);
  g_assert_cmpuint (net->n_layer, ==, 11);

  /* Add, connect and edit: three steps. */
  index = ct_document_add_layer (doc, "Dropout", "ip1", &error);
  g_assert_no_error (error);
  net = ct_document_get_net (doc);
  g_assert_cmpuint (net->n_layer, ==, 12);
  g_assert_cmpstr (net->layer[index]->name, ==, "drop1");
  g_assert_true (ct_document_get_modified (doc));
  /* The head comment survives the canonical rewrite. */
  g_assert_true (g_str_has_prefix (ct_document_get_text (doc), "# LeNet for Fashion-MNIST"));
  after_add = g_strdup (ct_document_get_text (doc));

  g_assert_true (ct_document_set_field (doc, "layer[2].convolution_param.num_output", "32",
                                        &error));
  g_assert_true (ct_document_set_field (doc, "layer[2].convolution_param.num_output", "48",
                                        &error));
  g_assert_no_error (error);
  net = ct_document_get_net (doc);
  g_assert_cmpuint (net->layer[2]->convolution_param->num_output, ==, 48);
  /* A bad value is refused and changes nothing. */
  g_assert_false (ct_document_set_field (doc, "layer[2].convolution_param.num_output", "-3",
                                         &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  /* Two edits of one field within a moment are one undo step. */
  ct_document_undo (doc);
  g_assert_cmpstr (ct_document_get_text (doc), ==, after_add);
  ct_document_undo (doc);
  g_assert_cmpstr (ct_document_get_text (doc), ==, original);
  g_assert_false (ct_document_get_modified (doc));
  g_assert_false (ct_document_can_undo (doc));
  ct_document_redo (doc);
  g_assert_cmpstr (ct_document_get_text (doc), ==, after_add);
  ct_document_redo (doc);
  net = ct_document_get_net (doc);
  g_assert_cmpuint (net->layer[2]->convolution_param->num_output, ==, 48);
  g_assert_false (ct_document_can_redo (doc));

  /* Rename keeps the node's sidecar place. */
  ct_document_set_node_position (doc, "conv1", 10.5, 20.25);
  g_assert_true (ct_document_rename_layer (doc, 2, "conv_a", &error));
  {
    double x = 0, y = 0;
    g_assert_true (ct_document_get_node_position (doc, "conv_a", &x, &y));
    g_assert_cmpfloat (x, ==, 10.5);
    g_assert_cmpfloat (y, ==, 20.25);
    g_assert_false (ct_document_get_node_position (doc, "conv1", NULL, NULL));
  }

  /* Save, and the file and sidecar say the same on reopening. */
  g_assert_true (ct_document_save (doc, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (ct_document_get_modified (doc));
  g_assert_true (g_file_get_contents (copy, &saved, NULL, NULL));
  g_assert_cmpstr (saved, ==, ct_document_get_text (doc));
  {
    g_autoptr (CtDocument) again = ct_document_new ();
    g_autofree char *sidecar = g_strconcat (copy, ".cortado", NULL);
    double x = 0, y = 0;

    g_assert_true (g_file_test (sidecar, G_FILE_TEST_EXISTS));
    g_assert_true (ct_document_load (again, file, &error));
    g_assert_cmpstr (ct_document_get_text (again), ==, saved);
    g_assert_true (ct_document_get_node_position (again, "conv_a", &x, &y));
    g_assert_cmpfloat (y, ==, 20.25);
    g_assert_cmpuint (ct_document_get_net (again)->n_layer, ==, 12);
  }
  g_assert_cmpuint (n_changed, >=, 8);
  ct_test_remove_tree (dir);
}

static void
test_document_unknown_fields (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "fork.prototxt", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (CtDocument) doc = ct_document_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *saved = NULL;
  const char *text =
    "name: \"fork\"\n"
    "layer { name: \"in\" type: \"Input\" top: \"data\"\n"
    "  input_param { shape { dim: 1 dim: 3 dim: 8 dim: 8 } } }\n"
    "layer { name: \"pool\" type: \"Pooling\" bottom: \"data\" top: \"pool\"\n"
    "  pooling_param { pool: MAX kernel_size: 2 ceil_mode: true }\n"
    "  prior_box_param { min_size: 30 } }\n";

  g_setenv ("CORTADO_DRAFTS_DIR", dir, TRUE);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_true (ct_document_load (doc, file, &error));
  g_assert_null (ct_document_get_parse_error (doc));
  g_assert_true (ct_document_set_field (doc, "layer[1].pooling_param.stride", "2", &error));
  g_assert_nonnull (ct_document_add_layer (doc, "ReLU", "pool", &error) >= 0 ? "ok" : NULL);
  g_assert_true (ct_document_save (doc, NULL, &error));
  g_assert_true (g_file_get_contents (path, &saved, NULL, NULL));
  g_test_message ("%s", saved);
  g_assert_nonnull (strstr (saved, "ceil_mode: true"));
  g_assert_nonnull (strstr (saved, "prior_box_param {"));
  g_assert_nonnull (strstr (saved, "min_size: 30"));
  g_assert_nonnull (strstr (saved, "stride: 2"));

  /* The engine refuses the unknown fields: that layer gets an error. */
  ct_document_wait_validated (doc);
  g_assert_nonnull (ct_document_get_layer_error (doc, 1));
  g_assert_null (ct_document_get_layer_error (doc, 0));
  ct_test_remove_tree (dir);
}

static void
test_document_parse_errors (void)
{
  g_autoptr (CtDocument) doc = ct_document_new ();
  g_autoptr (GError) error = NULL;
  const char *good = "name: \"n\"\nlayer { name: \"in\" type: \"Input\" top: \"d\" "
                     "input_param { shape { dim: 1 } } }\n";

  ct_document_load_text (doc, good, "n.prototxt");
  g_assert_null (ct_document_get_parse_error (doc));
  ct_document_set_text (doc, "name: \"n\"\nlayer { name: \"in\" type: }\n");
  g_assert_nonnull (ct_document_get_parse_error (doc));
  g_test_message ("%s", ct_document_get_parse_error (doc)->message);
  g_assert_true (g_str_has_prefix (ct_document_get_parse_error (doc)->message, "n.prototxt:2:"));
  /* The last net that parsed stays; graph edits wait for the fix. */
  g_assert_cmpuint (ct_document_get_net (doc)->n_layer, ==, 1);
  g_assert_cmpint (ct_document_add_layer (doc, "ReLU", "d", &error), ==, -1);
  g_assert_nonnull (error);
  ct_document_undo (doc);
  g_assert_null (ct_document_get_parse_error (doc));
  g_assert_cmpstr (ct_document_get_text (doc), ==, good);
}

static void
test_document_upgrade (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", "legacy_v1_lenet",
                                            "lenet_train_test.prototxt", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (CtDocument) doc = ct_document_new ();
  g_autoptr (GError) error = NULL;

  g_assert_true (ct_document_load (doc, file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ct_document_get_notes (doc)->len, >, 0);
  g_test_message ("note: %s", (char *) ct_document_get_notes (doc)->pdata[0]);
  /* The text is the upgraded net: layer blocks with string types. */
  g_assert_nonnull (strstr (ct_document_get_text (doc), "type: \"Convolution\""));
  g_assert_null (strstr (ct_document_get_text (doc), "layers {"));
  g_assert_true (ct_document_get_modified (doc));
}

static void
test_document_validation (void)
{
  g_autofree char *path = example_path ("resnet-block", "resnet_block.prototxt");
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (CtDocument) doc = ct_document_new ();
  g_autoptr (GError) error = NULL;
  const CtNetShapes *shapes;

  g_assert_true (ct_document_load (doc, file, &error));
  ct_document_wait_validated (doc);
  shapes = ct_document_get_shapes (doc);
  g_assert_nonnull (shapes);
  g_assert_cmpuint (shapes->n_failed, ==, 0);
  g_test_message ("%s", ct_document_get_summary (doc));
  /* Two 3x3x64x64 convolutions and two BatchNorm+Scale pairs. */
  g_assert_true (g_str_has_prefix (ct_document_get_summary (doc), "10 layers · 74,242 parameters"));
  /* Break a layer: its error appears, the others stay fine. */
  g_assert_true (ct_document_set_field (doc, "layer[1].convolution_param.kernel_size[0]", "99",
                                        &error));
  ct_document_wait_validated (doc);
  g_assert_nonnull (ct_document_get_layer_error (doc, 1));
  g_test_message ("%s", ct_document_get_layer_error (doc, 1)->message);
  g_assert_null (ct_document_get_layer_error (doc, 0));
  g_assert_nonnull (strstr (ct_document_get_summary (doc), "1 error"));
}

static void
test_document_drafts (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *drafts = g_build_filename (dir, "drafts", NULL);
  g_autofree char *path = g_build_filename (dir, "net.prototxt", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) found = NULL;
  g_autofree char *edited = NULL;
  const char *text = "name: \"n\"\n";

  g_setenv ("CORTADO_DRAFTS_DIR", drafts, TRUE);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  {
    g_autoptr (CtDocument) doc = ct_document_new ();
    g_assert_true (ct_document_load (doc, file, &error));
    g_assert_true (ct_document_add_layer (doc, "Input", NULL, &error) >= 0);
    edited = g_strdup (ct_document_get_text (doc));
    ct_document_write_draft (doc);
    /* "Crash": the document goes away without saving or discarding. */
  }
  {
    g_autoptr (CtDocument) untitled = ct_document_new ();
    ct_document_load_text (untitled, text, NULL);
    ct_document_set_text (untitled, "name: \"scratch\"\n");
    ct_document_write_draft (untitled);
  }
  found = ct_document_list_drafts ();
  g_assert_cmpuint (found->len, ==, 2);
  {
    g_autoptr (CtDocument) again = ct_document_new ();
    g_assert_true (ct_document_load (again, file, &error));
    g_assert_true (ct_document_has_draft (again));
    g_assert_true (ct_document_restore_draft (again, &error));
    g_assert_cmpstr (ct_document_get_text (again), ==, edited);
    g_assert_true (ct_document_get_modified (again));
    ct_document_undo (again);
    g_assert_cmpstr (ct_document_get_text (again), ==, text);
    ct_document_discard_draft (again);
  }
  g_ptr_array_unref (found);
  found = ct_document_list_drafts ();
  g_assert_cmpuint (found->len, ==, 1);
  {
    g_autoptr (CtDocument) restored = ct_document_new_from_draft (found->pdata[0], &error);
    g_assert_no_error (error);
    g_assert_null (ct_document_get_file (restored));
    g_assert_cmpstr (ct_document_get_text (restored), ==, "name: \"scratch\"\n");
    ct_document_discard_draft (restored);
  }
  g_ptr_array_unref (found);
  found = ct_document_list_drafts ();
  g_assert_cmpuint (found->len, ==, 0);
  ct_test_remove_tree (dir);
}

/* Every zoo net opens, its text survives a no-op edit round trip (only
 * canonical formatting changes), and the check finishes. */
static void
test_document_zoo (void)
{
  g_autofree char *zoo = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", NULL);
  g_autoptr (GDir) top = g_dir_open (zoo, 0, NULL);
  const char *name;
  guint opened = 0, nets = 0;

  g_assert_nonnull (top);
  while ((name = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *sub = g_build_filename (zoo, name, NULL);
      g_autoptr (GDir) dir = g_dir_open (sub, 0, NULL);
      const char *file_name;

      while (dir != NULL && (file_name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (sub, file_name, NULL);
          g_autoptr (GFile) file = g_file_new_for_path (path);
          g_autoptr (CtDocument) doc = ct_document_new ();
          g_autoptr (GError) error = NULL;

          if (!g_str_has_suffix (file_name, ".prototxt") && !g_str_has_suffix (file_name, ".proto"))
            continue;
          if (!ct_document_load (doc, file, &error))
            {
              /* Only solvers are refused. */
              g_assert_nonnull (strstr (error->message, "solver"));
              continue;
            }
          opened++;
          if (ct_document_get_net (doc) != NULL && ct_document_get_parse_error (doc) == NULL)
            nets++;
        }
    }
  g_test_message ("opened %u zoo nets, %u parsed", opened, nets);
  g_assert_cmpuint (opened, >=, 50);
  g_assert_cmpuint (nets, ==, opened);
}

/* A save that fails midway (a file size limit of half the text, in a
 * subprocess, stops the write after the temporary file exists) keeps the
 * old file byte for byte, leaves no temporary file and keeps the document
 * modified. */
static void
test_document_save_fails_midway (void)
{
  static const char old[] = "name: 'old'\n";
  g_autofree char *dir = NULL;
  g_autofree char *source = example_path ("lenet-fashion", "lenet_train_test.prototxt");
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *after = NULL;
  g_autoptr (GFile) file = NULL;
  g_autoptr (CtDocument) doc = ct_document_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) listing = NULL;
  struct rlimit limit;
  gsize length;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  dir = temp_dir ();
  path = g_build_filename (dir, "lenet.prototxt", NULL);
  g_setenv ("CORTADO_DRAFTS_DIR", dir, TRUE);
  g_assert_true (g_file_get_contents (source, &text, &length, NULL));
  g_assert_true (g_file_set_contents (path, old, -1, NULL));
  ct_document_set_text (doc, text);
  g_assert_cmpuint (length, >, 2 * sizeof old);

  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  limit.rlim_cur = length / 2;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  file = g_file_new_for_path (path);
  g_assert_false (ct_document_save (doc, file, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "lenet.prototxt"));
  g_assert_nonnull (strstr (error->message, g_strerror (EFBIG)));
  g_assert_true (ct_document_get_modified (doc));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, old);
  listing = g_dir_open (dir, 0, NULL);
  for (const char *entry; (entry = g_dir_read_name (listing)) != NULL;)
    g_assert_cmpstr (entry, ==, "lenet.prototxt");
  g_remove (path);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/document/net-edit/add", test_net_edit_add);
  g_test_add_func ("/document/net-edit/connect", test_net_edit_connect);
  g_test_add_func ("/document/net-edit/delete-insert", test_net_edit_delete_insert);
  g_test_add_func ("/document/net-edit/clipboard", test_net_edit_clipboard);
  g_test_add_func ("/document/source-map", test_source_map);
  g_test_add_func ("/document/edit-undo-save", test_document_edit_undo_save);
  g_test_add_func ("/document/save-fails-midway", test_document_save_fails_midway);
  g_test_add_func ("/document/unknown-fields", test_document_unknown_fields);
  g_test_add_func ("/document/parse-errors", test_document_parse_errors);
  g_test_add_func ("/document/upgrade", test_document_upgrade);
  g_test_add_func ("/document/validation", test_document_validation);
  g_test_add_func ("/document/drafts", test_document_drafts);
  g_test_add_func ("/document/zoo", test_document_zoo);
  return g_test_run ();
}
