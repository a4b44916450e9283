/* cuda-test-util.h: what the CUDA kernel tests share: skipping without a
 * GPU, random device arrays and their CPU copies, and the comparison of a
 * GPU result with its CPU twin's. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Exits with 77 (meson's SKIP) when no GPU can be used; call first. */
void ct_cuda_test_require_gpu (void);

/* N floats uniform in [LO, HI) from a seeded generator, on the host
 * (g_free them). */
float *ct_cuda_test_random (int64_t n, float lo, float hi, guint64 seed);

/* A device copy of N host floats (ct_cuda_test_free it), and back. */
float *ct_cuda_test_upload (const float *host, int64_t n);
float *ct_cuda_test_download (const float *device, int64_t n);
float *ct_cuda_test_device_zeros (int64_t n);
void ct_cuda_test_free (float *device);

/* Asserts ||GPU - CPU|| / ||CPU|| <= TOLERANCE (an absolute norm when the
 * CPU's is 0), with WHAT in the message. DEVICE is a device pointer. */
void ct_cuda_test_assert_close (const char *what, const float *device, const float *cpu,
                                int64_t n, double tolerance);

G_END_DECLS
