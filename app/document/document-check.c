/* document-check.c: CtDocument's validation. After each change the text is
 * parsed again on a worker thread and the engine infers every shape (no
 * tensor memory), so that a 500-layer net never freezes the window; the
 * result gives each layer's error and the summary line. Results of a check
 * overtaken by a newer change are dropped. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "document-private.h"
#include "text-format.h"
#include "upgrade.h"
#include "net-edit.h"
#include "stand-in-shapes.h"

/* Wait this long after a change before checking: a burst of edits is
 * checked once. */
#define CHECK_DELAY_MS 120

void ct_document_emit_validated (CtDocument *self);
void ct_document_notify_validating (CtDocument *self);

typedef struct {
  char *text;
  char *name;
  char *base_dir;
  CtDocumentPhase phase;
  guint serial;
  GHashTable *stand_ins;  /* data layer name -> stand-in shape text */
} CheckInput;

typedef struct {
  CtNetShapes *shapes;
  CtNetShapes *test_shapes;
  GPtrArray *errors;  /* GError* per layer of the net, NULL when fine */
  char *summary;
} CheckOutput;

static void
check_input_free (CheckInput *input)
{
  g_free (input->text);
  g_free (input->name);
  g_free (input->base_dir);
  g_hash_table_unref (input->stand_ins);
  g_free (input);
}

static void
check_output_free (CheckOutput *output)
{
  g_clear_pointer (&output->shapes, ct_net_shapes_free);
  g_clear_pointer (&output->test_shapes, ct_net_shapes_free);
  g_clear_pointer (&output->errors, g_ptr_array_unref);
  g_free (output->summary);
  g_free (output);
}

static guint64
blob_count (const CtNetShapeBlob *blob)
{
  guint64 count = 1;

  if (!blob->known)
    return 0;
  for (guint i = 0; i < blob->n_axes; i++)
    count *= (guint64) MAX (blob->dims[i], 0);
  return count;
}

/* 431080 -> "431,080": parameters are counted exactly. */
static char *
format_grouped (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

/* 4630000 -> "4.6 M": FLOPs are an estimate, shown with an SI prefix. */
static char *
format_count (guint64 n)
{
  static const char *const units[] = { " ", " k", " M", " G", " T" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double value = (double) n;
  guint unit = 0;

  if (n < 10000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " ", n);
  while (value >= 1000 && unit + 1 < G_N_ELEMENTS (units))
    value /= 1000, unit++;
  g_ascii_formatd (buf, sizeof buf, value < 100 ? "%.1f" : "%.0f", value);
  return g_strconcat (buf, units[unit], NULL);
}

static char *
summarize (const CtNetShapes *shapes, guint n_errors)
{
  guint layers = 0, inferred = 0;
  guint64 params = 0, flops = 0, activations = 0;
  g_autofree char *params_text = NULL;
  g_autofree char *flops_text = NULL;
  g_autofree char *memory_text = NULL;
  g_autofree char *layers_text = NULL;
  g_autofree char *line = NULL;

  for (guint i = 0; i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *layer = shapes->layers->pdata[i];

      if (layer->source_index < 0)
        continue; /* inserted Split layers */
      layers++;
      if (layer->status == CT_NET_LAYER_OK)
        inferred++;
      for (guint j = 0; j < layer->params->len; j++)
        params += blob_count (layer->params->pdata[j]);
      flops += (guint64) ct_layer_shapes_flops (layer);
      for (guint j = 0; j < layer->tops->len; j++)
        {
          const CtNetShapeBlob *top = layer->tops->pdata[j];
          if (!top->in_place)
            activations += blob_count (top) * sizeof (float);
        }
    }
  params_text = format_grouped (params);
  flops_text = format_count (flops);
  memory_text = g_format_size (activations);
  layers_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u layer", "%u layers", layers),
                                 layers);
  if (inferred == 0 && layers > 0)
    /* Nothing has a shape: counting would only say zero. */
    line = g_strdup (layers_text);
  else
    /* TRANSLATORS: the summary line: layers · parameters · FLOPs · memory */
    line = g_strdup_printf (_("%s · %s parameters · %sFLOPs · %s activations"), layers_text,
                            params_text, flops_text, memory_text);
  if (n_errors > 0)
    {
      g_autofree char *errors = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u error",
                                                              "%u errors", n_errors),
                                                 n_errors);
      return g_strconcat (line, " · ", errors, NULL);
    }
  return g_steal_pointer (&line);
}

void
ct_document_free_error (gpointer error)
{
  if (error != NULL)
    g_error_free (error);
}

static void
collect_errors (const CtNetShapes *shapes, GPtrArray *errors)
{
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *layer = shapes->layers->pdata[i];

      if (layer->status != CT_NET_LAYER_FAILED || layer->error == NULL
          || layer->source_index < 0 || (guint) layer->source_index >= errors->len
          || errors->pdata[layer->source_index] != NULL)
        continue;
      errors->pdata[layer->source_index] = g_error_copy (layer->error);
    }
}

