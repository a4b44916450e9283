/* net-build.c: building a CtNet from a NetParameter, in Caffe's order:
 * filter by NetState, insert splits, then for each layer create it from the
 * catalogue, wire bottoms and tops, set it up (shape inference), register
 * its parameters; afterwards decide what needs backward, share weights and
 * allocate every blob.
 *
 * The same builder serves shape inference (net-shapes.c) in "tolerant"
 * mode: there a layer's error is recorded and the build goes on; its tops
 * are marked as having no known shape, and layers reading them are skipped;
 * blob memory is dropped as soon as a layer is set up. */
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "net-private.h"
#include "engine-error.h"
#include "error-place.h"
#include "layer-catalogue.h"
#include "rng.h"
#include "text-format.h"
#include "upgrade.h"

static CtNetLinks *
links_new (void)
{
  CtNetLinks *links = g_new0 (CtNetLinks, 1);

  links->bottom = g_ptr_array_new ();
  links->top = g_ptr_array_new ();
  links->bottom_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  links->top_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  links->bottom_need_backward = g_array_new (FALSE, FALSE, sizeof (gboolean));
  links->param_ids = g_array_new (FALSE, FALSE, sizeof (guint));
  return links;
}

void
ct_net_links_free (CtNetLinks *links)
{
  if (links == NULL)
    return;
  g_ptr_array_unref (links->bottom);
  g_ptr_array_unref (links->top);
  g_array_unref (links->bottom_ids);
  g_array_unref (links->top_ids);
  g_array_unref (links->bottom_need_backward);
  g_array_unref (links->param_ids);
  g_free (links);
}

static const char *
spec_name (const Caffe__LayerParameter *p)
{
  return p->name != NULL ? p->name : "";
}

/* The message for a type the catalogue lacks, listing the types it has. */
static void
set_unknown_type_error (const Caffe__LayerParameter *p, GError **error)
{
  g_autoptr (GPtrArray) classes = NULL;
  g_autoptr (GString) known = NULL;

  if (p->type == NULL || p->type[0] == '\0')
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("layer '%s' has no type"), spec_name (p));
      return;
    }
  if (strcmp (p->type, "Python") == 0)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("layer '%s' (Python): Python layers run Python code, which Cortado "
                     "never does; replace the layer by built-in types"), spec_name (p));
      return;
    }
  classes = ct_layer_catalogue_list ();
  known = g_string_new (NULL);
  for (guint i = 0; i < classes->len; i++)
    {
      const CtLayerClass *k = classes->pdata[i];
      g_string_append_printf (known, i == 0 ? "%s" : ", %s", k->type);
    }
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
               _("layer '%s': unknown layer type '%s' (known types: %s)"),
               spec_name (p), p->type, known->str);
}

/* Caffe's AppendBottom. */
static gboolean
append_bottom (CtNetBuilder *b, guint layer_index, const Caffe__LayerParameter *p, guint j,
               GError **error)
{
  CtNet *net = b->net;
  CtNetLinks *links = net->links->pdata[layer_index];
  const char *name = p->bottom[j];
  gpointer found;
  guint blob_id;
  gboolean need;

  if (!g_hash_table_contains (b->available, name) ||
      (found = g_hash_table_lookup (net->blob_index, name)) == NULL)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("layer '%s': unknown bottom blob '%s' (bottom %u): no layer above "
                     "produces it"), spec_name (p), name, j);
      return FALSE;
    }
  blob_id = GPOINTER_TO_UINT (found) - 1;
  g_ptr_array_add (links->bottom, net->blobs->pdata[blob_id]);
  g_array_append_val (links->bottom_ids, blob_id);
  g_hash_table_remove (b->available, name);

  need = g_array_index (net->blob_need_backward, gboolean, blob_id);
  if (p->n_propagate_down > 0)
    need = p->propagate_down[j] != 0;
  g_array_append_val (links->bottom_need_backward, need);
  return TRUE;
}

