/* test-diff.c: net diffs on pairs of prototxts with each kind of change,
 * and model diffs of a caffemodel against itself and after one SGD step. */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "analysis-error.h"
#include "analysis-test-util.h"
#include "model-diff.h"
#include "net-diff.h"
#include "solver.h"
#include "test-files.h"
#include "text-format.h"

static const char *base =
  "name: 'n'\n"
  "layer { name: 'data' type: 'Input' top: 'data'\n"
  "  input_param { shape { dim: 1 dim: 1 dim: 8 dim: 8 } } }\n"
  "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
  "  convolution_param { num_output: 20 kernel_size: 5 } }\n"
  "layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1'\n"
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
  "layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool1' top: 'ip1'\n"
  "  inner_product_param { num_output: 10 } }\n";

typedef struct {
  const char *name;
  const char *from, *to;  /* text replaced in the base net */
  const char *want;       /* ct_net_diff_to_text of the pair, "" when equal */
} DiffCase;

static const DiffCase cases[] = {
  { "equal", "", "", "" },
  /* comments, layout and a default written out change nothing */
  { "layout", "kernel_size: 5 }", "kernel_size: 5  # five\n bias_term: true }", "" },
  { "changed", "num_output: 20", "num_output: 50",
    "~ conv1: convolution_param.num_output: 20 -> 50\n" },
  { "enum", "pool: MAX", "pool: AVE", "~ pool1: pooling_param.pool: MAX -> AVE\n" },
  { "message-added", "kernel_size: 5 }", "kernel_size: 5 weight_filler { type: 'xavier' } }",
    "~ conv1: convolution_param.weight_filler: (none) -> { type: \"xavier\" }\n" },
  { "repeated", "bottom: 'pool1'", "bottom: 'conv1'", "~ ip1: bottom: \"pool1\" -> \"conv1\"\n" },
  { "net-field", "name: 'n'\n", "name: 'n'\nforce_backward: true\n",
    "~ net: force_backward: false -> true\n" },
  { "removed", "layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1'\n"
               "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n", "",
    "- layer 'pool1' (Pooling)\n" },
  { "added", "inner_product_param { num_output: 10 } }\n",
    "inner_product_param { num_output: 10 } }\n"
    "layer { name: 'prob' type: 'Softmax' bottom: 'ip1' top: 'prob' }\n",
    "+ layer 'prob' (Softmax)\n" },
  { "renamed", "name: 'pool1'", "name: 'p1'", "~ layer 'pool1' renamed to 'p1'\n" },
  /* two layers of one name (one per phase) match in order */
  { "same-name", "inner_product_param { num_output: 10 } }\n",
    "inner_product_param { num_output: 10 } }\n"
    "layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool1' top: 'ip1'\n"
    "  inner_product_param { num_output: 10 } }\n",
    "+ layer 'ip1' (InnerProduct)\n" },
  /* a fork's fields, kept by the lenient reader, compare by their text */
  { "unknown-added", "stride: 2 }", "stride: 2 ceil_mode: true }",
    "~ pool1: pooling_param.?ceil_mode: (none) -> ceil_mode: true\n" },
  { "unknown-layer", "top: 'ip1'", "top: 'ip1' prior_box_param { min_size: 30 }",
    "~ ip1: ?prior_box_param: (none) -> prior_box_param { min_size: 30 }\n" },
};

