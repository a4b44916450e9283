/* hdf5-private.h: what the HDF5Data and HDF5Output layers share. Debian's
 * libhdf5 is built without thread safety, so every call into it is made
 * under one process-wide lock; its own printing of error stacks is turned
 * off, since every failure becomes a GError naming the file and dataset. */
#pragma once

#include <glib.h>
#include <hdf5.h>

G_BEGIN_DECLS

/* Take the lock (and silence HDF5's error printing, once). */
void ct_hdf5_lock (void);
void ct_hdf5_unlock (void);

G_END_DECLS
