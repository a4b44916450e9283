/* test-layer.c: what every layer shares: blob-count rules, loss weights,
 * the catalogue (every built-in type once, look-up, run-time registration
 * of a custom type) and setup errors naming the layer. */
#include <string.h>

#include "layer-catalogue.h"
#include "text-format.h"
#include "engine-error.h"

/* A custom type: top = 2 * bottom, element-wise. */
static gboolean
twice_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return ct_blob_reshape_like (CT_TOP (top, 0), CT_BOTTOM (bottom, 0), error);
}

static gboolean
twice_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
               GError **error)
{
  const float *x = ct_blob_cpu_data (CT_BOTTOM (bottom, 0), error);
  float *y = ct_blob_mutable_cpu_data (CT_TOP (top, 0), error);

  if (x == NULL || y == NULL)
    return FALSE;
  for (gint64 i = 0; i < ct_blob_count (CT_TOP (top, 0)); i++)
    y[i] = 2.0f * x[i];
  return TRUE;
}

static const CtLayerClass twice_class = {
  .type = "Twice",
  .family = CT_LAYER_FAMILY_UTILITY,
  .description = "Doubles its input",
  .instance_size = sizeof (CtLayer),
  .bottoms = CT_EXACTLY (1),
  .tops = CT_EXACTLY (1),
  .reshape = twice_reshape,
  .forward = twice_forward,
};

/* Every type explains itself: a few sentences (two at least), a formula,
 * its parameters and its gradient, none empty. */
static void
test_explanation (const CtLayerClass *k)
{
  CtLayerExplanation e;

  g_test_message ("explanation of %s", k->type);
  g_assert_true (ct_layer_class_explain (k, &e));
  g_assert_cmpuint (strlen (e.summary), >=, 40);
  g_assert_cmpuint (strlen (e.formula), >=, 3);
  g_assert_cmpuint (strlen (e.parameters), >=, 4);
  g_assert_cmpuint (strlen (e.gradient), >=, 30);
  g_assert_nonnull (strchr (e.formula, '='));
}

static void
test_catalogue (void)
{
  g_autoptr (GPtrArray) list = ct_layer_catalogue_list ();
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  const char *required[] = {
    "Input", "Convolution", "Deconvolution", "Pooling", "LRN", "ReLU", "BatchNorm",
    "InnerProduct", "Concat", "Eltwise", "Softmax", "SoftmaxWithLoss", "Accuracy",
  };

  g_assert_cmpuint (list->len, >=, 50);
  for (guint i = 0; i < list->len; i++)
    {
      const CtLayerClass *k = g_ptr_array_index (list, i);

      g_assert_nonnull (k->type);
      g_assert_false (g_hash_table_contains (seen, k->type));
      g_hash_table_add (seen, (gpointer) k->type);
      g_assert_nonnull (k->reshape);
      g_assert_nonnull (k->forward);
      g_assert_cmpuint (k->instance_size, >=, sizeof (CtLayer));
      g_assert_cmpstr (ct_layer_class_describe (k), !=, "");
      test_explanation (k);
      g_assert_true (ct_layer_catalogue_lookup (k->type) == k);
    }
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    g_assert_true (g_hash_table_contains (seen, required[i]));
  g_assert_null (ct_layer_catalogue_lookup ("Convolutoin"));
  {
    CtLayerExplanation e;

    g_assert_false (ct_layer_class_explain (&twice_class, &e));
    g_assert_null (e.summary);
  }
  g_assert_null (ct_layer_catalogue_lookup (NULL));
}

static void
test_register (void)
{
  g_autoptr (GError) error = NULL;
  Caffe__LayerParameter p = CAFFE__LAYER_PARAMETER__INIT;
  g_autoptr (GPtrArray) bottom = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (GPtrArray) top = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (CtLayer) layer = NULL;
  gint64 dims[] = { 2, 3 };
  float loss = -1.0f;
  float *x;

  g_assert_true (ct_layer_catalogue_register (&twice_class, &error));
  g_assert_no_error (error);
  g_assert_true (ct_layer_catalogue_lookup ("Twice") == &twice_class);

  /* A second registration of the name, or of a built-in name, fails. */
  g_assert_false (ct_layer_catalogue_register (&twice_class, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_INVALID);
  g_clear_error (&error);

  p.name = (char *) "double";
  p.type = (char *) "Twice";
  layer = ct_layer_new (&twice_class, &p, CAFFE__PHASE__TEST);
  g_ptr_array_add (bottom, ct_blob_new_with_shape (dims, 2, NULL));
  g_ptr_array_add (top, ct_blob_new ());
  x = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  for (int i = 0; i < 6; i++)
    x[i] = (float) i;
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_true (ct_layer_forward (layer, bottom, top, FALSE, &loss, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (loss, ==, 0.0f); /* not a loss layer, no loss_weight */
  g_assert_cmpfloat (ct_blob_cpu_data (CT_TOP (top, 0), NULL)[5], ==, 10.0f);
}

/* loss_weight on a non-loss top makes its values count: 0.5 * sum(2x). */
static void
test_loss_weight (void)
{
  g_autoptr (GError) error = NULL;
  Caffe__LayerParameter p = CAFFE__LAYER_PARAMETER__INIT;
  g_autoptr (GPtrArray) bottom = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (GPtrArray) top = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (CtLayer) layer = NULL;
  g_autoptr (CtLayer) bad = NULL;
  float weights[] = { 0.5f };
  float two_weights[] = { 0.5f, 1.0f };
  gint64 dims[] = { 4 };
  float loss = 0.0f;
  float *x;

  p.name = (char *) "weighted";
  p.type = (char *) "Power";
  p.n_loss_weight = 1;
  p.loss_weight = weights;
  layer = ct_layer_new (ct_layer_catalogue_lookup ("Power"), &p, CAFFE__PHASE__TEST);
  g_ptr_array_add (bottom, ct_blob_new_with_shape (dims, 1, NULL));
  g_ptr_array_add (top, ct_blob_new ());
  x = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 0), NULL);
  for (int i = 0; i < 4; i++)
    x[i] = (float) (i + 1);
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ct_layer_loss_weight (layer, 0), ==, 0.5f);
  g_assert_true (ct_layer_forward (layer, bottom, top, FALSE, &loss, &error));
  g_assert_cmpfloat_with_epsilon (loss, 0.5f * 10.0f, 1e-6);

  /* Two weights for one top: an error naming the layer. */
  p.n_loss_weight = 2;
  p.loss_weight = two_weights;
  bad = ct_layer_new (ct_layer_catalogue_lookup ("Power"), &p, CAFFE__PHASE__TEST);
  g_assert_false (ct_layer_setup (bad, bottom, top, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "'weighted'"));
}

