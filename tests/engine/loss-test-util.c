/* loss-test-util.c: helpers the loss layer tests share. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "binary-io.h"
#include "blas.h"
#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "loss-test-util.h"

/* Gaussian scores times SCALE. */
CtBlob *
ct_test_scores (const gint64 *dims, guint n_axes, float scale, guint64 seed)
{
  CtBlob *blob = ct_test_blob_gaussian (dims, n_axes, seed);
  float *d = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    d[i] *= scale;
  return blob;
}

/* Labels in [0, N_CLASSES), as floats. */
CtBlob *
ct_test_labels (const gint64 *dims, guint n_axes, int n_classes, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  CtBlob *blob = ct_blob_new_with_shape (dims, n_axes, NULL);
  float *d = ct_blob_mutable_cpu_data (blob, NULL);

  for (gint64 i = 0; i < ct_blob_count (blob); i++)
    d[i] = (float) g_rand_int_range (rand, 0, n_classes);
  return blob;
}

CtLayer *
ct_test_make_layer (const char *type, Caffe__LayerParameter *param)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (type);

  g_assert_nonnull (klass);
  param->name = (char *) "loss";
  param->type = (char *) type;
  return ct_layer_new (klass, param, CAFFE__PHASE__TRAIN);
}

CtLayer *
ct_test_plain_layer (const char *type)
{
  Caffe__LayerParameter param = CAFFE__LAYER_PARAMETER__INIT;

  return ct_test_make_layer (type, &param);
}

/* Setup and forward; the value of top 0. */
float
ct_test_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  if (!ct_layer_setup (layer, bottom, top, &error) ||
      !ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error))
    g_error ("%s", error->message);
  g_assert_cmpuint (ct_blob_num_axes (CT_TOP (top, 0)), ==, 0);
  g_assert_cmpint (ct_blob_count (CT_TOP (top, 0)), ==, 1);
  return ct_blob_cpu_data (CT_TOP (top, 0), NULL)[0];
}

void
ct_test_assert_layer_error (const GError *error, const char *type)
{
  g_autofree char *who = g_strdup_printf ("'loss' (%s)", type);

  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, who));
}

/* Setup must fail with an error that names the layer. */
void
ct_test_assert_setup_fails (CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (ct_layer_setup (layer, bottom, top, &error));
  ct_test_assert_layer_error (error, ct_layer_get_type (layer));
}

void
ct_test_assert_close (double got, double want, double rel)
{
  if (fabs (got - want) > rel * MAX (1.0, fabs (want)))
    g_error ("got %.9g, want %.9g", got, want);
}

Caffe__LossParameter
ct_test_loss_param (int mode, int normalize, gboolean has_ignore, int ignore_label)
{
  Caffe__LossParameter p = CAFFE__LOSS_PARAMETER__INIT;

  if (mode >= 0)
    {
      p.has_normalization = TRUE;
      p.normalization = mode;
    }
  if (normalize >= 0)
    {
      p.has_normalize = TRUE;
      p.normalize = normalize;
    }
  p.has_ignore_label = has_ignore;
  p.ignore_label = ignore_label;
  return p;
}

const CtGradientChecker ct_test_loss_checker = { 1e-2f, 1e-2f, 1701, 0.0f, -1.0f };

void
ct_test_check_bad_label (const char *type, Caffe__LayerParameter *param, GPtrArray *bottom,
                 guint n_tops, float bad_value, gint64 bad_index, const char *value_text)
{
  g_autoptr (CtLayer) layer = ct_test_make_layer (type, param);
  g_autoptr (GPtrArray) top = ct_test_blobs (ct_blob_new (), NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *at = g_strdup_printf ("label %s at index %" G_GINT64_FORMAT, value_text,
                                         bad_index);
  float *lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  float saved = lab[bad_index];

  while (top->len < n_tops)
    g_ptr_array_add (top, ct_blob_new ());
  g_assert_true (ct_layer_setup (layer, bottom, top, &error));
  g_assert_no_error (error);
  lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  lab[bad_index] = bad_value;
  g_assert_false (ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error));
  ct_test_assert_layer_error (error, type);
  g_assert_nonnull (strstr (error->message, at));
  lab = ct_blob_mutable_cpu_data (CT_BOTTOM (bottom, 1), NULL);
  lab[bad_index] = saved;
}
