/* test-graph-render.c: drawing graphs with cairo, no display
 * (render/graph/: scene, painting, export), and `cortado-cli draw`.
 *
 * LeNet is drawn into an image surface and its pixels are read back: the
 * background colour, every family colour of its layers (each node's header
 * is a solid band of it), edges, text, the error red of an invalid node;
 * hit testing finds nodes, ports and edges where they were drawn; the
 * files written for PNG, SVG and PDF are what their formats say. */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "graph-render.h"
#include "net-graph.h"
#include "proto-file.h"

static char *
lenet_path (void)
{
  return g_build_filename (CT_TEST_SOURCE_DIR, "data", "examples", "lenet-fashion",
                           "lenet_train_test.prototxt", NULL);
}

static CtNetGraph *
lenet_graph (void)
{
  g_autofree char *path = lenet_path ();
  g_autoptr(GError) error = NULL;
  Caffe__NetParameter *param = ct_net_load_text_file (path, CT_TEXT_STRICT, NULL, &error);
  CtNetGraph *graph;

  g_assert_no_error (error);
  graph = ct_net_graph_new (param, NULL);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return graph;
}

typedef struct {
  cairo_surface_t *surface;
  int width, height, stride;
  const guint8 *data;
} Image;

static void
image_render (Image *image, const CtGraphScene *scene, const CtGraphPalette *palette)
{
  cairo_t *cr;

  image->width = (int) ceil (scene->layout->width) + 20;
  image->height = (int) ceil (scene->layout->height) + 20;
  image->surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, image->width, image->height);
  cr = cairo_create (image->surface);
  cairo_set_source_rgb (cr, palette->background.r, palette->background.g,
                        palette->background.b);
  cairo_paint (cr);
  cairo_translate (cr, 10, 10);
  ct_graph_render_scene (cr, scene, palette);
  cairo_destroy (cr);
  cairo_surface_flush (image->surface);
  image->stride = cairo_image_surface_get_stride (image->surface);
  image->data = cairo_image_surface_get_data (image->surface);
}

static guint32
image_pixel (const Image *image, int x, int y)
{
  return *(const guint32 *) (image->data + (gsize) y * image->stride + 4 * x) & 0xffffff;
}

static guint32
color_rgb (const CtGraphColor *c)
{
  return ((guint32) lround (c->r * 255) << 16) | ((guint32) lround (c->g * 255) << 8)
         | (guint32) lround (c->b * 255);
}

/* Pixels of exactly COLOR. */
static guint
count_color (const Image *image, guint32 color)
{
  guint count = 0;

  for (int y = 0; y < image->height; y++)
    for (int x = 0; x < image->width; x++)
      if (image_pixel (image, x, y) == color)
        count++;
  return count;
}

/* Pixels of no palette colour: antialiased edges, text, shadows. */
static guint
count_not (const Image *image, guint32 a, guint32 b)
{
  guint count = 0;

  for (int y = 0; y < image->height; y++)
    for (int x = 0; x < image->width; x++)
      {
        guint32 p = image_pixel (image, x, y);
        if (p != a && p != b)
          count++;
      }
  return count;
}

