/* cli.c: cortado-cli's entry point. It sets up the locale and
 * translations, then hands the rest of the command line to one verb of the
 * table below, each in its own file with its own options and --help. Also
 * the small helpers the verbs share. */
#include <errno.h>
#include <glib/gi18n-lib.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cli-analysis-private.h"
#include "cli-caffe-private.h"
#include "cli-data-private.h"
#include "cli-private.h"
#include "cli-net-private.h"
#include "install-dirs.h"

typedef struct {
  const char *name;
  const char *summary; /* translated when shown */
  CtCliVerbFunc run;
} CtCliVerb;

static const CtCliVerb verbs[] = {
  { "check", N_("Parse nets and solvers, upgrade them, and report every error"), ct_cli_check },
  { "format", N_("Print a prototxt in canonical form, or rewrite it in place"), ct_cli_format },
  { "upgrade", N_("Write a V0/V1 net or an old solver in the current format"), ct_cli_upgrade },
  { "info", N_("Show the layers and parameter shapes of a .caffemodel "
               "(or a .binaryproto or .solverstate)"), ct_cli_info },
  { "forward", N_("Run a net forward (and backward) and print the loss; dump every blob"),
    ct_cli_forward },
  { "layers", N_("List the layer types Cortado knows"), ct_cli_layers },
  { "train", N_("Train a net with a solver, as 'caffe train'"), ct_cli_train },
  { "test", N_("Score trained weights on a net's TEST phase, as 'caffe test'"), ct_cli_test },
  { "device_query", N_("Show the CPU's code paths and the GPUs, as 'caffe device_query'"),
    ct_cli_device_query },
  { "convert", N_("Write an LMDB or LevelDB of Datum records from MNIST files or images"),
    ct_cli_convert },
  { "compute-mean", N_("Write the mean image of a database as a .binaryproto"),
    ct_cli_compute_mean },
  { "time", N_("Time a net's forward and backward passes layer by layer, as 'caffe time'"),
    ct_cli_time },
  { "draw", N_("Draw a net's graph as a PNG, SVG or PDF file"), ct_cli_draw },
  { "confusion", N_("Print the confusion matrix of trained weights over the TEST data"),
    ct_cli_confusion },
  { "explain", N_("Show what an image's class rests on: saliency, Grad-CAM or occlusion"),
    ct_cli_explain },
  { "top-activations", N_("List the test images that excite a channel most"),
    ct_cli_top_activations },
  { "diff", N_("Compare two nets or solvers field by field, or two caffemodels blob by blob"),
    ct_cli_diff },
};

static const char *
exit_status_text (void)
{
  return _("Exit status:\n"
           "  0  success\n"
           "  1  an input file has errors (or an output could not be written)\n"
           "  2  the command line is wrong");
}

static void
print_help (FILE *out)
{
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append_printf (text, _("Usage:\n  %s COMMAND [OPTION…] ARGUMENTS\n\n"), "cortado-cli");
  g_string_append (text, _("Cortado's command-line tool for Caffe nets, solvers and models.\n\n"));
  g_string_append (text, _("Commands:\n"));
  for (gsize i = 0; i < G_N_ELEMENTS (verbs); i++)
    g_string_append_printf (text, "  %-16s %s\n", verbs[i].name, _(verbs[i].summary));
  g_string_append_printf (text, _("\nRun '%s COMMAND --help' for the options of a command.\n\n"),
                          "cortado-cli");
  g_string_append (text, exit_status_text ());
  g_string_append_c (text, '\n');
  if (out == stdout)
    g_print ("%s", text->str);
  else
    g_printerr ("%s", text->str);
}

GOptionContext *
ct_cli_context_new (const char *verb,
                    const char *parameters,
                    const char *summary,
                    const GOptionEntry *entries)
{
  GOptionContext *context = g_option_context_new (parameters);

  /* GOption prints g_get_prgname(), which main() set to "cortado-cli VERB",
   * in its usage line */
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context, summary);
  g_option_context_set_description (context, exit_status_text ());
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  return context;
}

gboolean
ct_cli_parse (GOptionContext *context, int *argc, char ***argv)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      g_printerr ("%s: %s\n", g_get_prgname (), error->message);
      g_printerr (_("Run '%s --help' for usage.\n"), g_get_prgname ());
      return FALSE;
    }
  return TRUE;
}

gboolean
ct_cli_parse_files (GOptionContext *context, const char *verb, int *argc, char ***argv,
                    char ***files)
{
  if (!ct_cli_parse (context, argc, argv))
    return FALSE;
  if (*files == NULL || (*files)[0] == NULL)
    {
      ct_cli_usage_error (verb, _("no file given"));
      return FALSE;
    }
  return TRUE;
}

int
ct_cli_usage_error (const char *verb, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("cortado-cli %s: %s\n", verb, message);
  g_printerr (_("Run 'cortado-cli %s --help' for usage.\n"), verb);
  return CT_CLI_EXIT_USAGE;
}

gboolean
ct_cli_write_stdout (const char *data, gsize length)
{
  if (length > 0 && fwrite (data, 1, length, stdout) != length)
    return FALSE;
  return fflush (stdout) == 0;
}

gboolean
ct_cli_read_input (const char *path, char **contents, gsize *length, GError **error)
{
  g_autoptr(GString) buf = NULL;
  char chunk[65536];
  size_t n;

  if (strcmp (path, "-") != 0)
    return g_file_get_contents (path, contents, length, error);

  buf = g_string_new (NULL);
  while ((n = fread (chunk, 1, sizeof chunk, stdin)) > 0)
    g_string_append_len (buf, chunk, n);
  if (ferror (stdin))
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("could not read standard input: %s"), g_strerror (saved_errno));
      return FALSE;
    }
  *length = buf->len;
  *contents = g_string_free (g_steal_pointer (&buf), FALSE);
  return TRUE;
}

int
main (int argc, char **argv)
{
  const char *verb;

  setlocale (LC_ALL, "");
  /* Run from the build folder, the build's own catalogues are used. */
  ct_install_bind_text_domain ();

  if (argc < 2)
    {
      print_help (stderr);
      return CT_CLI_EXIT_USAGE;
    }
  verb = argv[1];
  if (strcmp (verb, "--help") == 0 || strcmp (verb, "-h") == 0 ||
      strcmp (verb, "-?") == 0 || strcmp (verb, "help") == 0)
    {
      print_help (stdout);
      return CT_CLI_EXIT_OK;
    }
  if (strcmp (verb, "--version") == 0)
    {
      g_print ("cortado-cli %s\n", PACKAGE_VERSION);
      return CT_CLI_EXIT_OK;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (verbs); i++)
    if (strcmp (verbs[i].name, verb) == 0)
      {
        g_autofree char *prgname = g_strdup_printf ("cortado-cli %s", verb);

        /* set once: newer GLib ignores later calls */
        g_set_prgname (prgname);
        return verbs[i].run (argc - 1, argv + 1);
      }

  g_printerr (_("cortado-cli: unknown command '%s'\n"), verb);
  g_printerr (_("Run 'cortado-cli --help' for the list of commands.\n"));
  return CT_CLI_EXIT_USAGE;
}
