/* run-device.c: see run-device.h. The device is process-wide, as in Caffe:
 * the runner and the trainer select it on their worker threads before
 * building on it, and every later CUDA call of that thread uses it. */
#include <glib/gi18n-lib.h>

#include "device.h"
#include "engine-error.h"
#include "run-device.h"

char **
ct_run_list_gpus (char **reason)
{
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
  int count = 0;

  if (reason != NULL)
    *reason = NULL;
  if (!CT_HAVE_CUDA)
    {
      if (reason != NULL)
        *reason = g_strdup (_("Cortado was built without CUDA"));
      return g_strv_builder_end (names);
    }
  if (ct_cuda_device_count (&count) != CT_STATUS_OK || count == 0)
    {
      if (reason != NULL)
        *reason = g_strdup_printf (_("CUDA finds no usable GPU (%s)"), ct_cuda_last_error ());
      return g_strv_builder_end (names);
    }
  for (int i = 0; i < count; i++)
    {
      CtCudaDeviceInfo info;
      g_autofree char *name = ct_cuda_device_info (i, &info) == CT_STATUS_OK
                                ? g_strdup_printf (_("GPU %d: %s"), i, info.name)
                                : g_strdup_printf (_("GPU %d"), i);

      g_strv_builder_add (names, name);
    }
  return g_strv_builder_end (names);
}

gboolean
ct_run_select_gpu (int device, GError **error)
{
  if (ct_cuda_set_device (device) == CT_STATUS_OK)
    return TRUE;
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE,
               _("GPU %d cannot be used: %s"), device,
               CT_HAVE_CUDA ? ct_cuda_last_error () : _("Cortado was built without CUDA"));
  return FALSE;
}

gboolean
ct_run_use_gpu (CtNet *net, int device, GError **error)
{
  return ct_run_select_gpu (device, error) && ct_net_set_use_gpu (net, TRUE, error);
}
