/* insert-splits.c: Split layers where one top feeds several bottoms, as
 * Caffe inserts them before building a net.
 *
 * A layer's backward writes its bottoms' diffs, so a blob read by two
 * layers would have its gradient overwritten by the second. Caffe therefore
 * gives such a top a Split layer right after its producer, whose tops (one
 * per reader) are fed to the readers; Split's backward sums their diffs.
 * A top with a non-zero loss_weight counts as one more reader: the weight
 * moves onto the Split's first top. The names are Caffe's, so that weights,
 * dumps and tools agree: layer `<blob>_<layer>_<i>_split`, tops
 * `<blob>_<layer>_<i>_split_<j>`, where LAYER produced BLOB as its top I. */
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "net-private.h"
#include "engine-error.h"
#include "error-place.h"

char *
ct_net_split_layer_name (const char *layer_name, const char *blob_name, guint top_index)
{
  return g_strdup_printf ("%s_%s_%u_split", blob_name, layer_name, top_index);
}

char *
ct_net_split_blob_name (const char *layer_name, const char *blob_name, guint top_index,
                        guint split_index)
{
  return g_strdup_printf ("%s_%s_%u_split_%u", blob_name, layer_name, top_index, split_index);
}

/* A (layer, top) pair as one hash key. */
#define TOP_KEY(layer, top) GSIZE_TO_POINTER (((gsize) (layer) << 20 | (gsize) (top)) + 1)

typedef struct {
  int layer; /* -1: no producer (unknown bottom, tolerated) */
  int top;
} TopRef;

typedef struct {
  GHashTable *readers;     /* TOP_KEY -> count of readers */
  GHashTable *loss_weight; /* TOP_KEY -> float bits of its loss_weight */
  GHashTable *next_split;  /* TOP_KEY -> next split index handed out */
  GArray **sources;        /* per layer: TopRef per bottom */
} SplitPlan;

static guint
lookup_count (GHashTable *table, gpointer key)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (table, key));
}

static void
bump (GHashTable *table, gpointer key)
{
  g_hash_table_insert (table, key, GUINT_TO_POINTER (lookup_count (table, key) + 1));
}

static gboolean
plan_readers (GPtrArray *specs, SplitPlan *plan, gboolean tolerant, GError **error)
{
  g_autoptr (GHashTable) last_top = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, NULL);

  for (guint i = 0; i < specs->len; i++)
    {
      const Caffe__LayerParameter *layer = ((CtNetSpec *) specs->pdata[i])->param;
      gsize n_loss;

      plan->sources[i] = g_array_new (FALSE, FALSE, sizeof (TopRef));
      for (gsize j = 0; j < layer->n_bottom; j++)
        {
          gpointer found = g_hash_table_lookup (last_top, layer->bottom[j]);
          TopRef ref = { -1, -1 };

          if (found != NULL)
            {
              gsize packed = GPOINTER_TO_SIZE (found) - 1;
              ref.layer = (int) (packed >> 20);
              ref.top = (int) (packed & 0xfffff);
              bump (plan->readers, found);
            }
          else if (!tolerant)
            {
              g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO,
                           _("layer '%s': unknown bottom blob '%s' (bottom %u): no layer "
                             "above produces it"),
                           layer->name != NULL ? layer->name : "", layer->bottom[j], (guint) j);
              ct_error_set_place (error, layer->name, layer->bottom[j]);
              return FALSE;
            }
          g_array_append_val (plan->sources[i], ref);
        }
      for (gsize j = 0; j < layer->n_top && j < 0xfffff; j++)
        g_hash_table_insert (last_top, layer->top[j], TOP_KEY (i, j));

      /* A weighted top is read by the loss as well. */
      n_loss = MIN (layer->n_loss_weight, layer->n_top);
      for (gsize j = 0; j < n_loss; j++)
        {
          gpointer key = g_hash_table_lookup (last_top, layer->top[j]);
          float weight = layer->loss_weight[j];
          guint32 bits;

          memcpy (&bits, &weight, sizeof bits);
          g_hash_table_insert (plan->loss_weight, key, GUINT_TO_POINTER (bits));
          if (weight != 0.0f)
            bump (plan->readers, key);
        }
    }
  return TRUE;
}

static float
planned_loss_weight (SplitPlan *plan, gpointer key)
{
  guint32 bits = GPOINTER_TO_UINT (g_hash_table_lookup (plan->loss_weight, key));
  float weight;

  memcpy (&weight, &bits, sizeof weight);
  return weight;
}

