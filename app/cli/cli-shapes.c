/* cli-shapes.c: `cortado-cli check --shapes NET`: the net's shapes as the
 * engine infers them without running anything, layer by layer (Split
 * layers included): each top's shape, the parameter count, an estimate of
 * the forward pass's floating-point operations and the memory the layer's
 * tops take. Layers that cannot be built (a data layer whose source is not
 * there, a mistake) are reported and the rest is still shown.
 *
 * The FLOP estimate counts a multiply-add as two operations for the
 * matrix-product layers (convolution, deconvolution, inner product), the
 * window size per output for pooling, and one operation per element for
 * element-wise layers; layers that only move data count zero. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-net-private.h"
#include "net.h"
#include "proto-file.h"

gboolean
ct_cli_parse_phase (const char *text, Caffe__Phase *phase)
{
  if (g_ascii_strcasecmp (text, "TRAIN") == 0)
    *phase = CAFFE__PHASE__TRAIN;
  else if (g_ascii_strcasecmp (text, "TEST") == 0)
    *phase = CAFFE__PHASE__TEST;
  else
    return FALSE;
  return TRUE;
}

static gint64
sum_counts (GPtrArray *blobs)
{
  gint64 total = 0;

  for (guint i = 0; i < blobs->len; i++)
    total += ct_net_shape_blob_count (blobs->pdata[i]);
  return total;
}

/* Bytes of the tops the layer makes itself (in-place tops are its
 * bottom's). */
static gint64
layer_memory (const CtNetShapeLayer *l)
{
  gint64 bytes = 0;

  for (guint j = 0; j < l->tops->len; j++)
    {
      const CtNetShapeBlob *t = l->tops->pdata[j];
      if (!t->in_place)
        bytes += ct_net_shape_blob_count (t) * (gint64) sizeof (float);
    }
  return bytes;
}

static char *
dims_text (const CtNetShapeBlob *s)
{
  GString *text = g_string_new (NULL);

  if (!s->known)
    return g_string_free (text, FALSE);
  for (guint a = 0; a < s->n_axes; a++)
    g_string_append_printf (text, a == 0 ? "%" G_GINT64_FORMAT : " %" G_GINT64_FORMAT,
                            s->dims[a]);
  return g_string_free (text, FALSE);
}

/* "1.23 GFLOP", "12 k": three significant digits, an SI prefix, UNIT. */
static char *
human_number (double value, const char *unit)
{
  const char *prefixes[] = { "", "k", "M", "G", "T", "P" };
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  guint p = 0;

  while (value >= 1000.0 && p + 1 < G_N_ELEMENTS (prefixes))
    {
      value /= 1000.0;
      p++;
    }
  g_ascii_formatd (buf, sizeof buf, p == 0 ? "%.0f" : "%.3g", value);
  return g_strchomp (g_strconcat (buf, " ", prefixes[p], unit, NULL));
}

static void
print_tsv (const CtNetShapes *shapes)
{
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *l = shapes->layers->pdata[i];

      for (guint j = 0; j < l->tops->len; j++)
        {
          const CtNetShapeBlob *t = l->tops->pdata[j];
          g_autofree char *dims = t->known ? dims_text (t) : g_strdup ("?");

          g_print ("%s\t%s\ttop\t%s\t%s\n", l->name, l->type, t->name, dims);
        }
      for (guint j = 0; j < l->params->len; j++)
        {
          g_autofree char *dims = dims_text (l->params->pdata[j]);

          g_print ("%s\t%s\tparam\t%u\t%s\n", l->name, l->type, j, dims);
        }
    }
}

