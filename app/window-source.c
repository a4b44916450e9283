/* window-source.c: the prototxt source view, tied to the document.
 *
 * Typing re-parses the text 300 ms after the last key (one undo step per
 * burst, kept by the document, not by the buffer); when it parses the graph
 * follows. A parse error is underlined where the parser stopped, layers
 * the engine rejects are underlined at their names, and hovering either
 * explains it. Selecting a node moves the cursor to its layer; moving the
 * cursor into a layer selects its node. */
#include <stdlib.h>
#include <glib/gi18n-lib.h>

#include "source-map.h"
#include "proto-error.h"
#include "window-private.h"

#define REPARSE_DELAY_MS 300
#define CURSOR_DELAY_MS 150

static void
get_iter_at_line_column (GtkTextBuffer *buffer, GtkTextIter *iter, guint line, guint column)
{
  gtk_text_buffer_get_iter_at_line (buffer, iter, (int) line - 1);
  /* Columns count bytes. */
  if ((int) column - 1 < gtk_text_iter_get_bytes_in_line (iter))
    gtk_text_iter_set_line_index (iter, (int) column - 1);
  else if (!gtk_text_iter_ends_line (iter))
    gtk_text_iter_forward_to_line_end (iter);
}

static gboolean
is_name_char (gunichar c)
{
  return g_unichar_isalnum (c) || c == '_' || c == '.';
}

/* The token at LINE:COLUMN as START..END: the word the message points at.
 * Where that is no text (the end of the file, a line's end), the last
 * token before it, so that the mark is always seen. */
static void
token_at (GtkTextBuffer *buffer, guint line, guint column, GtkTextIter *start, GtkTextIter *end)
{
  get_iter_at_line_column (buffer, start, line, column);
  if (gtk_text_iter_is_end (start) || g_unichar_isspace (gtk_text_iter_get_char (start)))
    {
      /* Back to the last visible character before the position. */
      GtkTextIter back = *start;

      while (gtk_text_iter_backward_char (&back))
        if (!g_unichar_isspace (gtk_text_iter_get_char (&back)))
          break;
      if (g_unichar_isspace (gtk_text_iter_get_char (&back)) || gtk_text_iter_is_end (&back))
        {
          /* Nothing visible before it either (an empty text): one cell. */
          *end = *start;
          gtk_text_iter_forward_char (end);
          return;
        }
      *end = back;
      gtk_text_iter_forward_char (end);
      *start = back;
      while (!gtk_text_iter_starts_line (start))
        {
          GtkTextIter before = *start;
          gtk_text_iter_backward_char (&before);
          if (g_unichar_isspace (gtk_text_iter_get_char (&before)))
            break;
          *start = before;
        }
      return;
    }
  *end = *start;
  /* The token that stopped the parser: a field name up to its ':', else
   * up to the next space. */
  if (is_name_char (gtk_text_iter_get_char (start)))
    while (!gtk_text_iter_ends_line (end) && is_name_char (gtk_text_iter_get_char (end)))
      gtk_text_iter_forward_char (end);
  else
    while (!gtk_text_iter_ends_line (end) && !g_unichar_isspace (gtk_text_iter_get_char (end)))
      gtk_text_iter_forward_char (end);
}

static void
mark_parse_error (CtWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->source_buffer);
  const GError *error = ct_document_get_parse_error (self->document);
  GtkTextIter start, end;
  guint line, column;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag (buffer, self->error_tag, &start, &end);
  if (error == NULL || !ct_proto_error_get_position (error, &line, &column))
    return;
  token_at (buffer, line, column, &start, &end);
  gtk_text_buffer_apply_tag (buffer, self->error_tag, &start, &end);
}

