/* property-form.c: CtPropertyForm (see property-form.h). Rows are
 * libadwaita rows in preferences groups; nested messages are expander rows
 * whose contents are built the first time they open, so that a message with
 * dozens of nested types costs nothing until the user looks inside. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "field-path.h"
#include "property-form.h"

/* Longer repeated scalar fields (a BlobProto's data) are summarised, not
 * listed: nobody edits a million weights in a form. */
#define MAX_LISTED_VALUES 64

struct _CtPropertyForm {
  GtkWidget parent_instance;

  GtkWidget *box;
  ProtobufCMessage *msg;     /* our copy of what is shown */
  GHashTable *expanded;      /* path -> GINT_TO_POINTER (TRUE/FALSE) */
  GHashTable *editors;       /* path -> editor widget (borrowed) */
  GHashTable *focusables;    /* focus key -> widget (borrowed): see set_focus_key */
  char *pending_focus;       /* the focus key to give the focus to, after a rebuild */
  guint pending_frames;
  double pending_scroll;     /* where the panel around the form stood before the rebuild */
  guint focus_tick;
  gboolean building;
};

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (CtPropertyForm, ct_property_form, GTK_TYPE_WIDGET)

static void add_field (CtPropertyForm *self, GtkWidget *container, const ProtobufCMessage *msg,
                       const ProtobufCMessageDescriptor *desc,
                       const ProtobufCFieldDescriptor *f, const char *prefix);

static void
emit_changed (CtPropertyForm *self, const char *path, const char *value)
{
  g_autofree char *p = g_strdup (path);
  g_autofree char *v = g_strdup (value);

  if (self->building)
    return;
  /* The handler may rebuild the form, freeing PATH and VALUE's owners. */
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, p, v);
}

static void
add_row (GtkWidget *container, GtkWidget *row)
{
  if (ADW_IS_EXPANDER_ROW (container))
    adw_expander_row_add_row (ADW_EXPANDER_ROW (container), row);
  else
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (container), row);
}

static const char *
path_of (gpointer widget)
{
  return g_object_get_data (G_OBJECT (widget), "ct-form-path");
}

/* Every widget that can hold the keyboard focus gets a key that names it
 * across rebuilds ("num_output", "num_output#clear", ...): the form is
 * rebuilt after every edit, and the focus must stay where the user put it
 * (Tab from an entry commits it and lands on the next control). */
static void
set_focus_key (CtPropertyForm *self, GtkWidget *widget, const char *path, const char *role)
{
  char *key = g_strconcat (path, role, NULL);

  g_object_set_data_full (G_OBJECT (widget), "ct-form-focus-key", key, g_free);
  g_hash_table_replace (self->focusables, g_strdup (key), widget);
}

static void
set_path (CtPropertyForm *self, GtkWidget *editor, const char *path)
{
  g_object_set_data_full (G_OBJECT (editor), "ct-form-path", g_strdup (path), g_free);
  g_hash_table_replace (self->editors, g_strdup (path), editor);
  set_focus_key (self, editor, path, "");
}

static const char *
type_name (const ProtobufCFieldDescriptor *f)
{
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32: return "int32";
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64: return "int64";
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32: return "uint32";
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: return "uint64";
    case PROTOBUF_C_TYPE_FLOAT: return "float";
    case PROTOBUF_C_TYPE_DOUBLE: return "double";
    case PROTOBUF_C_TYPE_BOOL: return "bool";
    case PROTOBUF_C_TYPE_ENUM: return ((const ProtobufCEnumDescriptor *) f->descriptor)->short_name;
    case PROTOBUF_C_TYPE_STRING: return "string";
    case PROTOBUF_C_TYPE_BYTES: return "bytes";
    case PROTOBUF_C_TYPE_MESSAGE:
      return ((const ProtobufCMessageDescriptor *) f->descriptor)->short_name;
    default: return "?";
    }
}

static gboolean
is_number (const ProtobufCFieldDescriptor *f)
{
  return f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_BYTES
         && f->type != PROTOBUF_C_TYPE_BOOL && f->type != PROTOBUF_C_TYPE_ENUM
         && f->type != PROTOBUF_C_TYPE_MESSAGE;
}

