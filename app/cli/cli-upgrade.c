/* cli-upgrade.c: `cortado-cli upgrade IN OUT`: read a V0 or V1 net (or a
 * solver with the old solver_type enum), upgrade it as Caffe does on load,
 * and write the current-format text to OUT ('-': standard output). What
 * changed is listed on standard output, or on standard error when the
 * text itself goes to standard output. */
#include <glib/gi18n-lib.h>
#include <string.h>

#include "atomic-write.h"
#include "binary-io.h"
#include "cli-private.h"
#include "proto-file.h"

static gboolean lenient = FALSE;
static char **args = NULL;

static const GOptionEntry entries[] = {
  { "lenient", 'l', 0, G_OPTION_ARG_NONE, &lenient,
    N_("Keep fields the schema does not know instead of failing"), NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, NULL },
  { NULL }
};

static int
upgrade_file (const char *in, const char *out)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean to_stdout = strcmp (out, "-") == 0;
  ProtobufCMessage *msg;

  msg = ct_proto_load_text_file (in, lenient ? CT_TEXT_LENIENT : CT_TEXT_STRICT,
                                 NULL, notes, &error);
  if (msg == NULL)
    {
      g_printerr ("%s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  text = ct_text_print (msg);
  protobuf_c_message_free_unpacked (msg, NULL);

  if (to_stdout)
    {
      if (!ct_cli_write_stdout (text, strlen (text)))
        {
          g_printerr (_("cortado-cli upgrade: could not write to standard output\n"));
          return CT_CLI_EXIT_INPUT;
        }
    }
  else if (!ct_file_write_atomic (out, text, strlen (text), &error))
    {
      g_printerr ("%s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }

  for (guint i = 0; i < notes->len; i++)
    {
      const char *line = g_ptr_array_index (notes, i);
      if (to_stdout)
        g_printerr ("%s: %s\n", in, line);
      else
        g_print ("%s: %s\n", in, line);
    }
  if (notes->len == 0)
    {
      if (to_stdout)
        g_printerr (_("%s: already in the current format\n"), in);
      else
        g_print (_("%s: already in the current format\n"), in);
    }
  return CT_CLI_EXIT_OK;
}

int
ct_cli_upgrade (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  int status;

  context = ct_cli_context_new ("upgrade", _("IN OUT"),
                                _("Write the net or solver IN in the current format to OUT "
                                  "('-' for standard output): V0 and V1 layers become V2 "
                                  "layers, net-level inputs an Input layer, solver_type the "
                                  "type string, as Caffe upgrades them on load. Each change "
                                  "is listed."),
                                entries);
  if (!ct_cli_parse (context, &argc, &argv))
    return CT_CLI_EXIT_USAGE;
  if (args == NULL || g_strv_length (args) != 2)
    {
      g_clear_pointer (&args, g_strfreev);
      return ct_cli_usage_error ("upgrade", _("give an input and an output file"));
    }
  status = upgrade_file (args[0], args[1]);
  g_clear_pointer (&args, g_strfreev);
  return status;
}
