/* source-map.h: where things are in a prototxt's text, without parsing it
 * into messages: the byte ranges of the top-level `layer { }` (and legacy
 * `layers { }`) blocks, so that selecting a node can scroll the source to its
 * layer and a click in the source can select the node; and the comment
 * block at the head of a file, which the document keeps when a graph edit
 * rewrites the text in canonical form.
 *
 * A small scanner that knows comments, quoted strings and both kinds of
 * braces; it never fails, so it also works on text that does not parse. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gsize start;       /* byte offset of the field name */
  gsize end;         /* byte offset just past the closing brace */
  guint line;        /* 1-based line of START */
  gsize name_start;  /* the layer's `name: "..."` value, inside the quotes, */
  gsize name_end;    /* or both 0 when it has none at the top of the block */
} CtSourceSpan;

/* The top-level layer blocks of TEXT in order: a GArray of CtSourceSpan. */
GArray *ct_source_map_layers (const char *text);

/* The index of the span holding byte OFFSET, or -1. */
int ct_source_map_find (GArray *spans, gsize offset);

/* The comment lines (and blank lines between them) that open TEXT, with
 * their newline; "" when TEXT does not start with a comment. */
char *ct_source_leading_comment (const char *text);

G_END_DECLS
