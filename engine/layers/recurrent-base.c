/* recurrent-base.c: the machinery RNN and LSTM share (see
 * recurrent-private.h), following Caffe's RecurrentLayer.
 *
 * Setup writes the unrolled net as prototxt (an Input layer for x, cont
 * and x_static, the type's layers, and a Reduction "pseudo-loss" with loss
 * weight 1 on each output so that the inner net computes every gradient,
 * though the pseudo-losses themselves never run), builds it, and takes the
 * parameters the inner net owns as the layer's own blobs (sharing their
 * memory). Reshape points the inner inputs at the bottoms' memory and the
 * tops at the inner outputs'. Forward first copies the state at t = T into
 * t = 0 (unless the hidden state is exposed as bottoms and tops), so that a
 * sequence can continue across batches where cont says so. */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "recurrent-private.h"
#include "engine-error.h"
#include "text-format.h"

/* TEXT with the characters a prototxt string literal escapes escaped. */
static char *
escape (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (out, '\\');
      if (*p == '\n')
        g_string_append (out, "\\n");
      else
        g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

char *
ct_recurrent_prefix (const CtRecurrentLayer *self)
{
  const char *name = ct_layer_get_name (&self->parent);
  g_autofree char *escaped = escape (name);

  return name[0] != '\0' ? g_strconcat (escaped, "_", NULL) : g_strdup ("");
}

void
ct_recurrent_append_filler (GString *text, const char *field,
                            const Caffe__FillerParameter *filler)
{
  g_autofree char *body = NULL;

  if (filler == NULL)
    return;
  body = ct_text_print (&filler->base);
  g_string_append_printf (text, " %s { %s }", field, body);
}

static void
append_shape (GString *text, CtBlob *blob)
{
  g_string_append (text, " shape {");
  for (guint a = 0; a < ct_blob_num_axes (blob); a++)
    g_string_append_printf (text, " dim: %" G_GINT64_FORMAT, ct_blob_get_shape (blob)[a]);
  g_string_append (text, " }");
}

/* Prefix every layer name with this layer's, as Caffe does, then add the
 * pseudo-losses (not prefixed). */
static Caffe__NetParameter *
unrolled_param (CtRecurrentLayer *self, GPtrArray *bottom, GError **error)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *prefix = ct_recurrent_prefix (self);
  g_autofree char *pseudo = g_strconcat (self->ops->output, "_pseudoloss", NULL);
  g_autoptr (GError) local = NULL;
  ProtobufCMessage *msg;

  g_string_append_printf (text, "layer { name: \"%s\" type: \"Input\" top: \"x\" "
                          "top: \"cont\"", prefix);
  if (self->static_input)
    g_string_append (text, " top: \"x_static\"");
  g_string_append (text, " input_param {");
  append_shape (text, CT_BOTTOM (bottom, 0));
  append_shape (text, CT_BOTTOM (bottom, 1));
  if (self->static_input)
    append_shape (text, CT_BOTTOM (bottom, 2));
  g_string_append (text, " } }\n");

  self->ops->write_unrolled (self, text);

  g_string_append_printf (text, "layer { name: \"%s\" type: \"Reduction\" bottom: \"%s\" "
                          "top: \"%s\" loss_weight: 1 }\n", pseudo, self->ops->output, pseudo);

  msg = ct_text_parse (&caffe__net_parameter__descriptor, text->str, (gssize) text->len,
                       "<unrolled>", CT_TEXT_STRICT, &local);
  if (msg == NULL)
    {
      ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_PROTO,
                     _("its unrolled net could not be written: %s"), local->message);
      return NULL;
    }
  return (Caffe__NetParameter *) msg;
}

static CtBlob *
inner_blob (CtRecurrentLayer *self, const char *name, GError **error)
{
  CtBlob *blob = ct_net_blob_by_name (self->unrolled, name);

  if (blob == NULL)
    ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_INVALID,
                   _("its unrolled net has no blob '%s'"), name);
  return blob;
}

static gboolean
check_counts (CtRecurrentLayer *self, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  guint exposed = self->expose_hidden ? self->ops->n_recur : 0;
  guint min_bottoms = 2 + exposed;

  if (bottom->len < min_bottoms || bottom->len > min_bottoms + 1)
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_SHAPE,
                          _("takes %u or %u bottoms (x, cont, optionally x_static%s), got %u"),
                          min_bottoms, min_bottoms + 1,
                          self->expose_hidden ? _(", then the initial states") : "",
                          bottom->len);
  if (top->len != 1 + exposed)
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE, "takes %u top, got %u", "takes %u tops, got %u",
                                       1 + exposed),
                          1 + exposed, top->len);
  return TRUE;
}

