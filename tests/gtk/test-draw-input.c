/* test-draw-input.c: the "Draw an Input" window under Xvfb (skipped
 * without a display), on LeNet with Input layers and trained weights
 * (tests/data/reference/lenet_fashion_deploy_loss.prototxt and
 * fashion_lenet_iter_10000.caffemodel):
 *
 * - strokes drawn through the canvas's API (a trouser's two legs) give
 *   class scores equal (to 1e-5) to the softmax of ip2 that the engine
 *   computes for the same pixels, through the Input popover's scale; the
 *   eraser changes them again, and they follow;
 * - a picture pasted from the clipboard (dark ink on a white background)
 *   lands in the canvas as light ink on dark, fitted to 28×28;
 * - "Step Through" makes the drawing the main window's input: its first
 *   step shows the data blob holding the drawing;
 * - on the bundled example (Data layers) given a mean file, the drawing
 *   goes through the TEST Data layer's transform ((pixel − mean) × 1/256)
 *   and the scores equal the engine's for those values; the classes are
 *   named by the example's labels.txt.
 *
 * With CT_SCREENSHOT_DIR set, the window with a drawing is saved there as
 * draw-input.png. */
#include <math.h>
#include <string.h>

#include "datum.h"
#include "db.h"
#include "draw-input.h"
#include "image.h"
#include "test-files.h"
#include "gui-test.h"
#include "net.h"
#include "proto-file.h"
#include "window-private.h"

static CtApplication *app;

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  return g_build_filename (dir != NULL ? dir : "tests/data", "reference", name, NULL);
}

static CtWindow *
open_lenet (void)
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  CtWindow *window = ct_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);
  return window;
}

/* Until the scores shown are those of the drawing as it is now. */
static const float *
current_scores (CtDrawInput *draw, guint *n)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    {
      guint64 serial;
      const float *scores = ct_draw_input_get_scores (draw, n, &serial);

      g_assert_cmpstr (ct_draw_input_get_error (draw), ==, NULL);
      if (scores != NULL && serial == ct_draw_input_get_drawing_serial (draw))
        return scores;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_not_reached ();
}

/* The engine's softmax of ip2 for the canvas's pixels, each
 * (round(255 × ink) − mean) × scale as the Input popover says. */
static void
engine_scores_scaled (CtDrawInput *draw, const float *means, float mean, float scale,
                      float out[10]);

static void
engine_scores (CtWindow *window, CtDrawInput *draw, float out[10])
{
  const CtInputTransform *t = ct_run_controls_get_transform (window->run_controls);

  engine_scores_scaled (draw, NULL, t->mean[0], t->scale, out);
}

/* MEANS: one per pixel (a mean file), or NULL: MEAN for all. */
static void
engine_scores_scaled (CtDrawInput *draw, const float *means, float mean, float scale,
                      float out[10])
{
  g_autofree char *net_path = data_path ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = NULL;
  Caffe__NetParameter *param = ct_net_load_text_file (net_path, 0, NULL, &error);
  const float *ink = ct_draw_canvas_get_values (ct_draw_input_get_canvas (draw));
  CtBlob *data;
  float *values;
  const float *ip2;
  double top = -INFINITY, sum = 0;

  g_assert_no_error (error);
  net = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, 1, &error);
  g_assert_no_error (error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_true (ct_net_copy_trained_layers_from_file (net, weights_path, &error));
  data = ct_net_blob_by_name (net, "data");
  values = ct_blob_mutable_cpu_data (data, &error);
  g_assert_cmpint (ct_blob_count (data) % 784, ==, 0);
  /* every sample of the batch the drawing; sample 0 is compared */
  for (gint64 i = 0; i < ct_blob_count (data); i++)
    values[i] = (lrintf (ink[i % 784] * 255.0f) - (means != NULL ? means[i % 784] : mean)) * scale;
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_no_error (error);
  ip2 = ct_blob_cpu_data (ct_net_blob_by_name (net, "ip2"), &error);
  for (int k = 0; k < 10; k++)
    top = MAX (top, ip2[k]);
  for (int k = 0; k < 10; k++)
    sum += exp (ip2[k] - top);
  for (int k = 0; k < 10; k++)
    out[k] = (float) (exp (ip2[k] - top) / sum);
}

