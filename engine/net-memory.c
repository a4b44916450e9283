/* net-memory.c: the memory plan of a net built with `plan_memory` (see
 * net.h). A net's run is a line of steps: layer i's forward pass is step
 * i, its backward pass step 2L - 1 - i (L layers). Each blob's data lives
 * from the first step that touches it to the last, and its diff from the
 * backward step that first writes it to the last that reads it; blobs
 * whose lives do not overlap share one block. A net that runs no backward
 * pass (CT_NET_MEMORY_FORWARD) keeps no diffs at all.
 *
 * Some memory must keep its values between iterations, or is read before
 * anything in the pass writes it; it keeps a block of its own:
 *  - the net's inputs (written by the caller before a pass) and outputs
 *    (read after it), and the tops a loss weighs (whose diff holds the
 *    weight from setup on);
 *  - memory a layer touched while it was set up (a DummyData constant, a
 *    loss weight), or that a layer also holds for itself (SoftmaxWithLoss's
 *    probabilities);
 *  - a diff whose first reader in the backward pass is not a layer that
 *    writes it: without a writer it reads zeros, as in Caffe.
 * Blobs that already share memory (Split's tops, Flatten, Reshape) are
 * planned as one. */
#include <string.h>

#include "net-private.h"
#include "blob-private.h"
#include "mem-private.h"

typedef enum {
  LIFE_UNUSED,    /* nothing touches it: left unallocated */
  LIFE_PLANNED,   /* lives from START to END */
  LIFE_KEPT,      /* keeps its own block for the whole run */
} LifeKind;

typedef struct {
  LifeKind kind;
  gint64 start;
  gint64 end;
} Life;

/* One memory as the planner sees it: the blobs (and which of their two
 * memories) that use it, and its life. */
typedef struct {
  CtMem *mem;
  gsize bytes;
  Life life;
  guint n_uses;          /* blob memories that point at it */
  GArray *uses;          /* guint: blob index * 2 + (1 for the diff) */
} Buffer;

typedef struct {
  CtMem *mem;
  gsize bytes;
  GArray *lives;         /* Life */
} Slot;

static void
life_add (Life *life, gint64 step)
{
  if (life->kind == LIFE_KEPT)
    return;
  if (life->kind == LIFE_UNUSED)
    {
      life->kind = LIFE_PLANNED;
      life->start = life->end = step;
      return;
    }
  life->start = MIN (life->start, step);
  life->end = MAX (life->end, step);
}

static void
life_merge (Life *into, const Life *other)
{
  if (other->kind == LIFE_KEPT)
    into->kind = LIFE_KEPT;
  else if (other->kind == LIFE_PLANNED)
    {
      life_add (into, other->start);
      life_add (into, other->end);
    }
}

static gboolean
guint_array_has (GArray *array, guint value, guint *index)
{
  for (guint i = 0; i < array->len; i++)
    if (g_array_index (array, guint, i) == value)
      {
        if (index != NULL)
          *index = i;
        return TRUE;
      }
  return FALSE;
}

static gboolean
is_kept_blob (const CtNet *net, guint blob)
{
  return guint_array_has (net->inputs, blob, NULL) || guint_array_has (net->outputs, blob, NULL) ||
         g_array_index (net->blob_loss_weights, float, blob) != 0.0f;
}

/* The life of blob BLOB's data in a net of L layers. */
static Life
data_life (const CtNet *net, guint blob, gboolean training)
{
  const gint64 L = net->layers->len;
  Life life = { LIFE_UNUSED, 0, 0 };

  for (guint i = 0; i < L; i++)
    {
      CtNetLinks *links = net->links->pdata[i];

      CtLayer *layer = net->layers->pdata[i];
      gboolean touched = FALSE, read_backward = FALSE;

      for (guint k = 0; k < links->bottom_ids->len; k++)
        if (g_array_index (links->bottom_ids, guint, k) == blob)
          {
            touched = TRUE;
            read_backward |= ct_layer_backward_reads_data (layer, FALSE, k);
          }
      for (guint k = 0; k < links->top_ids->len; k++)
        if (g_array_index (links->top_ids, guint, k) == blob)
          {
            touched = TRUE;
            read_backward |= ct_layer_backward_reads_data (layer, TRUE, k);
          }
      if (!touched)
        continue;
      life_add (&life, i);
      if (training && links->need_backward && read_backward)
        life_add (&life, 2 * L - 1 - i);
    }
  return life;
}