/* A value a new element of a repeated field starts with. */
static const char *
new_element_text (const ProtobufCFieldDescriptor *f)
{
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_BOOL:
      return "false";
    case PROTOBUF_C_TYPE_ENUM:
      return ((const ProtobufCEnumDescriptor *) f->descriptor)->values[0].name;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
      return "";
    default:
      return is_number (f) && (f->type == PROTOBUF_C_TYPE_FLOAT || f->type == PROTOBUF_C_TYPE_DOUBLE)
               ? "1" : "0";
    }
}

/* Entries. */

typedef struct {
  CtPropertyForm *self;
  const ProtobufCFieldDescriptor *field;
  char *value;        /* what the message holds, NULL when unset */
  gboolean element;   /* an element of a repeated field */
} EntryData;

static void
entry_data_free (gpointer data)
{
  EntryData *d = data;

  g_free (d->value);
  g_free (d);
}

static gboolean
validate_entry (GtkWidget *entry, EntryData *d, const char *text)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = TRUE;

  if (*text == '\0')
    ok = !d->element || !is_number (d->field);
  else
    ok = ct_field_check_value (d->field, text, &error);
  if (ok)
    {
      gtk_widget_remove_css_class (entry, "error");
      gtk_widget_set_tooltip_text (entry, NULL);
      gtk_accessible_reset_state (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_STATE_INVALID);
    }
  else
    {
      gtk_widget_add_css_class (entry, "error");
      gtk_widget_set_tooltip_text (entry, error != NULL ? error->message
                                                        : _("A value is needed here"));
      gtk_accessible_update_state (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_STATE_INVALID,
                                   GTK_ACCESSIBLE_INVALID_TRUE, -1);
    }
  return ok;
}

static void
entry_changed (GtkEditable *editable, EntryData *d)
{
  validate_entry (GTK_WIDGET (editable), d, gtk_editable_get_text (editable));
}

static void
entry_commit (GtkWidget *entry, EntryData *d)
{
  CtPropertyForm *self = d->self;
  g_autofree char *text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry)));
  g_autofree char *path = g_strdup (path_of (entry));
  g_autofree char *trimmed = NULL;

  if (self->building || path == NULL || !validate_entry (entry, d, text))
    return;
  trimmed = d->field->type == PROTOBUF_C_TYPE_STRING ? g_strdup (text)
                                                     : g_strstrip (g_strdup (text));
  if (*trimmed == '\0' && !d->element)
    {
      /* Emptied: the field goes back to its default. */
      if (d->value != NULL)
        emit_changed (self, path, NULL);
      return;
    }
  if (g_strcmp0 (trimmed, d->value) == 0)
    return;
  g_free (d->value);
  d->value = g_strdup (trimmed);
  emit_changed (self, path, trimmed);
}

static void
entry_activate (GtkEntry *entry, EntryData *d)
{
  entry_commit (GTK_WIDGET (entry), d);
}

static void
entry_focus_leave (GtkEventControllerFocus *controller, EntryData *d)
{
  entry_commit (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller)), d);
}

static GtkWidget *
make_entry (CtPropertyForm *self, const ProtobufCFieldDescriptor *f, const char *value,
            const char *default_text, gboolean element, const char *path)
{
  GtkWidget *entry = gtk_entry_new ();
  EntryData *d = g_new0 (EntryData, 1);
  GtkEventController *focus = gtk_event_controller_focus_new ();

  d->self = self;
  d->field = f;
  d->value = g_strdup (value);
  d->element = element;
  g_object_set_data_full (G_OBJECT (entry), "ct-entry-data", d, entry_data_free);
  gtk_editable_set_text (GTK_EDITABLE (entry), value != NULL ? value : "");
  if (default_text != NULL && *default_text != '\0')
    gtk_entry_set_placeholder_text (GTK_ENTRY (entry), default_text);
  gtk_widget_set_valign (entry, GTK_ALIGN_CENTER);
  if (is_number (f))
    {
      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 7);
      gtk_editable_set_max_width_chars (GTK_EDITABLE (entry), 10);
      gtk_entry_set_input_purpose (GTK_ENTRY (entry), f->type == PROTOBUF_C_TYPE_FLOAT
                                                        || f->type == PROTOBUF_C_TYPE_DOUBLE
                                                        ? GTK_INPUT_PURPOSE_NUMBER
                                                        : GTK_INPUT_PURPOSE_DIGITS);
      gtk_entry_set_alignment (GTK_ENTRY (entry), 1.0);
    }
  else
    {
      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 11);
      gtk_editable_set_max_width_chars (GTK_EDITABLE (entry), 16);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  f->name, -1);
  set_path (self, entry, path);
  g_signal_connect (entry, "changed", G_CALLBACK (entry_changed), d);
  g_signal_connect (entry, "activate", G_CALLBACK (entry_activate), d);
  g_signal_connect (focus, "leave", G_CALLBACK (entry_focus_leave), d);
  gtk_widget_add_controller (entry, focus);
  return entry;
}

