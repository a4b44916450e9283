/* cli-confusion.c: `cortado-cli confusion --model=NET --weights=W
 * [--iterations=N] [--labels=FILE]`: the confusion matrix of trained
 * weights over the TEST phase's data, as TSV on standard output (see
 * analysis/confusion-tsv.h). N batches are run, 50 by default as for
 * `test`, so that the matrix's accuracy is the one `test` prints. Class
 * names come from --labels, else from labels.txt beside the net.
 *
 * With --fashion, a net whose images come from an Input layer (a deploy
 * net) is fed the Fashion-MNIST test set instead (Debian's files, or those
 * in --fashion-dir), pixels × --scale, in batches of 100 whatever the
 * input's batch size, every image once; --iterations is not used then. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "cli-analysis-private.h"
#include "cli-caffe-private.h"
#include "cli-net-private.h"
#include "cli-private.h"
#include "class-names.h"
#include "analysis-net.h"
#include "confusion-tsv.h"
#include "run-inputs.h"

#define FASHION_BATCH 100

typedef struct {
  char *model, *weights, *labels, *scores, *fashion_dir;
  int iterations, mistakes;
  gboolean fashion;
  double scale;
} ConfusionOptions;

/* Every image of the Fashion-MNIST test set through the part of NET
 * between its input and the scores, counted against the set's labels. */
static CtConfusion *
count_fashion (const ConfusionOptions *o, CtNet *net, const CtClassifier *classifier,
               GError **error)
{
  g_autoptr (CtFashionSet) set = ct_fashion_set_load (o->fashion_dir, error);
  g_autoptr (CtConfusion) confusion = NULL;
  g_autofree guint *items = NULL;
  CtAnalysisPath path;
  gint64 dims[4];
  guint batch;

  if (set == NULL || !ct_analysis_path_init (&path, net, classifier, NULL, error))
    return NULL;
  batch = FASHION_BATCH;
  items = g_new (guint, batch);
  confusion = ct_confusion_new (ct_classifier_n_classes (net, classifier));
  for (guint first = 0; first < set->count; first += batch)
    {
      guint n = MIN (batch, set->count - first);
      g_autofree float *images = NULL;
      const float *scores;
      float *input;
      guint k = 0;

      for (guint i = 0; i < n; i++)
        items[i] = first + i;
      dims[0] = n;
      dims[1] = path.channels;
      dims[2] = path.height;
      dims[3] = path.width;
      images = ct_fashion_set_batch (set, items, n, dims, 4, (float) o->scale, NULL, error);
      input = images == NULL ? NULL : ct_analysis_path_batch (&path, net, n, error);
      if (input == NULL)
        return NULL;
      memcpy (input, images, sizeof (float) * n * path.channels * path.height * path.width);
      if (!ct_analysis_path_forward (&path, net, error))
        return NULL;
      scores = ct_analysis_path_scores (&path, net, classifier, &k, error);
      if (scores == NULL)
        return NULL;
      for (guint i = 0; i < n; i++)
        if (!ct_confusion_add (confusion, scores + (gsize) i * k, 1, classifier->probabilities,
                               (float) set->labels[first + i], error))
          return NULL;
    }
  return g_steal_pointer (&confusion);
}

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
  if (o->fashion)
    confusion = count_fashion (o, net, &classifier, error);
  else
    confusion = ct_confusion_run (net, &classifier, (guint) o->iterations, NULL, NULL, error);
  if (confusion == NULL)
    return FALSE;
  text = ct_confusion_to_tsv (confusion, names, (guint) o->mistakes);
  return ct_cli_write_stdout (text, strlen (text));
}

int
ct_cli_confusion (int argc, char **argv)
{
  ConfusionOptions o = { .iterations = 50, .scale = 1.0 };
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
    { "fashion", 0, 0, G_OPTION_ARG_NONE, &o.fashion,
      N_("Feed the net's input the Fashion-MNIST test set"), NULL },
    { "fashion-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.fashion_dir,
      N_("Where the Fashion-MNIST files are"), N_("DIR") },
    { "scale", 0, 0, G_OPTION_ARG_DOUBLE, &o.scale,
      N_("Multiply the pixels by this (default 1)"), N_("S") },
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
  g_free (o.fashion_dir);
  return status;
}