/* The life of blob BLOB's diff: from the first backward step that touches
 * it, which must write it as a bottom, to the last. */
static Life
diff_life (const CtNet *net, guint blob)
{
  const gint64 L = net->layers->len;
  Life life = { LIFE_UNUSED, 0, 0 };

  for (guint i = L; i-- > 0;)
    {
      CtNetLinks *links = net->links->pdata[i];
      guint k;
      gboolean as_bottom = guint_array_has (links->bottom_ids, blob, &k);
      gboolean as_top = guint_array_has (links->top_ids, blob, NULL);

      if (!links->need_backward || (!as_bottom && !as_top))
        continue;
      if (life.kind == LIFE_UNUSED &&
          (as_top || !g_array_index (links->bottom_need_backward, gboolean, k)))
        {
          life.kind = LIFE_KEPT;
          return life;
        }
      life_add (&life, 2 * L - 1 - i);
    }
  return life;
}

static void
buffer_clear (Buffer *buffer)
{
  g_array_unref (buffer->uses);
}

static Buffer *
find_buffer (GArray *buffers, GHashTable *by_mem, CtMem *mem)
{
  gpointer index;

  if (g_hash_table_lookup_extended (by_mem, mem, NULL, &index))
    return &g_array_index (buffers, Buffer, GPOINTER_TO_UINT (index));
  {
    Buffer b = { mem, ct_mem_get_size (mem), { LIFE_UNUSED, 0, 0 }, 0,
                 g_array_new (FALSE, FALSE, sizeof (guint)) };

    g_hash_table_insert (by_mem, mem, GUINT_TO_POINTER (buffers->len));
    g_array_append_val (buffers, b);
    return &g_array_index (buffers, Buffer, buffers->len - 1);
  }
}

static gint
by_size_descending (gconstpointer a, gconstpointer b)
{
  const Buffer *x = *(Buffer *const *) a;
  const Buffer *y = *(Buffer *const *) b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->life.start < y->life.start ? -1 : x->life.start > y->life.start;
}

static gboolean
slot_fits (const Slot *slot, const Life *life)
{
  for (guint i = 0; i < slot->lives->len; i++)
    {
      const Life *other = &g_array_index (slot->lives, Life, i);

      if (life->start <= other->end && other->start <= life->end)
        return FALSE;
    }
  return TRUE;
}

/* Greedy first fit, largest first: each planned buffer goes to the first
 * block none of whose tenants it meets in time. */
static gsize
assign_slots (CtNet *net, GPtrArray *planned)
{
  g_autoptr (GArray) slots = g_array_new (FALSE, FALSE, sizeof (Slot));
  gsize total = 0;

  g_ptr_array_sort (planned, by_size_descending);
  for (guint i = 0; i < planned->len; i++)
    {
      Buffer *buffer = planned->pdata[i];
      Slot *slot = NULL;

      for (guint j = 0; j < slots->len && slot == NULL; j++)
        if (slot_fits (&g_array_index (slots, Slot, j), &buffer->life))
          slot = &g_array_index (slots, Slot, j);
      if (slot == NULL)
        {
          Slot s = { ct_mem_new (buffer->bytes), buffer->bytes,
                     g_array_new (FALSE, FALSE, sizeof (Life)) };

          g_array_append_val (slots, s);
          slot = &g_array_index (slots, Slot, slots->len - 1);
          total += s.bytes;
        }
      g_array_append_val (slot->lives, buffer->life);
      for (guint u = 0; u < buffer->uses->len; u++)
        {
          guint use = g_array_index (buffer->uses, guint, u);

          ct_blob_set_mem (net->blobs->pdata[use / 2], use % 2, slot->mem);
        }
    }
  for (guint j = 0; j < slots->len; j++)
    {
      ct_mem_unref (g_array_index (slots, Slot, j).mem);
      g_array_unref (g_array_index (slots, Slot, j).lives);
    }
  return total;
}

static void
leave_unallocated (CtNet *net, CtMem *mem)
{
  if (!g_hash_table_contains (net->lazy_mems, mem))
    g_hash_table_add (net->lazy_mems, ct_mem_ref (mem));
}

