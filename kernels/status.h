/* status.h: what every kernel returns.
 *
 * Kernels never allocate, never log and never abort: they report through a
 * CtStatus, and the engine turns a status into a translated GError. The CPU
 * and CUDA twins of a kernel return the same statuses for the same reasons,
 * so the engine handles both alike. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CT_STATUS_OK = 0,
  CT_STATUS_NO_DEVICE,      /* no CUDA in this build, or no usable GPU */
  CT_STATUS_DEVICE_ERROR,   /* the device or its runtime reported a failure */
  CT_STATUS_OUT_OF_MEMORY,  /* device memory could not be allocated */
  CT_STATUS_INVALID,        /* arguments out of range (negative or oversized counts) */
} CtStatus;

/* A short English name for STATUS, for logs and test messages; the engine
 * shows users its own translated wording. Never NULL. */
const char *ct_status_to_string (CtStatus status);

#ifdef __cplusplus
}
#endif
