/* lstm.c: LSTM, Caffe's long short-term memory layer, computed by an
 * unrolled inner net (recurrent-base.c). For t = 1..T the gate inputs
 *
 *   g_t = W_hc (cont_t h_{t-1}) + W_xc x_t + b_c [+ W_xc_static x_static]
 *
 * (4 x num_output wide: input, forget, output gates and the candidate) go
 * to an LSTMUnit, which computes c_t and h_t from c_{t-1}; the top is
 * h = [h_1; ...; h_T] (T x N x num_output). The parameters, in Caffe's
 * order: W_xc, b_c, [W_xc_static], W_hc. */
#include <glib/gi18n-lib.h>

#include "recurrent-private.h"

static const char *const lstm_recur_inputs[] = { "h_0", "c_0" };

static char *
lstm_recur_output_name (const CtRecurrentLayer *self, guint i)
{
  return i == 0 ? g_strdup_printf ("h_%" G_GINT64_FORMAT, self->T) : g_strdup ("c_T");
}

static void
append_gate_transform (GString *text, const CtRecurrentLayer *self, const char *prefix,
                       const char *name, const char *bottom, const char *top,
                       const char *params, gboolean bias, int axis, gboolean propagate_down)
{
  const Caffe__RecurrentParameter *p = self->parent.param->recurrent_param;

  g_string_append_printf (text, "layer { name: \"%s%s\" type: \"InnerProduct\" bottom: \"%s\" "
                          "top: \"%s\" %s%s inner_product_param { num_output: %u "
                          "bias_term: %s axis: %d", prefix, name, bottom, top, params,
                          propagate_down ? " propagate_down: true" : "",
                          4 * self->num_output, bias ? "true" : "false", axis);
  ct_recurrent_append_filler (text, "weight_filler", p->weight_filler);
  if (bias)
    ct_recurrent_append_filler (text, "bias_filler", p->bias_filler);
  g_string_append (text, " } }\n");
}

