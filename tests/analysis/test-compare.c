/* test-compare.c: what the window's comparisons rest on, against
 * hand-computed cases, with no display: the colour scale of relative
 * changes, per-layer ‖Δw‖/‖w‖ over several blobs, a blob's two versions
 * shaped for drawing with their largest changes, a net diff gathered per
 * layer (ct_net_diff_marks) from two texts, and reading a file at a git
 * revision (skipped without git). */
#include <math.h>
#include <string.h>

#include "analysis-test-util.h"
#include "git-revision.h"
#include "model-diff.h"
#include "net-diff-marks.h"
#include "net-diff.h"
#include "test-files.h"
#include "text-format.h"
#include "weight-compare.h"

static Caffe__NetParameter *
parse_net (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1, "net",
                                         CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  return (Caffe__NetParameter *) msg;
}

static void
test_scale (void)
{
  CtRgb lo = ct_colormap_at (CT_COLORMAP_VIRIDIS, 0.0);
  CtRgb hi = ct_colormap_at (CT_COLORMAP_VIRIDIS, 1.0);
  CtRgb c;

  g_assert_cmpfloat (ct_change_scale_position (1e-6), ==, 0.0);
  g_assert_cmpfloat (ct_change_scale_position (1e-9), ==, 0.0);
  g_assert_cmpfloat (ct_change_scale_position (0.0), ==, 0.0);
  g_assert_cmpfloat (ct_change_scale_position (NAN), ==, 0.0);
  g_assert_cmpfloat_with_epsilon (ct_change_scale_position (1e-3), 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (ct_change_scale_position (1e-5), 1.0 / 6.0, 1e-12);
  g_assert_cmpfloat (ct_change_scale_position (1.0), ==, 1.0);
  g_assert_cmpfloat (ct_change_scale_position (40.0), ==, 1.0);
  c = ct_change_scale_color (1e-7);
  g_assert_true (c.r == lo.r && c.g == lo.g && c.b == lo.b);
  c = ct_change_scale_color (2.0);
  g_assert_true (c.r == hi.r && c.g == hi.g && c.b == hi.b);
}

/* Layer a: w = (3, 4) and (0); after, (3, 1) and (4): ‖Δw‖ = 5, ‖w‖ = 5.
 * Layer b: (1, 0, 0, 0) to (1, 0, 0, 0.5): 0.5. Layer c changes shape:
 * left out. */
static const char *before =
  "layer { name: 'a' type: 'InnerProduct'\n"
  "  blobs { shape { dim: 2 } data: 3 data: 4 } blobs { shape { dim: 1 } data: 0 } }\n"
  "layer { name: 'b' type: 'Convolution'\n"
  "  blobs { shape { dim: 2 dim: 1 dim: 1 dim: 2 } data: 1 data: 0 data: 0 data: 0 } }\n"
  "layer { name: 'c' type: 'InnerProduct' blobs { shape { dim: 1 } data: 1 } }\n";
static const char *after =
  "layer { name: 'a' type: 'InnerProduct'\n"
  "  blobs { shape { dim: 2 } data: 3 data: 1 } blobs { shape { dim: 1 } data: 4 } }\n"
  "layer { name: 'b' type: 'Convolution'\n"
  "  blobs { shape { dim: 2 dim: 1 dim: 1 dim: 2 } data: 1 data: 0 data: 0 data: 0.5 } }\n"
  "layer { name: 'c' type: 'InnerProduct' blobs { shape { dim: 2 } data: 1 data: 1 } }\n";

static void
test_layers (void)
{
  Caffe__NetParameter *a = parse_net (before), *b = parse_net (after);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtModelDiff) diff = ct_model_diff_compute (a, b, &error);
  g_autoptr (GPtrArray) layers = NULL;
  const CtLayerChange *c;

  g_assert_no_error (error);
  layers = ct_weight_compare_layers (diff);
  g_assert_cmpuint (layers->len, ==, 2);
  c = layers->pdata[0];
  g_assert_cmpstr (c->layer, ==, "a");
  g_assert_cmpfloat_with_epsilon (c->norm_a, 5.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (c->norm_delta, 5.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (c->relative, 1.0, 1e-12);
  c = layers->pdata[1];
  g_assert_cmpstr (c->layer, ==, "b");
  g_assert_cmpfloat_with_epsilon (c->relative, 0.5, 1e-12);
  protobuf_c_message_free_unpacked (&a->base, NULL);
  protobuf_c_message_free_unpacked (&b->base, NULL);
}

static void
test_pair (void)
{
  Caffe__NetParameter *a = parse_net (before), *b = parse_net (after);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtWeightPair) conv = ct_weight_pair_new (a, b, "b", 0, &error);
  g_autoptr (CtWeightPair) vec = NULL;
  g_autoptr (GArray) top = NULL;
  g_autofree char *at = NULL;
  const CtWeightChange *first;

  g_assert_no_error (error);
  /* (2, 1, 1, 2) filters drawn as one sample of 2 × 1 tiles of 1 × 2 */
  g_assert_cmpuint (conv->n_dims, ==, 4);
  g_assert_cmpint (conv->dims[0], ==, 1);
  g_assert_cmpint (conv->dims[1], ==, 2);
  g_assert_cmpint (conv->dims[2], ==, 1);
  g_assert_cmpint (conv->dims[3], ==, 2);
  g_assert_cmpfloat (conv->delta[3], ==, 0.5f);
  top = ct_weight_pair_top_changes (conv, 5);
  g_assert_cmpuint (top->len, ==, 1);
  first = &g_array_index (top, CtWeightChange, 0);
  g_assert_cmpint (first->index, ==, 3);
  g_assert_cmpfloat (first->a, ==, 0.0f);
  g_assert_cmpfloat (first->b, ==, 0.5f);
  at = ct_weight_pair_index_text (conv, 3);
  g_assert_cmpstr (at, ==, "(1, 0, 0, 1)");
  g_clear_pointer (&top, g_array_unref);

  vec = ct_weight_pair_new (a, b, "a", 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (vec->n_dims, ==, 1);
  g_assert_cmpint (vec->dims[0], ==, 2);
  top = ct_weight_pair_top_changes (vec, 1);
  g_assert_cmpuint (top->len, ==, 1);
  g_assert_cmpint (g_array_index (top, CtWeightChange, 0).index, ==, 1);

  g_assert_null (ct_weight_pair_new (a, b, "c", 0, &error));
  g_assert_nonnull (strstr (error->message, "layer 'c', blob 0"));
  g_clear_error (&error);
  g_assert_null (ct_weight_pair_new (a, b, "a", 2, &error));
  g_assert_nonnull (strstr (error->message, "no blob 2 in the first model"));
  protobuf_c_message_free_unpacked (&a->base, NULL);
  protobuf_c_message_free_unpacked (&b->base, NULL);
}

/* The top K of many values are the K largest |Δ|, in order. */
static void
test_top_order (void)
{
  CtWeightPair pair = { 0 };
  float a[100], b[100], d[100];
  g_autoptr (GArray) top = NULL;

  for (int i = 0; i < 100; i++)
    {
      a[i] = 0.0f;
      b[i] = (float) ((i * 37) % 100) * (i % 2 ? 1.0f : -1.0f);
      d[i] = b[i] - a[i];
    }
  pair.a = a;
  pair.b = b;
  pair.delta = d;
  pair.count = 100;
  top = ct_weight_pair_top_changes (&pair, 4);
  g_assert_cmpuint (top->len, ==, 4);
  for (guint k = 0; k < 4; k++)
    g_assert_cmpfloat (fabsf (g_array_index (top, CtWeightChange, k).b), ==, 99.0f - k);
}

static const char *net_a =
  "name: 'n'\n"
  "layer { name: 'data' type: 'Input' top: 'data'\n"
  "  input_param { shape { dim: 1 dim: 1 dim: 8 dim: 8 } } }\n"
  "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
  "  convolution_param { num_output: 20 kernel_size: 5 } }\n"
  "layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1'\n"
  "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
  "layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool1' top: 'ip1'\n"
  "  inner_product_param { num_output: 10 } }\n";
/* conv1 changed twice, pool1 gone, ip1 renamed fc1 (and rewired), ip2 new */
static const char *net_b =
  "name: 'n'\n"
  "layer { name: 'data' type: 'Input' top: 'data'\n"
  "  input_param { shape { dim: 1 dim: 1 dim: 8 dim: 8 } } }\n"
  "layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1'\n"
  "  convolution_param { num_output: 16 kernel_size: 3 } }\n"
  "layer { name: 'fc1' type: 'InnerProduct' bottom: 'pool1' top: 'ip1'\n"
  "  inner_product_param { num_output: 10 } }\n"
  "layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2'\n"
  "  inner_product_param { num_output: 2 } }\n";

static void
test_net_marks (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries = ct_net_diff_texts (net_a, "a.prototxt", net_b, "b.prototxt",
                                                     &error);
  g_autoptr (GPtrArray) marks = NULL;
  const CtNetDiffMark *m;
  guint8 rgb[4][3];

  g_assert_no_error (error);
  marks = ct_net_diff_marks (entries);
  g_assert_cmpuint (marks->len, ==, 4);
  m = marks->pdata[0];
  g_assert_cmpstr (m->layer, ==, "conv1");
  g_assert_cmpint (m->kind, ==, CT_NET_DIFF_CHANGED);
  g_assert_cmpstr (m->note, ==,
                   "changed: convolution_param.num_output 20 → 16\n"
                   "changed: convolution_param.kernel_size 5 → 3");
  for (guint i = 1; i < marks->len; i++)
    {
      m = marks->pdata[i];
      if (m->kind == CT_NET_DIFF_REMOVED)
        {
          g_assert_cmpstr (m->layer, ==, "pool1");
          g_assert_cmpstr (m->type, ==, "Pooling");
          g_assert_cmpstr (m->note, ==, "removed (Pooling)");
        }
      else if (m->kind == CT_NET_DIFF_RENAMED)
        {
          g_assert_cmpstr (m->layer, ==, "fc1");
          g_assert_cmpstr (m->note, ==, "renamed from 'ip1'");
        }
      else
        {
          g_assert_cmpint (m->kind, ==, CT_NET_DIFF_ADDED);
          g_assert_cmpstr (m->layer, ==, "ip2");
          g_assert_cmpstr (m->note, ==, "added (InnerProduct)");
        }
    }
  /* four colours, told apart */
  for (guint k = 0; k < 4; k++)
    ct_net_diff_kind_color ((CtNetDiffKind) k, rgb[k]);
  for (guint k = 0; k < 4; k++)
    for (guint j = k + 1; j < 4; j++)
      g_assert_true (memcmp (rgb[k], rgb[j], 3) != 0);

  /* text that does not parse is an error naming where */
  g_assert_null (ct_net_diff_texts (net_a, "a.prototxt", "layer { name: ", "b.prototxt",
                                    &error));
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "b.prototxt:1:"));
}

