/* test-net-memory.c: the memory plan (engine/net-memory.c). A planned net
 * must compute exactly what the same net computes with every blob in its
 * own memory, bit for bit, over several passes (so that memory another blob
 * used last pass is never read as if it were this blob's), while taking
 * less memory; a net planned for forward passes keeps no diffs and refuses
 * to run backward. */
#include <string.h>

#include "net-dump.h"
#include "net-test-util.h"
#include "test-solver-common.h"
#include "text-format.h"

/* Every kind of sharing the planner has to respect: layers in place (one
 * of them keeping a copy of its top), a blob read by several layers
 * (Split), a layer keeping a buffer for its backward pass only (LRN), MAX
 * pooling finding its winners again, layers whose tops share their
 * bottom's memory (Flatten), two
 * branches joined (Eltwise, Concat), a random layer (Dropout), a loss
 * and an output no loss weighs (Accuracy), BatchNorm running the Scale
 * and ReLU after it, a sum running the ReLU after it. */
static const char *branchy_net =
  "name: 'branchy'\n"
  "layer { name: 'input' type: 'Input' top: 'data' top: 'label'\n"
  "  input_param { shape { dim: 4 dim: 3 dim: 12 dim: 12 } shape { dim: 4 } } }\n"
  "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
  "  convolution_param { num_output: 8 kernel_size: 3 pad: 1\n"
  "    weight_filler { type: 'gaussian' std: 0.3 } bias_filler { type: 'constant' value: 0.1 } } }\n"
  "layer { name: 'bn1' type: 'BatchNorm' bottom: 'conv1' top: 'conv1' }\n"
  "layer { name: 'scale1' type: 'Scale' bottom: 'conv1' top: 'conv1'\n"
  "  scale_param { bias_term: true filler { type: 'constant' value: 1.5 } } }\n"
  "layer { name: 'relu1' type: 'ReLU' bottom: 'conv1' top: 'conv1' }\n"
  "layer { name: 'norm1' type: 'LRN' bottom: 'conv1' top: 'norm1'\n"
  "  lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 } }\n"
  "layer { name: 'conv2a' type: 'Convolution' bottom: 'norm1' top: 'conv2a'\n"
  "  convolution_param { num_output: 8 kernel_size: 1\n"
  "    weight_filler { type: 'gaussian' std: 0.3 } } }\n"
  "layer { name: 'conv2b' type: 'Convolution' bottom: 'norm1' top: 'conv2b'\n"
  "  convolution_param { num_output: 8 kernel_size: 3 pad: 1\n"
  "    weight_filler { type: 'gaussian' std: 0.3 } } }\n"
  "layer { name: 'bn2' type: 'BatchNorm' bottom: 'conv2b' top: 'bn2' }\n"
  "layer { name: 'scale2' type: 'Scale' bottom: 'bn2' top: 'bn2' scale_param { bias_term: true } }\n"
  "layer { name: 'sum' type: 'Eltwise' bottom: 'conv2a' bottom: 'bn2' top: 'sum' }\n"
  "layer { name: 'relu2' type: 'ReLU' bottom: 'sum' top: 'sum' }\n"
  "layer { name: 'pool_max' type: 'Pooling' bottom: 'sum' top: 'pool_max'\n"
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
  "layer { name: 'pool_ave' type: 'Pooling' bottom: 'sum' top: 'pool_ave'\n"
  "  pooling_param { pool: AVE kernel_size: 2 stride: 2 } }\n"
  "layer { name: 'cat' type: 'Concat' bottom: 'pool_max' bottom: 'pool_ave' top: 'cat' }\n"
  "layer { name: 'flat' type: 'Flatten' bottom: 'cat' top: 'flat' }\n"
  "layer { name: 'ip1' type: 'InnerProduct' bottom: 'flat' top: 'ip1'\n"
  "  inner_product_param { num_output: 16 weight_filler { type: 'xavier' } } }\n"
  "layer { name: 'sig' type: 'Sigmoid' bottom: 'ip1' top: 'sig' }\n"
  "layer { name: 'drop' type: 'Dropout' bottom: 'sig' top: 'sig' include { phase: TRAIN } }\n"
  "layer { name: 'ip2' type: 'InnerProduct' bottom: 'sig' top: 'ip2'\n"
  "  inner_product_param { num_output: 5 weight_filler { type: 'xavier' } } }\n"
  "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' }\n"
  "layer { name: 'acc' type: 'Accuracy' bottom: 'ip2' bottom: 'label' top: 'acc' }\n";