static void
lstm_write_unrolled (const CtRecurrentLayer *self, GString *text)
{
  g_autofree char *prefix = ct_recurrent_prefix (self);

  g_string_append_printf (text, "layer { name: \"%s\" type: \"Input\" top: \"c_0\" top: \"h_0\" "
                          "input_param { shape { dim: 1 dim: %" G_GINT64_FORMAT " dim: %u } "
                          "shape { dim: 1 dim: %" G_GINT64_FORMAT " dim: %u } } }\n",
                          prefix, self->N, self->num_output, self->N, self->num_output);
  g_string_append_printf (text, "layer { name: \"%scont_slice\" type: \"Slice\" "
                          "bottom: \"cont\"", prefix);
  for (gint64 t = 1; t <= self->T; t++)
    g_string_append_printf (text, " top: \"cont_%" G_GINT64_FORMAT "\"", t);
  g_string_append (text, " slice_param { axis: 0 } }\n");

  append_gate_transform (text, self, prefix, "x_transform", "x", "W_xc_x",
                         "param { name: \"W_xc\" } param { name: \"b_c\" }", TRUE, 2, TRUE);
  if (self->static_input)
    {
      append_gate_transform (text, self, prefix, "W_xc_x_static", "x_static",
                             "W_xc_x_static_preshape", "param { name: \"W_xc_static\" }",
                             FALSE, 1, TRUE);
      g_string_append_printf (text, "layer { name: \"%sW_xc_x_static_reshape\" "
                              "type: \"Reshape\" bottom: \"W_xc_x_static_preshape\" "
                              "top: \"W_xc_x_static\" reshape_param { shape { dim: 1 "
                              "dim: -1 dim: %u } } }\n", prefix, 4 * self->num_output);
    }
  g_string_append_printf (text, "layer { name: \"%sW_xc_x_slice\" type: \"Slice\" "
                          "bottom: \"W_xc_x\"", prefix);
  for (gint64 t = 1; t <= self->T; t++)
    g_string_append_printf (text, " top: \"W_xc_x_%" G_GINT64_FORMAT "\"", t);
  g_string_append (text, " slice_param { axis: 0 } }\n");

  for (gint64 t = 1; t <= self->T; t++)
    {
      g_autofree char *name = g_strdup_printf ("transform_%" G_GINT64_FORMAT, t);
      g_autofree char *bottom = g_strdup_printf ("h_conted_%" G_GINT64_FORMAT, t - 1);
      g_autofree char *top = g_strdup_printf ("W_hc_h_%" G_GINT64_FORMAT, t - 1);

      g_string_append_printf (text, "layer { name: \"%sh_conted_%" G_GINT64_FORMAT "\" "
                              "type: \"Scale\" bottom: \"h_%" G_GINT64_FORMAT "\" "
                              "bottom: \"cont_%" G_GINT64_FORMAT "\" top: \"h_conted_%"
                              G_GINT64_FORMAT "\" scale_param { axis: 0 } }\n",
                              prefix, t - 1, t - 1, t, t - 1);
      append_gate_transform (text, self, prefix, name, bottom, top, "param { name: \"W_hc\" }",
                             FALSE, 2, FALSE);
      g_string_append_printf (text, "layer { name: \"%sgate_input_%" G_GINT64_FORMAT "\" "
                              "type: \"Eltwise\" bottom: \"W_hc_h_%" G_GINT64_FORMAT "\" "
                              "bottom: \"W_xc_x_%" G_GINT64_FORMAT "\"%s "
                              "top: \"gate_input_%" G_GINT64_FORMAT "\" eltwise_param "
                              "{ operation: SUM } }\n", prefix, t, t - 1, t,
                              self->static_input ? " bottom: \"W_xc_x_static\"" : "", t);
      g_string_append_printf (text, "layer { name: \"%sunit_%" G_GINT64_FORMAT "\" "
                              "type: \"LSTMUnit\" bottom: \"c_%" G_GINT64_FORMAT "\" "
                              "bottom: \"gate_input_%" G_GINT64_FORMAT "\" "
                              "bottom: \"cont_%" G_GINT64_FORMAT "\" top: \"c_%"
                              G_GINT64_FORMAT "\" top: \"h_%" G_GINT64_FORMAT "\" }\n",
                              prefix, t, t - 1, t, t, t, t);
    }
  /* c_T under a fixed name, whatever T is. */
  g_string_append_printf (text, "layer { name: \"%s\" type: \"Split\" bottom: \"c_%"
                          G_GINT64_FORMAT "\" top: \"c_T\" }\n", prefix, self->T);
  ct_recurrent_append_concat (text, prefix, "h", self->T);
}

static const CtRecurrentOps lstm_ops = {
  .n_recur = 2,
  .recur_inputs = lstm_recur_inputs,
  .recur_output_name = lstm_recur_output_name,
  .output = "h",
  .write_unrolled = lstm_write_unrolled,
};

static const CtLayerExplanation lstm_explanation = {
  .summary = N_("A long short-term memory layer run over T time steps: LSTM cells whose "
                "gated cell state keeps information for long spans."),
  .formula = N_("gates = W_x x_t + W_h h_{t−1} + b;  c_t, h_t as LSTMUnit"),
  .parameters = N_("num_output: the cell's size; weight_filler, bias_filler; expose_hidden."),
  .gradient = N_("Backward runs through time; the gated cell state lets the gradient "
                 "travel far without vanishing."),
};

const CtLayerClass ct_lstm_layer_class = {
  .explanation = &lstm_explanation,
  .type = "LSTM",
  .family = CT_LAYER_FAMILY_RECURRENT,
  .description = N_("Long short-term memory over T timesteps, with gated cell state"),
  .instance_size = sizeof (CtRecurrentLayer),
  .bottoms = CT_BETWEEN (2, 5),
  .tops = CT_BETWEEN (1, 3),
  .setup = ct_recurrent_setup,
  .reshape = ct_recurrent_reshape,
  .forward = ct_recurrent_forward,
  .backward = ct_recurrent_backward,
  .allow_force_backward = ct_recurrent_allow_force_backward,
  .finalize = ct_recurrent_finalize,
  .type_data = &lstm_ops,
  .new_layer_text = "recurrent_param { num_output: 32 weight_filler { type: \"xavier\" } }",
  .param_field = "recurrent_param",
};