static void
assert_scores (CtDrawInput *draw, const float want[10])
{
  guint n;
  const float *shown = current_scores (draw, &n);
  double total = 0;

  g_assert_cmpuint (n, ==, 10);
  for (int k = 0; k < 10; k++)
    {
      g_assert_cmpfloat_with_epsilon (shown[k], want[k], 1e-5);
      total += shown[k];
    }
  g_assert_cmpfloat_with_epsilon (total, 1.0, 1e-5);
}

static void
assert_engine_scores (CtWindow *window, CtDrawInput *draw)
{
  float want[10];

  current_scores (draw, &(guint) { 0 });
  engine_scores (window, draw, want);
  assert_scores (draw, want);
}

static guint
argmax (const float *v, guint n)
{
  guint best = 0;

  for (guint k = 1; k < n; k++)
    if (v[k] > v[best])
      best = k;
  return best;
}

static void
test_draw_scores (void)
{
  CtWindow *window = open_lenet ();
  CtDrawInput *draw;
  CtDrawCanvas *canvas;
  guint n;
  const float *scores;
  float before[10];

  g_action_group_activate_action (G_ACTION_GROUP (window), "draw-input", NULL);
  draw = g_object_get_data (G_OBJECT (window), "ct-draw-input");
  g_assert_nonnull (draw);
  canvas = ct_draw_input_get_canvas (draw);
  g_assert_cmpint (ct_draw_canvas_get_grid_width (canvas), ==, 28);
  g_assert_cmpint (ct_draw_canvas_get_grid_height (canvas), ==, 28);
  /* the empty canvas is scored too */
  assert_engine_scores (window, draw);

  /* a trouser: a waistband and two legs */
  ct_draw_canvas_set_radius (canvas, 2.0);
  ct_draw_canvas_begin_stroke (canvas, 9, 3);
  ct_draw_canvas_stroke_to (canvas, 19, 3);
  ct_draw_canvas_end_stroke (canvas);
  ct_draw_canvas_begin_stroke (canvas, 10, 3);
  ct_draw_canvas_stroke_to (canvas, 9, 26);
  ct_draw_canvas_end_stroke (canvas);
  ct_draw_canvas_begin_stroke (canvas, 18, 3);
  ct_draw_canvas_stroke_to (canvas, 19, 26);
  ct_draw_canvas_end_stroke (canvas);
  g_assert_cmpfloat (ct_draw_canvas_get_values (canvas)[14 * 28 + 9], ==, 1.0f);
  g_assert_cmpfloat (ct_draw_canvas_get_values (canvas)[14 * 28 + 14], ==, 0.0f);
  assert_engine_scores (window, draw);
  scores = current_scores (draw, &n);
  memcpy (before, scores, sizeof before);
  g_test_message ("trouser drawn: class %u at %.3f", argmax (scores, n), scores[argmax (scores, n)]);

  if (g_getenv ("CT_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path = g_build_filename (g_getenv ("CT_SCREENSHOT_DIR"),
                                                "draw-input.png", NULL);
      ct_gui_test_spin (300);
      g_assert_true (ct_gui_test_save_png (GTK_WIDGET (draw), path));
      g_test_message ("saved %s", path);
    }

  /* the eraser takes a leg away: the scores follow */
  ct_draw_canvas_set_tool (canvas, CT_DRAW_TOOL_ERASER);
  ct_draw_canvas_set_radius (canvas, 3.0);
  ct_draw_canvas_begin_stroke (canvas, 19, 8);
  ct_draw_canvas_stroke_to (canvas, 19, 27);
  ct_draw_canvas_end_stroke (canvas);
  g_assert_cmpfloat (ct_draw_canvas_get_values (canvas)[20 * 28 + 19], ==, 0.0f);
  assert_engine_scores (window, draw);
  scores = current_scores (draw, &n);
  g_assert_true (memcmp (before, scores, sizeof before) != 0);

  /* Step Through: the drawing is the main window's input */
  {
    guint64 serial = 0;
    CtRunSnapshot *snapshot;
    const CtRunBlob *blob;
    gint64 shape[3];
    const float *net_input = ct_draw_input_get_net_input (draw, shape);
    g_autoptr (CtBlobStats) want = ct_blob_stats_compute (net_input, 784);
    const char *names[] = { "conv1", NULL };

    ct_window_select (window, names);
    gtk_widget_activate_action (GTK_WIDGET (draw), "draw.step", NULL);
    do
      snapshot = ct_gui_test_next_snapshot (window, &serial);
    while (ct_run_snapshot_get_next_layer (snapshot) < 1);
    g_assert_no_error (ct_run_snapshot_get_error (snapshot));
    blob = ct_run_snapshot_find_blob (snapshot, "data");
    g_assert_true (blob->has_data);
    g_assert_cmpfloat_with_epsilon (blob->data_stats->stats.mean, want->stats.mean, 1e-6);
    g_assert_cmpfloat_with_epsilon (blob->data_stats->stats.max, want->stats.max, 1e-6);
  }
  gtk_window_destroy (GTK_WINDOW (draw));
  ct_gui_test_close_window (window);
}

