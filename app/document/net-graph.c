/* net-graph.c: a NetParameter as a CtGraphModel (see net-graph.h).
 *
 * Layers are walked in net order, as Caffe wires them: each bottom reads
 * the latest writer of that blob name, and a layer writing a blob in place
 * becomes its latest writer. The phases are walked together: a writer map
 * per phase, so that in "both phases" a layer present in TRAIN and TEST
 * reads from the TRAIN data layer and from the TEST data layer alike. */
#include "net-graph.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "layer-catalogue.h"
#include "net.h"
#include "stand-in-shapes.h"
#include "upgrade.h"

enum { TRAIN, TEST, N_PHASES };

/* The latest writer of a blob in one phase. */
typedef struct {
  guint node;
  guint port;
  char *shape;  /* NULL when unknown */
} Writer;

static void
writer_free (gpointer data)
{
  Writer *w = data;
  g_free (w->shape);
  g_free (w);
}

char *
ct_net_graph_shape_text (const gint64 *dims, guint n_axes)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n_axes; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? "×" : "", dims[i]);
  if (n_axes == 0)
    g_string_append (s, "()");  /* a scalar, such as a loss */
  return g_string_free (s, FALSE);
}

gboolean
ct_net_graph_parse_phase (const char *text, CtNetGraphPhase *phase)
{
  if (g_ascii_strcasecmp (text, "TRAIN") == 0)
    *phase = CT_NET_GRAPH_PHASE_TRAIN;
  else if (g_ascii_strcasecmp (text, "TEST") == 0)
    *phase = CT_NET_GRAPH_PHASE_TEST;
  else if (g_ascii_strcasecmp (text, "BOTH") == 0)
    *phase = CT_NET_GRAPH_PHASE_BOTH;
  else
    return FALSE;
  return TRUE;
}

static CtGraphFamily
family_of (const char *type)
{
  const CtLayerClass *klass = type != NULL ? ct_layer_catalogue_lookup (type) : NULL;

  /* the two enums list the families in the same order */
  G_STATIC_ASSERT ((int) CT_LAYER_FAMILY_UTILITY == (int) CT_GRAPH_FAMILY_UTILITY);
  G_STATIC_ASSERT ((int) CT_LAYER_FAMILY_DATA == (int) CT_GRAPH_FAMILY_DATA);
  if (klass == NULL || (guint) klass->family >= CT_LAYER_N_FAMILIES)
    return CT_GRAPH_FAMILY_OTHER;
  return (CtGraphFamily) klass->family;
}

/* Caffe's rule matching, for when shape inference is not asked for or
 * could not start. */