static guint
add_blob (CtNetBuilder *b, const char *name, gboolean known)
{
  CtNet *net = b->net;
  guint blob_id = net->blobs->len;
  gboolean no = FALSE;
  float zero = 0.0f;

  g_ptr_array_add (net->blobs, ct_blob_new ());
  g_ptr_array_add (net->blob_names, g_strdup (name));
  g_array_append_val (net->blob_need_backward, no);
  g_array_append_val (net->blob_loss_weights, zero);
  g_array_append_val (b->blob_known, known);
  return blob_id;
}

/* Caffe's AppendTop. NAME NULL: an anonymous top a loss layer adds for
 * itself, which no other layer can read. */
static gboolean
append_top (CtNetBuilder *b, guint layer_index, const Caffe__LayerParameter *p, guint j,
            GError **error)
{
  CtNet *net = b->net;
  CtNetLinks *links = net->links->pdata[layer_index];
  const char *name = j < p->n_top ? p->top[j] : NULL;
  gpointer found = name != NULL ? g_hash_table_lookup (net->blob_index, name) : NULL;
  guint blob_id;

  if (name != NULL && j < p->n_bottom && strcmp (name, p->bottom[j]) == 0 && found != NULL)
    {
      /* In place: the top is the bottom's blob. */
      blob_id = GPOINTER_TO_UINT (found) - 1;
    }
  else if (found != NULL)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   _("layer '%s': top blob '%s' is produced by an earlier layer too; "
                     "only a top named like the bottom at the same index (in place) may "
                     "reuse a name"), spec_name (p), name);
      return FALSE;
    }
  else
    {
      blob_id = add_blob (b, name != NULL ? name : "(automatic)", TRUE);
      if (name != NULL)
        g_hash_table_insert (net->blob_index, g_strdup (name), GUINT_TO_POINTER (blob_id + 1));
    }
  g_ptr_array_add (links->top, net->blobs->pdata[blob_id]);
  g_array_append_val (links->top_ids, blob_id);
  if (name != NULL)
    g_hash_table_add (b->available, g_strdup (name));
  return TRUE;
}

static gboolean
wire_layer (CtNetBuilder *b, guint index, const Caffe__LayerParameter *p, GError **error)
{
  g_autoptr (GError) first = NULL;

  /* In tolerant mode every bottom and top is wired even after an error, so
   * that layers further down meet blobs without shapes, not unknown names. */
  for (guint j = 0; j < p->n_bottom; j++)
    {
      g_autoptr (GError) local = NULL;

      if (!append_bottom (b, index, p, j, &local))
        {
          if (!b->tolerant)
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return FALSE;
            }
          if (first == NULL)
            first = g_steal_pointer (&local);
        }
    }
  for (guint j = 0; j < p->n_top; j++)
    {
      g_autoptr (GError) local = NULL;

      if (!append_top (b, index, p, j, &local))
        {
          if (!b->tolerant)
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return FALSE;
            }
          if (first == NULL)
            first = g_steal_pointer (&local);
          /* A stand-in blob keeps the top count right. */
          {
            CtNetLinks *links = b->net->links->pdata[index];
            guint blob_id = add_blob (b, p->top[j], FALSE);

            g_ptr_array_add (links->top, b->net->blobs->pdata[blob_id]);
            g_array_append_val (links->top_ids, blob_id);
          }
        }
    }
  if (first != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&first));
      return FALSE;
    }
  return TRUE;
}

static gboolean
create_layer (CtNetBuilder *b, guint index, CtNetSpec *spec, guint64 seed, GError **error)
{
  const Caffe__LayerParameter *p = spec->param;
  const CtLayerClass *klass;
  CtLayer *layer;

  if (spec->error != NULL)
    {
      g_propagate_error (error, g_error_copy (spec->error));
      return FALSE;
    }
  if (p->n_propagate_down > 0 && p->n_propagate_down != p->n_bottom)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   g_dngettext (GETTEXT_PACKAGE,
                                "layer '%s' has %u propagate_down values for %u bottom; give none "
                                "or one per bottom",
                                "layer '%s' has %u propagate_down values for %u bottoms; give none "
                                "or one per bottom", p->n_bottom),
                   spec_name (p), (guint) p->n_propagate_down,
                   (guint) p->n_bottom);
      return FALSE;
    }
  klass = ct_layer_catalogue_lookup (p->type);
  if (klass == NULL)
    {
      set_unknown_type_error (p, error);
      return FALSE;
    }
  layer = ct_layer_new (klass, p, b->net->phase);
  if (layer == NULL)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID,
                   _("layer '%s' (%s) could not be created"), spec_name (p), klass->type);
      return FALSE;
    }
  layer->seed = seed;
  /* Shape inference wants shapes only: no weights are drawn or stored. */
  layer->shapes_only = b->tolerant || b->plan_only;
  b->net->layers->pdata[index] = layer;
  return TRUE;
}