static CtNet *
build (const Caffe__NetParameter *param, Caffe__Phase phase, CtNetMemoryPlan plan)
{
  g_autoptr (GError) error = NULL;
  CtNetConfig config = { .phase = phase, .seed = 1701, .memory_plan = plan };
  CtNet *net = ct_net_new_with_config (param, &config, &error);

  g_assert_no_error (error);
  g_assert_nonnull (net);
  return net;
}

static void
fill_inputs (CtNet *net, int pass)
{
  for (guint k = 0; k < ct_net_n_inputs (net); k++)
    {
      guint index = ct_net_input_index (net, k);
      CtBlob *blob = ct_net_get_blob (net, index);

      if (strstr (ct_net_get_blob_name (net, index), "label") != NULL)
        ct_test_fill_labels (blob, 5);
      else
        ct_test_fill_sine (blob, 0.7 * pass);
    }
}

static void
assert_same_floats (CtBlob *a, CtBlob *b, gboolean diff)
{
  const float *x = diff ? ct_blob_cpu_diff (a, NULL) : ct_blob_cpu_data (a, NULL);
  const float *y = diff ? ct_blob_cpu_diff (b, NULL) : ct_blob_cpu_data (b, NULL);

  g_assert_cmpint (ct_blob_count (a), ==, ct_blob_count (b));
  g_assert_cmpmem (x, ct_blob_count (a) * sizeof (float), y, ct_blob_count (b) * sizeof (float));
}

/* In a planned NET, whether layer NAME runs the in-place layers after it
 * with its own passes (a BatchNorm its Scale and ReLU, an Eltwise sum its
 * ReLU): N_ABSORBED layers, and their backward passes when BACKWARD. */
static void
assert_absorbs (CtNet *net, const char *name, guint n_absorbed, gboolean backward)
{
  int index = ct_net_layer_index (net, name);
  CtLayer *layer;

  g_assert_cmpint (index, >=, 0);
  layer = ct_net_get_layer (net, (guint) index);
  g_assert_cmpuint (layer->n_absorbed, ==, n_absorbed);
  g_assert_cmpint (layer->absorbs_backward, ==, backward);
  for (guint i = 0; i < n_absorbed; i++)
    g_assert_true (layer->absorbed[i]->absorbed_by == layer);
}

/* Three training passes of PARAM with and without the plan: the same
 * losses, outputs and parameter gradients, bit for bit; and less memory. */
static void
check_training (const Caffe__NetParameter *param)
{
  g_autoptr (CtNet) whole = build (param, CAFFE__PHASE__TRAIN, CT_NET_MEMORY_KEEP_ALL);
  g_autoptr (CtNet) planned = build (param, CAFFE__PHASE__TRAIN, CT_NET_MEMORY_TRAINING);
  gsize planned_bytes, unplanned_bytes, whole_bytes;

  ct_net_get_memory (planned, &planned_bytes, &unplanned_bytes);
  ct_net_get_memory (whole, &whole_bytes, NULL);
  g_assert_cmpuint (unplanned_bytes, ==, whole_bytes);
  g_assert_cmpuint (planned_bytes, <, unplanned_bytes);

  for (int pass = 0; pass < 3; pass++)
    {
      CtNet *nets[2] = { whole, planned };
      float loss[2];

      for (guint n = 0; n < 2; n++)
        {
          g_autoptr (GError) error = NULL;

          fill_inputs (nets[n], pass);
          g_assert_true (ct_net_clear_param_diffs (nets[n], &error));
          g_assert_true (ct_net_forward (nets[n], &loss[n], &error));
          g_assert_true (ct_net_backward (nets[n], &error));
          g_assert_no_error (error);
        }
      g_assert_cmpmem (&loss[0], sizeof (float), &loss[1], sizeof (float));
      for (guint i = 0; i < ct_net_n_outputs (whole); i++)
        assert_same_floats (ct_net_get_blob (whole, ct_net_output_index (whole, i)),
                            ct_net_get_blob (planned, ct_net_output_index (planned, i)), FALSE);
      for (guint i = 0; i < ct_net_n_params (whole); i++)
        {
          assert_same_floats (ct_net_get_param_blob (whole, i),
                              ct_net_get_param_blob (planned, i), TRUE);
          assert_same_floats (ct_net_get_param_blob (whole, i),
                              ct_net_get_param_blob (planned, i), FALSE);
        }
    }
}

