/* run-device.c: see run-device.h. The device is process-wide, as in Caffe:
 * the runner and the trainer select it on their worker threads before
 * building on it, and every later CUDA call of that thread uses it. */
#include <glib/gi18n-lib.h>

#include "devices.h"
#include "engine-error.h"
#include "run-device.h"

char **
ct_run_list_gpus (char **reason)
{
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
  int count;

  if (reason != NULL)
    *reason = NULL;
  count = ct_engine_gpu_count (reason);
  for (int i = 0; i < count; i++)
    {
      CtGpuInfo info;
      g_autofree char *name = ct_engine_gpu_info (i, &info, NULL)
                                ? g_strdup_printf (_("GPU %d: %s"), i, info.name)
                                : g_strdup_printf (_("GPU %d"), i);

      g_strv_builder_add (names, name);
    }
  return g_strv_builder_end (names);
}

gboolean
ct_run_use_gpu (CtNet *net, int device, GError **error)
{
  return ct_engine_gpu_select (device, error) && ct_net_set_use_gpu (net, TRUE, error);
}
