/* explain.c: the entry point that picks the family explaining a value, and
 * the building of an explanation term by term (its sum written out). */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "explain-private.h"

/* More terms than this are summed up as "the other N terms" after the
 * largest ones: a 5×5 filter's 25 terms are all written, an inner
 * product's 800 are not. */
#define ALL_TERMS_UP_TO 25
#define LARGEST_TERMS 10

typedef gboolean (*ExplainFunc) (CtValueExplanation *e, const CtExplainLayer *layer,
                                 GError **error);

typedef struct {
  const char *type;
  ExplainFunc data;  /* a value of top 0 */
  ExplainFunc diff;  /* a diff of bottom 0 */
  gboolean every_bottom; /* the diff of any bottom is explained, not only 0's */
} Family;

static const Family families[] = {
  { "Convolution", ct_explain_convolution, ct_explain_convolution_diff },
  { "Pooling", ct_explain_pooling, ct_explain_pooling_diff },
  { "InnerProduct", ct_explain_inner_product, ct_explain_inner_product_diff },
  { "ReLU", ct_explain_neuron, ct_explain_neuron_diff },
  { "Sigmoid", ct_explain_neuron, ct_explain_neuron_diff },
  { "TanH", ct_explain_neuron, ct_explain_neuron_diff },
  { "Softmax", ct_explain_softmax, ct_explain_softmax_diff },
  { "SoftmaxWithLoss", ct_explain_softmax_loss, ct_explain_softmax_loss_diff },
  { "Split", ct_explain_copy, ct_explain_copy_diff },
  { "Flatten", ct_explain_copy, ct_explain_copy_diff },
  { "Reshape", ct_explain_copy, ct_explain_copy_diff },
  { "Concat", ct_explain_concat, ct_explain_concat_diff, TRUE },
  { "LRN", ct_explain_lrn, ct_explain_lrn_diff },
  { "Eltwise", ct_explain_eltwise, ct_explain_eltwise_diff, TRUE },
  { "BatchNorm", ct_explain_batch_norm, ct_explain_batch_norm_diff },
  { "Scale", ct_explain_scale, ct_explain_scale_diff },
  { "EuclideanLoss", ct_explain_euclidean_loss, ct_explain_euclidean_loss_diff, TRUE },
  { "SigmoidCrossEntropyLoss", ct_explain_sigmoid_loss, ct_explain_sigmoid_loss_diff },
};

static void
term_clear (gpointer data)
{
  CtExplainTerm *t = data;

  g_free (t->label);
  g_free (t->factor_label);
}

void
ct_value_explanation_free (CtValueExplanation *e)
{
  if (e == NULL)
    return;
  g_free (e->layer_name);
  g_free (e->layer_type);
  g_free (e->blob);
  g_free (e->rule);
  g_free (e->note);
  g_clear_pointer (&e->terms, g_array_unref);
  g_free (e->sum);
  g_free (e->input_blob);
  g_free (e);
}

gboolean
ct_explain_fail (GError **error, int code, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_set_error_literal (error, G_IO_ERROR, code, "");
  if (error != NULL && *error != NULL)
    {
      g_free ((*error)->message);
      (*error)->message = g_strdup_vprintf (format, args);
    }
  va_end (args);
  return FALSE;
}

gint64
ct_explain_offset (const CtExplainArray *a, const gint64 *index)
{
  gint64 offset = 0;

  for (guint i = 0; i < a->n_axes; i++)
    {
      if (index[i] < 0 || index[i] >= a->dims[i])
        return -1;
      offset = offset * a->dims[i] + index[i];
    }
  return offset;
}

gint64
ct_explain_offset4 (const CtExplainArray *a, gint64 n, gint64 c, gint64 h, gint64 w)
{
  const gint64 index[4] = { n, c, h, w };

  if (a->n_axes != 4)
    return -1;
  return ct_explain_offset (a, index);
}

gint64
ct_explain_item_count (const CtExplainArray *a)
{
  gint64 count = 1;

  for (guint i = 1; i < a->n_axes; i++)
    count *= a->dims[i];
  return count;
}

const char *
ct_explain_number (char buf[G_ASCII_DTOSTR_BUF_SIZE], double value)
{
  if (value == 0)
    value = 0; /* no "-0" */
  return g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.4g", value);
}

char *
ct_explain_index_text (const gint64 *index, guint n_axes)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < n_axes; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", index[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