static void
test_lenet_pixels (void)
{
  g_autoptr(CtNetGraph) graph = lenet_graph ();
  g_autoptr(CtGraphScene) scene = ct_graph_scene_new (graph->model, CT_GRAPH_RANKDIR_TB, NULL,
                                                      NULL, NULL);
  const CtGraphPalette *palette = ct_graph_palette_get (FALSE);
  Image image = { 0 };
  guint32 background = color_rgb (&palette->background);
  guint32 body = color_rgb (&palette->node_body);
  guint total, families_seen = 0;
  gboolean needed[CT_GRAPH_N_FAMILIES] = { FALSE };

  /* LeNet train/test: 2 data layers, conv1, pool1, conv2, pool2, ip1 (relu
   * folded), ip2, accuracy, loss */
  g_assert_cmpuint (ct_graph_model_n_nodes (graph->model), ==, 10);
  g_assert_cmpuint (ct_graph_model_n_edges (graph->model), ==, 12);
  image_render (&image, scene, palette);
  total = (guint) (image.width * image.height);
  g_test_message ("LeNet: %d x %d pixels", image.width, image.height);
  g_assert_cmpint (image.width, >, 200);
  g_assert_cmpint (image.height, >, 600);

  /* not empty: white node bodies and drawn lines and text cover a good
   * share, and the background still shows */
  g_assert_cmpuint (count_color (&image, background), >, total / 4);
  g_assert_cmpuint (count_color (&image, body), >, total / 20);
  g_assert_cmpuint (count_not (&image, background, body), >, total / 20);

  /* every family drawn shows its header colour as a solid band */
  for (guint i = 0; i < ct_graph_model_n_nodes (graph->model); i++)
    needed[ct_graph_model_get_node (graph->model, i)->family] = TRUE;
  for (guint f = 0; f < CT_GRAPH_N_FAMILIES; f++)
    {
      guint pixels;
      if (!needed[f])
        continue;
      pixels = count_color (&image, color_rgb (&palette->family[f]));
      g_test_message ("family %s: %u pixels", ct_graph_family_to_string (f), pixels);
      /* a header band is at least 100×15 pixels of solid colour */
      g_assert_cmpuint (pixels, >, 1500);
      families_seen++;
    }
  /* data, vision, common, loss (and neuron only as a folded chip) */
  g_assert_cmpuint (families_seen, >=, 4);

  /* the centre of conv1's header is its family colour, and hit testing
   * finds conv1 there */
  {
    int conv1 = ct_graph_model_find_node (graph->model, "conv1");
    double x, y, w, h;
    g_assert_cmpint (conv1, >=, 0);
    ct_graph_scene_node_box (scene, conv1, &x, &y, &w, &h);
    g_assert_cmpuint (image_pixel (&image, (int) (x + w - 8) + 10, (int) (y + 4) + 10), ==,
                      color_rgb (&palette->family[CT_GRAPH_FAMILY_VISION]));
    g_assert_cmpint (ct_graph_scene_node_at (scene, x + w / 2, y + h / 2), ==, conv1);
    g_assert_cmpint (ct_graph_scene_node_at (scene, x - 40, y - 40), ==, -1);
  }
  cairo_surface_destroy (image.surface);
}

/* A node with an error is outlined in the error red; ports, edges and the
 * edge under the pointer are found where they are drawn. */
static void
test_error_outline_and_hits (void)
{
  g_autoptr(CtGraphModel) model = ct_graph_model_new ();
  g_autoptr(CtGraphScene) scene = NULL;
  const CtGraphPalette *palette = ct_graph_palette_get (FALSE);
  Image image = { 0 };
  guint a, b, c;
  guint32 red = color_rgb (&palette->error);
  guint red_before;
  gboolean is_top = FALSE;
  guint port = 99;
  CtGraphPoint p, q;

  a = ct_graph_model_add_node (model, "data", "data", "Input", CT_GRAPH_FAMILY_DATA);
  ct_graph_model_add_top (model, a, "data");
  b = ct_graph_model_add_node (model, "conv", "conv", "Convolution", CT_GRAPH_FAMILY_VISION);
  ct_graph_model_add_bottom (model, b, "data");
  ct_graph_model_add_top (model, b, "conv");
  c = ct_graph_model_add_node (model, "loss", "loss", "SoftmaxWithLoss", CT_GRAPH_FAMILY_LOSS);
  ct_graph_model_add_bottom (model, c, "conv");
  ct_graph_model_add_bottom (model, c, "data");
  ct_graph_model_add_edge (model, a, 0, b, 0, "data", "1×3×8×8");
  ct_graph_model_add_edge (model, b, 0, c, 0, "conv", NULL);
  ct_graph_model_add_edge (model, a, 0, c, 1, "data", "1×3×8×8");

  scene = ct_graph_scene_new (model, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);
  image_render (&image, scene, palette);
  red_before = count_color (&image, red);
  cairo_surface_destroy (image.surface);
  g_clear_pointer (&scene, ct_graph_scene_free);

  ct_graph_model_set_error (model, b, "conv: num_output must be set");
  scene = ct_graph_scene_new (model, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);
  image_render (&image, scene, palette);
  g_test_message ("error red: %u pixels without the error, %u with", red_before,
                  count_color (&image, red));
  /* the outline around a 112×60 box, 2 px wide */
  g_assert_cmpuint (count_color (&image, red), >, red_before + 200);
  cairo_surface_destroy (image.surface);

  /* ports */
  p = ct_graph_scene_port_position (scene, c, FALSE, 1);
  g_assert_cmpint (ct_graph_scene_port_at (scene, p.x + 1, p.y, 6, &is_top, &port), ==, (int) c);
  g_assert_false (is_top);
  g_assert_cmpuint (port, ==, 1);
  p = ct_graph_scene_port_position (scene, a, TRUE, 0);
  g_assert_cmpint (ct_graph_scene_port_at (scene, p.x, p.y + 2, 6, &is_top, &port), ==, (int) a);
  g_assert_true (is_top);

  /* the edge from conv to loss, half way down */
  p = ct_graph_scene_port_position (scene, b, TRUE, 0);
  q = ct_graph_scene_port_position (scene, c, FALSE, 0);
  g_assert_cmpint (ct_graph_scene_edge_at (scene, (p.x + q.x) / 2, (p.y + q.y) / 2, 8), ==, 1);
  g_assert_cmpint (ct_graph_scene_edge_at (scene, p.x + 500, p.y, 8), ==, -1);
}

