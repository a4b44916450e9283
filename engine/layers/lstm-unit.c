/* lstm-unit.c: LSTMUnit, one time step of LSTM cells, the building block
 * the LSTM layer unrolls. Bottoms: the previous cell state c_prev
 * (1 x N x D), the gate pre-activations x (1 x N x 4D: input, forget,
 * output, candidate) and the continuation indicators (1 x N; 0 starts a new
 * sequence). Tops: the cell state c and the hidden state h (1 x N x D). No
 * gradient goes to the indicators. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "engine-error.h"
#include "recurrent.h"

typedef struct {
  CtLayer parent;
  gint64 num, hidden;
} CtLstmUnitLayer;

static gboolean
lstm_unit_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtLstmUnitLayer *self = (CtLstmUnitLayer *) layer;
  CtBlob *c_prev = CT_BOTTOM (bottom, 0), *x = CT_BOTTOM (bottom, 1);
  gboolean ok = ct_blob_num_axes (c_prev) == 3 && ct_blob_num_axes (x) == 3
                && ct_blob_num_axes (CT_BOTTOM (bottom, 2)) == 2;

  for (guint i = 0; ok && i < 3; i++)
    {
      const gint64 *shape = ct_blob_get_shape (CT_BOTTOM (bottom, i));

      ok = shape[0] == 1 && shape[1] == ct_blob_get_shape (c_prev)[1];
    }
  if (ok)
    ok = ct_blob_get_shape (x)[2] == 4 * ct_blob_get_shape (c_prev)[2];
  if (!ok)
    {
      g_autofree char *cs = ct_blob_shape_string (c_prev);
      g_autofree char *xs = ct_blob_shape_string (x);
      g_autofree char *is = ct_blob_shape_string (CT_BOTTOM (bottom, 2));

      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                            _("needs bottoms of shapes 1 x N x D (previous cell), "
                              "1 x N x 4D (gates) and 1 x N (continuation), got %s, %s and %s"),
                            cs, xs, is);
    }
  self->num = ct_blob_get_shape (c_prev)[1];
  self->hidden = ct_blob_get_shape (c_prev)[2];
  return ct_blob_reshape_like (CT_TOP (top, 0), c_prev, error)
         && ct_blob_reshape_like (CT_TOP (top, 1), c_prev, error);
}

static gboolean
lstm_unit_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                   GError **error)
{
  CtLstmUnitLayer *self = (CtLstmUnitLayer *) layer;
  const float *c_prev, *x, *cont;
  float *c, *h;

  if ((c_prev = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (x = ct_blob_data_on (CT_BOTTOM (bottom, 1), gpu, error)) == NULL
      || (cont = ct_blob_data_on (CT_BOTTOM (bottom, 2), gpu, error)) == NULL
      || (c = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (h = ct_blob_mutable_data_on (CT_TOP (top, 1), gpu, error)) == NULL)
    return FALSE;
  return ct_engine_check_status ((gpu ? ct_cuda_lstm_unit_forward : ct_cpu_lstm_unit_forward) (
                                     self->num, self->hidden, c_prev, x, cont, c, h),
                                 _("Computing an LSTM step"), error);
}

static gboolean
lstm_unit_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                    GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtLstmUnitLayer *self = (CtLstmUnitLayer *) layer;
  const float *c_prev, *x, *cont, *c, *dc, *dh;
  float *dc_prev, *dx;

  if (propagate_down[2])
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("cannot backpropagate to the sequence continuation indicators"));
  if (!propagate_down[0] && !propagate_down[1])
    return TRUE;
  /* As Caffe, both bottom diffs are written once either is wanted. */
  if ((c_prev = ct_blob_data_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (x = ct_blob_data_on (CT_BOTTOM (bottom, 1), gpu, error)) == NULL
      || (cont = ct_blob_data_on (CT_BOTTOM (bottom, 2), gpu, error)) == NULL
      || (c = ct_blob_data_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (dc = ct_blob_diff_on (CT_TOP (top, 0), gpu, error)) == NULL
      || (dh = ct_blob_diff_on (CT_TOP (top, 1), gpu, error)) == NULL
      || (dc_prev = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 0), gpu, error)) == NULL
      || (dx = ct_blob_mutable_diff_on (CT_BOTTOM (bottom, 1), gpu, error)) == NULL)
    return FALSE;
  return ct_engine_check_status ((gpu ? ct_cuda_lstm_unit_backward : ct_cpu_lstm_unit_backward) (
                                     self->num, self->hidden, c_prev, x, cont, c, dc, dh, dc_prev,
                                     dx),
                                 _("Computing an LSTM step's gradient"), error);
}

static gboolean
lstm_unit_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return bottom_index != 2;
}

static const CtLayerExplanation lstm_unit_explanation = {
  .summary = N_("One time step of LSTM cells: the gates decide how much of the old cell "
                "state to keep, how much of the new input to write, and how much of the "
                "cell to show as the hidden state."),
  .formula = N_("c = σ(f) · c_prev + σ(i) · tanh(g);  h = σ(o) · tanh(c)"),
  .parameters = N_("None; the gates come from the bottoms."),
  .gradient = N_("The diffs flow through each gate; the cell state's path through σ(f) "
                 "carries the gradient across time steps."),
};

const CtLayerClass ct_lstm_unit_layer_class = {
  .explanation = &lstm_unit_explanation,
  .type = "LSTMUnit",
  .family = CT_LAYER_FAMILY_RECURRENT,
  .description = N_("One time step of LSTM cells: cell and hidden state from the gates"),
  .instance_size = sizeof (CtLstmUnitLayer),
  .bottoms = CT_EXACTLY (3),
  .tops = CT_EXACTLY (2),
  .reshape = lstm_unit_reshape,
  .forward = lstm_unit_forward,
  .backward = lstm_unit_backward,
  .allow_force_backward = lstm_unit_allow_force_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
};
