/* test-shapes-zoo.c: shape inference over every net of the zoo copied in
 * tests/data/zoo (and of ../shared/zoo when CT_SHARED_DIR names it) that
 * uses only BVLC Caffe's schema and layer types, in TRAIN and TEST.
 *
 * Every layer must get its shapes, except layers of BVLC types Cortado does
 * not build yet (the data layers that read files, which come with the data
 * issue) and the layers below them. A few well-known nets' shapes are
 * checked outright, and the counts are asserted so that the test cannot
 * pass by finding nothing. */
#include <string.h>

#include "net.h"
#include "proto-file.h"

/* Every layer type BVLC Caffe registers. */
static const char *const bvlc_types[] = {
  "AbsVal", "Accuracy", "ArgMax", "BatchNorm", "BatchReindex", "Bias", "BNLL", "Clip",
  "Concat", "ContrastiveLoss", "Convolution", "Crop", "Data", "Deconvolution", "Dropout",
  "DummyData", "Eltwise", "ELU", "Embed", "EuclideanLoss", "Exp", "Filter", "Flatten",
  "HDF5Data", "HDF5Output", "HingeLoss", "Im2col", "ImageData", "InfogainLoss",
  "InnerProduct", "Input", "Log", "LRN", "LSTM", "LSTMUnit", "MemoryData",
  "MultinomialLogisticLoss", "MVN", "Parameter", "Pooling", "Power", "PReLU", "Reduction",
  "ReLU", "Reshape", "RNN", "Scale", "Sigmoid", "SigmoidCrossEntropyLoss", "Silence", "Slice",
  "Softmax", "SoftmaxWithLoss", "Split", "SPP", "Swish", "TanH", "Threshold", "Tile",
  "WindowData", NULL
};

/* BVLC types that read or write files: the data issue brings them, and
 * the zoo's databases and lists are not here anyway. */
static const char *const file_types[] = {
  "Data", "ImageData", "HDF5Data", "HDF5Output", "WindowData", "MemoryData", NULL
};

static gboolean
in_list (const char *type, const char *const *list)
{
  for (gsize i = 0; list[i] != NULL; i++)
    if (g_strcmp0 (type, list[i]) == 0)
      return TRUE;
  return FALSE;
}

typedef struct {
  guint n_files;       /* net files listed */
  guint n_examined;    /* nets with only BVLC types, examined */
  guint n_excluded;    /* nets with other fields or types */
  guint n_complete;    /* (net, phase) pairs where every layer got shapes */
  guint n_builds;      /* (net, phase) pairs examined */
  guint n_layers_ok;   /* layers that got shapes, over all builds */
  guint n_waiting;     /* layers failed or skipped only for a file-reading type */
  guint n_other_state; /* layers reading a blob only another NetState builds */
  guint n_bad;         /* layers failed for any other reason */
} ZooCount;

/* Whether some layer of PARAM, in any state, has a top named NAME. */
static gboolean
produced_somewhere (const Caffe__NetParameter *param, const char *name)
{
  for (gsize i = 0; i < param->n_layer; i++)
    for (gsize j = 0; j < param->layer[i]->n_top; j++)
      if (strcmp (param->layer[i]->top[j], name) == 0)
        return TRUE;
  return FALSE;
}

/* A layer whose bottom no layer of this state produces, while a layer of
 * another state (phase, stage) would: Caffe refuses such a state too. */
static gboolean
needs_other_state (const Caffe__NetParameter *param, const CtNetShapeLayer *l)
{
  gboolean missing = FALSE;

  for (gsize j = 0; j < l->param->n_bottom; j++)
    {
      gboolean wired = FALSE;

      for (guint k = 0; k < l->bottoms->len; k++)
        if (strcmp (((CtNetShapeBlob *) l->bottoms->pdata[k])->name, l->param->bottom[j]) == 0)
          wired = TRUE;
      if (wired)
        continue;
      if (!produced_somewhere (param, l->param->bottom[j]))
        return FALSE;
      missing = TRUE;
    }
  return missing;
}

static gboolean
only_bvlc_types (const Caffe__NetParameter *param, const char **first_other)
{
  for (gsize i = 0; i < param->n_layer; i++)
    if (!in_list (param->layer[i]->type, bvlc_types) || strcmp (param->layer[i]->type, "Python") == 0)
      {
        *first_other = param->layer[i]->type;
        return FALSE;
      }
  return TRUE;
}