static void
mark_layer_errors (CtWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->source_buffer);
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  g_autoptr (GArray) spans = NULL;
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag (buffer, self->warning_tag, &start, &end);
  if (net == NULL || ct_document_get_parse_error (self->document) != NULL)
    return;
  spans = ct_source_map_layers (ct_document_get_text (self->document));
  if (spans->len != net->n_layer)
    return;
  for (guint i = 0; i < spans->len; i++)
    {
      const CtSourceSpan *span = &g_array_index (spans, CtSourceSpan, i);
      gsize from = span->name_end > span->name_start ? span->name_start : span->start;
      gsize to = span->name_end > span->name_start ? span->name_end : span->start + 5;
      const char *text = ct_document_get_text (self->document);
      const GError *error = ct_document_get_layer_error (self->document, i);
      guint line, column;

      if (error == NULL)
        continue;
      /* An error on a place in this text ("net:54:5: unknown field") is
       * marked there; others at the layer's name. */
      if (ct_proto_error_get_position (error, &line, &column)
          && (int) line <= gtk_text_buffer_get_line_count (buffer))
        token_at (buffer, line, column, &start, &end);
      else
        {
          gtk_text_buffer_get_iter_at_offset (buffer, &start,
                                              (int) g_utf8_pointer_to_offset (text, text + from));
          gtk_text_buffer_get_iter_at_offset (buffer, &end,
                                              (int) g_utf8_pointer_to_offset (text, text + to));
        }
      gtk_text_buffer_apply_tag (buffer, self->warning_tag, &start, &end);
    }
}

/* The document's text into the buffer (when the change did not come from
 * the buffer), keeping the cursor's line. */
static void
load_buffer (CtWindow *self, gboolean loaded)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->source_buffer);
  const char *text = ct_document_get_text (self->document);
  g_autofree char *current = NULL;
  GtkTextIter start, end, cursor;
  int line = 0;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  current = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  if (g_strcmp0 (current, text) == 0)
    return;
  gtk_text_buffer_get_iter_at_mark (buffer, &cursor, gtk_text_buffer_get_insert (buffer));
  line = gtk_text_iter_get_line (&cursor);
  g_clear_handle_id (&self->source_timeout, g_source_remove);
  self->setting_text = TRUE;
  gtk_text_buffer_set_text (buffer, text, -1);
  self->setting_text = FALSE;
  if (loaded)
    gtk_text_buffer_get_start_iter (buffer, &cursor);
  else
    gtk_text_buffer_get_iter_at_line (buffer, &cursor, line);
  gtk_text_buffer_place_cursor (buffer, &cursor);
}

void
ct_window_source_document_changed (CtWindow *self, CtDocumentChange flags)
{
  if ((flags & CT_DOCUMENT_CHANGE_SOURCE) == 0)
    load_buffer (self, (flags & CT_DOCUMENT_CHANGE_LOAD) != 0);
  mark_parse_error (self);
  if (flags & CT_DOCUMENT_CHANGE_NET)
    mark_layer_errors (self);
}

void
ct_window_source_document_validated (CtWindow *self)
{
  mark_layer_errors (self);
}

static gboolean
reparse_timeout (gpointer data)
{
  CtWindow *self = data;
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->source_buffer);
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  self->source_timeout = 0;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  ct_document_set_text (self->document, text);
  return G_SOURCE_REMOVE;
}

static void
buffer_changed (GtkTextBuffer *buffer, CtWindow *self)
{
  if (self->setting_text)
    return;
  g_clear_handle_id (&self->source_timeout, g_source_remove);
  self->source_timeout = g_timeout_add (REPARSE_DELAY_MS, reparse_timeout, self);
}

/* Tooltips explain the underlines. */
static gboolean
query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
               CtWindow *self)
{
  GtkTextView *view = GTK_TEXT_VIEW (widget);
  GtkTextIter iter;
  int bx, by;

  if (keyboard)
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
      gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
    }
  else
    {
      gtk_text_view_window_to_buffer_coords (view, GTK_TEXT_WINDOW_WIDGET, x, y, &bx, &by);
      if (!gtk_text_view_get_iter_at_location (view, &iter, bx, by))
        return FALSE;
    }
  if (gtk_text_iter_has_tag (&iter, self->error_tag))
    {
      const GError *error = ct_document_get_parse_error (self->document);
      if (error == NULL)
        return FALSE;
      gtk_tooltip_set_text (tooltip, error->message);
      return TRUE;
    }
  if (gtk_text_iter_has_tag (&iter, self->warning_tag))
    {
      g_autoptr (GArray) spans = ct_source_map_layers (ct_document_get_text (self->document));
      const char *text = ct_document_get_text (self->document);
      const char *at = g_utf8_offset_to_pointer (text, gtk_text_iter_get_offset (&iter));
      int layer = ct_source_map_find (spans, (gsize) (at - text));
      const GError *error = layer >= 0 ? ct_document_get_layer_error (self->document,
                                                                      (guint) layer)
                                       : NULL;
      if (error == NULL)
        return FALSE;
      gtk_tooltip_set_text (tooltip, error->message);
      return TRUE;
    }
  return FALSE;
}

