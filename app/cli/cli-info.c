/* cli-info.c: `cortado-cli info FILE`: what a binary model file holds.
 * A .caffemodel (NetParameter) gives the net name and, per layer, its type
 * and parameter blob shapes, then the parameter count; a .binaryproto
 * (BlobProto, e.g. a mean file) its shape; a .solverstate its iteration
 * and history blobs. Other extensions are tried as each in turn. */
#include <glib/gi18n-lib.h>
#include <string.h>

#include "atomic-write.h"
#include "binary-io.h"
#include "caffe.pb-c.h"
#include "cli-private.h"
#include "upgrade.h"

static char **files = NULL;

static const GOptionEntry entries[] = {
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
  { NULL }
};

typedef enum {
  KIND_UNKNOWN,
  KIND_NET,
  KIND_BLOB,
  KIND_STATE,
} FileKind;

/* A blob's shape as "20×1×5×5" and its element count; FALSE when the
 * count overflows or a dimension is negative. */
static gboolean
blob_shape (const Caffe__BlobProto *blob, GString *out, guint64 *count)
{
  gint64 legacy[4] = { blob->num, blob->channels, blob->height, blob->width };
  const gint64 *dims;
  gsize n_dims;
  guint64 total = 1;
  gboolean valid = TRUE;

  /* Caffe reads the legacy 4-D fields when any of them is set */
  if (blob->has_num || blob->has_channels || blob->has_height || blob->has_width)
    {
      dims = legacy;
      n_dims = 4;
    }
  else if (blob->shape != NULL)
    {
      dims = blob->shape->dim;
      n_dims = blob->shape->n_dim;
    }
  else
    {
      /* no shape at all: only the stored values tell the size */
      *count = blob->n_data > 0 ? blob->n_data : blob->n_double_data;
      g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "(%lu value, no shape)",
                                                "(%lu values, no shape)", *count),
                              (unsigned long) *count);
      return TRUE;
    }

  for (gsize i = 0; i < n_dims; i++)
    {
      g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? "×" : "", dims[i]);
      if (dims[i] < 0 || (dims[i] > 0 && total > G_MAXUINT64 / (guint64) dims[i]))
        valid = FALSE;
      else
        total *= (guint64) dims[i];
    }
  if (n_dims == 0)
    g_string_append (out, _("scalar"));
  *count = valid ? total : 0;
  return valid;
}

static void
print_text (const char *text)
{
  ct_cli_write_stdout (text, strlen (text));
}

static gsize
display_width (const char *s)
{
  return g_utf8_validate (s, -1, NULL) ? (gsize) g_utf8_strlen (s, -1) : strlen (s);
}

static void
append_padded (GString *line, const char *s, gsize width)
{
  g_string_append (line, s);
  for (gsize w = display_width (s); w < width; w++)
    g_string_append_c (line, ' ');
}