static void
check_build (ZooCount *count, const char *path, const Caffe__NetParameter *param,
             const CtNetShapes *shapes, Caffe__Phase phase, const char *stage)
{
  guint ok = 0;

  count->n_builds++;
  if (shapes->error != NULL)
    {
      g_test_message ("%s: %s", path, shapes->error->message);
      count->n_bad++;
      return;
    }
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *l = shapes->layers->pdata[i];
      gboolean waiting;

      if (l->status == CT_NET_LAYER_OK)
        {
          ok++;
          continue;
        }
      /* A file-reading layer (the type not built yet, or its files not
       * in tests/data), or a layer below one. */
      waiting = l->status == CT_NET_LAYER_SKIPPED || in_list (l->type, file_types);
      if (waiting)
        count->n_waiting++;
      else if (needs_other_state (param, l))
        count->n_other_state++;
      else
        {
          count->n_bad++;
          g_test_message ("%s (%s%s%s): %s", path,
                          phase == CAFFE__PHASE__TRAIN ? "TRAIN" : "TEST",
                          stage != NULL ? ", stage " : "", stage != NULL ? stage : "",
                          l->error->message);
        }
    }
  count->n_layers_ok += ok;
  if (ok == shapes->layers->len)
    count->n_complete++;
}

static void
add_stages (GPtrArray *stages, char **names, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      gboolean seen = FALSE;

      for (guint k = 0; k < stages->len; k++)
        seen |= strcmp (stages->pdata[k], names[i]) == 0;
      if (!seen)
        g_ptr_array_add (stages, names[i]);
    }
}

/* Every stage the layers' rules name (borrowed strings). */
static GPtrArray *
rule_stages (const Caffe__NetParameter *param)
{
  GPtrArray *stages = g_ptr_array_new ();

  for (gsize i = 0; i < param->n_layer; i++)
    {
      const Caffe__LayerParameter *l = param->layer[i];

      for (gsize r = 0; r < l->n_include; r++)
        {
          add_stages (stages, l->include[r]->stage, l->include[r]->n_stage);
          add_stages (stages, l->include[r]->not_stage, l->include[r]->n_not_stage);
        }
      for (gsize r = 0; r < l->n_exclude; r++)
        {
          add_stages (stages, l->exclude[r]->stage, l->exclude[r]->n_stage);
          add_stages (stages, l->exclude[r]->not_stage, l->exclude[r]->n_not_stage);
        }
    }
  return stages;
}

/* The index lists each file with a format; every format but "solver" is
 * a net. */
static void
run_zoo (const char *root, ZooCount *count)
{
  g_autofree char *index_path = g_build_filename (root, "INDEX.tsv", NULL);
  g_autofree char *index = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) header = NULL;
  int format_column = -1;

  g_assert_true (g_file_get_contents (index_path, &index, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (index, "\n", -1);
  header = g_strsplit (lines[0], "\t", -1);
  for (int c = 0; header[c] != NULL; c++)
    if (strcmp (header[c], "format") == 0)
      format_column = c;
  g_assert_cmpint (format_column, >, 0);

  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[i], "\t", -1);
      g_autofree char *path = NULL;
      Caffe__NetParameter *param;
      const char *other = NULL;
      Caffe__Phase phases[] = { CAFFE__PHASE__TRAIN, CAFFE__PHASE__TEST };
      GPtrArray *stages;

      if (g_strv_length (fields) <= (guint) format_column ||
          strcmp (fields[format_column], "solver") == 0)
        continue;
      count->n_files++;
      path = g_build_filename (root, fields[0], NULL);
      param = ct_net_load_text_file (path, CT_TEXT_STRICT, NULL, &error);
      if (param == NULL)
        {
          /* Fields of a fork: not a BVLC net. */
          g_test_message ("%s: excluded: %s", fields[0], error->message);
          g_clear_error (&error);
          count->n_excluded++;
          continue;
        }
      if (!only_bvlc_types (param, &other))
        {
          g_test_message ("%s: excluded: layer type %s", fields[0], other);
          count->n_excluded++;
          protobuf_c_message_free_unpacked (&param->base, NULL);
          continue;
        }
      count->n_examined++;
      stages = rule_stages (param);
      for (gsize p = 0; p < G_N_ELEMENTS (phases); p++)
        for (guint s = 0; s <= stages->len; s++)
          {
            /* No stage, then each stage the rules name on its own. */
            const char *stage = s == 0 ? NULL : stages->pdata[s - 1];
            const char *stage_list[] = { stage, NULL };
            CtNetConfig config = { .phase = phases[p], .seed = 1, .source_name = fields[0],
                                   .stages = stage != NULL ? stage_list : NULL };
            g_autoptr (CtNetShapes) shapes = ct_net_infer_shapes (param, &config);

            check_build (count, fields[0], param, shapes, phases[p], stage);
          }
      g_ptr_array_unref (stages);
      protobuf_c_message_free_unpacked (&param->base, NULL);
    }
}

static void
report (const char *root, const ZooCount *c)
{
  g_test_message ("%s: %u net files, %u with only BVLC types examined (%u excluded); "
                  "%u builds (phases and stages), %u complete, %u layers with shapes, "
                  "%u waiting for data layers, %u needing another state, %u wrong", root,
                  c->n_files, c->n_examined, c->n_excluded, c->n_builds, c->n_complete,
                  c->n_layers_ok, c->n_waiting, c->n_other_state, c->n_bad);
}

