/* cli-device-query.c: `cortado-cli device_query [--gpu=N]`, Caffe's
 * `caffe device_query`: which code runs on the CPU (instruction set,
 * product and convolution libraries), then the properties of each GPU asked for (every GPU
 * without --gpu, where Caffe insists on an id), in Caffe's lines, so that
 * scripts that read one read the other. Built without CUDA, without a
 * CUDA module it can load (kernels/cuda-module.h: the module, or cuBLAS,
 * missing), or with no usable device, it says which, with the CUDA
 * runtime's reason, and exits with status 1, as asking for a GPU does
 * everywhere in cortado-cli. */
#include <stdarg.h>
#include <glib/gi18n-lib.h>

#include "cli-caffe-private.h"
#include "cli-private.h"
#include "devices.h"
#include "engine-error.h"

/* One line of Caffe's Caffe::DeviceQuery: the label padded to 31 columns. */
static void
line (const char *label, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
line (const char *label, const char *format, ...)
{
  g_autofree char *value = NULL;
  va_list args;

  va_start (args, format);
  value = g_strdup_vprintf (format, args);
  va_end (args);
  CT_CLI_LOG_INFO ("%-31s%s", label, value);
}

/* What Caffe prints of DEVICE, in its order and words. */
static gboolean
query_device (int device, GError **error)
{
  CtGpuInfo d = { 0 };

  if (!ct_engine_gpu_select (device, error) || !ct_engine_gpu_info (device, &d, error))
    return FALSE;
  line ("Device id:", "%d", device);
  line ("Major revision number:", "%d", d.major);
  line ("Minor revision number:", "%d", d.minor);
  line ("Name:", "%s", d.name);
  line ("Total global memory:", "%" G_GSIZE_FORMAT, (gsize) d.total_global_mem);
  line ("Total shared memory per block:", "%" G_GSIZE_FORMAT, (gsize) d.shared_mem_per_block);
  line ("Total registers per block:", "%d", d.regs_per_block);
  line ("Warp size:", "%d", d.warp_size);
  line ("Maximum memory pitch:", "%" G_GSIZE_FORMAT, (gsize) d.mem_pitch);
  line ("Maximum threads per block:", "%d", d.max_threads_per_block);
  line ("Maximum dimension of block:", "%d, %d, %d", d.max_threads_dim[0], d.max_threads_dim[1],
        d.max_threads_dim[2]);
  line ("Maximum dimension of grid:", "%d, %d, %d", d.max_grid_size[0], d.max_grid_size[1],
        d.max_grid_size[2]);
  line ("Clock rate:", "%d", d.clock_rate_khz);
  line ("Total constant memory:", "%" G_GSIZE_FORMAT, (gsize) d.total_const_mem);
  line ("Texture alignment:", "%" G_GSIZE_FORMAT, (gsize) d.texture_alignment);
  line ("Concurrent copy and execution:", "%s", d.concurrent_copy ? "Yes" : "No");
  line ("Number of multiprocessors:", "%d", d.multiprocessor_count);
  line ("Kernel execution timeout:", "%s", d.kernel_timeout ? "Yes" : "No");
  return TRUE;
}

/* The CPU's paths first: they run whether or not a GPU does. */
static void
query_cpu (void)
{
  g_autofree char *text = ct_engine_describe_cpu ();
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      CT_CLI_LOG_INFO ("%s", lines[i]);
}

static gboolean
query (const char *gpu, GError **error)
{
  g_autoptr (GArray) ids = NULL;
  int count = 0;

  query_cpu ();
  if (!ct_cli_check_gpu (gpu != NULL ? gpu : "all", error))
    return FALSE;
  count = ct_engine_gpu_count (NULL);
  if ((ids = ct_cli_parse_gpu_ids (gpu != NULL ? gpu : "all", count, error)) == NULL)
    return FALSE;
  if (gpu == NULL)
    CT_CLI_LOG_INFO ("Found %d GPU device(s)", count);
  for (guint i = 0; i < ids->len; i++)
    {
      int device = g_array_index (ids, int, i);

      CT_CLI_LOG_INFO ("Querying GPUs %d", device);
      if (!query_device (device, error))
        return FALSE;
    }
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
                                _("Show which code runs on the CPU, and the GPUs Cortado can use as 'caffe device_query' does."),
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