/* The parameters' distinct memories: data always, diffs when training. */
static gsize
param_bytes (CtNet *net, gboolean training, gsize *all)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  gsize kept = 0;

  *all = 0;
  for (guint i = 0; i < net->params->len; i++)
    for (guint d = 0; d < 2; d++)
      {
        CtBlob *blob = net->params->pdata[i];
        CtMem *mem = d ? ct_blob_get_diff_mem (blob) : ct_blob_get_data_mem (blob);

        if (!g_hash_table_add (seen, mem))
          continue;
        *all += ct_mem_get_size (mem);
        if (d && !training && ct_mem_get_head (mem) == CT_MEM_UNINITIALIZED)
          leave_unallocated (net, mem);
        else
          kept += ct_mem_get_size (mem);
      }
  return kept;
}

static guint
top0_id (CtNet *net, guint i)
{
  CtNetLinks *links = net->links->pdata[i];

  return links->top_ids->len > 0 ? g_array_index (links->top_ids, guint, 0) : G_MAXUINT;
}

/* Whether LAYER contributes no loss. */
static gboolean
no_loss (const CtLayer *layer)
{
  for (guint t = 0; t < layer->loss_weights->len; t++)
    if (g_array_index (layer->loss_weights, float, t) != 0.0f)
      return FALSE;
  return TRUE;
}

/* Whether layer I runs in place on blob ID, as its only bottom, and
 * contributes no loss. */
static gboolean
in_place_on (CtNet *net, guint i, guint id)
{
  CtLayer *layer = net->layers->pdata[i];
  CtNetLinks *links = net->links->pdata[i];

  return links->bottom_ids->len == 1 && links->top_ids->len == 1
         && g_array_index (links->bottom_ids, guint, 0) == id && ct_layer_in_place (layer, 0)
         && no_loss (layer);
}

/* Whether layer I and those it takes run backward, each to its bottom. */
static gboolean
chain_runs_backward (CtNet *net, guint i, guint n)
{
  for (guint j = i; j <= i + n; j++)
    {
      CtNetLinks *links = net->links->pdata[j];

      if (!links->need_backward || links->bottom_need_backward->len < 1
          || !g_array_index (links->bottom_need_backward, gboolean, 0))
        return FALSE;
    }
  return TRUE;
}

/* Layer I takes the in-place layers after it, on its top 0, that its
 * class can run with its own passes (CtLayerClass.absorb): BatchNorm's
 * Scale and ReLU, one pass over a block of channels instead of three over
 * the blob; the ReLU after Eltwise's sum. */
static void
absorb_layers (CtNet *net, guint i)
{
  CtLayer *layer = net->layers->pdata[i];
  CtLayer *next[G_N_ELEMENTS (layer->absorbed)];
  guint id = top0_id (net, i), n = 0, taken;
  gboolean backward = FALSE;

  if (layer->klass->absorb == NULL || id == G_MAXUINT || !no_loss (layer))
    return;
  while (n < G_N_ELEMENTS (next) && i + 1 + n < net->layers->len
         && in_place_on (net, i + 1 + n, id))
    {
      next[n] = net->layers->pdata[i + 1 + n];
      n++;
    }
  taken = n > 0 ? layer->klass->absorb (layer, next, n, &backward) : 0;
  if (taken == 0)
    return;
  layer->n_absorbed = taken;
  layer->absorbs_backward = backward && net->memory_plan == CT_NET_MEMORY_TRAINING
                            && chain_runs_backward (net, i, taken);
  for (guint j = 0; j < taken; j++)
    {
      layer->absorbed[j] = next[j];
      next[j]->absorbed_by = layer;
    }
}

/* Tell the layers what the plan lets them skip: keeping anything for a
 * backward pass that never runs, a copy of a bottom that the layer
 * before keeps anyway (Scale in place after BatchNorm), and passes of
 * their own that the layer before runs with its own. */
static void
wire_layers (CtNet *net)
{
  for (guint i = 0; i < net->layers->len; i++)
    {
      CtLayer *layer = net->layers->pdata[i];
      CtLayer *prev = i > 0 ? net->layers->pdata[i - 1] : NULL;
      CtNetLinks *links = net->links->pdata[i];

      layer->forward_only = net->memory_plan == CT_NET_MEMORY_FORWARD;
      if (prev == NULL || prev->klass->kept_top == NULL || !ct_layer_in_place (layer, 0) ||
          !ct_layer_in_place (prev, 0) || links->bottom_ids->len == 0)
        continue;
      if (g_array_index (links->bottom_ids, guint, 0) ==
          g_array_index (((CtNetLinks *) net->links->pdata[i - 1])->top_ids, guint, 0))
        layer->bottom_kept = prev->klass->kept_top (prev);
    }
  for (guint i = 0; i < net->layers->len; i++)
    if (((CtLayer *) net->layers->pdata[i])->absorbed_by == NULL)
      absorb_layers (net, i);
}