/* Loss layers may name fewer tops than they produce; the rest are
 * anonymous. */
static gboolean
add_auto_tops (CtNetBuilder *b, guint index, const Caffe__LayerParameter *p, GError **error)
{
  CtLayer *layer = b->net->layers->pdata[index];
  const CtLayerClass *k = layer->klass;
  int needed;

  if (!k->auto_top_blobs)
    return TRUE;
  needed = MAX (k->tops.min, k->tops.exact);
  for (int j = (int) p->n_top; j < needed; j++)
    if (!append_top (b, index, p, (guint) j, error))
      return FALSE;
  return TRUE;
}

/* In tolerant mode: whether every bottom has a shape; if not, why. */
static gboolean
bottoms_known (CtNetBuilder *b, guint index, const Caffe__LayerParameter *p, GError **error)
{
  CtNetLinks *links = b->net->links->pdata[index];

  for (guint j = 0; j < links->bottom_ids->len; j++)
    {
      guint blob_id = g_array_index (links->bottom_ids, guint, j);

      if (!g_array_index (b->blob_known, gboolean, blob_id))
        {
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                       _("layer '%s': bottom '%s' has no shape, because a layer above "
                         "failed"), spec_name (p),
                       (const char *) b->net->blob_names->pdata[blob_id]);
          return FALSE;
        }
    }
  return TRUE;
}

/* After setup: loss weights, which parameters learn, and the parameters'
 * registration (sharing). */
static gboolean
register_layer (CtNetBuilder *b, guint index, const Caffe__LayerParameter *p, GError **error)
{
  CtNet *net = b->net;
  CtLayer *layer = net->layers->pdata[index];
  CtNetLinks *links = net->links->pdata[index];
  gboolean need_backward = FALSE;

  if (b->tolerant)
    ct_net_builder_drop_param_memory (b, index);
  for (guint j = 0; j < links->top_ids->len; j++)
    g_array_index (net->blob_loss_weights, float, g_array_index (links->top_ids, guint, j)) =
      ct_layer_loss_weight (layer, j);

  /* The layer's own copy from here: its setup may have added ParamSpecs
   * (BatchNorm gives its statistics lr_mult 0, as Caffe's does). */
  p = layer->param;
  if (p->n_param > layer->blobs->len)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                   g_dngettext (GETTEXT_PACKAGE,
                                "layer '%s' (%s) has %u param specs but only %u parameter blob",
                                "layer '%s' (%s) has %u param specs but only %u parameter blobs",
                                layer->blobs->len),
                   spec_name (p), layer->klass->type, (guint) p->n_param, layer->blobs->len);
      return FALSE;
    }
  for (guint i = 0; i < layer->blobs->len; i++)
    {
      /* An absent ParamSpec has lr_mult 1. */
      gboolean learns = i < p->n_param ? p->param[i]->lr_mult != 0.0f : TRUE;

      need_backward |= learns;
      ct_layer_set_param_propagate_down (layer, i, learns);
    }
  if (!ct_net_append_params (net, index, error))
    return FALSE;

  for (guint j = 0; j < links->bottom_ids->len; j++)
    need_backward |= g_array_index (net->blob_need_backward, gboolean,
                                    g_array_index (links->bottom_ids, guint, j));
  links->need_backward = need_backward;
  if (need_backward)
    for (guint j = 0; j < links->top_ids->len; j++)
      g_array_index (net->blob_need_backward, gboolean,
                     g_array_index (links->top_ids, guint, j)) = TRUE;
  return TRUE;
}

