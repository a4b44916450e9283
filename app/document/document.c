/* document.c: CtDocument's text, parsing, undo and files (see document.h). */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "document-private.h"
#include "atomic-write.h"
#include "binary-io.h"
#include "proto-file.h"
#include "source-map.h"
#include "text-format.h"
#include "upgrade.h"
#include "net-edit.h"

/* Typing or nudging one field within this long is one undo step. */
#define GROUP_WINDOW_US (1500 * G_TIME_SPAN_MILLISECOND)
#define UNDO_LIMIT 200

G_DEFINE_FINAL_TYPE (CtDocument, ct_document, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE,
  PROP_TITLE,
  PROP_MODIFIED,
  PROP_CAN_UNDO,
  PROP_CAN_REDO,
  PROP_SUMMARY,
  PROP_VALIDATING,
  N_PROPS
};

enum {
  SIGNAL_CHANGED,
  SIGNAL_VALIDATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
ct_document_finalize (GObject *object)
{
  CtDocument *self = CT_DOCUMENT (object);

  ct_document_clear_check (self);
  ct_document_clear_drafts (self);
  g_clear_object (&self->file);
  g_free (self->title);
  g_free (self->base_dir);
  g_free (self->text);
  g_free (self->clean_text);
  if (self->net != NULL)
    protobuf_c_message_free_unpacked (&self->net->base, NULL);
  g_clear_error (&self->parse_error);
  g_ptr_array_unref (self->notes);
  g_ptr_array_unref (self->undo);
  g_ptr_array_unref (self->redo);
  g_free (self->last_group);
  g_clear_pointer (&self->sidecar, g_key_file_unref);
  g_free (self->draft_id);
  G_OBJECT_CLASS (ct_document_parent_class)->finalize (object);
}

static void
ct_document_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtDocument *self = CT_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_TITLE:
      g_value_set_string (value, ct_document_get_title (self));
      break;
    case PROP_MODIFIED:
      g_value_set_boolean (value, ct_document_get_modified (self));
      break;
    case PROP_CAN_UNDO:
      g_value_set_boolean (value, ct_document_can_undo (self));
      break;
    case PROP_CAN_REDO:
      g_value_set_boolean (value, ct_document_can_redo (self));
      break;
    case PROP_SUMMARY:
      g_value_set_string (value, ct_document_get_summary (self));
      break;
    case PROP_VALIDATING:
      g_value_set_boolean (value, self->checking);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ct_document_class_init (CtDocumentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = ct_document_finalize;
  object_class->get_property = ct_document_get_property;

  properties[PROP_FILE] = g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE, ro);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, ro);
  properties[PROP_MODIFIED] = g_param_spec_boolean ("modified", NULL, NULL, FALSE, ro);
  properties[PROP_CAN_UNDO] = g_param_spec_boolean ("can-undo", NULL, NULL, FALSE, ro);
  properties[PROP_CAN_REDO] = g_param_spec_boolean ("can-redo", NULL, NULL, FALSE, ro);
  properties[PROP_SUMMARY] = g_param_spec_string ("summary", NULL, NULL, NULL, ro);
  properties[PROP_VALIDATING] = g_param_spec_boolean ("validating", NULL, NULL, FALSE, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* changed (CtDocumentChange flags): the text or the net changed. */
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_UINT);
  /* validated: new shapes, layer errors and summary. */
  signals[SIGNAL_VALIDATED] = g_signal_new ("validated", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                            G_TYPE_NONE, 0);
}

static void
ct_document_init (CtDocument *self)
{
  self->text = g_strdup ("");
  self->clean_text = g_strdup ("");
  self->notes = g_ptr_array_new_with_free_func (g_free);
  self->undo = g_ptr_array_new_with_free_func (g_free);
  self->redo = g_ptr_array_new_with_free_func (g_free);
  self->layer_errors = g_ptr_array_new_with_free_func (ct_document_free_error);
  self->sidecar = g_key_file_new ();
  self->phase = CT_DOCUMENT_PHASE_BOTH;
}

