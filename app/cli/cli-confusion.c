/* cli-confusion.c: `cortado-cli confusion --model=NET --weights=W
 * [--iterations=N] [--labels=FILE]`: the confusion matrix of trained
 * weights over the TEST phase's data, as TSV on standard output (see
 * analysis/confusion-tsv.h). N batches are run, 50 by default as for
 * `test`, so that the matrix's accuracy is the one `test` prints. Class
 * names come from --labels, else from labels.txt beside the net. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-analysis-private.h"
#include "cli-caffe-private.h"
#include "cli-net-private.h"
#include "cli-private.h"
#include "class-names.h"
#include "confusion-tsv.h"

typedef struct {
  char *model, *weights, *labels, *scores;
  int iterations, mistakes;
} ConfusionOptions;

static gboolean
run_confusion (const ConfusionOptions *o, GError **error)
{
  CtCliNetRequest request = {
    .model = o->model, .phase = CAFFE__PHASE__TEST, .seed = 1701, .weights = o->weights,
  };
  g_autoptr (CtNet) net = NULL;
  g_autoptr (CtConfusion) confusion = NULL;
  g_auto (GStrv) names = NULL;
  g_autofree char *text = NULL;
  CtClassifier classifier;

  names = o->labels != NULL ? ct_class_names_load (o->labels, error)
                            : ct_class_names_find_beside (o->model, error);
  if (names == NULL && error != NULL && *error != NULL)
    return FALSE;
  net = ct_cli_load_net (&request, error);
  if (net == NULL || !ct_classifier_find (net, o->scores, &classifier, error))
    return FALSE;
  confusion = ct_confusion_run (net, &classifier, (guint) o->iterations, NULL, NULL, error);
  if (confusion == NULL)
    return FALSE;
  text = ct_confusion_to_tsv (confusion, names, (guint) o->mistakes);
  return ct_cli_write_stdout (text, strlen (text));
}

int
ct_cli_confusion (int argc, char **argv)
{
  ConfusionOptions o = { .iterations = 50 };
  const GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &o.model, N_("The net, with its TEST data"),
      N_("NET") },
    { "weights", 0, 0, G_OPTION_ARG_FILENAME, &o.weights, N_("Trained weights (.caffemodel)"),
      N_("FILE") },
    { "iterations", 0, 0, G_OPTION_ARG_INT, &o.iterations,
      N_("How many batches to run (default 50)"), N_("N") },
    { "labels", 0, 0, G_OPTION_ARG_FILENAME, &o.labels,
      N_("Class names, one per line (default: labels.txt beside the net)"), N_("FILE") },
    { "scores", 0, 0, G_OPTION_ARG_STRING, &o.scores,
      N_("The blob of class scores (default: what the Accuracy layer reads)"), N_("BLOB") },
    { "mistakes", 0, 0, G_OPTION_ARG_INT, &o.mistakes,
      N_("Also list the N most confident mistakes"), N_("N") },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  int status = CT_CLI_EXIT_OK;

  ct_cli_accept_single_dash (argc, argv, entries);
  context = ct_cli_context_new ("confusion", NULL,
                                _("Print the confusion matrix of trained weights over the net's "
                                  "TEST data as tab-separated text: counts, then each class's "
                                  "precision, recall and accuracy."), entries);
  if (!ct_cli_parse (context, &argc, &argv))
    status = CT_CLI_EXIT_USAGE;
  else if (argc > 1)
    status = ct_cli_usage_error ("confusion", _("unexpected argument '%s'"), argv[1]);
  else if (o.model == NULL)
    status = ct_cli_usage_error ("confusion", _("no net given (--model NET)"));
  else if (o.weights == NULL)
    status = ct_cli_usage_error ("confusion", _("no weights given (--weights FILE)"));
  else if (o.iterations < 1)
    status = ct_cli_usage_error ("confusion", _("--iterations must be 1 or more, not %d"),
                                 o.iterations);
  else if (o.mistakes < 0)
    status = ct_cli_usage_error ("confusion", _("--mistakes must be 0 or more, not %d"),
                                 o.mistakes);
  else if (!run_confusion (&o, &error))
    {
      g_printerr ("cortado-cli confusion: %s\n", error->message);
      status = CT_CLI_EXIT_INPUT;
    }
  g_free (o.model);
  g_free (o.weights);
  g_free (o.labels);
  g_free (o.scores);
  return status;
}
