/* selection.h: CtSelection, the one selection of a window: the graph node
 * ids (layer names) the user has selected, in the graph's order; or else
 * one blob, an edge of the graph (never both).
 *
 * The window owns it. The graph canvas, the source view and the inspector
 * each set it when the user selects something there, and each watches its
 * "changed" signal to follow; none of them calls another. A change may ask
 * the watchers to bring the selection into view (CT_SELECTION_REVEAL), as
 * finding a layer or moving the source cursor into one does. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum {
  CT_SELECTION_NONE = 0,
  CT_SELECTION_REVEAL = 1 << 0,   /* scroll the selection into view */
} CtSelectionFlags;

#define CT_TYPE_SELECTION (ct_selection_get_type ())
G_DECLARE_FINAL_TYPE (CtSelection, ct_selection, CT, SELECTION, GObject)

CtSelection *ct_selection_new (void);

/* Select IDS (NULL or empty: nothing); a blob selected is unselected.
 * Emits "changed" when the selection differs, or when FLAGS ask for a
 * reveal. */
void ct_selection_set (CtSelection *self, const char *const *ids, CtSelectionFlags flags);
/* Select blob BLOB as it leaves node PRODUCER (the graph node id writing
 * it: the layer, or the node an in-place layer is folded into) for node
 * CONSUMER (the layer reading it on the edge chosen; NULL: the blob as
 * the net leaves it). The ids become empty. Emits "changed" when the
 * selection differs, or when FLAGS ask for a reveal. */
void ct_selection_set_blob (CtSelection *self, const char *blob, const char *producer,
                            const char *consumer, CtSelectionFlags flags);
/* The blob selected and its ends (borrowed), or NULL when layers (or
 * nothing) are selected. */
const char *ct_selection_get_blob (CtSelection *self);
const char *ct_selection_get_blob_producer (CtSelection *self);
const char *ct_selection_get_blob_consumer (CtSelection *self);
/* The ids, NULL-terminated (borrowed; valid until the next set). */
const char *const *ct_selection_get_ids (CtSelection *self);
char **ct_selection_dup_ids (CtSelection *self);
guint ct_selection_get_count (CtSelection *self);
gboolean ct_selection_contains (CtSelection *self, const char *id);

/* Signals.
 * "changed" (guint flags): the ids or the blob changed, or a reveal was
 * asked for. */

G_END_DECLS
