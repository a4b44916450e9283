/* cli-diff.c: `cortado-cli diff A B`: what changed between two nets (or
 * two solvers) given as prototxt, layer by layer and field by field, or
 * between two .caffemodel files, blob by blob (‖Δw‖/‖w‖ and the largest
 * change). Binary files (not UTF-8 text) are read as caffemodels. As
 * diff(1): exit status 0 when the two are equal, 1 when they differ, 2
 * when a file cannot be read or the command line is wrong. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-analysis-private.h"
#include "cli-private.h"
#include "model-diff.h"
#include "net-diff.h"

enum { DIFF_EQUAL = 0, DIFF_DIFFERENT = 1, DIFF_TROUBLE = 2 };

/* Whether PATH looks like a binary protobuf rather than text: a NUL or
 * bytes that are not UTF-8 in its first 64 KiB. */
static gboolean
is_binary (const char *path, GError **error)
{
  g_autoptr (GMappedFile) file = g_mapped_file_new (path, FALSE, error);
  const char *data;
  gsize n;
  const char *end = NULL;

  if (file == NULL)
    return FALSE;
  data = g_mapped_file_get_contents (file);
  n = MIN (g_mapped_file_get_length (file), 65536);
  if (n > 0 && memchr (data, '\0', n) != NULL)
    return TRUE;
  /* a cut in the middle of a character at the 64 KiB mark is not binary */
  return !g_utf8_validate (data, (gssize) n, &end) && (gsize) (end - data) + 4 < n;
}

static int
diff_models (const char *a, const char *b, GError **error)
{
  g_autoptr (CtModelDiff) diff = ct_model_diff_files (a, b, error);
  g_autofree char *text = NULL;

  if (diff == NULL)
    return DIFF_TROUBLE;
  text = ct_model_diff_to_text (diff);
  ct_cli_write_stdout (text, strlen (text));
  return ct_model_diff_is_equal (diff) ? DIFF_EQUAL : DIFF_DIFFERENT;
}

static int
diff_texts (const char *a, const char *b, GError **error)
{
  g_autoptr (GPtrArray) entries = ct_net_diff_files (a, b, error);
  g_autofree char *text = NULL;

  if (entries == NULL)
    return DIFF_TROUBLE;
  text = ct_net_diff_to_text (entries);
  ct_cli_write_stdout (text, strlen (text));
  return entries->len == 0 ? DIFF_EQUAL : DIFF_DIFFERENT;
}

int
ct_cli_diff (int argc, char **argv)
{
  g_auto (GStrv) files = NULL;
  const GOptionEntry entries[] = {
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("A B") },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  gboolean binary_a, binary_b;
  int status;

  context = ct_cli_context_new ("diff", N_("A B"),
                                _("Compare two nets or solvers (prototxt) field by field, or two "
                                  ".caffemodel files blob by blob. Exit status: 0 equal, 1 "
                                  "different, 2 trouble."), entries);
  if (!ct_cli_parse (context, &argc, &argv))
    return DIFF_TROUBLE;
  if (files == NULL || g_strv_length (files) != 2)
    {
      ct_cli_usage_error ("diff", _("give two files to compare"));
      return DIFF_TROUBLE;
    }
  binary_a = is_binary (files[0], &error);
  binary_b = error == NULL ? is_binary (files[1], &error) : FALSE;
  if (error != NULL)
    status = DIFF_TROUBLE;
  else if (binary_a != binary_b)
    {
      g_set_error (&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s and %s are not of one kind: a caffemodel and a text file"), files[0],
                   files[1]);
      status = DIFF_TROUBLE;
    }
  else if (binary_a)
    status = diff_models (files[0], files[1], &error);
  else
    status = diff_texts (files[0], files[1], &error);
  if (status == DIFF_TROUBLE)
    g_printerr ("cortado-cli diff: %s\n", error->message);
  return status;
}
