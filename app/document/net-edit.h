/* net-edit.h: the edits a user makes to a net in the workbench, as plain
 * operations on a Caffe__NetParameter: add a layer of a catalogue type with
 * sensible defaults and a unique name, insert one into a connection,
 * delete, rename, connect and disconnect blobs, copy layers as prototxt
 * text and paste them back with fresh names.
 *
 * Layers are named by their index in net->layer. Caffe reads a net in
 * definition order (a blob must be written before it is read), so every edit
 * that changes connections puts the layers back into a dependency order that
 * moves as few layers as it can, and refuses an edit that would make a
 * cycle. Kept unknown text inside the layers travels with them.
 *
 * No GTK: the document (document.c) wraps these with undo and text,
 * and tests call them directly. */
#pragma once

#include <glib.h>
#include "caffe.pb-c.h"

G_BEGIN_DECLS

#define CT_NET_EDIT_ERROR (ct_net_edit_error_quark ())
GQuark ct_net_edit_error_quark (void);

/* Whether some layer is called NAME, or some layer writes or reads a blob
 * called NAME. */
gboolean ct_net_edit_name_in_use (const Caffe__NetParameter *net, const char *name);

/* PREFIX followed by the smallest number from 1 that makes a name no layer
 * and no blob uses ("conv3"). */
char *ct_net_edit_unique_name (const Caffe__NetParameter *net, const char *prefix);

/* The short name new layers of TYPE get ("conv" for Convolution). */
char *ct_net_edit_name_prefix (const char *type);

/* Add a layer of TYPE with the defaults a user would pick (a convolution
 * gets 32 outputs, a 3x3 kernel and Xavier weights), named uniquely, its
 * tops named after it. BOTTOM (may be NULL) is the blob it reads: the new
 * layer goes after the last layer writing it, and a neuron-like type
 * (ReLU, Dropout, BatchNorm, Scale, ...) then computes in place. Loss and
 * accuracy layers also read "label" when the net has such a blob. Without a
 * BOTTOM, a layer that reads nothing goes first, any other last. Returns the
 * new layer's index, or -1 with ERROR set. */
int ct_net_edit_add_layer (Caffe__NetParameter *net, const char *type, const char *bottom,
                           GError **error);

/* Add a layer of TYPE into the connection from layer FROM's top FROM_TOP to
 * layer TO's bottom TO_BOTTOM: it reads that blob and TO reads its top (an
 * in-place type leaves TO as it is). Returns the new layer's index. */
int ct_net_edit_insert_layer (Caffe__NetParameter *net, const char *type, guint from,
                              guint from_top, guint to, guint to_bottom, GError **error);

/* Delete layer INDEX. A layer with one bottom and one top is bridged: the
 * layers reading its top read its bottom instead. */
gboolean ct_net_edit_delete_layer (Caffe__NetParameter *net, guint index, GError **error);

/* Rename layer INDEX to NAME (non-empty, unused by another layer). Blob
 * names stay as they are. */
gboolean ct_net_edit_rename_layer (Caffe__NetParameter *net, guint index, const char *name,
                                   GError **error);

/* Make layer TO read layer FROM's top FROM_TOP: as bottom TO_BOTTOM
 * (replacing what it read) or, when TO_BOTTOM is -1 or past the end, as a
 * new last bottom. */
gboolean ct_net_edit_connect (Caffe__NetParameter *net, guint from, guint from_top, guint to,
                              int to_bottom, GError **error);

/* Remove layer TO's bottom TO_BOTTOM. */
gboolean ct_net_edit_disconnect (Caffe__NetParameter *net, guint to, guint to_bottom,
                                 GError **error);

/* Put the layers in an order where every blob is written before it is
 * read, keeping the present order wherever it already works. Fails (net
 * unchanged) when the connections make a cycle. */
gboolean ct_net_edit_sort (Caffe__NetParameter *net, GError **error);

/* The layers INDICES (N of them) as prototxt text: "layer { ... }" blocks,
 * as the clipboard carries them. */
char *ct_net_edit_copy_text (const Caffe__NetParameter *net, const guint *indices, guint n);

/* Add the layers in TEXT (whole "layer { }" blocks, or a bare
 * LayerParameter body) to NET. Pasted layers whose names are taken get
 * fresh ones, and blobs they wrote under taken names are renamed along
 * (also where other pasted layers read them); blobs they read from the net
 * stay connected. Appends the new layers' indices to NEW_INDICES (may be
 * NULL). */
gboolean ct_net_edit_paste_text (Caffe__NetParameter *net, const char *text,
                                 GArray *new_indices, GError **error);

/* Make the relative data paths of NET's layers (data, image, HDF5 and
 * window sources, mean files) absolute against BASE_DIR where they do not
 * exist relative to the working directory but do there: the editor checks
 * a net as if run from the folder of its file, where its databases usually
 * are. Returns how many paths changed. */
guint ct_net_edit_resolve_paths (Caffe__NetParameter *net, const char *base_dir);

G_END_DECLS
