/* occlusion.c: occlusion sensitivity, batched. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "occlusion.h"

void
ct_occlusion_free (CtOcclusion *o)
{
  if (o == NULL)
    return;
  g_free (o->grid);
  g_free (o->image_map);
  g_free (o);
}

/* Copy IMAGE into DST and grey the patch of place P (-1: none). */
static void
fill_item (float *dst, const float *image, const CtAnalysisPath *path,
           const CtOcclusionParams *params, const CtOcclusion *o, gint64 place)
{
  gsize plane = (gsize) path->height * path->width;
  guint py, px;

  memcpy (dst, image, plane * path->channels * sizeof (float));
  if (place < 0)
    return;
  py = (guint) (place / o->grid_width) * params->stride;
  px = (guint) (place % o->grid_width) * params->stride;
  for (guint c = 0; c < path->channels; c++)
    for (guint y = py; y < py + params->patch; y++)
      for (guint x = px; x < px + params->patch; x++)
        dst[c * plane + (gsize) y * path->width + x] = params->fill;
}

static void
build_image_map (CtOcclusion *o, const CtAnalysisPath *path, const CtOcclusionParams *params)
{
  gsize plane = (gsize) path->height * path->width;
  g_autofree guint *covers = g_new0 (guint, plane);

  o->image_map = g_new0 (float, plane);
  for (guint gy = 0; gy < o->grid_height; gy++)
    for (guint gx = 0; gx < o->grid_width; gx++)
      for (guint y = gy * params->stride; y < gy * params->stride + params->patch; y++)
        for (guint x = gx * params->stride; x < gx * params->stride + params->patch; x++)
          {
            o->image_map[(gsize) y * path->width + x] += o->grid[gy * o->grid_width + gx];
            covers[(gsize) y * path->width + x]++;
          }
  for (gsize i = 0; i < plane; i++)
    if (covers[i] > 0)
      o->image_map[i] /= (float) covers[i];
}

CtOcclusion *
ct_occlusion_compute (CtNet *net, const CtClassifier *classifier, const CtAnalysisPath *path,
                      const float *image, guint klass, const CtOcclusionParams *params,
                      CtAnalysisProgressFunc progress, gpointer user_data, GError **error)
{
  g_autoptr (CtOcclusion) o = g_new0 (CtOcclusion, 1);
  gsize item = (gsize) path->channels * path->height * path->width;
  guint batch = MAX (params->batch, 1);
  gint64 n_places;

  if (params->patch == 0 || params->stride == 0 || params->patch > path->height
      || params->patch > path->width)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("a patch of %u pixels at a stride of %u does not fit a %u × %u image"),
                   params->patch, params->stride, path->height, path->width);
      return NULL;
    }
  o->grid_height = (path->height - params->patch) / params->stride + 1;
  o->grid_width = (path->width - params->patch) / params->stride + 1;
  n_places = (gint64) o->grid_height * o->grid_width;
  o->grid = g_new0 (float, n_places);
  /* item 0 of the first batch is the unhidden image: the baseline */
  for (gint64 first = -1; first < n_places; first += batch)
    {
      guint count = (guint) MIN ((gint64) batch, n_places - first);
      float *input = ct_analysis_path_batch (path, net, count, error);
      const float *scores;
      guint k = 0;

      if (input == NULL)
        return NULL;
      for (guint b = 0; b < count; b++)
        fill_item (input + b * item, image, path, params, o, first + b);
      if (!ct_analysis_path_forward (path, net, error))
        return NULL;
      scores = ct_analysis_path_scores (path, net, classifier, &k, error);
      if (scores == NULL)
        return NULL;
      if (klass >= k)
        {
          g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                       _("class %u is not one of the %u classes"), klass, k);
          return NULL;
        }
      for (guint b = 0; b < count; b++)
        {
          gint64 place = first + b;

          if (place < 0)
            o->baseline = scores[b * k + klass];
          else
            o->grid[place] = o->baseline - scores[b * k + klass];
        }
      if (!ct_analysis_report (progress, user_data, (double) (first + count + 1) / (n_places + 1),
                               error))
        return NULL;
    }
  build_image_map (o, path, params);
  return g_steal_pointer (&o);
}