static int
print_net (const char *path, Caffe__NetParameter *net)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  gsize name_width = strlen (_("layer")), type_width = strlen (_("type"));
  guint64 total = 0;
  gsize n_blobs = 0, n_with_params = 0;
  gboolean total_valid = TRUE;

  /* old caffemodels hold V0/V1 layers; Caffe upgrades them on load too */
  if (ct_net_needs_upgrade (net) && !ct_upgrade_net (net, path, notes, &error))
    {
      g_printerr ("%s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  for (guint i = 0; i < notes->len; i++)
    g_printerr ("%s: %s\n", path, (const char *) g_ptr_array_index (notes, i));

  for (gsize i = 0; i < net->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = net->layer[i];
      name_width = MAX (name_width, display_width (layer->name != NULL ? layer->name : ""));
      type_width = MAX (type_width, display_width (layer->type != NULL ? layer->type : ""));
    }

  g_string_append_printf (out, _("net: %s\n"), net->name != NULL ? net->name : "");
  append_padded (out, _("layer"), name_width + 2);
  append_padded (out, _("type"), type_width + 2);
  g_string_append_printf (out, "%s\n", _("parameter blobs"));

  for (gsize i = 0; i < net->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = net->layer[i];

      append_padded (out, layer->name != NULL ? layer->name : "", name_width + 2);
      append_padded (out, layer->type != NULL ? layer->type : "", type_width + 2);
      if (layer->n_blobs == 0)
        g_string_append (out, "-");
      else
        n_with_params++;
      for (gsize b = 0; b < layer->n_blobs; b++)
        {
          guint64 count;

          if (b > 0)
            g_string_append (out, ", ");
          if (blob_shape (layer->blobs[b], out, &count))
            total += count;
          else
            total_valid = FALSE;
          n_blobs++;
        }
      g_string_append_c (out, '\n');
    }

  if (total_valid)
    g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE,
                                              "total: %lu parameters in %lu blob "
                                              "(%lu of %lu layers have parameters)\n",
                                              "total: %lu parameters in %lu blobs "
                                              "(%lu of %lu layers have parameters)\n", n_blobs),
                            (unsigned long) total, (unsigned long) n_blobs,
                            (unsigned long) n_with_params, (unsigned long) net->n_layer);
  else
    g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE,
                                              "total: unknown (a blob has an invalid shape), %lu blob\n",
                                              "total: unknown (a blob has an invalid shape), %lu blobs\n",
                                              n_blobs),
                            (unsigned long) n_blobs);
  print_text (out->str);
  return CT_CLI_EXIT_OK;
}

static int
print_blob (const Caffe__BlobProto *blob)
{
  g_autoptr(GString) out = g_string_new (NULL);
  guint64 count;

  g_string_append (out, _("blob: "));
  if (blob_shape (blob, out, &count))
    g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, " (%lu value)", " (%lu values)", count),
                            (unsigned long) count);
  g_string_append_c (out, '\n');
  print_text (out->str);
  return CT_CLI_EXIT_OK;
}

static int
print_state (const Caffe__SolverState *state)
{
  g_autoptr(GString) out = g_string_new (NULL);

  g_string_append_printf (out, _("iter: %d\n"), state->iter);
  g_string_append_printf (out, _("current_step: %d\n"), state->current_step);
  if (state->learned_net != NULL)
    g_string_append_printf (out, _("learned_net: %s\n"), state->learned_net);
  g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "history: %lu blob\n", "history: %lu blobs\n",
                                            state->n_history), (unsigned long) state->n_history);
  for (gsize i = 0; i < state->n_history; i++)
    {
      guint64 count;

      g_string_append_printf (out, "  %lu: ", (unsigned long) i + 1);
      blob_shape (state->history[i], out, &count);
      g_string_append_c (out, '\n');
    }
  print_text (out->str);
  return CT_CLI_EXIT_OK;
}

static FileKind
kind_from_extension (const char *path)
{
  if (g_str_has_suffix (path, ".caffemodel"))
    return KIND_NET;
  if (g_str_has_suffix (path, ".binaryproto"))
    return KIND_BLOB;
  if (g_str_has_suffix (path, ".solverstate"))
    return KIND_STATE;
  return KIND_UNKNOWN;
}

/* PATH without the ".XXXXXX" of a save that did not finish
 * (lenet_iter_100.solverstate.ZE6OZ3), or NULL when it is not one. */
static char *
unfinished_save_of (const char *path)
{
  g_autofree char *stem = strlen (path) > 7 ? g_strndup (path, strlen (path) - 7) : NULL;
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *stem_base = stem != NULL ? g_path_get_basename (stem) : NULL;

  if (stem == NULL || !ct_file_is_stale_temporary (base, stem_base) ||
      kind_from_extension (stem) == KIND_UNKNOWN)
    return NULL;
  return g_steal_pointer (&stem);
}

static int
print_as (const char *path, ProtobufCMessage *msg, FileKind kind)
{
  int status;

  switch (kind)
    {
    case KIND_NET:
      status = print_net (path, (Caffe__NetParameter *) msg);
      break;
    case KIND_STATE:
      status = print_state ((const Caffe__SolverState *) msg);
      break;
    default:
      status = print_blob ((const Caffe__BlobProto *) msg);
      break;
    }
  protobuf_c_message_free_unpacked (msg, NULL);
  return status;
}

