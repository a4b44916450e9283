/* test-confusion.c: the confusion matrix of six hand-made samples of three
 * classes, counted, scored and written by hand. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "analysis-test-util.h"
#include "class-names.h"
#include "confusion-tsv.h"
#include "confusion.h"
#include "test-files.h"

#define NET(accuracy_param) \
  "name: 'c'\n" \
  "layer { name: 'in' type: 'Input' top: 'scores' top: 'label'\n" \
  "  input_param { shape { dim: 6 dim: 3 } shape { dim: 6 } } }\n" \
  "layer { name: 'acc' type: 'Accuracy' bottom: 'scores' bottom: 'label' top: 'accuracy' " \
  accuracy_param " }\n" \
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'scores' bottom: 'label' top: 'loss' }\n"

/* Predictions 0 1 0 2 1 0 for labels 0 1 1 2 2 0: samples 2 and 4 are
 * wrong. */
static const float scores[] = {
  3, 1, 0,
  0, 2, 1,
  5, 1, 1,
  0, 0, 9,
  1, 4, 0,
  2, 1, 0,
};
static const float labels[] = { 0, 1, 1, 2, 2, 0 };

static CtNet *
build (const char *text, const float *label_values)
{
  CtNet *net = ct_test_analysis_net (text);

  ct_test_set_blob (net, "scores", scores, G_N_ELEMENTS (scores));
  ct_test_set_blob (net, "label", label_values, 6);
  return net;
}

static void
test_counts (void)
{
  g_autoptr (CtNet) net = build (NET (""), labels);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtConfusion) c = NULL;
  g_autoptr (GArray) wrong = NULL;
  g_autoptr (GArray) cell = NULL;
  CtClassifier classifier;
  const float *accuracy;

  g_assert_true (ct_classifier_find (net, NULL, &classifier, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (ct_net_get_blob_name (net, classifier.score_blob), ==, "scores");
  g_assert_cmpint (classifier.label_blob, ==, ct_net_blob_index (net, "label"));
  g_assert_false (classifier.probabilities);
  c = ct_confusion_run (net, &classifier, 1, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (c->n_classes, ==, 3);
  g_assert_cmpuint (ct_confusion_count (c, 0, 0), ==, 2);
  g_assert_cmpuint (ct_confusion_count (c, 1, 1), ==, 1);
  g_assert_cmpuint (ct_confusion_count (c, 1, 0), ==, 1);
  g_assert_cmpuint (ct_confusion_count (c, 2, 2), ==, 1);
  g_assert_cmpuint (ct_confusion_count (c, 2, 1), ==, 1);
  g_assert_cmpuint (ct_confusion_count (c, 0, 1), ==, 0);
  g_assert_cmpuint (ct_confusion_total (c), ==, 6);
  g_assert_cmpuint (ct_confusion_correct (c), ==, 4);
  g_assert_cmpfloat_with_epsilon (ct_confusion_accuracy (c), 4.0 / 6.0, 1e-12);
  /* the diagonal over the total is what the Accuracy layer computed */
  accuracy = ct_blob_cpu_data (ct_net_blob_by_name (net, "accuracy"), NULL);
  g_assert_cmpfloat_with_epsilon (accuracy[0], ct_confusion_accuracy (c), 1e-6);
  g_assert_cmpfloat_with_epsilon (ct_confusion_precision (c, 0), 2.0 / 3.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ct_confusion_recall (c, 0), 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ct_confusion_precision (c, 1), 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (ct_confusion_recall (c, 1), 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (ct_confusion_precision (c, 2), 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ct_confusion_recall (c, 2), 0.5, 1e-12);
  /* class 0: one false positive, no false negative: 5 of 6 right */
  g_assert_cmpfloat_with_epsilon (ct_confusion_class_accuracy (c, 0), 5.0 / 6.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ct_confusion_class_accuracy (c, 2), 5.0 / 6.0, 1e-12);

  /* the mistakes, surest first: sample 2 (softmax of 5, 1, 1) before 4 */
  wrong = ct_confusion_misclassified (c);
  g_assert_cmpuint (wrong->len, ==, 2);
  g_assert_cmpuint (g_array_index (wrong, CtConfusionSample, 0).index, ==, 2);
  g_assert_cmpfloat_with_epsilon (g_array_index (wrong, CtConfusionSample, 0).confidence,
                                  expf (5) / (expf (5) + 2 * expf (1)), 1e-6);
  g_assert_cmpuint (g_array_index (wrong, CtConfusionSample, 1).index, ==, 4);
  g_assert_cmpfloat_with_epsilon (g_array_index (wrong, CtConfusionSample, 1).confidence,
                                  expf (4) / (expf (1) + expf (4) + 1), 1e-6);
  g_assert_cmpfloat_with_epsilon (g_array_index (wrong, CtConfusionSample, 1).label_probability,
                                  1 / (expf (1) + expf (4) + 1), 1e-6);
  cell = ct_confusion_cell_samples (c, 0, 0);
  g_assert_cmpuint (cell->len, ==, 2);
  /* sample 0 (3, 1, 0) is surer than sample 5 (2, 1, 0) */
  g_assert_cmpuint (g_array_index (cell, CtConfusionSample, 0).index, ==, 0);
  g_assert_cmpuint (g_array_index (cell, CtConfusionSample, 1).index, ==, 5);
}

/* Two passes over the same batch count every sample twice, the second
 * pass's samples numbered on. */
static void
test_iterations (void)
{
  g_autoptr (CtNet) net = build (NET (""), labels);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtConfusion) c = NULL;
  g_autoptr (GArray) wrong = NULL;
  CtClassifier classifier;

  g_assert_true (ct_classifier_find (net, NULL, &classifier, &error));
  c = ct_confusion_run (net, &classifier, 2, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ct_confusion_total (c), ==, 12);
  g_assert_cmpuint (ct_confusion_count (c, 0, 0), ==, 4);
  wrong = ct_confusion_misclassified (c);
  g_assert_cmpuint (wrong->len, ==, 4);
  g_assert_cmpuint (g_array_index (wrong, CtConfusionSample, 1).index, ==, 8);
}

static gboolean
stop_after_first (double fraction, gpointer user_data)
{
  guint *calls = user_data;

  (*calls)++;
  return FALSE;
}

static void
test_cancel (void)
{
  g_autoptr (CtNet) net = build (NET (""), labels);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtConfusion) c = NULL;
  CtClassifier classifier;
  guint calls = 0;

  g_assert_true (ct_classifier_find (net, NULL, &classifier, &error));
  c = ct_confusion_run (net, &classifier, 5, stop_after_first, &calls, &error);
  g_assert_null (c);
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_CANCELLED);
  g_assert_cmpuint (calls, ==, 1);
}

/* Samples with the Accuracy layer's ignore label are not counted. */
static void
test_ignore_label (void)
{
  g_autoptr (CtNet) net = build (NET ("accuracy_param { ignore_label: 2 }"), labels);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtConfusion) c = NULL;
  CtClassifier classifier;

  g_assert_true (ct_classifier_find (net, NULL, &classifier, &error));
  g_assert_true (classifier.has_ignore_label);
  c = ct_confusion_run (net, &classifier, 1, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ct_confusion_total (c), ==, 4);
  g_assert_cmpuint (c->ignored, ==, 2);
  g_assert_cmpuint (ct_confusion_correct (c), ==, 3);
}