/* Switches and drop-downs. */

static void
switch_toggled (GtkSwitch *sw, GParamSpec *pspec, CtPropertyForm *self)
{
  emit_changed (self, path_of (sw), gtk_switch_get_active (sw) ? "true" : "false");
}

static GtkWidget *
make_switch (CtPropertyForm *self, const ProtobufCFieldDescriptor *f, const char *value,
             const char *default_text, const char *path)
{
  GtkWidget *sw = gtk_switch_new ();
  const char *shown = value != NULL ? value : default_text;

  gtk_switch_set_active (GTK_SWITCH (sw), g_strcmp0 (shown, "true") == 0);
  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  if (value == NULL)
    gtk_widget_add_css_class (sw, "unset");
  gtk_accessible_update_property (GTK_ACCESSIBLE (sw), GTK_ACCESSIBLE_PROPERTY_LABEL, f->name,
                                  -1);
  set_path (self, sw, path);
  g_signal_connect (sw, "notify::active", G_CALLBACK (switch_toggled), self);
  return sw;
}

static void
dropdown_selected (GtkDropDown *dropdown, GParamSpec *pspec, CtPropertyForm *self)
{
  GtkStringObject *item = gtk_drop_down_get_selected_item (dropdown);

  if (item != NULL)
    emit_changed (self, path_of (dropdown), gtk_string_object_get_string (item));
}

static GtkWidget *
make_dropdown (CtPropertyForm *self, const ProtobufCFieldDescriptor *f, const char *value,
               const char *default_text, const char *path)
{
  const ProtobufCEnumDescriptor *ed = f->descriptor;
  GtkStringList *names = gtk_string_list_new (NULL);
  const char *shown = value != NULL ? value : default_text;
  guint selected = GTK_INVALID_LIST_POSITION;
  GtkWidget *dropdown;

  for (guint i = 0; i < ed->n_values; i++)
    {
      gtk_string_list_append (names, ed->values[i].name);
      if (g_strcmp0 (ed->values[i].name, shown) == 0)
        selected = i;
    }
  if (selected == GTK_INVALID_LIST_POSITION && shown != NULL)
    {
      /* A value the schema does not know (kept from a lenient parse). */
      gtk_string_list_append (names, shown);
      selected = ed->n_values;
    }
  dropdown = gtk_drop_down_new (G_LIST_MODEL (names), NULL);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), selected);
  gtk_widget_set_valign (dropdown, GTK_ALIGN_CENTER);
  if (value == NULL)
    gtk_widget_add_css_class (dropdown, "unset");
  gtk_accessible_update_property (GTK_ACCESSIBLE (dropdown), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  f->name, -1);
  /* The button inside takes the focus: it answers to the field's name too. */
  for (GtkWidget *child = gtk_widget_get_first_child (dropdown); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_TOGGLE_BUTTON (child))
      gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      f->name, -1);
  set_path (self, dropdown, path);
  g_signal_connect (dropdown, "notify::selected", G_CALLBACK (dropdown_selected), self);
  return dropdown;
}

static GtkWidget *
make_editor (CtPropertyForm *self, const ProtobufCFieldDescriptor *f, const char *value,
             const char *default_text, gboolean element, const char *path)
{
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_BOOL:
      return make_switch (self, f, value, default_text, path);
    case PROTOBUF_C_TYPE_ENUM:
      return make_dropdown (self, f, value, default_text, path);
    default:
      return make_entry (self, f, value, default_text, element, path);
    }
}

/* Buttons. */

static void
clear_clicked (GtkButton *button, CtPropertyForm *self)
{
  emit_changed (self, path_of (button), NULL);
}