static void
print_table (const CtNetShapes *shapes, const char *net_name, Caffe__Phase phase)
{
  double total_flops = 0.0;
  gint64 total_params = 0, total_memory = 0;
  g_autofree char *flops_text = NULL, *params_text = NULL, *memory_text = NULL;

  g_print (g_dngettext (GETTEXT_PACKAGE, "net '%s' in phase %s: %u layer\n",
                        "net '%s' in phase %s: %u layers\n", shapes->layers->len), net_name,
           phase == CAFFE__PHASE__TRAIN ? "TRAIN" : "TEST", shapes->layers->len);
  /* TRANSLATORS: column headings; keep the widths */
  g_print ("%-28s %-18s %-28s %-20s %10s %10s %10s\n", _("LAYER"), _("TYPE"), _("TOP"),
           _("SHAPE"), _("PARAMS"), _("FLOPS"), _("MEMORY"));
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *l = shapes->layers->pdata[i];
      double flops = ct_layer_shapes_flops (l);
      gint64 params = sum_counts (l->params);
      gint64 memory = layer_memory (l);
      g_autofree char *p = human_number ((double) params, "");
      g_autofree char *f = human_number (flops, "");
      g_autofree char *m = g_format_size ((guint64) memory);
      guint rows = MAX (l->tops->len, 1);

      total_flops += flops;
      total_params += params;
      total_memory += memory;
      for (guint j = 0; j < rows; j++)
        {
          const CtNetShapeBlob *t = j < l->tops->len ? l->tops->pdata[j] : NULL;
          g_autofree char *dims = t == NULL ? g_strdup ("")
                                  : t->known ? dims_text (t) : g_strdup (_("unknown"));
          g_autofree char *shown = t != NULL && t->in_place
                                   ? g_strdup_printf (_("%s (in place)"), t->name)
                                   : g_strdup (t != NULL ? t->name : "");

          if (j == 0)
            g_print ("%-28s %-18s %-28s %-20s %10s %10s %10s\n", l->name, l->type, shown, dims,
                     p, f, m);
          else
            g_print ("%-28s %-18s %-28s %-20s\n", "", "", shown, dims);
        }
    }
  params_text = human_number ((double) total_params, "");
  flops_text = human_number (total_flops, "FLOP");
  memory_text = g_format_size ((guint64) total_memory);
  g_print (_("total: %s parameters, %s per forward pass, %s of activations\n"),
           params_text, flops_text, memory_text);
}

/* The memory plan's bytes for PARAM built in PHASE (net.h), training and
 * forward only; a net that cannot be built for real (a data source that
 * is not there) has no line. */
static void
print_planned_memory (const Caffe__NetParameter *param, Caffe__Phase phase, const char *path)
{
  CtNetConfig config = { .phase = phase, .seed = 1, .source_name = path, .plan_only = TRUE };
  g_autoptr (CtNet) training = NULL, forward = NULL;
  g_autofree char *training_text = NULL, *unplanned_text = NULL, *forward_text = NULL;
  gsize training_bytes, unplanned_bytes, forward_bytes;

  config.memory_plan = CT_NET_MEMORY_TRAINING;
  training = ct_net_new_with_config (param, &config, NULL);
  config.memory_plan = CT_NET_MEMORY_FORWARD;
  forward = ct_net_new_with_config (param, &config, NULL);
  if (training == NULL || forward == NULL)
    return;
  ct_net_get_memory (training, &training_bytes, &unplanned_bytes);
  ct_net_get_memory (forward, &forward_bytes, NULL);
  training_text = g_format_size (training_bytes);
  unplanned_text = g_format_size (unplanned_bytes);
  forward_text = g_format_size (forward_bytes);
  g_print (_("planned memory of blobs and parameters: %s training, %s forward only "
             "(%s with every blob kept, as Caffe keeps them)\n"),
           training_text, forward_text, unplanned_text);
}

gboolean
ct_cli_print_shapes (const char *path, Caffe__Phase phase, gboolean tsv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNetShapes) shapes = NULL;
  Caffe__NetParameter *param;
  CtNetConfig config = { .phase = phase, .seed = 1, .source_name = path };
  gboolean ok;

  /* Lenient: a field the engine does not know fails its layer only, and
   * the rest of the net still gets shapes. */
  param = ct_net_load_text_file (path, CT_TEXT_LENIENT, NULL, &error);
  if (param == NULL)
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  shapes = ct_net_infer_shapes (param, &config);
  if (shapes->error != NULL)
    {
      g_printerr ("%s: %s\n", path, shapes->error->message);
      protobuf_c_message_free_unpacked (&param->base, NULL);
      return FALSE;
    }
  if (tsv)
    print_tsv (shapes);
  else
    print_table (shapes, param->name != NULL ? param->name : "", phase);
  if (!tsv && shapes->n_failed == 0 && shapes->n_skipped == 0)
    print_planned_memory (param, phase, path);
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *l = shapes->layers->pdata[i];

      if (l->status == CT_NET_LAYER_FAILED)
        g_printerr ("%s: %s\n", path, l->error->message);
    }
  if (shapes->n_skipped > 0)
    g_printerr (g_dngettext (GETTEXT_PACKAGE, "%s: %u layer has no shapes because of the "
                             "errors above\n", "%s: %u layers have no shapes because of the "
                             "errors above\n", shapes->n_skipped), path, shapes->n_skipped);
  ok = shapes->n_failed == 0;
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return ok;
}
