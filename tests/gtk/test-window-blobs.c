/* test-window-blobs.c: the inspector's blob panel in a real window under
 * Xvfb (skipped without a display), fed by a CtRunner that the test builds
 * from the window's own net (the window does not run nets itself here):
 *
 * - after a forward pass, selecting conv1 shows its shape and the
 *   statistics of the snapshot, "after conv1" and "after relu1" as its
 *   versions, and relu1's version has the share of zeros counted by hand;
 * - the diff toggle is off before backward and shows the diff's
 *   statistics after it;
 * - the blob shown exported as .npy reads back (header parsed strictly)
 *   bit for bit;
 * - the classifier output lists its top five classes by the names in the
 *   labels.txt beside the net; and so does the Fashion-MNIST example,
 *   opened from its own folder in the source tree (CT_SOURCE_ROOT).
 *
 * With CT_SCREENSHOT_DIR set, it saves inspect-conv1.png (conv1's output)
 * and inspect-filters.png (conv1's filters) there. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "gui-test.h"
#include "heatmap-view.h"
#include "text-format.h"
#include "heatmap/blob-export.h"
#include "window-private.h"

static CtApplication *app;

static const char net_text[] =
  "name: 'fashion-small'\n"
  "layer { name: 'data' type: 'Input' top: 'data' top: 'label'\n"
  "  input_param { shape { dim: 2 dim: 1 dim: 28 dim: 28 } shape { dim: 2 } } }\n"
  "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
  "  convolution_param { num_output: 8 kernel_size: 5\n"
  "    weight_filler { type: 'xavier' } bias_filler { type: 'constant' value: 0.01 } } }\n"
  "layer { name: 'relu1' type: 'ReLU' bottom: 'conv1' top: 'conv1' }\n"
  "layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1'\n"
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
  "layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool1' top: 'ip1'\n"
  "  inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } }\n"
  "layer { name: 'prob' type: 'Softmax' bottom: 'ip1' top: 'prob' }\n"
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip1' bottom: 'label' top: 'loss' }\n";

typedef struct {
  CtRunSnapshot *last;
} Received;

static void
on_snapshot (CtRunner *runner, CtRunSnapshot *snapshot, gpointer user_data)
{
  Received *received = user_data;

  g_clear_pointer (&received->last, ct_run_snapshot_unref);
  received->last = ct_run_snapshot_ref (snapshot);
}

/* Iterate the main loop until the latest snapshot is at PASS, NEXT. */
static CtRunSnapshot *
wait_for (Received *received, CtRunPass pass, int next)
{
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (received->last == NULL || ct_run_snapshot_get_pass (received->last) != pass
         || ct_run_snapshot_get_next_layer (received->last) != next)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_assert_null (received->last != NULL ? ct_run_snapshot_get_error (received->last) : NULL);
      g_main_context_iteration (NULL, TRUE);
    }
  return received->last;
}

/* A Fashion-MNIST-like input: a trouser's silhouette in sample 0 (two legs
 * under a waistband) and a bag's in sample 1, with a little shading. */
static void
fill_input (float *data)
{
  for (int n = 0; n < 2; n++)
    for (int y = 0; y < 28; y++)
      for (int x = 0; x < 28; x++)
        {
          gboolean on;

          if (n == 0)
            on = (y >= 3 && y < 26) && ((y < 8 && x >= 8 && x < 20)
                                        || (x >= 8 && x < 13) || (x >= 15 && x < 20));
          else
            on = (y >= 10 && y < 25 && x >= 4 && x < 24)
                 || (y >= 4 && y < 10 && (x == 9 || x == 10 || x == 17 || x == 18))
                 || (y >= 4 && y < 6 && x >= 9 && x < 19);
          data[(n * 28 + y) * 28 + x] = on ? 0.55f + 0.4f * (float) sin (0.3 * x + 0.2 * y) : 0.0f;
        }
}

static GtkWidget *
panel_part (CtWindow *window, const char *name)
{
  GtkWidget *widget = ct_gui_test_find_named (GTK_WIDGET (window), name);

  g_assert_nonnull (widget);
  return widget;
}

