/* test-field-path.c: one field of a protobuf-c message read, set and
 * cleared by a dotted path (proto/field-path.h), as the property form and
 * the document use it on Caffe's LayerParameter. */
#include <string.h>
#include <glib.h>

#include "caffe.pb-c.h"
#include "field-path.h"
#include "text-format.h"

static void
test_field_path_set (void)
{
  Caffe__LayerParameter *layer = g_malloc0 (sizeof *layer);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  char *value;

  caffe__layer_parameter__init (layer);
  g_assert_true (ct_field_path_set (&layer->base, "name", "conv1", &error));
  g_assert_true (ct_field_path_set (&layer->base, "convolution_param.num_output", "20", &error));
  g_assert_true (ct_field_path_set (&layer->base, "convolution_param.kernel_size[0]", "5", &error));
  g_assert_true (ct_field_path_set (&layer->base, "convolution_param.kernel_size[1]", "3", &error));
  g_assert_true (ct_field_path_set (&layer->base, "convolution_param.weight_filler.type",
                                    "xavier", &error));
  g_assert_true (ct_field_path_set (&layer->base, "convolution_param.bias_term", "false",
                                    &error));
  g_assert_true (ct_field_path_set (&layer->base, "bottom[0]", "data", &error));
  g_assert_true (ct_field_path_set (&layer->base, "param[0]", "", &error));
  g_assert_true (ct_field_path_set (&layer->base, "param[0].lr_mult", "2.5", &error));
  g_assert_true (ct_field_path_set (&layer->base, "pooling_param.pool", "AVE", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (layer->convolution_param->num_output, ==, 20);
  g_assert_cmpuint (layer->convolution_param->n_kernel_size, ==, 2);
  g_assert_cmpuint (layer->convolution_param->kernel_size[1], ==, 3);
  g_assert_cmpfloat (layer->param[0]->lr_mult, ==, 2.5f);
  g_assert_cmpint (layer->pooling_param->pool, ==, CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE);

  value = ct_field_path_get (&layer->base, "convolution_param.kernel_size[0]", &error);
  g_assert_cmpstr (value, ==, "5");
  g_free (value);
  value = ct_field_path_get (&layer->base, "param[0].lr_mult", &error);
  g_assert_cmpstr (value, ==, "2.5");
  g_free (value);
  /* Unset: NULL without an error. */
  value = ct_field_path_get (&layer->base, "convolution_param.pad[0]", &error);
  g_assert_null (value);
  g_assert_no_error (error);

  /* Removing and clearing. */
  g_assert_true (ct_field_path_clear (&layer->base, "convolution_param.kernel_size[0]", &error));
  g_assert_cmpuint (layer->convolution_param->n_kernel_size, ==, 1);
  g_assert_cmpuint (layer->convolution_param->kernel_size[0], ==, 3);
  g_assert_true (ct_field_path_clear (&layer->base, "convolution_param.bias_term", &error));
  g_assert_false (layer->convolution_param->has_bias_term);
  g_assert_true (layer->convolution_param->bias_term); /* the default again */
  g_assert_true (ct_field_path_clear (&layer->base, "pooling_param", &error));
  g_assert_null (layer->pooling_param);
  g_assert_true (ct_field_path_clear (&layer->base, "lrn_param.alpha", &error));
  g_assert_no_error (error);

  text = ct_text_print (&layer->base);
  g_assert_nonnull (strstr (text, "kernel_size: 3"));
  g_assert_nonnull (strstr (text, "type: \"xavier\""));
  g_assert_null (strstr (text, "pooling_param"));
  protobuf_c_message_free_unpacked (&layer->base, NULL);
}

static void
test_field_path_errors (void)
{
  Caffe__LayerParameter *layer = g_malloc0 (sizeof *layer);
  static const struct {
    const char *path, *value;
  } bad[] = {
    { "convolution_param.num_output", "-1" },      /* uint32 */
    { "convolution_param.num_output", "4294967296" },
    { "convolution_param.num_output", "twenty" },
    { "pooling_param.pool", "MAXX" },
    { "convolution_param.bias_term", "yes" },
    { "dropout_param.dropout_ratio", "1e39" },      /* too large for a float */
    { "no_such_field", "1" },
    { "convolution_param.kernel_size[3]", "1" },   /* past the end */
    { "name[0]", "x" },                            /* not repeated */
    { "name.x", "1" },                             /* not a message */
    { "convolution_param..num_output", "1" },
    { "bottom[x]", "data" },
  };

  caffe__layer_parameter__init (layer);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (ct_field_path_set (&layer->base, bad[i].path, bad[i].value, &error));
      g_assert_error (error, CT_FIELD_PATH_ERROR, error->code);
      g_test_message ("%s = %s: %s", bad[i].path, bad[i].value, error->message);
    }
  /* A bad value creates nothing on the way. */
  g_assert_null (layer->convolution_param);
  g_assert_null (layer->pooling_param);
  protobuf_c_message_free_unpacked (&layer->base, NULL);
}

static const ProtobufCFieldDescriptor *
field_of (const ProtobufCMessageDescriptor *desc, const char *name)
{
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name (desc, name);

  g_assert_nonnull (f);
  return f;
}

/* What the property form shows: elements and schema defaults as text. */
static void
test_field_path_text (void)
{
  Caffe__LayerParameter *layer = g_malloc0 (sizeof *layer);
  const ProtobufCMessageDescriptor *conv = &caffe__convolution_parameter__descriptor;
  const ProtobufCMessageDescriptor *pool = &caffe__pooling_parameter__descriptor;
  const ProtobufCMessageDescriptor *dropout = &caffe__dropout_parameter__descriptor;
  g_autoptr (GError) error = NULL;
  g_autofree char *second = NULL;
  g_autofree char *bias_default = NULL;
  g_autofree char *pool_default = NULL;
  g_autofree char *ratio_default = NULL;

  caffe__layer_parameter__init (layer);
  g_assert_true (ct_field_path_set (&layer->base, "convolution_param.kernel_size[0]", "5", &error));
  g_assert_true (ct_field_path_set (&layer->base, "convolution_param.kernel_size[1]", "3", &error));
  g_assert_no_error (error);
  second = ct_field_value_to_text (&layer->convolution_param->base,
                                   field_of (conv, "kernel_size"), 1);
  g_assert_cmpstr (second, ==, "3");

  bias_default = ct_field_default_to_text (conv, field_of (conv, "bias_term"));
  g_assert_cmpstr (bias_default, ==, "true");
  pool_default = ct_field_default_to_text (pool, field_of (pool, "pool"));
  g_assert_cmpstr (pool_default, ==, "MAX");
  ratio_default = ct_field_default_to_text (dropout, field_of (dropout, "dropout_ratio"));
  g_assert_cmpstr (ratio_default, ==, "0.5");
  protobuf_c_message_free_unpacked (&layer->base, NULL);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/proto/field-path/set", test_field_path_set);
  g_test_add_func ("/proto/field-path/errors", test_field_path_errors);
  g_test_add_func ("/proto/field-path/text", test_field_path_text);
  return g_test_run ();
}
