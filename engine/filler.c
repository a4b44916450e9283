/* filler.c: Caffe's weight fillers. Fan-in and fan-out follow Caffe's
 * reading of a parameter blob: axis 0 counts outputs, axis 1 inputs, the
 * rest is the receptive field. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "filler.h"
#include "engine-error.h"

static const char *const known_types[] = {
  "constant", "uniform", "gaussian", "positive_unitball", "xavier", "msra", "bilinear",
};

gboolean
ct_filler_type_is_known (const char *type)
{
  for (gsize i = 0; i < G_N_ELEMENTS (known_types); i++)
    if (g_strcmp0 (type, known_types[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The n of xavier and msra: fan in, fan out or their mean. */
static gboolean
variance_fan (const Caffe__FillerParameter *p, const CtBlob *blob, double *n, GError **error)
{
  gint64 count = ct_blob_count (blob);
  guint axes = ct_blob_num_axes (blob);
  const gint64 *shape = ct_blob_get_shape (blob);
  double fan_in, fan_out;

  if (axes < 1 || shape[0] == 0 || (axes > 1 && shape[1] == 0))
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   _("filler '%s' needs a blob with at least one non-empty axis"), p->type);
      return FALSE;
    }
  fan_in = (double) count / (double) shape[0];
  fan_out = axes > 1 ? (double) count / (double) shape[1] : (double) count;
  switch (p->variance_norm)
    {
    case CAFFE__FILLER_PARAMETER__VARIANCE_NORM__FAN_OUT:
      *n = fan_out;
      break;
    case CAFFE__FILLER_PARAMETER__VARIANCE_NORM__AVERAGE:
      *n = (fan_in + fan_out) / 2.0;
      break;
    default:
      *n = fan_in;
      break;
    }
  return TRUE;
}

static gboolean
fill_gaussian (const Caffe__FillerParameter *p, CtBlob *blob, CtRng *rng, float *data,
               GError **error)
{
  gint64 count = ct_blob_count (blob);
  g_autofree float *mask = NULL;
  double keep;

  ct_rng_gaussian (rng, count, p->mean, p->std, data);
  if (p->sparse < 0)
    return TRUE;
  /* Each output keeps about `sparse` of its inputs. */
  keep = (double) p->sparse / (double) ct_blob_get_shape (blob)[0];
  mask = g_new (float, count);
  ct_rng_bernoulli (rng, count, (float) keep, mask);
  for (gint64 i = 0; i < count; i++)
    data[i] *= mask[i];
  return TRUE;
}

/* Uniform values, then each output's row scaled to sum 1. */
static gboolean
fill_positive_unitball (CtBlob *blob, CtRng *rng, float *data, GError **error)
{
  gint64 count = ct_blob_count (blob);
  gint64 num = ct_blob_num_axes (blob) > 0 ? ct_blob_get_shape (blob)[0] : 1;
  gint64 dim;

  ct_rng_uniform (rng, count, 0.0f, 1.0f, data);
  if (num == 0)
    return TRUE;
  dim = count / num;
  for (gint64 i = 0; i < num; i++)
    {
      double sum = 0.0;

      for (gint64 j = 0; j < dim; j++)
        sum += data[i * dim + j];
      for (gint64 j = 0; j < dim; j++)
        data[i * dim + j] = (float) (data[i * dim + j] / sum);
    }
  return TRUE;
}

/* The kernel of bilinear upsampling, for Deconvolution weights. */
static gboolean
fill_bilinear (CtBlob *blob, float *data, GError **error)
{
  const gint64 *shape = ct_blob_get_shape (blob);
  gint64 count = ct_blob_count (blob);
  double f, c;
  f = ceil (shape[3] / 2.0);
  c = (2.0 * f - 1.0 - fmod (f, 2.0)) / (2.0 * f);
  for (gint64 i = 0; i < count; i++)
    {
      double x = (double) (i % shape[3]);
      double y = (double) ((i / shape[3]) % shape[2]);

      data[i] = (float) ((1.0 - fabs (x / f - c)) * (1.0 - fabs (y / f - c)));
    }
  return TRUE;
}

gboolean
ct_filler_check (const Caffe__FillerParameter *param, const CtBlob *blob, GError **error)
{
  Caffe__FillerParameter defaults = CAFFE__FILLER_PARAMETER__INIT;
  const Caffe__FillerParameter *p = param != NULL ? param : &defaults;
  const char *type = p->type != NULL ? p->type : "constant";
  const gint64 *shape = ct_blob_get_shape (blob);
  double n;

  if (!ct_filler_type_is_known (type))
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("unknown filler type '%s' (known: constant, uniform, gaussian, "
                     "positive_unitball, xavier, msra, bilinear)"), type);
      return FALSE;
    }
  if (strcmp (type, "xavier") == 0 || strcmp (type, "msra") == 0)
    return variance_fan (p, blob, &n, error);
  if (strcmp (type, "gaussian") == 0 && p->sparse >= 0 &&
      (ct_blob_num_axes (blob) < 1 || shape[0] == 0))
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   _("a sparse gaussian filler needs a blob with outputs on axis 0"));
      return FALSE;
    }
  if (strcmp (type, "bilinear") == 0 &&
      (ct_blob_num_axes (blob) != 4 || shape[2] != shape[3] || shape[3] == 0))
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   _("the bilinear filler needs a 4-axis blob with square kernels"));
      return FALSE;
    }
  return TRUE;
}

gboolean
ct_filler_fill (const Caffe__FillerParameter *param, CtBlob *blob, CtRng *rng, GError **error)
{
  Caffe__FillerParameter defaults = CAFFE__FILLER_PARAMETER__INIT;
  const Caffe__FillerParameter *p = param != NULL ? param : &defaults;
  const char *type = p->type != NULL ? p->type : "constant";
  gint64 count = ct_blob_count (blob);
  float *data;
  double n;

  if (!ct_filler_check (param, blob, error))
    return FALSE;
  data = ct_blob_mutable_cpu_data (blob, error);
  if (data == NULL)
    return FALSE;

  if (strcmp (type, "constant") == 0)
    {
      for (gint64 i = 0; i < count; i++)
        data[i] = p->value;
      return TRUE;
    }
  if (strcmp (type, "uniform") == 0)
    {
      ct_rng_uniform (rng, count, p->min, p->max, data);
      return TRUE;
    }
  if (strcmp (type, "gaussian") == 0)
    return fill_gaussian (p, blob, rng, data, error);
  if (strcmp (type, "positive_unitball") == 0)
    return fill_positive_unitball (blob, rng, data, error);
  if (strcmp (type, "xavier") == 0)
    {
      if (!variance_fan (p, blob, &n, error))
        return FALSE;
      ct_rng_uniform (rng, count, (float) -sqrt (3.0 / n), (float) sqrt (3.0 / n), data);
      return TRUE;
    }
  if (strcmp (type, "msra") == 0)
    {
      if (!variance_fan (p, blob, &n, error))
        return FALSE;
      ct_rng_gaussian (rng, count, 0.0f, (float) sqrt (2.0 / n), data);
      return TRUE;
    }
  if (strcmp (type, "bilinear") == 0)
    return fill_bilinear (blob, data, error);
  g_return_val_if_reached (FALSE); /* ct_filler_check knows every type */
}
