/* document.h: CtDocument, one net being edited in a window.
 *
 * The document holds the prototxt text, which is the truth: the graph, the
 * inspector and the source view all show it and all change it through this
 * API. The text is parsed leniently (fields the schema does not know are
 * kept verbatim) after every change; legacy V0/V1 nets are upgraded on
 * opening, with a note. Graph and form edits are operations on the parsed
 * net that print it back as canonical text (the comment block at the head
 * of the file is kept); every change is an undo step made of a text
 * snapshot, grouped so that typing or nudging one field is one step.
 *
 * After every change the net is checked on a worker thread with the
 * engine's shape inference (no tensor memory): per-layer errors and a
 * summary line (layers, parameters, FLOPs, activation memory) follow.
 *
 * Node positions and folds live beside the file in NET.prototxt.cortado (a
 * key file), never inside the prototxt. While there are unsaved changes a
 * draft is written under the user cache folder, and offered back after a
 * crash. */
#pragma once

#include <gio/gio.h>

#include "caffe.pb-c.h"
#include "net.h"

G_BEGIN_DECLS

#define CT_TYPE_DOCUMENT (ct_document_get_type ())
G_DECLARE_FINAL_TYPE (CtDocument, ct_document, CT, DOCUMENT, GObject)

/* What a "changed" signal reports. */
typedef enum {
  CT_DOCUMENT_CHANGE_TEXT   = 1 << 0, /* the text is different */
  CT_DOCUMENT_CHANGE_NET    = 1 << 1, /* it parsed: there is a new net */
  CT_DOCUMENT_CHANGE_SOURCE = 1 << 2, /* the change came from ct_document_set_text */
  CT_DOCUMENT_CHANGE_LOAD   = 1 << 3, /* a file or text was loaded */
} CtDocumentChange;

CtDocument *ct_document_new (void);

/* Loading. LOAD reads FILE (synchronously: prototxt files are small) and
 * replaces everything; LOAD_TEXT starts an untitled document holding TEXT,
 * named TITLE (an example's name). */
gboolean ct_document_load (CtDocument *self, GFile *file, GError **error);
void ct_document_load_text (CtDocument *self, const char *text, const char *title);

/* The file (NULL while untitled), a title for the window, and whether the
 * text differs from what was last loaded or saved. */
GFile *ct_document_get_file (CtDocument *self);
const char *ct_document_get_title (CtDocument *self);
gboolean ct_document_get_modified (CtDocument *self);

/* Save the text to FILE (NULL: the document's own file) through a
 * temporary file renamed over it, then the sidecar; the document takes FILE
 * as its own. */
gboolean ct_document_save (CtDocument *self, GFile *file, GError **error);

/* The text. SET_TEXT is for the source view: one undo step per burst of
 * typing. */
const char *ct_document_get_text (CtDocument *self);
void ct_document_set_text (CtDocument *self, const char *text);

/* The last net the text parsed to (NULL if it never did), and why the
 * present text does not parse (NULL when it does). Notes are the upgrade
 * messages of the last load (char*). */
const Caffe__NetParameter *ct_document_get_net (CtDocument *self);
const GError *ct_document_get_parse_error (CtDocument *self);
GPtrArray *ct_document_get_notes (CtDocument *self);

/* Undo and redo over every kind of change. */
gboolean ct_document_can_undo (CtDocument *self);
gboolean ct_document_can_redo (CtDocument *self);
void ct_document_undo (CtDocument *self);
void ct_document_redo (CtDocument *self);
/* Ends the present group (a burst of typing, nudges of one field): the
 * next change is an undo step of its own however soon it comes. Tests use
 * it rather than wait out the grouping time. */
void ct_document_end_undo_group (CtDocument *self);

/* Edits (see net-edit.h). Layers are indices into the net's `layer`. Each
 * is one undo step; on failure nothing changes. They fail while the text
 * does not parse. The add and insert functions return the new layer's
 * index, or -1. */
int ct_document_add_layer (CtDocument *self, const char *type, const char *bottom,
                           GError **error);
int ct_document_insert_layer (CtDocument *self, const char *type, guint from, guint from_top,
                              guint to, guint to_bottom, GError **error);
gboolean ct_document_delete_layers (CtDocument *self, const guint *indices, guint n,
                                    GError **error);
gboolean ct_document_rename_layer (CtDocument *self, guint index, const char *name,
                                   GError **error);
gboolean ct_document_connect (CtDocument *self, guint from, guint from_top, guint to,
                              int to_bottom, GError **error);
gboolean ct_document_disconnect (CtDocument *self, guint to, guint to_bottom, GError **error);
/* Set (VALUE non-NULL) or clear the field at PATH, relative to the
 * NetParameter ("layer[2].convolution_param.num_output"); see field-path.h. */