static void
select_layer (CtWindow *window, const char *name)
{
  const char *ids[] = { name, NULL };

  ct_window_select (window, ids);
  ct_gui_test_spin (50);
}

static void
assert_label (CtWindow *window, const char *name, const char *want)
{
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (panel_part (window, name))), ==, want);
}

static void
assert_stats (CtWindow *window, const CtBlobStats *stats)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  const double values[] = { stats->stats.min, stats->stats.max, stats->stats.mean,
                            stats->stats.std, stats->stats.l2_norm };
  g_autofree char *nan = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) stats->stats.n_nan);

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *id = g_strdup_printf ("blob-stat-%u", i);

      ct_heatmap_format_value (buf, sizeof buf, values[i]);
      assert_label (window, id, buf);
    }
  assert_label (window, "blob-stat-6", nan);
}

static const CtRunVersion *
version_of (CtRunSnapshot *snapshot, const char *blob, guint i)
{
  const CtRunBlob *entry = ct_run_snapshot_find_blob (snapshot, blob);

  g_assert_nonnull (entry);
  g_assert_nonnull (entry->versions);
  g_assert_cmpuint (i, <, entry->versions->len);
  return g_ptr_array_index (entry->versions, i);
}

/* Read FILE as .npy of float32, checking every byte of its header. */
static float *
read_npy (const char *path, const gint64 *dims, guint n_axes, gsize *count)
{
  g_autofree char *bytes = NULL;
  gsize len, header_len, n = 1;
  g_autoptr (GString) want = g_string_new ("{'descr': '<f4', 'fortran_order': False, 'shape': (");
  float *values;

  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  g_assert_cmpuint (len, >=, 10);
  g_assert_cmpmem (bytes, 8, "\x93NUMPY\x01\x00", 8);
  header_len = (guint8) bytes[8] | (gsize) (guint8) bytes[9] << 8;
  g_assert_cmpuint ((10 + header_len) % 64, ==, 0);
  g_assert_cmpuint (len, >=, 10 + header_len);
  g_assert_cmpint (bytes[10 + header_len - 1], ==, '\n');
  for (guint i = 0; i < n_axes; i++)
    {
      g_string_append_printf (want, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", dims[i]);
      n *= (gsize) dims[i];
    }
  g_string_append (want, "), }");
  g_assert_cmpuint (header_len, >=, want->len + 1);
  g_assert_cmpmem (bytes + 10, want->len, want->str, want->len);
  for (gsize i = 10 + want->len; i < 10 + header_len - 1; i++)
    g_assert_cmpint (bytes[i], ==, ' ');
  g_assert_cmpuint (len - 10 - header_len, ==, n * 4);
  values = g_new (float, n);
  for (gsize i = 0; i < n; i++)
    {
      guint32 bits;

      memcpy (&bits, bytes + 10 + header_len + 4 * i, 4);
      bits = GUINT32_FROM_LE (bits);
      memcpy (&values[i], &bits, 4);
    }
  *count = n;
  return values;
}

/* WIDGET as drawn now on the window's background colour, written to PATH. */
static gboolean
save_widget_png (GtkWidget *widget, const char *path)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  graphene_rect_t bounds = GRAPHENE_RECT_INIT (0, 0, width, height);

  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.98f, 0.98f, 0.98f, 1.0f }, &bounds);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return FALSE;
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                         node, &bounds);
  return gdk_texture_save_to_png (texture, path);
}

static void
save_shot (CtWindow *window, const char *name)
{
  const char *dir = g_getenv ("CT_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  path = g_build_filename (dir, name, NULL);
  ct_gui_test_spin (100);
  g_assert_true (save_widget_png (panel_part (window, "blob-panel"), path));
}

/* Waits (a few layouts, 10 s at most on a loaded machine) until WIDGET's
 * visibility is VISIBLE: the panel decides on its width after a layout. */
static void
wait_visible (GtkWidget *widget, gboolean visible)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  do
    ct_gui_test_spin (20);
  while (gtk_widget_get_visible (widget) != visible && g_get_monotonic_time () < deadline);
  g_assert_true (gtk_widget_get_visible (widget) == visible);
}

