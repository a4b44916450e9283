/* cli-net-private.h: the cortado-cli verbs that build and run nets
 * (forward, layers, time), how they load a net, and the shape table of
 * `check --shapes`. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "net.h"

G_BEGIN_DECLS

int ct_cli_forward (int argc, char **argv);
int ct_cli_layers (int argc, char **argv);
int ct_cli_time (int argc, char **argv);

/* The net a verb asks for. */
typedef struct {
  const char *model;            /* the prototxt */
  Caffe__Phase phase;
  int level;
  const char *const *stages;    /* NULL-terminated, or NULL */
  guint64 seed;                 /* of the fillers and random layers */
  const char *weights;          /* .caffemodel or .h5 files, comma-separated; or NULL */
  CtNetMemoryPlan memory_plan;
  /* Told each note of upgrading an old-format net (NULL: not told), in
   * the verb's own log style. */
  void (*report_note) (const char *model, const char *note);
} CtCliNetRequest;

/* Read REQUEST->model strictly (upgrading a legacy net), build it and copy
 * the weights in. NULL with ERROR when any step fails; an error of the
 * build is prefixed with the model's path. */
CtNet *ct_cli_load_net (const CtCliNetRequest *request, GError **error);

/* Parse "TRAIN" or "TEST" (any case). */
gboolean ct_cli_parse_phase (const char *text, Caffe__Phase *phase);

/* Print every layer's top shapes, parameter count, forward FLOPs and
 * activation memory for the net at PATH built in PHASE (TSV: one line per
 * top and per parameter blob). Layers that cannot be built are reported on
 * stderr; returns FALSE then, or when PATH cannot be read. */
gboolean ct_cli_print_shapes (const char *path, Caffe__Phase phase, gboolean tsv);

G_END_DECLS