static char *
write_net (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static char *
replace (const char *text, const char *from, const char *to)
{
  const char *at;

  if (from[0] == '\0')
    return g_strdup (text);
  at = strstr (text, from);
  g_assert_nonnull (at);
  return g_strdup_printf ("%.*s%s%s", (int) (at - text), text, to, at + strlen (from));
}

static void
check_case (gconstpointer data)
{
  const DiffCase *c = data;
  g_autofree char *dir = ct_test_tmpdir_make ("cortado-net-diff-XXXXXX");
  g_autofree char *other = replace (base, c->from, c->to);
  g_autofree char *a = write_net (dir, "a.prototxt", base);
  g_autofree char *b = write_net (dir, "b.prototxt", other);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) forward = ct_net_diff_files (a, b, &error);
  g_autoptr (GPtrArray) backward = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  text = ct_net_diff_to_text (forward);
  g_assert_cmpstr (text, ==, c->want);
  /* the other way round: as many changes, added and removed swapped */
  backward = ct_net_diff_files (b, a, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (backward->len, ==, forward->len);
  for (guint i = 0; i < forward->len; i++)
    {
      const CtNetDiffEntry *f = forward->pdata[i], *r = backward->pdata[i];

      g_assert_cmpstr (f->layer_a, ==, r->layer_b);
      g_assert_cmpstr (f->value_a, ==, r->value_b);
      g_assert_cmpstr (f->field, ==, r->field);
      g_assert_cmpint (f->kind == CT_NET_DIFF_ADDED, ==, r->kind == CT_NET_DIFF_REMOVED);
    }
  ct_test_remove_tree (dir);
}

/* A V1 net and the same net in today's format compare equal: both are
 * upgraded before comparing. */
static void
test_upgrade (void)
{
  g_autofree char *dir = ct_test_tmpdir_make ("cortado-net-diff-XXXXXX");
  g_autofree char *v1 = write_net (dir, "v1.prototxt",
    "name: 'n'\n"
    "layers { name: 'conv1' type: CONVOLUTION bottom: 'data' top: 'conv1'\n"
    "  convolution_param { num_output: 20 kernel_size: 5 } }\n"
    "layers { name: 'relu1' type: RELU bottom: 'conv1' top: 'conv1' }\n");
  g_autofree char *v2 = write_net (dir, "v2.prototxt",
    "name: 'n'\n"
    "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
    "  convolution_param { num_output: 20 kernel_size: 5 } }\n"
    "layer { name: 'relu1' type: 'ReLU' bottom: 'conv1' top: 'conv1' }\n");
  g_autofree char *bad = write_net (dir, "bad.prototxt", "layer { name: 'x' \n");
  g_autofree char *solver = write_net (dir, "solver.prototxt", "base_lr: 0.01\nmax_iter: 5\n");
  g_autofree char *solver2 = write_net (dir, "solver2.prototxt", "base_lr: 0.1\nmax_iter: 5\n");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) diff = ct_net_diff_files (v1, v2, &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (diff->len, ==, 0);
  g_clear_pointer (&diff, g_ptr_array_unref);
  diff = ct_net_diff_files (v1, bad, &error);
  g_assert_null (diff);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "bad.prototxt:2"));
  g_clear_error (&error);
  diff = ct_net_diff_files (v1, solver, &error);
  g_assert_null (diff);
  g_assert_error (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_BAD_ARGUMENT);
  g_clear_error (&error);
  diff = ct_net_diff_files (solver, solver2, &error);
  g_assert_no_error (error);
  text = ct_net_diff_to_text (diff);
  g_assert_cmpstr (text, ==, "~ net: base_lr: 0.00999999978 -> 0.100000001\n");
  ct_test_remove_tree (dir);
}

static const char *solver_text =
  "base_lr: 0.1 lr_policy: 'fixed' max_iter: 1 random_seed: 1701\n"
  "net_param { name: 'm'\n"
  "  layer { name: 'data' type: 'Input' top: 'data' top: 'target'\n"
  "    input_param { shape { dim: 4 dim: 3 } shape { dim: 4 dim: 2 } } }\n"
  "  layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'out'\n"
  "    inner_product_param { num_output: 2 weight_filler { type: 'gaussian' std: 1 }\n"
  "      bias_filler { type: 'constant' value: 0.5 } } }\n"
  "  layer { name: 'loss' type: 'EuclideanLoss' bottom: 'out' bottom: 'target' top: 'loss' }\n"
  "}\n";

/* One SGD step without momentum or decay moves each weight by the update
 * the solver leaves in the diff: Δw = −diff. */