static void
test_local_zoo (void)
{
  g_autofree char *root = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", NULL);
  ZooCount count = { 0 };

  run_zoo (root, &count);
  report (root, &count);
  g_assert_cmpuint (count.n_files, ==, 57);
  g_assert_cmpuint (count.n_examined + count.n_excluded, ==, count.n_files);
  g_assert_cmpuint (count.n_examined, ==, 46);
  g_assert_cmpuint (count.n_builds, >=, 2 * count.n_examined);
  g_assert_cmpuint (count.n_bad, ==, 0);
  /* Nets fed by Input layers (deploy nets) need no data layer. */
  g_assert_cmpuint (count.n_complete, >=, 54);
  g_assert_cmpuint (count.n_layers_ok, >=, 7650);
}

/* Shapes of known nets, as Caffe prints them. */
static void
assert_top (const char *file, Caffe__Phase phase, const char *layer, const char *dims)
{
  g_autofree char *path = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", file, NULL);
  g_autoptr (GError) error = NULL;
  Caffe__NetParameter *param = ct_net_load_text_file (path, CT_TEXT_STRICT, NULL, &error);
  CtNetConfig config = { .phase = phase, .seed = 1 };
  g_autoptr (CtNetShapes) shapes = NULL;
  gboolean found = FALSE;

  g_assert_no_error (error);
  shapes = ct_net_infer_shapes (param, &config);
  for (guint i = 0; i < shapes->layers->len; i++)
    {
      const CtNetShapeLayer *l = shapes->layers->pdata[i];
      g_autoptr (GString) text = g_string_new (NULL);
      const CtNetShapeBlob *top;

      if (strcmp (l->name, layer) != 0)
        continue;
      found = TRUE;
      g_assert_cmpint (l->status, ==, CT_NET_LAYER_OK);
      top = l->tops->pdata[0];
      for (guint a = 0; a < top->n_axes; a++)
        g_string_append_printf (text, a ? " %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT,
                                top->dims[a]);
      g_test_message ("%s %s: %s", file, layer, text->str);
      g_assert_cmpstr (text->str, ==, dims);
    }
  g_assert_true (found);
  protobuf_c_message_free_unpacked (&param->base, NULL);
}

static void
test_known_shapes (void)
{
  assert_top ("bvlc_alexnet/deploy.prototxt", CAFFE__PHASE__TEST, "pool5", "10 256 6 6");
  assert_top ("bvlc_alexnet/deploy.prototxt", CAFFE__PHASE__TEST, "prob", "10 1000");
  assert_top ("bvlc_googlenet/deploy.prototxt", CAFFE__PHASE__TEST, "inception_5b/output",
              "10 1024 7 7");
  assert_top ("bvlc_googlenet/deploy.prototxt", CAFFE__PHASE__TEST, "loss3/classifier",
              "10 1000");
  assert_top ("resnet50/ResNet-50-deploy.prototxt", CAFFE__PHASE__TEST, "pool5", "1 2048 1 1");
  assert_top ("resnet50/ResNet-50-deploy.prototxt", CAFFE__PHASE__TEST, "fc1000", "1 1000");
  assert_top ("mnist/lenet.prototxt", CAFFE__PHASE__TEST, "pool2", "64 50 4 4");
  assert_top ("squeezenet_v1.1/deploy.prototxt", CAFFE__PHASE__TEST, "pool10", "10 1000 1 1");
  assert_top ("cifar10/cifar10_quick.prototxt", CAFFE__PHASE__TEST, "ip2", "1 10");
  /* Legacy input_dim, upgraded to an Input layer. */
  assert_top ("legacy_input_shape_lenet/lenet.prototxt", CAFFE__PHASE__TEST, "ip1", "64 500");
}

static void
test_shared_zoo (void)
{
  const char *shared = g_getenv ("CT_SHARED_DIR");
  g_autofree char *root = shared != NULL ? g_build_filename (shared, "zoo", NULL) : NULL;
  ZooCount count = { 0 };

  if (root == NULL || !g_file_test (root, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no shared zoo (CT_SHARED_DIR)");
      return;
    }
  run_zoo (root, &count);
  report (root, &count);
  g_assert_cmpuint (count.n_files, >=, 57);
  g_assert_cmpuint (count.n_examined, >=, 46);
  g_assert_cmpuint (count.n_bad, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/shapes-zoo/local", test_local_zoo);
  g_test_add_func ("/engine/shapes-zoo/known-shapes", test_known_shapes);
  g_test_add_func ("/engine/shapes-zoo/shared", test_shared_zoo);
  return g_test_run ();
}
