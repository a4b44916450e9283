/* neuron-common.c: the helpers of neuron-private.h, shared by the neuron
 * and normalisation layer files, and the one implementation of the
 * element-wise neurons that differ only in their kernels. */
#include <glib/gi18n-lib.h>

#include "neuron-private.h"
#include "engine-error.h"

gboolean
ct_neuron_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (CT_TOP (top, 0) == CT_BOTTOM (bottom, 0))
    return TRUE;
  if (!ct_blob_reshape_like (CT_TOP (top, 0), CT_BOTTOM (bottom, 0), &local))
    return ct_layer_fail (layer, error, local->code, "%s", local->message);
  return TRUE;
}

gboolean
ct_neuron_refuse_in_place (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  if (CT_TOP (top, 0) == CT_BOTTOM (bottom, 0))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("cannot run in place: give the top a name of its own"));
  return TRUE;
}

static gboolean
wrap (const CtLayer *layer, GError *local, GError **error)
{
  ct_layer_fail (layer, error, local->code, "%s", local->message);
  g_error_free (local);
  return FALSE;
}

const float *
ct_neuron_data (const CtLayer *layer, CtBlob *blob, GError **error)
{
  GError *local = NULL;
  const float *p = ct_blob_cpu_data (blob, &local);

  if (p == NULL && local != NULL)
    wrap (layer, local, error);
  return p;
}

float *
ct_neuron_mutable_data (const CtLayer *layer, CtBlob *blob, GError **error)
{
  GError *local = NULL;
  float *p = ct_blob_mutable_cpu_data (blob, &local);

  if (p == NULL && local != NULL)
    wrap (layer, local, error);
  return p;
}

const float *
ct_neuron_diff (const CtLayer *layer, CtBlob *blob, GError **error)
{
  GError *local = NULL;
  const float *p = ct_blob_cpu_diff (blob, &local);

  if (p == NULL && local != NULL)
    wrap (layer, local, error);
  return p;
}

float *
ct_neuron_mutable_diff (const CtLayer *layer, CtBlob *blob, GError **error)
{
  GError *local = NULL;
  float *p = ct_blob_mutable_cpu_diff (blob, &local);

  if (p == NULL && local != NULL)
    wrap (layer, local, error);
  return p;
}

/* An empty blob may have no memory at all; kernels never touch it then. */
#define FETCH(expr, count) (((expr) != NULL) || (count) == 0)

gboolean
ct_neuron_forward_arrays (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                          gint64 *count, const float **x, float **y, GError **error)
{
  CtBlob *b = CT_BOTTOM (bottom, 0), *t = CT_TOP (top, 0);

  *count = ct_blob_count (b);
  if (!FETCH (*x = ct_neuron_data (layer, b, error), *count))
    return FALSE;
  if (!FETCH (*y = ct_neuron_mutable_data (layer, t, error), *count))
    return FALSE;
  return TRUE;
}

gboolean
ct_neuron_backward_arrays (CtLayer *layer, GPtrArray *top, GPtrArray *bottom,
                           gint64 *count, const float **x, const float **y,
                           const float **dy, float **dx, GError **error)
{
  CtBlob *b = CT_BOTTOM (bottom, 0), *t = CT_TOP (top, 0);

  *count = ct_blob_count (b);
  if (!FETCH (*x = ct_neuron_data (layer, b, error), *count)
      || !FETCH (*y = ct_neuron_data (layer, t, error), *count)
      || !FETCH (*dy = ct_neuron_diff (layer, t, error), *count)
      || !FETCH (*dx = ct_neuron_mutable_diff (layer, b, error), *count))
    return FALSE;
  return TRUE;
}

gboolean
ct_neuron_check (const CtLayer *layer, CtStatus status, GError **error)
{
  GError *local = NULL;

  if (ct_engine_check_status (status, _("computing the layer"), &local))
    return TRUE;
  return wrap (layer, local, error);
}

gboolean
ct_neuron_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const CtNeuronKernels *k = layer->klass->type_data;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays (layer, bottom, top, &n, &x, &y, error))
    return FALSE;
  return ct_neuron_check (layer,
                          k->forward != NULL
                          ? k->forward (n, x, y)
                          : k->forward_with (CT_NEURON_PARAMS (layer), n, x, y),
                          error);
}

gboolean
ct_neuron_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                    GPtrArray *bottom, GError **error)
{
  const CtNeuronKernels *k = layer->klass->type_data;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays (layer, top, bottom, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  return ct_neuron_check (layer,
                          k->backward != NULL
                          ? k->backward (n, k->backward_reads_top ? y : x, dy, dx)
                          : k->backward_with (CT_NEURON_PARAMS (layer), n, x, y, dy, dx),
                          error);
}
