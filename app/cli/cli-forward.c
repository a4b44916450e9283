/* cli-forward.c: `cortado-cli forward --model NET …`: build a net, load
 * weights, fill its inputs, run one forward pass (and optionally one
 * backward pass), print the loss and the outputs, and optionally write
 * every blob to a binary dump that can be compared with Caffe's. With
 * --stats it prints instead every blob's statistics, computed by the same
 * code as the workbench's inspector (app/run/blob-stats.h), as a table
 * whose format is documented in --help and must stay stable. */
#include <inttypes.h>
#include <errno.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "blob-stats.h"
#include "cli-net-private.h"
#include "cli-private.h"
#include "engine-error.h"
#include "net-dump.h"
#include "net.h"

typedef struct {
  char *model;
  char *weights;
  char *phase;
  char *fill;
  char **inputs;
  char **stages;
  int level;
  gboolean backward;
  gboolean stats;
  char *dump;
  gint64 seed;
} ForwardOptions;

static void
options_clear (ForwardOptions *o)
{
  g_free (o->model);
  g_free (o->weights);
  g_free (o->phase);
  g_free (o->fill);
  g_strfreev (o->inputs);
  g_strfreev (o->stages);
  g_free (o->dump);
}

/* Read PATH (raw little-endian float32) into BLOB, whose element count it
 * must match. */
static gboolean
load_input_file (CtBlob *blob, const char *blob_name, const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  gint64 count = ct_blob_count (blob);
  float *data;

  if (!g_file_get_contents (path, &contents, &length, error))
    return FALSE;
  if (length != (gsize) count * sizeof (float))
    {
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE, "%s: %zu bytes, but blob '%s' (shape %s) takes %"
                                PRId64 " float32 value (%" PRId64 " bytes)",
                                "%s: %zu bytes, but blob '%s' (shape %s) takes %"
                                PRId64 " float32 values (%" PRId64 " bytes)", count),
                   path, length, blob_name, shape, count, count * (gint64) sizeof (float));
      return FALSE;
    }
  data = ct_blob_mutable_cpu_data (blob, error);
  if (data == NULL)
    return FALSE;
  for (gint64 i = 0; i < count; i++)
    {
      guint32 bits;

      memcpy (&bits, contents + i * (gint64) sizeof bits, sizeof bits);
      bits = GUINT32_FROM_LE (bits);
      memcpy (&data[i], &bits, sizeof bits);
    }
  return TRUE;
}

/* --input BLOB=FILE, any number of times. */
static gboolean
load_inputs (CtNet *net, char **inputs, GError **error)
{
  for (char **item = inputs; item != NULL && *item != NULL; item++)
    {
      const char *eq = strchr (*item, '=');
      g_autofree char *name = NULL;
      CtBlob *blob;

      if (eq == NULL || eq == *item || eq[1] == '\0')
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--input takes BLOB=FILE, not '%s'"), *item);
          return FALSE;
        }
      name = g_strndup (*item, (gsize) (eq - *item));
      blob = ct_net_blob_by_name (net, name);
      if (blob == NULL)
        {
          g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID,
                       _("--input: the net has no blob '%s'"), name);
          return FALSE;
        }
      if (!load_input_file (blob, name, eq + 1, error))
        return FALSE;
    }
  return TRUE;
}

static char *
format_float (float value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.9g", (double) value));
}

static void
print_outputs (CtNet *net, float loss)
{
  g_autofree char *loss_text = format_float (loss);

  g_print (_("loss: %s\n"), loss_text);
  for (guint i = 0; i < ct_net_n_outputs (net); i++)
    {
      guint index = ct_net_output_index (net, i);
      CtBlob *blob = ct_net_get_blob (net, index);
      const float *data = ct_blob_cpu_data (blob, NULL);
      g_autofree char *shape = ct_blob_shape_string (blob);
      g_autoptr (GString) values = g_string_new (NULL);
      gint64 shown = MIN (ct_blob_count (blob), 10);

      for (gint64 j = 0; data != NULL && j < shown; j++)
        {
          g_autofree char *v = format_float (data[j]);
          g_string_append_printf (values, " %s", v);
        }
      if (shown < ct_blob_count (blob))
        g_string_append (values, " …");
      /* TRANSLATORS: a blob name, its shape "2 10 (20)", then values */
      g_print (_("output %s, shape %s:%s\n"), ct_net_get_blob_name (net, index), shape,
               values->str);
    }
}

static void
append_number (GString *line, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_c (line, '\t');
  g_string_append (line, g_ascii_formatd (buf, sizeof buf, "%.9g", value));
}

