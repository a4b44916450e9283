/* fake-device.h: a CtMemDevice whose "GPU memory" is host memory, so that
 * the GPU side of CtMem and CtBlob can be tested without a GPU. It counts
 * copies in each direction and live allocations, and can be told to fail. */
#pragma once

#include "mem-private.h"

typedef struct {
  guint host_to_device;
  guint device_to_host;
  guint device_to_device;
  guint fills;
  gint live_allocations;
  CtStatus fail_with;       /* CT_STATUS_OK, or what every call but release returns */
  CtStatus fill_fails_with; /* likewise for fills alone */
} FakeDeviceStats;

extern FakeDeviceStats fake_device_stats;

/* Installs the fake device (for CtMems created from now on) and clears the
 * statistics; fake_device_uninstall() restores the real one. */
void fake_device_install (void);
void fake_device_uninstall (void);

