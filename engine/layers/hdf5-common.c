/* hdf5-common.c: the lock around libhdf5 (see hdf5-private.h). */
#include "hdf5-private.h"

static GMutex hdf5_mutex;

void
ct_hdf5_lock (void)
{
  g_mutex_lock (&hdf5_mutex);
  /* cheap, and per thread where libhdf5 keeps error state per thread */
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
}

void
ct_hdf5_unlock (void)
{
  g_mutex_unlock (&hdf5_mutex);
}