static void
test_model_diff (void)
{
  g_autofree char *dir = ct_test_tmpdir_make ("cortado-model-diff-XXXXXX");
  g_autofree char *before = g_build_filename (dir, "before.caffemodel", NULL);
  g_autofree char *after = g_build_filename (dir, "after.caffemodel", NULL);
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param = (Caffe__SolverParameter *) ct_text_parse (
    &caffe__solver_parameter__descriptor, solver_text, -1, "solver", CT_TEXT_STRICT, &error);
  g_autoptr (CtSolver) solver = NULL;
  g_autoptr (CtModelDiff) same = NULL;
  g_autoptr (CtModelDiff) step = NULL;
  g_autofree char *text = NULL;
  CtNet *net;
  float data[12], target[8];

  g_assert_no_error (error);
  solver = ct_solver_new (param, NULL, &error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  g_assert_no_error (error);
  net = ct_solver_get_net (solver);
  for (guint i = 0; i < 12; i++)
    data[i] = sinf ((float) i);
  for (guint i = 0; i < 8; i++)
    target[i] = cosf ((float) i);
  ct_test_set_blob (net, "data", data, 12);
  ct_test_set_blob (net, "target", target, 8);
  g_assert_true (ct_net_write_caffemodel (net, before, FALSE, &error));
  same = ct_model_diff_files (before, before, &error);
  g_assert_no_error (error);
  g_assert_true (ct_model_diff_is_equal (same));
  g_assert_cmpuint (same->blobs->len, ==, 2);
  g_assert_cmpfloat (((CtModelDiffBlob *) same->blobs->pdata[0])->relative, ==, 0.0);

  g_assert_true (ct_solver_step (solver, 1, &error));
  g_assert_no_error (error);
  g_assert_true (ct_net_write_caffemodel (net, after, FALSE, &error));
  step = ct_model_diff_files (before, after, &error);
  g_assert_no_error (error);
  g_assert_false (ct_model_diff_is_equal (step));
  g_assert_cmpuint (step->blobs->len, ==, 2);
  for (guint p = 0; p < 2; p++)
    {
      const CtModelDiffBlob *d = step->blobs->pdata[p];
      CtBlob *blob = ct_net_layer_by_name (net, "ip")->blobs->pdata[p];
      const float *update = ct_blob_cpu_diff (blob, NULL);
      const float *now = ct_blob_cpu_data (blob, NULL);
      double sum_u = 0, sum_w = 0, max_u = 0;

      for (gint64 i = 0; i < ct_blob_count (blob); i++)
        {
          double w = (double) now[i] + update[i]; /* the weight before the step */

          sum_u += (double) update[i] * update[i];
          sum_w += w * w;
          max_u = MAX (max_u, fabs (update[i]));
        }
      g_assert_cmpstr (d->layer, ==, "ip");
      g_assert_cmpuint (d->blob_index, ==, p);
      g_assert_cmpstr (d->shape_a, ==, p == 0 ? "2 3" : "2");
      g_assert_cmpfloat (sum_u, >, 0.0);
      g_assert_cmpfloat_with_epsilon (d->norm_delta, sqrt (sum_u), 1e-5 * sqrt (sum_u));
      g_assert_cmpfloat_with_epsilon (d->relative, sqrt (sum_u / sum_w),
                                      1e-5 * sqrt (sum_u / sum_w));
      g_assert_cmpfloat_with_epsilon (d->max_abs_delta, max_u, 1e-5 * max_u);
      g_assert_cmpuint (d->n_changed, ==, (guint64) ct_blob_count (blob));
    }
  text = ct_model_diff_to_text (step);
  g_assert_true (g_str_has_prefix (text, "layer\tblob\tshape\tnorm\t"));
  g_assert_nonnull (strstr (text, "\nip\t0\t2 3\t"));
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/analysis/net-diff/%s", cases[i].name);

      g_test_add_data_func (path, &cases[i], check_case);
    }
  g_test_add_func ("/analysis/net-diff/upgrade-and-solvers", test_upgrade);
  g_test_add_func ("/analysis/model-diff/sgd-step", test_model_diff);
  return g_test_run ();
}
