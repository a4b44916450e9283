/* text-lenient.c: what a lenient parse keeps as text. A field the schema
 * does not know is skipped by the shape of its value (scalars, lists and
 * nested messages, with the same syntax errors as known fields), and the
 * text of it, or of a field with an unknown enum value, is kept in its
 * message as an unknown field, anchored after the known field before it,
 * so that the printer puts it back where it stood. */
#include "text-parser-private.h"
#include "proto-error.h"

#include <glib/gi18n-lib.h>

/* Remember unknown text for FRAME's message, anchored after the known field
 * that preceded it. */
void
ct_parser_keep_text (CtParser *p,
                     CtFrame *frame,
                     guint32 tag,
                     const CtToken *name,
                     const CtToken *value,
                     gsize value_end)
{
  const char *text = p->lexer.text;
  gsize name_off = (gsize) (name->start - text);
  gsize line_start = name_off - (name->column - 1);
  gsize indent = 0;
  ProtobufCMessageUnknownField field;
  CtKeptText kept = {
    .tag = tag,
    .anchor_id = frame->anchor.id,
    .anchor_count = frame->anchor.count,
    .line = name->line,
    .column = name->column,
    .error_line = value ? value->line : name->line,
    .error_column = value ? value->column : name->column,
    .name = name->start,
    .name_len = name->length,
    .text = name->start,
    .text_len = p->prev_end - name_off,
    .value = value ? value->start : "",
    .value_len = value ? value_end - (gsize) (value->start - text) : 0,
  };

  while (line_start + indent < name_off
         && (text[line_start + indent] == ' ' || text[line_start + indent] == '\t'))
    indent++;
  kept.indent = (guint32) indent;

  ct_kept_text_encode (&kept, &field);
  if (frame->kept == NULL)
    frame->kept = g_array_new (FALSE, FALSE, sizeof (ProtobufCMessageUnknownField));
  g_array_append_val (frame->kept, field);
}

/* ---- skipping what the schema does not know (lenient mode) ------------ */

static gboolean skip_message (CtParser *p, const CtToken *name);

static gboolean
skip_scalar (CtParser *p, const CtToken *name)
{
  if (p->tok.kind == CT_TOKEN_STRING)
    {
      while (p->tok.kind == CT_TOKEN_STRING)
        if (!ct_parser_advance (p))
          return FALSE;
      return TRUE;
    }
  if (ct_parser_is_symbol (p, '-') && !ct_parser_advance (p))
    return FALSE;
  if (p->tok.kind == CT_TOKEN_INT || p->tok.kind == CT_TOKEN_FLOAT || p->tok.kind == CT_TOKEN_IDENT)
    return ct_parser_advance (p);

  {
    g_autofree char *found = ct_parser_describe (&p->tok);
    return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                           _("missing value for field '%.*s', found %s"),
                           (int) name->length, name->start, found);
  }
}

static gboolean
skip_list (CtParser *p, const CtToken *name)
{
  CtToken open = p->tok;

  if (!ct_parser_advance (p))
    return FALSE;
  if (ct_parser_is_symbol (p, ']'))
    return ct_parser_advance (p);
  for (;;)
    {
      if (!(ct_parser_is_open (p) ? skip_message (p, name) : skip_scalar (p, name)))
        return FALSE;
      if (ct_parser_is_symbol (p, ']'))
        return ct_parser_advance (p);
      if (!ct_parser_is_symbol (p, ','))
        {
          g_autofree char *found = ct_parser_describe (&p->tok);
          return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                                 _("expected ',' or ']' in the list of field '%.*s' (opened at %u:%u), found %s"),
                                 (int) name->length, name->start, open.line, open.column, found);
        }
      if (!ct_parser_advance (p))
        return FALSE;
    }
}

gboolean
ct_parser_skip_field_value (CtParser *p, const CtToken *name)
{
  if (ct_parser_is_symbol (p, ':'))
    {
      if (!ct_parser_advance (p))
        return FALSE;
      if (ct_parser_is_symbol (p, '['))
        return skip_list (p, name);
      if (ct_parser_is_open (p))
        return skip_message (p, name);
      return skip_scalar (p, name);
    }
  if (ct_parser_is_open (p))
    return skip_message (p, name);

  {
    g_autofree char *found = ct_parser_describe (&p->tok);
    return ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                           _("expected ':' or '{' after field '%.*s', found %s"),
                           (int) name->length, name->start, found);
  }
}

static gboolean
skip_message (CtParser *p, const CtToken *name)
{
  CtToken open = p->tok;
  char close = open.symbol == '{' ? '}' : '>';
  gboolean ok = TRUE;

  if (p->depth >= CT_TEXT_MAX_DEPTH)
    return ct_parser_fail (p, name->line, name->column, CT_PROTO_ERROR_RANGE,
                           _("messages nested more than %d levels deep at field '%.*s'"),
                           CT_TEXT_MAX_DEPTH, (int) name->length, name->start);
  if (!ct_parser_advance (p))
    return FALSE;

  p->depth++;
  while (ok && !ct_parser_is_symbol (p, close))
    {
      CtToken inner = p->tok;

      if (p->tok.kind == CT_TOKEN_END)
        ok = ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                             _("expected '%c' to close '%.*s' (opened at %u:%u) but reached end of file"),
                             close, (int) name->length, name->start, name->line, name->column);
      else if (p->tok.kind != CT_TOKEN_IDENT)
        {
          g_autofree char *found = ct_parser_describe (&p->tok);
          ok = ct_parser_fail (p, p->tok.line, p->tok.column, CT_PROTO_ERROR_SYNTAX,
                               _("expected a field name or '%c' to close '%.*s' (opened at %u:%u), found %s"),
                               close, (int) name->length, name->start, name->line, name->column,
                               found);
        }
      else
        ok = ct_parser_advance (p) && ct_parser_skip_field_value (p, &inner)
             && (!(ct_parser_is_symbol (p, ';') || ct_parser_is_symbol (p, ','))
                 || ct_parser_advance (p));
    }
  p->depth--;
  return ok && ct_parser_advance (p);
}
