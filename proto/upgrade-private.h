/* upgrade-private.h: what the steps of the legacy upgrade (upgrade*.c)
 * share: notes, moving values and kept text between message types, the
 * names of layer types across the net formats, and the steps themselves,
 * which upgrade.c and upgrade-solver.c run in Caffe's order. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"

G_BEGIN_DECLS

/* Add one formatted line to NOTES (which may be NULL). */
void ct_upgrade_note (GPtrArray *notes, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* FILENAME as messages name the source, "<net>" when there is none. */
const char *ct_upgrade_source_name (const char *filename);

/* DESC's field NAME; only called with names from caffe.proto. */
const ProtobufCFieldDescriptor *ct_upgrade_field_by_name (const ProtobufCMessageDescriptor *desc,
                                                          const char *name);

/* MSG's sub-message NAME, created empty if absent. */
ProtobufCMessage *ct_upgrade_ensure_sub (ProtobufCMessage *msg, const char *name);

/* Moves the string out of *SRC (a field whose default is DEFAULT_VALUE),
 * duplicating it if it is the static default. */
char *ct_upgrade_take_string (char **src, const void *default_value);

/* Stores the value of SRC_FIELD in SRC into DST_FIELD of DST: set for a
 * singular field, appended for a repeated one. Messages and strings are
 * moved. Both fields are singular on the source side and of the same
 * kind (32-bit integer, float, bool, enum, string or message). */
void ct_upgrade_move_value (ProtobufCMessage *dst,
                            const ProtobufCFieldDescriptor *dst_field,
                            ProtobufCMessage *src,
                            const ProtobufCFieldDescriptor *src_field);

/* Moves the unknown fields (kept prototxt text) of SRC to the end of DST's,
 * anchored on DST's fields of the same names. */
void ct_upgrade_move_unknown_fields (ProtobufCMessage *dst, ProtobufCMessage *src);

/* Kept text of MSG (a layer named LABEL) that names one of its fields is
 * parsed as that field; returns MSG or its merged replacement. */
ProtobufCMessage *ct_upgrade_resolve_kept_collisions (ProtobufCMessage *msg,
                                                      const char *label,
                                                      GPtrArray *notes);

/* Frees the N messages in array MESSAGES (NULL entries skipped), then the
 * array itself: a repeated message field's storage, or a partly built one. */
void ct_upgrade_free_messages (gpointer messages, gsize n);

/* Moves a repeated field's array from SRC to DST (the same element type). */
#define CT_UPGRADE_MOVE_ARRAY(dst, dst_n, src, src_n) \
  G_STMT_START { \
    (dst) = (src); (dst_n) = (src_n); (src) = NULL; (src_n) = 0; \
  } G_STMT_END

/* Layer type names: the V1 enum name of V0 type string V0, and the V2 type
 * string of V1 enum name V1 ("" for NONE); NULL for names that no format
 * had. */
const char *ct_upgrade_v1_type_of_v0 (const char *v0);
const char *ct_upgrade_v2_type_of_v1 (const char *v1);

/* The steps, each for a net that needs it. */
gboolean ct_upgrade_net_is_v0 (const Caffe__NetParameter *net);
gboolean ct_upgrade_v0_net (Caffe__NetParameter *net,
                            const char *filename,
                            GPtrArray *notes,
                            GError **error);
void ct_upgrade_data_transformation (Caffe__NetParameter *net, GPtrArray *notes);
gboolean ct_upgrade_v1_net (Caffe__NetParameter *net,
                            const char *filename,
                            GPtrArray *notes,
                            GError **error);

G_END_DECLS
