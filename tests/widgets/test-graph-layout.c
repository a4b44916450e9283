/* test-graph-layout.c: the layered layout (render/graph/graph-layout*.c) and the
 * graph model derived from nets (app/net-graph.c), without a display.
 *
 * Small graphs check the basic promises (ranks, no overlaps, cycles and
 * self loops survive, crossings removed where they can be); every net in
 * tests/data/zoo (and ../shared/zoo when present) is laid out top-to-bottom
 * and left-to-right with no overlapping nodes and every edge pointing to a
 * later rank; an edit to GoogLeNet relaid incrementally keeps the order of
 * the unchanged nodes and moves few of them. */
#include <math.h>
#include <string.h>

#include "graph-layout.h"
#include "graph-render.h"
#include "net-graph.h"
#include "proto-file.h"

/* Small graphs, laid out directly. */

typedef struct {
  guint n_nodes;
  double widths[32], heights[32];
  guint n_edges;
  CtGraphLayoutEdgeSpec edges[64];
} Graph;

static void
graph_init (Graph *g, guint n_nodes)
{
  memset (g, 0, sizeof *g);
  g->n_nodes = n_nodes;
  for (guint i = 0; i < n_nodes; i++)
    {
      g->widths[i] = 80 + 10 * (i % 3);
      g->heights[i] = 40 + 8 * (i % 2);
    }
}

static void
graph_edge (Graph *g, guint from, guint to)
{
  CtGraphLayoutEdgeSpec *e = &g->edges[g->n_edges++];
  e->from = from;
  e->to = to;
}

static CtGraphLayout *
graph_layout (const Graph *g, CtGraphRankdir rankdir)
{
  CtGraphLayoutRequest request = { 0 };

  request.n_nodes = g->n_nodes;
  request.widths = g->widths;
  request.heights = g->heights;
  request.n_edges = g->n_edges;
  request.edges = g->edges;
  ct_graph_layout_options_init (&request.options, rankdir);
  return ct_graph_layout_compute (&request);
}

static void
test_chain (void)
{
  Graph g;
  g_autoptr(CtGraphLayout) layout = NULL;

  graph_init (&g, 5);
  for (guint i = 0; i + 1 < 5; i++)
    graph_edge (&g, i, i + 1);
  layout = graph_layout (&g, CT_GRAPH_RANKDIR_TB);
  g_assert_cmpuint (layout->n_ranks, ==, 5);
  g_assert_cmpuint (layout->n_dummies, ==, 0);
  for (guint i = 0; i < 5; i++)
    {
      g_assert_cmpint (layout->nodes[i].rank, ==, (int) i);
      /* a chain is a straight line */
      g_assert_cmpfloat (fabs (layout->nodes[i].x - layout->nodes[0].x), <, 0.5);
      if (i > 0)
        g_assert_cmpfloat (layout->nodes[i].y, >, layout->nodes[i - 1].y);
    }
  g_assert_cmpuint (ct_graph_layout_count_overlaps (layout), ==, 0);
  g_assert_cmpuint (ct_graph_layout_count_upward_edges (layout, g.edges), ==, 0);
}

/* Two parallel chains that cross once unless reordered: 0->3, 1->2 with 2
 * and 3 listed in the "wrong" order. */
static void
test_crossing_removed (void)
{
  Graph g;
  g_autoptr(CtGraphLayout) layout = NULL;

  graph_init (&g, 6);
  graph_edge (&g, 0, 3);
  graph_edge (&g, 1, 2);
  graph_edge (&g, 0, 4);
  graph_edge (&g, 1, 5);
  graph_edge (&g, 2, 5);
  graph_edge (&g, 3, 4);
  layout = graph_layout (&g, CT_GRAPH_RANKDIR_TB);
  g_assert_cmpuint (layout->n_crossings, ==, 0);
  g_assert_cmpuint (ct_graph_layout_count_overlaps (layout), ==, 0);
}

