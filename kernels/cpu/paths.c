/* cpu/paths.c: cpu-paths.h, read off the libraries and the CPU. */
#include <cblas.h>
#include <stdio.h>
#include <string.h>
#ifdef CT_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#include "blas.h"
#include "conv.h"
#include "cpu-paths.h"
#include "isa.h"
#include "parallel.h"

static const char *
widest_isa (void)
{
#if defined(__x86_64__)
  if (ct_cpu_have_avx512 ())
    return "AVX-512";
  if (ct_cpu_have_avx2 () && ct_cpu_have_fma ())
    return "AVX2 and FMA";
  return "SSE2";
#else
  return "portable C";
#endif
}

/* "0.3.21" out of OpenBLAS's configuration line ("OpenBLAS 0.3.21 DYNAMIC_ARCH ..."). */
static void
openblas_version (char *out, size_t size)
{
  const char *config = openblas_get_config ();
  const char *v = config != NULL ? strstr (config, "OpenBLAS ") : NULL;
  size_t len;

  if (v == NULL)
    {
      snprintf (out, size, "OpenBLAS");
      return;
    }
  len = strcspn (v + 9, " ");
  snprintf (out, size, "OpenBLAS %.*s", (int) len, v + 9);
}

void
ct_cpu_paths (CtCpuPaths *paths)
{
  char blas[48];
  const char *core = openblas_get_corename ();

  memset (paths, 0, sizeof *paths);
  snprintf (paths->isa, sizeof paths->isa, "%s", widest_isa ());
  openblas_version (blas, sizeof blas);
  snprintf (paths->openblas, sizeof paths->openblas, "%s, %s kernels", blas,
            core != NULL ? core : "unknown");
#ifdef CT_HAVE_DNNL
  const dnnl_version_t *v = dnnl_version ();

  char dnnl[32];

  snprintf (dnnl, sizeof dnnl, "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
  snprintf (paths->products, sizeof paths->products, "%s", ct_cpu_gemm_uses_dnnl () ? dnnl : blas);
  snprintf (paths->convolutions, sizeof paths->convolutions, "%s",
            ct_cpu_conv_uses_dnnl () ? dnnl : "none");
#else
  snprintf (paths->products, sizeof paths->products, "%s", blas);
  snprintf (paths->convolutions, sizeof paths->convolutions, "none");
#endif
  paths->threads = ct_cpu_num_threads ();
}
