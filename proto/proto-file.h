/* proto-file.h: opening a prototxt the way users and cortado-cli do: detect
 * whether it holds a net or a solver, parse it, and upgrade legacy content. */
#pragma once

#include <glib.h>
#include "caffe.pb-c.h"
#include "text-format.h"

G_BEGIN_DECLS

typedef enum {
  CT_PROTO_KIND_NET,
  CT_PROTO_KIND_SOLVER,
} CtProtoKind;

/* Guess from the top-level field names whether TEXT is a SolverParameter
 * (base_lr, net, train_net, max_iter, ...) or a NetParameter. */
CtProtoKind ct_proto_guess_kind (const char *text, gssize length);

/* Upgrade MSG, a net or a solver as KIND says, to the current format when
 * it needs it, appending what changed to NOTES (may be NULL); PATH names
 * the file in errors. */
gboolean ct_proto_upgrade (ProtobufCMessage *msg,
                           CtProtoKind kind,
                           const char *path,
                           GPtrArray *notes,
                           GError **error);

/* Read PATH, parse it as a net or solver (KIND_OUT says which), and upgrade
 * it to the current format, appending what changed to NOTES (may be NULL). */
ProtobufCMessage *ct_proto_load_text_file (const char *path,
                                           CtTextFlags flags,
                                           CtProtoKind *kind_out,
                                           GPtrArray *notes,
                                           GError **error);

/* Convenience: a net file, parsed and upgraded. */
Caffe__NetParameter *ct_net_load_text_file (const char *path,
                                            CtTextFlags flags,
                                            GPtrArray *notes,
                                            GError **error);

G_END_DECLS
