/* palette.h: CtPalette, the searchable list of layer types at the left of
 * the window, grouped under family headings, each with its one-line
 * description.
 *
 * Plain data in: the app adds (type, family, description, colour) items in
 * the order they should appear. Each row is a drag source carrying the type
 * name as a string (the graph canvas accepts it), and activating a row
 * (double-click, Enter) emits "activate-type" for keyboard users. The
 * palette knows nothing of nets. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CT_TYPE_PALETTE (ct_palette_get_type ())
G_DECLARE_FINAL_TYPE (CtPalette, ct_palette, CT, PALETTE, GtkWidget)

GtkWidget *ct_palette_new (void);

/* Add TYPE under the heading FAMILY (translated) with DESCRIPTION (one
 * line, translated). COLOR (may be NULL) is the family's colour, shown as a
 * dot as the graph colours its nodes. */
void ct_palette_add_item (CtPalette *self, const char *type, const char *family,
                          const char *description, const GdkRGBA *color);
void ct_palette_clear (CtPalette *self);

/* The search text (property "search-text"); rows whose type, family or
 * description contain every word of it stay visible. */
void ct_palette_set_search_text (CtPalette *self, const char *text);
const char *ct_palette_get_search_text (CtPalette *self);
/* How many rows the search leaves visible. */
guint ct_palette_count_visible (CtPalette *self);
/* Put the keyboard focus in the search entry. */
void ct_palette_focus_search (CtPalette *self);

/* Signals.
 * "activate-type" (const char *type): a row was activated. */

G_END_DECLS