/* Count rules: InnerProduct takes exactly one bottom. */
static void
test_counts (void)
{
  g_autoptr (GError) error = NULL;
  Caffe__LayerParameter p = CAFFE__LAYER_PARAMETER__INIT;
  Caffe__InnerProductParameter ip = CAFFE__INNER_PRODUCT_PARAMETER__INIT;
  g_autoptr (GPtrArray) bottom = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (GPtrArray) top = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (CtLayer) layer = NULL;
  gint64 dims[] = { 2, 3 };

  p.name = (char *) "fc";
  p.type = (char *) "InnerProduct";
  ip.has_num_output = TRUE;
  ip.num_output = 4;
  p.inner_product_param = &ip;
  layer = ct_layer_new (ct_layer_catalogue_lookup ("InnerProduct"), &p, CAFFE__PHASE__TEST);
  g_ptr_array_add (bottom, ct_blob_new_with_shape (dims, 2, NULL));
  g_ptr_array_add (bottom, ct_blob_new_with_shape (dims, 2, NULL));
  g_ptr_array_add (top, ct_blob_new ());
  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "layer 'fc' (InnerProduct)"));
  g_assert_nonnull (strstr (error->message, "got 2"));
}

/* Every parameter message of Caffe's LayerParameter belongs to a layer
 * type of the catalogue, or is named here as one Cortado does not run: a
 * class dropped from the catalogue, or a type given the wrong param_field,
 * leaves its field unclaimed and fails this test. */
static const char *const not_run[] = { "window_data_param", NULL };
/* Fields that are no one type's parameters. */
static const char *const shared_fields[] = { "transform_param", "loss_param", NULL };

static void
test_catalogue_complete (void)
{
  const ProtobufCMessageDescriptor *d = &caffe__layer_parameter__descriptor;
  g_autoptr (GPtrArray) classes = ct_layer_catalogue_list ();
  g_autoptr (GHashTable) claimed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_params = 0;

  for (guint i = 0; i < classes->len; i++)
    g_hash_table_add (claimed, ct_layer_class_param_field (classes->pdata[i]));
  for (guint f = 0; f < d->n_fields; f++)
    {
      const char *name = d->fields[f].name;

      if (!g_str_has_suffix (name, "_param") || g_strv_contains (shared_fields, name))
        continue;
      n_params++;
      if (g_strv_contains (not_run, name))
        {
          g_assert_false (g_hash_table_contains (claimed, name));
          continue;
        }
      if (!g_hash_table_contains (claimed, name))
        g_error ("no layer type of the catalogue reads LayerParameter.%s", name);
    }
  g_assert_cmpuint (n_params, >=, 40);
}

/* What the editor and the tools read off a class agrees with the type. */
static void
test_catalogue_facts (void)
{
  g_autoptr (GPtrArray) classes = ct_layer_catalogue_list ();

  for (guint i = 0; i < classes->len; i++)
    {
      const CtLayerClass *k = classes->pdata[i];

      if (k->new_layer_text != NULL)
        {
          g_autoptr (GError) error = NULL;
          Caffe__LayerParameter *layer = (Caffe__LayerParameter *)
            ct_text_parse (&caffe__layer_parameter__descriptor, k->new_layer_text, -1, k->type,
                           CT_TEXT_STRICT, &error);

          g_assert_no_error (error);
          protobuf_c_message_free_unpacked (&layer->base, NULL);
        }
      /* A data source has no bottoms; its batch size, when it has one, is
       * in its own parameters. */
      if (k->is_data_source)
        g_assert_cmpint (k->bottoms.exact, ==, 0);
      if (k->batch_size != NULL)
        {
          Caffe__LayerParameter layer = CAFFE__LAYER_PARAMETER__INIT;

          g_assert_null (k->batch_size (&layer));
        }
      if (k->reads_files || k->transforms_data)
        g_assert_true (k->is_data_source);
    }
  static const char *const fields[][2] = {
    { "InnerProduct", "inner_product_param" }, { "ReLU", "relu_param" },
    { "WindowData", "window_data_param" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      g_autofree char *field = ct_layer_type_param_field (fields[i][0]);

      g_assert_cmpstr (field, ==, fields[i][1]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/layer/catalogue", test_catalogue);
  g_test_add_func ("/engine/layer/catalogue-complete", test_catalogue_complete);
  g_test_add_func ("/engine/layer/catalogue-facts", test_catalogue_facts);
  g_test_add_func ("/engine/layer/register", test_register);
  g_test_add_func ("/engine/layer/loss-weight", test_loss_weight);
  g_test_add_func ("/engine/layer/counts", test_counts);
  return g_test_run ();
}