void
ct_window_source_reveal_layer (CtWindow *self, int layer, gboolean select)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->source_buffer);
  const char *text = ct_document_get_text (self->document);
  g_autoptr (GArray) spans = NULL;
  const CtSourceSpan *span;
  GtkTextIter iter;

  if (layer < 0 || ct_document_get_parse_error (self->document) != NULL)
    return;
  spans = ct_source_map_layers (text);
  if ((guint) layer >= spans->len)
    return;
  /* A cursor moved by us must not select nodes in turn. */
  if (!select && gtk_widget_has_focus (GTK_WIDGET (self->source_view)))
    return;
  span = &g_array_index (spans, CtSourceSpan, layer);
  gtk_text_buffer_get_iter_at_offset (buffer, &iter,
                                      (int) g_utf8_pointer_to_offset (text, text + span->start));
  self->source_follows_selection = TRUE;
  gtk_text_buffer_place_cursor (buffer, &iter);
  self->source_follows_selection = FALSE;
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->source_view),
                                gtk_text_buffer_get_insert (buffer), 0.0, TRUE, 0.0, 0.1);
}

static gboolean
cursor_timeout (gpointer data)
{
  CtWindow *self = data;
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->source_buffer);
  const char *text = ct_document_get_text (self->document);
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  g_autoptr (GArray) spans = NULL;
  GtkTextIter iter;
  const char *at;
  int layer;

  self->cursor_source = 0;
  if (net == NULL || ct_document_get_parse_error (self->document) != NULL
      || self->source_timeout != 0)
    return G_SOURCE_REMOVE;
  spans = ct_source_map_layers (text);
  if (spans->len != net->n_layer)
    return G_SOURCE_REMOVE;
  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
  at = g_utf8_offset_to_pointer (text, gtk_text_iter_get_offset (&iter));
  layer = ct_source_map_find (spans, (gsize) (at - text));
  if (layer >= 0)
    ct_window_select_layers (self, &layer, 1, TRUE);
  return G_SOURCE_REMOVE;
}

static void
cursor_moved (GtkTextBuffer *buffer, GParamSpec *pspec, CtWindow *self)
{
  if (self->setting_text || self->source_follows_selection
      || !gtk_widget_has_focus (GTK_WIDGET (self->source_view)))
    return;
  g_clear_handle_id (&self->cursor_source, g_source_remove);
  self->cursor_source = g_timeout_add (CURSOR_DELAY_MS, cursor_timeout, self);
}

/* The click that gives the source view the focus places the cursor before
 * the view has it: that placement counts too. */
static void
source_focused (CtWindow *self)
{
  if (self->setting_text || self->source_follows_selection)
    return;
  g_clear_handle_id (&self->cursor_source, g_source_remove);
  self->cursor_source = g_timeout_add (CURSOR_DELAY_MS, cursor_timeout, self);
}

/* The cursor follows a single selected layer (unless the user is typing
 * here: a cursor moved by us must not select nodes in turn). */
static void
selection_changed (CtSelection *selection, guint flags, CtWindow *self)
{
  guint n = 0;
  g_autofree guint *layers = ct_window_selected_layers (self, &n);

  if (n == 1)
    ct_window_source_reveal_layer (self, (int) layers[0], FALSE);
}

