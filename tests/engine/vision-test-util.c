/* vision-test-util.c: helpers the Vision layer tests share. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "blas.h"
#include "engine-error.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"
#include "vision-test-util.h"

Caffe__LayerParameter *
ct_test_param_from_text (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__layer_parameter__descriptor, text, -1,
                                         "<test>", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  return (Caffe__LayerParameter *) msg;
}

CtLayer *
ct_test_layer_from_param (const Caffe__LayerParameter *param, Caffe__Phase phase)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (param->type);

  g_assert_nonnull (klass);
  g_assert_cmpint (klass->family, ==, CT_LAYER_FAMILY_VISION);
  return ct_layer_new (klass, param, phase);
}

CtLayer *
ct_test_layer_from_text (const char *text, Caffe__Phase phase)
{
  Caffe__LayerParameter *param = ct_test_param_from_text (text);
  CtLayer *layer = ct_test_layer_from_param (param, phase);

  protobuf_c_message_free_unpacked (&param->base, NULL);
  return layer;
}

CtBlob *
ct_test_from_values (const float *values, guint n, ...)
{
  gint64 dims[8];
  va_list args;
  CtBlob *blob;

  va_start (args, n);
  for (guint i = 0; i < n; i++)
    dims[i] = va_arg (args, int);
  va_end (args);
  blob = ct_blob_new_with_shape (dims, n, NULL);
  memcpy (ct_blob_mutable_cpu_data (blob, NULL), values,
          (gsize) ct_blob_count (blob) * sizeof (float));
  return blob;
}

void
ct_test_assert_close (const float *ours, const float *expected, gint64 n, double tolerance)
{
  for (gint64 i = 0; i < n; i++)
    {
      double scale = MAX (1.0, fabs (expected[i]));

      if (fabs (ours[i] - expected[i]) > tolerance * scale)
        g_error ("element %" G_GINT64_FORMAT ": %.9g, expected %.9g", i, ours[i],
                 expected[i]);
    }
}

/* A gradient check of the layer TEXT over BOTTOM (owned), with Caffe's
 * step and threshold for the type. */
void
ct_test_check_gradient (const char *text, Caffe__Phase phase, GPtrArray *bottom, guint n_tops,
                int check_bottom, float step, float threshold)
{
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text, phase);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (n_tops);

  checker.stepsize = step;
  checker.threshold = threshold;
  ct_check_gradient_exhaustive (&checker, layer, bottom, top, check_bottom);
  g_ptr_array_unref (bottom);
}

/* Setup must fail, naming the layer and saying WORD. */
void
ct_test_assert_setup_fails (const char *text, GPtrArray *bottom, guint n_tops, const char *word)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text, CAFFE__PHASE__TEST);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (n_tops);
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "'bad'"));
  g_assert_nonnull (strstr (error->message, word));
  g_ptr_array_unref (bottom);
}