static GtkWidget *
make_clear_button (CtPropertyForm *self, const char *path, const char *icon,
                   const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "circular");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip,
                                  -1);
  g_object_set_data_full (G_OBJECT (button), "ct-form-path", g_strdup (path), g_free);
  set_focus_key (self, button, path, "#clear");
  g_signal_connect (button, "clicked", G_CALLBACK (clear_clicked), self);
  return button;
}

static void
add_clicked (GtkButton *button, CtPropertyForm *self)
{
  emit_changed (self, path_of (button), g_object_get_data (G_OBJECT (button), "ct-form-value"));
}

static GtkWidget *
make_add_row (CtPropertyForm *self, const ProtobufCFieldDescriptor *f, const char *path,
              gsize count)
{
  g_autofree char *element_path = g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]", path, count);
  g_autofree char *label = g_strdup_printf (_("Add %s"), f->name);
  GtkWidget *button = gtk_button_new ();
  GtkWidget *content = adw_button_content_new ();

  adw_button_content_set_icon_name (ADW_BUTTON_CONTENT (content), "list-add-symbolic");
  adw_button_content_set_label (ADW_BUTTON_CONTENT (content), label);
  gtk_button_set_child (GTK_BUTTON (button), content);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "form-add");
  g_object_set_data_full (G_OBJECT (button), "ct-form-path", g_strdup (element_path), g_free);
  g_object_set_data (G_OBJECT (button), "ct-form-value", (gpointer) new_element_text (f));
  g_hash_table_replace (self->editors, g_strdup_printf ("%s[+]", path), button);
  set_focus_key (self, button, path, "[+]");
  g_signal_connect (button, "clicked", G_CALLBACK (add_clicked), self);
  return button;
}

/* Summaries of messages and lists for expander subtitles. */