CtDocument *
ct_document_new (void)
{
  return g_object_new (CT_TYPE_DOCUMENT, NULL);
}

void
ct_document_emit_changed (CtDocument *self, CtDocumentChange flags)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, (guint) flags);
}

/* For document-check.c. */
void ct_document_emit_validated (CtDocument *self);
void
ct_document_emit_validated (CtDocument *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SUMMARY]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALIDATING]);
  g_signal_emit (self, signals[SIGNAL_VALIDATED], 0);
}

void ct_document_notify_validating (CtDocument *self);
void
ct_document_notify_validating (CtDocument *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VALIDATING]);
}

/* The name errors and notes give the text. */
static const char *
source_name (CtDocument *self)
{
  return ct_document_get_title (self);
}

/* Parse the text; on success the new net replaces the old one. */
static gboolean
reparse (CtDocument *self, GPtrArray *notes)
{
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *net;

  g_clear_error (&self->parse_error);
  net = (Caffe__NetParameter *) ct_text_parse (&caffe__net_parameter__descriptor, self->text,
                                               -1, source_name (self), CT_TEXT_LENIENT,
                                               &error);
  if (net != NULL && ct_net_needs_upgrade (net)
      && !ct_upgrade_net (net, source_name (self), notes, &error))
    {
      protobuf_c_message_free_unpacked (&net->base, NULL);
      net = NULL;
    }
  if (net == NULL)
    {
      self->parse_error = g_steal_pointer (&error);
      return FALSE;
    }
  if (self->net != NULL)
    protobuf_c_message_free_unpacked (&self->net->base, NULL);
  self->net = net;
  return TRUE;
}