static void
test_long_edge_routes (void)
{
  Graph g;
  g_autoptr(CtGraphLayout) layout = NULL;

  graph_init (&g, 4);
  graph_edge (&g, 0, 1);
  graph_edge (&g, 1, 2);
  graph_edge (&g, 2, 3);
  graph_edge (&g, 0, 3);  /* spans three ranks: two dummies */
  layout = graph_layout (&g, CT_GRAPH_RANKDIR_TB);
  g_assert_cmpuint (layout->n_dummies, ==, 2);
  /* two bend points per rank crossed */
  g_assert_cmpuint (layout->routes[3].n_points, ==, 4);
  for (guint i = 1; i < layout->routes[3].n_points; i++)
    g_assert_cmpfloat (layout->routes[3].points[i].y, >=, layout->routes[3].points[i - 1].y);
  /* the long edge passes beside the chain, not through it */
  g_assert_cmpfloat (fabs (layout->routes[3].points[0].x - layout->nodes[1].x), >,
                     layout->nodes[1].width / 2);
}

static void
test_cycle_and_self_loop (void)
{
  Graph g;
  g_autoptr(CtGraphLayout) layout = NULL;
  guint reversed = 0;

  graph_init (&g, 3);
  graph_edge (&g, 0, 1);
  graph_edge (&g, 1, 2);
  graph_edge (&g, 2, 0);
  graph_edge (&g, 1, 1);
  layout = graph_layout (&g, CT_GRAPH_RANKDIR_TB);
  for (guint e = 0; e < g.n_edges; e++)
    reversed += layout->routes[e].reversed;
  g_assert_cmpuint (reversed, ==, 1);
  g_assert_cmpuint (layout->n_ranks, ==, 3);
  g_assert_cmpuint (ct_graph_layout_count_overlaps (layout), ==, 0);
}

static void
test_empty (void)
{
  Graph g;
  g_autoptr(CtGraphLayout) layout = NULL;

  graph_init (&g, 0);
  layout = graph_layout (&g, CT_GRAPH_RANKDIR_LR);
  g_assert_cmpuint (layout->n_nodes, ==, 0);
  g_assert_cmpuint (layout->n_ranks, ==, 0);
  g_assert_cmpfloat (layout->width, ==, 0);
}

static void
test_left_to_right (void)
{
  Graph g;
  g_autoptr(CtGraphLayout) layout = NULL;

  graph_init (&g, 3);
  graph_edge (&g, 0, 1);
  graph_edge (&g, 0, 2);
  layout = graph_layout (&g, CT_GRAPH_RANKDIR_LR);
  g_assert_cmpfloat (layout->nodes[1].x, >, layout->nodes[0].x);
  /* a rank's nodes line up on the side their inputs come from */
  g_assert_cmpfloat (fabs ((layout->nodes[1].x - layout->nodes[1].width / 2)
                           - (layout->nodes[2].x - layout->nodes[2].width / 2)), <, 0.5);
  g_assert_cmpfloat (fabs (layout->nodes[1].y - layout->nodes[2].y), >=, 40);
  /* the parent sits between its two children */
  g_assert_cmpfloat (layout->nodes[0].y, >, MIN (layout->nodes[1].y, layout->nodes[2].y));
  g_assert_cmpfloat (layout->nodes[0].y, <, MAX (layout->nodes[1].y, layout->nodes[2].y));
}

/* Nets */

static const char *
data_dir (void)
{
  const char *dir = g_getenv ("CT_TEST_DATA");
  return dir != NULL ? dir : CT_TEST_SOURCE_DIR "/tests/data";
}

static void
collect_prototxts (const char *dir, GPtrArray *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect_prototxts (path, out);
      else if (g_str_has_suffix (name, ".prototxt"))
        g_ptr_array_add (out, g_steal_pointer (&path));
    }
}

static int
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The net at PATH, or NULL when it is a solver or does not parse. */
static Caffe__NetParameter *
load_net (const char *path)
{
  g_autofree char *text = NULL;
  gsize length;

  if (!g_file_get_contents (path, &text, &length, NULL)
      || ct_proto_guess_kind (text, length) != CT_PROTO_KIND_NET)
    return NULL;
  return ct_net_load_text_file (path, CT_TEXT_LENIENT, NULL, NULL);
}

typedef struct {
  guint files;
  guint nets;
  guint unreadable;
  guint nodes;
  guint edges;
  guint largest;
} ZooCounts;

