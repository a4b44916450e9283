/* upgrade.c: legacy Caffe nets brought to the current format, in the order
 * and with the rules Caffe applies when it loads them:
 *
 *   V0 (`layers { layer {...} }`): padding layers folded into the conv or
 *      pool they feed, the flat V0 fields spread over the V1 *_param blocks
 *      (upgrade-v0.c);
 *   V1 data layers: scale/mean_file/crop_size/mirror -> transform_param;
 *   V1 (`layers { type: ENUM }`) -> V2 (`layer { type: "String" }`), with
 *      blobs_lr/weight_decay/param/blob_share_mode -> ParamSpec
 *      (upgrade-v1.c);
 *   net-level input + input_dim/input_shape -> an Input layer in front;
 *   BatchNorm layers with three param specs -> lr_mult and decay_mult 0
 *      (these two here).
 * Solvers are upgraded in upgrade-solver.c.
 *
 * Messages are edited in place. Parts of old messages (blobs, *_param
 * blocks, string arrays) are moved, not copied, into the new ones, which
 * are allocated with malloc like everything protobuf-c frees, so the
 * result is released with protobuf_c_message_free_unpacked as usual
 * (upgrade-move.c). Where Caffe would abort (CHECK/LOG(FATAL)), we return a
 * GError; where it logs and carries on, we add a note and carry on too. */
#include "upgrade.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "proto-error.h"
#include "reflect.h"
#include "upgrade-private.h"

/* ------------------------------------------------------------------------
 * Net-level inputs -> Input layer
 * --------------------------------------------------------------------- */

static char *
shape_to_string (const int64_t *dims, gsize n)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? "×" : "", dims[i]);
  if (n == 0)
    g_string_append (s, _("scalar"));
  return g_string_free (s, FALSE);
}

static gboolean
upgrade_net_input (Caffe__NetParameter *net,
                   const char *filename,
                   GPtrArray *notes,
                   GError **error)
{
  gboolean has_shape = net->n_input_shape > 0;
  gboolean has_dim = net->n_input_dim > 0;

  if (has_shape && net->n_input_shape < net->n_input)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: the net has %lu inputs but only %lu input_shape entries"),
                   ct_upgrade_source_name (filename), (unsigned long) net->n_input,
                   (unsigned long) net->n_input_shape);
      return FALSE;
    }
  if (!has_shape && has_dim && net->n_input_dim != 4 * net->n_input)
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: the net has %lu inputs, which need %lu input_dim values, "
                     "but %lu are given"),
                   ct_upgrade_source_name (filename), (unsigned long) net->n_input,
                   (unsigned long) (4 * net->n_input), (unsigned long) net->n_input_dim);
      return FALSE;
    }

  if (has_shape || has_dim)
    {
      Caffe__LayerParameter *input =
        (Caffe__LayerParameter *) ct_proto_message_new (&caffe__layer_parameter__descriptor);
      Caffe__InputParameter *param =
        (Caffe__InputParameter *) ct_proto_message_new (&caffe__input_parameter__descriptor);

      input->name = g_strdup ("input");
      input->type = g_strdup ("Input");
      input->input_param = param;
      param->shape = g_new0 (Caffe__BlobShape *, net->n_input);
      for (gsize i = 0; i < net->n_input; i++)
        {
          Caffe__BlobShape *shape;
          g_autofree char *dims = NULL;

          if (has_shape)
            {
              shape = g_steal_pointer (&net->input_shape[i]);
            }
          else
            {
              shape = (Caffe__BlobShape *) ct_proto_message_new (&caffe__blob_shape__descriptor);
              shape->n_dim = 4;
              shape->dim = g_new (int64_t, 4);
              for (gsize d = 0; d < 4; d++)
                shape->dim[d] = net->input_dim[4 * i + d];
            }
          param->shape[param->n_shape++] = shape;
          dims = shape_to_string (shape->dim, shape->n_dim);
          ct_upgrade_note (notes, _("moved net input '%s' (%s) into an Input layer"),
                           net->input[i], dims);
        }
      CT_UPGRADE_MOVE_ARRAY (input->top, input->n_top, net->input, net->n_input);

      /* the Input layer goes first, so that every layer finds its bottoms */
      net->layer = g_renew (Caffe__LayerParameter *, net->layer, net->n_layer + 1);
      memmove (net->layer + 1, net->layer, net->n_layer * sizeof *net->layer);
      net->layer[0] = input;
      net->n_layer++;
    }
  else
    {
      /* inputs without shapes: an old caffemodel, where dropping them is all */
      for (gsize i = 0; i < net->n_input; i++)
        ct_upgrade_note (notes, _("dropped net input '%s', which has no shape"), net->input[i]);
    }

  for (gsize i = 0; i < net->n_input; i++)
    g_free (net->input[i]);
  g_clear_pointer (&net->input, g_free);
  net->n_input = 0;
  ct_upgrade_free_messages (net->input_shape, net->n_input_shape);
  net->input_shape = NULL;
  net->n_input_shape = 0;
  g_clear_pointer (&net->input_dim, g_free);
  net->n_input_dim = 0;
  return TRUE;
}