static gboolean
has_stage (const char *const *stages, gsize n, const char *stage)
{
  for (gsize i = 0; i < n; i++)
    if (g_strcmp0 (stages[i], stage) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
state_meets_rule (Caffe__Phase phase, int level, const char *const *stages, gsize n_stages,
                  const Caffe__NetStateRule *rule)
{
  if (rule->has_phase && rule->phase != phase)
    return FALSE;
  if (rule->has_min_level && level < rule->min_level)
    return FALSE;
  if (rule->has_max_level && level > rule->max_level)
    return FALSE;
  for (gsize i = 0; i < rule->n_stage; i++)
    if (!has_stage (stages, n_stages, rule->stage[i]))
      return FALSE;
  for (gsize i = 0; i < rule->n_not_stage; i++)
    if (has_stage (stages, n_stages, rule->not_stage[i]))
      return FALSE;
  return TRUE;
}

static gboolean
layer_in_phase (const Caffe__LayerParameter *layer, Caffe__Phase phase, int level,
                GPtrArray *stages)
{
  const char *const *s = (const char *const *) stages->pdata;
  gboolean included = layer->n_include == 0;

  for (gsize i = 0; i < layer->n_exclude; i++)
    if (state_meets_rule (phase, level, s, stages->len, layer->exclude[i]))
      included = FALSE;
  for (gsize i = 0; i < layer->n_include; i++)
    if (state_meets_rule (phase, level, s, stages->len, layer->include[i]))
      included = TRUE;
  return included;
}

/* Short parameter summaries shown under a node's name. */
static char *
dims_pair (guint h, guint w)
{
  return g_strdup_printf ("%u×%u", h, w);
}

static char *
convolution_detail (const Caffe__ConvolutionParameter *p)
{
  guint kh = 0, kw = 0, sh = 1, sw = 1;
  g_autofree char *kernel = NULL;
  GString *s = g_string_new (NULL);

  if (p == NULL)
    return g_string_free (s, TRUE);
  if (p->n_kernel_size > 0)
    kh = kw = p->kernel_size[0];
  if (p->n_kernel_size > 1)
    kw = p->kernel_size[1];
  if (p->has_kernel_h)
    kh = p->kernel_h;
  if (p->has_kernel_w)
    kw = p->kernel_w;
  if (p->n_stride > 0)
    sh = sw = p->stride[0];
  if (p->n_stride > 1)
    sw = p->stride[1];
  if (p->has_stride_h)
    sh = p->stride_h;
  if (p->has_stride_w)
    sw = p->stride_w;
  kernel = dims_pair (kh, kw);
  g_string_append (s, kernel);
  if (sh != 1 || sw != 1)
    {
      if (sh == sw)
        g_string_append_printf (s, " /%u", sh);
      else
        g_string_append_printf (s, " /%u×%u", sh, sw);
    }
  if (p->has_num_output)
    /* TRANSLATORS: a convolution's output channels, as in "3×3 /2, 64 out" */
    g_string_append_printf (s, _(", %u out"), p->num_output);
  if (p->has_group && p->group > 1)
    /* TRANSLATORS: convolution groups */
    g_string_append_printf (s, _(", %u groups"), p->group);
  return g_string_free (s, FALSE);
}

static char *
pooling_detail (const Caffe__PoolingParameter *p)
{
  static const char *const methods[] = { "MAX", "AVE", "STOCHASTIC" };
  guint method = p != NULL && p->has_pool ? (guint) p->pool : 0;
  const char *name = method < G_N_ELEMENTS (methods) ? methods[method] : "?";
  guint kh, kw, sh, sw;
  g_autofree char *kernel = NULL;

  if (p == NULL)
    return g_strdup (name);
  if (p->has_global_pooling && p->global_pooling)
    /* TRANSLATORS: global pooling, after the method: "AVE global" */
    return g_strdup_printf (_("%s global"), name);
  kh = kw = p->has_kernel_size ? p->kernel_size : 0;
  if (p->has_kernel_h)
    kh = p->kernel_h;
  if (p->has_kernel_w)
    kw = p->kernel_w;
  sh = sw = p->has_stride ? p->stride : 1;
  if (p->has_stride_h)
    sh = p->stride_h;
  if (p->has_stride_w)
    sw = p->stride_w;
  kernel = dims_pair (kh, kw);
  if (sh == 1 && sw == 1)
    return g_strdup_printf ("%s %s", name, kernel);
  return sh == sw ? g_strdup_printf ("%s %s /%u", name, kernel, sh)
                  : g_strdup_printf ("%s %s /%u×%u", name, kernel, sh, sw);
}

static char *
layer_detail (const Caffe__LayerParameter *layer)
{
  const char *type = layer->type != NULL ? layer->type : "";

  if (strcmp (type, "Convolution") == 0 || strcmp (type, "Deconvolution") == 0)
    return convolution_detail (layer->convolution_param);
  if (strcmp (type, "Pooling") == 0)
    return pooling_detail (layer->pooling_param);
  if (strcmp (type, "InnerProduct") == 0 && layer->inner_product_param != NULL
      && layer->inner_product_param->has_num_output)
    /* TRANSLATORS: an inner product's outputs */
    return g_strdup_printf (_("%u out"), layer->inner_product_param->num_output);
  if (strcmp (type, "Eltwise") == 0)
    {
      static const char *const ops[] = { "PROD", "SUM", "MAX" };
      guint op = layer->eltwise_param != NULL && layer->eltwise_param->has_operation
                   ? (guint) layer->eltwise_param->operation : 1;
      return g_strdup (op < G_N_ELEMENTS (ops) ? ops[op] : "?");
    }
  if (strcmp (type, "Data") == 0 && layer->data_param != NULL
      && layer->data_param->has_batch_size)
    /* TRANSLATORS: a data layer's batch size */
    return g_strdup_printf (_("batch %u"), layer->data_param->batch_size);
  if (strcmp (type, "Input") == 0 && layer->input_param != NULL
      && layer->input_param->n_shape > 0)
    {
      const Caffe__BlobShape *shape = layer->input_param->shape[0];
      return ct_net_graph_shape_text ((const gint64 *) shape->dim, shape->n_dim);
    }
  return NULL;
}

/* One phase's inference: for each NetParameter layer, its record or NULL. */
typedef struct {
  CtNetShapes *shapes;
  GPtrArray *by_layer;  /* CtNetShapeLayer* (borrowed) or NULL, per layer */
  gboolean *shown;      /* per layer */
} PhaseInfo;

static void
phase_info_clear (PhaseInfo *info)
{
  g_clear_pointer (&info->shapes, ct_net_shapes_free);
  g_clear_pointer (&info->by_layer, g_ptr_array_unref);
  g_clear_pointer (&info->shown, g_free);
}

static void
phase_info_fill (PhaseInfo *info, const Caffe__NetParameter *param,
                 const CtNetGraphOptions *options, Caffe__Phase phase, GPtrArray *stages,
                 char **net_error)
{
  gsize n = param->n_layer;

  info->by_layer = g_ptr_array_new ();
  g_ptr_array_set_size (info->by_layer, n);
  info->shown = g_new0 (gboolean, MAX (n, 1));
  if (!options->no_shapes)
    {
      CtNetConfig config = { 0 };

      config.phase = phase;
      config.level = options->level;
      config.stages = options->stages;
      config.seed = 1;
      config.source_name = options->source_name;
      info->shapes = ct_net_infer_shapes_with_stand_ins (param, &config, options->stand_ins);
      if (info->shapes->error != NULL && *net_error == NULL)
        *net_error = g_strdup (info->shapes->error->message);
      for (guint i = 0; i < info->shapes->layers->len; i++)
        {
          CtNetShapeLayer *l = g_ptr_array_index (info->shapes->layers, i);
          if (l->source_index >= 0 && (gsize) l->source_index < n)
            {
              g_ptr_array_index (info->by_layer, l->source_index) = l;
              info->shown[l->source_index] = TRUE;
            }
        }
      if (info->shapes->layers->len > 0)
        return;
    }
  /* no inference, or it could not start: filter as Caffe does */
  for (gsize i = 0; i < n; i++)
    info->shown[i] = layer_in_phase (param->layer[i], phase, options->level, stages);
}

typedef struct {
  const CtNetGraphOptions *options;
  const Caffe__NetParameter *param;
  CtNetGraph *graph;
  PhaseInfo info[N_PHASES];
  gboolean active[N_PHASES];      /* phases shown */
  GHashTable *writers[N_PHASES];  /* blob name -> Writer* */
} Builder;

static const CtNetShapeLayer *
record_of (Builder *b, int phase, gsize layer)
{
  if (!b->active[phase] || !b->info[phase].shown[layer])
    return NULL;
  return g_ptr_array_index (b->info[phase].by_layer, layer);
}

/* The layer's error: the first phase that has one. */
static const char *
layer_error (Builder *b, gsize layer)
{
  for (int p = 0; p < N_PHASES; p++)
    {
      const CtNetShapeLayer *rec = record_of (b, p, layer);
      if (rec != NULL && rec->status == CT_NET_LAYER_FAILED && rec->error != NULL)
        return rec->error->message;
    }
  return NULL;
}

static gboolean
in_phase (Builder *b, int phase, gsize layer)
{
  return b->active[phase] && b->info[phase].shown[layer];
}

/* Fold LAYER into the node that wrote its blob, if every phase it runs in
 * has the same writer. */
static gboolean
try_fold (Builder *b, gsize index)
{
  const Caffe__LayerParameter *layer = b->param->layer[index];
  int node = -1;

  if (b->options->no_fold || layer->n_bottom != 1 || layer->n_top != 1
      || g_strcmp0 (layer->bottom[0], layer->top[0]) != 0)
    return FALSE;
  for (int p = 0; p < N_PHASES; p++)
    {
      const Writer *w;
      if (!in_phase (b, p, index))
        continue;
      w = g_hash_table_lookup (b->writers[p], layer->bottom[0]);
      if (w == NULL || (node >= 0 && (guint) node != w->node))
        return FALSE;
      node = (int) w->node;
    }
  if (node < 0)
    return FALSE;
  ct_graph_model_add_folded (b->graph->model, (guint) node, layer->name, layer->name,
                             layer->type, family_of (layer->type), layer_error (b, index));
  g_array_index (b->graph->layer_nodes, int, index) = node;
  return TRUE;
}

static void
connect_bottoms (Builder *b, gsize index, guint node)
{
  const Caffe__LayerParameter *layer = b->param->layer[index];

  for (gsize j = 0; j < layer->n_bottom; j++)
    {
      guint port = ct_graph_model_add_bottom (b->graph->model, node, layer->bottom[j]);
      const Writer *done[N_PHASES] = { NULL };

      for (int p = 0; p < N_PHASES; p++)
        {
          const Writer *w;
          gboolean seen = FALSE;

          if (!in_phase (b, p, index))
            continue;
          w = g_hash_table_lookup (b->writers[p], layer->bottom[j]);
          if (w == NULL)
            continue;
          for (int q = 0; q < p; q++)
            if (done[q] != NULL && done[q]->node == w->node && done[q]->port == w->port)
              seen = TRUE;
          done[p] = w;
          if (!seen)
            ct_graph_model_add_edge (b->graph->model, w->node, w->port, node, port,
                                     layer->bottom[j], w->shape);
        }
    }
}

/* The shape of top J of layer INDEX: in the first phase shown that knows
 * it, so that one blob carries one label in "both phases" (TRAIN's batch
 * size, say, not TRAIN's on one edge and TEST's on the next). */
static char *
top_shape (Builder *b, gsize index, gsize j)
{
  for (int p = 0; p < N_PHASES; p++)
    {
      const CtNetShapeLayer *rec = record_of (b, p, index);
      if (rec != NULL && j < rec->tops->len)
        {
          const CtNetShapeBlob *blob = g_ptr_array_index (rec->tops, j);
          if (blob->known)
            return ct_net_graph_shape_text (blob->dims, blob->n_axes);
        }
    }
  return NULL;
}

static void
add_tops (Builder *b, gsize index, guint node)
{
  const Caffe__LayerParameter *layer = b->param->layer[index];

  for (gsize j = 0; j < layer->n_top; j++)
    {
      guint port = ct_graph_model_add_top (b->graph->model, node, layer->top[j]);
      g_autofree char *shape = top_shape (b, index, j);

      for (int p = 0; p < N_PHASES; p++)
        {
          Writer *w;

          if (!in_phase (b, p, index))
            continue;
          w = g_new0 (Writer, 1);
          w->node = node;
          w->port = port;
          w->shape = g_strdup (shape);
          g_hash_table_insert (b->writers[p], g_strdup (layer->top[j]), w);
        }
    }
}

static void
add_layer (Builder *b, gsize index)
{
  const Caffe__LayerParameter *layer = b->param->layer[index];
  CtGraphModel *model = b->graph->model;
  const char *name = layer->name != NULL && *layer->name != '\0' ? layer->name : layer->type;
  g_autofree char *detail = layer_detail (layer);
  guint node;
  int node_index;

  node = ct_graph_model_add_node (model, name, name, layer->type, family_of (layer->type));
  node_index = (int) index;
  g_array_append_val (b->graph->node_layers, node_index);
  g_array_index (b->graph->layer_nodes, int, index) = (int) node;
  ct_graph_model_set_detail (model, node, detail);
  ct_graph_model_set_error (model, node, layer_error (b, index));
  if (b->active[TRAIN] && b->active[TEST])
    {
      gboolean train = in_phase (b, TRAIN, index), test = in_phase (b, TEST, index);
      if (train && !test)
        ct_graph_model_set_phase (model, node, CT_GRAPH_PHASE_TRAIN);
      else if (test && !train)
        ct_graph_model_set_phase (model, node, CT_GRAPH_PHASE_TEST);
    }
  connect_bottoms (b, index, node);
  add_tops (b, index, node);
}

static guint64
count_params (const PhaseInfo *info)
{
  guint64 total = 0;

  for (guint i = 0; info->shapes != NULL && i < info->shapes->layers->len; i++)
    {
      const CtNetShapeLayer *l = g_ptr_array_index (info->shapes->layers, i);
      for (guint j = 0; j < l->params->len; j++)
        {
          const CtNetShapeBlob *p = g_ptr_array_index (l->params, j);
          guint64 count = 1;
          for (guint k = 0; p->known && k < p->n_axes; k++)
            count *= (guint64) MAX (p->dims[k], 0);
          if (p->known)
            total += count;
        }
    }
  return total;
}

/* A copy of PARAM brought to the current format, or NULL on failure. */
static Caffe__NetParameter *
upgraded_copy (const Caffe__NetParameter *param, const char *source, char **net_error)
{
  gsize size = protobuf_c_message_get_packed_size (&param->base);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));
  Caffe__NetParameter *copy;
  g_autoptr(GError) error = NULL;

  protobuf_c_message_pack (&param->base, bytes);
  copy = caffe__net_parameter__unpack (NULL, size, bytes);
  if (copy == NULL)
    {
      *net_error = g_strdup (_("the net could not be copied for upgrading"));
      return NULL;
    }
  if (!ct_upgrade_net (copy, source, NULL, &error))
    *net_error = g_strdup (error->message);
  return copy;
}