static void
test_bad_label (void)
{
  const float bad[] = { 0, 1, 1, 3, 2, 0 };
  g_autoptr (CtNet) net = build (NET (""), bad);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtConfusion) c = ct_confusion_new (3);
  CtClassifier classifier;

  g_assert_true (ct_classifier_find (net, NULL, &classifier, &error));
  g_assert_false (ct_confusion_add_batch (c, net, &classifier, &error));
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_LABEL);
  g_assert_nonnull (strstr (error->message, "label"));
  g_assert_nonnull (strstr (error->message, "sample 3"));
}

static void
test_no_classifier (void)
{
  g_autoptr (CtNet) net = ct_test_analysis_net (
    "layer { name: 'in' type: 'Input' top: 'x' input_param { shape { dim: 2 dim: 3 } } }\n"
    "layer { name: 'r' type: 'ReLU' bottom: 'x' top: 'y' }\n");
  g_autoptr (GError) error = NULL;
  CtClassifier classifier;

  g_assert_false (ct_classifier_find (net, NULL, &classifier, &error));
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_NO_CLASSIFIER);
  g_clear_error (&error);
  g_assert_false (ct_classifier_find (net, "nothing", &classifier, &error));
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_NO_CLASSIFIER);
  g_clear_error (&error);
  /* named, a blob without labels is scores that cannot be counted */
  g_assert_true (ct_classifier_find (net, "y", &classifier, &error));
  g_assert_cmpint (classifier.label_blob, ==, -1);
  {
    g_autoptr (CtConfusion) c = ct_confusion_run (net, &classifier, 1, NULL, NULL, &error);

    g_assert_null (c);
    g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_NO_CLASSIFIER);
  }
}

