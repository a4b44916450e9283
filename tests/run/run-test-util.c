/* run-test-util.c: the runner tests' shared net, inputs and fixture. */
#include <math.h>

#include "run-test-util.h"
#include "text-format.h"

const char ct_test_small_net[] =
  "name: 'small'\n"
  "layer { name: 'data' type: 'Input' top: 'data' top: 'label'\n"
  "  input_param { shape { dim: 2 dim: 1 dim: 5 dim: 5 } shape { dim: 2 } } }\n"
  "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
  "  convolution_param { num_output: 3 kernel_size: 3\n"
  "    weight_filler { type: 'gaussian' std: 1 } bias_filler { type: 'constant' value: 0.1 } } }\n"
  "layer { name: 'relu1' type: 'ReLU' bottom: 'conv1' top: 'conv1' }\n"
  "layer { name: 'ip' type: 'InnerProduct' bottom: 'conv1' top: 'ip'\n"
  "  inner_product_param { num_output: 3 weight_filler { type: 'gaussian' std: 0.5 } } }\n"
  "layer { name: 'sum' type: 'Eltwise' bottom: 'ip' bottom: 'ip' top: 'sum' }\n"
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'sum' bottom: 'label' top: 'loss' }\n";

Caffe__NetParameter *
ct_test_parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                         "test.prototxt", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  return (Caffe__NetParameter *) msg;
}

void
ct_test_param_free (Caffe__NetParameter *param)
{
  if (param != NULL)
    protobuf_c_message_free_unpacked (&param->base, NULL);
}

void
ct_test_small_inputs (float *data, float *label)
{
  for (int i = 0; i < CT_TEST_DATA_COUNT; i++)
    data[i] = (float) sin (0.7 * i + 0.3);
  label[0] = 0.0f;
  label[1] = 2.0f;
}

void
ct_test_set_small_inputs (CtRunner *runner)
{
  static const gint64 data_dims[] = { 2, 1, 5, 5 }, label_dims[] = { 2 };
  float data[CT_TEST_DATA_COUNT], label[2];

  ct_test_small_inputs (data, label);
  ct_runner_set_input (runner, "data", data_dims, 4, data);
  ct_runner_set_input (runner, "label", label_dims, 1, label);
}

static void
on_snapshot (CtRunner *runner, CtRunSnapshot *snapshot, gpointer user_data)
{
  CtTestRun *run = user_data;

  g_assert_true (runner == run->runner);
  /* Always in the thread that iterates the context: this one. */
  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_assert_cmpuint (ct_run_snapshot_get_serial (snapshot), >,
                    run->last != NULL ? ct_run_snapshot_get_serial (run->last) : 0);
  g_clear_pointer (&run->last, ct_run_snapshot_unref);
  run->last = ct_run_snapshot_ref (snapshot);
  run->received++;
}

void
ct_test_run_init (CtTestRun *run, const char *text, const CtRunConfig *config)
{
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (text);

  *run = (CtTestRun) { 0 };
  run->runner = ct_runner_new (param, config, on_snapshot, run);
}

void
ct_test_run_init_small (CtTestRun *run, const CtRunConfig *config)
{
  ct_test_run_init (run, ct_test_small_net, config);
  ct_test_set_small_inputs (run->runner);
}

void
ct_test_run_clear (CtTestRun *run)
{
  g_clear_pointer (&run->runner, ct_runner_free);
  g_clear_pointer (&run->last, ct_run_snapshot_unref);
}

static gboolean
on_timeout (gpointer data)
{
  g_error ("no snapshot came within 60 s");
  return G_SOURCE_REMOVE;
}

static gboolean
is_new (CtTestRun *run)
{
  return run->last != NULL && ct_run_snapshot_get_serial (run->last) > run->seen_serial;
}

CtRunSnapshot *
ct_test_run_next (CtTestRun *run)
{
  guint timeout = g_timeout_add_seconds (60, on_timeout, NULL);

  while (!is_new (run))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (timeout);
  run->seen_serial = ct_run_snapshot_get_serial (run->last);
  return run->last;
}

CtRunSnapshot *
ct_test_run_until (CtTestRun *run, CtRunPass pass, int next_layer)
{
  for (;;)
    {
      CtRunSnapshot *snapshot = ct_test_run_next (run);

      g_assert_null (ct_run_snapshot_get_error (snapshot));
      if (ct_run_snapshot_get_pass (snapshot) == pass &&
          ct_run_snapshot_get_next_layer (snapshot) == next_layer)
        return snapshot;
    }
}

const CtRunBlob *
ct_test_blob (CtRunSnapshot *snapshot, const char *name)
{
  const CtRunBlob *blob = ct_run_snapshot_find_blob (snapshot, name);

  g_assert_nonnull (blob);
  return blob;
}

const float *
ct_test_version_data (const CtRunVersion *version)
{
  return g_bytes_get_data (version->data, NULL);
}

const float *
ct_test_version_diff (const CtRunVersion *version)
{
  g_assert_nonnull (version->diff);
  return g_bytes_get_data (version->diff, NULL);
}
