/* rnn.c: RNN, Caffe's simple recurrent layer, computed by an unrolled
 * inner net (recurrent-base.c). For t = 1..T:
 *
 *   h_t = tanh (W_hh (cont_t h_{t-1}) + W_xh x_t + b_h [+ W_xh_static x_static])
 *   o_t = tanh (W_ho h_t + b_o)
 *
 * and the top is o = [o_1; ...; o_T] (T x N x num_output). The parameters,
 * in Caffe's order: W_xh, b_h, [W_xh_static], W_hh, W_ho, b_o. */
#include <glib/gi18n-lib.h>

#include "recurrent-private.h"

static const char *const rnn_recur_inputs[] = { "h_0" };

static char *
rnn_recur_output_name (const CtRecurrentLayer *self, guint i)
{
  return g_strdup_printf ("h_%" G_GINT64_FORMAT, self->T);
}

/* An InnerProduct over axis AXIS with shared parameters named PARAMS. */
static void
append_inner_product (GString *text, const CtRecurrentLayer *self, const char *prefix,
                      const char *name, const char *bottom, const char *top,
                      const char *const *params, gboolean bias, int axis,
                      gboolean propagate_down)
{
  const Caffe__RecurrentParameter *p = self->parent.param->recurrent_param;

  g_string_append_printf (text, "layer { name: \"%s%s\" type: \"InnerProduct\" "
                          "bottom: \"%s\" top: \"%s\"", prefix, name, bottom, top);
  for (guint i = 0; params[i] != NULL; i++)
    g_string_append_printf (text, " param { name: \"%s\" }", params[i]);
  if (propagate_down)
    g_string_append (text, " propagate_down: true");
  g_string_append_printf (text, " inner_product_param { num_output: %u bias_term: %s axis: %d",
                          self->num_output, bias ? "true" : "false", axis);
  ct_recurrent_append_filler (text, "weight_filler", p->weight_filler);
  if (bias)
    ct_recurrent_append_filler (text, "bias_filler", p->bias_filler);
  g_string_append (text, " } }\n");
}