/* A comparison's mark: a solid stripe down the node's left side, below
 * the header, in the mark's colour, and the body tinted; nothing else. */
static void
test_node_mark (void)
{
  g_autoptr(CtGraphModel) model = ct_graph_model_new ();
  g_autoptr(CtGraphScene) scene = NULL;
  const CtGraphPalette *palette = ct_graph_palette_get (FALSE);
  CtGraphColor mark = { 0x26 / 255.0, 0xa2 / 255.0, 0x69 / 255.0, 1.0 };
  cairo_surface_t *surface;
  cairo_t *cr;
  Image image = { 0 };
  double x, y, w, h;
  guint a;

  a = ct_graph_model_add_node (model, "conv", "conv", "Convolution", CT_GRAPH_FAMILY_VISION);
  scene = ct_graph_scene_new (model, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);
  image_render (&image, scene, palette);
  g_assert_cmpuint (count_color (&image, color_rgb (&mark)), ==, 0);
  cairo_surface_destroy (image.surface);

  ct_graph_scene_node_box (scene, a, &x, &y, &w, &h);
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) ceil (x + w) + 20,
                                        (int) ceil (y + h) + 20);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_translate (cr, 10, 10);
  ct_graph_render_node (cr, scene, a, CT_GRAPH_NODE_STATE_NONE, 0, palette);
  ct_graph_render_node_mark (cr, scene, a, &mark);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  image.surface = surface;
  image.width = cairo_image_surface_get_width (surface);
  image.height = cairo_image_surface_get_height (surface);
  image.stride = cairo_image_surface_get_stride (surface);
  image.data = cairo_image_surface_get_data (surface);
  /* the stripe, 6 px wide, from the header (22 px) to the bottom */
  g_assert_cmpuint (image_pixel (&image, (int) (x + 3) + 10, (int) (y + h / 2 + 11) + 10), ==,
                    color_rgb (&mark));
  g_assert_cmpuint (count_color (&image, color_rgb (&mark)), >, 5 * (guint) (h - 22 - 8));
  /* the header keeps its family colour; the body is tinted, not white */
  g_assert_cmpuint (image_pixel (&image, (int) (x + w / 2) + 10, (int) (y + 4) + 10), ==,
                    color_rgb (&palette->family[CT_GRAPH_FAMILY_VISION]));
  g_assert_cmpuint (image_pixel (&image, (int) (x + w - 4) + 10, (int) (y + h - 4) + 10), !=,
                    color_rgb (&palette->node_body));
  cairo_surface_destroy (surface);
}

static void
test_dark_palette (void)
{
  g_autoptr(CtNetGraph) graph = lenet_graph ();
  g_autoptr(CtGraphScene) scene = ct_graph_scene_new (graph->model, CT_GRAPH_RANKDIR_LR, NULL,
                                                      NULL, NULL);
  const CtGraphPalette *dark = ct_graph_palette_get (TRUE);
  Image image = { 0 };

  g_assert_true (dark->dark);
  image_render (&image, scene, dark);
  /* left to right: wider than tall */
  g_assert_cmpint (image.width, >, image.height);
  g_assert_cmpuint (count_color (&image, color_rgb (&dark->background)), >,
                    (guint) (image.width * image.height) / 4);
  g_assert_cmpuint (count_color (&image, color_rgb (&dark->node_body)), >, 1000);
  cairo_surface_destroy (image.surface);
}