static CtNetSpec *
split_spec (const char *layer_name, const char *blob_name, guint top_index, guint n_splits,
            float loss_weight)
{
  Caffe__LayerParameter *split = g_new (Caffe__LayerParameter, 1);
  CtNetSpec *spec = g_new0 (CtNetSpec, 1);

  caffe__layer_parameter__init (split);
  split->name = ct_net_split_layer_name (layer_name, blob_name, top_index);
  split->type = g_strdup ("Split");
  split->n_bottom = 1;
  split->bottom = g_new (char *, 1);
  split->bottom[0] = g_strdup (blob_name);
  split->n_top = n_splits;
  split->top = g_new (char *, n_splits);
  for (guint k = 0; k < n_splits; k++)
    split->top[k] = ct_net_split_blob_name (layer_name, blob_name, top_index, k);
  if (loss_weight != 0.0f)
    {
      split->n_loss_weight = n_splits;
      split->loss_weight = g_new0 (float, n_splits);
      split->loss_weight[0] = loss_weight;
    }
  spec->param = split;
  spec->source_index = -1;
  return spec;
}

static const char *
spec_layer_name (GPtrArray *specs, int index)
{
  const char *name = ((CtNetSpec *) g_ptr_array_index (specs, index))->param->name;

  return name != NULL ? name : "";
}

/* Build the new list: each layer, its bottoms renamed to split tops where
 * their source is split, followed by a Split for each of its tops read more
 * than once. SPECS is emptied into the result. */
static GPtrArray *
rewrite (GPtrArray *specs, SplitPlan *plan)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_net_spec_free);

  for (guint i = 0; i < specs->len; i++)
    {
      CtNetSpec *spec = specs->pdata[i];
      Caffe__LayerParameter *layer = spec->param;

      for (gsize j = 0; j < layer->n_bottom; j++)
        {
          TopRef ref = g_array_index (plan->sources[i], TopRef, j);
          gpointer key;
          guint split_index;

          if (ref.layer < 0)
            continue;
          key = TOP_KEY (ref.layer, ref.top);
          if (lookup_count (plan->readers, key) <= 1)
            continue;
          split_index = lookup_count (plan->next_split, key);
          g_hash_table_insert (plan->next_split, key, GUINT_TO_POINTER (split_index + 1));
          {
            char *renamed = ct_net_split_blob_name (spec_layer_name (specs, ref.layer),
                                                    layer->bottom[j], ref.top, split_index);
            free (layer->bottom[j]);
            layer->bottom[j] = renamed;
          }
        }

      g_ptr_array_add (out, spec);
      for (gsize j = 0; j < layer->n_top && j < 0xfffff; j++)
        {
          gpointer key = TOP_KEY (i, j);
          guint n_readers = lookup_count (plan->readers, key);
          float loss_weight;

          if (n_readers <= 1)
            continue;
          loss_weight = planned_loss_weight (plan, key);
          g_ptr_array_add (out, split_spec (spec_layer_name (specs, i), layer->top[j],
                                            (guint) j, n_readers, loss_weight));
          /* The Split's first top carries the loss now. */
          if (loss_weight != 0.0f)
            {
              free (layer->loss_weight);
              layer->loss_weight = NULL;
              layer->n_loss_weight = 0;
              g_hash_table_insert (plan->next_split, key,
                                   GUINT_TO_POINTER (lookup_count (plan->next_split, key) + 1));
            }
        }
    }
  /* The specs now belong to OUT. */
  g_ptr_array_set_free_func (specs, NULL);
  g_ptr_array_set_size (specs, 0);
  g_ptr_array_set_free_func (specs, (GDestroyNotify) ct_net_spec_free);
  return out;
}

gboolean
ct_net_insert_splits (GPtrArray *specs, gboolean tolerant, GError **error)
{
  SplitPlan plan;
  guint n_layers = specs->len;
  gboolean ok;

  plan.readers = g_hash_table_new (g_direct_hash, g_direct_equal);
  plan.loss_weight = g_hash_table_new (g_direct_hash, g_direct_equal);
  plan.next_split = g_hash_table_new (g_direct_hash, g_direct_equal);
  plan.sources = g_new0 (GArray *, specs->len + 1);

  ok = plan_readers (specs, &plan, tolerant, error);
  if (ok)
    {
      g_autoptr (GPtrArray) out = rewrite (specs, &plan);

      for (guint i = 0; i < out->len; i++)
        g_ptr_array_add (specs, out->pdata[i]);
      g_ptr_array_set_free_func (out, NULL);
    }

  for (guint i = 0; i < n_layers; i++)
    if (plan.sources[i] != NULL)
      g_array_unref (plan.sources[i]);
  g_free (plan.sources);
  g_hash_table_unref (plan.readers);
  g_hash_table_unref (plan.loss_weight);
  g_hash_table_unref (plan.next_split);
  return ok;
}
