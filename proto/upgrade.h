/* upgrade.h: legacy Caffe nets and solvers brought up to date, as Caffe
 * itself upgrades them on load.
 *
 * Nets: V0 (`layers { layer { ... } }`, `padding` layers) -> V1 (`layers`
 * with enum types) -> V2 (`layer` with string types); V1 blobs_lr /
 * weight_decay / param names -> ParamSpec; net-level `input` with
 * `input_dim` / `input_shape` -> an Input layer; data-layer transform fields
 * -> transform_param; BatchNorm's obsolete param specs dropped.
 * Solvers: the `solver_type` enum -> the `type` string.
 *
 * Each function changes the message in place and appends one translated,
 * human-readable line per change to NOTES (a GPtrArray of char*, may be
 * NULL). FILENAME only names the source in messages. Content Caffe would
 * refuse (a padding layer feeding a ReLU, `layer` and `layers` together,
 * solver_type and type together) gives CT_PROTO_ERROR_UPGRADE naming the
 * layer; the message may then be partly upgraded, but is still whole and
 * freed as usual. */
#pragma once

#include <glib.h>
#include "caffe.pb-c.h"

G_BEGIN_DECLS

gboolean ct_net_needs_upgrade (const Caffe__NetParameter *net);

gboolean ct_upgrade_net (Caffe__NetParameter *net,
                         const char *filename,
                         GPtrArray *notes,
                         GError **error);

gboolean ct_solver_needs_upgrade (const Caffe__SolverParameter *solver);

gboolean ct_upgrade_solver (Caffe__SolverParameter *solver,
                            const char *filename,
                            GPtrArray *notes,
                            GError **error);

G_END_DECLS
