/* source-map.c: a forgiving scanner over prototxt text that finds the
 * top-level layer blocks (see source-map.h). */
#include <string.h>

#include "source-map.h"

static gboolean
is_ident_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Skip a quoted string starting at P (on the quote); returns the byte after
 * its closing quote, or the end of the line when it is not closed. */
static const char *
skip_string (const char *p)
{
  char quote = *p++;

  while (*p && *p != quote && *p != '\n')
    {
      if (*p == '\\' && p[1] != '\0')
        p++;
      p++;
    }
  return *p == quote ? p + 1 : p;
}

/* Within a block that starts at BODY, find `name: "..."` at the block's own
 * depth, and fill the span's name range. */
static void
find_name (const char *text, const char *body, const char *end, CtSourceSpan *span)
{
  int depth = 0;
  const char *p = body;

  while (p < end)
    {
      if (*p == '#')
        {
          while (p < end && *p != '\n')
            p++;
        }
      else if (*p == '"' || *p == '\'')
        p = skip_string (p);
      else if (*p == '{' || *p == '<')
        depth++, p++;
      else if (*p == '}' || *p == '>')
        depth--, p++;
      else if (depth == 0 && is_ident_start (*p) && (p == body || !is_ident_char (p[-1])))
        {
          const char *word = p;
          while (p < end && is_ident_char (*p))
            p++;
          if (p - word == 4 && strncmp (word, "name", 4) == 0)
            {
              while (p < end && (g_ascii_isspace (*p) || *p == ':'))
                p++;
              if (p < end && (*p == '"' || *p == '\''))
                {
                  const char *close = skip_string (p);
                  span->name_start = (gsize) (p + 1 - text);
                  span->name_end = (gsize) (close - text) - (close[-1] == *p ? 1 : 0);
                  return;
                }
            }
        }
      else
        p++;
    }
}

GArray *
ct_source_map_layers (const char *text)
{
  GArray *spans = g_array_new (FALSE, TRUE, sizeof (CtSourceSpan));
  const char *p = text;
  int depth = 0;
  guint line = 1;
  CtSourceSpan current = { 0 };
  gboolean open = FALSE;
  const char *body = NULL;

  while (*p)
    {
      char c = *p;

      if (c == '\n')
        line++, p++;
      else if (c == '#')
        {
          while (*p && *p != '\n')
            p++;
        }
      else if (c == '"' || c == '\'')
        p = skip_string (p);
      else if (c == '{' || c == '<')
        {
          if (depth == 0 && open && body == NULL)
            body = p + 1;
          depth++, p++;
        }
      else if (c == '}' || c == '>')
        {
          depth = MAX (depth - 1, 0);
          p++;
          if (depth == 0 && open && body != NULL)
            {
              current.end = (gsize) (p - text);
              find_name (text, body, p - 1, &current);
              g_array_append_val (spans, current);
              open = FALSE;
            }
        }
      else if (depth == 0 && is_ident_start (c) && (p == text || !is_ident_char (p[-1])))
        {
          const char *word = p;
          while (is_ident_char (*p))
            p++;
          if ((p - word == 5 && strncmp (word, "layer", 5) == 0)
              || (p - word == 6 && strncmp (word, "layers", 6) == 0))
            {
              memset (&current, 0, sizeof current);
              current.start = (gsize) (word - text);
              current.line = line;
              open = TRUE;
              body = NULL;
            }
          else
            open = FALSE;
        }
      else
        p++;
    }
  return spans;
}

int
ct_source_map_find (GArray *spans, gsize offset)
{
  for (guint i = 0; i < spans->len; i++)
    {
      const CtSourceSpan *span = &g_array_index (spans, CtSourceSpan, i);
      if (offset >= span->start && offset < span->end)
        return (int) i;
    }
  return -1;
}

char *
ct_source_leading_comment (const char *text)
{
  const char *p = text;
  const char *kept = text;

  while (*p)
    {
      while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
      if (*p == '#')
        {
          while (*p && *p != '\n')
            p++;
          if (*p == '\n')
            p++;
          kept = p;
        }
      else if (*p == '\n')
        p++;
      else
        break;
    }
  return g_strndup (text, kept - text);
}
