/* field-path.h: reading and changing one field of a protobuf-c message by a
 * path such as "layer[3].convolution_param.kernel_size[0]".
 *
 * The inspector's form speaks in these paths (it knows descriptors, not
 * nets), and the document applies them to its NetParameter. A path is
 * segments separated by dots; a segment is a field name with an optional
 * [INDEX] for repeated fields. Every segment but the last names a message
 * field.
 *
 * Values are text: strings and bytes are taken as they are (no quotes);
 * every other type is read as the text format reads it ("20", "1e-3",
 * "MAX", "true"): numbers in the C locale, with range checks, enums by
 * name or number. For a message field the only value is "" (create it,
 * empty). Kept unknown text in the messages is never touched.
 *
 * GTK-free, so that the document (app/) and the form (widgets/) share it. */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

#include "reflect.h"

G_BEGIN_DECLS

/* Set the field at PATH in ROOT to VALUE, creating the messages on the way.
 * A repeated field takes an index: an existing element is replaced, the
 * index one past the end appends. Errors name the path. */
#define CT_FIELD_PATH_ERROR (ct_field_path_error_quark ())
GQuark ct_field_path_error_quark (void);

gboolean ct_field_path_set (ProtobufCMessage *root, const char *path, const char *value,
                            GError **error);

/* Clear the field at PATH: an optional field goes back to unset (its
 * default), a repeated field without an index loses every element, with an
 * index that element is removed. Clearing what is not there succeeds. */
gboolean ct_field_path_clear (ProtobufCMessage *root, const char *path, GError **error);

/* The field at PATH as text (strings without quotes), or NULL when it is
 * not set (ERROR stays unset) or the path is wrong (ERROR set). A set
 * message gives "". */
char *ct_field_path_get (const ProtobufCMessage *root, const char *path, GError **error);

/* Check that TEXT is a valid value for scalar field F (the form validates
 * entries with it). */
gboolean ct_field_check_value (const ProtobufCFieldDescriptor *f, const char *text,
                               GError **error);

/* Element INDEX of field F in MSG as text (the form counts the elements
 * with ct_proto_field_count(), see reflect.h). */
char *ct_field_value_to_text (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f,
                              gsize index);
/* The schema default of scalar field F of messages of type DESC as text
 * ("" for strings without one), read from a freshly initialised message so
 * that enums without an explicit default give their first declared value. */
char *ct_field_default_to_text (const ProtobufCMessageDescriptor *desc,
                                const ProtobufCFieldDescriptor *f);

G_END_DECLS
