/* test-graph-hit.c: hit-testing the graph's edges (render/graph/, no
 * display), as a click on the canvas selects one.
 *
 * A graph with a fan-out, a fan-in and an edge that skips ranks (so that
 * it is routed round with bends) is laid out top to bottom and left to
 * right. Each edge is drawn alone as the canvas draws a selected edge
 * (ct_graph_render_edge_selected); then every pixel that edge's line
 * covers, and no other edge's does, must hit that edge within a few
 * pixels' tolerance; points further than the tolerance from every line
 * must hit nothing; and near a straight edge the tolerance is the
 * distance that decides. */
#include <math.h>

#include "graph-render.h"

#define TOLERANCE 5.0
#define MARGIN 30

typedef struct {
  int width, height;
  guint n_edges;
  guint8 *covered; /* per pixel: bit e set when edge e's line covers it */
} Coverage;

static CtGraphModel *
test_model (void)
{
  CtGraphModel *model = ct_graph_model_new ();
  guint data, conv, pool, ip, loss;

  data = ct_graph_model_add_node (model, "data", "data", "Input", CT_GRAPH_FAMILY_DATA);
  ct_graph_model_add_top (model, data, "data");
  conv = ct_graph_model_add_node (model, "conv", "conv", "Convolution", CT_GRAPH_FAMILY_VISION);
  ct_graph_model_add_bottom (model, conv, "data");
  ct_graph_model_add_top (model, conv, "conv");
  pool = ct_graph_model_add_node (model, "pool", "pool", "Pooling", CT_GRAPH_FAMILY_VISION);
  ct_graph_model_add_bottom (model, pool, "conv");
  ct_graph_model_add_top (model, pool, "pool");
  ip = ct_graph_model_add_node (model, "ip", "ip", "InnerProduct", CT_GRAPH_FAMILY_COMMON);
  ct_graph_model_add_bottom (model, ip, "pool");
  ct_graph_model_add_bottom (model, ip, "conv");
  ct_graph_model_add_top (model, ip, "ip");
  loss = ct_graph_model_add_node (model, "loss", "loss", "SoftmaxWithLoss", CT_GRAPH_FAMILY_LOSS);
  ct_graph_model_add_bottom (model, loss, "ip");
  ct_graph_model_add_bottom (model, loss, "data");
  ct_graph_model_add_edge (model, data, 0, conv, 0, "data", "2×1×8×8");
  ct_graph_model_add_edge (model, conv, 0, pool, 0, "conv", NULL);
  ct_graph_model_add_edge (model, pool, 0, ip, 0, "pool", NULL);
  ct_graph_model_add_edge (model, conv, 0, ip, 1, "conv", NULL);
  ct_graph_model_add_edge (model, ip, 0, loss, 0, "ip", NULL);
  /* from the top of the graph to its bottom, past every rank between */
  ct_graph_model_add_edge (model, data, 0, loss, 1, "data", "2×1×8×8");
  return model;
}

/* Which pixels each edge's line covers, drawn alone as selected. */
static void
coverage_init (Coverage *cov, const CtGraphScene *scene)
{
  const CtGraphPalette *palette = ct_graph_palette_get (FALSE);

  cov->width = (int) ceil (scene->layout->width) + 2 * MARGIN;
  cov->height = (int) ceil (scene->layout->height) + 2 * MARGIN;
  cov->n_edges = ct_graph_model_n_edges (scene->model);
  g_assert_cmpuint (cov->n_edges, <=, 8);
  cov->covered = g_new0 (guint8, (gsize) cov->width * cov->height);
  for (guint e = 0; e < cov->n_edges; e++)
    {
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, cov->width,
                                                             cov->height);
      cairo_t *cr = cairo_create (surface);
      const guint8 *data;
      int stride;
      guint32 accent = (guint32) lround (palette->accent.r * 255) << 16
                       | (guint32) lround (palette->accent.g * 255) << 8
                       | (guint32) lround (palette->accent.b * 255);
      guint n = 0;

      cairo_set_source_rgb (cr, 0, 0, 0);
      cairo_paint (cr);
      cairo_translate (cr, MARGIN, MARGIN);
      ct_graph_render_edge_selected (cr, scene, palette, e);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      data = cairo_image_surface_get_data (surface);
      stride = cairo_image_surface_get_stride (surface);
      for (int y = 0; y < cov->height; y++)
        for (int x = 0; x < cov->width; x++)
          /* the line itself, in the accent colour (not its halo) */
          if ((*(const guint32 *) (data + y * stride + x * 4) & 0xffffff) == accent)
            {
              cov->covered[y * cov->width + x] |= 1u << e;
              n++;
            }
      g_test_message ("edge %u covers %u pixels", e, n);
      /* every edge is drawn, and long enough to be clicked */
      g_assert_cmpuint (n, >, 60);
      cairo_surface_destroy (surface);
    }
}

/* Whether any line lies within R pixels of X, Y. */
static gboolean
near_any_line (const Coverage *cov, int x, int y, int r)
{
  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      {
        int px = x + dx, py = y + dy;

        if (px >= 0 && py >= 0 && px < cov->width && py < cov->height
            && dx * dx + dy * dy <= r * r && cov->covered[py * cov->width + px] != 0)
          return TRUE;
      }
  return FALSE;
}

