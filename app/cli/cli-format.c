/* cli-format.c: `cortado-cli format FILE`: print a net or solver in the
 * canonical text form (what protoc --decode would print), or with
 * --in-place rewrite the file with it. In-place rewriting always parses
 * leniently, so fields the schema does not know survive, and replaces the
 * file atomically, and only when it parsed. No upgrade happens here:
 * that is `cortado-cli upgrade`. */
#include <glib/gi18n-lib.h>
#include <string.h>

#include "atomic-write.h"
#include "binary-io.h"
#include "cli-private.h"
#include "proto-file.h"

static gboolean lenient = FALSE;
static gboolean in_place = FALSE;
static char **files = NULL;

static const GOptionEntry entries[] = {
  { "in-place", 'i', 0, G_OPTION_ARG_NONE, &in_place,
    N_("Rewrite each FILE with its canonical text (keeps unknown fields)"), NULL },
  { "lenient", 'l', 0, G_OPTION_ARG_NONE, &lenient,
    N_("Keep fields the schema does not know instead of failing"), NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
  { NULL }
};

/* The canonical text of PATH, or NULL after printing the error. */
static char *
format_file (const char *path, char **original, gsize *original_length)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  const char *name = strcmp (path, "-") == 0 ? "<stdin>" : path;
  ProtobufCMessage *msg;
  CtTextFlags flags = (lenient || in_place) ? CT_TEXT_LENIENT : CT_TEXT_STRICT;
  char *text;
  gsize length;

  if (!ct_cli_read_input (path, &contents, &length, &error))
    {
      g_printerr (_("%s: could not read: %s\n"), name, error->message);
      return NULL;
    }
  msg = ct_text_parse (ct_proto_guess_kind (contents, length) == CT_PROTO_KIND_SOLVER
                       ? &caffe__solver_parameter__descriptor
                       : &caffe__net_parameter__descriptor,
                       contents, length, name, flags, &error);
  if (msg == NULL)
    {
      g_printerr ("%s\n", error->message);
      return NULL;
    }
  text = ct_text_print (msg);
  protobuf_c_message_free_unpacked (msg, NULL);
  if (original != NULL)
    {
      *original = g_steal_pointer (&contents);
      *original_length = length;
    }
  return text;
}

static gboolean
rewrite_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *original = NULL;
  g_autofree char *text = NULL;
  gsize original_length = 0;

  text = format_file (path, &original, &original_length);
  if (text == NULL)
    return FALSE;
  /* leave an already canonical file (and its timestamp) alone */
  if (strlen (text) == original_length && memcmp (text, original, original_length) == 0)
    {
      g_print (_("%s: already in canonical form\n"), path);
      return TRUE;
    }
  if (!ct_file_write_atomic (path, text, strlen (text), &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  g_print (_("%s: rewritten in canonical form\n"), path);
  return TRUE;
}

int
ct_cli_format (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  gboolean ok = TRUE;

  context = ct_cli_context_new ("format", _("FILE"),
                                _("Print a net or solver prototxt in canonical form: the text "
                                  "protoc --decode prints for it. FILE '-' reads standard input. "
                                  "With --in-place, rewrite the files instead (atomically, and "
                                  "only if they parse), keeping unknown fields."),
                                entries);
  if (!ct_cli_parse_files (context, "format", &argc, &argv, &files))
    return CT_CLI_EXIT_USAGE;

  if (in_place)
    {
      for (char **f = files; *f != NULL; f++)
        {
          if (strcmp (*f, "-") == 0)
            {
              g_clear_pointer (&files, g_strfreev);
              return ct_cli_usage_error ("format", _("--in-place needs a file, not '-'"));
            }
          ok &= rewrite_file (*f);
        }
    }
  else
    {
      g_autofree char *text = NULL;

      if (files[1] != NULL)
        {
          g_clear_pointer (&files, g_strfreev);
          return ct_cli_usage_error ("format", _("give one file, or use --in-place"));
        }
      text = format_file (files[0], NULL, NULL);
      if (text == NULL)
        ok = FALSE;
      else if (!ct_cli_write_stdout (text, strlen (text)))
        {
          g_printerr (_("cortado-cli format: could not write to standard output\n"));
          ok = FALSE;
        }
    }
  g_clear_pointer (&files, g_strfreev);
  return ok ? CT_CLI_EXIT_OK : CT_CLI_EXIT_INPUT;
}