static void
test_blob_panel (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ct-blobs-XXXXXX", &error);
  g_autofree char *net_path = g_build_filename (dir, "net.prototxt", NULL);
  g_autofree char *labels_path = g_build_filename (dir, "labels.txt", NULL);
  g_autofree char *labels_source = g_build_filename (g_getenv ("CT_SOURCE_ROOT"), "data",
                                                     "examples", "lenet-fashion", "labels.txt",
                                                     NULL);
  g_autofree char *labels = NULL;
  g_autofree char *npy_path = g_build_filename (dir, "conv1.npy", NULL);
  g_autoptr (GFile) net_file = g_file_new_for_path (net_path);
  g_autoptr (GFile) npy_file = g_file_new_for_path (npy_path);
  static const gint64 data_dims[] = { 2, 1, 28, 28 }, label_dims[] = { 2 };
  static const float label[] = { 1, 8 };
  static const char *const watched[] = { "conv1", "ip1", "prob", "loss", NULL };
  static const char *const params[] = { "conv1", NULL };
  float data[2 * 28 * 28];
  Received received = { 0 };
  const CtRunConfig config = { .phase = CAFFE__PHASE__TRAIN, .seed = 7 };
  CtRunner *runner;
  CtRunSnapshot *snapshot;
  CtWindow *window;
  const CtRunVersion *after_conv, *after_relu;
  GtkDropDown *versions;
  g_autofree float *exported = NULL;
  gsize n_exported, zeros = 0;
  const float *relu_values;
  const char *top_text;
  const float *prob;
  guint best = 0;
  g_autofree char *want_top = NULL;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (labels_source, &labels, NULL, NULL));
  g_assert_true (g_file_set_contents (labels_path, labels, -1, NULL));
  g_assert_true (g_file_set_contents (net_path, net_text, -1, NULL));

  window = ct_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 900);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_gui_test_settle (window);

  /* The window's net, run the way the window's run would. */
  runner = ct_runner_new (ct_document_get_net (ct_window_get_document (window)), &config,
                          on_snapshot, &received);
  fill_input (data);
  ct_runner_set_input (runner, "data", data_dims, 4, data);
  ct_runner_set_input (runner, "label", label_dims, 1, label);
  ct_runner_watch (runner, watched);
  ct_runner_watch_params (runner, params);
  ct_runner_run_pass (runner);
  snapshot = wait_for (&received, CT_RUN_PASS_FORWARD, 8);

  /* No run yet: no panel. */
  select_layer (window, "conv1");
  g_assert_false (gtk_widget_get_visible (panel_part (window, "blob-panel")));
  ct_blob_panel_show_snapshot (window->blob_panel, snapshot);
  ct_gui_test_spin (50);
  g_assert_true (gtk_widget_get_visible (panel_part (window, "blob-panel")));

  /* conv1: its shape, its own version, the snapshot's statistics. */
  after_conv = version_of (snapshot, "conv1", 0);
  after_relu = version_of (snapshot, "conv1", 1);
  g_assert_cmpstr (after_conv->label, ==, "after conv1");
  g_assert_cmpstr (after_relu->label, ==, "after relu1");
  assert_label (window, "blob-shape", "conv1: 2 × 8 × 24 × 24");
  versions = GTK_DROP_DOWN (panel_part (window, "blob-versions"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (versions)));
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (versions)), ==, 2);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (versions)),
                                               0), ==, "after conv1");
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (gtk_drop_down_get_model (versions)),
                                               1), ==, "after relu1");
  g_assert_cmpuint (gtk_drop_down_get_selected (versions), ==, 0);
  assert_stats (window, after_conv->data_stats);
  g_assert_false (gtk_widget_get_sensitive (panel_part (window, "blob-diff")));
  g_assert_cmpint (ct_heatmap_view_get_colormap (CT_HEATMAP_VIEW (panel_part (window,
                                                                               "blob-heatmap"))),
                   ==, CT_COLORMAP_DIVERGING);

  /* The version after relu1, and its zeros counted here. */
  gtk_drop_down_set_selected (versions, 1);
  ct_gui_test_spin (20);
  assert_stats (window, after_relu->data_stats);
  relu_values = g_bytes_get_data (after_relu->data, NULL);
  for (gint64 i = 0; i < after_relu->count; i++)
    zeros += relu_values[i] == 0.0f;
  g_assert_cmpuint (zeros, >, 0);
  g_ascii_formatd (buf, sizeof buf, "%.2f", 100.0 * (double) zeros / (double) after_relu->count);
  {
    g_autofree char *want = g_strdup_printf ("%s %% (%" G_GSIZE_FORMAT " of %" G_GINT64_FORMAT ")",
                                             buf, zeros, after_relu->count);
    assert_label (window, "blob-stat-5", want);
  }
  g_assert_cmpint (ct_heatmap_view_get_colormap (CT_HEATMAP_VIEW (panel_part (window,
                                                                               "blob-heatmap"))),
                   ==, CT_COLORMAP_VIRIDIS);
  /* The value under the pointer, as the heatmap writes it. */
  {
    GtkWidget *view = panel_part (window, "blob-heatmap");
    g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (view);
    double x = 0, y = 0;
    g_autofree char *want = NULL;

    /* A point on some cell (tiles have gaps between them). */
    for (int i = 1; want == NULL && i < 20; i++)
      {
        x = gtk_widget_get_width (view) * i / 20.0;
        y = gtk_widget_get_height (view) * i / 40.0;
        want = ct_heatmap_view_dup_text_at (CT_HEATMAP_VIEW (view), x, y);
      }

    g_assert_nonnull (want);
    g_assert_true (g_str_has_prefix (want, "(0, "));
    for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
      {
        g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

        if (GTK_IS_EVENT_CONTROLLER_MOTION (controller))
          g_signal_emit_by_name (controller, "motion", x, y);
      }
    assert_label (window, "blob-pointer", want);
  }
  save_shot (window, "inspect-conv1.png");

  /* Selecting relu1 (folded into conv1) shows its own version. */
  select_layer (window, "relu1");
  g_assert_cmpuint (gtk_drop_down_get_selected (versions), ==, 1);

  /* The top five of the classifier output, by name. */
  select_layer (window, "prob");
  prob = g_bytes_get_data (version_of (snapshot, "prob", 0)->data, NULL);
  for (guint i = 1; i < 10; i++)
    if (prob[i] > prob[best])
      best = i;
  top_text = gtk_label_get_text (GTK_LABEL (panel_part (window, "blob-top")));
  g_assert_true (gtk_widget_get_visible (panel_part (window, "blob-top")));
  g_assert_true (g_str_has_prefix (top_text, "Top 5 classes of sample 0:\n1. "));
  {
    g_auto (GStrv) lines = g_strsplit (labels, "\n", -1);

    want_top = g_strdup_printf ("\n1. %s  ", lines[best]);
    g_assert_nonnull (strstr (top_text, want_top));
    g_auto (GStrv) shown = g_strsplit (top_text, "\n", -1);

    g_assert_cmpuint (g_strv_length (shown), ==, 6);
  }

  save_shot (window, "inspect-prob.png");

  /* The loss: one value, in its statistics, with no heatmap. */
  select_layer (window, "loss");
  assert_label (window, "blob-shape", "loss: scalar");
  ct_heatmap_format_value (buf, sizeof buf, ct_run_snapshot_get_loss (snapshot));
  assert_label (window, "blob-stat-0", buf);
  g_assert_false (gtk_widget_is_visible (panel_part (window, "blob-heatmap")));

  /* Backward: the diff of conv1 after relu1. */
  ct_runner_run_pass (runner);
  snapshot = wait_for (&received, CT_RUN_PASS_BACKWARD, -1);
  ct_blob_panel_show_snapshot (window->blob_panel, snapshot);
  select_layer (window, "conv1");
  g_assert_true (gtk_widget_get_sensitive (panel_part (window, "blob-diff")));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel_part (window, "blob-diff")), TRUE);
  ct_gui_test_spin (20);
  after_conv = version_of (snapshot, "conv1", 0);
  g_assert_nonnull (after_conv->diff_stats);
  assert_stats (window, after_conv->diff_stats);

  /* Exported as .npy: what is shown, bit for bit. */
  g_assert_true (ct_blob_panel_export (window->blob_panel, npy_file, &error));
  g_assert_no_error (error);
  exported = read_npy (npy_path, after_conv->dims, after_conv->n_axes, &n_exported);
  g_assert_cmpmem (exported, n_exported * 4, g_bytes_get_data (after_conv->diff, NULL),
                   (gsize) after_conv->count * 4);

  /* The same as CSV (as the exporter writes it) and the heatmap as PNG. */
  {
    g_autofree char *csv_path = g_build_filename (dir, "conv1.csv", NULL);
    g_autofree char *png_path = g_build_filename (dir, "conv1.png", NULL);
    g_autoptr (GFile) csv_file = g_file_new_for_path (csv_path);
    g_autoptr (GFile) png_file = g_file_new_for_path (png_path);
    g_autofree char *csv = NULL;
    g_autofree char *want = ct_blob_csv_text (g_bytes_get_data (after_conv->diff, NULL),
                                              after_conv->dims, after_conv->n_axes);
    g_autofree char *png = NULL;
    gsize png_len;

    g_assert_true (ct_blob_panel_export (window->blob_panel, csv_file, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
    g_assert_cmpstr (csv, ==, want);
    g_assert_true (ct_blob_panel_export (window->blob_panel, png_file, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (png_path, &png, &png_len, NULL));
    g_assert_cmpuint (png_len, >, 8);
    g_assert_cmpmem (png, 8, "\x89PNG\r\n\x1a\n", 8);
    g_unlink (csv_path);
    g_unlink (png_path);
  }

  /* A wide inspector shows data and diff side by side. */
  {
    GtkWidget *panel = panel_part (window, "blob-panel");
    GtkWidget *paned = gtk_widget_get_ancestor (panel, GTK_TYPE_PANED);
    GtkWidget *diff_view = panel_part (window, "blob-diff-heatmap");
    int narrow = gtk_paned_get_position (GTK_PANED (paned));

    g_assert_false (gtk_widget_get_visible (diff_view));
    gtk_paned_set_position (GTK_PANED (paned), gtk_widget_get_width (paned) - 760);
    wait_visible (diff_view, TRUE);
    g_assert_cmpstr (ct_heatmap_view_get_blob_name (CT_HEATMAP_VIEW (diff_view)), ==,
                     "conv1 (diff)");
    g_assert_cmpstr (ct_heatmap_view_get_blob_name (CT_HEATMAP_VIEW (panel_part (window,
                                                                                 "blob-heatmap"))),
                     ==, "conv1");
    save_shot (window, "inspect-side-by-side.png");
    gtk_paned_set_position (GTK_PANED (paned), narrow);
    wait_visible (diff_view, FALSE);
  }

  /* conv1's filters. */
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (panel_part (window, "blob-data")), TRUE);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (panel_part (window, "blob-items")), 2);
  ct_gui_test_spin (20);
  assert_label (window, "blob-shape", "conv1 weights (0): 8 × 1 × 5 × 5");
  save_shot (window, "inspect-filters.png");

  /* The run invalidated: the panel goes. */
  ct_blob_panel_show_snapshot (window->blob_panel, NULL);
  g_assert_false (gtk_widget_get_visible (panel_part (window, "blob-panel")));

  ct_runner_free (runner);
  g_clear_pointer (&received.last, ct_run_snapshot_unref);
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
  g_unlink (npy_path);
  g_unlink (net_path);
  g_unlink (labels_path);
  g_rmdir (dir);
}