static char *
message_summary (const ProtobufCMessage *msg)
{
  const ProtobufCMessageDescriptor *desc;
  g_autoptr (GString) out = g_string_new (NULL);
  guint set = 0;

  if (msg == NULL)
    return g_strdup (_("Not set: defaults apply"));
  desc = msg->descriptor;
  for (guint i = 0; i < desc->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &desc->fields[i];
      gsize n = ct_proto_field_count (msg, f);

      if (n == 0)
        continue;
      set++;
      if (out->len > 48)
        continue;
      if (out->len > 0)
        g_string_append (out, ", ");
      if (f->type == PROTOBUF_C_TYPE_MESSAGE || f->label == PROTOBUF_C_LABEL_REPEATED)
        g_string_append (out, f->name);
      else
        {
          g_autofree char *value = ct_field_value_to_text (msg, f, 0);
          g_string_append_printf (out, "%s: %s", f->name, value);
        }
    }
  if (set == 0)
    return g_strdup (_("Empty: defaults apply"));
  if (out->len > 56)
    {
      g_string_truncate (out, 52);
      g_string_append (out, "…");
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
list_summary (const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f, gsize count)
{
  g_autoptr (GString) out = g_string_new (NULL);

  if (count == 0)
    return g_strdup (_("None"));
  if (f->type == PROTOBUF_C_TYPE_MESSAGE || count > 8)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u item", "%u items", count),
                            (guint) count);
  for (gsize i = 0; i < count; i++)
    {
      g_autofree char *value = ct_field_value_to_text (msg, f, i);
      if (i > 0)
        g_string_append (out, ", ");
      g_string_append (out, value);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Expanders: remember what the user opened, fill on first open. */

typedef struct {
  CtPropertyForm *self;
  const ProtobufCMessage *msg;   /* inside self->msg, or NULL */
  const ProtobufCMessageDescriptor *desc;
  char *prefix;                  /* "convolution_param." */
  gboolean filled;
} LazyFill;

static void
lazy_fill_free (gpointer data)
{
  LazyFill *fill = data;

  g_free (fill->prefix);
  g_free (fill);
}

static void
fill_message_rows (CtPropertyForm *self, GtkWidget *container, const ProtobufCMessage *msg,
                   const ProtobufCMessageDescriptor *desc, const char *prefix)
{
  for (guint i = 0; i < desc->n_fields; i++)
    add_field (self, container, msg, desc, &desc->fields[i], prefix);
}

static void
expander_toggled (AdwExpanderRow *row, GParamSpec *pspec, CtPropertyForm *self)
{
  const char *path = path_of (row);
  LazyFill *fill = g_object_get_data (G_OBJECT (row), "ct-form-fill");
  gboolean expanded = adw_expander_row_get_expanded (row);

  if (path != NULL && !self->building)
    g_hash_table_replace (self->expanded, g_strdup (path), GINT_TO_POINTER (expanded));
  if (expanded && fill != NULL && !fill->filled)
    {
      gboolean was_building = self->building;

      fill->filled = TRUE;
      self->building = TRUE;
      fill_message_rows (self, GTK_WIDGET (row), fill->msg, fill->desc, fill->prefix);
      self->building = was_building;
    }
}

static GtkWidget *
make_expander (CtPropertyForm *self, const char *title, const char *subtitle, const char *path)
{
  GtkWidget *row = adw_expander_row_new ();
  gpointer remembered;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle);
  g_object_set_data_full (G_OBJECT (row), "ct-form-path", g_strdup (path), g_free);
  set_focus_key (self, row, path, "#expander");
  g_signal_connect (row, "notify::expanded", G_CALLBACK (expander_toggled), self);
  if (g_hash_table_lookup_extended (self->expanded, path, NULL, &remembered))
    g_object_set_data (G_OBJECT (row), "ct-form-open", remembered);
  return row;
}

/* Open EXPANDER if it was open before (or asked to be); call after its
 * contents are set up so that lazy filling happens. */
static void
restore_expanded (GtkWidget *expander)
{
  if (GPOINTER_TO_INT (g_object_get_data (G_OBJECT (expander), "ct-form-open")))
    adw_expander_row_set_expanded (ADW_EXPANDER_ROW (expander), TRUE);
}

static void
add_message_expander (CtPropertyForm *self, GtkWidget *container, const char *title,
                      const ProtobufCMessage *sub, const ProtobufCMessageDescriptor *desc,
                      const char *path, GtkWidget *suffix)
{
  g_autofree char *subtitle = message_summary (sub);
  GtkWidget *row = make_expander (self, title, subtitle, path);
  LazyFill *fill = g_new0 (LazyFill, 1);

  fill->self = self;
  fill->msg = sub;
  fill->desc = desc;
  fill->prefix = g_strconcat (path, ".", NULL);
  g_object_set_data_full (G_OBJECT (row), "ct-form-fill", fill, lazy_fill_free);
  if (suffix != NULL)
    adw_expander_row_add_action (ADW_EXPANDER_ROW (row), suffix);
  if (sub == NULL)
    gtk_widget_add_css_class (row, "unset");
  add_row (container, row);
  restore_expanded (row);
}

/* One field of MSG (NULL: not set, show defaults), whose type is DESC. */
static void
add_field (CtPropertyForm *self, GtkWidget *container, const ProtobufCMessage *msg,
           const ProtobufCMessageDescriptor *desc, const ProtobufCFieldDescriptor *f,
           const char *prefix)
{
  g_autofree char *path = g_strconcat (prefix, f->name, NULL);
  gsize count = msg != NULL ? ct_proto_field_count (msg, f) : 0;

  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return; /* field-path cannot edit them; Caffe's schema has none */

  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    {
      g_autofree char *subtitle = list_summary (msg, f, count);
      GtkWidget *expander = make_expander (self, f->name, subtitle, path);

      add_row (container, expander);
      if (f->type != PROTOBUF_C_TYPE_MESSAGE && count > MAX_LISTED_VALUES)
        {
          restore_expanded (expander);
          return; /* the subtitle says how many; too many to list */
        }
      for (gsize i = 0; i < count; i++)
        {
          g_autofree char *element = g_strdup_printf ("%s[%" G_GSIZE_FORMAT "]", path, i);
          GtkWidget *remove = make_clear_button (self, element, "list-remove-symbolic",
                                                 _("Remove"));
          if (f->type == PROTOBUF_C_TYPE_MESSAGE)
            {
              const ProtobufCMessage *sub = (*(ProtobufCMessage *const *const *)
                                               ((const char *) msg + f->offset))[i];
              g_autofree char *title = g_strdup_printf ("%s %" G_GSIZE_FORMAT, f->name, i + 1);
              add_message_expander (self, expander, title, sub, f->descriptor, element, remove);
            }
          else
            {
              g_autofree char *value = ct_field_value_to_text (msg, f, i);
              GtkWidget *row = gtk_list_box_row_new ();
              GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
              GtkWidget *editor = make_editor (self, f, value, NULL, TRUE, element);

              /* The value fills the row; the remove button ends it. */
              gtk_widget_set_hexpand (editor, GTK_IS_ENTRY (editor));
              if (!GTK_IS_ENTRY (editor))
                gtk_widget_set_halign (editor, GTK_ALIGN_START);
              gtk_box_append (GTK_BOX (box), editor);
              gtk_box_append (GTK_BOX (box), remove);
              gtk_widget_add_css_class (box, "form-element");
              gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
              gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
              adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), row);
            }
        }
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander),
                                make_add_row (self, f, path, count));
      restore_expanded (expander);
      return;
    }

  if (f->type == PROTOBUF_C_TYPE_MESSAGE)
    {
      const ProtobufCMessage *sub = count > 0 ? *(ProtobufCMessage *const *)
                                                  ((const char *) msg + f->offset)
                                              : NULL;
      GtkWidget *reset = sub != NULL ? make_clear_button (self, path, "edit-clear-symbolic",
                                                          _("Reset to defaults"))
                                     : NULL;
      add_message_expander (self, container, f->name, sub, f->descriptor, path, reset);
      return;
    }

  {
    g_autofree char *value = count > 0 ? ct_field_value_to_text (msg, f, 0) : NULL;
    g_autofree char *default_text = ct_field_default_to_text (desc, f);
    g_autofree char *tooltip = NULL;
    GtkWidget *row = adw_action_row_new ();
    GtkWidget *editor = make_editor (self, f, value, default_text, FALSE, path);

    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), f->name);
    adw_preferences_row_set_use_underline (ADW_PREFERENCES_ROW (row), FALSE);
    /* Field names are identifiers: never broken across lines. */
    adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 1);
    if (*default_text != '\0')
      /* TRANSLATORS: a field's tooltip: its type and default value */
      tooltip = g_strdup_printf (_("%s, default %s"), type_name (f), default_text);
    else
      tooltip = g_strdup (type_name (f));
    gtk_widget_set_tooltip_text (row, tooltip);
    adw_action_row_add_suffix (ADW_ACTION_ROW (row), editor);
    if (value != NULL)
      adw_action_row_add_suffix (ADW_ACTION_ROW (row),
                                 make_clear_button (self, path, "edit-clear-symbolic",
                                                    _("Reset to default")));
    else
      gtk_widget_add_css_class (row, "unset");
    adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), editor);
    set_focus_key (self, row, path, "#row");
    add_row (container, row);
  }
}

