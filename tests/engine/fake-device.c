/* fake-device.c: see fake-device.h. */
#include <string.h>

#include "fake-device.h"

FakeDeviceStats fake_device_stats;

static CtStatus
fake_alloc (void **ptr, size_t size)
{
  *ptr = NULL;
  if (fake_device_stats.fail_with != CT_STATUS_OK)
    return fake_device_stats.fail_with;
  /* Filled with a pattern: CtMem must clear it itself. */
  *ptr = g_malloc (size);
  memset (*ptr, 0xA5, size);
  fake_device_stats.live_allocations++;
  return CT_STATUS_OK;
}

static CtStatus
fake_release (void *ptr)
{
  g_free (ptr);
  fake_device_stats.live_allocations--;
  return CT_STATUS_OK;
}

static CtStatus
fake_copy (void *dst, const void *src, size_t size, CtMemcpyKind kind)
{
  if (fake_device_stats.fail_with != CT_STATUS_OK)
    return fake_device_stats.fail_with;
  switch (kind)
    {
    case CT_MEMCPY_HOST_TO_DEVICE:
      fake_device_stats.host_to_device++;
      break;
    case CT_MEMCPY_DEVICE_TO_HOST:
      fake_device_stats.device_to_host++;
      break;
    case CT_MEMCPY_DEVICE_TO_DEVICE:
      fake_device_stats.device_to_device++;
      break;
    }
  memcpy (dst, src, size);
  return CT_STATUS_OK;
}

static CtStatus
fake_fill (void *ptr, int value, size_t size)
{
  if (fake_device_stats.fail_with != CT_STATUS_OK)
    return fake_device_stats.fail_with;
  if (fake_device_stats.fill_fails_with != CT_STATUS_OK)
    return fake_device_stats.fill_fails_with;
  fake_device_stats.fills++;
  memset (ptr, value, size);
  return CT_STATUS_OK;
}

static const CtMemDevice fake_device = {
  .alloc = fake_alloc,
  .release = fake_release,
  .copy = fake_copy,
  .fill = fake_fill,
};

void
fake_device_install (void)
{
  memset (&fake_device_stats, 0, sizeof fake_device_stats);
  ct_mem_set_device_for_testing (&fake_device);
}

void
fake_device_uninstall (void)
{
  ct_mem_set_device_for_testing (NULL);
}
