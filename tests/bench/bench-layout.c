/* bench-layout.c: how long the graph of a large net takes to lay out.
 *
 * For ResNet-152 and Inception-ResNet-v2 (tests/data/zoo, else
 * ../shared/zoo), folded as the workbench shows them, prints the median of
 * 20 runs (after warm-up) of: the layout alone (ranks, ordering,
 * coordinates, routes), the whole scene (measuring every node's text with
 * Pango, then the layout), and an incremental layout from the previous
 * positions. The goal is a scene under 200 ms. */
#include <stdlib.h>
#include <time.h>

#include "graph-render.h"
#include "net-graph.h"
#include "proto-file.h"

#define N_RUNS 20
#define N_WARMUP 3
#define GOAL_MS 200.0

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *values, guint n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static double
now_ms (void)
{
  return g_get_monotonic_time () / 1000.0;
}

static char *
find_net (const char *dir, const char *file)
{
  const char *data = g_getenv ("CT_TEST_DATA");
  const char *shared = g_getenv ("CT_SHARED_DIR");
  char *path = g_build_filename (data != NULL ? data : CT_TEST_SOURCE_DIR "/tests/data", "zoo", dir,
                                 file, NULL);

  if (g_file_test (path, G_FILE_TEST_EXISTS) || shared == NULL)
    return path;
  g_free (path);
  return g_build_filename (shared, "zoo", dir, file, NULL);
}

static gboolean
bench_net (const char *label, const char *dir, const char *file)
{
  g_autofree char *path = find_net (dir, file);
  g_autoptr(GError) error = NULL;
  CtNetGraphOptions options = { .phase = CT_NET_GRAPH_PHASE_TEST, .no_shapes = TRUE };
  g_autoptr(CtNetGraph) graph = NULL;
  g_autoptr(CtGraphScene) reference = NULL;
  Caffe__NetParameter *param;
  double layout_ms[N_RUNS], scene_ms[N_RUNS], incremental_ms[N_RUNS];
  CtGraphLayoutRequest request = { 0 };
  guint n;
  g_autofree double *widths = NULL;
  g_autofree double *heights = NULL;
  gboolean ok;

  param = ct_net_load_text_file (path, CT_TEXT_LENIENT, NULL, &error);
  if (param == NULL)
    {
      g_printerr ("bench-layout: %s\n", error->message);
      return FALSE;
    }
  graph = ct_net_graph_new (param, &options);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  reference = ct_graph_scene_new (graph->model, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);

  /* the layout alone, on the measured sizes */
  n = ct_graph_model_n_nodes (graph->model);
  widths = g_new (double, n);
  heights = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      widths[i] = reference->layout->nodes[i].width;
      heights[i] = reference->layout->nodes[i].height;
    }
  request.n_nodes = n;
  request.widths = widths;
  request.heights = heights;
  request.n_edges = ct_graph_model_n_edges (graph->model);
  request.edges = reference->edge_specs;
  ct_graph_layout_options_init (&request.options, CT_GRAPH_RANKDIR_TB);

  for (guint run = 0; run < N_WARMUP + N_RUNS; run++)
    {
      double t0 = now_ms (), t1, t2, t3;
      CtGraphLayout *layout = ct_graph_layout_compute (&request);
      CtGraphScene *scene, *again;

      t1 = now_ms ();
      scene = ct_graph_scene_new (graph->model, CT_GRAPH_RANKDIR_TB, NULL, NULL, NULL);
      t2 = now_ms ();
      again = ct_graph_scene_new (graph->model, CT_GRAPH_RANKDIR_TB, NULL, scene, NULL);
      t3 = now_ms ();
      if (run >= N_WARMUP)
        {
          layout_ms[run - N_WARMUP] = t1 - t0;
          scene_ms[run - N_WARMUP] = t2 - t1;
          incremental_ms[run - N_WARMUP] = t3 - t2;
        }
      ct_graph_layout_free (layout);
      ct_graph_scene_free (scene);
      ct_graph_scene_free (again);
    }

  {
    double l = median (layout_ms, N_RUNS), s = median (scene_ms, N_RUNS);
    double inc = median (incremental_ms, N_RUNS);
    ok = s < GOAL_MS;
    g_print ("%-20s %4u nodes %4u edges %3u ranks %4u dummies %3u crossings: layout %.1f ms, "
             "scene %.1f ms, incremental %.1f ms (goal < %.0f ms: %s)\n",
             label, n, request.n_edges, reference->layout->n_ranks,
             reference->layout->n_dummies, reference->layout->n_crossings, l, s, inc, GOAL_MS,
             ok ? "met" : "MISSED");
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  gboolean ok = TRUE;

  ok &= bench_net ("ResNet-152", "resnet152", "ResNet-152-deploy.prototxt");
  ok &= bench_net ("Inception-ResNet-v2", "inception_resnet_v2",
                   "deploy_inception-resnet-v2.prototxt");
  return ok ? 0 : 1;
}