static void
test_paste (void)
{
  CtWindow *window = open_lenet ();
  CtDrawInput *draw;
  const float *values;
  g_autofree guint8 *rgba = g_malloc (56 * 56 * 4);
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  gint64 deadline;

  /* a white picture with a black square in its middle */
  for (int y = 0; y < 56; y++)
    for (int x = 0; x < 56; x++)
      {
        guint8 v = (x >= 20 && x < 36 && y >= 20 && y < 36) ? 0 : 255;
        guint8 *p = rgba + (y * 56 + x) * 4;

        p[0] = p[1] = p[2] = v;
        p[3] = 255;
      }
  bytes = g_bytes_new_take (g_steal_pointer (&rgba), 56 * 56 * 4);
  texture = gdk_memory_texture_new (56, 56, GDK_MEMORY_R8G8B8A8, bytes, 56 * 4);
  g_action_group_activate_action (G_ACTION_GROUP (window), "draw-input", NULL);
  draw = g_object_get_data (G_OBJECT (window), "ct-draw-input");
  gdk_clipboard_set_texture (gtk_widget_get_clipboard (GTK_WIDGET (draw)), texture);
  gtk_widget_activate_action (GTK_WIDGET (draw), "draw.paste", NULL);
  values = ct_draw_canvas_get_values (ct_draw_input_get_canvas (draw));
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (values[14 * 28 + 14] == 0 && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
      values = ct_draw_canvas_get_values (ct_draw_input_get_canvas (draw));
    }
  /* the square (10..17 of 28) is ink, the background empty */
  g_assert_cmpfloat_with_epsilon (values[14 * 28 + 14], 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (values[2 * 28 + 2], 0.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (values[14 * 28 + 5], 0.0, 1e-6);
  assert_engine_scores (window, draw);
  gtk_window_destroy (GTK_WINDOW (draw));
  ct_gui_test_close_window (window);
}

/* A mean file of 1×1×28×28 values MEAN, as DIR/mean.binaryproto. */
static void
write_mean (const char *dir, const float *mean)
{
  Caffe__BlobProto proto = CAFFE__BLOB_PROTO__INIT;
  Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;
  int64_t dims[4] = { 1, 1, 28, 28 };
  g_autofree char *path = g_build_filename (dir, "mean.binaryproto", NULL);
  g_autofree guint8 *bytes = NULL;
  gsize size;

  shape.n_dim = 4;
  shape.dim = dims;
  proto.shape = &shape;
  proto.n_data = 784;
  proto.data = (float *) mean;
  size = caffe__blob_proto__get_packed_size (&proto);
  bytes = g_malloc (size);
  caffe__blob_proto__pack (&proto, bytes);
  g_assert_true (g_file_set_contents (path, (const char *) bytes, (gssize) size, NULL));
}

/* The bundled example (a Data layer in each phase) with a mean file added
 * to its transform_param, in a folder with its labels.txt and a TEST LMDB
 * of two made-up images. The drawing goes through the TEST Data layer's
 * transform ((pixel − mean) × 1/256), and the classes are named by
 * labels.txt. */
static void
test_example_data_layer (void)
{
  g_autofree char *example = g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples",
                                               "lenet-fashion", "lenet_train_test.prototxt", NULL);
  g_autofree char *labels_src = g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples",
                                                  "lenet-fashion", "labels.txt", NULL);
  g_autofree char *weights_path = data_path ("fashion_lenet_iter_10000.caffemodel");
  g_autofree char *dir = ct_test_tmpdir_make ("ct-draw-example-XXXXXX");
  g_autofree char *net_path = g_build_filename (dir, "lenet_train_test.prototxt", NULL);
  g_autofree char *labels_dst = g_build_filename (dir, "labels.txt", NULL);
  g_autofree char *lmdb = g_build_filename (dir, "fashion_test_lmdb", NULL);
  g_autofree char *text = NULL;
  g_autofree char *labels = NULL;
  g_auto (GStrv) parts = NULL;
  g_autofree char *with_mean = NULL;
  g_autoptr (GFile) net_file = NULL;
  g_autoptr (GFile) weights_file = g_file_new_for_path (weights_path);
  g_autoptr (GError) error = NULL;
  CtWindow *window;
  CtDrawInput *draw;
  CtDrawCanvas *canvas;
  float want[10], mean[784];

  g_assert_true (g_file_get_contents (example, &text, NULL, NULL));
  parts = g_strsplit (text, "    scale: 0.00390625\n", -1);
  g_assert_cmpuint (g_strv_length (parts), ==, 3);
  with_mean = g_strjoinv ("    scale: 0.00390625\n    mean_file: \"mean.binaryproto\"\n", parts);
  g_assert_true (g_file_set_contents (net_path, with_mean, -1, NULL));
  g_assert_true (g_file_get_contents (labels_src, &labels, NULL, NULL));
  g_assert_true (g_file_set_contents (labels_dst, labels, -1, NULL));
  for (int i = 0; i < 784; i++)
    mean[i] = (float) (20 + i % 13);
  write_mean (dir, mean);
  {
    g_autoptr (CtDb) db = ct_db_open (lmdb, CT_DB_LMDB, CT_DB_NEW, &error);
    g_autoptr (CtDbTxn) txn = NULL;
    guint8 bytes[784];

    g_assert_no_error (error);
    txn = ct_db_txn_new (db);
    for (guint n = 0; n < 2; n++)
      {
        CtPixels pixels = { .channels = 1, .height = 28, .width = 28, .u8 = bytes };
        g_autoptr (GBytes) datum = NULL;
        char key[16];

        for (int i = 0; i < 784; i++)
          bytes[i] = (guint8) ((i * 3 + n * 50) % 256);
        datum = ct_datum_pack_raw (&pixels, n);
        g_snprintf (key, sizeof key, "%08u", n);
        ct_db_txn_put (txn, key, strlen (key), g_bytes_get_data (datum, NULL),
                       g_bytes_get_size (datum));
      }
    g_assert_true (ct_db_txn_commit (txn, &error));
    g_assert_no_error (error);
  }

  net_file = g_file_new_for_path (net_path);
  window = ct_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_window_set_weights (window, weights_file);
  ct_gui_test_settle (window);
  g_action_group_activate_action (G_ACTION_GROUP (window), "draw-input", NULL);
  draw = g_object_get_data (G_OBJECT (window), "ct-draw-input");
  canvas = ct_draw_input_get_canvas (draw);
  g_assert_cmpint (ct_draw_canvas_get_grid_width (canvas), ==, 28);
  ct_draw_canvas_set_radius (canvas, 2.5);
  ct_draw_canvas_begin_stroke (canvas, 6, 8);
  ct_draw_canvas_stroke_to (canvas, 22, 8);
  ct_draw_canvas_stroke_to (canvas, 22, 24);
  ct_draw_canvas_stroke_to (canvas, 6, 24);
  ct_draw_canvas_stroke_to (canvas, 6, 8);
  ct_draw_canvas_end_stroke (canvas);
  current_scores (draw, &(guint) { 0 });
  engine_scores_scaled (draw, mean, 0, 0.00390625f, want);
  assert_scores (draw, want);
  /* without the mean the scores would differ: the check can fail */
  {
    float unmeaned[10];
    double diff = 0;

    engine_scores_scaled (draw, NULL, 0, 0.00390625f, unmeaned);
    for (int k = 0; k < 10; k++)
      diff += fabs (unmeaned[k] - want[k]);
    g_assert_cmpfloat (diff, >, 1e-3);
  }
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (draw), GTK_TYPE_LABEL, "Ankle boot"));
  g_assert_nonnull (ct_gui_test_find_widget (GTK_WIDGET (draw), GTK_TYPE_LABEL, "T-shirt/top"));
  gtk_window_destroy (GTK_WINDOW (draw));
  ct_gui_test_close_window (window);
}

int
main (int argc, char **argv)
{
  g_autofree char *scratch = NULL;

  if (ct_gui_test_init (&argc, &argv, "/draw-input", &scratch, &app))
    {
      g_test_add_func ("/draw-input/scores", test_draw_scores);
      g_test_add_func ("/draw-input/paste", test_paste);
      g_test_add_func ("/draw-input/example-data-layer", test_example_data_layer);
    }
  return ct_gui_test_finish (g_test_run (), g_steal_pointer (&scratch), app);
}
