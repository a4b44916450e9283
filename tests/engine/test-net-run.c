/* test-net-run.c: running a CtNet: forward and backward over ranges of
 * layers, observers before and after each layer, per-layer timing, and
 * reshaping between runs. */
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "binary-io.h"
#include "engine-error.h"
#include "net.h"
#include "text-format.h"
#include "net-test-util.h"

/* Running */

static void
test_forward_from_to (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;
  float full = 0.0f, part1 = -1.0f, part2 = 0.0f;
  guint n = ct_net_n_layers (net);
  g_autofree float *diff = NULL;
  CtBlob *ip1_w;

  ct_test_fill_classifier_inputs (net);
  g_assert_true (ct_net_forward (net, &full, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (full, >, 0.0f);
  g_assert_true (ct_net_forward_from_to (net, 0, 2, &part1, &error));
  g_assert_cmpfloat (part1, ==, 0.0f);
  g_assert_true (ct_net_forward_from_to (net, 3, n - 1, &part2, &error));
  g_assert_cmpfloat (part2, ==, full);

  /* Backward in two parts equals one backward (diffs accumulate). */
  ip1_w = ct_net_layer_by_name (net, "ip1")->blobs->pdata[0];
  g_assert_true (ct_net_backward (net, &error));
  diff = g_memdup2 (ct_blob_cpu_diff (ip1_w, NULL), ct_blob_count (ip1_w) * sizeof (float));
  g_assert_true (ct_net_clear_param_diffs (net, &error));
  g_assert_cmpfloat (ct_blob_cpu_diff (ip1_w, NULL)[0], ==, 0.0f);
  g_assert_true (ct_net_backward_from_to (net, n - 1, 3, &error));
  g_assert_cmpfloat (ct_blob_cpu_diff (ip1_w, NULL)[0], ==, 0.0f);
  g_assert_true (ct_net_backward_from_to (net, 2, 0, &error));
  g_assert_no_error (error);
  for (gint64 i = 0; i < ct_blob_count (ip1_w); i++)
    g_assert_cmpfloat (ct_blob_cpu_diff (ip1_w, NULL)[i], ==, diff[i]);

  /* Bad ranges are errors, not crashes. */
  g_assert_false (ct_net_forward_from_to (net, 2, 1, NULL, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (ct_net_backward_from_to (net, n, 0, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID);
}

typedef struct {
  GString *log;
  CtNet *net;
  guint remove_id;
} ObserverLog;

static void
log_event (CtNet *net, CtNetEvent event, guint layer_index, gpointer user_data)
{
  ObserverLog *log = user_data;
  const char *names[] = { "F", "f", "B", "b" };

  g_string_append_printf (log->log, "%s%u ", names[event], layer_index);
}

static void
remove_other (CtNet *net, CtNetEvent event, guint layer_index, gpointer user_data)
{
  ObserverLog *log = user_data;

  if (log->remove_id != 0)
    ct_net_remove_observer (net, log->remove_id);
  log->remove_id = 0;
}

static void
count_destroy (gpointer data)
{
  (*(int *) data)++;
}

static void
test_observers (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;
  ObserverLog log = { g_string_new (NULL), net, 0 };
  ObserverLog remover = { NULL, net, 0 };
  int destroyed = 0;
  guint id = ct_net_add_observer (net, log_event, &log, NULL);
  guint id2;

  g_assert_cmpuint (id, !=, 0);
  ct_test_fill_classifier_inputs (net);
  g_assert_true (ct_net_forward (net, NULL, &error));
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  /* Backward tells about every layer, the input (which skips it) too. */
  g_assert_cmpstr (log.log->str, ==,
                   "F0 f0 F1 f1 F2 f2 F3 f3 F4 f4 B4 b4 B3 b3 B2 b2 B1 b1 B0 b0 ");

  g_string_truncate (log.log, 0);
  g_assert_true (ct_net_forward_from_to (net, 1, 2, NULL, &error));
  g_assert_cmpstr (log.log->str, ==, "F1 f1 F2 f2 ");

  /* An observer removing another during a pass. */
  id2 = ct_net_add_observer (net, remove_other, &remover, NULL);
  remover.remove_id = id;
  g_string_truncate (log.log, 0);
  g_assert_true (ct_net_forward_from_to (net, 0, 1, NULL, &error));
  /* The log ran before the remover in the first event only. */
  g_assert_cmpstr (log.log->str, ==, "F0 ");
  ct_net_remove_observer (net, id2);
  ct_net_remove_observer (net, ct_net_add_observer (net, log_event, &destroyed, count_destroy));
  g_assert_cmpint (destroyed, ==, 1);
  g_string_free (log.log, TRUE);
}

static void
test_timing (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;

  ct_test_fill_classifier_inputs (net);
  for (int i = 0; i < 3; i++)
    {
      g_assert_true (ct_net_forward (net, NULL, &error));
      g_assert_true (ct_net_backward (net, &error));
    }
  g_assert_no_error (error);
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    {
      const CtNetLayerTiming *t = ct_net_get_layer_timing (net, i);

      g_assert_cmpuint (t->forward_calls, ==, 3);
      g_assert_cmpuint (t->backward_calls, ==, i == 0 ? 0 : 3);
      g_assert_cmpfloat (t->forward_us, >=, 0.0);
    }
  g_assert_cmpfloat (ct_net_get_layer_timing (net, 1)->forward_us, >, 0.0);
  ct_net_reset_timing (net);
  g_assert_cmpuint (ct_net_get_layer_timing (net, 1)->forward_calls, ==, 0);
}

static void
test_reshape (void)
{
  g_autoptr (CtNet) net = ct_test_build_ok (ct_test_classifier, CAFFE__PHASE__TRAIN);
  g_autoptr (GError) error = NULL;
  const gint64 data_shape[] = { 7, 6 };
  const gint64 label_shape[] = { 7 };
  CtBlob *ip2 = ct_net_blob_by_name (net, "ip2");
  float loss = 0.0f;

  g_assert_cmpint (ct_blob_shape_at (ip2, 0, NULL), ==, 4);
  g_assert_true (ct_blob_reshape (ct_net_blob_by_name (net, "data"), data_shape, 2, &error));
  g_assert_true (ct_blob_reshape (ct_net_blob_by_name (net, "label"), label_shape, 1, &error));
  g_assert_true (ct_net_reshape (net, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ct_blob_shape_at (ip2, 0, NULL), ==, 7);
  g_assert_cmpint (ct_blob_shape_at (ip2, 1, NULL), ==, 3);
  ct_test_fill_classifier_inputs (net);
  g_assert_true (ct_net_forward (net, &loss, &error));
  g_assert_true (ct_net_backward (net, &error));
  g_assert_no_error (error);
  g_assert_true (isfinite (loss) && loss > 0.0f);

  /* A forward alone carries a new shape down, as in Caffe. */
  {
    const gint64 smaller[] = { 2, 6 };
    const gint64 smaller_label[] = { 2 };
    g_assert_true (ct_blob_reshape (ct_net_blob_by_name (net, "data"), smaller, 2, &error));
    g_assert_true (ct_blob_reshape (ct_net_blob_by_name (net, "label"), smaller_label, 1, &error));
    g_assert_true (ct_net_forward (net, &loss, &error));
    g_assert_no_error (error);
    g_assert_cmpint (ct_blob_shape_at (ip2, 0, NULL), ==, 2);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/net/run/from-to", test_forward_from_to);
  g_test_add_func ("/engine/net/run/observers", test_observers);
  g_test_add_func ("/engine/net/run/timing", test_timing);
  g_test_add_func ("/engine/net/run/reshape", test_reshape);
  return g_test_run ();
}
