/* cli-device-query.c: `cortado-cli device_query [--gpu=N]`, Caffe's
 * `caffe device_query`: which GPUs Cortado can use. Built without CUDA, or
 * with no usable device, it says so and exits with status 1, as asking for
 * a GPU does everywhere in cortado-cli. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-caffe-private.h"
#include "cli-private.h"
#include "device.h"

static gboolean
query_ids (const char *gpu, int count, GError **error)
{
  g_auto (GStrv) ids = g_strsplit (gpu, ",", -1);

  for (char **id = ids; *id != NULL; id++)
    {
      char *end = NULL;
      gint64 n = g_ascii_strtoll (*id, &end, 10);

      if (end == *id || *end != '\0' || n < 0 || n >= count)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       g_dngettext (GETTEXT_PACKAGE, "no GPU with id '%s' (there is %d)",
                                    "no GPU with id '%s' (there are %d)", count), *id, count);
          return FALSE;
        }
      CT_CLI_LOG_INFO ("Querying GPUs %s", *id);
      CT_CLI_LOG_INFO ("Device id: %" G_GINT64_FORMAT, n);
    }
  return TRUE;
}

static gboolean
query (const char *gpu, GError **error)
{
  int count = 0;

  if (!ct_cli_check_gpu (gpu != NULL ? gpu : "all", error))
    return FALSE;
  ct_cuda_device_count (&count);
  if (gpu != NULL && strcmp (gpu, "all") != 0)
    return query_ids (gpu, count, error);
  CT_CLI_LOG_INFO ("Found %d GPU device(s)", count);
  for (int i = 0; i < count; i++)
    CT_CLI_LOG_INFO ("Device id: %d", i);
  return TRUE;
}

int
ct_cli_device_query (int argc, char **argv)
{
  g_autofree char *gpu = NULL;
  const GOptionEntry entries[] = {
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &gpu,
      N_("The GPU ids to query, separated by commas (default: all)"), N_("IDS") },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;

  ct_cli_accept_single_dash (argc, argv, entries);
  context = ct_cli_context_new ("device_query", NULL,
                                _("Show the GPUs Cortado can use, as 'caffe device_query' does."),
                                entries);
  if (!ct_cli_parse (context, &argc, &argv))
    return CT_CLI_EXIT_USAGE;
  if (argc > 1)
    return ct_cli_usage_error ("device_query", _("unexpected argument '%s'"), argv[1]);
  if (!query (gpu, &error))
    {
      g_printerr ("cortado-cli device_query: %s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  return CT_CLI_EXIT_OK;
}