/* x: T x N x ...; cont: T x N; x_static: N x .... */
static gboolean
check_inputs (CtRecurrentLayer *self, GPtrArray *bottom, gboolean first, GError **error)
{
  CtBlob *x = CT_BOTTOM (bottom, 0), *cont = CT_BOTTOM (bottom, 1);
  const gint64 *xs = ct_blob_get_shape (x), *cs = ct_blob_get_shape (cont);

  if (ct_blob_num_axes (x) < 2)
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_SHAPE,
                          _("bottom 0 needs at least 2 axes (timesteps, streams, ...)"));
  if (first)
    self->T = xs[0];
  else if (xs[0] != self->T)
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_SHAPE,
                          _("the number of timesteps changed from %" PRId64
                            " to %" PRId64), self->T, xs[0]);
  self->N = xs[1];
  if (ct_blob_num_axes (cont) != 2 || cs[0] != self->T || cs[1] != self->N)
    {
      g_autofree char *shape = ct_blob_shape_string (cont);
      return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_SHAPE,
                            _("bottom 1 (cont) must be %" PRId64 " x %"
                              PRId64 " (timesteps x streams), not %s"),
                            self->T, self->N, shape);
    }
  if (self->static_input)
    {
      CtBlob *xs_blob = CT_BOTTOM (bottom, 2);

      if (ct_blob_num_axes (xs_blob) < 1 || ct_blob_get_shape (xs_blob)[0] != self->N)
        return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_SHAPE,
                              g_dngettext (GETTEXT_PACKAGE,
                                           "bottom 2 (x_static) must have %" PRId64
                                           " stream on its first axis",
                                           "bottom 2 (x_static) must have %" PRId64
                                           " streams on its first axis", self->N),
                              self->N);
    }
  if (self->T < 1)
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_SHAPE,
                          _("needs at least one timestep"));
  return TRUE;
}

static gboolean
find_inner_blobs (CtRecurrentLayer *self, GError **error)
{
  self->recur_input_blobs = g_ptr_array_new ();
  self->recur_output_blobs = g_ptr_array_new ();
  if ((self->x_input = inner_blob (self, "x", error)) == NULL ||
      (self->cont_input = inner_blob (self, "cont", error)) == NULL ||
      (self->output_blob = inner_blob (self, self->ops->output, error)) == NULL)
    return FALSE;
  if (self->static_input && (self->x_static_input = inner_blob (self, "x_static", error)) == NULL)
    return FALSE;
  for (guint i = 0; i < self->ops->n_recur; i++)
    {
      g_autofree char *out_name = self->ops->recur_output_name (self, i);
      CtBlob *in = inner_blob (self, self->ops->recur_inputs[i], error);
      CtBlob *out = in != NULL ? inner_blob (self, out_name, error) : NULL;

      if (out == NULL)
        return FALSE;
      g_ptr_array_add (self->recur_input_blobs, in);
      g_ptr_array_add (self->recur_output_blobs, out);
    }
  return TRUE;
}

/* The layer's parameters are those the inner net owns (not the shared
 * copies), as blobs of the layer that share their memory. */
static gboolean
adopt_parameters (CtRecurrentLayer *self, GError **error)
{
  CtLayer *layer = &self->parent;

  g_ptr_array_set_size (layer->blobs, 0);
  g_array_set_size (layer->param_propagate_down, 0);
  self->inner_owners = g_ptr_array_new ();
  for (guint i = 0; i < ct_net_n_params (self->unrolled); i++)
    {
      CtBlob *inner = ct_net_get_param_blob (self->unrolled, i);
      g_autoptr (CtBlob) mine = NULL;
      g_autoptr (GError) local = NULL;

      if (ct_net_get_param_owner (self->unrolled, i) != -1)
        continue;
      mine = ct_blob_new_with_shape (ct_blob_get_shape (inner), ct_blob_num_axes (inner),
                                     &local);
      if (mine == NULL || !ct_blob_share_data (mine, inner, &local) ||
          !ct_blob_share_diff (mine, inner, &local))
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, "%s", local->message);
      g_ptr_array_add (self->inner_owners, inner);
      g_ptr_array_add (layer->blobs, g_steal_pointer (&mine));
      ct_layer_set_param_propagate_down (layer, layer->blobs->len - 1, TRUE);
    }
  return TRUE;
}

