/* cli-check.c: `cortado-cli check FILE…`: parse each net or solver (the
 * kind is detected), upgrade legacy content, and report every problem as
 * FILE:LINE:COLUMN: message, like a compiler. Unknown fields are all
 * listed, not just the first: the file is parsed leniently and each kept
 * field is then an error, or with --lenient a remark. */
#include <string.h>
#include <glib/gi18n-lib.h>
#include <stdio.h>

#include "cli-private.h"
#include "cli-net-private.h"
#include "proto-error.h"
#include "net.h"
#include "proto-file.h"
#include "solver.h"
#include "source-map.h"
#include "upgrade.h"

static gboolean lenient = FALSE;
static gboolean quiet = FALSE;
static char **files = NULL;
static gboolean shapes = FALSE;   /* --shapes, in cli-shapes.c */
static gboolean tsv = FALSE;
static char *phase_name = NULL;

static const GOptionEntry entries[] = {
  { "lenient", 'l', 0, G_OPTION_ARG_NONE, &lenient,
    N_("Accept fields the schema does not know and list each kept one"), NULL },
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
    N_("Print errors only"), NULL },
  { "shapes", 's', 0, G_OPTION_ARG_NONE, &shapes,
    N_("Build each net and print every top's shape, the parameter count, forward FLOPs "
       "and activation memory per layer"), NULL },
  { "phase", 'p', 0, G_OPTION_ARG_STRING, &phase_name,
    N_("With --shapes: build for TRAIN or TEST (the default)"), N_("PHASE") },
  { "tsv", 0, 0, G_OPTION_ARG_NONE, &tsv,
    N_("With --shapes: print LAYER, TYPE, top|param, BLOB|INDEX, dimensions, tab-separated"),
    NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
  { NULL }
};

static void
print_summary (const char *path, ProtobufCMessage *msg, CtProtoKind kind)
{
  if (kind == CT_PROTO_KIND_SOLVER)
    {
      const Caffe__SolverParameter *solver = (const Caffe__SolverParameter *) msg;
      g_print (_("%s: ok (solver, type %s)\n"), path,
               solver->type != NULL ? solver->type : "SGD");
    }
  else
    {
      const Caffe__NetParameter *net = (const Caffe__NetParameter *) msg;
      g_print (g_dngettext (GETTEXT_PACKAGE, "%s: ok (net '%s', %lu layer)\n",
                            "%s: ok (net '%s', %lu layers)\n", net->n_layer),
               path, net->name != NULL ? net->name : "", (unsigned long) net->n_layer);
    }
}

/* One kept field (or enum value): an error in strict mode, a remark
 * with --lenient. Errors point where a strict parse would have stopped. */
static void
print_unknown (const char *path, const CtTextUnknown *u)
{
  if (lenient)
    {
      if (quiet)
        return;
      if (u->value != NULL)
        g_print (_("%s:%u:%u: kept unknown value '%s' of field '%s' in %s\n"),
                 path, u->line, u->column, u->value, u->field_name, u->message_type);
      else
        g_print (_("%s:%u:%u: kept unknown field '%s' in %s\n"),
                 path, u->line, u->column, u->field_name, u->message_type);
    }
  else if (u->value != NULL)
    g_printerr (_("%s:%u:%u: invalid value '%s' for enum field '%s' in %s\n"),
                path, u->error_line, u->error_column, u->value, u->field_name,
                u->message_type);
  else
    g_printerr (_("%s:%u:%u: unknown field '%s' in %s\n"),
                path, u->error_line, u->error_column, u->field_name, u->message_type);
}

/* Parses PATH leniently as the kind its text suggests. */
static ProtobufCMessage *
parse_file (const char *path, CtProtoKind *kind, GError **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, &local_error))
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO, _("%s: could not read: %s"),
                   path, local_error->message);
      return NULL;
    }
  *kind = ct_proto_guess_kind (contents, length);
  return ct_text_parse (*kind == CT_PROTO_KIND_SOLVER ? &caffe__solver_parameter__descriptor
                                                      : &caffe__net_parameter__descriptor,
                       contents, length, path, CT_TEXT_LENIENT, error);
}