CtValueExplanation *
ct_explain_begin (const CtExplainLayer *layer, const CtExplainArray *blob, const gint64 *index,
                  guint n_axes, gboolean diff, GError **error)
{
  g_autoptr (CtValueExplanation) e = g_new0 (CtValueExplanation, 1);
  const float *values = diff ? blob->diff : blob->data;
  gint64 offset;

  if (n_axes != blob->n_axes || n_axes > CT_EXPLAIN_MAX_AXES)
    {
      ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                       _("%s has %u axes, the index %u"), blob->name, blob->n_axes, n_axes);
      return NULL;
    }
  offset = ct_explain_offset (blob, index);
  if (offset < 0)
    {
      g_autofree char *text = ct_explain_index_text (index, n_axes);

      ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT, _("%s has no value at %s"),
                       blob->name, text);
      return NULL;
    }
  if (values == NULL)
    {
      ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                       diff ? _("the diff of %s is not computed yet")
                            : _("%s is not computed yet"), blob->name);
      return NULL;
    }
  e->layer_name = g_strdup (layer->param->name != NULL ? layer->param->name : "");
  e->layer_type = g_strdup (layer->param->type != NULL ? layer->param->type : "");
  e->blob = g_strdup (blob->name);
  e->diff = diff;
  e->n_axes = n_axes;
  memcpy (e->index, index, n_axes * sizeof (gint64));
  e->value = values[offset];
  e->terms = g_array_new (FALSE, TRUE, sizeof (CtExplainTerm));
  g_array_set_clear_func (e->terms, term_clear);
  e->filter = -1;
  return g_steal_pointer (&e);
}

void
ct_explain_add_term (CtValueExplanation *e, double input, double factor,
                     const char *factor_label, const char *format, ...)
{
  CtExplainTerm t = { 0 };
  va_list args;

  va_start (args, format);
  t.label = g_strdup_vprintf (format, args);
  va_end (args);
  t.factor_label = g_strdup (factor_label);
  t.input = input;
  t.factor = factor;
  t.product = input * factor;
  g_array_append_val (e->terms, t);
}

void
ct_explain_set_bias (CtValueExplanation *e, double bias)
{
  e->has_bias = TRUE;
  e->bias = bias;
}

/* A factor in parentheses when negative: "0.2 × (-0.5)". */
static void
append_factor (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  ct_explain_number (buf, v);
  g_string_append_printf (s, buf[0] == '-' ? "(%s)" : "%s", buf);
}

/* " + a × b", or " - a" for a plain negative term, "a × b" first. */
static void
append_term (GString *s, const CtExplainTerm *t, gboolean first)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE];
  gboolean plain = t->factor == 1 && t->factor_label == NULL;

  if (plain && !first && t->input < 0)
    {
      g_string_append_printf (s, " - %s", ct_explain_number (a, -t->input));
      return;
    }
  if (!first)
    g_string_append (s, " + ");
  if (plain)
    {
      g_string_append (s, ct_explain_number (a, t->input));
      return;
    }
  append_factor (s, t->input);
  g_string_append (s, " × ");
  append_factor (s, t->factor);
}

static int
by_size (gconstpointer a, gconstpointer b)
{
  double x = fabs ((*(const CtExplainTerm *const *) a)->product);
  double y = fabs ((*(const CtExplainTerm *const *) b)->product);

  return x < y ? 1 : x > y ? -1 : 0;
}

void
ct_explain_finish_sum (CtValueExplanation *e)
{
  GString *s = g_string_new (NULL);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double total = 0;
  guint n = e->terms->len;

  for (guint i = 0; i < n; i++)
    total += g_array_index (e->terms, CtExplainTerm, i).product;
  if (n <= ALL_TERMS_UP_TO)
    for (guint i = 0; i < n; i++)
      append_term (s, &g_array_index (e->terms, CtExplainTerm, i), i == 0);
  else
    {
      g_autoptr (GPtrArray) sorted = g_ptr_array_sized_new (n);
      double shown = 0;

      for (guint i = 0; i < n; i++)
        g_ptr_array_add (sorted, &g_array_index (e->terms, CtExplainTerm, i));
      g_ptr_array_sort (sorted, by_size);
      for (guint i = 0; i < LARGEST_TERMS; i++)
        {
          const CtExplainTerm *t = g_ptr_array_index (sorted, i);

          append_term (s, t, i == 0);
          shown += t->product;
        }
      g_string_append (s, total - shown < 0 ? " - " : " + ");
      /* TRANSLATORS: the sum of the terms not written out, and how many */
      g_string_append_printf (s, _("%s (the other %u terms)"),
                              ct_explain_number (buf, fabs (total - shown)), n - LARGEST_TERMS);
    }
  if (e->has_bias)
    {
      total += e->bias;
      if (n == 0)
        g_string_append (s, ct_explain_number (buf, e->bias));
      else
        g_string_append_printf (s, e->bias < 0 ? " - %s" : " + %s",
                                ct_explain_number (buf, fabs (e->bias)));
    }
  e->result = total;
  g_string_append_printf (s, " = %s", ct_explain_number (buf, total));
  g_free (e->sum);
  e->sum = g_string_free (s, FALSE);
}