/* Folded layers expanded make the node taller. */
static void
test_expanded (void)
{
  g_autoptr(CtNetGraph) graph = lenet_graph ();
  g_autoptr(GHashTable) expanded = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(CtGraphScene) folded = NULL;
  g_autoptr(CtGraphScene) open = NULL;
  int ip1 = ct_graph_model_find_node (graph->model, "relu1");

  g_assert_cmpint (ip1, ==, ct_graph_model_find_node (graph->model, "ip1"));
  g_hash_table_add (expanded, (gpointer) "ip1");
  folded = ct_graph_scene_new (graph->model, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);
  open = ct_graph_scene_new (graph->model, CT_GRAPH_RANKDIR_TB, expanded, NULL, NULL);
  g_assert_true (open->expanded[ip1]);
  g_assert_false (folded->expanded[ip1]);
  g_assert_cmpfloat (open->layout->nodes[ip1].height, >, folded->layout->nodes[ip1].height);
}

static void
check_file_starts (const char *path, const char *magic)
{
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 1000);
  g_assert_nonnull (g_strstr_len (contents, MIN (length, 200), magic));
}

static void
test_files (void)
{
  g_autoptr(CtNetGraph) graph = lenet_graph ();
  g_autoptr(CtGraphScene) scene = ct_graph_scene_new (graph->model, CT_GRAPH_RANKDIR_TB, NULL,
                                                      NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ct-graph-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "lenet.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "lenet.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "lenet.PDF", NULL);
  g_autofree char *bad = g_build_filename (dir, "lenet.gif", NULL);
  cairo_surface_t *image;

  g_assert_true (ct_graph_render_to_file (scene, png, NULL, 2, &error));
  g_assert_no_error (error);
  image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  /* twice the size of the layout plus the margins */
  g_assert_cmpfloat (fabs (cairo_image_surface_get_width (image)
                           - 2 * (scene->layout->width + 48)), <=, 1);
  cairo_surface_destroy (image);

  g_assert_true (ct_graph_render_to_file (scene, svg, NULL, 1, &error));
  g_assert_no_error (error);
  check_file_starts (svg, "<svg");
  g_assert_true (ct_graph_render_to_file (scene, pdf, NULL, 1, &error));
  g_assert_no_error (error);
  check_file_starts (pdf, "%PDF");

  g_assert_false (ct_graph_render_to_file (scene, bad, NULL, 1, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));

  g_remove (png);
  g_remove (svg);
  g_remove (pdf);
  g_rmdir (dir);
}

/* `cortado-cli draw`, as a user runs it. */
static void
test_cli_draw (void)
{
  const char *cli = g_getenv ("CT_CLI");
  g_autofree char *lenet = lenet_path ();
  g_autofree char *dir = NULL;
  const char *const outputs[] = { "lenet.png", "lenet.svg", "lenet.pdf" };

  if (cli == NULL)
    {
      g_test_skip ("CT_CLI not set");
      return;
    }
  dir = g_dir_make_tmp ("ct-draw-XXXXXX", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree char *out = g_build_filename (dir, outputs[i], NULL);
      g_autofree char *std_out = NULL;
      g_autofree char *std_err = NULL;
      const char *argv[] = { cli, "draw", lenet, out, "--phase", i == 1 ? "TEST" : "TRAIN",
                             "--rankdir", i == 2 ? "LR" : "TB", NULL };
      int status = -1;
      g_autoptr(GError) error = NULL;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                                   &std_out, &std_err, &status, &error));
      g_assert_no_error (error);
      g_test_message ("%s", std_out);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      /* TRAIN: one data layer and no accuracy; TEST: 9 nodes */
      g_assert_nonnull (strstr (std_out, i == 1 ? " 9 nodes" : " 8 nodes"));
      g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
      g_remove (out);
    }
  /* usage errors exit with 2 */
  {
    const char *argv[] = { cli, "draw", lenet, "x.png", "--rankdir", "UP", NULL };
    int status = -1;
    g_autofree char *std_err = NULL;
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                 NULL, NULL, &std_err, &status, NULL));
    g_assert_true (WIFEXITED (status));
    g_assert_cmpint (WEXITSTATUS (status), ==, 2);
    g_assert_nonnull (strstr (std_err, "UP"));
  }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/graph-render/lenet-pixels", test_lenet_pixels);
  g_test_add_func ("/widgets/graph-render/error-outline-and-hits", test_error_outline_and_hits);
  g_test_add_func ("/widgets/graph-render/dark-palette", test_dark_palette);
  g_test_add_func ("/widgets/graph-render/node-mark", test_node_mark);
  g_test_add_func ("/widgets/graph-render/expanded", test_expanded);
  g_test_add_func ("/widgets/graph-render/files", test_files);
  g_test_add_func ("/widgets/graph-render/cli-draw", test_cli_draw);
  return g_test_run ();
}