/* "FILE:LINE:COLUMN" of the block of the layer named NAME in PATH's text,
 * or PATH alone when it cannot be found. */
static char *
layer_place (const char *path, const char *name)
{
  g_autofree char *text = NULL;
  g_autoptr (GArray) spans = NULL;

  if (name == NULL || !g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup (path);
  spans = ct_source_map_layers (text);
  for (guint i = 0; i < spans->len; i++)
    {
      const CtSourceSpan *s = &g_array_index (spans, CtSourceSpan, i);
      gsize line_start = s->start;

      if (s->name_end <= s->name_start || strlen (name) != s->name_end - s->name_start ||
          strncmp (text + s->name_start, name, s->name_end - s->name_start) != 0)
        continue;
      while (line_start > 0 && text[line_start - 1] != '\n')
        line_start--;
      return g_strdup_printf ("%s:%u:%u", path, s->line, (guint) (s->start - line_start) + 1);
    }
  return g_strdup (path);
}

/* Every bottom made by a layer above it. */
static gboolean
check_connections (const char *path, const Caffe__NetParameter *net)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *place = NULL;
  int layer = -1;

  if (ct_net_check_connections (net, &layer, &error))
    return TRUE;
  place = layer_place (path, layer >= 0 ? net->layer[layer]->name : NULL);
  g_printerr ("%s: %s\n", place, error->message);
  return FALSE;
}

/* Returns whether PATH is free of errors. The file is parsed leniently and
 * its unknown fields listed before the upgrade, which may turn some of
 * them into fields of the newer format: they are errors in the file as
 * written, as a strict load would say. */
static gboolean
check_file (const char *path)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) unknown = NULL;
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg;
  CtProtoKind kind;
  gboolean ok;

  msg = parse_file (path, &kind, &error);
  if (msg == NULL)
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }

  unknown = ct_text_list_unknown (msg);
  for (guint i = 0; i < unknown->len; i++)
    print_unknown (path, g_ptr_array_index (unknown, i));
  ok = lenient || unknown->len == 0;

  if (!ct_proto_upgrade (msg, kind, path, notes, &error) ||
      (kind == CT_PROTO_KIND_SOLVER &&
       !ct_solver_param_check_numbers ((Caffe__SolverParameter *) msg, path, &error)))
    {
      g_printerr ("%s\n", error->message);
      ok = FALSE;
    }
  else
    {
      if (ok && kind == CT_PROTO_KIND_NET)
        ok = check_connections (path, (const Caffe__NetParameter *) msg);
      for (guint i = 0; !quiet && i < notes->len; i++)
        g_print ("%s: %s\n", path, (const char *) g_ptr_array_index (notes, i));
      if (ok && !quiet)
        print_summary (path, msg, kind);
    }
  protobuf_c_message_free_unpacked (msg, NULL);
  return ok;
}

int
ct_cli_check (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  gboolean ok = TRUE;

  context = ct_cli_context_new ("check", _("FILE…"),
                                _("Parse each net or solver prototxt (the kind is detected), "
                                  "upgrade legacy content, and print every error as "
                                  "FILE:LINE:COLUMN: message. Upgrade notes go to standard "
                                  "output."),
                                entries);
  if (!ct_cli_parse_files (context, "check", &argc, &argv, &files))
    return CT_CLI_EXIT_USAGE;

  if (shapes)
    {
      Caffe__Phase phase = CAFFE__PHASE__TEST;

      if (phase_name != NULL && !ct_cli_parse_phase (phase_name, &phase))
        return ct_cli_usage_error ("check", _("--phase takes TRAIN or TEST, not '%s'"),
                                   phase_name);
      for (char **f = files; *f != NULL; f++)
        ok &= ct_cli_print_shapes (*f, phase, tsv);
    }
  else
    for (char **f = files; *f != NULL; f++)
      ok &= check_file (*f);
  g_clear_pointer (&phase_name, g_free);
  g_clear_pointer (&files, g_strfreev);
  fflush (stdout);
  return ok ? CT_CLI_EXIT_OK : CT_CLI_EXIT_INPUT;
}
