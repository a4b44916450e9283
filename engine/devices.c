/* devices.c: devices.h, on the kernels' device API (kernels/device.h and
 * cuda-module.h), their pool (parallel.h) and ct_cpu_paths (cpu-paths.h). */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cpu-paths.h"
#include "cuda-module.h"
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

/* Why no GPU can be used at all, in a translated sentence, or NULL when
 * the CUDA module is loaded. Asking opens the module (cuda-module.h), whose
 * state never changes afterwards. */
static const char *
module_failure (void)
{
  static char *failure;
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      const char *detail = NULL;

      switch (ct_cuda_module_load (&detail))
        {
        case CT_CUDA_MODULE_LOADED:
          break;
        case CT_CUDA_MODULE_NOT_BUILT:
          failure = g_strdup (_("Cortado was built without CUDA"));
          break;
        case CT_CUDA_MODULE_MISSING:
          /* TRANSLATORS: %s is a file, such as /usr/lib/x86_64-linux-gnu/cortado/libctcuda.so */
          failure = g_strdup_printf (_("Cortado's CUDA module %s is missing"), detail);
          break;
        case CT_CUDA_MODULE_UNLOADABLE:
          /* TRANSLATORS: %s is the dynamic loader's message, such as
           * "libcublas.so.13: cannot open shared object file: No such file or directory" */
          failure = g_strdup_printf (_("Cortado's CUDA module cannot be loaded: %s"), detail);
          break;
        case CT_CUDA_MODULE_MISMATCH:
          failure = g_strdup_printf (_("Cortado's CUDA module %s belongs to another build"),
                                     detail);
          break;
        }
      g_once_init_leave (&once, 1);
    }
  return failure;
}

/* The module's failure, else the CUDA runtime's words. */
static const char *
gpu_words (void)
{
  const char *failure = module_failure ();

  return failure != NULL ? failure : ct_cuda_last_error ();
}

const char *
ct_engine_gpu_last_error (void)
{
  return CT_HAVE_CUDA ? gpu_words () : "";
}

int
ct_engine_gpu_count (char **reason)
{
  const char *failure = module_failure ();
  int count = 0;

  if (failure != NULL)
    {
      if (reason != NULL)
        *reason = g_strdup (failure);
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
               id, gpu_words ());
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