/* First-layer filters over three input channels are drawn in colour; the
 * labels of the bundled Fashion-MNIST example lie beside it. */
static void
test_rgb_filters (void)
{
  static const char rgb_net[] =
    "name: 'rgb'\n"
    "layer { name: 'data' type: 'Input' top: 'data'\n"
    "  input_param { shape { dim: 1 dim: 3 dim: 8 dim: 8 } } }\n"
    "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
    "  convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: 'xavier' } } }\n";
  static const char *const params[] = { "conv1", NULL };
  const CtRunConfig config = { .phase = CAFFE__PHASE__TEST, .seed = 3 };
  Received received = { 0 };
  CtWindow *window = ct_window_new (app);
  CtRunner *runner;
  GtkDropDown *items;
  g_autofree char *base = NULL;

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 900);
  gtk_window_present (GTK_WINDOW (window));
  ct_document_load_text (ct_window_get_document (window), rgb_net, "rgb");
  ct_gui_test_settle (window);
  runner = ct_runner_new (ct_document_get_net (ct_window_get_document (window)), &config,
                          on_snapshot, &received);
  ct_runner_watch_params (runner, params);
  ct_runner_run_pass (runner);
  ct_blob_panel_show_snapshot (window->blob_panel, wait_for (&received, CT_RUN_PASS_FORWARD, 2));
  select_layer (window, "conv1");
  items = GTK_DROP_DOWN (panel_part (window, "blob-items"));
  /* conv1 (output), data (input), weights, bias. */
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (items)), ==, 4);
  gtk_drop_down_set_selected (items, 2);
  ct_gui_test_spin (20);
  assert_label (window, "blob-shape", "conv1 weights (0): 4 × 3 × 3 × 3");
  g_assert_cmpint (ct_heatmap_view_get_kind (CT_HEATMAP_VIEW (panel_part (window, "blob-heatmap"))),
                   ==, CT_HEATMAP_RGB);
  ct_runner_free (runner);
  g_clear_pointer (&received.last, ct_run_snapshot_unref);
  ct_document_discard_draft (ct_window_get_document (window));

  /* The example's labels, where the panel looks for them. */
  g_assert_true (ct_window_load_example (window, "lenet-fashion"));
  base = ct_document_dup_base_dir (ct_window_get_document (window));
  if (base != NULL)
    {
      g_autofree char *labels = g_build_filename (base, "labels.txt", NULL);
      g_autofree char *text = NULL;
      g_auto (GStrv) lines = NULL;

      g_assert_true (g_file_get_contents (labels, &text, NULL, NULL));
      lines = g_strsplit (text, "\n", -1);
      g_assert_cmpuint (g_strv_length (lines), ==, 11);
      g_assert_cmpstr (lines[0], ==, "T-shirt/top");
      g_assert_cmpstr (lines[9], ==, "Ankle boot");
    }
  else
    g_test_message ("no installed or checkout examples folder: labels not looked at");
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