static CtNetLayerStatus
add_layer (CtNetBuilder *b, CtNetSpec *spec, GError **error)
{
  CtNet *net = b->net;
  Caffe__LayerParameter *p = spec->param;
  guint index = net->layers->len;
  guint64 seed = ct_rng_next_seed (b->rng);
  CtLayer *layer;
  CtNetLinks *links;

  g_ptr_array_add (net->layers, NULL);
  g_ptr_array_add (net->links, links_new ());
  links = net->links->pdata[index];
  if (!p->has_phase)
    {
      p->has_phase = TRUE;
      p->phase = net->phase;
    }

  if (!b->tolerant)
    {
      if (!create_layer (b, index, spec, seed, error) ||
          !wire_layer (b, index, p, error) ||
          !add_auto_tops (b, index, p, error))
        return CT_NET_LAYER_FAILED;
    }
  else
    {
      g_autoptr (GError) wiring = NULL;

      /* Wire first, so that a layer that cannot be created still gives
       * later layers blobs to read. Text the schema does not know fails
       * its layer only. */
      if (!wire_layer (b, index, p, &wiring) ||
          !ct_text_check_strict (&p->base, b->source, &wiring) ||
          !create_layer (b, index, spec, seed, &wiring) ||
          !add_auto_tops (b, index, p, &wiring))
        {
          g_propagate_error (error, g_steal_pointer (&wiring));
          return CT_NET_LAYER_FAILED;
        }
      if (!bottoms_known (b, index, p, error))
        return CT_NET_LAYER_SKIPPED;
    }

  layer = net->layers->pdata[index];
  if (!ct_layer_setup (layer, links->bottom, links->top, error))
    return CT_NET_LAYER_FAILED;
  if (!register_layer (b, index, p, error))
    return CT_NET_LAYER_FAILED;
  return CT_NET_LAYER_OK;
}

CtNetLayerStatus
ct_net_builder_add_layer (CtNetBuilder *b, CtNetSpec *spec, GError **error)
{
  CtNetLayerStatus status = add_layer (b, spec, error);

  /* Every failure here is this layer's: say so as data too. */
  if (status != CT_NET_LAYER_OK && error != NULL && ct_error_get_layer (*error) == NULL)
    ct_error_set_place (error, spec_name (spec->param), NULL);
  return status;
}

/* Caffe's backward pass over the layers: a layer whose tops reach no loss
 * needs no backward, and neither do bottoms every reader skips. Then
 * force_backward asks for every gradient the layers allow. */
static void
decide_backward (CtNet *net)
{
  g_autoptr (GHashTable) under_loss = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) skip_backprop = g_hash_table_new (g_str_hash, g_str_equal);

  for (int i = (int) net->layers->len - 1; i >= 0; i--)
    {
      CtLayer *layer = net->layers->pdata[i];
      CtNetLinks *links = net->links->pdata[i];
      gboolean contributes = FALSE;
      gboolean skip_down = TRUE;

      for (guint j = 0; j < links->top_ids->len; j++)
        {
          const char *name = net->blob_names->pdata[g_array_index (links->top_ids, guint, j)];

          if (ct_layer_loss_weight (layer, j) != 0.0f || g_hash_table_contains (under_loss, name))
            contributes = TRUE;
          if (!g_hash_table_contains (skip_backprop, name))
            skip_down = FALSE;
          if (contributes && !skip_down)
            break;
        }
      if (links->need_backward && skip_down)
        {
          links->need_backward = FALSE;
          for (guint j = 0; j < links->bottom_need_backward->len; j++)
            g_array_index (links->bottom_need_backward, gboolean, j) = FALSE;
        }
      if (!contributes)
        links->need_backward = FALSE;
      for (guint j = 0; j < links->bottom_ids->len; j++)
        {
          const char *name = net->blob_names->pdata[g_array_index (links->bottom_ids, guint, j)];

          if (contributes)
            g_hash_table_add (under_loss, (gpointer) name);
          else
            g_array_index (links->bottom_need_backward, gboolean, j) = FALSE;
          if (!g_array_index (links->bottom_need_backward, gboolean, j))
            g_hash_table_add (skip_backprop, (gpointer) name);
        }
    }

  if (!net->force_backward)
    return;
  for (guint i = 0; i < net->layers->len; i++)
    {
      CtLayer *layer = net->layers->pdata[i];
      CtNetLinks *links = net->links->pdata[i];

      links->need_backward = TRUE;
      for (guint j = 0; j < links->bottom_ids->len; j++)
        {
          gboolean *bottom_need = &g_array_index (links->bottom_need_backward, gboolean, j);
          gboolean *blob_need = &g_array_index (net->blob_need_backward, gboolean,
                                                g_array_index (links->bottom_ids, guint, j));

          *bottom_need = *bottom_need || ct_layer_allow_force_backward (layer, j);
          *blob_need = *blob_need || *bottom_need;
        }
      for (guint j = 0; j < layer->blobs->len; j++)
        ct_layer_set_param_propagate_down (layer, j, TRUE);
    }
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The blobs no layer consumed are the outputs, in name order (Caffe keeps
 * them in a sorted set). */