/* Building the whole form. */

static GtkWidget *
new_group (const char *title)
{
  GtkWidget *group = adw_preferences_group_new ();

  if (title != NULL)
    adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  return group;
}

static void
build_section (CtPropertyForm *self, const CtPropertySection *section, GHashTable *shown)
{
  const ProtobufCMessage *msg = self->msg;
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  GtkWidget *group;

  if (section->title == NULL && section->message_field == NULL)
    {
      /* Hidden fields. */
      for (guint i = 0; section->fields != NULL && section->fields[i] != NULL; i++)
        {
          const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field_by_name (desc, section->fields[i]);
          if (f != NULL)
            g_hash_table_add (shown, (gpointer) f->name);
        }
      return;
    }
  group = new_group (section->title);

  if (section->message_field != NULL)
    {
      const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field_by_name (desc, section->message_field);
      const ProtobufCMessage *sub;
      g_autofree char *prefix = NULL;

      if (f == NULL || f->type != PROTOBUF_C_TYPE_MESSAGE || f->label == PROTOBUF_C_LABEL_REPEATED)
        {
          g_object_ref_sink (group);
          g_object_unref (group);
          return;
        }
      g_hash_table_add (shown, (gpointer) f->name);
      sub = ct_proto_field_count (msg, f) > 0
              ? *(ProtobufCMessage *const *) ((const char *) msg + f->offset) : NULL;
      prefix = g_strconcat (f->name, ".", NULL);
      if (section->title == NULL)
        adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), f->name);
      if (sub != NULL)
        adw_preferences_group_set_header_suffix (
          ADW_PREFERENCES_GROUP (group),
          make_clear_button (self, f->name, "edit-clear-symbolic", _("Reset all to defaults")));
      else
        adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                               _("Not set: every field has its default"));
      fill_message_rows (self, group, sub, f->descriptor, prefix);
    }
  else
    for (guint i = 0; section->fields != NULL && section->fields[i] != NULL; i++)
      {
        const ProtobufCFieldDescriptor *f =
          protobuf_c_message_descriptor_get_field_by_name (desc, section->fields[i]);
        if (f == NULL || g_hash_table_contains (shown, f->name))
          continue;
        g_hash_table_add (shown, (gpointer) f->name);
        add_field (self, group, msg, desc, f, "");
      }
  gtk_box_append (GTK_BOX (self->box), group);
}