/* Three forward passes in the TEST phase: the same outputs, no diffs, and
 * backward refused. */
static void
check_forward (const Caffe__NetParameter *param)
{
  g_autoptr (CtNet) whole = build (param, CAFFE__PHASE__TEST, CT_NET_MEMORY_KEEP_ALL);
  g_autoptr (CtNet) planned = build (param, CAFFE__PHASE__TEST, CT_NET_MEMORY_FORWARD);
  g_autoptr (GError) error = NULL;
  gsize planned_bytes, unplanned_bytes;

  ct_net_get_memory (planned, &planned_bytes, &unplanned_bytes);
  g_assert_cmpuint (planned_bytes, <, unplanned_bytes);
  for (int pass = 0; pass < 3; pass++)
    {
      float loss[2];

      fill_inputs (whole, pass);
      fill_inputs (planned, pass);
      g_assert_true (ct_net_forward (whole, &loss[0], &error));
      g_assert_true (ct_net_forward (planned, &loss[1], &error));
      g_assert_no_error (error);
      g_assert_cmpmem (&loss[0], sizeof (float), &loss[1], sizeof (float));
      for (guint i = 0; i < ct_net_n_outputs (whole); i++)
        assert_same_floats (ct_net_get_blob (whole, ct_net_output_index (whole, i)),
                            ct_net_get_blob (planned, ct_net_output_index (planned, i)), FALSE);
    }
  /* no activation's diff was ever allocated */
  for (guint i = 0; i < ct_net_n_blobs (planned); i++)
    {
      CtMem *diff = ct_blob_get_diff_mem (ct_net_get_blob (planned, i));

      if (ct_net_blob_loss_weight (planned, i) != 0.0f)
        continue;
      g_test_message ("%s: %s", ct_net_get_blob_name (planned, i),
                      ct_mem_head_to_string (ct_mem_get_head (diff)));
      g_assert_cmpint (ct_mem_get_head (diff), ==, CT_MEM_UNINITIALIZED);
    }
  g_assert_false (ct_net_backward (planned, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID);
}

static void
test_branchy_training (void)
{
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (branchy_net);
  g_autoptr (CtNet) planned = build (param, CAFFE__PHASE__TRAIN, CT_NET_MEMORY_TRAINING);
  g_autoptr (CtNet) whole = build (param, CAFFE__PHASE__TRAIN, CT_NET_MEMORY_KEEP_ALL);

  /* the planned net runs bn1, scale1 and relu1 as one pass (the
   * comparisons below hold it to the bits of the three); bn2 is not in
   * place; a net that keeps every blob runs every layer itself */
  assert_absorbs (planned, "bn1", 2, TRUE);
  assert_absorbs (planned, "bn2", 0, FALSE);
  assert_absorbs (planned, "sum", 1, TRUE);
  assert_absorbs (whole, "bn1", 0, FALSE);
  check_training (param);
}

static void
test_branchy_forward (void)
{
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (branchy_net);
  g_autoptr (CtNet) planned = build (param, CAFFE__PHASE__TEST, CT_NET_MEMORY_FORWARD);

  /* with the stored statistics, forward only */
  assert_absorbs (planned, "bn1", 2, FALSE);
  assert_absorbs (planned, "sum", 1, FALSE);
  check_forward (param);
}

static Caffe__NetParameter *
load_timing_net (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("CT_TEST_DATA"), "timing", name, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  return ct_test_parse (text);
}

static void
test_timing_nets (void)
{
  const char *names[] = { "lenet_input_b64.prototxt", "cifar10_quick_input_train.prototxt" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (Caffe__NetParameter) param = load_timing_net (names[i]);

      check_training (param);
      check_forward (param);
    }
}

/* The planned net's tops still hold their values right after their layer
 * has run: an observer that copies a blob then sees what an unplanned net
 * shows after the whole pass. */
typedef struct {
  GPtrArray *copies; /* CtBlob*, one per blob, copied after its last writer */
} Copies;

static void
copy_tops (CtNet *net, CtNetEvent event, guint layer_index, gpointer user_data)
{
  Copies *c = user_data;
  guint n_tops;
  const guint *tops = ct_net_get_top_ids (net, layer_index, &n_tops);

  if (event != CT_NET_EVENT_AFTER_FORWARD)
    return;
  for (guint j = 0; j < n_tops; j++)
    g_assert_true (ct_blob_copy_from (c->copies->pdata[tops[j]], ct_net_get_blob (net, tops[j]),
                                      CT_BLOB_COPY_RESHAPE, NULL));
}

static void
test_observers_see_tops (void)
{
  g_autoptr (Caffe__NetParameter) param = ct_test_parse (branchy_net);
  g_autoptr (CtNet) whole = build (param, CAFFE__PHASE__TEST, CT_NET_MEMORY_KEEP_ALL);
  g_autoptr (CtNet) planned = build (param, CAFFE__PHASE__TEST, CT_NET_MEMORY_FORWARD);
  Copies c = { g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free) };
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < ct_net_n_blobs (planned); i++)
    g_ptr_array_add (c.copies, ct_blob_new ());
  ct_net_add_observer (planned, copy_tops, &c, NULL);
  fill_inputs (whole, 0);
  fill_inputs (planned, 0);
  g_assert_true (ct_net_forward (whole, NULL, &error));
  g_assert_true (ct_net_forward (planned, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < ct_net_n_blobs (whole); i++)
    {
      /* an in-place blob is copied after its last layer, as it ends */
      if (ct_blob_count (c.copies->pdata[i]) > 0)
        assert_same_floats (ct_net_get_blob (whole, i), c.copies->pdata[i], FALSE);
    }
  g_ptr_array_unref (c.copies);
}