static void
git (const char *dir, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_ptr_array_add (argv, (char *) "git");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) "user.name=Cortado Test");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) "user.email=test@cortado.invalid");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (dir, (char **) argv->pdata, NULL,
                               G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                                 | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static void
test_git (void)
{
  g_autofree char *git_path = g_find_program_in_path ("git");
  g_autofree char *dir = NULL, *sub = NULL, *path = NULL, *other = NULL, *outside = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  const char *init[] = { "init", "-q", NULL };
  const char *add[] = { "add", "nets/net.prototxt", NULL };
  const char *commit1[] = { "commit", "-q", "-m", "first", NULL };
  const char *commit2[] = { "commit", "-q", "-a", "-m", "second", NULL };

  if (git_path == NULL)
    {
      g_test_skip ("git is not installed");
      return;
    }
  dir = ct_test_tmpdir_make ("cortado-git-XXXXXX");
  sub = g_build_filename (dir, "repo", "nets", NULL);
  path = g_build_filename (sub, "net.prototxt", NULL);
  other = g_build_filename (sub, "other.prototxt", NULL);
  outside = g_build_filename (dir, "outside.prototxt", NULL);
  g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, net_a, -1, NULL));
  g_assert_true (g_file_set_contents (outside, net_a, -1, NULL));
  {
    g_autofree char *repo = g_build_filename (dir, "repo", NULL);

    git (repo, init);
    git (repo, add);
    git (repo, commit1);
    g_assert_true (g_file_set_contents (path, net_b, -1, NULL));
    git (repo, commit2);
  }
  text = ct_git_show_file (path, "HEAD~1", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, net_a);
  g_clear_pointer (&text, g_free);
  text = ct_git_show_file (path, "HEAD", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, net_b);
  g_clear_pointer (&text, g_free);

  g_assert_null (ct_git_show_file (path, "HEAD~7", NULL, &error));
  g_assert_error (error, CT_GIT_ERROR, CT_GIT_ERROR_NO_REVISION);
  g_assert_true (g_str_has_prefix (error->message,
                                   "Could not read net.prototxt at revision HEAD~7: "));
  g_clear_error (&error);
  /* a file the revision does not hold */
  g_assert_true (g_file_set_contents (other, net_a, -1, NULL));
  g_assert_null (ct_git_show_file (other, "HEAD", NULL, &error));
  g_assert_error (error, CT_GIT_ERROR, CT_GIT_ERROR_NO_REVISION);
  g_clear_error (&error);
  g_assert_null (ct_git_show_file (path, "-p", NULL, &error));
  g_assert_error (error, CT_GIT_ERROR, CT_GIT_ERROR_BAD_REVISION);
  g_clear_error (&error);
  g_assert_null (ct_git_show_file (path, "", NULL, &error));
  g_assert_error (error, CT_GIT_ERROR, CT_GIT_ERROR_BAD_REVISION);
  g_clear_error (&error);
  /* the temporary folder itself is in no work tree */
  text = ct_git_show_file (outside, "HEAD", NULL, &error);
  if (text != NULL)
    g_test_message ("the temporary folder is inside a git work tree: not checked");
  else
    {
      g_assert_error (error, CT_GIT_ERROR, CT_GIT_ERROR_NOT_A_REPO);
      g_assert_nonnull (strstr (error->message, "is not in a git work tree"));
    }
  ct_test_remove_tree (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/compare/scale", test_scale);
  g_test_add_func ("/analysis/compare/layers", test_layers);
  g_test_add_func ("/analysis/compare/pair", test_pair);
  g_test_add_func ("/analysis/compare/top-order", test_top_order);
  g_test_add_func ("/analysis/compare/net-marks", test_net_marks);
  g_test_add_func ("/analysis/compare/git", test_git);
  return g_test_run ();
}
