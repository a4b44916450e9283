/* test-run-diff.c: the settings that set two training runs apart, in the
 * words the Training view shows beside its legend. */
#include "analysis-test-util.h"
#include "run-diff.h"
#include "text-format.h"

#define NET(batch, outputs, extra) \
  "net_param { name: 'n'\n" \
  "  layer { name: 'mnist' type: 'Data' top: 'data' top: 'label'\n" \
  "    data_param { source: 'train_lmdb' batch_size: " batch " } }\n" \
  "  layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n" \
  "    convolution_param { num_output: " outputs " kernel_size: 5 } }\n" \
  extra "}\n"

static Caffe__SolverParameter *
solver (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__solver_parameter__descriptor, text, -1,
                                         "solver", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  return (Caffe__SolverParameter *) msg;
}

static void
check (const char *earlier_text, const char *current_text, const char *const *want)
{
  Caffe__SolverParameter *earlier = solver (earlier_text);
  Caffe__SolverParameter *current = solver (current_text);
  g_autoptr (GPtrArray) lines = ct_run_diff_lines (earlier, current);
  guint n = g_strv_length ((char **) want);

  for (guint i = 0; i < lines->len; i++)
    g_test_message ("line %u: %s", i, (const char *) lines->pdata[i]);
  g_assert_cmpuint (lines->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (lines->pdata[i], ==, want[i]);
  protobuf_c_message_free_unpacked (&earlier->base, NULL);
  protobuf_c_message_free_unpacked (&current->base, NULL);
}

static void
test_same (void)
{
  /* the window's own fields (the snapshot prefix, the net's file) do not count */
  check ("base_lr: 0.01 snapshot_prefix: 'a' net: 'x.prototxt' " NET ("64", "20", ""),
         "base_lr: 0.01 snapshot_prefix: 'b' " NET ("64", "20", ""),
         (const char *const[]) { NULL });
}

static void
test_solver (void)
{
  check ("base_lr: 0.01 momentum: 0.9 lr_policy: 'inv' " NET ("64", "20", ""),
         "base_lr: 0.001 momentum: 0.95 lr_policy: 'step' weight_decay: 0.0005 "
         NET ("64", "20", ""),
         (const char *const[]) { "base_lr 0.01→0.001", "lr_policy \"inv\"→\"step\"",
                                 "momentum 0.9→0.95", "weight_decay 0→0.0005", NULL });
}

static void
test_net (void)
{
  check ("base_lr: 0.01 " NET ("64", "20", ""),
         "base_lr: 0.01 "
         NET ("128", "50", "  layer { name: 'relu1' type: 'ReLU' bottom: 'conv1' "
                           "top: 'conv1' }\n"),
         (const char *const[]) { "batch size 64→128 (mnist)",
                                 "net changed: conv1 num_output 20→50, relu1 added", NULL });
}

static void
test_summary (void)
{
  g_autoptr (GPtrArray) lines = g_ptr_array_new ();

  g_assert_null (ct_run_diff_summary (lines, 2));
  g_ptr_array_add (lines, "a 1→2");
  g_ptr_array_add (lines, "b 3→4");
  g_ptr_array_add (lines, "c 5→6");
  {
    g_autofree char *two = ct_run_diff_summary (lines, 2);
    g_autofree char *all = ct_run_diff_summary (lines, 3);

    g_assert_cmpstr (two, ==, "a 1→2, b 3→4, …");
    g_assert_cmpstr (all, ==, "a 1→2, b 3→4, c 5→6");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/run-diff/same", test_same);
  g_test_add_func ("/analysis/run-diff/solver", test_solver);
  g_test_add_func ("/analysis/run-diff/net", test_net);
  g_test_add_func ("/analysis/run-diff/summary", test_summary);
  return g_test_run ();
}
