/* input-browser.h: CtInputBrowser, the window that browses the
 * Fashion-MNIST test set as thumbnails with their class names (see
 * input-browser.c). Items chosen ("Use Selected", or an item activated)
 * come out through its "use-items" signal. */
#pragma once

#include <gtk/gtk.h>

#include "run-inputs.h"

G_BEGIN_DECLS

#define CT_TYPE_INPUT_BROWSER (ct_input_browser_get_type ())
G_DECLARE_FINAL_TYPE (CtInputBrowser, ct_input_browser, CT, INPUT_BROWSER, GtkWindow)

/* A browser of SET (borrowed: it must outlive the browser), or, when SET
 * is NULL, one saying why not: ERROR. */
CtInputBrowser *ct_input_browser_new (GtkWindow *parent, const CtFashionSet *set,
                                      const GError *error);
/* The items selected (NULL without a set). */
GtkSelectionModel *ct_input_browser_get_selection (CtInputBrowser *self);
/* The translated name of Fashion-MNIST class LABEL, or "?". */
const char *ct_input_browser_class_name (guint label);

/* Show only the items of class LABEL (0..9; -1: all), as the class
 * drop-down in the header bar does. */
void ct_input_browser_show_class (CtInputBrowser *self, int label);

G_END_DECLS
