/* cli-layers.c: `cortado-cli layers`: every layer type the engine knows,
 * from the same catalogue the net builder and the palette read: type,
 * family and a one-line description. */
#include <glib/gi18n-lib.h>

#include "cli-net-private.h"
#include "cli-private.h"
#include "layer-catalogue.h"

int
ct_cli_layers (int argc, char **argv)
{
  gboolean tsv = FALSE;
  const GOptionEntry entries[] = {
    { "tsv", 0, 0, G_OPTION_ARG_NONE, &tsv,
      N_("Print TYPE<TAB>FAMILY<TAB>DESCRIPTION lines without a heading"), NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GPtrArray) classes = NULL;

  context = ct_cli_context_new ("layers", NULL,
                                _("List the layer types Cortado knows, by family."), entries);
  if (!ct_cli_parse (context, &argc, &argv))
    return CT_CLI_EXIT_USAGE;
  if (argc > 1)
    return ct_cli_usage_error ("layers", _("unexpected argument '%s'"), argv[1]);

  classes = ct_layer_catalogue_list ();
  if (!tsv)
    /* TRANSLATORS: column headings; keep the widths */
    g_print ("%-26s %-14s %s\n", _("TYPE"), _("FAMILY"), _("DESCRIPTION"));
  for (guint i = 0; i < classes->len; i++)
    {
      const CtLayerClass *k = classes->pdata[i];

      if (tsv)
        g_print ("%s\t%s\t%s\n", k->type, ct_layer_family_name (k->family),
                 ct_layer_class_describe (k));
      else
        g_print ("%-26s %-14s %s\n", k->type, ct_layer_family_name (k->family),
                 ct_layer_class_describe (k));
    }
  if (!tsv)
    g_print (g_dngettext (GETTEXT_PACKAGE, "%u layer type\n", "%u layer types\n", classes->len),
             classes->len);
  return CT_CLI_EXIT_OK;
}
