/* cli-net-private.h: the cortado-cli verbs that build and run nets
 * (forward, layers) and the shape table of `check --shapes`. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"

G_BEGIN_DECLS

int ct_cli_forward (int argc, char **argv);
int ct_cli_layers (int argc, char **argv);
int ct_cli_time (int argc, char **argv);

/* Parse "TRAIN" or "TEST" (any case). */
gboolean ct_cli_parse_phase (const char *text, Caffe__Phase *phase);

/* Print every layer's top shapes, parameter count, forward FLOPs and
 * activation memory for the net at PATH built in PHASE (TSV: one line per
 * top and per parameter blob). Layers that cannot be built are reported on
 * stderr; returns FALSE then, or when PATH cannot be read. */
gboolean ct_cli_print_shapes (const char *path, Caffe__Phase phase, gboolean tsv);

G_END_DECLS
