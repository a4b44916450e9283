/* devices.c: devices.h, on the kernels' device API (kernels/device.h),
 * their pool (parallel.h) and ct_cpu_paths (cpu-paths.h). */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cpu-paths.h"
#include "devices.h"
#include "engine-error.h"
#include "parallel.h"

char *
ct_engine_describe_cpu (void)
{
  CtCpuPaths p;
  GString *s = g_string_new (NULL);

  ct_cpu_paths (&p);
  g_string_append_printf (s, _("CPU kernels: %s, %d threads\n"), p.isa, p.threads);
  g_string_append_printf (s, _("CPU matrix products: %s\n"), p.products);
  if (strcmp (p.convolutions, "none") == 0)
    g_string_append (s, _("CPU convolutions: im2col and matrix products\n"));
  else
    /* TRANSLATORS: %s is a library and its version, such as "oneDNN 2.6.3" */
    g_string_append_printf (s, _("CPU convolutions: %s where it takes the shape, else im2col\n"),
                            p.convolutions);
  if (g_str_has_prefix (p.openblas, p.products))
    g_string_append_printf (s, _("CPU BLAS library: %s\n"), p.openblas);
  else
    /* TRANSLATORS: %s is OpenBLAS's version and kernel set, such as
     * "OpenBLAS 0.3.21, Prescott kernels" */
    g_string_append_printf (s, _("CPU BLAS library: %s (linked, runs nothing)\n"), p.openblas);
  return g_string_free (s, FALSE);
}

int
ct_engine_cpu_threads (void)
{
  return ct_cpu_num_threads ();
}

void
ct_engine_set_cpu_thread_limit (int limit)
{
  ct_cpu_set_thread_limit (limit);
}

const char *
ct_engine_gpu_last_error (void)
{
  return CT_HAVE_CUDA ? ct_cuda_last_error () : "";
}

int
ct_engine_gpu_count (char **reason)
{
  int count = 0;

  if (!CT_HAVE_CUDA)
    {
      if (reason != NULL)
        *reason = g_strdup (_("Cortado was built without CUDA"));
      return 0;
    }
  if (ct_cuda_device_count (&count) != CT_STATUS_OK || count == 0)
    {
      if (reason != NULL)
        *reason = g_strdup_printf (_("CUDA finds no usable GPU (%s)"), ct_cuda_last_error ());
      return 0;
    }
  return count;
}

gboolean
ct_engine_gpu_select (int id, GError **error)
{
  if (ct_cuda_set_device (id) == CT_STATUS_OK)
    return TRUE;
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE, _("GPU %d cannot be used: %s"),
               id, CT_HAVE_CUDA ? ct_cuda_last_error () : _("Cortado was built without CUDA"));
  return FALSE;
}

gboolean
ct_engine_gpu_info (int id, CtGpuInfo *info, GError **error)
{
  if (ct_cuda_device_info (id, info) == CT_STATUS_OK)
    return TRUE;
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_DEVICE, _("GPU %d cannot be queried: %s"),
               id, ct_engine_gpu_last_error ());
  return FALSE;
}

gboolean
ct_engine_gpu_synchronize (GError **error)
{
  return ct_engine_check_status (ct_cuda_synchronize (), _("Waiting for the GPU"), error);
}