void
ct_window_show_problem (CtWindow *self)
{
  const GError *error = ct_document_get_parse_error (self->document);
  const Caffe__NetParameter *net = ct_document_get_net (self->document);
  guint line, column;

  if (error != NULL)
    {
      GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->source_buffer);
      GtkTextIter iter;

      adw_view_stack_set_visible_child_name (self->view_stack, "source");
      if (ct_proto_error_get_position (error, &line, &column))
        {
          get_iter_at_line_column (buffer, &iter, line, column);
          gtk_text_buffer_place_cursor (buffer, &iter);
          gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->source_view),
                                        gtk_text_buffer_get_insert (buffer), 0.0, TRUE, 0.0,
                                        0.3);
        }
      gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
      return;
    }
  for (guint i = 0; net != NULL && i < net->n_layer; i++)
    if (ct_document_get_layer_error (self->document, i) != NULL)
      {
        int layer = (int) i;
        adw_view_stack_set_visible_child_name (self->view_stack, "graph");
        ct_window_select_layers (self, &layer, 1, TRUE);
        return;
      }
}

static void
update_scheme (CtWindow *self)
{
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme =
    gtk_source_style_scheme_manager_get_scheme (schemes, dark ? "Adwaita-dark" : "Adwaita");

  if (scheme != NULL)
    gtk_source_buffer_set_style_scheme (self->source_buffer, scheme);
}

void
ct_window_init_source (CtWindow *self)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceLanguage *proto;

  /* Our own prototxt language (`#` comments, enum constants), bundled as a
   * resource (see ct_application_ensure_resources); GtkSourceView's `proto`
   * (the schema language) if it is missing. */
  proto = gtk_source_language_manager_get_language (languages, "prototxt");
  if (proto == NULL)
    proto = gtk_source_language_manager_get_language (languages, "proto");

  self->source_buffer = GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view)));
  if (proto != NULL)
    gtk_source_buffer_set_language (self->source_buffer, proto);
  /* The document keeps one undo history for the graph, the form and the
   * text. */
  gtk_text_buffer_set_enable_undo (GTK_TEXT_BUFFER (self->source_buffer), FALSE);
  self->error_tag = gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (self->source_buffer),
                                                "ct-parse-error", "underline",
                                                PANGO_UNDERLINE_ERROR, NULL);
  self->warning_tag = gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (self->source_buffer),
                                                  "ct-layer-error", "underline",
                                                  PANGO_UNDERLINE_ERROR, NULL);
  {
    GdkRGBA red, orange;
    gdk_rgba_parse (&red, "#e01b24");
    gdk_rgba_parse (&orange, "#e66100");
    g_object_set (self->error_tag, "underline-rgba", &red, NULL);
    g_object_set (self->warning_tag, "underline-rgba", &orange, NULL);
  }
  gtk_widget_set_has_tooltip (GTK_WIDGET (self->source_view), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->source_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Prototxt source"), -1);
  g_signal_connect (self->source_view, "query-tooltip", G_CALLBACK (query_tooltip), self);
  g_signal_connect (self->source_buffer, "changed", G_CALLBACK (buffer_changed), self);
  g_signal_connect (self->source_buffer, "notify::cursor-position", G_CALLBACK (cursor_moved),
                    self);
  {
    GtkEventController *focus = gtk_event_controller_focus_new ();

    g_signal_connect_swapped (focus, "enter", G_CALLBACK (source_focused), self);
    gtk_widget_add_controller (GTK_WIDGET (self->source_view), focus);
  }
  g_signal_connect_swapped (adw_style_manager_get_default (), "notify::dark",
                            G_CALLBACK (update_scheme), self);
  g_signal_connect (self->selection, "changed", G_CALLBACK (selection_changed), self);
  update_scheme (self);
}

/* Hand what was typed to the document now (before saving or closing). */
void
ct_window_source_flush (CtWindow *self)
{
  if (self->source_timeout != 0)
    {
      g_clear_handle_id (&self->source_timeout, g_source_remove);
      reparse_timeout (self);
    }
}

void
ct_window_source_dispose (CtWindow *self)
{
  g_clear_handle_id (&self->source_timeout, g_source_remove);
  g_clear_handle_id (&self->cursor_source, g_source_remove);
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
}
