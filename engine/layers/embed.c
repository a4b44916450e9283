/* embed.c: Embed, a lookup table: each bottom value is a word index in
 * [0, input_dim) and becomes row `index` of the input_dim x num_output
 * weights (plus a bias). The top has the bottom's shape with num_output
 * appended. Indices are data, so a bad one fails the forward with an error
 * naming it. The indices get no gradient. */
#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "blas.h"
#include "common.h"
#include "common-device-private.h"
#include "common-private.h"

typedef struct {
  CtLayer parent;
  gint64 m, k, n; /* M words, K = input_dim, N = num_output */
  gboolean bias_term;
  CtMem *indices; /* the words as row numbers (int64_t) */
} CtEmbedLayer;

static const Caffe__EmbedParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__EmbedParameter defaults = CAFFE__EMBED_PARAMETER__INIT;

  return layer->param->embed_param != NULL ? layer->param->embed_param : &defaults;
}

static gboolean
check_given_blobs (CtEmbedLayer *self, GError **error)
{
  CtLayer *layer = &self->parent;
  guint want = self->bias_term ? 2 : 1;

  if (layer->blobs->len != want)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          g_dngettext (GETTEXT_PACKAGE, "has %u parameter blob, expected %u",
                                       "has %u parameter blobs, expected %u", layer->blobs->len),
                          layer->blobs->len, want);
  if (ct_blob_count (g_ptr_array_index (layer->blobs, 0)) != self->k * self->n
      || (self->bias_term && ct_blob_count (g_ptr_array_index (layer->blobs, 1)) != self->n))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("parameter blobs do not fit input_dim %" PRId64
                            " and num_output %" PRId64), self->k, self->n);
  return TRUE;
}

static gboolean
embed_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtEmbedLayer *self = (CtEmbedLayer *) layer;
  const Caffe__EmbedParameter *p = get_param (layer);
  g_autoptr (CtRng) rng = NULL;
  gint64 dims[2];
  CtBlob *blob;

  if (!ct_common_not_in_place (layer, bottom, top, error))
    return FALSE;
  if (p->num_output == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, _("num_output must be positive"));
  if (p->input_dim == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("input_dim, the number of words, must be positive"));
  self->k = p->input_dim;
  self->n = p->num_output;
  self->bias_term = p->bias_term;
  if (layer->blobs->len > 0)
    return check_given_blobs (self, error);

  rng = ct_rng_new (layer->seed);
  dims[0] = self->k;
  dims[1] = self->n;
  blob = ct_common_add_param (layer, dims, 2, error);
  if (blob == NULL || !ct_layer_fill_param (layer, p->weight_filler, blob, rng, "weight_filler", error))
    return FALSE;
  if (self->bias_term)
    {
      blob = ct_common_add_param (layer, &self->n, 1, error);
      if (blob == NULL || !ct_layer_fill_param (layer, p->bias_filler, blob, rng, "bias_filler", error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
embed_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtEmbedLayer *self = (CtEmbedLayer *) layer;
  CtBlob *in = CT_BOTTOM (bottom, 0);
  guint n_axes = ct_blob_num_axes (in);
  gint64 dims[CT_BLOB_MAX_AXES];

  if (n_axes >= CT_BLOB_MAX_AXES)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE,
                          _("the bottom has too many axes to add one"));
  self->m = ct_blob_count (in);
  memcpy (dims, ct_blob_get_shape (in), n_axes * sizeof (gint64));
  dims[n_axes] = self->n;
  ct_common_grow_mem (&self->indices, (gsize) self->m * sizeof (int64_t));
  return ct_common_reshape_top (layer, CT_TOP (top, 0), 0, dims, n_axes + 1, error);
}

/* The bottom's values (blob WORDS) as row indices into self->indices, on
 * the device the layer runs on; NULL with an error naming a bad one. */
static const int64_t *
read_words (CtEmbedLayer *self, CtBlob *words, gboolean gpu, GError **error)
{
  CtLayer *layer = &self->parent;
  const float *values = ct_blob_data_on (words, gpu, error);
  int64_t *indices;
  gint64 bad = 0;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  CtStatus status;

  if (values == NULL || (indices = ct_common_mutable_mem_on (self->indices, gpu, error)) == NULL)
    return NULL;
  status = (gpu ? ct_cuda_float_indices : ct_cpu_float_indices) (self->m, values, self->k, TRUE,
                                                                 indices, &bad);
  if (status == CT_STATUS_OK)
    return indices;
  if (status != CT_STATUS_INVALID)
    {
      ct_common_check (layer, status, error);
      return NULL;
    }
  /* The bad value itself, for the message, from the CPU copy. */
  if ((values = ct_blob_cpu_data (words, error)) == NULL)
    return NULL;
  g_ascii_formatd (value, sizeof value, "%.9g", values[bad]);
  ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                 _("bottom value %" PRId64 " is %s, not a word index: "
                   "indices must be whole numbers from 0 to input_dim - 1 = %"
                   PRId64), bad, value, self->k - 1);
  return NULL;
}

