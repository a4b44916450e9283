/* cli-test.c: `cortado-cli test --model=NET --weights=W [--iterations=N]`,
 * Caffe's `caffe test`: build the net in phase TEST (with --stage and
 * --level), load the weights, run N forward passes (50 by default) and log
 * each batch's outputs, then the mean loss and the mean of every output
 * element, in Caffe's glog lines ("Batch 3, accuracy = 0.91", "Loss:
 * 0.3212", "accuracy = 0.8941", "loss = 0.3212 (* 1 = 0.3212 loss)").
 * Input layers are left at zero, as Caffe leaves them. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-caffe-private.h"
#include "cli-net-private.h"
#include "cli-private.h"
#include "net.h"

typedef struct {
  char *model;
  char *weights;
  char *gpu;
  int iterations;
  char **stages;
  int level;
} TestOptions;

static void
options_clear (TestOptions *o)
{
  g_free (o->model);
  g_free (o->weights);
  g_free (o->gpu);
  g_strfreev (o->stages);
}

static void
log_note (const char *model, const char *note)
{
  CT_CLI_LOG_INFO ("%s: %s", model, note);
}

/* Add this batch's outputs to SCORES (created on the first batch) and log
 * them. */
static void
add_batch (CtNet *net, int batch, GArray *scores, GArray *owners)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  guint idx = 0;

  for (guint j = 0; j < ct_net_n_outputs (net); j++)
    {
      guint index = ct_net_output_index (net, j);
      CtBlob *blob = ct_net_get_blob (net, index);
      const float *values = ct_blob_cpu_data (blob, NULL);

      for (gint64 k = 0; values != NULL && k < ct_blob_count (blob); k++, idx++)
        {
          if (batch == 0)
            {
              g_array_append_val (scores, values[k]);
              g_array_append_val (owners, index);
            }
          else
            g_array_index (scores, float, idx) += values[k];
          CT_CLI_LOG_INFO ("Batch %d, %s = %s", batch, ct_net_get_blob_name (net, index),
                           ct_cli_format_number (buf, values[k]));
        }
    }
}

static void
log_means (CtNet *net, GArray *scores, GArray *owners, int iterations)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE], c[G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < scores->len; i++)
    {
      guint index = g_array_index (owners, guint, i);
      const char *name = ct_net_get_blob_name (net, index);
      float weight = ct_net_blob_loss_weight (net, index);
      float mean = g_array_index (scores, float, i) / (float) iterations;

      if (weight != 0.0f)
        CT_CLI_LOG_INFO ("%s = %s (* %s = %s loss)", name, ct_cli_format_number (a, mean),
                         ct_cli_format_number (b, weight), ct_cli_format_number (c, weight * mean));
      else
        CT_CLI_LOG_INFO ("%s = %s", name, ct_cli_format_number (a, mean));
    }
}

static gboolean
run_test (const TestOptions *o, GError **error)
{
  g_auto (GStrv) stages = ct_cli_split_stages (o->stages);
  CtCliNetRequest request = {
    .model = o->model,
    .phase = CAFFE__PHASE__TEST,
    .level = o->level,
    .stages = (const char *const *) stages,
    .seed = 1701,
    .weights = o->weights,
    .report_note = log_note,
    /* only the outputs are read */
    .memory_plan = CT_NET_MEMORY_FORWARD,
  };
  g_autoptr (CtNet) net = NULL;
  g_autoptr (GArray) scores = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr (GArray) owners = g_array_new (FALSE, FALSE, sizeof (guint));
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  gboolean use_gpu = FALSE;
  float loss = 0.0f;

  if (!ct_cli_select_gpu (o->gpu, FALSE, &use_gpu, error))
    return FALSE;
  net = ct_cli_load_net (&request, error);
  if (net == NULL || (use_gpu && !ct_net_set_use_gpu (net, TRUE, error)))
    return FALSE;
  CT_CLI_LOG_INFO ("Running for %d iterations.", o->iterations);
  for (int i = 0; i < o->iterations; i++)
    {
      float batch_loss = 0.0f;

      if (!ct_net_forward (net, &batch_loss, error))
        return FALSE;
      loss += batch_loss;
      add_batch (net, i, scores, owners);
    }
  loss /= (float) o->iterations;
  CT_CLI_LOG_INFO ("Loss: %s", ct_cli_format_number (buf, loss));
  log_means (net, scores, owners, o->iterations);
  return TRUE;
}

int
ct_cli_test (int argc, char **argv)
{
  TestOptions o = { .iterations = 50 };
  const GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &o.model, N_("The net to score"), N_("NET") },
    { "weights", 0, 0, G_OPTION_ARG_FILENAME, &o.weights,
      N_("Trained weights (.caffemodel, or .h5; several separated by commas)"), N_("FILE") },
    { "iterations", 0, 0, G_OPTION_ARG_INT, &o.iterations,
      N_("How many batches to run (default 50)"), N_("N") },
    { "gpu", 0, 0, G_OPTION_ARG_STRING, &o.gpu, N_("Run on this GPU"), N_("ID") },
    { "stage", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.stages,
      N_("A stage of the net's state (repeat, or separate by commas)"), N_("STAGE") },
    { "level", 0, 0, G_OPTION_ARG_INT, &o.level, N_("The net state's level (default 0)"),
      N_("N") },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  int status = CT_CLI_EXIT_OK;

  ct_cli_accept_single_dash (argc, argv, entries);
  context = ct_cli_context_new ("test", NULL,
                                _("Score trained weights on a net's TEST phase, as 'caffe test' "
                                  "does, writing Caffe's log lines to standard error."), entries);
  if (!ct_cli_parse (context, &argc, &argv))
    status = CT_CLI_EXIT_USAGE;
  else if (argc > 1)
    status = ct_cli_usage_error ("test", _("unexpected argument '%s'"), argv[1]);
  else if (o.model == NULL)
    status = ct_cli_usage_error ("test", _("no net given (--model NET)"));
  else if (o.weights == NULL)
    status = ct_cli_usage_error ("test", _("no weights given (--weights FILE)"));
  else if (o.iterations < 1)
    status = ct_cli_usage_error ("test", _("--iterations must be 1 or more, not %d"),
                                 o.iterations);
  else if (!ct_cli_check_gpu (o.gpu, &error) || !run_test (&o, &error))
    {
      g_printerr ("cortado-cli test: %s\n", error->message);
      status = CT_CLI_EXIT_INPUT;
    }
  options_clear (&o);
  return status;
}
