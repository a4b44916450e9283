/* proto-error.h: the error domain for everything proto/ reads and writes.
 *
 * Messages are meant for users: they start with "FILE:LINE:COLUMN: " for text
 * input, or "FILE: " for binary input, and name the message type and field.
 * Errors on text carry the line and column as data too. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CT_PROTO_ERROR (ct_proto_error_quark ())
GQuark ct_proto_error_quark (void);

typedef enum {
  CT_PROTO_ERROR_SYNTAX,         /* text that is not protobuf text format */
  CT_PROTO_ERROR_UNKNOWN_FIELD,  /* a field or enum value the schema lacks */
  CT_PROTO_ERROR_TYPE,           /* a value of the wrong kind for its field */
  CT_PROTO_ERROR_RANGE,          /* a number outside its field's range */
  CT_PROTO_ERROR_IO,             /* the file could not be read or written */
  CT_PROTO_ERROR_CORRUPT,        /* binary data that is not a valid message */
  CT_PROTO_ERROR_TOO_LARGE,      /* a file over the 2 GiB limit */
  CT_PROTO_ERROR_UPGRADE,        /* a legacy file that cannot be upgraded */
  CT_PROTO_ERROR_INVALID,        /* a well-formed file with contradictory content */
} CtProtoError;

/* Gives *ERROR (a CT_PROTO_ERROR; others are left alone, as is NULL) the
 * 1-based LINE and COLUMN of text it is about. */
void ct_proto_error_set_position (GError **error, guint line, guint column);
/* The position ERROR carries as data; FALSE when it has none. The
 * message starts with it too ("FILE:LINE:COLUMN: "). */
gboolean ct_proto_error_get_position (const GError *error, guint *line, guint *column);

G_END_DECLS