gboolean
ct_recurrent_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtRecurrentLayer *self = (CtRecurrentLayer *) layer;
  const Caffe__RecurrentParameter *p = layer->param->recurrent_param;
  Caffe__NetParameter *param;
  g_autoptr (GError) local = NULL;
  guint n_layers;

  self->ops = layer->klass->type_data;
  self->expose_hidden = p != NULL && p->expose_hidden;
  self->num_output = p != NULL ? p->num_output : 0;
  if (self->num_output == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("recurrent_param.num_output must be positive"));
  if (!check_counts (self, bottom, top, error))
    return FALSE;
  self->static_input = bottom->len > 2 + (self->expose_hidden ? self->ops->n_recur : 0);
  if (!check_inputs (self, bottom, TRUE, error))
    return FALSE;

  param = unrolled_param (self, bottom, error);
  if (param == NULL)
    return FALSE;
  /* Caffe builds the unrolled net with a default NetState: TEST. */
  self->unrolled = ct_net_new (param, CAFFE__PHASE__TEST, 0, NULL, layer->seed, &local);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  if (self->unrolled == NULL)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("its unrolled net: %s"), local->message);
  if (!find_inner_blobs (self, error) || !adopt_parameters (self, error))
    return FALSE;

  /* No gradient flows across batches. */
  for (guint i = 0; i < self->recur_output_blobs->len; i++)
    {
      CtBlob *out = self->recur_output_blobs->pdata[i];
      float *diff = ct_blob_mutable_cpu_diff (out, &local);

      if (diff == NULL)
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_OUT_OF_MEMORY, "%s",
                              local->message);
      memset (diff, 0, (gsize) ct_blob_count (out) * sizeof (float));
    }
  /* The pseudo-loss is last; it never runs. */
  n_layers = ct_net_n_layers (self->unrolled);
  if (n_layers < 2 ||
      !g_str_has_suffix (ct_layer_get_name (ct_net_get_layer (self->unrolled, n_layers - 1)),
                         "_pseudoloss"))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("its unrolled net does not end with its pseudo-loss"));
  self->last_layer = n_layers - 2;
  return TRUE;
}