/* One row of the --stats table: blob, part, shape, count, min, max, mean,
 * std, l2, zeros, nan, inf, health, histogram. */
static void
print_stats_row (const char *name, const char *part, CtBlob *blob, const CtBlobStats *stats,
                 const CtBlobStats *data_stats)
{
  g_autoptr (GString) line = g_string_new (name);
  const CtStats *s = &stats->stats;

  g_string_append_printf (line, "\t%s\t", part);
  if (ct_blob_num_axes (blob) == 0)
    g_string_append (line, "scalar");
  for (guint a = 0; a < ct_blob_num_axes (blob); a++)
    g_string_append_printf (line, "%s%" PRId64, a > 0 ? "x" : "", ct_blob_get_shape (blob)[a]);
  g_string_append_printf (line, "\t%" PRId64, s->count);
  append_number (line, s->min);
  append_number (line, s->max);
  append_number (line, s->mean);
  append_number (line, s->std);
  append_number (line, s->l2_norm);
  append_number (line, s->zero_share);
  g_string_append_printf (line, "\t%" PRId64 "\t%" PRId64, s->n_nan, s->n_inf);
  if (data_stats != NULL)
    append_number (line, ct_blob_stats_health (data_stats, stats));
  else
    g_string_append (line, "\t-");
  g_string_append_c (line, '\t');
  for (guint b = 0; b < CT_BLOB_STATS_BINS; b++)
    g_string_append_printf (line, "%s%" PRId64, b > 0 ? "," : "", stats->histogram[b]);
  g_string_append_c (line, '\n');
  /* Not through g_print: names and numbers are not translated text. */
  ct_cli_write_stdout (line->str, line->len);
}

/* The header is part of the format: it is never translated. */
#define STATS_HEADER "blob\tpart\tshape\tcount\tmin\tmax\tmean\tstd\tl2\tzeros\tnan\tinf" \
                     "\thealth\thistogram\n"

/* The statistics of BLOB's data or diff; NULL with ERROR when its memory
 * cannot be read. */
static CtBlobStats *
blob_stats (CtBlob *blob, gboolean diff, GError **error)
{
  const float *values = diff ? ct_blob_cpu_diff (blob, error) : ct_blob_cpu_data (blob, error);

  return values != NULL ? ct_blob_stats_compute (values, ct_blob_count (blob)) : NULL;
}

static gboolean
print_stats (CtNet *net, gboolean backward, GError **error)
{
  ct_cli_write_stdout (STATS_HEADER, strlen (STATS_HEADER));
  for (guint i = 0; i < ct_net_n_blobs (net); i++)
    {
      CtBlob *blob = ct_net_get_blob (net, i);
      const char *name = ct_net_get_blob_name (net, i);
      g_autoptr (CtBlobStats) data_stats = blob_stats (blob, FALSE, error);
      g_autoptr (CtBlobStats) diff_stats = NULL;

      if (data_stats == NULL)
        return FALSE;
      print_stats_row (name, "data", blob, data_stats, NULL);
      /* Diffs only where backward computes one, as the inspector shows. */
      if (!backward || (!ct_net_blob_need_backward (net, i) &&
                        ct_net_blob_loss_weight (net, i) == 0.0f))
        continue;
      diff_stats = blob_stats (blob, TRUE, error);
      if (diff_stats == NULL)
        return FALSE;
      print_stats_row (name, "diff", blob, diff_stats, data_stats);
    }
  return TRUE;
}

/* Upgrade notes as plain lines, as the other non-Caffe verbs print them. */
static void
print_note (const char *model, const char *note)
{
  g_printerr ("%s: %s\n", model, note);
}

static gboolean
run (const ForwardOptions *o, Caffe__Phase phase, GError **error)
{
  CtCliNetRequest request = {
    .model = o->model,
    .phase = phase,
    .level = o->level,
    .stages = (const char *const *) o->stages,
    .seed = (guint64) o->seed,
    /* Several files, comma-separated, as the caffe tool takes them. */
    .weights = o->weights,
    .report_note = print_note,
  };
  g_autoptr (CtNet) net = ct_cli_load_net (&request, error);
  float loss = 0.0f;

  if (net == NULL)
    return FALSE;
  if (o->fill != NULL &&
      (!ct_net_apply_reference_batch_norm (net, error) ||
       !ct_net_fill_reference_inputs (net, error)))
    return FALSE;
  if (!load_inputs (net, o->inputs, error))
    return FALSE;
  if (!ct_net_forward (net, &loss, error))
    return FALSE;
  if (o->backward && !ct_net_backward (net, error))
    return FALSE;
  if (o->stats)
    {
      if (!print_stats (net, o->backward, error))
        return FALSE;
    }
  else
    print_outputs (net, loss);
  if (o->dump != NULL && !ct_net_write_dump (net, loss, o->dump, error))
    return FALSE;
  return TRUE;
}

