/* solver-diff.h: what sets one solver's settings apart from another's, as
 * a short label for an earlier training run on the plot ("base_lr 0.01"). */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"

G_BEGIN_DECLS

/* The scalar fields of EARLIER whose values differ from those of CURRENT,
 * as "name value" joined by ", " (at most MAX_FIELDS, then "…"), in the
 * schema's order; the nets and the snapshot prefix are left out (the
 * window puts its own there). NULL when nothing differs. */
char *ct_solver_param_diff (const Caffe__SolverParameter *earlier,
                            const Caffe__SolverParameter *current, guint max_fields);

G_END_DECLS
