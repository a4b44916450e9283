/* proto-error.c: the CT_PROTO_ERROR domain. */
#include "proto-error.h"

G_DEFINE_QUARK (cortado-proto-error-quark, ct_proto_error)
