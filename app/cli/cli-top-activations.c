/* cli-top-activations.c: `cortado-cli top-activations --model=NET
 * --weights=W --layer=L --channel=C [--top=K] [--iterations=N]`: the K
 * images of the TEST data (N batches, 50 by default) that excite channel C
 * of layer L most, as TSV: rank, the image's index, the response, where
 * it was in the channel (y, x), and the image patch its unit sees (top,
 * left, height, width). With --png-prefix each patch's image is saved,
 * the patch outlined by its neighbourhood dimmed. */
#include <glib/gi18n-lib.h>
#include <string.h>

#include "attribution-export.h"
#include "cli-analysis-private.h"
#include "cli-net-private.h"
#include "cli-private.h"
#include "top-activations.h"

typedef struct {
  char *model, *weights, *layer, *input, *prefix;
  int channel, top, iterations;
} TopOptions;

/* The image with everything but the patch dimmed. */
static gboolean
save_patch (const TopOptions *o, const CtTopActivations *top, const CtTopActivation *item,
            guint rank, GError **error)
{
  g_autofree char *path = g_strdup_printf ("%s%02u.png", o->prefix, rank);
  g_autofree float *map = g_new0 (float, (gsize) top->height * top->width);

  for (int y = item->top; y < item->top + item->box_h; y++)
    for (int x = item->left; x < item->left + item->box_w; x++)
      map[(gsize) y * top->width + x] = 1.0f;
  return ct_attribution_save_png (path, item->image, top->channels, top->height, top->width,
                                  map, 0.35, 8, error);
}

static gboolean
run_top (const TopOptions *o, GError **error)
{
  CtCliNetRequest request = {
    .model = o->model, .phase = CAFFE__PHASE__TEST, .seed = 1701, .weights = o->weights,
  };
  g_autoptr (CtNet) net = ct_cli_load_net (&request, error);
  g_autoptr (CtTopActivations) top = NULL;
  g_autoptr (GString) out = g_string_new ("rank\tindex\tvalue\ty\tx\ttop\tleft\theight\twidth\n");
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (net == NULL)
    return FALSE;
  top = ct_top_activations_run (net, o->input, o->layer, (guint) o->channel, (guint) o->top,
                                (guint) o->iterations, NULL, NULL, error);
  if (top == NULL)
    return FALSE;
  for (guint i = 0; i < top->items->len; i++)
    {
      const CtTopActivation *t = &g_array_index (top->items, CtTopActivation, i);

      g_string_append_printf (out, "%u\t%" G_GUINT64_FORMAT "\t%s\t%u\t%u\t%d\t%d\t%d\t%d\n",
                              i + 1, t->index,
                              g_ascii_formatd (buf, sizeof buf, "%.6g", t->value), t->y, t->x,
                              t->top, t->left, t->box_h, t->box_w);
      if (o->prefix != NULL && !save_patch (o, top, t, i + 1, error))
        return FALSE;
    }
  return ct_cli_write_stdout (out->str, out->len);
}

int
ct_cli_top_activations (int argc, char **argv)
{
  TopOptions o = { .channel = -1, .top = 9, .iterations = 50 };
  const GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &o.model, N_("The net, with its TEST data"),
      N_("NET") },
    { "weights", 0, 0, G_OPTION_ARG_FILENAME, &o.weights, N_("Trained weights (.caffemodel)"),
      N_("FILE") },
    { "layer", 0, 0, G_OPTION_ARG_STRING, &o.layer, N_("The layer"), N_("LAYER") },
    { "channel", 0, 0, G_OPTION_ARG_INT, &o.channel, N_("The channel of its output"), N_("C") },
    { "top", 0, 0, G_OPTION_ARG_INT, &o.top, N_("How many images to keep (default 9)"),
      N_("K") },
    { "iterations", 0, 0, G_OPTION_ARG_INT, &o.iterations,
      N_("How many batches to run (default 50)"), N_("N") },
    { "input", 0, 0, G_OPTION_ARG_STRING, &o.input,
      N_("The images' blob (default: the net's first input, or data)"), N_("BLOB") },
    { "png-prefix", 0, 0, G_OPTION_ARG_FILENAME, &o.prefix,
      N_("Save each image with its patch as PREFIX01.png, PREFIX02.png, …"), N_("PREFIX") },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  int status = CT_CLI_EXIT_OK;

  context = ct_cli_context_new ("top-activations", NULL,
                                _("List the test images that excite one channel of a layer most, "
                                  "and the patch of each that the strongest unit sees."),
                                entries);
  if (!ct_cli_parse (context, &argc, &argv))
    status = CT_CLI_EXIT_USAGE;
  else if (argc > 1)
    status = ct_cli_usage_error ("top-activations", _("unexpected argument '%s'"), argv[1]);
  else if (o.model == NULL || o.layer == NULL || o.channel < 0)
    status = ct_cli_usage_error ("top-activations",
                                 _("give --model NET, --layer LAYER and --channel C"));
  else if (o.top < 1 || o.iterations < 1)
    status = ct_cli_usage_error ("top-activations", _("--top and --iterations must be 1 or more"));
  else if (!run_top (&o, &error))
    {
      g_printerr ("cortado-cli top-activations: %s\n", error->message);
      status = CT_CLI_EXIT_INPUT;
    }
  g_free (o.model);
  g_free (o.weights);
  g_free (o.layer);
  g_free (o.input);
  g_free (o.prefix);
  return status;
}