static void
collect_outputs (CtNetBuilder *b)
{
  CtNet *net = b->net;
  g_autofree gpointer *names = NULL;
  guint n = 0;

  names = g_hash_table_get_keys_as_array (b->available, &n);
  qsort (names, n, sizeof (gpointer), compare_names);
  for (guint i = 0; i < n; i++)
    {
      guint blob_id = GPOINTER_TO_UINT (g_hash_table_lookup (net->blob_index, names[i])) - 1;
      g_array_append_val (net->outputs, blob_id);
    }
}

static void
collect_inputs (CtNet *net)
{
  for (guint i = 0; i < net->layers->len; i++)
    {
      CtLayer *layer = net->layers->pdata[i];
      CtNetLinks *links = net->links->pdata[i];

      if (layer == NULL || strcmp (layer->klass->type, "Input") != 0)
        continue;
      for (guint j = 0; j < links->top_ids->len; j++)
        g_array_append_val (net->inputs, g_array_index (links->top_ids, guint, j));
    }
}

static void
index_layers (CtNet *net)
{
  for (guint i = 0; i < net->param->n_layer; i++)
    {
      const char *name = net->param->layer[i]->name;
      g_hash_table_insert (net->layer_index, g_strdup (name != NULL ? name : ""),
                           GUINT_TO_POINTER (i + 1));
    }
}

/* A deep copy of PARAM, upgraded when it is in a legacy format. */
static Caffe__NetParameter *
prepare_param (const Caffe__NetParameter *param, const char *source_name, GError **error)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *bytes = g_malloc (size ? size : 1);
  Caffe__NetParameter *copy;

  protobuf_c_message_pack (&param->base, bytes);
  copy = caffe__net_parameter__unpack (NULL, size, bytes);
  if (copy == NULL)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY,
                   _("the net could not be copied"));
      return NULL;
    }
  if (ct_net_needs_upgrade (copy) && !ct_upgrade_net (copy, source_name, NULL, error))
    {
      protobuf_c_message_free_unpacked (&copy->base, NULL);
      return NULL;
    }
  return copy;
}

/* The state Caffe builds with: the NetParameter's own, with the phase and
 * level replaced and the stages added. */
static void
fill_state (Caffe__NetState *state, const Caffe__NetParameter *param, const CtNetConfig *config,
            GPtrArray *stage_storage)
{
  caffe__net_state__init (state);
  if (param->state != NULL)
    for (gsize i = 0; i < param->state->n_stage; i++)
      g_ptr_array_add (stage_storage, param->state->stage[i]);
  for (gsize i = 0; config->stages != NULL && config->stages[i] != NULL; i++)
    g_ptr_array_add (stage_storage, (gpointer) config->stages[i]);
  state->has_phase = TRUE;
  state->phase = config->phase;
  state->has_level = TRUE;
  state->level = config->level;
  state->n_stage = stage_storage->len;
  state->stage = (char **) stage_storage->pdata;
}