void
ct_explain_trace_input (CtValueExplanation *e, const CtExplainLayer *layer)
{
  const char *input = NULL;
  const char *bottom;

  if (!e->has_window || layer->param->n_bottom <= e->bottom_index)
    return;
  bottom = layer->param->bottom[e->bottom_index];
  if (ct_explain_trace_window (layer->below, layer->n_below, bottom, &e->window, &input,
                               &e->input_window))
    {
      e->has_input_window = TRUE;
      e->input_blob = g_strdup (input);
    }
}

CtValueExplanation *
ct_explain_value (const CtExplainLayer *layer, guint top_index, const gint64 *index,
                  guint n_axes, gboolean diff, GError **error)
{
  const char *type = layer->param->type != NULL ? layer->param->type : "";
  const CtExplainArray *blob;
  g_autoptr (CtValueExplanation) e = NULL;
  ExplainFunc func = NULL;
  gboolean every_bottom = FALSE;

  for (gsize i = 0; i < G_N_ELEMENTS (families); i++)
    if (strcmp (families[i].type, type) == 0)
      {
        func = diff ? families[i].diff : families[i].data;
        every_bottom = diff && families[i].every_bottom;
      }
  if (func == NULL)
    {
      ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED,
                       diff ? _("Where a diff of a %s layer comes from is not shown yet")
                            : _("Where a value of a %s layer comes from is not shown yet"),
                       type);
      return NULL;
    }
  if (diff ? top_index >= layer->n_bottoms : top_index >= layer->n_tops)
    {
      ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT, _("%s has no blob %u there"),
                       layer->param->name, top_index);
      return NULL;
    }
  /* a Split's value is its bottom's whichever top; the layers that join
   * bottoms (Concat, Eltwise, a loss of two inputs) explain any bottom's
   * diff; the others use their first top or bottom */
  if (top_index > 0 && strcmp (type, "Split") != 0 && !every_bottom)
    {
      ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED,
                       _("Only the first output of %s is explained"), layer->param->name);
      return NULL;
    }
  blob = diff ? &layer->bottoms[top_index] : &layer->tops[top_index];
  e = ct_explain_begin (layer, blob, index, n_axes, diff, error);
  if (e == NULL)
    return NULL;
  e->blob_index = top_index;
  if (!func (e, layer, error))
    return NULL;
  return g_steal_pointer (&e);
}

char *
ct_explain_offset_text (const CtExplainArray *a, gint64 offset)
{
  gint64 index[CT_EXPLAIN_MAX_AXES] = { 0 };
  guint n = MIN (a->n_axes, CT_EXPLAIN_MAX_AXES);

  for (guint i = n; i-- > 0;)
    {
      index[i] = a->dims[i] > 0 ? offset % a->dims[i] : 0;
      offset = a->dims[i] > 0 ? offset / a->dims[i] : 0;
    }
  return ct_explain_index_text (index, n);
}

gboolean
ct_explain_need (const CtExplainLayer *layer, gboolean top_diff, GError **error)
{
  if (layer->n_bottoms < 1 || layer->n_tops < 1)
    return ct_explain_fail (error, G_IO_ERROR_NOT_SUPPORTED, _("%s has no input"),
                            layer->param->name);
  for (guint b = 0; b < layer->n_bottoms; b++)
    if (layer->bottoms[b].data == NULL)
      return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT, _("%s is not computed yet"),
                              layer->bottoms[b].name);
  for (guint t = 0; top_diff && t < layer->n_tops; t++)
    if (layer->tops[t].diff == NULL || layer->tops[t].data == NULL)
      return ct_explain_fail (error, G_IO_ERROR_INVALID_ARGUMENT,
                              _("the diff of %s is not computed yet"), layer->tops[t].name);
  return TRUE;
}