static void
check_scene (const char *path, CtGraphScene *scene)
{
  const CtGraphLayout *layout = scene->layout;
  guint overlaps = ct_graph_layout_count_overlaps (layout);
  guint upward = ct_graph_layout_count_upward_edges (layout, scene->edge_specs);

  if (overlaps != 0 || upward != 0)
    g_test_message ("%s (%s): %u overlaps, %u upward edges", path,
                    layout->rankdir == CT_GRAPH_RANKDIR_TB ? "TB" : "LR", overlaps, upward);
  g_assert_cmpuint (overlaps, ==, 0);
  g_assert_cmpuint (upward, ==, 0);
  for (guint i = 0; i < layout->n_nodes; i++)
    {
      g_assert_true (isfinite (layout->nodes[i].x) && isfinite (layout->nodes[i].y));
      g_assert_cmpfloat (layout->nodes[i].x - layout->nodes[i].width / 2, >=, -0.01);
      g_assert_cmpfloat (layout->nodes[i].y - layout->nodes[i].height / 2, >=, -0.01);
      g_assert_cmpfloat (layout->nodes[i].x + layout->nodes[i].width / 2, <=,
                         layout->width + 0.01);
    }
}

static void
lay_out_zoo (const char *zoo, ZooCounts *counts)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  collect_prototxts (zoo, paths);
  g_ptr_array_sort (paths, compare_paths);
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      Caffe__NetParameter *param;
      CtNetGraphOptions options = { .phase = CT_NET_GRAPH_PHASE_BOTH, .no_shapes = TRUE };
      g_autoptr(CtNetGraph) graph = NULL;

      counts->files++;
      {
        g_autofree char *text = NULL;
        gsize length;
        if (g_file_get_contents (path, &text, &length, NULL)
            && ct_proto_guess_kind (text, length) != CT_PROTO_KIND_NET)
          continue;
      }
      param = load_net (path);
      if (param == NULL)
        {
          g_test_message ("%s: does not parse, skipped", path);
          counts->unreadable++;
          continue;
        }
      graph = ct_net_graph_new (param, &options);
      protobuf_c_message_free_unpacked (&param->base, NULL);
      for (int dir = 0; dir < 2; dir++)
        {
          g_autoptr(CtGraphScene) scene = ct_graph_scene_new (graph->model, dir, NULL, NULL, NULL);
          check_scene (path, scene);
        }
      counts->nets++;
      counts->nodes += ct_graph_model_n_nodes (graph->model);
      counts->edges += ct_graph_model_n_edges (graph->model);
      counts->largest = MAX (counts->largest, ct_graph_model_n_nodes (graph->model));
    }
}

static void
test_zoo (void)
{
  g_autofree char *zoo = g_build_filename (data_dir (), "zoo", NULL);
  ZooCounts counts = { 0 };

  lay_out_zoo (zoo, &counts);
  g_test_message ("tests/data/zoo: %u files, %u nets laid out (%u unreadable), %u nodes, "
                  "%u edges, largest %u nodes", counts.files, counts.nets, counts.unreadable,
                  counts.nodes, counts.edges, counts.largest);
  /* the corpus as committed: 80 prototxt files, of which 57 are nets */
  g_assert_cmpuint (counts.files, ==, 80);
  g_assert_cmpuint (counts.nets, ==, 57);
  g_assert_cmpuint (counts.unreadable, ==, 0);
  /* folded as the workbench shows them */
  g_assert_cmpuint (counts.nodes, ==, 2464);
  g_assert_cmpuint (counts.edges, ==, 2966);
  g_assert_cmpuint (counts.largest, ==, 337);
}

