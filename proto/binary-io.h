/* binary-io.h: binary protobuf files: .caffemodel (NetParameter),
 * .solverstate (SolverState), .binaryproto (BlobProto mean files).
 *
 * Reading checks the wire format first so that a truncated, oversized or
 * non-protobuf file gets an error that names the file and the byte offset,
 * never a crash; files up to 2 GiB. Writing goes to a temporary file renamed
 * over the target, so an interrupted save never destroys the old file. */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

G_BEGIN_DECLS

#define CT_BINARY_MAX_SIZE ((gsize) G_MAXINT32) /* 2 GiB - 1, as Caffe's reader allows */

/* Decode DATA as DESC. NAME names the source in errors. Free the result with
 * protobuf_c_message_free_unpacked (msg, NULL). */
ProtobufCMessage *ct_binary_parse (const ProtobufCMessageDescriptor *desc,
                                   const guint8 *data,
                                   gsize length,
                                   const char *name,
                                   GError **error);

ProtobufCMessage *ct_binary_read_file (const ProtobufCMessageDescriptor *desc,
                                       const char *path,
                                       GError **error);

/* Pack MSG (kept unknown text is not written) and save it atomically. */
gboolean ct_binary_write_file (const ProtobufCMessage *msg,
                               const char *path,
                               GError **error);

G_END_DECLS
