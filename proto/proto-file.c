/* proto-file.c: opening a prototxt as users and cortado-cli do.
 *
 * A .prototxt does not say which message it holds, so the top-level field
 * names decide: each one that only SolverParameter has (base_lr, net,
 * max_iter, ...) votes for a solver, each one only NetParameter has
 * (layer, input, ...) for a net. The file is then parsed and brought up
 * to date by the upgrades Caffe applies on load. */
#include "proto-file.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "proto-error.h"
#include "upgrade.h"

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

/* Skips a quoted string starting at text[i]; returns the index after it. */
static gsize
skip_string (const char *text, gsize i, gsize n)
{
  char quote = text[i++];

  while (i < n && text[i] != quote && text[i] != '\n')
    i += text[i] == '\\' && i + 1 < n ? 2 : 1;
  return i < n ? i + 1 : n;
}

static void
vote (const char *name, int *net_votes, int *solver_votes)
{
  gboolean in_net = protobuf_c_message_descriptor_get_field_by_name (
                      &caffe__net_parameter__descriptor, name) != NULL;
  gboolean in_solver = protobuf_c_message_descriptor_get_field_by_name (
                         &caffe__solver_parameter__descriptor, name) != NULL;

  if (in_net && !in_solver)
    (*net_votes)++;
  else if (in_solver && !in_net)
    (*solver_votes)++;
}

CtProtoKind
ct_proto_guess_kind (const char *text, gssize length)
{
  gsize n;
  int depth = 0, net_votes = 0, solver_votes = 0;

  g_return_val_if_fail (text != NULL || length == 0, CT_PROTO_KIND_NET);

  n = length < 0 ? strlen (text) : (gsize) length;
  for (gsize i = 0; i < n;)
    {
      char c = text[i];

      if (c == '#')
        {
          while (i < n && text[i] != '\n')
            i++;
        }
      else if (c == '"' || c == '\'')
        i = skip_string (text, i, n);
      else if (c == '{' || c == '<')
        depth++, i++;
      else if (c == '}' || c == '>')
        depth--, i++;
      else if (is_ident_start (c) && (i == 0 || !is_ident_char (text[i - 1])))
        {
          gsize start = i, j;

          while (i < n && is_ident_char (text[i]))
            i++;
          /* a field name is followed by ':' or an opening brace; enum values
           * and keywords such as `true` are not */
          for (j = i; j < n && g_ascii_isspace (text[j]); j++)
            ;
          if (depth == 0 && j < n && (text[j] == ':' || text[j] == '{' || text[j] == '<'))
            {
              g_autofree char *name = g_strndup (text + start, i - start);
              vote (name, &net_votes, &solver_votes);
            }
        }
      else
        i++;
    }
  return solver_votes > net_votes ? CT_PROTO_KIND_SOLVER : CT_PROTO_KIND_NET;
}

gboolean
ct_proto_upgrade (ProtobufCMessage *msg,
                  CtProtoKind kind,
                  const char *path,
                  GPtrArray *notes,
                  GError **error)
{
  if (kind == CT_PROTO_KIND_SOLVER)
    {
      Caffe__SolverParameter *solver = (Caffe__SolverParameter *) msg;
      return !ct_solver_needs_upgrade (solver) ||
             ct_upgrade_solver (solver, path, notes, error);
    }
  else
    {
      Caffe__NetParameter *net = (Caffe__NetParameter *) msg;
      return !ct_net_needs_upgrade (net) || ct_upgrade_net (net, path, notes, error);
    }
}

static char *
read_text (const char *path, gsize *length, GError **error)
{
  g_autoptr(GError) local_error = NULL;
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, length, &local_error))
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO,
                   _("%s: could not read: %s"), path, local_error->message);
      return NULL;
    }
  return contents;
}

/* Reads and parses PATH as *KIND, or as the kind its text suggests when
 * GUESS, storing the kind used in *KIND. */
static ProtobufCMessage *
load (const char *path,
      gboolean guess,
      CtProtoKind *kind,
      CtTextFlags flags,
      GPtrArray *notes,
      GError **error)
{
  g_autofree char *contents = NULL;
  ProtobufCMessage *msg;
  gsize length;

  contents = read_text (path, &length, error);
  if (contents == NULL)
    return NULL;
  if (guess)
    *kind = ct_proto_guess_kind (contents, length);

  msg = ct_text_parse (*kind == CT_PROTO_KIND_SOLVER ? &caffe__solver_parameter__descriptor
                                                     : &caffe__net_parameter__descriptor,
                       contents, length, path, flags, error);
  if (msg == NULL)
    return NULL;
  if (!ct_proto_upgrade (msg, *kind, path, notes, error))
    {
      protobuf_c_message_free_unpacked (msg, NULL);
      return NULL;
    }
  return msg;
}

ProtobufCMessage *
ct_proto_load_text_file (const char *path,
                         CtTextFlags flags,
                         CtProtoKind *kind_out,
                         GPtrArray *notes,
                         GError **error)
{
  CtProtoKind kind = CT_PROTO_KIND_NET;
  ProtobufCMessage *msg;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  msg = load (path, TRUE, &kind, flags, notes, error);
  if (kind_out != NULL)
    *kind_out = kind;
  return msg;
}

Caffe__NetParameter *
ct_net_load_text_file (const char *path,
                       CtTextFlags flags,
                       GPtrArray *notes,
                       GError **error)
{
  CtProtoKind kind = CT_PROTO_KIND_NET;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The caller knows it wants a net: no guessing. */
  return (Caffe__NetParameter *) load (path, FALSE, &kind, flags, notes, error);
}