int
ct_cli_forward (int argc, char **argv)
{
  ForwardOptions o = { .seed = 1701 };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_FILENAME, &o.model, N_("The net to run"), N_("NET") },
    { "weights", 'w', 0, G_OPTION_ARG_FILENAME, &o.weights,
      N_("Trained weights to load (.caffemodel; several separated by commas)"), N_("FILE") },
    { "phase", 'p', 0, G_OPTION_ARG_STRING, &o.phase,
      N_("Build the net for TRAIN or TEST (the default)"), N_("PHASE") },
    { "level", 0, 0, G_OPTION_ARG_INT, &o.level, N_("The net state's level (default 0)"),
      N_("N") },
    { "stage", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.stages,
      N_("A stage of the net state (may be repeated)"), N_("STAGE") },
    { "fill", 0, 0, G_OPTION_ARG_STRING, &o.fill,
      N_("Fill the inputs by a rule: caffe-ref, the reference dumps' rule (sin (0.01 i + k) "
         "for input k, i % 10 for blobs named like 'label', and set statistics for "
         "BatchNorm layers never trained)"), N_("RULE") },
    { "input", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.inputs,
      N_("Load a blob from raw little-endian float32 values (may be repeated; after --fill)"),
      N_("BLOB=FILE") },
    { "backward", 'b', 0, G_OPTION_ARG_NONE, &o.backward,
      N_("Run a backward pass after the forward pass"), NULL },
    { "stats", 0, 0, G_OPTION_ARG_NONE, &o.stats,
      N_("Print every blob's statistics instead of the outputs (the table below)"), NULL },
    { "dump", 'd', 0, G_OPTION_ARG_FILENAME, &o.dump,
      N_("Write every blob's data and diff, then every parameter, to a binary dump"),
      N_("FILE") },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &o.seed,
      N_("Seed of the fillers and random layers (default 1701)"), N_("N") },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *summary = NULL;
  Caffe__Phase phase = CAFFE__PHASE__TEST;
  int status = CT_CLI_EXIT_OK;

  summary = g_strconcat (_("Build a net, load weights, fill its inputs, run a forward "
                            "pass (and a backward pass with --backward) and print the "
                            "loss and the net's outputs. Inputs not filled are zeros."),
                         "\n\n",
                         _("With --stats, print instead the statistics the workbench's "
                           "inspector shows, as tab-separated lines after a header line "
                           "(never translated): blob, part (data; with --backward also diff, "
                           "for blobs that get a gradient), shape (AxBxC, or scalar), count, "
                           "min, max, mean, std (population), l2 (norm), zeros (share of "
                           "exact zeros), nan and inf (counts), health (‖diff‖/‖data‖ on diff "
                           "lines, nan when either holds a NaN or an Inf; - on data lines) "
                           "and histogram (32 comma-separated counts over [min, max]). Min, "
                           "max, mean, std and l2 are over the finite values. Blobs come in "
                           "the net's order; a blob computed in place shows its final value."),
                         NULL);
  context = ct_cli_context_new ("forward", NULL,
                                summary, entries);
  if (!ct_cli_parse (context, &argc, &argv))
    status = CT_CLI_EXIT_USAGE;
  else if (argc > 1)
    status = ct_cli_usage_error ("forward", _("unexpected argument '%s'"), argv[1]);
  else if (o.model == NULL)
    status = ct_cli_usage_error ("forward", _("no net given (--model NET)"));
  else if (o.phase != NULL && !ct_cli_parse_phase (o.phase, &phase))
    status = ct_cli_usage_error ("forward", _("--phase takes TRAIN or TEST, not '%s'"), o.phase);
  else if (o.fill != NULL && strcmp (o.fill, "caffe-ref") != 0)
    status = ct_cli_usage_error ("forward", _("--fill knows only 'caffe-ref', not '%s'"),
                                 o.fill);
  else if (!run (&o, phase, &error))
    {
      g_printerr ("cortado-cli forward: %s\n", error->message);
      status = g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE)
               ? CT_CLI_EXIT_USAGE : CT_CLI_EXIT_INPUT;
    }
  options_clear (&o);
  return status;
}