static void
notify_state (CtDocument *self, gboolean was_modified, gboolean could_undo,
              gboolean could_redo)
{
  if (was_modified != ct_document_get_modified (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
  if (could_undo != ct_document_can_undo (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
  if (could_redo != ct_document_can_redo (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REDO]);
}

/* Push the present text as an undo step unless it continues GROUP. */
static void
push_undo (CtDocument *self, const char *group)
{
  gint64 now = g_get_monotonic_time ();
  gboolean same_group = group != NULL && g_strcmp0 (group, self->last_group) == 0
                        && now - self->last_group_time < GROUP_WINDOW_US
                        && self->undo->len > 0;

  if (!same_group)
    {
      g_ptr_array_add (self->undo, g_strdup (self->text));
      if (self->undo->len > UNDO_LIMIT)
        g_ptr_array_remove_index (self->undo, 0);
    }
  g_free (self->last_group);
  self->last_group = g_strdup (group);
  self->last_group_time = now;
  g_ptr_array_set_size (self->redo, 0);
}

/* Swap in TEXT, re-parse, and tell everyone. GROUP NULL: not an undo step
 * of its own (undo, redo, loading). */
static void
set_text_internal (CtDocument *self, const char *text, CtDocumentChange flags)
{
  CtDocumentChange changes = flags | CT_DOCUMENT_CHANGE_TEXT;

  g_free (self->text);
  self->text = g_strdup (text);
  if (reparse (self, NULL))
    changes |= CT_DOCUMENT_CHANGE_NET;
  ct_document_emit_changed (self, changes);
  if (changes & CT_DOCUMENT_CHANGE_NET)
    ct_document_schedule_check (self);
  ct_document_schedule_draft (self);
}

void
ct_document_replace_text (CtDocument *self, const char *text, const char *group,
                          CtDocumentChange flags)
{
  gboolean was_modified = ct_document_get_modified (self);
  gboolean could_undo = ct_document_can_undo (self);
  gboolean could_redo = ct_document_can_redo (self);

  if (g_strcmp0 (text, self->text) == 0)
    return;
  push_undo (self, group);
  set_text_internal (self, text, flags);
  notify_state (self, was_modified, could_undo, could_redo);
}

static void
reset_history (CtDocument *self)
{
  g_ptr_array_set_size (self->undo, 0);
  g_ptr_array_set_size (self->redo, 0);
  g_clear_pointer (&self->last_group, g_free);
}

static void
set_file (CtDocument *self, GFile *file, const char *title)
{
  g_autofree char *old_title = g_strdup (ct_document_get_title (self));

  if (file != self->file)
    {
      g_set_object (&self->file, file);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
    }
  g_free (self->title);
  self->title = g_strdup (title);
  if (g_strcmp0 (old_title, ct_document_get_title (self)) != 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

/* Replace everything with TEXT loaded from FILE (or untitled). */
static void
load_internal (CtDocument *self, GFile *file, const char *title, const char *text,
               const char *clean_text)
{
  gboolean was_modified = ct_document_get_modified (self);
  gboolean could_undo = ct_document_can_undo (self);
  gboolean could_redo = ct_document_can_redo (self);
  CtDocumentChange changes = CT_DOCUMENT_CHANGE_TEXT | CT_DOCUMENT_CHANGE_LOAD;

  ct_document_clear_drafts (self);
  set_file (self, file, title);
  g_free (self->clean_text);
  self->clean_text = g_strdup (clean_text);
  g_free (self->text);
  self->text = g_strdup (text);
  reset_history (self);
  g_ptr_array_set_size (self->notes, 0);
  if (self->net != NULL)
    protobuf_c_message_free_unpacked (&self->net->base, NULL);
  self->net = NULL;
  if (reparse (self, self->notes))
    changes |= CT_DOCUMENT_CHANGE_NET;
  ct_document_load_sidecar (self);
  ct_document_find_draft (self);
  ct_document_emit_changed (self, changes);
  if (changes & CT_DOCUMENT_CHANGE_NET)
    ct_document_schedule_check (self);
  notify_state (self, was_modified, could_undo, could_redo);
}

gboolean
ct_document_load (CtDocument *self, GFile *file, GError **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *display = NULL;
  g_autoptr (GFileInfo) info = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_DISPLAY_NAME, 0, NULL, NULL);
  display = info != NULL ? g_strdup (g_file_info_get_display_name (info))
                         : g_file_get_basename (file);
  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, error))
    return FALSE;
  if (!g_utf8_validate (contents, (gssize) length, NULL) || memchr (contents, '\0', length))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is not a text file (a .caffemodel holds weights: open its "
                     "prototxt and give the model as the second file)"),
                   display);
      return FALSE;
    }
  if (ct_proto_guess_kind (contents, (gssize) length) == CT_PROTO_KIND_SOLVER)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s describes a solver, not a net: open the net it trains"), display);
      return FALSE;
    }

  text = g_strdup (contents);
  {
    /* Legacy nets are upgraded once, on opening, so that the text, the graph
     * and the paths of edits all speak the current format. */
    g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
    Caffe__NetParameter *net = (Caffe__NetParameter *)
      ct_text_parse (&caffe__net_parameter__descriptor, contents, (gssize) length, display,
                     CT_TEXT_LENIENT, NULL);

    if (net != NULL && ct_net_needs_upgrade (net)
        && ct_upgrade_net (net, display, notes, NULL))
      {
        g_autofree char *head = ct_source_leading_comment (contents);
        g_autofree char *body = ct_text_print (&net->base);
        g_free (text);
        text = g_strconcat (head, body, NULL);
      }
    if (net != NULL)
      protobuf_c_message_free_unpacked (&net->base, NULL);
    load_internal (self, file, display, text, contents);
    for (guint i = 0; i < notes->len; i++)
      g_ptr_array_add (self->notes, g_strdup (notes->pdata[i]));
  }
  return TRUE;
}

void
ct_document_load_text (CtDocument *self, const char *text, const char *title)
{
  g_return_if_fail (CT_IS_DOCUMENT (self));
  load_internal (self, NULL, title, text != NULL ? text : "", text != NULL ? text : "");
}

GFile *
ct_document_get_file (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->file;
}

const char *
ct_document_get_title (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->title != NULL ? self->title : _("Untitled Net");
}

gboolean
ct_document_get_modified (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  return g_strcmp0 (self->text, self->clean_text) != 0;
}

