/* net-dump.h: comparing a net with real Caffe. The binary blob dump
 * ("CAFFEDMP": every net blob's data and diff in blob order, then every
 * layer's parameter blobs) that Cortado's conformance data uses, and the
 * rules by which that data was made: the inputs' fill (sines, and labels
 * i % 10) and the statistics given to BatchNorm layers that were never
 * trained. `cortado-cli forward --fill caffe-ref --dump` writes what the
 * reference tool wrote. */
#pragma once

#include "net.h"

G_BEGIN_DECLS

#define CT_NET_DUMP_MAGIC "CAFFEDMP"
#define CT_NET_DUMP_VERSION 1

/* Fill every top of every Input layer: blob k (among the net's inputs)
 * gets v[i] = sin (0.01 i + k) computed in double, or i % 10 when its
 * name contains "label". */
gboolean ct_net_fill_reference_inputs (CtNet *net, GError **error);

/* A BatchNorm layer that uses stored statistics (use_global_stats, or the
 * TEST phase when unset) and whose scale factor is still 0 gets mean[c] =
 * 0.1 sin (c + 1), var[c] = 1 + 0.05 c and factor 1. */
gboolean ct_net_apply_reference_batch_norm (CtNet *net, GError **error);

/* Write the dump of NET, whose last forward returned LOSS, to PATH. */
gboolean ct_net_write_dump (CtNet *net, float loss, const char *path, GError **error);

G_END_DECLS