gboolean ct_document_set_field (CtDocument *self, const char *path, const char *value,
                                GError **error);
/* Clipboard text of layers, and pasting it (NEW_INDICES gets the pasted
 * layers' indices; may be NULL). DUPLICATE copies and pastes in one step. */
char *ct_document_copy_layers (CtDocument *self, const guint *indices, guint n);
gboolean ct_document_paste (CtDocument *self, const char *text, GArray *new_indices,
                            GError **error);
gboolean ct_document_duplicate_layers (CtDocument *self, const guint *indices, guint n,
                                       GArray *new_indices, GError **error);

/* Validation. The phase to check (TRAIN or TEST); BOTH checks each and
 * merges the errors, the summary then counts TRAIN. */
typedef enum {
  CT_DOCUMENT_PHASE_TRAIN,
  CT_DOCUMENT_PHASE_TEST,
  CT_DOCUMENT_PHASE_BOTH,
} CtDocumentPhase;

void ct_document_set_phase (CtDocument *self, CtDocumentPhase phase);
CtDocumentPhase ct_document_get_phase (CtDocument *self);
/* The shapes of the last check (NULL before the first one finishes): for
 * BOTH, the TRAIN net's, and the TEST net's with get_test_shapes. */
const CtNetShapes *ct_document_get_shapes (CtDocument *self);
const CtNetShapes *ct_document_get_test_shapes (CtDocument *self);
/* The error of layer INDEX (in the net's `layer`) from the last check, or
 * NULL; a layer skipped because an earlier one failed has none. */
const GError *ct_document_get_layer_error (CtDocument *self, guint index);
/* "9 layers · 431,080 parameters · 4.6 MFLOPs · 0.6 MB activations". */
const char *ct_document_get_summary (CtDocument *self);
/* Whether a check is running; block until it is done (tests). */
gboolean ct_document_get_validating (CtDocument *self);
void ct_document_wait_validated (CtDocument *self);

/* Data layers (Data, ImageData, HDF5Data) whose source cannot
 * be read still fail the check, but their tops take a stand-in shape so
 * that the rest of the net keeps its shapes: the one given here, or else
 * the last one a check saw; both are kept in the sidecar by layer name, and
 * the layer's batch size replaces the first axis. TEXT gives one shape per
 * top, as in "64×1×28×28; 64" (x, commas or spaces also separate sizes);
 * NULL or "" forgets it. FALSE with ERROR when TEXT is not a shape.
 * DUP returns the shape in use for LAYER in that form, or NULL. */
gboolean ct_document_set_data_shape (CtDocument *self, const char *layer, const char *text,
                                     GError **error);
char *ct_document_dup_data_shape (CtDocument *self, const char *layer);
/* The stand-in shape texts by layer name, for ct_net_infer_shapes_with_stand_ins
 * and CtNetGraphOptions.stand_ins (never NULL). */
GHashTable *ct_document_dup_stand_in_shapes (CtDocument *self);

/* The folder relative data paths (LMDB sources, mean files) are found in
 * when checking: the file's folder, or one set for an untitled document (an
 * example's). Owned string or NULL. */
char *ct_document_dup_base_dir (CtDocument *self);
void ct_document_set_base_dir (CtDocument *self, const char *dir);
/* A copy of the net to check or draw: relative data paths resolved
 * against the base folder. NULL while there is no net. */
Caffe__NetParameter *ct_document_dup_resolved_net (CtDocument *self);

/* Sidecar: node positions (graph coordinates) and folds, by node id. */
gboolean ct_document_get_node_position (CtDocument *self, const char *id, double *x,
                                        double *y);
void ct_document_set_node_position (CtDocument *self, const char *id, double x, double y);
gboolean ct_document_get_node_expanded (CtDocument *self, const char *id);
void ct_document_set_node_expanded (CtDocument *self, const char *id, gboolean expanded);
/* Write the sidecar now if it changed and the document has a file. */
gboolean ct_document_save_sidecar (CtDocument *self, GError **error);

/* Drafts. After loading a file, whether an unsaved draft of it from an
 * earlier session exists; restoring puts its text in (one undo step). */
gboolean ct_document_has_draft (CtDocument *self);
gboolean ct_document_restore_draft (CtDocument *self, GError **error);
/* Forget this document's draft (the user discarded the changes). */
void ct_document_discard_draft (CtDocument *self);
/* Write the draft now instead of after the usual pause (tests). */
void ct_document_write_draft (CtDocument *self);
/* Drafts left by earlier sessions: their key files' paths (char*). */
GPtrArray *ct_document_list_drafts (void);
/* A document for the draft at KEY_FILE_PATH: its file loaded (if it had
 * one) with the draft's text on top, or an untitled one. */
CtDocument *ct_document_new_from_draft (const char *key_file_path, GError **error);

G_END_DECLS