CtNetGraph *
ct_net_graph_new (const Caffe__NetParameter *param, const CtNetGraphOptions *options)
{
  static const CtNetGraphOptions defaults = { .phase = CT_NET_GRAPH_PHASE_BOTH };
  CtNetGraph *graph = g_new0 (CtNetGraph, 1);
  Caffe__NetParameter *upgraded = NULL;
  g_autoptr(GPtrArray) stages = g_ptr_array_new ();
  Builder b = { 0 };

  if (options == NULL)
    options = &defaults;
  graph->model = ct_graph_model_new ();
  graph->node_layers = g_array_new (FALSE, FALSE, sizeof (int));
  graph->layer_nodes = g_array_new (FALSE, FALSE, sizeof (int));

  if (ct_net_needs_upgrade (param))
    {
      upgraded = upgraded_copy (param, options->source_name, &graph->net_error);
      if (upgraded == NULL)
        return graph;
      param = upgraded;
    }
  if (param->state != NULL)
    for (gsize i = 0; i < param->state->n_stage; i++)
      g_ptr_array_add (stages, param->state->stage[i]);
  for (gsize i = 0; options->stages != NULL && options->stages[i] != NULL; i++)
    g_ptr_array_add (stages, (gpointer) options->stages[i]);

  b.options = options;
  b.param = param;
  b.graph = graph;
  b.active[TRAIN] = options->phase != CT_NET_GRAPH_PHASE_TEST;
  b.active[TEST] = options->phase != CT_NET_GRAPH_PHASE_TRAIN;
  for (int p = 0; p < N_PHASES; p++)
    {
      b.writers[p] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, writer_free);
      if (b.active[p])
        phase_info_fill (&b.info[p], param, options,
                         p == TRAIN ? CAFFE__PHASE__TRAIN : CAFFE__PHASE__TEST, stages,
                         &graph->net_error);
    }

  g_array_set_size (graph->layer_nodes, param->n_layer);
  for (gsize i = 0; i < param->n_layer; i++)
    {
      g_array_index (graph->layer_nodes, int, i) = -1;
      if (!in_phase (&b, TRAIN, i) && !in_phase (&b, TEST, i))
        continue;
      graph->n_layers_shown++;
      if (layer_error (&b, i) != NULL)
        graph->n_failed++;
      if (!try_fold (&b, i))
        add_layer (&b, i);
    }
  graph->n_params = count_params (&b.info[b.active[TRAIN] ? TRAIN : TEST]);

  for (int p = 0; p < N_PHASES; p++)
    {
      g_hash_table_unref (b.writers[p]);
      phase_info_clear (&b.info[p]);
    }
  if (upgraded != NULL)
    protobuf_c_message_free_unpacked (&upgraded->base, NULL);
  return graph;
}

