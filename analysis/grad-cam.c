/* grad-cam.c: gradient-weighted class activation maps. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "grad-cam.h"

void
ct_grad_cam_free (CtGradCam *cam)
{
  if (cam == NULL)
    return;
  g_free (cam->cam);
  g_free (cam->weights);
  g_free (cam->image_cam);
  g_free (cam);
}

static float
sample_at (const float *src, guint sh, guint sw, double y, double x)
{
  double fy = CLAMP (y, 0.0, sh - 1.0), fx = CLAMP (x, 0.0, sw - 1.0);
  guint y0 = (guint) fy, x0 = (guint) fx;
  guint y1 = MIN (y0 + 1, sh - 1), x1 = MIN (x0 + 1, sw - 1);
  double ty = fy - y0, tx = fx - x0;
  double top = src[y0 * sw + x0] * (1 - tx) + src[y0 * sw + x1] * tx;
  double bottom = src[y1 * sw + x0] * (1 - tx) + src[y1 * sw + x1] * tx;

  return (float) (top * (1 - ty) + bottom * ty);
}

float *
ct_resize_bilinear (const float *src, guint sh, guint sw, guint dh, guint dw)
{
  float *dst = g_new (float, (gsize) dh * dw);

  for (guint y = 0; y < dh; y++)
    for (guint x = 0; x < dw; x++)
      dst[y * dw + x] = sample_at (src, sh, sw, (y + 0.5) * sh / dh - 0.5,
                                   (x + 0.5) * sw / dw - 0.5);
  return dst;
}

/* The layer and the blob it writes, checked to lie on the path. */
static gboolean
find_layer (CtNet *net, const CtAnalysisPath *path, const char *name, guint *blob_out,
            guint *end_out, GError **error)
{
  int layer = ct_net_layer_index (net, name);
  guint n_tops = 0;
  const guint *tops;
  CtBlob *blob;

  if (layer < 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("the net has no layer named '%s'"), name);
      return FALSE;
    }
  tops = ct_net_get_top_ids (net, (guint) layer, &n_tops);
  if ((guint) layer < path->first_layer || (guint) layer >= path->score_layer || n_tops == 0)
    {
      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("layer '%s' does not lie between the input and the scores"), name);
      return FALSE;
    }
  blob = ct_net_get_blob (net, tops[0]);
  if (ct_blob_num_axes (blob) != 4)
    {
      g_autofree char *shape = ct_blob_shape_string (blob);

      g_set_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT,
                   _("layer '%s' makes %s, not feature maps (N × C × H × W)"), name, shape);
      return FALSE;
    }
  *blob_out = tops[0];
  /* in-place layers that change the blob run before we read it */
  *end_out = (guint) ct_net_last_writer (net, tops[0]) + 1;
  if (*end_out > path->score_layer)
    *end_out = path->score_layer;
  return TRUE;
}

CtGradCam *
ct_grad_cam_compute (CtNet *net, const CtClassifier *classifier, const CtAnalysisPath *path,
                     const float *image, guint klass, const char *layer_name, GError **error)
{
  g_autoptr (CtGradCam) cam = g_new0 (CtGradCam, 1);
  const float *data, *diff;
  guint blob_id, end;
  const gint64 *dims;
  CtBlob *blob;
  gsize plane;

  if (!find_layer (net, path, layer_name, &blob_id, &end, error))
    return NULL;
  if (!ct_analysis_path_explain_class (path, net, classifier, image, klass, end, &cam->score,
                                       error))
    return NULL;
  blob = ct_net_get_blob (net, blob_id);
  dims = ct_blob_get_shape (blob);
  cam->channels = (guint) dims[1];
  cam->height = (guint) dims[2];
  cam->width = (guint) dims[3];
  plane = (gsize) cam->height * cam->width;
  data = ct_blob_cpu_data (blob, error);
  diff = data == NULL ? NULL : ct_blob_cpu_diff (blob, error);
  if (diff == NULL)
    return NULL;
  cam->weights = g_new0 (float, cam->channels);
  cam->cam = g_new0 (float, plane);
  for (guint c = 0; c < cam->channels; c++)
    {
      double sum = 0.0;

      for (gsize i = 0; i < plane; i++)
        sum += diff[c * plane + i];
      cam->weights[c] = (float) (sum / (double) plane);
      for (gsize i = 0; i < plane; i++)
        cam->cam[i] += cam->weights[c] * data[c * plane + i];
    }
  for (gsize i = 0; i < plane; i++)
    cam->cam[i] = MAX (cam->cam[i], 0.0f);
  cam->image_cam = ct_resize_bilinear (cam->cam, cam->height, cam->width, path->height,
                                       path->width);
  return g_steal_pointer (&cam);
}
