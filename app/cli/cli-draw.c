/* cli-draw.c: `cortado-cli draw NET OUT.svg|png|pdf`: the workbench's graph
 * of a net written to an image file, headless (cairo, no GTK). The drawing
 * is the one the window shows: the same model (net-graph.c), layout and
 * renderer. Layers the engine cannot set up are drawn outlined in red and
 * listed on standard error. */
#include <glib/gi18n-lib.h>
#include <string.h>

#include "cli-private.h"
#include "graph-render.h"
#include "net-graph.h"
#include "proto-file.h"

static char *phase_text = NULL;
static char *rankdir_text = NULL;
static double scale = 1;
static gboolean dark = FALSE;
static gboolean no_fold = FALSE;
static gboolean expand = FALSE;
static char **args = NULL;

static const GOptionEntry entries[] = {
  { "phase", 'p', 0, G_OPTION_ARG_STRING, &phase_text,
    N_("Show the net as built for TRAIN or TEST, or BOTH with phase-specific layers marked "
       "(default)"), N_("PHASE") },
  { "rankdir", 'r', 0, G_OPTION_ARG_STRING, &rankdir_text,
    N_("TB: data at the top (default); LR: data on the left"), N_("DIR") },
  { "scale", 's', 0, G_OPTION_ARG_DOUBLE, &scale,
    N_("Resolution of a PNG, 1 = 100 % (default 1)"), N_("FACTOR") },
  { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, N_("Use the dark colours"), NULL },
  { "no-fold", 0, 0, G_OPTION_ARG_NONE, &no_fold,
    N_("Draw in-place layers (ReLU, Dropout, ...) as their own nodes"), NULL },
  { "expand", 0, 0, G_OPTION_ARG_NONE, &expand,
    N_("List folded in-place layers inside their nodes one per row"), NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, NULL },
  { NULL }
};

static void
clear_options (void)
{
  g_clear_pointer (&phase_text, g_free);
  g_clear_pointer (&rankdir_text, g_free);
  g_clear_pointer (&args, g_strfreev);
}

static int
draw_file (const char *in, const char *out, CtNetGraphPhase phase, CtGraphRankdir rankdir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CtNetGraph) graph = NULL;
  g_autoptr(CtGraphScene) scene = NULL;
  g_autoptr(GHashTable) expanded = NULL;
  CtNetGraphOptions options = { 0 };
  Caffe__NetParameter *param;
  gint64 start;
  double layout_ms;

  /* Lenient: a field only a fork knows should not stop a drawing. */
  param = ct_net_load_text_file (in, CT_TEXT_LENIENT, NULL, &error);
  if (param == NULL)
    {
      g_printerr ("%s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  options.phase = phase;
  options.no_fold = no_fold;
  options.source_name = in;
  graph = ct_net_graph_new (param, &options);
  protobuf_c_message_free_unpacked (&param->base, NULL);

  if (expand)
    {
      expanded = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < ct_graph_model_n_nodes (graph->model); i++)
        g_hash_table_add (expanded, ct_graph_model_get_node (graph->model, i)->id);
    }
  start = g_get_monotonic_time ();
  scene = ct_graph_scene_new (graph->model, rankdir, expanded, NULL, NULL);
  layout_ms = (g_get_monotonic_time () - start) / 1000.0;

  if (!ct_graph_render_to_file (scene, out, ct_graph_palette_get (dark), scale, &error))
    {
      g_printerr ("%s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }

  if (graph->net_error != NULL)
    g_printerr ("%s: %s\n", in, graph->net_error);
  for (guint i = 0; i < ct_graph_model_n_nodes (graph->model); i++)
    {
      const CtGraphNode *node = ct_graph_model_get_node (graph->model, i);
      if (node->error != NULL)
        g_printerr ("%s\n", node->error);
      for (guint j = 0; j < node->folded->len; j++)
        {
          const CtGraphFolded *folded = g_ptr_array_index (node->folded, j);
          if (folded->error != NULL)
            g_printerr ("%s\n", folded->error);
        }
    }
  {
    g_autofree char *ms = g_strdup_printf ("%.1f", layout_ms);
    /* keep the decimal point whatever the locale */
    g_strdelimit (ms, ",", '.');
    g_print (g_dngettext (GETTEXT_PACKAGE,
                          "%s: %u layer as %u nodes and %u edges in %u ranks, laid out in %s ms: %s\n",
                          "%s: %u layers as %u nodes and %u edges in %u ranks, laid out in %s ms: %s\n",
                          graph->n_layers_shown),
             in, graph->n_layers_shown, ct_graph_model_n_nodes (graph->model),
             ct_graph_model_n_edges (graph->model), scene->layout->n_ranks, ms, out);
  }
  return CT_CLI_EXIT_OK;
}

int
ct_cli_draw (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  CtNetGraphPhase phase = CT_NET_GRAPH_PHASE_BOTH;
  CtGraphRankdir rankdir = CT_GRAPH_RANKDIR_TB;
  int status;

  context = ct_cli_context_new ("draw", _("NET OUT"),
                                _("Draw the graph of the net NET to OUT, a PNG, SVG or PDF "
                                  "file (chosen by its extension), as the workbench shows it: "
                                  "layers coloured by family, in-place layers folded into the "
                                  "layer they follow, blobs as edges labelled with their "
                                  "inferred shapes, and layers with errors outlined in red."),
                                entries);
  if (!ct_cli_parse (context, &argc, &argv))
    {
      clear_options ();
      return CT_CLI_EXIT_USAGE;
    }
  if (args == NULL || g_strv_length (args) != 2)
    {
      clear_options ();
      return ct_cli_usage_error ("draw", _("give a net and an output file"));
    }
  if (phase_text != NULL && !ct_net_graph_parse_phase (phase_text, &phase))
    {
      status = ct_cli_usage_error ("draw", _("unknown phase '%s' (use TRAIN, TEST or BOTH)"),
                                   phase_text);
      clear_options ();
      return status;
    }
  if (rankdir_text != NULL)
    {
      if (g_ascii_strcasecmp (rankdir_text, "TB") == 0)
        rankdir = CT_GRAPH_RANKDIR_TB;
      else if (g_ascii_strcasecmp (rankdir_text, "LR") == 0)
        rankdir = CT_GRAPH_RANKDIR_LR;
      else
        {
          status = ct_cli_usage_error ("draw", _("unknown direction '%s' (use TB or LR)"),
                                       rankdir_text);
          clear_options ();
          return status;
        }
    }
  if (!(scale > 0 && scale <= 16))
    {
      clear_options ();
      return ct_cli_usage_error ("draw", _("the scale must be above 0 and at most 16"));
    }
  status = draw_file (args[0], args[1], phase, rankdir);
  clear_options ();
  return status;
}