static void
build (CtPropertyForm *self, const CtPropertySection *sections, guint n_sections)
{
  const ProtobufCMessageDescriptor *desc = self->msg->descriptor;
  g_autoptr (GHashTable) shown = g_hash_table_new (g_str_hash, g_str_equal);
  GtkWidget *others;
  gboolean any = FALSE;

  for (guint i = 0; i < n_sections; i++)
    build_section (self, &sections[i], shown);
  others = new_group (n_sections > 0 ? _("Other fields") : NULL);
  for (guint i = 0; i < desc->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &desc->fields[i];
      if (g_hash_table_contains (shown, f->name)
          || (n_sections > 0 && ct_proto_field_count (self->msg, f) == 0))
        continue;
      add_field (self, others, self->msg, desc, f, "");
      any = TRUE;
    }
  if (any)
    gtk_box_append (GTK_BOX (self->box), others);
  else
    {
      g_object_ref_sink (others);
      g_object_unref (others);
    }
}

/* The focus key of the widget holding the keyboard focus, if it is ours. */
static char *
focused_key (CtPropertyForm *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  for (; focus != NULL && focus != GTK_WIDGET (self); focus = gtk_widget_get_parent (focus))
    {
      const char *key = g_object_get_data (G_OBJECT (focus), "ct-form-focus-key");
      if (key != NULL && g_hash_table_lookup (self->focusables, key) == focus)
        return g_strdup (key);
    }
  return NULL;
}

/* The frames a rebuilt form waits at most for its panel to be laid out
 * before it gives the focus back. */
#define MAX_RESTORE_FRAMES 12

/* The vertical scrolling of the panel the form sits in, if any. */
static GtkAdjustment *
panel_scroll (CtPropertyForm *self)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (self), GTK_TYPE_SCROLLED_WINDOW);

  return scroller != NULL ? gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller))
                          : NULL;
}

static gboolean
restore_focus (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  CtPropertyForm *self = CT_PROPERTY_FORM (widget);
  GtkAdjustment *scroll = panel_scroll (self);
  gboolean can_go_back = scroll == NULL || self->pending_scroll < 0
                         || gtk_adjustment_get_upper (scroll)
                              - gtk_adjustment_get_page_size (scroll) >= self->pending_scroll;
  GtkWidget *editor;
  GtkRoot *root;

  /* The first frame lays the new rows out; the next one may focus them,
   * once the panel is long enough again to go back to where it was (a
   * busy machine may take a few frames more). */
  if (self->pending_frames++ < 1 || (!can_go_back && self->pending_frames < MAX_RESTORE_FRAMES))
    return G_SOURCE_CONTINUE;
  self->focus_tick = 0;
  editor = g_hash_table_lookup (self->focusables, self->pending_focus);
  g_clear_pointer (&self->pending_focus, g_free);
  /* Unless the focus went elsewhere meanwhile (renaming focuses the name). */
  root = gtk_widget_get_root (widget);
  if (editor != NULL && root != NULL && gtk_root_get_focus (root) == NULL)
    {
      /* While the rows were gone the panel may have moved (its length
       * shrank, or GTK scrolled to another row): put it back first, so
       * that focusing the field, already in view, does not move it. */
      if (scroll != NULL && self->pending_scroll >= 0)
        gtk_adjustment_set_value (scroll, self->pending_scroll);
      gtk_widget_grab_focus (editor);
      if (GTK_IS_EDITABLE (editor))
        gtk_editable_set_position (GTK_EDITABLE (editor), -1);
    }
  return G_SOURCE_REMOVE;
}