static void
test_tsv (void)
{
  g_autoptr (CtNet) net = build (NET (""), labels);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtConfusion) c = NULL;
  g_autofree char *dir = ct_test_tmpdir_make ("cortado-confusion-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "labels.txt", NULL);
  g_autofree char *model = g_build_filename (dir, "net.prototxt", NULL);
  g_auto (GStrv) names = NULL;
  g_autofree char *tsv = NULL;
  g_auto (GStrv) lines = NULL;
  CtClassifier classifier;

  g_assert_true (g_file_set_contents (path, "cat\r\ndog\tbig\n\n", -1, NULL));
  names = ct_class_names_find_beside (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, 2);
  g_assert_cmpstr (names[0], ==, "cat");
  g_assert_true (ct_classifier_find (net, NULL, &classifier, &error));
  c = ct_confusion_run (net, &classifier, 1, NULL, NULL, &error);
  g_assert_no_error (error);
  tsv = ct_confusion_to_tsv (c, names, 1);
  lines = g_strsplit (tsv, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "# accuracy\t0.666667\t4\t6");
  /* a tab in a name would split the cell; class 2 has no name */
  g_assert_cmpstr (lines[1], ==, "true\\predicted\tcat\tdog big\t2\ttotal\tprecision\trecall"
                                 "\taccuracy");
  g_assert_cmpstr (lines[2], ==, "cat\t2\t0\t0\t2\t0.666667\t1\t0.833333");
  g_assert_cmpstr (lines[3], ==, "dog big\t1\t1\t0\t2\t0.5\t0.5\t0.666667");
  g_assert_cmpstr (lines[4], ==, "2\t0\t1\t1\t2\t1\t0.5\t0.833333");
  g_assert_cmpstr (lines[5], ==, "");
  g_assert_cmpstr (lines[6], ==, "index\ttrue\tpredicted\tconfidence\ttrue_probability");
  g_assert_true (g_str_has_prefix (lines[7], "2\tdog big\tcat\t0.96466"));
  g_assert_cmpstr (lines[8], ==, "");
  g_assert_null (lines[9]);
  g_unlink (path);
  g_assert_null (ct_class_names_find_beside (model, &error));
  g_assert_no_error (error);
  ct_test_remove_tree (dir);
}

/* The images come back in test-set order; past the limit none are kept. */
static void
test_store (void)
{
  g_autoptr (CtNet) net = ct_test_analysis_net (
    "layer { name: 'in' type: 'Input' top: 'data' top: 'label'\n"
    "  input_param { shape { dim: 2 dim: 1 dim: 1 dim: 3 } shape { dim: 2 } } }\n"
    "layer { name: 'f' type: 'Flatten' bottom: 'data' top: 'scores' }\n"
    "layer { name: 'acc' type: 'Accuracy' bottom: 'scores' bottom: 'label' top: 'a' }\n");
  const float images[] = { 1, 2, 3, 6, 5, 4 }, two[] = { 2, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSampleStore) store = ct_sample_store_new (1000);
  g_autoptr (CtSampleStore) small = ct_sample_store_new (40);
  g_autoptr (CtConfusion) c = NULL;
  CtClassifier classifier;
  guint input = (guint) ct_net_blob_index (net, "data");

  ct_test_set_blob (net, "data", images, 6);
  ct_test_set_blob (net, "label", two, 2);
  g_assert_true (ct_classifier_find (net, NULL, &classifier, &error));
  c = ct_confusion_run_keeping (net, &classifier, 2, input, store, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ct_confusion_correct (c), ==, 4);
  g_assert_cmpuint (store->count, ==, 4);
  g_assert_cmpuint (store->width, ==, 3);
  g_assert_cmpmem (ct_sample_store_get (store, 1), 12, images + 3, 12);
  g_assert_cmpmem (ct_sample_store_get (store, 2), 12, images, 12);
  g_assert_null (ct_sample_store_get (store, 4));
  g_clear_pointer (&c, ct_confusion_free);
  c = ct_confusion_run_keeping (net, &classifier, 2, input, small, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (small->overflow);
  g_assert_null (ct_sample_store_get (small, 0));
}

/* labels.txt: line i names class i, a blank line keeps its number, the
 * last newline adds no class; a file that is not UTF-8 is an error. */
static void
test_class_names (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cortado-labels-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "labels.txt", NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;
  g_autofree char *third = NULL;
  g_autofree char *tenth = NULL;

  g_assert_true (g_file_set_contents (path, "cat\r\n\ndog  \n", -1, NULL));
  names = ct_class_names_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, 3);
  g_assert_cmpstr (names[0], ==, "cat");
  g_assert_cmpstr (names[1], ==, "");
  third = ct_class_name (names, 2);
  tenth = ct_class_name (names, 9);
  g_assert_cmpstr (third, ==, "dog");
  g_assert_cmpstr (tenth, ==, "9");

  g_assert_true (g_file_set_contents (path, "caf\xe9\n", -1, NULL));
  g_assert_null (ct_class_names_load (path, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "UTF-8"));
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/confusion/counts", test_counts);
  g_test_add_func ("/analysis/confusion/iterations", test_iterations);
  g_test_add_func ("/analysis/confusion/cancel", test_cancel);
  g_test_add_func ("/analysis/confusion/ignore-label", test_ignore_label);
  g_test_add_func ("/analysis/confusion/bad-label", test_bad_label);
  g_test_add_func ("/analysis/confusion/no-classifier", test_no_classifier);
  g_test_add_func ("/analysis/confusion/tsv", test_tsv);
  g_test_add_func ("/analysis/confusion/store", test_store);
  g_test_add_func ("/analysis/confusion/class-names", test_class_names);
  return g_test_run ();
}