static void
test_shared_zoo (void)
{
  const char *shared = g_getenv ("CT_SHARED_DIR");
  g_autofree char *zoo = shared != NULL ? g_build_filename (shared, "zoo", NULL) : NULL;
  ZooCounts counts = { 0 };

  if (zoo == NULL || !g_file_test (zoo, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no shared zoo (CT_SHARED_DIR)");
      return;
    }
  lay_out_zoo (zoo, &counts);
  g_test_message ("shared zoo: %u files, %u nets laid out (%u unreadable), %u nodes, "
                  "%u edges, largest %u nodes", counts.files, counts.nets, counts.unreadable,
                  counts.nodes, counts.edges, counts.largest);
  g_assert_cmpuint (counts.nets, >=, 57);
}

/* Incremental layout: GoogLeNet, then GoogLeNet with one layer of an
 * inception branch removed (its consumer reads the removed layer's input
 * instead), laid out from the first. */
static Caffe__NetParameter *
googlenet (void)
{
  g_autofree char *path = g_build_filename (data_dir (), "zoo", "bvlc_googlenet",
                                            "deploy.prototxt", NULL);
  Caffe__NetParameter *param = load_net (path);

  g_assert_nonnull (param);
  return param;
}

static int
layer_index (const Caffe__NetParameter *param, const char *name)
{
  for (gsize i = 0; i < param->n_layer; i++)
    if (strcmp (param->layer[i]->name, name) == 0)
      return (int) i;
  return -1;
}

/* Remove layer NAME: whoever read its top reads its bottom. */
static void
remove_layer (Caffe__NetParameter *param, const char *name)
{
  int index = layer_index (param, name);
  Caffe__LayerParameter *layer;

  g_assert_cmpint (index, >=, 0);
  layer = param->layer[index];
  for (gsize i = index + 1; i < param->n_layer; i++)
    for (gsize j = 0; j < param->layer[i]->n_bottom; j++)
      if (strcmp (param->layer[i]->bottom[j], layer->top[0]) == 0)
        {
          free (param->layer[i]->bottom[j]);
          param->layer[i]->bottom[j] = strdup (layer->bottom[0]);
        }
  memmove (param->layer + index, param->layer + index + 1,
           (param->n_layer - index - 1) * sizeof (Caffe__LayerParameter *));
  param->n_layer--;
  protobuf_c_message_free_unpacked (&layer->base, NULL);
}

typedef struct {
  guint common;
  guint moved;
  guint order_changes;
} Stability;

static Stability
compare_scenes (const CtGraphScene *before, const CtGraphScene *after)
{
  Stability s = { 0 };
  guint n = ct_graph_model_n_nodes (after->model);

  for (guint i = 0; i < n; i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (after->model, i);
      int j = ct_graph_model_find_node (before->model, node->id);
      const CtGraphLayoutNode *a, *b;

      if (j < 0)
        continue;
      s.common++;
      a = &after->layout->nodes[i];
      b = &before->layout->nodes[j];
      if (fabs (a->x - b->x) > 1 || fabs (a->y - b->y) > 1)
        s.moved++;
      /* left-to-right order among common nodes of a rank must not change */
      for (guint k = i + 1; k < n; k++)
        {
          const CtGraphNode *other = ct_graph_model_get_node (after->model, k);
          int l = ct_graph_model_find_node (before->model, other->id);
          const CtGraphLayoutNode *c, *d;
          if (l < 0)
            continue;
          c = &after->layout->nodes[k];
          d = &before->layout->nodes[l];
          if (a->rank == c->rank && b->rank == d->rank && (a->x < c->x) != (b->x < d->x))
            s.order_changes++;
        }
    }
  return s;
}

static void
test_incremental (void)
{
  Caffe__NetParameter *param = googlenet ();
  CtNetGraphOptions options = { .no_shapes = TRUE };
  g_autoptr(CtNetGraph) first = ct_net_graph_new (param, &options);
  g_autoptr(CtNetGraph) second = NULL;
  g_autoptr(CtGraphScene) before = ct_graph_scene_new (first->model, CT_GRAPH_RANKDIR_TB,
                                                       NULL, NULL, NULL);
  g_autoptr(CtGraphScene) after = NULL;
  g_autoptr(CtGraphScene) fresh = NULL;
  Stability incremental, from_scratch;

  /* the convolution and the ReLU folded into it */
  remove_layer (param, "inception_4c/relu_5x5");
  remove_layer (param, "inception_4c/5x5");
  second = ct_net_graph_new (param, &options);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_cmpuint (ct_graph_model_n_nodes (second->model), ==,
                    ct_graph_model_n_nodes (first->model) - 1);

  after = ct_graph_scene_new (second->model, CT_GRAPH_RANKDIR_TB, NULL, before, NULL);
  fresh = ct_graph_scene_new (second->model, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);
  check_scene ("googlenet edited", after);
  incremental = compare_scenes (before, after);
  from_scratch = compare_scenes (before, fresh);
  g_test_message ("after removing a layer: %u of %u nodes moved incrementally (%u order "
                  "changes), %u from scratch (%u order changes)", incremental.moved,
                  incremental.common, incremental.order_changes, from_scratch.moved,
                  from_scratch.order_changes);
  g_assert_cmpuint (incremental.common, ==, ct_graph_model_n_nodes (second->model));
  g_assert_cmpuint (incremental.order_changes, ==, 0);
  /* the branch that lost a layer may shift; the rest of the net stays */
  g_assert_cmpuint (incremental.moved, <=, incremental.common / 10);
}

/* Adding a layer in the middle of a chain pushes what is below it down a
 * rank; its order and its horizontal places stay. */
static void
test_incremental_insert (void)
{
  Caffe__NetParameter *param = googlenet ();
  CtNetGraphOptions options = { .no_shapes = TRUE };
  g_autoptr(CtNetGraph) first = ct_net_graph_new (param, &options);
  g_autoptr(CtGraphModel) model = ct_graph_model_new ();
  g_autoptr(CtGraphScene) before = ct_graph_scene_new (first->model, CT_GRAPH_RANKDIR_TB,
                                                       NULL, NULL, NULL);
  g_autoptr(CtGraphScene) after = NULL;
  guint n = ct_graph_model_n_nodes (first->model);
  guint x_moved = 0, order_changes;
  guint extra;

  protobuf_c_message_free_unpacked (&param->base, NULL);
  /* copy the model, with a new node between the first two chain nodes */
  for (guint i = 0; i < n; i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (first->model, i);
      ct_graph_model_add_node (model, node->id, node->name, node->type, node->family);
      for (guint j = 0; j < node->bottoms->len; j++)
        ct_graph_model_add_bottom (model, i, node->bottoms->pdata[j]);
      for (guint j = 0; j < node->tops->len; j++)
        ct_graph_model_add_top (model, i, node->tops->pdata[j]);
    }
  extra = ct_graph_model_add_node (model, "new_layer", "new_layer", "ReLU",
                                   CT_GRAPH_FAMILY_NEURON);
  ct_graph_model_add_bottom (model, extra, "x");
  ct_graph_model_add_top (model, extra, "x");
  for (guint e = 0; e < ct_graph_model_n_edges (first->model); e++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (first->model, e);
      if (e == 0)
        {
          ct_graph_model_add_edge (model, edge->from_node, edge->from_port, extra, 0, "x", NULL);
          ct_graph_model_add_edge (model, extra, 0, edge->to_node, edge->to_port, "x", NULL);
        }
      else
        ct_graph_model_add_edge (model, edge->from_node, edge->from_port, edge->to_node,
                                 edge->to_port, edge->blob, NULL);
    }
  after = ct_graph_scene_new (model, CT_GRAPH_RANKDIR_TB, NULL, before, NULL);
  check_scene ("googlenet with a new layer", after);
  order_changes = compare_scenes (before, after).order_changes;
  for (guint i = 0; i < n; i++)
    if (fabs (after->layout->nodes[i].x - before->layout->nodes[i].x) > 1)
      x_moved++;
  g_test_message ("after inserting a layer: %u of %u nodes moved sideways, %u order changes",
                  x_moved, n, order_changes);
  g_assert_cmpuint (order_changes, ==, 0);
  g_assert_cmpuint (x_moved, <=, n / 10);
}

/* LeNet's shape as a plain graph: a chain 0 -> 1 -> ... -> 7 with a side
 * edge 0 -> 7 (the label), laid out incrementally from PREVIOUS (may be
 * NULL), without the edge into node 5 when CUT. */
static CtGraphLayout *
lenet_layout (gboolean cut, const CtGraphLayout *previous)
{
  Graph g;
  CtGraphLayoutRequest request = { 0 };
  CtGraphPoint prev[8];
  gboolean has_prev[8];

  graph_init (&g, 8);
  for (guint i = 0; i < 8; i++)
    g.heights[i] = 44;  /* ranks of one height: depths compare exactly */
  for (guint i = 0; i + 1 < 8; i++)
    if (!cut || i != 4)
      graph_edge (&g, i, i + 1);
  graph_edge (&g, 0, 7);
  for (guint i = 0; previous != NULL && i < 8; i++)
    {
      prev[i].x = previous->nodes[i].x;
      prev[i].y = previous->nodes[i].y;
      has_prev[i] = TRUE;
    }
  request.n_nodes = g.n_nodes;
  request.widths = g.widths;
  request.heights = g.heights;
  request.n_edges = g.n_edges;
  request.edges = g.edges;
  request.previous = previous != NULL ? prev : NULL;
  request.has_previous = previous != NULL ? has_prev : NULL;
  ct_graph_layout_options_init (&request.options, CT_GRAPH_RANKDIR_TB);
  return ct_graph_layout_compute (&request);
}

/* Cutting the edge into the middle of a chain makes its lower half a new
 * source: the upper half stays where it was (no rank is dragged down by a
 * node that came up from below), and putting the edge back (an undo) gives
 * the first layout's depth again instead of piling up gaps. */
static void
test_incremental_cut_and_undo (void)
{
  g_autoptr(CtGraphLayout) first = lenet_layout (FALSE, NULL);
  g_autoptr(CtGraphLayout) cut = lenet_layout (TRUE, first);
  g_autoptr(CtGraphLayout) undone = lenet_layout (FALSE, cut);
  double worst = 0;

  g_assert_cmpint (cut->nodes[5].rank, ==, 0);
  for (guint i = 0; i < 5; i++)
    {
      g_test_message ("node %u: y %.0f -> %.0f", i, first->nodes[i].y, cut->nodes[i].y);
      g_assert_cmpfloat (fabs (cut->nodes[i].y - first->nodes[i].y), <, 1);
    }
  for (guint i = 0; i < 8; i++)
    worst = MAX (worst, fabs (undone->nodes[i].y - first->nodes[i].y));
  g_test_message ("height %.0f, cut %.0f, undone %.0f; worst vertical move after the undo "
                  "%.0f", first->height, cut->height, undone->height, worst);
  g_assert_cmpfloat (cut->height, <=, first->height + 1);
  g_assert_cmpfloat (undone->height, <=, first->height + 1);
  g_assert_cmpfloat (worst, <, 1);
  g_assert_cmpuint (ct_graph_layout_count_overlaps (undone), ==, 0);
}

/* The graph of a small train/test net: phases, folding, fan-out, shapes. */
static void
test_net_graph_phases (void)
{
  static const char text[] =
    "name: 'tiny'\n"
    "layer { name: 'in' type: 'Input' top: 'data' top: 'label'\n"
    "  input_param { shape { dim: 2 dim: 3 } shape { dim: 2 } } }\n"
    "layer { name: 'drop_train' type: 'Dropout' bottom: 'data' top: 'data'\n"
    "  include { phase: TRAIN } }\n"
    "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip'\n"
    "  inner_product_param { num_output: 4 } }\n"
    "layer { name: 'relu' type: 'ReLU' bottom: 'ip' top: 'ip' }\n"
    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip' bottom: 'label' top: 'loss' }\n"
    "layer { name: 'acc' type: 'Accuracy' bottom: 'ip' bottom: 'label' top: 'acc'\n"
    "  include { phase: TEST } }\n";
  g_autoptr(GError) error = NULL;
  Caffe__NetParameter *param = (Caffe__NetParameter *)
    ct_text_parse (&caffe__net_parameter__descriptor, text, -1, "tiny.prototxt",
                   CT_TEXT_STRICT, &error);
  CtNetGraphOptions both = { .phase = CT_NET_GRAPH_PHASE_BOTH };
  CtNetGraphOptions test = { .phase = CT_NET_GRAPH_PHASE_TEST };
  g_autoptr(CtNetGraph) graph = NULL;
  g_autoptr(CtNetGraph) test_graph = NULL;
  const CtGraphNode *in, *ip, *acc;
  int ip_index;
  guint ip_out = 0, n_out;
  const guint *out;

  g_assert_no_error (error);
  graph = ct_net_graph_new (param, &both);
  test_graph = ct_net_graph_new (param, &test);
  protobuf_c_message_free_unpacked (&param->base, NULL);

  /* both phases: in (dropout folded), ip (relu folded), loss, acc */
  g_assert_null (graph->net_error);
  g_assert_cmpuint (ct_graph_model_n_nodes (graph->model), ==, 4);
  g_assert_cmpuint (graph->n_layers_shown, ==, 6);
  in = ct_graph_model_get_node (graph->model, 0);
  g_assert_cmpuint (in->folded->len, ==, 1);
  g_assert_cmpstr (((CtGraphFolded *) in->folded->pdata[0])->type, ==, "Dropout");
  ip_index = ct_graph_model_find_node (graph->model, "relu");
  g_assert_cmpint (ip_index, ==, 1);
  ip = ct_graph_model_get_node (graph->model, ip_index);
  g_assert_cmpstr (ip->detail, ==, "4 out");
  acc = ct_graph_model_get_node (graph->model, 3);
  g_assert_cmpint (acc->phase, ==, CT_GRAPH_PHASE_TEST);
  g_assert_cmpint (ip->phase, ==, CT_GRAPH_PHASE_ALL);
  /* ip's one top port feeds loss and acc: a fan-out, with the shape */
  out = ct_graph_model_node_out_edges (graph->model, ip_index, &n_out);
  for (guint i = 0; i < n_out; i++)
    {
      const CtGraphEdge *edge = ct_graph_model_get_edge (graph->model, out[i]);
      g_assert_cmpuint (edge->from_port, ==, 0);
      g_assert_cmpstr (edge->shape, ==, "2×4");
      ip_out++;
    }
  g_assert_cmpuint (ip_out, ==, 2);
  g_assert_cmpuint (graph->n_failed, ==, 0);
  g_assert_cmpuint (graph->n_params, ==, 3 * 4 + 4);

  /* TEST only: the TRAIN dropout is gone */
  g_assert_cmpuint (ct_graph_model_n_nodes (test_graph->model), ==, 4);
  g_assert_cmpuint (ct_graph_model_get_node (test_graph->model, 0)->folded->len, ==, 0);
  g_assert_cmpint (g_array_index (test_graph->layer_nodes, int, 1), ==, -1);
  g_assert_cmpint (ct_graph_model_get_node (test_graph->model, 3)->phase, ==,
                   CT_GRAPH_PHASE_ALL);
}

/* A layer the engine refuses carries the error; the net still draws. */
static void
test_net_graph_errors (void)
{
  static const char text[] =
    "layer { name: 'in' type: 'Input' top: 'data' input_param { shape { dim: 1 dim: 4 } } }\n"
    "layer { name: 'bad' type: 'NoSuchType' bottom: 'data' top: 'x' }\n"
    "layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'c' }\n";
  g_autoptr(GError) error = NULL;
  Caffe__NetParameter *param = (Caffe__NetParameter *)
    ct_text_parse (&caffe__net_parameter__descriptor, text, -1, "bad.prototxt",
                   CT_TEXT_STRICT, &error);
  g_autoptr(CtNetGraph) graph = NULL;

  g_assert_no_error (error);
  graph = ct_net_graph_new (param, NULL);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_cmpuint (ct_graph_model_n_nodes (graph->model), ==, 3);
  g_assert_nonnull (ct_graph_model_get_node (graph->model, 1)->error);
  g_assert_cmpint (ct_graph_model_get_node (graph->model, 1)->family, ==, CT_GRAPH_FAMILY_OTHER);
  /* a convolution without num_output or kernel fails its setup */
  g_assert_nonnull (ct_graph_model_get_node (graph->model, 2)->error);
  g_assert_cmpuint (graph->n_failed, ==, 2);
  g_assert_cmpuint (ct_graph_model_n_errors (graph->model), ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/graph-layout/chain", test_chain);
  g_test_add_func ("/widgets/graph-layout/crossing-removed", test_crossing_removed);
  g_test_add_func ("/widgets/graph-layout/long-edge-routes", test_long_edge_routes);
  g_test_add_func ("/widgets/graph-layout/cycle-and-self-loop", test_cycle_and_self_loop);
  g_test_add_func ("/widgets/graph-layout/empty", test_empty);
  g_test_add_func ("/widgets/graph-layout/left-to-right", test_left_to_right);
  g_test_add_func ("/widgets/graph-layout/net-graph-phases", test_net_graph_phases);
  g_test_add_func ("/widgets/graph-layout/net-graph-errors", test_net_graph_errors);
  g_test_add_func ("/widgets/graph-layout/zoo", test_zoo);
  g_test_add_func ("/widgets/graph-layout/shared-zoo", test_shared_zoo);
  g_test_add_func ("/widgets/graph-layout/incremental-remove", test_incremental);
  g_test_add_func ("/widgets/graph-layout/incremental-insert", test_incremental_insert);
  g_test_add_func ("/widgets/graph-layout/incremental-cut-and-undo", test_incremental_cut_and_undo);
  return g_test_run ();
}