static gboolean
share (CtLayer *layer, CtBlob *blob, CtBlob *other, gboolean diff_too, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (!ct_blob_share_data (blob, other, &local) ||
      (diff_too && !ct_blob_share_diff (blob, other, &local)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
  return TRUE;
}

gboolean
ct_recurrent_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtRecurrentLayer *self = (CtRecurrentLayer *) layer;
  g_autoptr (GError) local = NULL;
  guint offset;

  if (!check_inputs (self, bottom, FALSE, error))
    return FALSE;
  if (!ct_blob_reshape_like (self->x_input, CT_BOTTOM (bottom, 0), &local) ||
      !ct_blob_reshape_like (self->cont_input, CT_BOTTOM (bottom, 1), &local) ||
      (self->static_input &&
       !ct_blob_reshape_like (self->x_static_input, CT_BOTTOM (bottom, 2), &local)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
  for (guint i = 0; i < self->recur_input_blobs->len; i++)
    if (!ct_blob_reshape (self->recur_input_blobs->pdata[i],
                          (const gint64[]) { 1, self->N, self->num_output }, 3, &local))
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
  if (!ct_net_reshape (self->unrolled, &local))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, _("its unrolled net: %s"),
                          local->message);

  if (!share (layer, self->x_input, CT_BOTTOM (bottom, 0), TRUE, error) ||
      !share (layer, self->cont_input, CT_BOTTOM (bottom, 1), FALSE, error) ||
      (self->static_input &&
       !share (layer, self->x_static_input, CT_BOTTOM (bottom, 2), TRUE, error)))
    return FALSE;
  if (self->expose_hidden)
    {
      offset = 2 + (self->static_input ? 1 : 0);
      for (guint j = 0; offset + j < bottom->len; j++)
        {
          CtBlob *state = self->recur_input_blobs->pdata[j];
          CtBlob *given = CT_BOTTOM (bottom, offset + j);

          if (ct_blob_num_axes (given) != 3 ||
              memcmp (ct_blob_get_shape (given), ct_blob_get_shape (state),
                      3 * sizeof (gint64)) != 0)
            {
              g_autofree char *want = ct_blob_shape_string (state);
              g_autofree char *got = ct_blob_shape_string (given);
              return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                                    _("bottom %u (initial %s) must have shape %s, not %s"),
                                    offset + j, self->ops->recur_inputs[j], want, got);
            }
          if (!share (layer, state, given, FALSE, error))
            return FALSE;
        }
    }

  if (!ct_blob_reshape_like (CT_TOP (top, 0), self->output_blob, &local))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
  if (!share (layer, CT_TOP (top, 0), self->output_blob, TRUE, error))
    return FALSE;
  for (guint j = 1; self->expose_hidden && j < top->len; j++)
    if (!ct_blob_reshape_like (CT_TOP (top, j), self->recur_output_blobs->pdata[j - 1], &local))
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
  return TRUE;
}

/* The layer's blobs are the truth: the outer net may have replaced their
 * memory (sharing by name, loading weights into a shared blob). Point the
 * inner owners at it, and the inner sharers at their owners again. */
static gboolean
reshare_parameters (CtRecurrentLayer *self, GError **error)
{
  CtLayer *layer = &self->parent;
  g_autoptr (GError) local = NULL;

  for (guint i = 0; i < self->inner_owners->len; i++)
    if (!ct_blob_share_data (self->inner_owners->pdata[i], layer->blobs->pdata[i], &local) ||
        !ct_blob_share_diff (self->inner_owners->pdata[i], layer->blobs->pdata[i], &local))
      return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
  for (guint i = 0; i < ct_net_n_params (self->unrolled); i++)
    {
      int owner = ct_net_get_param_owner (self->unrolled, i);

      if (owner < 0)
        continue;
      if (!ct_blob_share_data (ct_net_get_param_blob (self->unrolled, i),
                               ct_net_get_param_blob (self->unrolled, (guint) owner), &local) ||
          !ct_blob_share_diff (ct_net_get_param_blob (self->unrolled, i),
                               ct_net_get_param_blob (self->unrolled, (guint) owner), &local))
        return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
    }
  return TRUE;
}

gboolean
ct_recurrent_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top,
                      gboolean gpu, GError **error)
{
  CtRecurrentLayer *self = (CtRecurrentLayer *) layer;
  g_autoptr (GError) local = NULL;

  if (!reshare_parameters (self, error))
    return FALSE;
  if (!self->expose_hidden)
    for (guint i = 0; i < self->recur_input_blobs->len; i++)
      {
        /* The state at t = T starts the next batch. */
        CtBlob *in = self->recur_input_blobs->pdata[i];
        CtBlob *out = self->recur_output_blobs->pdata[i];

        if (!ct_blob_copy_from (in, out, CT_BLOB_COPY_DATA, &local))
          return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);
      }
  if (!ct_net_forward_from_to (self->unrolled, 0, self->last_layer, NULL, &local))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, _("its unrolled net: %s"),
                          local->message);
  for (guint j = 1; self->expose_hidden && j < top->len; j++)
    if (!share (layer, CT_TOP (top, j), self->recur_output_blobs->pdata[j - 1], FALSE, error))
      return FALSE;
  return TRUE;
}

gboolean
ct_recurrent_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                       GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtRecurrentLayer *self = (CtRecurrentLayer *) layer;
  g_autoptr (GError) local = NULL;

  if (propagate_down[1])
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                          _("cannot propagate a gradient to the sequence indicators (bottom 1)"));
  /* As Caffe, the inputs and the parameters get their gradients together:
   * the net calls this only when one of them needs one. */
  if (!ct_net_backward_from_to (self->unrolled, self->last_layer, 0, &local))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, _("its unrolled net: %s"),
                          local->message);
  return TRUE;
}

gboolean
ct_recurrent_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return bottom_index != 1;
}

void
ct_recurrent_finalize (CtLayer *layer)
{
  CtRecurrentLayer *self = (CtRecurrentLayer *) layer;

  g_clear_pointer (&self->recur_input_blobs, g_ptr_array_unref);
  g_clear_pointer (&self->recur_output_blobs, g_ptr_array_unref);
  g_clear_pointer (&self->inner_owners, g_ptr_array_unref);
  g_clear_pointer (&self->unrolled, ct_net_free);
}

void
ct_recurrent_append_concat (GString *text, const char *prefix, const char *name, gint64 T)
{
  g_string_append_printf (text, "layer { name: \"%s%s_concat\" type: \"Concat\"", prefix, name);
  for (gint64 t = 1; t <= T; t++)
    g_string_append_printf (text, " bottom: \"%s_%" G_GINT64_FORMAT "\"", name, t);
  g_string_append_printf (text, " top: \"%s\" concat_param { axis: 0 } }\n", name);
}