/* The Fashion-MNIST example opened from its own folder in the source tree
 * (data/examples/lenet-fashion, CT_SOURCE_ROOT): its classifier output
 * "ip2" names its top five classes from the labels.txt beside it. The
 * run is a stand-in of the same layer names (the example reads LMDBs the
 * test does not have): an Input into ip2, ten outputs of known values. */
static void
test_example_labels (void)
{
  static const char stand_in[] =
    "name: 'stand-in'\n"
    "layer { name: 'data' type: 'Input' top: 'data'\n"
    "  input_param { shape { dim: 2 dim: 4 } } }\n"
    "layer { name: 'ip2' type: 'InnerProduct' bottom: 'data' top: 'ip2'\n"
    "  inner_product_param { num_output: 10\n"
    "    weight_filler { type: 'gaussian' std: 1 } bias_filler { type: 'constant' value: 0.5 } } }\n"
    "layer { name: 'label' type: 'Input' top: 'label' input_param { shape { dim: 2 } } }\n"
    "layer { name: 'accuracy' type: 'Accuracy' bottom: 'ip2' bottom: 'label' top: 'accuracy' }\n";
  static const char *const names[] = { "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                       "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot" };
  static const gint64 dims[] = { 2, 4 };
  static const float input[] = { 1, -2, 0.5f, 3, -1, 0.25f, 2, -0.5f };
  /* sample 1 is labelled Bag */
  static const gint64 label_dims[] = { 2 };
  static const float labels[] = { 0, 8 };
  static const char *const watched[] = { "ip2", "label", NULL };
  const char *root = g_getenv ("CT_SOURCE_ROOT");
  g_autofree char *folder = NULL;
  g_autofree char *net_path = NULL;
  g_autoptr (GFile) net_file = NULL;
  g_autofree char *base = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) want = g_string_new ("Top 5 classes of sample 1:");
  Caffe__NetParameter *param;
  const CtRunConfig config = { .phase = CAFFE__PHASE__TEST, .seed = 11 };
  Received received = { 0 };
  CtRunner *runner;
  CtRunSnapshot *snapshot;
  CtWindow *window;
  const float *values;
  double total = 0;
  guint order[10];

  g_assert_nonnull (root);
  folder = g_build_filename (root, "data", "examples", "lenet-fashion", NULL);
  net_path = g_build_filename (folder, "lenet_train_test.prototxt", NULL);
  net_file = g_file_new_for_path (net_path);
  window = ct_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 900);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_file (window, net_file));
  ct_gui_test_settle (window);
  base = ct_document_dup_base_dir (ct_window_get_document (window));
  g_assert_cmpstr (base, ==, folder);

  param = (Caffe__NetParameter *) ct_text_parse (&caffe__net_parameter__descriptor, stand_in, -1,
                                                 "stand-in.prototxt", CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  runner = ct_runner_new (param, &config, on_snapshot, &received);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  ct_runner_set_input (runner, "data", dims, 2, input);
  ct_runner_set_input (runner, "label", label_dims, 1, labels);
  ct_runner_watch (runner, watched);
  ct_runner_run_pass (runner);
  snapshot = wait_for (&received, CT_RUN_PASS_FORWARD, 4);
  ct_blob_panel_show_snapshot (window->blob_panel, snapshot);
  select_layer (window, "ip2");
  assert_label (window, "blob-shape", "ip2: 2 × 10");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (panel_part (window, "blob-sample")), 1);
  ct_gui_test_spin (20);

  /* sample 1's ten values, best first, by the example's names */
  values = (const float *) g_bytes_get_data (version_of (snapshot, "ip2", 0)->data, NULL) + 10;
  for (guint i = 0; i < 10; i++)
    order[i] = i;
  for (guint i = 0; i < 10; i++)
    for (guint j = i + 1; j < 10; j++)
      if (values[order[j]] > values[order[i]])
        {
          guint t = order[i];

          order[i] = order[j];
          order[j] = t;
        }
  /* with the softmax of the scores, in percent */
  for (guint i = 0; i < 10; i++)
    total += exp ((double) values[i] - values[order[0]]);
  for (guint i = 0; i < 5; i++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];

      g_assert_cmpfloat (values[order[i]], >, values[order[i + 1]]);
      ct_heatmap_format_value (buf, sizeof buf, values[order[i]]);
      g_string_append_printf (want, "\n%u. %s  %.1f %% (%s)", i + 1, names[order[i]],
                              100 * exp ((double) values[order[i]] - values[order[0]]) / total,
                              buf);
    }
  /* and the label the Accuracy layer scores it against */
  g_string_append_printf (want, order[0] == 8 ? "\nTrue class: Bag, predicted right"
                                              : "\nTrue class: Bag, predicted wrong");
  g_assert_true (gtk_widget_get_visible (panel_part (window, "blob-top")));
  assert_label (window, "blob-top", want->str);

  ct_runner_free (runner);
  g_clear_pointer (&received.last, ct_run_snapshot_unref);
  ct_document_discard_draft (ct_window_get_document (window));
  gtk_window_destroy (GTK_WINDOW (window));
  ct_gui_test_spin (10);
}

int
main (int argc, char *argv[])
{
  char *scratch;
  int status;

  if (ct_gui_test_init (&argc, &argv, "/gtk/window-blobs", &scratch, &app))
    {
      g_test_add_func ("/gtk/window-blobs/panel", test_blob_panel);
      g_test_add_func ("/gtk/window-blobs/rgb-filters", test_rgb_filters);
      g_test_add_func ("/gtk/window-blobs/example-labels", test_example_labels);
    }
  status = g_test_run ();
  return ct_gui_test_finish (status, scratch, app);
}