gboolean
ct_document_save (CtDocument *self, GFile *file, GError **error)
{
  gboolean was_modified;
  g_autofree char *path = NULL;
  g_autofree char *display = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  if (file == NULL)
    file = self->file;
  if (file == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   _("The net has no file yet: choose where to save it"));
      return FALSE;
    }
  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("Cortado can only save to local files"));
      return FALSE;
    }
  if (!ct_file_write_atomic (path, self->text, strlen (self->text), error))
    return FALSE;

  was_modified = ct_document_get_modified (self);
  g_free (self->clean_text);
  self->clean_text = g_strdup (self->text);
  /* The draft is no longer needed; under a new name the sidecar follows. */
  ct_document_discard_draft (self);
  if (self->file == NULL || !g_file_equal (file, self->file))
    {
      display = g_file_get_basename (file);
      set_file (self, file, display);
      self->sidecar_dirty = TRUE;
    }
  if (was_modified)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
  return ct_document_save_sidecar (self, error);
}

const char *
ct_document_get_text (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->text;
}

void
ct_document_set_text (CtDocument *self, const char *text)
{
  g_return_if_fail (CT_IS_DOCUMENT (self));
  ct_document_replace_text (self, text, "source", CT_DOCUMENT_CHANGE_SOURCE);
}

const Caffe__NetParameter *
ct_document_get_net (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->net;
}

const GError *
ct_document_get_parse_error (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->parse_error;
}

GPtrArray *
ct_document_get_notes (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->notes;
}

gboolean
ct_document_can_undo (CtDocument *self)
{
  return self->undo->len > 0;
}

gboolean
ct_document_can_redo (CtDocument *self)
{
  return self->redo->len > 0;
}

static void
step (CtDocument *self, GPtrArray *from, GPtrArray *to)
{
  gboolean was_modified = ct_document_get_modified (self);
  gboolean could_undo = ct_document_can_undo (self);
  gboolean could_redo = ct_document_can_redo (self);
  g_autofree char *text = NULL;

  if (from->len == 0)
    return;
  text = g_ptr_array_steal_index (from, from->len - 1);
  g_ptr_array_add (to, g_strdup (self->text));
  /* The next edit starts a new step. */
  g_clear_pointer (&self->last_group, g_free);
  set_text_internal (self, text, 0);
  notify_state (self, was_modified, could_undo, could_redo);
}

void
ct_document_end_undo_group (CtDocument *self)
{
  g_return_if_fail (CT_IS_DOCUMENT (self));
  g_clear_pointer (&self->last_group, g_free);
}

void
ct_document_undo (CtDocument *self)
{
  g_return_if_fail (CT_IS_DOCUMENT (self));
  step (self, self->undo, self->redo);
}

void
ct_document_redo (CtDocument *self)
{
  g_return_if_fail (CT_IS_DOCUMENT (self));
  step (self, self->redo, self->undo);
}

char *
ct_document_dup_base_dir (CtDocument *self)
{
  g_autoptr (GFile) parent = NULL;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  if (self->file == NULL)
    return g_strdup (self->base_dir);
  parent = g_file_get_parent (self->file);
  return parent != NULL ? g_file_get_path (parent) : NULL;
}

void
ct_document_set_base_dir (CtDocument *self, const char *dir)
{
  g_return_if_fail (CT_IS_DOCUMENT (self));
  g_free (self->base_dir);
  self->base_dir = g_strdup (dir);
  if (self->net != NULL)
    ct_document_schedule_check (self);
}

Caffe__NetParameter *
ct_document_dup_resolved_net (CtDocument *self)
{
  g_autofree char *text = NULL;
  g_autofree char *dir = NULL;
  Caffe__NetParameter *copy;

  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  if (self->net == NULL)
    return NULL;
  text = ct_text_print (&self->net->base);
  copy = (Caffe__NetParameter *) ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                                ct_document_get_title (self), CT_TEXT_LENIENT,
                                                NULL);
  dir = ct_document_dup_base_dir (self);
  if (copy != NULL)
    ct_net_edit_resolve_paths (copy, dir);
  return copy;
}