static void
check_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  CheckInput *input = task_data;
  CheckOutput *output = g_new0 (CheckOutput, 1);
  Caffe__NetParameter *net;
  CtNetConfig config = { 0 };
  guint n_errors = 0;

  net = (Caffe__NetParameter *) ct_text_parse (&caffe__net_parameter__descriptor, input->text,
                                               -1, input->name, CT_TEXT_LENIENT, NULL);
  if (net != NULL && ct_net_needs_upgrade (net))
    ct_upgrade_net (net, input->name, NULL, NULL);
  if (net != NULL)
    ct_net_edit_resolve_paths (net, input->base_dir);
  if (net == NULL)
    {
      g_task_return_pointer (task, output, (GDestroyNotify) check_output_free);
      return;
    }
  config.phase = input->phase == CT_DOCUMENT_PHASE_TEST ? CAFFE__PHASE__TEST
                                                        : CAFFE__PHASE__TRAIN;
  config.seed = 1;
  config.source_name = input->name;
  output->shapes = ct_net_infer_shapes_with_stand_ins (net, &config, input->stand_ins);
  if (input->phase == CT_DOCUMENT_PHASE_BOTH && !g_cancellable_is_cancelled (cancellable))
    {
      config.phase = CAFFE__PHASE__TEST;
      output->test_shapes = ct_net_infer_shapes_with_stand_ins (net, &config, input->stand_ins);
    }
  output->errors = g_ptr_array_new_with_free_func (ct_document_free_error);
  g_ptr_array_set_size (output->errors, (guint) net->n_layer);
  collect_errors (output->shapes, output->errors);
  if (output->test_shapes != NULL)
    collect_errors (output->test_shapes, output->errors);
  for (guint i = 0; i < output->errors->len; i++)
    n_errors += output->errors->pdata[i] != NULL;
  if (output->shapes->error != NULL)
    n_errors++;
  output->summary = summarize (output->shapes, n_errors);
  protobuf_c_message_free_unpacked (&net->base, NULL);
  g_task_return_pointer (task, output, (GDestroyNotify) check_output_free);
}

static void
check_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  CtDocument *self = CT_DOCUMENT (source);
  guint serial = GPOINTER_TO_UINT (user_data);
  CheckOutput *output = g_task_propagate_pointer (G_TASK (result), NULL);

  if (output == NULL)
    return;
  if (serial != self->check_serial)
    {
      check_output_free (output);
      return;
    }
  self->checking = FALSE;
  g_clear_pointer (&self->shapes, ct_net_shapes_free);
  g_clear_pointer (&self->test_shapes, ct_net_shapes_free);
  self->shapes = g_steal_pointer (&output->shapes);
  self->test_shapes = g_steal_pointer (&output->test_shapes);
  g_ptr_array_set_size (self->layer_errors, 0);
  if (output->errors != NULL)
    for (guint i = 0; i < output->errors->len; i++)
      g_ptr_array_add (self->layer_errors, output->errors->pdata[i] != NULL
                                             ? g_error_copy (output->errors->pdata[i])
                                             : NULL);
  if (output->summary != NULL)
    {
      g_free (self->summary);
      self->summary = g_steal_pointer (&output->summary);
    }
  check_output_free (output);
  ct_document_remember_data_shapes (self);
  ct_document_emit_validated (self);
}

static void
start_check (CtDocument *self)
{
  g_autoptr (GTask) task = NULL;
  CheckInput *input = g_new0 (CheckInput, 1);

  input->text = g_strdup (self->text);
  input->name = g_strdup (ct_document_get_title (self));
  input->base_dir = ct_document_dup_base_dir (self);
  input->stand_ins = ct_document_dup_stand_in_shapes (self);
  input->phase = self->phase;
  input->serial = ++self->check_serial;
  task = g_task_new (self, NULL, check_done, GUINT_TO_POINTER (input->serial));
  g_task_set_source_tag (task, start_check);
  g_task_set_task_data (task, input, (GDestroyNotify) check_input_free);
  g_task_run_in_thread (task, check_thread);
  if (!self->checking)
    {
      self->checking = TRUE;
      ct_document_notify_validating (self);
    }
}

static gboolean
check_timeout (gpointer data)
{
  CtDocument *self = data;

  self->check_source = 0;
  start_check (self);
  return G_SOURCE_REMOVE;
}

void
ct_document_schedule_check (CtDocument *self)
{
  g_clear_handle_id (&self->check_source, g_source_remove);
  self->check_source = g_timeout_add (CHECK_DELAY_MS, check_timeout, self);
  if (!self->checking)
    {
      self->checking = TRUE;
      ct_document_notify_validating (self);
    }
}

void
ct_document_clear_check (CtDocument *self)
{
  g_clear_handle_id (&self->check_source, g_source_remove);
  /* A running task keeps the document alive until it returns. */
  g_clear_pointer (&self->shapes, ct_net_shapes_free);
  g_clear_pointer (&self->test_shapes, ct_net_shapes_free);
  g_clear_pointer (&self->layer_errors, g_ptr_array_unref);
  g_clear_pointer (&self->summary, g_free);
}

void
ct_document_set_phase (CtDocument *self, CtDocumentPhase phase)
{
  g_return_if_fail (CT_IS_DOCUMENT (self));
  if (self->phase == phase)
    return;
  self->phase = phase;
  if (self->net != NULL)
    ct_document_schedule_check (self);
}

CtDocumentPhase
ct_document_get_phase (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), CT_DOCUMENT_PHASE_TRAIN);
  return self->phase;
}

const CtNetShapes *
ct_document_get_shapes (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->shapes;
}

const CtNetShapes *
ct_document_get_test_shapes (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->test_shapes;
}

const GError *
ct_document_get_layer_error (CtDocument *self, guint index)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  if (self->layer_errors == NULL || index >= self->layer_errors->len)
    return NULL;
  return self->layer_errors->pdata[index];
}

const char *
ct_document_get_summary (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), NULL);
  return self->summary != NULL ? self->summary : "";
}

gboolean
ct_document_get_validating (CtDocument *self)
{
  g_return_val_if_fail (CT_IS_DOCUMENT (self), FALSE);
  return self->checking;
}

void
ct_document_wait_validated (CtDocument *self)
{
  g_return_if_fail (CT_IS_DOCUMENT (self));
  if (self->check_source != 0)
    {
      g_clear_handle_id (&self->check_source, g_source_remove);
      start_check (self);
    }
  while (self->checking)
    g_main_context_iteration (NULL, TRUE);
}