gboolean
ct_net_builder_init (CtNetBuilder *b, const Caffe__NetParameter *in, const CtNetConfig *config,
                     gboolean tolerant, GError **error)
{
  g_autoptr (GPtrArray) stage_storage = g_ptr_array_new ();
  const char *source = config->source_name != NULL ? config->source_name
                     : in->name != NULL ? in->name : "<net>";
  Caffe__NetState state;
  g_autoptr (GPtrArray) specs = NULL;
  CtNet *net;

  memset (b, 0, sizeof *b);
  b->tolerant = tolerant;
  b->plan_only = config->plan_only;
  b->net = net = ct_net_alloc ();
  b->available = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  b->blob_known = g_array_new (FALSE, FALSE, sizeof (gboolean));
  b->rng = ct_rng_new (config->seed);
  b->source = g_strdup (source);

  if (!tolerant && !ct_text_check_strict (&in->base, source, error))
    return FALSE;

  net->phase = config->phase;
  g_free (net->name);
  net->name = g_strdup (in->name != NULL ? in->name : "");
  net->param = prepare_param (in, source, error);
  if (net->param == NULL)
    return FALSE;
  net->force_backward = net->param->force_backward;

  fill_state (&state, net->param, config, stage_storage);
  specs = ct_net_filter_layers (net->param, &state, tolerant, error);
  if (specs == NULL || !ct_net_insert_splits (specs, tolerant, error))
    return FALSE;
  b->specs = g_steal_pointer (&specs);
  return TRUE;
}

/* The built net's NetParameter: the net's own fields, with the layers the
 * builder kept (the specs give their messages up to it). */
static void
adopt_layers (CtNetBuilder *b)
{
  Caffe__NetParameter *param = b->net->param;

  for (gsize i = 0; i < param->n_layer; i++)
    protobuf_c_message_free_unpacked (&param->layer[i]->base, NULL);
  free (param->layer);
  param->n_layer = b->specs->len;
  param->layer = g_new0 (Caffe__LayerParameter *, MAX (b->specs->len, 1));
  for (guint i = 0; i < b->specs->len; i++)
    {
      CtNetSpec *spec = b->specs->pdata[i];
      param->layer[i] = g_steal_pointer (&spec->param);
    }
}

void
ct_net_builder_finish (CtNetBuilder *b)
{
  adopt_layers (b);
  index_layers (b->net);
  collect_inputs (b->net);
  collect_outputs (b);
  if (!b->tolerant)
    decide_backward (b->net);
}

void
ct_net_builder_clear (CtNetBuilder *b)
{
  g_clear_pointer (&b->available, g_hash_table_unref);
  g_clear_pointer (&b->blob_known, g_array_unref);
  g_clear_pointer (&b->rng, ct_rng_free);
  g_clear_pointer (&b->specs, g_ptr_array_unref);
  g_clear_pointer (&b->source, g_free);
  g_clear_pointer (&b->net, ct_net_free);
}

CtNet *
ct_net_new_with_config (const Caffe__NetParameter *param, const CtNetConfig *config,
                        GError **error)
{
  CtNetBuilder b;

  g_return_val_if_fail (param != NULL && config != NULL, NULL);

  if (!ct_net_builder_init (&b, param, config, FALSE, error))
    {
      ct_net_builder_clear (&b);
      return NULL;
    }
  for (guint i = 0; i < b.specs->len; i++)
    if (ct_net_builder_add_layer (&b, b.specs->pdata[i], error) != CT_NET_LAYER_OK)
      {
        ct_net_builder_clear (&b);
        return NULL;
      }
  ct_net_builder_finish (&b);
  if (!ct_net_share_weights (b.net, error))
    {
      ct_net_builder_clear (&b);
      return NULL;
    }
  b.net->memory_plan = config->memory_plan;
  if (config->memory_plan != CT_NET_MEMORY_KEEP_ALL)
    ct_net_plan_memory (b.net);
  if (!config->plan_only && !ct_net_allocate (b.net, error))
    {
      ct_net_builder_clear (&b);
      return NULL;
    }
  {
    CtNet *net = g_steal_pointer (&b.net);
    ct_net_builder_clear (&b);
    return net;
  }
}

CtNet *
ct_net_new (const Caffe__NetParameter *param, Caffe__Phase phase, int level,
            const char *const *stages, guint64 seed, GError **error)
{
  CtNetConfig config = { .phase = phase, .level = level, .stages = stages, .seed = seed };

  return ct_net_new_with_config (param, &config, error);
}