static void
rnn_write_unrolled (const CtRecurrentLayer *self, GString *text)
{
  g_autofree char *prefix = ct_recurrent_prefix (self);
  const char *const x_params[] = { "W_xh", "b_h", NULL };
  const char *const static_params[] = { "W_xh_static", NULL };
  const char *const hh_params[] = { "W_hh", NULL };
  const char *const ho_params[] = { "W_ho", "b_o", NULL };

  g_string_append_printf (text, "layer { name: \"%s\" type: \"Input\" top: \"h_0\" input_param "
                          "{ shape { dim: 1 dim: %" G_GINT64_FORMAT " dim: %u } } }\n",
                          prefix, self->N, self->num_output);
  g_string_append_printf (text, "layer { name: \"%scont_slice\" type: \"Slice\" "
                          "bottom: \"cont\"", prefix);
  for (gint64 t = 1; t <= self->T; t++)
    g_string_append_printf (text, " top: \"cont_%" G_GINT64_FORMAT "\"", t);
  g_string_append (text, " slice_param { axis: 0 } }\n");

  append_inner_product (text, self, prefix, "x_transform", "x", "W_xh_x", x_params, TRUE, 2,
                        TRUE);
  if (self->static_input)
    {
      append_inner_product (text, self, prefix, "W_xh_x_static", "x_static",
                            "W_xh_x_static_preshape", static_params, FALSE, 1, TRUE);
      g_string_append_printf (text, "layer { name: \"%sW_xh_x_static_reshape\" "
                              "type: \"Reshape\" bottom: \"W_xh_x_static_preshape\" "
                              "top: \"W_xh_x_static\" reshape_param { shape { dim: 1 "
                              "dim: -1 dim: %u } } }\n", prefix, self->num_output);
    }
  g_string_append_printf (text, "layer { name: \"%sW_xh_x_slice\" type: \"Slice\" "
                          "bottom: \"W_xh_x\"", prefix);
  for (gint64 t = 1; t <= self->T; t++)
    g_string_append_printf (text, " top: \"W_xh_x_%" G_GINT64_FORMAT "\"", t);
  g_string_append (text, " slice_param { axis: 0 } }\n");

  for (gint64 t = 1; t <= self->T; t++)
    {
      g_autofree char *name = NULL, *bottom = NULL;

      /* h_conted_{t-1} = cont_t * h_{t-1}: the state restarts where cont is 0. */
      g_string_append_printf (text, "layer { name: \"%sh_conted_%" G_GINT64_FORMAT "\" "
                              "type: \"Scale\" bottom: \"h_%" G_GINT64_FORMAT "\" "
                              "bottom: \"cont_%" G_GINT64_FORMAT "\" top: \"h_conted_%"
                              G_GINT64_FORMAT "\" scale_param { axis: 0 } }\n",
                              prefix, t - 1, t - 1, t, t - 1);
      name = g_strdup_printf ("W_hh_h_%" G_GINT64_FORMAT, t - 1);
      bottom = g_strdup_printf ("h_conted_%" G_GINT64_FORMAT, t - 1);
      append_inner_product (text, self, prefix, name, bottom, name, hh_params, FALSE, 2, FALSE);
      g_string_append_printf (text, "layer { name: \"%sh_input_sum_%" G_GINT64_FORMAT "\" "
                              "type: \"Eltwise\" bottom: \"W_hh_h_%" G_GINT64_FORMAT "\" "
                              "bottom: \"W_xh_x_%" G_GINT64_FORMAT "\"%s top: "
                              "\"h_neuron_input_%" G_GINT64_FORMAT "\" eltwise_param "
                              "{ operation: SUM } }\n", prefix, t, t - 1, t,
                              self->static_input ? " bottom: \"W_xh_x_static\"" : "", t);
      g_string_append_printf (text, "layer { name: \"%sh_neuron_%" G_GINT64_FORMAT "\" "
                              "type: \"TanH\" bottom: \"h_neuron_input_%" G_GINT64_FORMAT "\" "
                              "top: \"h_%" G_GINT64_FORMAT "\" }\n", prefix, t, t, t);
      g_free (name);
      g_free (bottom);
      name = g_strdup_printf ("W_ho_h_%" G_GINT64_FORMAT, t);
      bottom = g_strdup_printf ("h_%" G_GINT64_FORMAT, t);
      append_inner_product (text, self, prefix, name, bottom, name, ho_params, TRUE, 2, FALSE);
      g_string_append_printf (text, "layer { name: \"%so_neuron_%" G_GINT64_FORMAT "\" "
                              "type: \"TanH\" bottom: \"W_ho_h_%" G_GINT64_FORMAT "\" "
                              "top: \"o_%" G_GINT64_FORMAT "\" }\n", prefix, t, t, t);
    }
  ct_recurrent_append_concat (text, prefix, "o", self->T);
}

static const CtRecurrentOps rnn_ops = {
  .n_recur = 1,
  .recur_inputs = rnn_recur_inputs,
  .recur_output_name = rnn_recur_output_name,
  .output = "o",
  .write_unrolled = rnn_write_unrolled,
};

static const CtLayerExplanation rnn_explanation = {
  .summary = N_("A simple recurrent layer run over T time steps: the hidden state mixes "
                "the new input with the previous state through tanh."),
  .formula = N_("h_t = tanh(W_xh x_t + W_hh h_{t−1} + b_h);  o_t = tanh(W_ho h_t + "
                "b_o)"),
  .parameters = N_("num_output: the hidden state's size; weight_filler, bias_filler; "
                   "expose_hidden."),
  .gradient = N_("Backward runs through time: each step's diff flows into the previous one "
                 "through W_hh, and can vanish or explode over long sequences."),
};

const CtLayerClass ct_rnn_layer_class = {
  .explanation = &rnn_explanation,
  .type = "RNN",
  .family = CT_LAYER_FAMILY_RECURRENT,
  .description = N_("Simple recurrent layer over T timesteps: tanh hidden state and tanh output"),
  .instance_size = sizeof (CtRecurrentLayer),
  .bottoms = CT_BETWEEN (2, 4),
  .tops = CT_BETWEEN (1, 2),
  .setup = ct_recurrent_setup,
  .reshape = ct_recurrent_reshape,
  .forward = ct_recurrent_forward,
  .backward = ct_recurrent_backward,
  .allow_force_backward = ct_recurrent_allow_force_backward,
  .finalize = ct_recurrent_finalize,
  .type_data = &rnn_ops,
  .new_layer_text = "recurrent_param { num_output: 32 weight_filler { type: \"xavier\" } }",
  .param_field = "recurrent_param",
};