/* ------------------------------------------------------------------------
 * BatchNorm param specs
 * --------------------------------------------------------------------- */

static gboolean
layer_needs_batch_norm_upgrade (const Caffe__LayerParameter *layer)
{
  return g_strcmp0 (layer->type, "BatchNorm") == 0 && layer->n_param == 3;
}

/* Older BatchNorm definitions listed three param specs for the mean,
 * variance and factor blobs; Caffe now forces their lr_mult and
 * decay_mult to 0, keeping names. */
static void
upgrade_batch_norm (Caffe__NetParameter *net, GPtrArray *notes)
{
  for (gsize i = 0; i < net->n_layer; i++)
    {
      Caffe__LayerParameter *layer = net->layer[i];
      gboolean changed = FALSE;

      if (!layer_needs_batch_norm_upgrade (layer))
        continue;
      for (gsize p = 0; p < layer->n_param; p++)
        {
          Caffe__ParamSpec *spec = layer->param[p];

          /* unset multipliers default to 1, so setting 0 changes them */
          if (!spec->has_lr_mult || spec->lr_mult != 0.0f ||
              !spec->has_decay_mult || spec->decay_mult != 0.0f)
            changed = TRUE;
          spec->has_lr_mult = TRUE;
          spec->lr_mult = 0.0f;
          spec->has_decay_mult = TRUE;
          spec->decay_mult = 0.0f;
        }
      if (changed)
        ct_upgrade_note (notes, _("set lr_mult and decay_mult to 0 in the 3 param { } entries of "
                                  "BatchNorm layer '%s'"),
                         layer->name != NULL ? layer->name : "");
    }
}

/* ------------------------------------------------------------------------
 * Public entry points
 * --------------------------------------------------------------------- */

/* Caffe flags every BatchNorm layer with three param specs, upgraded or
 * not; we only report the ones whose specs still differ from lr_mult 0,
 * decay_mult 0, so that an upgraded net no longer needs upgrading. */
static gboolean
net_needs_batch_norm_upgrade (const Caffe__NetParameter *net)
{
  for (gsize i = 0; i < net->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = net->layer[i];

      if (!layer_needs_batch_norm_upgrade (layer))
        continue;
      for (gsize p = 0; p < layer->n_param; p++)
        if (!layer->param[p]->has_lr_mult || layer->param[p]->lr_mult != 0.0f ||
            !layer->param[p]->has_decay_mult || layer->param[p]->decay_mult != 0.0f)
          return TRUE;
    }
  return FALSE;
}

gboolean
ct_net_needs_upgrade (const Caffe__NetParameter *net)
{
  g_return_val_if_fail (net != NULL, FALSE);

  return net->n_layers > 0 || net->n_input > 0 || net_needs_batch_norm_upgrade (net);
}

gboolean
ct_upgrade_net (Caffe__NetParameter *net,
                const char *filename,
                GPtrArray *notes,
                GError **error)
{
  g_return_val_if_fail (net != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (net->n_layers > 0 && net->n_layer > 0)
    {
      const Caffe__V1LayerParameter *first = net->layers[0];
      const char *name = first->name != NULL ? first->name
                         : first->layer != NULL && first->layer->name != NULL
                         ? first->layer->name : "#1";

      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s: the net has both 'layer' entries and legacy 'layers' entries "
                     "(the first is '%s'); a net must use one format"),
                   ct_upgrade_source_name (filename), name);
      return FALSE;
    }

  if (ct_upgrade_net_is_v0 (net) && !ct_upgrade_v0_net (net, filename, notes, error))
    return FALSE;
  ct_upgrade_data_transformation (net, notes);
  if (net->n_layers > 0 && !ct_upgrade_v1_net (net, filename, notes, error))
    return FALSE;
  if (net->n_input > 0 && !upgrade_net_input (net, filename, notes, error))
    return FALSE;
  upgrade_batch_norm (net, notes);
  return TRUE;
}