static gboolean
embed_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
               GError **error)
{
  CtEmbedLayer *self = (CtEmbedLayer *) layer;
  const float *weight = ct_blob_data_on (g_ptr_array_index (layer->blobs, 0), gpu, error);
  float *out = ct_blob_mutable_data_on (CT_TOP (top, 0), gpu, error);
  const int64_t *indices;

  if (weight == NULL || out == NULL
      || (indices = read_words (self, CT_BOTTOM (bottom, 0), gpu, error)) == NULL)
    return FALSE;
  if (!ct_common_check (layer, (gpu ? ct_cuda_gather_rows : ct_cpu_gather_rows) (
                                   self->m, self->n, indices, weight, out), error))
    return FALSE;
  if (self->bias_term)
    {
      const float *bias = ct_blob_data_on (g_ptr_array_index (layer->blobs, 1), gpu, error);

      if (bias == NULL)
        return FALSE;
      return ct_common_check (layer, (gpu ? ct_cuda_bias_forward : ct_cpu_bias_forward) (
                                         self->m, self->n, 1, out, bias, out), error);
    }
  return TRUE;
}

static gboolean
embed_backward (CtLayer *layer, GPtrArray *top, const gboolean *propagate_down,
                GPtrArray *bottom, gboolean gpu, GError **error)
{
  CtEmbedLayer *self = (CtEmbedLayer *) layer;
  const float *top_diff = ct_blob_diff_on (CT_TOP (top, 0), gpu, error);
  const int64_t *indices;

  if (top_diff == NULL
      || (indices = read_words (self, CT_BOTTOM (bottom, 0), gpu, error)) == NULL)
    return FALSE;
  /* propagate_down[0] is ignored: word indices have no gradient. */
  if (ct_layer_param_propagate_down (layer, 0))
    {
      float *weight_diff = ct_blob_mutable_diff_on (g_ptr_array_index (layer->blobs, 0), gpu,
                                                    error);

      if (weight_diff == NULL)
        return FALSE;
      if (!ct_common_check (layer, (gpu ? ct_cuda_scatter_add_rows : ct_cpu_scatter_add_rows) (
                                       self->m, self->n, indices, top_diff, weight_diff), error))
        return FALSE;
    }
  if (self->bias_term && ct_layer_param_propagate_down (layer, 1))
    {
      float *bias_diff = ct_blob_mutable_diff_on (g_ptr_array_index (layer->blobs, 1), gpu,
                                                  error);

      if (bias_diff == NULL)
        return FALSE;
      return ct_common_check (layer, (gpu ? ct_cuda_bias_backward : ct_cpu_bias_backward) (
                                         self->m, self->n, 1, top_diff, TRUE, bias_diff), error);
    }
  return TRUE;
}

static gboolean
embed_allow_force_backward (const CtLayer *layer, guint bottom_index)
{
  return FALSE;
}

static void
embed_finalize (CtLayer *layer)
{
  g_clear_pointer (&((CtEmbedLayer *) layer)->indices, ct_mem_unref);
}

static const CtLayerExplanation embed_explanation = {
  .summary = N_("Looks up a learned vector for each index in its bottom (a word's "
                "embedding): an inner product with a one-hot input, without making the "
                "one-hot vector."),
  .formula = N_("y[n] = W[x[n]] + b"),
  .parameters = N_("num_output: the vector's length; input_dim: how many indices; bias_term."),
  .gradient = N_("Only the rows looked up get a diff: W[x[n]] gets the output diff of item "
                 "n; indices get none."),
};

const CtLayerClass ct_embed_layer_class = {
  .explanation = &embed_explanation,
  .type = "Embed",
  .family = CT_LAYER_FAMILY_COMMON,
  .description = N_("Looks up a learned vector for each word index"),
  .instance_size = sizeof (CtEmbedLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .setup = embed_setup,
  .reshape = embed_reshape,
  .forward = embed_forward,
  .backward = embed_backward,
  .gpu_forward = TRUE,
  .gpu_backward = TRUE,
  .allow_force_backward = embed_allow_force_backward,
  .finalize = embed_finalize,
  .new_layer_text = "embed_param { num_output: 32 input_dim: 1000 weight_filler { type: \"xavier\" } }",
};