void
ct_net_plan_memory (CtNet *net)
{
  g_autoptr (GArray) buffers = g_array_new (FALSE, FALSE, sizeof (Buffer));
  g_autoptr (GHashTable) by_mem = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) planned = g_ptr_array_new ();
  gboolean training = FALSE;
  gsize params_all = 0;

  for (guint i = 0; i < net->links->len && net->memory_plan == CT_NET_MEMORY_TRAINING; i++)
    training |= ((CtNetLinks *) net->links->pdata[i])->need_backward;
  /* a net no backward pass changes is planned as one that runs forward */
  if (!training)
    net->memory_plan = CT_NET_MEMORY_FORWARD;
  g_array_set_clear_func (buffers, (GDestroyNotify) buffer_clear);
  wire_layers (net);

  for (guint b = 0; b < net->blobs->len; b++)
    for (guint d = 0; d < 2; d++)
      {
        CtBlob *blob = net->blobs->pdata[b];
        CtMem *mem = d ? ct_blob_get_diff_mem (blob) : ct_blob_get_data_mem (blob);
        Buffer *buffer = find_buffer (buffers, by_mem, mem);
        guint use = b * 2 + d;
        Life life;

        if (ct_mem_get_head (mem) != CT_MEM_UNINITIALIZED)
          life.kind = LIFE_KEPT;
        else if (d == 1 && !training)
          life.kind = LIFE_UNUSED;
        else if (is_kept_blob (net, b))
          life.kind = LIFE_KEPT;
        else if (d == 0)
          life = data_life (net, b, training);
        else
          life = diff_life (net, b);
        life_merge (&buffer->life, &life);
        buffer->n_uses++;
        g_array_append_val (buffer->uses, use);
      }

  net->memory_unplanned = 0;
  net->memory_planned = param_bytes (net, training, &params_all);
  net->memory_unplanned += params_all;
  for (guint i = 0; i < buffers->len; i++)
    {
      Buffer *buffer = &g_array_index (buffers, Buffer, i);

      net->memory_unplanned += buffer->bytes;
      /* Held by a layer too: its values are the layer's business. */
      if (ct_mem_get_ref_count (buffer->mem) > (int) buffer->n_uses)
        buffer->life.kind = LIFE_KEPT;
      switch (buffer->life.kind)
        {
        case LIFE_KEPT:
          net->memory_planned += buffer->bytes;
          break;
        case LIFE_UNUSED:
          leave_unallocated (net, buffer->mem);
          break;
        case LIFE_PLANNED:
          g_ptr_array_add (planned, buffer);
          break;
        }
    }
  net->memory_planned += assign_slots (net, planned);
}

gboolean
ct_net_is_lazy_mem (const CtNet *net, CtMem *mem)
{
  return net->lazy_mems != NULL && g_hash_table_contains (net->lazy_mems, mem);
}

/* Every distinct memory of the blobs and parameters, each blob with its
 * own (an unplanned net). */
static gsize
count_all (const CtNet *net)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  GPtrArray *lists[2] = { net->blobs, net->params };
  gsize total = 0;

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; i < lists[l]->len; i++)
      for (guint d = 0; d < 2; d++)
        {
          CtBlob *blob = lists[l]->pdata[i];
          CtMem *mem = d ? ct_blob_get_diff_mem (blob) : ct_blob_get_data_mem (blob);

          if (g_hash_table_add (seen, mem))
            total += ct_mem_get_size (mem);
        }
  return total;
}

void
ct_net_get_memory (const CtNet *net, gsize *planned, gsize *unplanned)
{
  if (net->memory_plan == CT_NET_MEMORY_KEEP_ALL)
    {
      gsize all = count_all (net);

      if (planned != NULL)
        *planned = all;
      if (unplanned != NULL)
        *unplanned = all;
      return;
    }
  if (planned != NULL)
    *planned = net->memory_planned;
  if (unplanned != NULL)
    *unplanned = net->memory_unplanned;
}
