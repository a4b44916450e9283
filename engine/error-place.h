/* error-place.h: where an error of the engine happened, the layer and the
 * blob, carried inside the GError as data (GLib's extended errors), so that
 * the window selects the failed layer without reading the translated
 * message back. Errors of the engine's (CT_ENGINE_ERROR) and the data
 * sources' (CT_DATA_ERROR) domains can carry a place; others never do. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *layer; /* the layer's name, or NULL */
  char *blob;  /* the blob's name, or NULL */
} CtErrorPlace;

/* Gives *ERROR the place LAYER and BLOB (NULL: keep what it has). Does
 * nothing when ERROR or *ERROR is NULL or of another domain, so that it
 * can follow any g_set_error (). */
void ct_error_set_place (GError **error, const char *layer, const char *blob);

/* The layer or blob ERROR names as data, or NULL. */
const char *ct_error_get_layer (const GError *error);
const char *ct_error_get_blob (const GError *error);

/* For the domains that carry a place (engine-error.c, data-error.c). */
void ct_error_place_init (CtErrorPlace *place);
void ct_error_place_copy (const CtErrorPlace *src, CtErrorPlace *dest);
void ct_error_place_clear (CtErrorPlace *place);

G_END_DECLS
