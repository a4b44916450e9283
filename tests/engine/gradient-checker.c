/* gradient-checker.c: numeric gradient checks for layer tests. */
#include <math.h>

#include "gradient-checker.h"

static void
forward (const CtGradientChecker *checker, CtLayer *layer, GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  layer->seed = checker->seed;
  if (!ct_layer_forward (layer, bottom, top, ct_test_use_gpu (), NULL, &error))
    g_error ("forward failed: %s", error->message);
}

/* The objective, and its gradient written into the tops' diffs. */
static double
objective_and_diff (GPtrArray *top, int top_id, gint64 top_data_id)
{
  double loss = 0.0;

  if (top_id < 0)
    {
      for (guint i = 0; i < top->len; i++)
        {
          CtBlob *blob = CT_TOP (top, i);
          const float *data = ct_blob_cpu_data (blob, NULL);
          float *diff = ct_blob_mutable_cpu_diff (blob, NULL);

          for (gint64 j = 0; j < ct_blob_count (blob); j++)
            {
              loss += (double) data[j] * data[j];
              diff[j] = data[j];
            }
        }
      return loss / 2.0;
    }

  for (guint i = 0; i < top->len; i++)
    {
      CtBlob *blob = CT_TOP (top, i);
      float *diff = ct_blob_mutable_cpu_diff (blob, NULL);

      for (gint64 j = 0; j < ct_blob_count (blob); j++)
        diff[j] = 0.0f;
    }
  {
    CtBlob *blob = CT_TOP (top, top_id);
    const float *data = ct_blob_cpu_data (blob, NULL);
    float *diff = ct_blob_mutable_cpu_diff (blob, NULL);
    float scale = 2.0f; /* as Caffe's checker: the loss is twice the element */

    loss = data[top_data_id] * scale;
    diff[top_data_id] = scale;
  }
  return loss;
}

void
ct_check_gradient_single (const CtGradientChecker *checker, CtLayer *layer,
                          GPtrArray *bottom, GPtrArray *top, int check_bottom,
                          int top_id, gint64 top_data_id, gboolean element_wise)
{
  g_autoptr (GPtrArray) blobs = g_ptr_array_new ();
  g_autoptr (GPtrArray) computed = g_ptr_array_new_with_free_func (g_free);
  g_autofree gboolean *propagate_down = g_new0 (gboolean, MAX (bottom->len, 1));
  g_autoptr (GError) error = NULL;

  /* What to check: the parameters, then the chosen bottoms. */
  for (guint i = 0; i < layer->blobs->len; i++)
    g_ptr_array_add (blobs, g_ptr_array_index (layer->blobs, i));
  for (guint i = 0; i < bottom->len; i++)
    if (check_bottom < 0 || (guint) check_bottom == i)
      {
        g_ptr_array_add (blobs, g_ptr_array_index (bottom, i));
        propagate_down[i] = TRUE;
      }

  /* The analytic gradient: parameter diffs start at zero since layers add to them. */
  for (guint i = 0; i < layer->blobs->len; i++)
    {
      CtBlob *blob = g_ptr_array_index (layer->blobs, i);
      float *diff = ct_blob_mutable_cpu_diff (blob, NULL);

      for (gint64 j = 0; j < ct_blob_count (blob); j++)
        diff[j] = 0.0f;
    }
  forward (checker, layer, bottom, top);
  objective_and_diff (top, top_id, top_data_id);
  if (!ct_layer_backward (layer, top, propagate_down, bottom, ct_test_use_gpu (), &error))
    g_error ("backward failed: %s", error->message);
  for (guint b = 0; b < blobs->len; b++)
    {
      CtBlob *blob = g_ptr_array_index (blobs, b);
      g_ptr_array_add (computed, g_memdup2 (ct_blob_cpu_diff (blob, NULL),
                                            sizeof (float) * MAX (ct_blob_count (blob), 1)));
    }

  for (guint b = 0; b < blobs->len; b++)
    {
      CtBlob *blob = g_ptr_array_index (blobs, b);
      const float *grad = g_ptr_array_index (computed, b);

      for (gint64 f = 0; f < ct_blob_count (blob); f++)
        {
          float *data = ct_blob_mutable_cpu_data (blob, NULL);
          float original = data[f];
          double positive = 0.0, negative = 0.0, estimated = 0.0, scale;
          float feature;

          if (!element_wise || f == top_data_id)
            {
              data[f] = original + checker->stepsize;
              forward (checker, layer, bottom, top);
              positive = objective_and_diff (top, top_id, top_data_id);
              data = ct_blob_mutable_cpu_data (blob, NULL);
              data[f] = original - checker->stepsize;
              forward (checker, layer, bottom, top);
              negative = objective_and_diff (top, top_id, top_data_id);
              data = ct_blob_mutable_cpu_data (blob, NULL);
              data[f] = original;
              estimated = (positive - negative) / checker->stepsize / 2.0;
            }
          feature = original;
          if (checker->kink - checker->kink_range > fabsf (feature) ||
              fabsf (feature) > checker->kink + checker->kink_range)
            {
              scale = MAX (MAX (fabs (grad[f]), fabs (estimated)), 1.0);
              if (fabs (grad[f] - estimated) > checker->threshold * scale)
                g_error ("%s (%s): gradient of blob %u element %" G_GINT64_FORMAT
                         " for top %d element %" G_GINT64_FORMAT
                         ": computed %.8g, estimated %.8g",
                         ct_layer_get_name (layer), ct_layer_get_type (layer), b, f,
                         top_id, top_data_id, grad[f], estimated);
            }
        }
    }
}

void
ct_check_gradient_exhaustive (const CtGradientChecker *checker, CtLayer *layer,
                              GPtrArray *bottom, GPtrArray *top, int check_bottom)
{
  g_autoptr (GError) error = NULL;

  if (!ct_layer_setup (layer, bottom, top, &error))
    g_error ("setup failed: %s", error->message);
  g_assert_cmpuint (top->len, >, 0);
  for (guint i = 0; i < top->len; i++)
    for (gint64 j = 0; j < ct_blob_count (CT_TOP (top, i)); j++)
      ct_check_gradient_single (checker, layer, bottom, top, check_bottom, (int) i, j, FALSE);
}

void
ct_check_gradient_eltwise (const CtGradientChecker *checker, CtLayer *layer,
                           GPtrArray *bottom, GPtrArray *top)
{
  g_autoptr (GError) error = NULL;

  if (!ct_layer_setup (layer, bottom, top, &error))
    g_error ("setup failed: %s", error->message);
  g_assert_cmpuint (top->len, >, 0);
  for (guint i = 0; i < top->len; i++)
    for (gint64 j = 0; j < ct_blob_count (CT_TOP (top, i)); j++)
      ct_check_gradient_single (checker, layer, bottom, top, -1, (int) i, j, TRUE);
}
