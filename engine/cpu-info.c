/* cpu-info.c: cpu-info.h, from the kernels' ct_cpu_paths. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cpu-info.h"
#include "cpu-paths.h"

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