static CtSolver *
solver_new (const char *text, gboolean plan)
{
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param;
  CtSolver *solver;

  param = (Caffe__SolverParameter *) ct_text_parse (&caffe__solver_parameter__descriptor, text,
                                                    -1, "solver.prototxt", CT_TEXT_STRICT,
                                                    &error);
  g_assert_no_error (error);
  solver = ct_solver_new_with_memory_plan (param, NULL, plan, &error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_no_error (error);
  return solver;
}

/* Training with tests in between, as `cortado-cli train` runs it: the same
 * weights bit for bit with the plan as without. */
static void
test_solver_same_weights (void)
{
  g_autofree char *text = g_strdup_printf (
    "net_param { %s } test_iter: 2 test_interval: 3 base_lr: 0.05 momentum: 0.9 "
    "weight_decay: 0.001 lr_policy: 'fixed' max_iter: 7 display: 0 "
    "snapshot_after_train: false random_seed: 5", branchy_net);
  g_autoptr (CtSolver) whole = solver_new (text, FALSE);
  g_autoptr (CtSolver) planned = solver_new (text, TRUE);
  g_autoptr (GError) error = NULL;
  gsize planned_bytes, unplanned_bytes;

  ct_test_solver_feed_inputs (whole);
  ct_test_solver_feed_inputs (planned);
  g_assert_true (ct_solver_solve (whole, NULL, &error));
  g_assert_true (ct_solver_solve (planned, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ct_test_same_weights (ct_solver_get_net (whole), ct_solver_get_net (planned)));
  ct_net_get_memory (ct_solver_get_test_net (planned, 0), &planned_bytes, &unplanned_bytes);
  g_assert_cmpuint (planned_bytes, <, unplanned_bytes);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/net-memory/branchy-training", test_branchy_training);
  g_test_add_func ("/net-memory/branchy-forward", test_branchy_forward);
  g_test_add_func ("/net-memory/timing-nets", test_timing_nets);
  g_test_add_func ("/net-memory/observers-see-tops", test_observers_see_tops);
  g_test_add_func ("/net-memory/solver-same-weights", test_solver_same_weights);
  return g_test_run ();
}
