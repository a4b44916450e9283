/* explain-snapshot.h: an explain input (explain.h) read from a run
 * snapshot, as the window shows it: the layer's tops as it wrote them
 * (the version after it, when a later layer overwrote them in place), its
 * bottoms as they were before it ran, and its parameters. The snapshot
 * holds full values only of watched blobs and layers: the window watches
 * the selected layer's (app/window-run.c), so the selected layer can be
 * explained. Layers the document does not have (the Split layers the net
 * inserts) are described from the snapshot. No GTK. */
#pragma once

#include "explain.h"
#include "runner.h"

G_BEGIN_DECLS

typedef struct _CtExplainSnapshotLayer CtExplainSnapshotLayer;

/* The explain input of layer LAYER of SNAPSHOT, whose parameters are read
 * from NET (the document's, by layer name); NULL with an error naming what
 * the snapshot lacks. Keeps a reference to SNAPSHOT. */
CtExplainSnapshotLayer *ct_explain_snapshot_layer_new (CtRunSnapshot *snapshot, guint layer,
                                                       const Caffe__NetParameter *net,
                                                       GError **error);
void ct_explain_snapshot_layer_free (CtExplainSnapshotLayer *layer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtExplainSnapshotLayer, ct_explain_snapshot_layer_free)

const CtExplainLayer *ct_explain_snapshot_layer_get (const CtExplainSnapshotLayer *layer);

/* The layer of SNAPSHOT whose backward made the diff of blob BLOB (a
 * snapshot blob index) as its version VERSION shows it: the first layer
 * after the version's maker that reads the blob; -1 when none. Its bottom
 * index for the blob goes to BOTTOM. */
int ct_explain_snapshot_diff_maker (CtRunSnapshot *snapshot, guint blob,
                                    const CtRunVersion *version, guint *bottom);

G_END_DECLS