static ProtobufCMessage *
copy_message (const ProtobufCMessage *msg)
{
  gsize size = protobuf_c_message_get_packed_size (msg);
  g_autofree guint8 *data = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (msg, data);
  return protobuf_c_message_unpack (msg->descriptor, NULL, size, data);
}

void
ct_property_form_set_message (CtPropertyForm *self, const ProtobufCMessage *msg,
                              const CtPropertySection *sections, guint n_sections)
{
  g_autofree char *focus = NULL;
  ProtobufCMessage *old;
  GtkWidget *child;

  g_return_if_fail (CT_IS_PROPERTY_FORM (self));
  focus = focused_key (self);
  if (focus != NULL)
    {
      GtkAdjustment *scroll = panel_scroll (self);

      self->pending_scroll = scroll != NULL ? gtk_adjustment_get_value (scroll) : -1;
    }
  {
    /* Take the focus off the rows about to go: GTK would hand it to the
     * first row left, and the panel would scroll up to it. */
    GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
    GtkWidget *focused = root != NULL ? gtk_root_get_focus (root) : NULL;

    if (focused != NULL && gtk_widget_is_ancestor (focused, GTK_WIDGET (self)))
      gtk_root_set_focus (root, NULL);
  }
  self->building = TRUE;
  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);
  g_hash_table_remove_all (self->editors);
  g_hash_table_remove_all (self->focusables);
  old = g_steal_pointer (&self->msg);
  if (msg != NULL)
    {
      self->msg = copy_message (msg);
      if (self->msg != NULL)
        build (self, sections, n_sections);
    }
  if (old != NULL)
    protobuf_c_message_free_unpacked (old, NULL);
  self->building = FALSE;
  /* Rebuilt again before the focus went back: the new rows need their
   * frame too (the focus key and place are those of the first rebuild). */
  if (focus == NULL && self->pending_focus != NULL)
    self->pending_frames = 0;
  if (focus != NULL && g_hash_table_contains (self->focusables, focus))
    {
      /* Focused at once, a new widget has no place yet and the scrolled
       * panel around the form would scroll to the top for it: give it the
       * focus once it is laid out, where it is already in view. */
      g_free (self->pending_focus);
      self->pending_focus = g_steal_pointer (&focus);
      self->pending_frames = 0;
      if (self->focus_tick == 0)
        self->focus_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), restore_focus, NULL,
                                                         NULL);
    }
}

void
ct_property_form_set_expanded (CtPropertyForm *self, const char *path, gboolean expanded)
{
  g_return_if_fail (CT_IS_PROPERTY_FORM (self));
  g_hash_table_replace (self->expanded, g_strdup (path), GINT_TO_POINTER (expanded));
}

GtkWidget *
ct_property_form_get_editor (CtPropertyForm *self, const char *path)
{
  g_return_val_if_fail (CT_IS_PROPERTY_FORM (self), NULL);
  return g_hash_table_lookup (self->editors, path);
}

static void
ct_property_form_dispose (GObject *object)
{
  CtPropertyForm *self = CT_PROPERTY_FORM (object);

  self->building = TRUE;
  if (self->focus_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->focus_tick);
  self->focus_tick = 0;
  g_clear_pointer (&self->pending_focus, g_free);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (ct_property_form_parent_class)->dispose (object);
}

static void
ct_property_form_finalize (GObject *object)
{
  CtPropertyForm *self = CT_PROPERTY_FORM (object);

  if (self->msg != NULL)
    protobuf_c_message_free_unpacked (self->msg, NULL);
  g_hash_table_unref (self->expanded);
  g_hash_table_unref (self->editors);
  g_hash_table_unref (self->focusables);
  G_OBJECT_CLASS (ct_property_form_parent_class)->finalize (object);
}

static void
ct_property_form_class_init (CtPropertyFormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ct_property_form_dispose;
  object_class->finalize = ct_property_form_finalize;

  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "propertyform");
}

static void
ct_property_form_init (CtPropertyForm *self)
{
  self->expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->editors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->focusables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->pending_scroll = -1;
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
}

GtkWidget *
ct_property_form_new (void)
{
  return g_object_new (CT_TYPE_PROPERTY_FORM, NULL);
}
