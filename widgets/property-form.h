/* property-form.h: CtPropertyForm, a form generated from a protobuf-c
 * message: the inspector shows a layer's LayerParameter in it, but the form
 * knows only descriptors.
 *
 * Each field is a row: booleans are switches, enums drop-downs, numbers and
 * strings entries checked as they are typed (a bad number is marked and
 * explained, never sent); nested messages are expander rows with their
 * fields inside; repeated fields list their values with a remove button
 * each and an add button. A field that is not set shows its default,
 * greyed; a set field has a reset button that clears it.
 *
 * The form never changes the message: it emits "changed" with the field's
 * path (see field-path.h: "convolution_param.kernel_size[0]") and the new
 * value as text, or NULL to clear the field or remove the element. The
 * owner applies it and calls set_message() with the result; the form keeps
 * which rows are expanded and which field has the keyboard focus.
 *
 * Sections decide what is shown: a section lists top-level fields by name,
 * or names one message field whose fields form the section; a section with
 * neither a title nor a message field hides the fields it lists. Fields in
 * no section are shown in a last section only when they are set. Without
 * sections every field is shown in schema order. */
#pragma once

#include <adwaita.h>
#include <protobuf-c/protobuf-c.h>

G_BEGIN_DECLS

#define CT_TYPE_PROPERTY_FORM (ct_property_form_get_type ())
G_DECLARE_FINAL_TYPE (CtPropertyForm, ct_property_form, CT, PROPERTY_FORM, GtkWidget)

typedef struct {
  const char *title;          /* the section heading (translated), or NULL */
  const char *message_field;  /* a message field shown as the section, or NULL */
  const char *const *fields;  /* otherwise: top-level field names, NULL-terminated */
} CtPropertySection;

GtkWidget *ct_property_form_new (void);

/* Show MSG (NULL: nothing). The form copies what it shows; MSG may be freed
 * after the call. SECTIONS (N_SECTIONS of them, may be 0) are copied. */
void ct_property_form_set_message (CtPropertyForm *self, const ProtobufCMessage *msg,
                                   const CtPropertySection *sections, guint n_sections);

/* Paths of nested messages and repeated fields to show expanded the first
 * time they appear ("bottom", "convolution_param.weight_filler"). */
void ct_property_form_set_expanded (CtPropertyForm *self, const char *path, gboolean expanded);

/* The row widget editing PATH, or NULL (tests drive the form through it:
 * a GtkEditable, GtkSwitch or GtkDropDown). */
GtkWidget *ct_property_form_get_editor (CtPropertyForm *self, const char *path);

/* Signals.
 * "changed" (const char *path, const char *value_or_null). */

G_END_DECLS
