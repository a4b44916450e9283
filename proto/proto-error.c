/* proto-error.c: the CT_PROTO_ERROR domain, whose errors on text carry
 * their line and column as data (GLib's extended errors). */
#include "proto-error.h"

typedef struct {
  guint line;   /* 1-based; 0: the error has no position */
  guint column;
} CtProtoErrorPrivate;

static void
ct_proto_error_private_init (CtProtoErrorPrivate *position)
{
  /* GLib hands over the error's private part, never NULL; the check
   * keeps -Wnull-dereference quiet about its generated code */
  if (position == NULL)
    return;
  position->line = 0;
  position->column = 0;
}

static void
ct_proto_error_private_copy (const CtProtoErrorPrivate *src, CtProtoErrorPrivate *dest)
{
  if (src != NULL && dest != NULL)
    *dest = *src;
}

static void
ct_proto_error_private_clear (CtProtoErrorPrivate *position)
{
  (void) position;
}

G_DEFINE_EXTENDED_ERROR (CtProtoError, ct_proto_error)

void
ct_proto_error_set_position (GError **error, guint line, guint column)
{
  CtProtoErrorPrivate *position;

  if (error == NULL || *error == NULL || (*error)->domain != CT_PROTO_ERROR
      || (position = ct_proto_error_get_private (*error)) == NULL)
    return;
  position->line = line;
  position->column = column;
}

gboolean
ct_proto_error_get_position (const GError *error, guint *line, guint *column)
{
  CtProtoErrorPrivate *position = error != NULL && error->domain == CT_PROTO_ERROR
                                   ? ct_proto_error_get_private (error) : NULL;

  if (position == NULL || position->line == 0)
    return FALSE;
  *line = position->line;
  *column = position->column;
  return TRUE;
}
