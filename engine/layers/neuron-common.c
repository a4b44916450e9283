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

/* The blob accessors, each in its CPU and GPU form. */
#define ACCESSOR(type, name, getter_on)                                               \
  type ct_neuron_##name##_on (const CtLayer *layer, CtBlob *blob, gboolean gpu,       \
                              GError **error)                                         \
  {                                                                                   \
    GError *local = NULL;                                                             \
    type p = getter_on (blob, gpu, &local);                                           \
                                                                                      \
    if (p == NULL && local != NULL)                                                   \
      wrap (layer, local, error);                                                     \
    return p;                                                                         \
  }                                                                                   \
  type ct_neuron_##name (const CtLayer *layer, CtBlob *blob, GError **error)          \
  {                                                                                   \
    return ct_neuron_##name##_on (layer, blob, FALSE, error);                         \
  }

ACCESSOR (const float *, data, ct_blob_data_on)
ACCESSOR (float *, mutable_data, ct_blob_mutable_data_on)
ACCESSOR (const float *, diff, ct_blob_diff_on)
ACCESSOR (float *, mutable_diff, ct_blob_mutable_diff_on)

/* An empty blob may have no memory at all; kernels never touch it then. */
#define FETCH(expr, count) (((expr) != NULL) || (count) == 0)

gboolean
ct_neuron_forward_arrays_on (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                             gint64 *count, const float **x, float **y, GError **error)
{
  CtBlob *b = CT_BOTTOM (bottom, 0), *t = CT_TOP (top, 0);

  *count = ct_blob_count (b);
  if (!FETCH (*x = ct_neuron_data_on (layer, b, gpu, error), *count))
    return FALSE;
  if (!FETCH (*y = ct_neuron_mutable_data_on (layer, t, gpu, error), *count))
    return FALSE;
  return TRUE;
}

gboolean
ct_neuron_forward_arrays (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                          gint64 *count, const float **x, float **y, GError **error)
{
  return ct_neuron_forward_arrays_on (layer, bottom, top, FALSE, count, x, y, error);
}

gboolean
ct_neuron_backward_arrays_on (CtLayer *layer, GPtrArray *top, GPtrArray *bottom,
                              gboolean gpu, gint64 *count, const float **x, const float **y,
                              const float **dy, float **dx, GError **error)
{
  CtBlob *b = CT_BOTTOM (bottom, 0), *t = CT_TOP (top, 0);

  *count = ct_blob_count (b);
  if (!FETCH (*x = ct_neuron_data_on (layer, b, gpu, error), *count)
      || !FETCH (*y = ct_neuron_data_on (layer, t, gpu, error), *count)
      || !FETCH (*dy = ct_neuron_diff_on (layer, t, gpu, error), *count)
      || !FETCH (*dx = ct_neuron_mutable_diff_on (layer, b, gpu, error), *count))
    return FALSE;
  return TRUE;
}

gboolean
ct_neuron_backward_arrays (CtLayer *layer, GPtrArray *top, GPtrArray *bottom,
                           gint64 *count, const float **x, const float **y,
                           const float **dy, float **dx, GError **error)
{
  return ct_neuron_backward_arrays_on (layer, top, bottom, FALSE, count, x, y, dy, dx, error);
}

gboolean
ct_neuron_check (const CtLayer *layer, CtStatus status, GError **error)
{
  GError *local = NULL;

  if (ct_engine_check_status (status, _("computing the layer"), &local))
    return TRUE;
  return wrap (layer, local, error);
}

/* Runs the plain kernel or the one with the type's parameters, on GPU or
 * CPU. A type without a GPU twin never gets here on the GPU: its class
 * says it has no GPU passes then. */
gboolean
ct_neuron_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                   GError **error)
{
  const CtNeuronKernels *k = layer->klass->type_data;
  const float *x;
  float *y;
  gint64 n;

  if (!ct_neuron_forward_arrays_on (layer, bottom, top, gpu, &n, &x, &y, error))
    return FALSE;
  if (k->forward_with != NULL)
    return ct_neuron_check (layer, k->forward_with (CT_NEURON_PARAMS (layer), gpu, n, x, y),
                            error);
  return ct_neuron_check (layer, (gpu ? k->forward_gpu : k->forward) (n, x, y), error);
}

gboolean
ct_neuron_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                    GPtrArray *bottom, gboolean gpu, GError **error)
{
  const CtNeuronKernels *k = layer->klass->type_data;
  const float *x, *y, *dy;
  float *dx;
  gint64 n;

  if (!propagate_down[0])
    return TRUE;
  if (!ct_neuron_backward_arrays_on (layer, top, bottom, gpu, &n, &x, &y, &dy, &dx, error))
    return FALSE;
  if (k->backward_with != NULL)
    return ct_neuron_check (layer, k->backward_with (CT_NEURON_PARAMS (layer), gpu, n, x, y,
                                                     dy, dx), error);
  return ct_neuron_check (layer, (gpu ? k->backward_gpu : k->backward)
                                   (n, k->backward_reads_top ? y : x, dy, dx), error);
}