void
ct_net_graph_free (CtNetGraph *graph)
{
  if (graph == NULL)
    return;
  ct_graph_model_unref (graph->model);
  g_array_unref (graph->node_layers);
  g_array_unref (graph->layer_nodes);
  g_free (graph->net_error);
  g_free (graph);
}

int
ct_net_graph_layer_for_id (const CtNetGraph *graph, const Caffe__NetParameter *net,
                           const char *id)
{
  const CtGraphNode *node;
  int index;

  if (graph == NULL || id == NULL || net == NULL)
    return -1;
  index = ct_graph_model_find_node (graph->model, id);
  if (index < 0 || (guint) index >= graph->node_layers->len)
    return -1;
  node = ct_graph_model_get_node (graph->model, (guint) index);
  if (g_strcmp0 (node->id, id) == 0)
    {
      int layer = g_array_index (graph->node_layers, int, index);
      return layer >= 0 && (gsize) layer < net->n_layer ? layer : -1;
    }
  /* A layer folded into NODE: the one of that name shown by it. */
  for (guint i = 0; node->folded != NULL && i < node->folded->len; i++)
    {
      const CtGraphFolded *folded = node->folded->pdata[i];
      if (g_strcmp0 (folded->id, id) != 0)
        continue;
      for (guint l = 0; l < graph->layer_nodes->len && l < net->n_layer; l++)
        if (g_array_index (graph->layer_nodes, int, l) == index
            && g_strcmp0 (net->layer[l]->name, folded->name) == 0)
          return (int) l;
    }
  return -1;
}
