/* error-place.c: the layer and blob an error carries (error-place.h). */
#include "data-error.h"
#include "engine-error.h"
#include "error-place.h"

/* Each domain's private data (G_DEFINE_EXTENDED_ERROR in its file). */
CtErrorPlace *ct_engine_error_place_of (const GError *error);
CtErrorPlace *ct_data_error_place_of (const GError *error);

void
ct_error_place_init (CtErrorPlace *place)
{
  place->layer = NULL;
  place->blob = NULL;
}

void
ct_error_place_copy (const CtErrorPlace *src, CtErrorPlace *dest)
{
  dest->layer = g_strdup (src->layer);
  dest->blob = g_strdup (src->blob);
}

void
ct_error_place_clear (CtErrorPlace *place)
{
  g_clear_pointer (&place->layer, g_free);
  g_clear_pointer (&place->blob, g_free);
}

static CtErrorPlace *
place_of (const GError *error)
{
  if (error == NULL)
    return NULL;
  if (error->domain == CT_ENGINE_ERROR)
    return ct_engine_error_place_of (error);
  if (error->domain == CT_DATA_ERROR)
    return ct_data_error_place_of (error);
  return NULL;
}

void
ct_error_set_place (GError **error, const char *layer, const char *blob)
{
  CtErrorPlace *place = error != NULL ? place_of (*error) : NULL;

  if (place == NULL)
    return;
  if (layer != NULL)
    {
      g_free (place->layer);
      place->layer = g_strdup (layer);
    }
  if (blob != NULL)
    {
      g_free (place->blob);
      place->blob = g_strdup (blob);
    }
}

const char *
ct_error_get_layer (const GError *error)
{
  CtErrorPlace *place = place_of (error);

  return place != NULL ? place->layer : NULL;
}

const char *
ct_error_get_blob (const GError *error)
{
  CtErrorPlace *place = place_of (error);

  return place != NULL ? place->blob : NULL;
}
