/* common-test-util.c: helpers the Common layer tests share. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"
#include "common-test-util.h"

CtLayer *
ct_test_layer_from_text (const char *text)
{
  g_autoptr (GError) error = NULL;
  Caffe__LayerParameter *param;
  const CtLayerClass *klass;
  CtLayer *layer;

  param = (Caffe__LayerParameter *) ct_text_parse (&caffe__layer_parameter__descriptor, text, -1,
                                                   "<test>", CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  klass = ct_layer_catalogue_lookup (param->type);
  g_assert_nonnull (klass);
  layer = ct_layer_new (klass, param, CAFFE__PHASE__TRAIN);
  layer->seed = 1701;
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return layer;
}

void
ct_test_assert_floats (const float *got, const float *want, gint64 n, float tolerance)
{
  for (gint64 i = 0; i < n; i++)
    if (fabsf (got[i] - want[i]) > tolerance * MAX (1.0f, fabsf (want[i])))
      g_error ("element %" G_GINT64_FORMAT ": got %.9g, want %.9g", i, got[i], want[i]);
}

void
ct_test_backward_ok (CtLayer *layer, GPtrArray *top, GPtrArray *bottom)
{
  g_autoptr (GError) error = NULL;
  g_autofree gboolean *down = g_new (gboolean, MAX (bottom->len, 1));

  for (guint i = 0; i < bottom->len; i++)
    down[i] = TRUE;
  if (!ct_layer_backward (layer, top, down, bottom, ct_test_use_gpu (), &error))
    g_error ("backward failed: %s", error->message);
}

/* Set-up must fail for TEXT with the layer named and WANT in the message. */
void
ct_test_expect_setup_error (const char *text, GPtrArray *bottom, guint n_tops, const char *want)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text);
  g_autoptr (GPtrArray) top = ct_test_empty_blobs (n_tops);
  g_autoptr (GError) error = NULL;
  g_autofree char *name = g_strdup_printf ("'%s'", ct_layer_get_name (layer));

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  g_assert_nonnull (error);
  g_test_message ("expected error: %s", error->message);
  g_assert_nonnull (strstr (error->message, name));
  if (strstr (error->message, want) == NULL)
    g_error ("error '%s' does not say '%s'", error->message, want);
}

void
ct_test_check_exhaustive (const char *text, GPtrArray *bottom, GPtrArray *top, int check_bottom)
{
  CtGradientChecker checker = CT_GRADIENT_CHECKER_DEFAULT;
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (text);

  ct_check_gradient_exhaustive (&checker, layer, bottom, top, check_bottom);
}