/* Without a telling extension, the first message type the bytes parse as
 * with content that type would have wins. */
static int
info_guess (const char *path)
{
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg;

  msg = ct_binary_read_file (&caffe__net_parameter__descriptor, path, &error);
  if (msg == NULL)
    {
      /* truncation, size and I/O problems are the same for every type */
      g_printerr ("%s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  if (((Caffe__NetParameter *) msg)->n_layer > 0 || ((Caffe__NetParameter *) msg)->n_layers > 0)
    return print_as (path, msg, KIND_NET);
  protobuf_c_message_free_unpacked (msg, NULL);

  msg = ct_binary_read_file (&caffe__solver_state__descriptor, path, NULL);
  if (msg != NULL)
    {
      const Caffe__SolverState *state = (const Caffe__SolverState *) msg;
      if (state->has_iter || state->n_history > 0 || state->learned_net != NULL)
        return print_as (path, msg, KIND_STATE);
      protobuf_c_message_free_unpacked (msg, NULL);
    }

  msg = ct_binary_read_file (&caffe__blob_proto__descriptor, path, NULL);
  if (msg != NULL)
    {
      const Caffe__BlobProto *blob = (const Caffe__BlobProto *) msg;
      if (blob->shape != NULL || blob->n_data > 0 || blob->n_double_data > 0 || blob->has_num)
        return print_as (path, msg, KIND_BLOB);
      protobuf_c_message_free_unpacked (msg, NULL);
    }

  g_printerr (_("%s: could not tell whether this is a .caffemodel, .binaryproto or "
                ".solverstate file\n"), path);
  return CT_CLI_EXIT_INPUT;
}

static int
info_file (const char *path)
{
  static const ProtobufCMessageDescriptor *descs[] = {
    [KIND_NET] = &caffe__net_parameter__descriptor,
    [KIND_BLOB] = &caffe__blob_proto__descriptor,
    [KIND_STATE] = &caffe__solver_state__descriptor,
  };
  g_autoptr(GError) error = NULL;
  FileKind kind = kind_from_extension (path);
  g_autofree char *saved = unfinished_save_of (path);
  ProtobufCMessage *msg;

  if (saved != NULL)
    {
      /* What a killed save leaves (or a copy such as NAME.backup), not a
       * file of an unknown kind: read it as what its name says. */
      g_printerr (_("%s: read as %s, whose name it extends (a save of %s that did not "
                    "finish leaves such a file, which may be cut short)\n"), path, saved, saved);
      kind = kind_from_extension (saved);
    }
  if (kind == KIND_UNKNOWN)
    return info_guess (path);
  msg = ct_binary_read_file (descs[kind], path, &error);
  if (msg == NULL)
    {
      g_printerr ("%s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  return print_as (path, msg, kind);
}

int
ct_cli_info (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  int status = CT_CLI_EXIT_OK;

  context = ct_cli_context_new ("info", _("FILE…"),
                                _("Show what a binary model file holds: for a .caffemodel the "
                                  "net name, each layer's type and parameter blob shapes, and "
                                  "the parameter count; for a .binaryproto the blob shape; for "
                                  "a .solverstate the iteration and history blobs. Other names "
                                  "are tried as each kind in turn."),
                                entries);
  if (!ct_cli_parse_files (context, "info", &argc, &argv, &files))
    return CT_CLI_EXIT_USAGE;

  for (char **f = files; *f != NULL; f++)
    {
      if (f != files)
        print_text ("\n");
      if (files[1] != NULL)
        {
          g_autofree char *header = g_strdup_printf ("%s:\n", *f);
          print_text (header);
        }
      if (info_file (*f) != CT_CLI_EXIT_OK)
        status = CT_CLI_EXIT_INPUT;
    }
  g_clear_pointer (&files, g_strfreev);
  return status;
}