static void
check_scene (CtGraphRankdir rankdir)
{
  g_autoptr (CtGraphModel) model = test_model ();
  g_autoptr (CtGraphScene) scene = ct_graph_scene_new (model, rankdir, NULL, NULL, NULL);
  Coverage cov = { 0 };
  guint hits[8] = { 0 }, misses = 0, far = 0;

  coverage_init (&cov, scene);
  for (int y = 0; y < cov.height; y++)
    for (int x = 0; x < cov.width; x++)
      {
        guint8 bits = cov.covered[y * cov.width + x];
        double gx = x + 0.5 - MARGIN, gy = y + 0.5 - MARGIN;

        /* pixels of one edge's line only (fan-outs share their start) */
        if (bits != 0 && (bits & (bits - 1)) == 0)
          {
            int want = g_bit_nth_lsf (bits, -1);
            int got = ct_graph_scene_edge_at (scene, gx, gy, TOLERANCE);

            if (got != want)
              {
                g_test_message ("pixel %d, %d of edge %d hits %d", x, y, want, got);
                misses++;
              }
            else
              hits[want]++;
          }
      }
  /* a sparse grid of points far from every line hits nothing */
  for (int y = 0; y < cov.height; y += 5)
    for (int x = 0; x < cov.width; x += 5)
      if (!near_any_line (&cov, x, y, (int) TOLERANCE + 3))
        {
          g_assert_cmpint (ct_graph_scene_edge_at (scene, x + 0.5 - MARGIN, y + 0.5 - MARGIN,
                                                   TOLERANCE), ==, -1);
          far++;
        }
  g_test_message ("%u pixels missed, %u far points", misses, far);
  g_assert_cmpuint (misses, ==, 0);
  g_assert_cmpuint (far, >, 100);
  for (guint e = 0; e < cov.n_edges; e++)
    g_assert_cmpuint (hits[e], >, 30);
  g_free (cov.covered);
}

static void
test_edges_top_to_bottom (void)
{
  check_scene (CT_GRAPH_RANKDIR_TB);
}

static void
test_edges_left_to_right (void)
{
  check_scene (CT_GRAPH_RANKDIR_LR);
}

/* A straight edge between two ports one above the other: the tolerance
 * decides, measured square to the edge. */
static void
test_tolerance (void)
{
  g_autoptr (CtGraphModel) model = ct_graph_model_new ();
  g_autoptr (CtGraphScene) scene = NULL;
  CtGraphPoint p, q;
  double mx, my;
  guint a, b;

  a = ct_graph_model_add_node (model, "a", "a", "Input", CT_GRAPH_FAMILY_DATA);
  ct_graph_model_add_top (model, a, "x");
  b = ct_graph_model_add_node (model, "b", "b", "ReLU", CT_GRAPH_FAMILY_NEURON);
  ct_graph_model_add_bottom (model, b, "x");
  ct_graph_model_add_edge (model, a, 0, b, 0, "x", NULL);
  scene = ct_graph_scene_new (model, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);
  p = ct_graph_scene_port_position (scene, a, TRUE, 0);
  q = ct_graph_scene_port_position (scene, b, FALSE, 0);
  /* one above the other: a vertical line */
  g_assert_cmpfloat (fabs (p.x - q.x), <, 0.5);
  g_assert_cmpfloat (q.y - p.y, >, 20);
  mx = (p.x + q.x) / 2;
  my = (p.y + q.y) / 2;
  g_assert_cmpint (ct_graph_scene_edge_at (scene, mx, my, TOLERANCE), ==, 0);
  g_assert_cmpint (ct_graph_scene_edge_at (scene, mx + 4, my, TOLERANCE), ==, 0);
  g_assert_cmpint (ct_graph_scene_edge_at (scene, mx - 4, my, TOLERANCE), ==, 0);
  g_assert_cmpint (ct_graph_scene_edge_at (scene, mx + 6, my, TOLERANCE), ==, -1);
  g_assert_cmpint (ct_graph_scene_edge_at (scene, mx + 4, my, 3), ==, -1);
  /* beyond its ends, along its line: nothing */
  g_assert_cmpint (ct_graph_scene_edge_at (scene, p.x, p.y - 8, TOLERANCE), ==, -1);
  g_assert_cmpint (ct_graph_scene_edge_at (scene, q.x, q.y + 8, TOLERANCE), ==, -1);
  /* a graph without edges */
  {
    g_autoptr (CtGraphModel) lone = ct_graph_model_new ();
    g_autoptr (CtGraphScene) lone_scene = NULL;

    ct_graph_model_add_node (lone, "a", "a", "Input", CT_GRAPH_FAMILY_DATA);
    lone_scene = ct_graph_scene_new (lone, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);
    g_assert_cmpint (ct_graph_scene_edge_at (lone_scene, 0, 0, TOLERANCE), ==, -1);
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/graph-hit/edges-top-to-bottom", test_edges_top_to_bottom);
  g_test_add_func ("/widgets/graph-hit/edges-left-to-right", test_edges_left_to_right);
  g_test_add_func ("/widgets/graph-hit/tolerance", test_tolerance);
  return g_test_run ();
}
