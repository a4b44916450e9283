/* cuda-test-util.c: see cuda-test-util.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda-test-util.h"
#include "device.h"

void
ct_cuda_test_require_gpu (void)
{
  if (ct_cuda_available () != CT_STATUS_OK)
    {
      printf ("1..0 # SKIP no usable GPU (%s)\n", ct_cuda_last_error ());
      exit (77);
    }
}

float *
ct_cuda_test_random (int64_t n, float lo, float hi, guint64 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) seed);
  float *x = g_new (float, n > 0 ? n : 1);

  for (int64_t i = 0; i < n; i++)
    x[i] = (float) g_rand_double_range (rand, lo, hi);
  return x;
}

float *
ct_cuda_test_upload (const float *host, int64_t n)
{
  void *device = NULL;

  g_assert_cmpint (ct_cuda_malloc (&device, (size_t) n * sizeof (float)), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_memcpy (device, host, (size_t) n * sizeof (float),
                                   CT_MEMCPY_HOST_TO_DEVICE), ==, CT_STATUS_OK);
  return device;
}

float *
ct_cuda_test_download (const float *device, int64_t n)
{
  float *host = g_new (float, n > 0 ? n : 1);

  g_assert_cmpint (ct_cuda_memcpy (host, device, (size_t) n * sizeof (float),
                                   CT_MEMCPY_DEVICE_TO_HOST), ==, CT_STATUS_OK);
  return host;
}

float *
ct_cuda_test_device_zeros (int64_t n)
{
  void *device = NULL;

  g_assert_cmpint (ct_cuda_malloc (&device, (size_t) n * sizeof (float)), ==, CT_STATUS_OK);
  g_assert_cmpint (ct_cuda_memset (device, 0, (size_t) n * sizeof (float)), ==, CT_STATUS_OK);
  return device;
}

void
ct_cuda_test_free (float *device)
{
  g_assert_cmpint (ct_cuda_free (device), ==, CT_STATUS_OK);
}

void
ct_cuda_test_assert_close (const char *what, const float *device, const float *cpu, int64_t n,
                           double tolerance)
{
  g_autofree float *gpu = ct_cuda_test_download (device, n);
  double diff = 0.0, norm = 0.0, relative;

  for (int64_t i = 0; i < n; i++)
    {
      double d = (double) gpu[i] - (double) cpu[i];

      if (isnan (gpu[i]) != isnan (cpu[i]))
        g_error ("%s: element %" G_GINT64_FORMAT " is %g on the GPU, %g on the CPU", what, i,
                 gpu[i], cpu[i]);
      if (isnan (cpu[i]))
        continue;
      diff += d * d;
      norm += (double) cpu[i] * cpu[i];
    }
  relative = norm > 0.0 ? sqrt (diff / norm) : sqrt (diff);
  if (!(relative <= tolerance))
    g_error ("%s: ||gpu - cpu|| / ||cpu|| = %g > %g over %" G_GINT64_FORMAT " floats", what,
             relative, tolerance, n);
}
