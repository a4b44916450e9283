/* cli-layers.c: `cortado-cli layers`: every layer type the engine knows,
 * from the same catalogue the net builder and the palette read: type,
 * family, which of its passes run on the GPU, and a one-line description.
 *
 * The GPU column is read from each class's gpu_forward / gpu_backward
 * slots, so it stays true as types gain GPU code. The rule for the rest,
 * printed under the table: a net on the GPU runs a pass a type has no GPU
 * code for on the CPU, on the same blobs (CtMem copies the values each
 * side reads), so the results are the same and only the speed differs. */
#include <glib/gi18n-lib.h>

#include "cli-net-private.h"
#include "cli-private.h"
#include "layer-catalogue.h"

/* "yes": every pass the type has runs on the GPU; "forward" or
 * "backward": only that one; "no": none. */
static const char *
gpu_support (const CtLayerClass *k)
{
  gboolean forward = k->gpu_forward;
  gboolean backward = k->gpu_backward || k->backward == NULL;

  if (forward && backward)
    return "yes";
  if (forward)
    return "forward";
  if (k->gpu_backward)
    return "backward";
  return "no";
}

static const char *
gpu_support_translated (const char *support)
{
  /* TRANSLATORS: values of the GPU column of `cortado-cli layers` */
  if (g_str_equal (support, "yes"))
    return C_("gpu", "yes");
  if (g_str_equal (support, "forward"))
    return C_("gpu", "forward");
  if (g_str_equal (support, "backward"))
    return C_("gpu", "backward");
  return C_("gpu", "no");
}

int
ct_cli_layers (int argc, char **argv)
{
  gboolean tsv = FALSE;
  const GOptionEntry entries[] = {
    { "tsv", 0, 0, G_OPTION_ARG_NONE, &tsv,
      N_("Print TYPE<TAB>FAMILY<TAB>DESCRIPTION<TAB>GPU lines without a heading (GPU: yes, "
         "forward, backward or no)"), NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GPtrArray) classes = NULL;

  context = ct_cli_context_new ("layers", NULL,
                                _("List the layer types Cortado knows, by family, and which of "
                                  "their passes run on the GPU."), entries);
  if (!ct_cli_parse (context, &argc, &argv))
    return CT_CLI_EXIT_USAGE;
  if (argc > 1)
    return ct_cli_usage_error ("layers", _("unexpected argument '%s'"), argv[1]);

  classes = ct_layer_catalogue_list ();
  if (!tsv)
    /* TRANSLATORS: column headings; keep the widths */
    g_print ("%-26s %-14s %-9s %s\n", _("TYPE"), _("FAMILY"), _("GPU"), _("DESCRIPTION"));
  for (guint i = 0; i < classes->len; i++)
    {
      const CtLayerClass *k = classes->pdata[i];

      if (tsv)
        g_print ("%s\t%s\t%s\t%s\n", k->type, ct_layer_family_name (k->family),
                 ct_layer_class_describe (k), gpu_support (k));
      else
        g_print ("%-26s %-14s %-9s %s\n", k->type, ct_layer_family_name (k->family),
                 gpu_support_translated (gpu_support (k)), ct_layer_class_describe (k));
    }
  if (!tsv)
    {
      g_print (g_dngettext (GETTEXT_PACKAGE, "%u layer type\n", "%u layer types\n", classes->len),
               classes->len);
      g_print ("%s\n", _("GPU: 'yes' when every pass the type has runs on the GPU, 'forward' or "
                         "'backward' when only that one does. In a net on the GPU (--gpu) the "
                         "CPU runs the other passes on the same blobs, whose values are copied "
                         "between the devices as needed: the results are the same, only "
                         "slower."));
    }
  return CT_CLI_EXIT_OK;
}
