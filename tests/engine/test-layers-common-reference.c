/* test-layers-common-reference.c: the Common family in the catalogue, and
 * real Caffe's numbers for the layer-zoo reference dump's layers of the
 * Common and Utility types. */
#include <math.h>
#include <string.h>

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"
#include "common-test-util.h"

static void
test_catalogue (void)
{
  static const struct {
    const char *type;
    CtLayerFamily family;
  } types[] = {
    { "InnerProduct", CT_LAYER_FAMILY_COMMON }, { "Bias", CT_LAYER_FAMILY_COMMON },
    { "Scale", CT_LAYER_FAMILY_COMMON }, { "Concat", CT_LAYER_FAMILY_COMMON },
    { "Slice", CT_LAYER_FAMILY_COMMON }, { "Split", CT_LAYER_FAMILY_COMMON },
    { "Eltwise", CT_LAYER_FAMILY_COMMON }, { "Flatten", CT_LAYER_FAMILY_COMMON },
    { "Reshape", CT_LAYER_FAMILY_COMMON }, { "Tile", CT_LAYER_FAMILY_COMMON },
    { "Reduction", CT_LAYER_FAMILY_COMMON }, { "ArgMax", CT_LAYER_FAMILY_COMMON },
    { "Embed", CT_LAYER_FAMILY_COMMON }, { "Filter", CT_LAYER_FAMILY_COMMON },
    { "BatchReindex", CT_LAYER_FAMILY_COMMON }, { "Silence", CT_LAYER_FAMILY_COMMON },
    { "Parameter", CT_LAYER_FAMILY_COMMON }, { "DummyData", CT_LAYER_FAMILY_DATA },
    { "Python", CT_LAYER_FAMILY_UTILITY },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    {
      const CtLayerClass *klass = ct_layer_catalogue_lookup (types[i].type);

      g_assert_nonnull (klass);
      g_assert_cmpstr (klass->type, ==, types[i].type);
      g_assert_cmpint (klass->family, ==, types[i].family);
      g_assert_cmpstr (ct_layer_class_describe (klass), !=, "");
    }
  g_test_message ("checked %" G_GSIZE_FORMAT " types", G_N_ELEMENTS (types));
}

/* ---- the layer-zoo reference dump ---- */

typedef struct {
  const char *text;
  const char *bottoms[5];
  const char *tops[4];
  int n_params;   /* parameter blobs, found under the layer's name */
} ZooLayer;

static const ZooLayer zoo_layers[] = {
  { "name: 'scale1' type: 'Scale' scale_param { bias_term: true }", { "bn1" }, { "scale1" }, 2 },
  { "name: 'elu1_split' type: 'Split'", { "elu1" },
    { "elu1_elu1_0_split_0", "elu1_elu1_0_split_1" }, 0 },
  { "name: 'pool_max_split' type: 'Split'", { "pool_max" },
    { "pool_max_pool_max_0_split_0", "pool_max_pool_max_0_split_1",
      "pool_max_pool_max_0_split_2" }, 0 },
  { "name: 'pool_ave_split' type: 'Split'", { "pool_ave" },
    { "pool_ave_pool_ave_0_split_0", "pool_ave_pool_ave_0_split_1",
      "pool_ave_pool_ave_0_split_2" }, 0 },
  { "name: 'esum' type: 'Eltwise' eltwise_param { operation: SUM coeff: 1.0 coeff: -0.5 }",
    { "pool_max_pool_max_0_split_0", "pool_ave_pool_ave_0_split_0" }, { "esum" }, 0 },
  { "name: 'eprod' type: 'Eltwise' eltwise_param { operation: PROD }",
    { "pool_max_pool_max_0_split_1", "pool_ave_pool_ave_0_split_1" }, { "eprod" }, 0 },
  { "name: 'emax' type: 'Eltwise' eltwise_param { operation: MAX }",
    { "pool_max_pool_max_0_split_2", "pool_ave_pool_ave_0_split_2" }, { "emax" }, 0 },
  { "name: 'concat1' type: 'Concat' concat_param { axis: 1 }",
    { "esum", "eprod", "emax" }, { "concat1" }, 0 },
  { "name: 'concat1_split' type: 'Split'", { "concat1" },
    { "concat1_concat1_0_split_0", "concat1_concat1_0_split_1" }, 0 },
  { "name: 'slice1' type: 'Slice' slice_param { axis: 1 slice_point: 4 slice_point: 8 }",
    { "lrn_across" }, { "sl1", "sl2", "sl3" }, 0 },
  { "name: 'concat2' type: 'Concat'", { "sigmoid1", "tanh1", "abs1", "power1" },
    { "concat2" }, 0 },
  { "name: 'scale2' type: 'Scale' scale_param { bias_term: false }", { "bn2" }, { "scale2" }, 1 },
  { "name: 'scale2_split' type: 'Split'", { "scale2" },
    { "scale2_scale2_0_split_0", "scale2_scale2_0_split_1" }, 0 },
  { "name: 'concat3' type: 'Concat'", { "gap", "gmp" }, { "concat3" }, 0 },
  { "name: 'flat1' type: 'Flatten'", { "concat3" }, { "flat1" }, 0 },
  { "name: 'drop1_split' type: 'Split'", { "drop1" },
    { "drop1_drop1_0_split_0", "drop1_drop1_0_split_1" }, 0 },
  { "name: 'ip1' type: 'InnerProduct' inner_product_param { num_output: 16 }",
    { "drop1_drop1_0_split_0" }, { "ip1" }, 2 },
  { "name: 'reshape1' type: 'Reshape' reshape_param { shape { dim: 0 dim: 4 dim: -1 } }",
    { "ip1" }, { "reshape1" }, 0 },
  { "name: 'flat2' type: 'Flatten'", { "softmax1" }, { "flat2" }, 0 },
  { "name: 'ip2' type: 'InnerProduct' inner_product_param { num_output: 10 }",
    { "flat2" }, { "ip2" }, 2 },
  { "name: 'ip3' type: 'InnerProduct' inner_product_param { num_output: 6 }",
    { "drop1_drop1_0_split_1" }, { "ip3" }, 2 },
};

static double worst_error;

static void
compare (const char *what, const char *name, const float *ours, const float *ref, gint64 n)
{
  double err = ct_test_relative_error (ours, ref, n);

  g_test_message ("%-28s %s relative error %.3g", name, what, err);
  worst_error = MAX (worst_error, err);
  if (!(err <= 1e-4))
    g_error ("%s %s: relative error %.3g against Caffe", name, what, err);
}

static void
run_zoo_layer (const CtTestDump *dump, const ZooLayer *z)
{
  g_autoptr (CtLayer) layer = ct_test_layer_from_text (z->text);
  g_autoptr (GPtrArray) bottom = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  g_autoptr (GPtrArray) top = g_ptr_array_new_with_free_func ((GDestroyNotify) ct_blob_free);
  const char *name = ct_layer_get_name (layer);

  for (guint i = 0; i < G_N_ELEMENTS (z->bottoms) && z->bottoms[i] != NULL; i++)
    g_ptr_array_add (bottom, ct_test_dump_blob (ct_test_dump_find (dump, 0, z->bottoms[i], 0)));
  for (guint i = 0; i < G_N_ELEMENTS (z->tops) && z->tops[i] != NULL; i++)
    g_ptr_array_add (top, ct_blob_new ());
  /* The weights Caffe used, as the net loads them before setup. */
  for (int i = 0; i < z->n_params; i++)
    {
      CtBlob *blob = ct_test_dump_blob (ct_test_dump_find (dump, 1, name, i));

      memset (ct_blob_mutable_cpu_diff (blob, NULL), 0, sizeof (float) * ct_blob_count (blob));
      g_ptr_array_add (layer->blobs, blob);
    }

  ct_test_setup_ok (layer, bottom, top);
  ct_test_forward_ok (layer, bottom, top);
  for (guint i = 0; i < top->len; i++)
    {
      const CtTestDumpRecord *ref = ct_test_dump_find (dump, 0, z->tops[i], 0);
      CtBlob *out = CT_TOP (top, i);

      g_assert_cmpint (ct_blob_count (out), ==, ref->count);
      g_assert_cmpuint (ct_blob_num_axes (out), ==, ref->n_axes);
      compare ("data", z->tops[i], ct_blob_cpu_data (out, NULL), ref->data, ref->count);
      memcpy (ct_blob_mutable_cpu_diff (out, NULL), ref->diff, sizeof (float) * ref->count);
    }
  ct_test_backward_ok (layer, top, bottom);
  for (guint i = 0; i < bottom->len; i++)
    {
      const CtTestDumpRecord *ref = ct_test_dump_find (dump, 0, z->bottoms[i], 0);

      compare ("diff", z->bottoms[i], ct_blob_cpu_diff (CT_BOTTOM (bottom, i), NULL), ref->diff,
               ref->count);
    }
  for (int i = 0; i < z->n_params; i++)
    {
      const CtTestDumpRecord *ref = ct_test_dump_find (dump, 1, name, i);
      g_autofree char *label = g_strdup_printf ("%s[%d]", name, i);

      compare ("param diff", label, ct_blob_cpu_diff (g_ptr_array_index (layer->blobs, i), NULL),
               ref->diff, ref->count);
    }
}

static void
test_layer_zoo_reference (void)
{
  g_autoptr (CtTestDump) dump = ct_test_dump_load ("layer_zoo_seed1701.bin");

  if (dump == NULL)
    {
      g_test_skip ("reference dump layer_zoo_seed1701.bin not found");
      return;
    }
  worst_error = 0.0;
  for (gsize i = 0; i < G_N_ELEMENTS (zoo_layers); i++)
    run_zoo_layer (dump, &zoo_layers[i]);
  g_test_message ("checked %" G_GSIZE_FORMAT " layers against Caffe; worst relative error %.3g",
                  G_N_ELEMENTS (zoo_layers), worst_error);
  g_assert_cmpuint (G_N_ELEMENTS (zoo_layers), ==, 21);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/layers/common/catalogue", test_catalogue);
  g_test_add_func ("/engine/layers/common/layer-zoo-reference", test_layer_zoo_reference);
  return g_test_run ();
}
