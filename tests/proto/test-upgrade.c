/* test-upgrade.c: legacy nets and solvers upgraded as Caffe upgrades them.
 *
 * The zoo holds several files twice, once in a legacy format and once as
 * BVLC rewrote them for V2: the upgraded legacy file must equal the V2
 * one, exactly where the two are the same net, field by field where the
 * V2 file was also edited (documented per pair). Small hand-written nets
 * then pin down each upgrade rule and each invalid case. */
#include <string.h>

#include "proto-error.h"
#include "proto-file.h"
#include "text-format.h"
#include "upgrade.h"

static char *
data_path (const char *relative)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  g_assert_nonnull (dir);
  return g_build_filename (dir, relative, NULL);
}

static Caffe__NetParameter *
load_net (const char *relative, GPtrArray *notes)
{
  g_autofree char *path = data_path (relative);
  g_autoptr(GError) error = NULL;
  Caffe__NetParameter *net = ct_net_load_text_file (path, CT_TEXT_STRICT, notes, &error);

  g_assert_no_error (error);
  g_assert_nonnull (net);
  return net;
}

static Caffe__NetParameter *
parse_net (const char *text, CtTextFlags flags)
{
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                         "test.prototxt", flags, &error);
  g_assert_no_error (error);
  return (Caffe__NetParameter *) msg;
}

/* Parses TEXT and upgrades it, which must succeed. */
static Caffe__NetParameter *
upgrade_text (const char *text, GPtrArray *notes)
{
  Caffe__NetParameter *net = parse_net (text, CT_TEXT_STRICT);
  g_autoptr(GError) error = NULL;

  g_assert_true (ct_net_needs_upgrade (net));
  g_assert_true (ct_upgrade_net (net, "test.prototxt", notes, &error));
  g_assert_no_error (error);
  g_assert_false (ct_net_needs_upgrade (net));
  g_assert_cmpuint (net->n_layers, ==, 0);
  return net;
}

/* Parses TEXT and checks that upgrading fails naming each of NAMES. */
static void
assert_upgrade_fails (const char *text, const char *const *names)
{
  Caffe__NetParameter *net = parse_net (text, CT_TEXT_STRICT);
  g_autoptr(GError) error = NULL;

  g_assert_false (ct_upgrade_net (net, "bad.prototxt", NULL, &error));
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE);
  g_test_message ("expected error: %s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "bad.prototxt: "));
  for (; *names != NULL; names++)
    g_assert_nonnull (strstr (error->message, *names));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

static GBytes *
pack (const ProtobufCMessage *msg)
{
  gsize size = protobuf_c_message_get_packed_size (msg);
  guint8 *buf = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (msg, buf);
  return g_bytes_new_take (buf, size);
}

static void
assert_same_message (const ProtobufCMessage *a, const ProtobufCMessage *b)
{
  g_autoptr(GBytes) pa = pack (a);
  g_autoptr(GBytes) pb = pack (b);

  if (!g_bytes_equal (pa, pb))
    {
      g_autofree char *ta = ct_text_print (a);
      g_autofree char *tb = ct_text_print (b);
      g_assert_cmpstr (ta, ==, tb);
    }
  g_assert_true (g_bytes_equal (pa, pb));
}

/* A copy of MSG (a sub-message of a layer) without its FIELDS, packed; to
 * compare what two files agree on when one also edited, e.g., fillers. */
static GBytes *
pack_without (const ProtobufCMessage *msg, const char *const *fields)
{
  g_autoptr(GBytes) packed = NULL;
  ProtobufCMessage *copy;
  GBytes *result;

  if (msg == NULL)
    return g_bytes_new (NULL, 0);
  packed = pack (msg);
  copy = protobuf_c_message_unpack (msg->descriptor, NULL, g_bytes_get_size (packed),
                                    g_bytes_get_data (packed, NULL));
  g_assert_nonnull (copy);
  for (; fields != NULL && *fields != NULL; fields++)
    {
      const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field_by_name (copy->descriptor, *fields);
      ProtobufCMessage **sub;

      if (f == NULL)
        continue;
      g_assert_cmpint (f->type, ==, PROTOBUF_C_TYPE_MESSAGE);
      sub = (ProtobufCMessage **) ((char *) copy + f->offset);
      if (*sub != NULL)
        protobuf_c_message_free_unpacked (*sub, NULL);
      *sub = NULL;
    }
  result = pack (copy);
  protobuf_c_message_free_unpacked (copy, NULL);
  return result;
}

static void
assert_strv_equal (char **a, gsize na, char **b, gsize nb)
{
  g_assert_cmpuint (na, ==, nb);
  for (gsize i = 0; i < na; i++)
    g_assert_cmpstr (a[i], ==, b[i]);
}

static guint n_pairs_compared;

/* ------------------------------------------------------------------------
 * Zoo pairs
 * --------------------------------------------------------------------- */

/* The same net in both files: the upgrade must give identical bytes. */
static void
test_pair_exact (gconstpointer data)
{
  const char *const *pair = data;
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Caffe__NetParameter *legacy = load_net (pair[0], notes);
  Caffe__NetParameter *v2 = load_net (pair[1], NULL);

  g_assert_cmpuint (notes->len, >, 0);
  g_test_message ("%s: %u upgrade notes", pair[0], notes->len);
  assert_same_message (&legacy->base, &v2->base);
  n_pairs_compared++;
  protobuf_c_message_free_unpacked (&legacy->base, NULL);
  protobuf_c_message_free_unpacked (&v2->base, NULL);
}

/* The same net, where the V2 file names its Input layer after the blob
 * while Caffe's input upgrade always names it "input". */
static void
test_pair_input_layer (gconstpointer data)
{
  const char *const *pair = data;
  Caffe__NetParameter *legacy = load_net (pair[0], NULL);
  Caffe__NetParameter *v2 = load_net (pair[1], NULL);

  g_assert_cmpuint (legacy->n_layer, >, 0);
  g_assert_cmpstr (legacy->layer[0]->type, ==, "Input");
  g_assert_cmpstr (legacy->layer[0]->name, ==, "input");
  g_assert_cmpstr (v2->layer[0]->type, ==, "Input");
  g_free (legacy->layer[0]->name);
  legacy->layer[0]->name = g_strdup (v2->layer[0]->name);
  assert_same_message (&legacy->base, &v2->base);
  n_pairs_compared++;
  protobuf_c_message_free_unpacked (&legacy->base, NULL);
  protobuf_c_message_free_unpacked (&v2->base, NULL);
}

static const char *const filler_fields[] = { "weight_filler", "bias_filler", NULL };

/* Layer blocks compared between files that agree on the architecture. */
static const char *const shape_params[] = {
  "convolution_param", "pooling_param", "lrn_param", "inner_product_param",
  "dropout_param", "concat_param", "input_param", NULL,
};

static const Caffe__LayerParameter *
find_layer (const Caffe__NetParameter *net, const char *name, const char *type)
{
  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0 &&
        g_strcmp0 (net->layer[i]->type, type) == 0)
      return net->layer[i];
  return NULL;
}

static ProtobufCMessage *
layer_block (const Caffe__LayerParameter *layer, const char *name)
{
  const ProtobufCFieldDescriptor *f =
    protobuf_c_message_descriptor_get_field_by_name (layer->base.descriptor, name);

  g_assert_nonnull (f);
  return *(ProtobufCMessage **) ((char *) layer + f->offset);
}

typedef struct {
  const char *legacy;
  const char *v2;
  gboolean compare_params;    /* ParamSpecs (lr/decay multipliers) */
  gboolean compare_fillers;   /* whole *_param blocks, fillers included */
  const char *skip_type;      /* layers of this type differ (data sources) */
  const char *top_exception;  /* layer whose tops were fixed in the V2 file */
  guint n_layers;             /* how many layers are compared */
} LayerwisePair;

/* Files where BVLC edited the V2 version after the upgrade (fillers, data
 * sources, a test phase): every layer of the upgraded legacy net that the
 * V2 file has by name and type must agree on what defines the net. */
static void
test_pair_layerwise (gconstpointer data)
{
  const LayerwisePair *pair = data;
  Caffe__NetParameter *legacy = load_net (pair->legacy, NULL);
  Caffe__NetParameter *v2 = load_net (pair->v2, NULL);
  guint compared = 0;

  for (gsize i = 0; i < legacy->n_layer; i++)
    {
      const Caffe__LayerParameter *a = legacy->layer[i];
      const Caffe__LayerParameter *b;

      if (g_strcmp0 (a->type, pair->skip_type) == 0)
        continue;
      b = g_strcmp0 (a->type, "Input") == 0 ? v2->layer[0] : find_layer (v2, a->name, a->type);
      if (b == NULL)
        g_error ("layer '%s' of %s is missing from %s", a->name, pair->legacy, pair->v2);
      g_assert_cmpstr (a->type, ==, b->type);
      assert_strv_equal (a->bottom, a->n_bottom, b->bottom, b->n_bottom);
      if (g_strcmp0 (a->name, pair->top_exception) != 0)
        assert_strv_equal (a->top, a->n_top, b->top, b->n_top);
      if (pair->compare_params)
        {
          g_assert_cmpuint (a->n_param, ==, b->n_param);
          for (gsize p = 0; p < a->n_param; p++)
            assert_same_message (&a->param[p]->base, &b->param[p]->base);
        }
      for (const char *const *block = shape_params; *block != NULL; block++)
        {
          g_autoptr(GBytes) pa = pack_without (layer_block (a, *block),
                                               pair->compare_fillers ? NULL : filler_fields);
          g_autoptr(GBytes) pb = pack_without (layer_block (b, *block),
                                               pair->compare_fillers ? NULL : filler_fields);
          g_assert_true (g_bytes_equal (pa, pb));
        }
      compared++;
    }
  g_test_message ("%s vs %s: %u layers compared", pair->legacy, pair->v2, compared);
  g_assert_cmpuint (compared, ==, pair->n_layers);
  n_pairs_compared++;
  protobuf_c_message_free_unpacked (&legacy->base, NULL);
  protobuf_c_message_free_unpacked (&v2->base, NULL);
}

static void
test_pair_solver (void)
{
  g_autofree char *legacy_path = data_path ("zoo/legacy_v1_solver_type/"
                                            "mnist_autoencoder_solver_nesterov.prototxt");
  g_autofree char *v2_path = data_path ("zoo/mnist/mnist_autoencoder_solver_nesterov.prototxt");
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *legacy, *v2;
  CtProtoKind kind;

  legacy = ct_proto_load_text_file (legacy_path, CT_TEXT_STRICT, &kind, notes, &error);
  g_assert_no_error (error);
  g_assert_cmpint (kind, ==, CT_PROTO_KIND_SOLVER);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (notes, 0), ==,
                   "upgraded solver_type NESTEROV to type \"Nesterov\"");
  v2 = ct_proto_load_text_file (v2_path, CT_TEXT_STRICT, &kind, NULL, &error);
  g_assert_no_error (error);
  assert_same_message (legacy, v2);
  n_pairs_compared++;
  protobuf_c_message_free_unpacked (legacy, NULL);
  protobuf_c_message_free_unpacked (v2, NULL);
}

/* ------------------------------------------------------------------------
 * One rule at a time
 * --------------------------------------------------------------------- */

static gboolean
notes_contain (GPtrArray *notes, const char *text)
{
  for (guint i = 0; i < notes->len; i++)
    if (strstr (g_ptr_array_index (notes, i), text) != NULL)
      return TRUE;
  return FALSE;
}

static void
test_v0_padding_fold (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Caffe__NetParameter *net = upgrade_text (
    "name: 'pad' input: 'data' input_dim: 1 input_dim: 3 input_dim: 9 input_dim: 9\n"
    "layers { layer { name: 'pad1' type: 'padding' pad: 2 } bottom: 'data' top: 'pad1' }\n"
    "layers { layer { name: 'conv1' type: 'conv' num_output: 4 kernelsize: 3 stride: 2\n"
    "                 group: 1 biasterm: false blobs_lr: 1 blobs_lr: 2 weight_decay: 1\n"
    "                 weight_decay: 0 weight_filler { type: 'xavier' } }\n"
    "         bottom: 'pad1' top: 'conv1' }\n"
    "layers { layer { name: 'pad2' type: 'padding' pad: 1 } bottom: 'conv1' top: 'pad2' }\n"
    "layers { layer { name: 'pool1' type: 'pool' pool: AVE kernelsize: 3 stride: 2 }\n"
    "         bottom: 'pad2' top: 'pool1' }\n", notes);
  const Caffe__LayerParameter *conv, *pool;

  g_assert_cmpstr (net->name, ==, "pad");
  /* Input, conv1, pool1: both padding layers are gone */
  g_assert_cmpuint (net->n_layer, ==, 3);
  g_assert_cmpstr (net->layer[0]->type, ==, "Input");
  conv = net->layer[1];
  g_assert_cmpstr (conv->name, ==, "conv1");
  g_assert_cmpstr (conv->type, ==, "Convolution");
  g_assert_cmpuint (conv->n_bottom, ==, 1);
  g_assert_cmpstr (conv->bottom[0], ==, "data");
  g_assert_nonnull (conv->convolution_param);
  g_assert_cmpuint (conv->convolution_param->n_pad, ==, 1);
  g_assert_cmpuint (conv->convolution_param->pad[0], ==, 2);
  g_assert_cmpuint (conv->convolution_param->n_kernel_size, ==, 1);
  g_assert_cmpuint (conv->convolution_param->kernel_size[0], ==, 3);
  g_assert_cmpuint (conv->convolution_param->stride[0], ==, 2);
  g_assert_cmpuint (conv->convolution_param->num_output, ==, 4);
  g_assert_true (conv->convolution_param->has_bias_term);
  g_assert_false (conv->convolution_param->bias_term);
  g_assert_true (conv->convolution_param->has_group);
  g_assert_cmpstr (conv->convolution_param->weight_filler->type, ==, "xavier");
  g_assert_cmpuint (conv->n_param, ==, 2);
  g_assert_cmpfloat (conv->param[1]->lr_mult, ==, 2.0f);
  g_assert_cmpfloat (conv->param[1]->decay_mult, ==, 0.0f);
  pool = net->layer[2];
  g_assert_cmpstr (pool->type, ==, "Pooling");
  g_assert_cmpstr (pool->bottom[0], ==, "conv1");
  g_assert_true (pool->pooling_param->has_pad);
  g_assert_cmpuint (pool->pooling_param->pad, ==, 1);
  g_assert_cmpint (pool->pooling_param->pool, ==, CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE);
  g_assert_cmpuint (pool->pooling_param->kernel_size, ==, 3);
  g_assert_true (notes_contain (notes, "folded padding layer 'pad1' (pad 2) into layer 'conv1'"));
  g_assert_true (notes_contain (notes, "folded padding layer 'pad2' (pad 1) into layer 'pool1'"));
  g_assert_true (notes_contain (notes, "upgraded V0 layer 'conv1' (conv) to V1 CONVOLUTION"));
  g_assert_true (notes_contain (notes, "upgraded V1 layer 'conv1' (CONVOLUTION) to Convolution"));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

/* Every V0 field that has a home in V1 lands there. */
static void
test_v0_fields (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Caffe__NetParameter *net = upgrade_text (
    "layers { layer { name: 'win' type: 'window_data' source: 'w.txt' batchsize: 8\n"
    "  scale: 0.5 meanfile: 'm.binaryproto' cropsize: 227 mirror: true\n"
    "  det_fg_threshold: 0.6 det_bg_threshold: 0.4 det_fg_fraction: 0.3\n"
    "  det_context_pad: 16 det_crop_mode: 'square' } top: 'data' top: 'label' }\n"
    "layers { layer { name: 'img' type: 'images' source: 'list.txt' batchsize: 4\n"
    "  rand_skip: 7 shuffle_images: true new_height: 32 new_width: 48 } top: 'd2' top: 'l2' }\n"
    "layers { layer { name: 'norm' type: 'lrn' local_size: 3 alpha: 0.1 beta: 0.5 k: 2 }\n"
    "  bottom: 'data' top: 'norm' }\n"
    "layers { layer { name: 'drop' type: 'dropout' dropout_ratio: 0.25 }\n"
    "  bottom: 'norm' top: 'norm' }\n"
    "layers { layer { name: 'cat' type: 'concat' concat_dim: 0 }\n"
    "  bottom: 'norm' bottom: 'd2' top: 'cat' }\n"
    "layers { layer { name: 'ip' type: 'innerproduct' num_output: 10 biasterm: false\n"
    "  bias_filler { type: 'constant' value: 0.1 } } bottom: 'cat' top: 'ip' }\n"
    "layers { layer { name: 'info' type: 'infogain_loss' source: 'H.binaryproto' }\n"
    "  bottom: 'ip' bottom: 'label' }\n"
    "layers { layer { name: 'out' type: 'hdf5_output' hdf5_output_param { file_name: 'o.h5' } }\n"
    "  bottom: 'ip' bottom: 'label' }\n"
    "layers { layer { name: 'h5' type: 'hdf5_data' source: 'h5.txt' batchsize: 2 } top: 'x' }\n"
    "layers { layer { name: 'relu' type: 'relu' num_output: 3 new_num: 2 }\n"
    "  bottom: 'x' top: 'x' }\n", notes);
  const Caffe__LayerParameter *l;

  g_assert_cmpuint (net->n_layer, ==, 10);
  l = net->layer[0];
  g_assert_cmpstr (l->type, ==, "WindowData");
  g_assert_cmpstr (l->window_data_param->source, ==, "w.txt");
  g_assert_cmpuint (l->window_data_param->batch_size, ==, 8);
  g_assert_cmpfloat_with_epsilon (l->window_data_param->fg_threshold, 0.6, 1e-6);
  g_assert_cmpfloat_with_epsilon (l->window_data_param->bg_threshold, 0.4, 1e-6);
  g_assert_cmpfloat_with_epsilon (l->window_data_param->fg_fraction, 0.3, 1e-6);
  g_assert_cmpuint (l->window_data_param->context_pad, ==, 16);
  g_assert_cmpstr (l->window_data_param->crop_mode, ==, "square");
  g_assert_cmpfloat (l->transform_param->scale, ==, 0.5f);
  g_assert_cmpstr (l->transform_param->mean_file, ==, "m.binaryproto");
  g_assert_cmpuint (l->transform_param->crop_size, ==, 227);
  g_assert_true (l->transform_param->mirror);
  l = net->layer[1];
  g_assert_cmpstr (l->type, ==, "ImageData");
  g_assert_cmpuint (l->image_data_param->rand_skip, ==, 7);
  g_assert_true (l->image_data_param->shuffle);
  g_assert_cmpuint (l->image_data_param->new_height, ==, 32);
  g_assert_cmpuint (l->image_data_param->new_width, ==, 48);
  g_assert_cmpuint (l->image_data_param->batch_size, ==, 4);
  l = net->layer[2];
  g_assert_cmpstr (l->type, ==, "LRN");
  g_assert_cmpuint (l->lrn_param->local_size, ==, 3);
  g_assert_cmpfloat (l->lrn_param->beta, ==, 0.5f);
  g_assert_cmpfloat (l->lrn_param->k, ==, 2.0f);
  g_assert_cmpfloat (net->layer[3]->dropout_param->dropout_ratio, ==, 0.25f);
  g_assert_true (net->layer[4]->concat_param->has_concat_dim);
  g_assert_cmpuint (net->layer[4]->concat_param->concat_dim, ==, 0);
  l = net->layer[5];
  g_assert_cmpstr (l->type, ==, "InnerProduct");
  g_assert_false (l->inner_product_param->bias_term);
  g_assert_cmpfloat_with_epsilon (l->inner_product_param->bias_filler->value, 0.1, 1e-6);
  g_assert_cmpstr (net->layer[6]->infogain_loss_param->source, ==, "H.binaryproto");
  g_assert_cmpstr (net->layer[7]->hdf5_output_param->file_name, ==, "o.h5");
  g_assert_cmpstr (net->layer[8]->hdf5_data_param->source, ==, "h5.txt");
  g_assert_cmpuint (net->layer[8]->hdf5_data_param->batch_size, ==, 2);
  /* fields a type does not take are dropped, as Caffe drops them, with a note */
  g_assert_cmpstr (net->layer[9]->type, ==, "ReLU");
  g_assert_true (notes_contain (notes, "dropped 'num_output' of V0 layer 'relu'"));
  g_assert_true (notes_contain (notes, "dropped 'new_num' of V0 layer 'relu'"));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

static void
test_v0_invalid (void)
{
  /* a padding layer may only feed a conv or pool layer */
  assert_upgrade_fails (
    "input: 'data'\n"
    "layers { layer { name: 'pad1' type: 'padding' pad: 1 } bottom: 'data' top: 'p' }\n"
    "layers { layer { name: 'relu1' type: 'relu' } bottom: 'p' top: 'r' }\n",
    (const char *const[]) { "'pad1'", "'relu1'", "conv or pool", NULL });
  /* ... which has a single input */
  assert_upgrade_fails (
    "input: 'data' input: 'two'\n"
    "layers { layer { name: 'pad1' type: 'padding' pad: 1 } bottom: 'data' top: 'p' }\n"
    "layers { layer { name: 'conv1' type: 'conv' } bottom: 'p' bottom: 'two' top: 'c' }\n",
    (const char *const[]) { "'pad1'", "'conv1'", NULL });
  /* a blob nobody writes */
  assert_upgrade_fails (
    "layers { layer { name: 'conv1' type: 'conv' } bottom: 'nowhere' top: 'c' }\n",
    (const char *const[]) { "'conv1'", "'nowhere'", NULL });
  /* a type V0 never had */
  assert_upgrade_fails (
    "layers { layer { name: 'odd' type: 'Convolution' } top: 'c' }\n",
    (const char *const[]) { "'odd'", "'Convolution'", NULL });
  /* V0 and V1 layers mixed */
  assert_upgrade_fails (
    "layers { layer { name: 'data' type: 'data' } top: 'd' }\n"
    "layers { name: 'conv1' type: CONVOLUTION bottom: 'd' top: 'c' }\n",
    (const char *const[]) { "'conv1'", "one format", NULL });
  /* V2 layers and legacy layers in one net */
  assert_upgrade_fails (
    "layer { name: 'new' type: 'ReLU' }\n"
    "layers { name: 'old1' type: RELU }\n",
    (const char *const[]) { "'old1'", "both", NULL });
}

static void
test_v1_param_specs (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Caffe__NetParameter *net = upgrade_text (
    "layers { name: 'ip' type: INNER_PRODUCT bottom: 'x' top: 'y'\n"
    "  blobs_lr: 1 blobs_lr: 2 weight_decay: 1 weight_decay: 0\n"
    "  param: 'w' param: 'b' blob_share_mode: PERMISSIVE\n"
    "  loss_weight: 0.5 include { phase: TRAIN } exclude { stage: 'deploy' }\n"
    "  inner_product_param { num_output: 3 } }\n"
    "layers { name: 'shared' type: INNER_PRODUCT bottom: 'x' top: 'z' param: 'w' }\n"
    "layers { name: 'nothing' type: NONE }\n", notes);
  const Caffe__LayerParameter *l = net->layer[0];

  g_assert_cmpuint (net->n_layer, ==, 3);
  g_assert_cmpstr (l->type, ==, "InnerProduct");
  g_assert_cmpuint (l->n_param, ==, 2);
  g_assert_cmpstr (l->param[0]->name, ==, "w");
  g_assert_true (l->param[0]->has_share_mode);
  g_assert_cmpint (l->param[0]->share_mode, ==, CAFFE__PARAM_SPEC__DIM_CHECK_MODE__PERMISSIVE);
  g_assert_cmpfloat (l->param[0]->lr_mult, ==, 1.0f);
  g_assert_cmpfloat (l->param[0]->decay_mult, ==, 1.0f);
  g_assert_true (l->param[0]->has_decay_mult);
  g_assert_cmpstr (l->param[1]->name, ==, "b");
  g_assert_false (l->param[1]->has_share_mode);
  g_assert_cmpfloat (l->param[1]->lr_mult, ==, 2.0f);
  g_assert_cmpfloat (l->param[1]->decay_mult, ==, 0.0f);
  g_assert_cmpuint (l->n_loss_weight, ==, 1);
  g_assert_cmpfloat (l->loss_weight[0], ==, 0.5f);
  g_assert_cmpuint (l->n_include, ==, 1);
  g_assert_cmpint (l->include[0]->phase, ==, CAFFE__PHASE__TRAIN);
  g_assert_cmpuint (l->n_exclude, ==, 1);
  g_assert_cmpstr (l->exclude[0]->stage[0], ==, "deploy");
  g_assert_cmpuint (l->inner_product_param->num_output, ==, 3);
  /* a name alone still makes a ParamSpec, with default multipliers */
  g_assert_cmpuint (net->layer[1]->n_param, ==, 1);
  g_assert_cmpstr (net->layer[1]->param[0]->name, ==, "w");
  g_assert_false (net->layer[1]->param[0]->has_lr_mult);
  /* NONE becomes the empty type, as in Caffe */
  g_assert_cmpstr (net->layer[2]->type, ==, "");
  g_assert_true (notes_contain (notes, "moved blobs_lr/weight_decay/param of layer 'ip' into 2"));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

/* Every *_param block of V1 reaches the LayerParameter field of its name. */
static void
test_v1_every_param_block (void)
{
  g_autoptr(GString) text = g_string_new ("layers { name: 'all' type: CONVOLUTION ");
  const ProtobufCMessageDescriptor *v1 = &caffe__v1_layer_parameter__descriptor;
  Caffe__NetParameter *net;
  guint n_blocks = 0, n_moved = 0;

  for (guint f = 0; f < v1->n_fields; f++)
    if (v1->fields[f].type == PROTOBUF_C_TYPE_MESSAGE &&
        g_str_has_suffix (v1->fields[f].name, "_param"))
      {
        g_string_append_printf (text, "%s { } ", v1->fields[f].name);
        n_blocks++;
      }
  g_string_append (text, "}\n");
  net = upgrade_text (text->str, NULL);
  for (guint f = 0; f < v1->n_fields; f++)
    if (v1->fields[f].type == PROTOBUF_C_TYPE_MESSAGE &&
        g_str_has_suffix (v1->fields[f].name, "_param") &&
        layer_block (net->layer[0], v1->fields[f].name) != NULL)
      n_moved++;
  g_test_message ("%u of %u V1 *_param blocks moved", n_moved, n_blocks);
  g_assert_cmpuint (n_blocks, ==, 30);
  g_assert_cmpuint (n_moved, ==, n_blocks);
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

static void
test_v1_invalid (void)
{
  Caffe__NetParameter *net = parse_net ("layers { name: 'x' type: RELU }", CT_TEXT_STRICT);
  g_autoptr(GError) error = NULL;

  /* numbers outside the enum cannot come from text, but can from binary */
  net->layers[0]->type = 9999;
  g_assert_false (ct_upgrade_net (net, "bin.caffemodel", NULL, &error));
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE);
  g_assert_nonnull (strstr (error->message, "'x'"));
  g_assert_nonnull (strstr (error->message, "9999"));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

static void
test_data_transformation (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Caffe__NetParameter *net = upgrade_text (
    "layers { name: 'd' type: DATA top: 'a'\n"
    "  data_param { source: 's' scale: 0.25 mean_file: 'm' crop_size: 3 mirror: true } }\n"
    "layers { name: 'i' type: IMAGE_DATA top: 'b' image_data_param { scale: 2 } }\n"
    "layers { name: 'w' type: WINDOW_DATA top: 'c'\n"
    "  window_data_param { mirror: false } transform_param { scale: 9 } }\n"
    "layers { name: 'm' type: MEMORY_DATA top: 'e' }\n", notes);
  const Caffe__LayerParameter *d = net->layer[0];

  g_assert_cmpfloat (d->transform_param->scale, ==, 0.25f);
  g_assert_cmpstr (d->transform_param->mean_file, ==, "m");
  g_assert_cmpuint (d->transform_param->crop_size, ==, 3);
  g_assert_true (d->transform_param->mirror);
  g_assert_cmpstr (d->data_param->source, ==, "s");
  g_assert_false (d->data_param->has_scale);
  g_assert_false (d->data_param->has_crop_size);
  g_assert_false (d->data_param->has_mirror);
  g_assert_null (d->data_param->mean_file);
  g_assert_cmpfloat (net->layer[1]->transform_param->scale, ==, 2.0f);
  g_assert_false (net->layer[1]->image_data_param->has_scale);
  /* moved values replace what transform_param had, as in Caffe */
  g_assert_true (net->layer[2]->transform_param->has_mirror);
  g_assert_cmpfloat (net->layer[2]->transform_param->scale, ==, 9.0f);
  g_assert_null (net->layer[3]->transform_param);
  g_assert_true (notes_contain (notes, "moved data_param.scale of layer 'd' into transform_param"));
  g_assert_true (notes_contain (notes, "moved image_data_param.scale of layer 'i'"));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

static void
test_input_dim (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Caffe__NetParameter *net = upgrade_text (
    "name: 'two' input: 'data' input: 'label'\n"
    "input_dim: 10 input_dim: 3 input_dim: 227 input_dim: 227\n"
    "input_dim: 10 input_dim: 1 input_dim: 1 input_dim: 1\n"
    "layer { name: 'conv' type: 'Convolution' bottom: 'data' top: 'c' }\n", notes);
  const Caffe__LayerParameter *in = net->layer[0];

  g_assert_cmpuint (net->n_layer, ==, 2);
  g_assert_cmpuint (net->n_input, ==, 0);
  g_assert_cmpuint (net->n_input_dim, ==, 0);
  g_assert_cmpstr (in->name, ==, "input");
  g_assert_cmpstr (in->type, ==, "Input");
  g_assert_cmpuint (in->n_top, ==, 2);
  g_assert_cmpstr (in->top[1], ==, "label");
  g_assert_cmpuint (in->input_param->n_shape, ==, 2);
  g_assert_cmpuint (in->input_param->shape[0]->n_dim, ==, 4);
  g_assert_cmpint (in->input_param->shape[0]->dim[2], ==, 227);
  g_assert_cmpint (in->input_param->shape[1]->dim[1], ==, 1);
  g_assert_cmpstr (net->layer[1]->name, ==, "conv");
  g_assert_true (notes_contain (notes, "moved net input 'data' (10×3×227×227) into an Input layer"));
  g_assert_true (notes_contain (notes, "moved net input 'label' (10×1×1×1) into an Input layer"));
  protobuf_c_message_free_unpacked (&net->base, NULL);

  assert_upgrade_fails ("input: 'a' input_dim: 1 input_dim: 2 input_dim: 3\n",
                        (const char *const[]) { "1 inputs", "4 input_dim", "3 are given", NULL });
  assert_upgrade_fails ("input: 'a' input: 'b' input_shape { dim: 1 }\n",
                        (const char *const[]) { "2 inputs", "1 input_shape", NULL });
}

static void
test_input_shape (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Caffe__NetParameter *net = upgrade_text (
    "input: 'data' input_shape { dim: 2 dim: 5 }\n", notes);

  g_assert_cmpuint (net->n_layer, ==, 1);
  g_assert_cmpuint (net->n_input_shape, ==, 0);
  g_assert_cmpuint (net->layer[0]->input_param->shape[0]->n_dim, ==, 2);
  g_assert_cmpint (net->layer[0]->input_param->shape[0]->dim[1], ==, 5);
  g_assert_true (notes_contain (notes, "(2×5)"));
  protobuf_c_message_free_unpacked (&net->base, NULL);

  /* inputs without any shape (old caffemodels) are simply dropped */
  g_ptr_array_set_size (notes, 0);
  net = upgrade_text ("input: 'data' layer { name: 'r' type: 'ReLU' }\n", notes);
  g_assert_cmpuint (net->n_layer, ==, 1);
  g_assert_cmpstr (net->layer[0]->name, ==, "r");
  g_assert_true (notes_contain (notes, "dropped net input 'data'"));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

static void
test_batch_norm (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  Caffe__NetParameter *net = upgrade_text (
    "layer { name: 'bn0' type: 'BatchNorm' param { lr_mult: 0 } param { lr_mult: 0 }\n"
    "        param { lr_mult: 0 } }\n"
    "layer { name: 'bn1' type: 'BatchNorm' param { lr_mult: 1 decay_mult: 1 name: 'm' }\n"
    "        param { lr_mult: 1 name: 's' } param { name: 'f' } }\n"
    "layer { name: 'bn2' type: 'BatchNorm' param { lr_mult: 1 } param { lr_mult: 1 } }\n"
    "layer { name: 'bn3' type: 'BatchNorm' param { lr_mult: 0 decay_mult: 0 }\n"
    "        param { lr_mult: 0 decay_mult: 0 } param { lr_mult: 0 decay_mult: 0 } }\n"
    "layer { name: 'sc' type: 'Scale' param { lr_mult: 1 } param { lr_mult: 1 }\n"
    "        param { lr_mult: 1 } }\n", notes);

  for (gsize i = 0; i < 2; i++)
    for (gsize p = 0; p < 3; p++)
      {
        g_assert_true (net->layer[i]->param[p]->has_lr_mult);
        g_assert_cmpfloat (net->layer[i]->param[p]->lr_mult, ==, 0.0f);
        g_assert_true (net->layer[i]->param[p]->has_decay_mult);
        g_assert_cmpfloat (net->layer[i]->param[p]->decay_mult, ==, 0.0f);
      }
  /* names stay */
  g_assert_cmpstr (net->layer[1]->param[0]->name, ==, "m");
  g_assert_cmpstr (net->layer[1]->param[2]->name, ==, "f");
  /* only layers with exactly three specs are touched, only BatchNorm ones */
  g_assert_cmpfloat (net->layer[2]->param[0]->lr_mult, ==, 1.0f);
  g_assert_cmpfloat (net->layer[4]->param[0]->lr_mult, ==, 1.0f);
  /* a note for each layer that changed: bn0 (decay_mult was 1), bn1; not bn3 */
  g_assert_true (notes_contain (notes, "BatchNorm layer 'bn0'"));
  g_assert_true (notes_contain (notes, "BatchNorm layer 'bn1'"));
  g_assert_false (notes_contain (notes, "'bn3'"));
  g_assert_cmpuint (notes->len, ==, 2);
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

static void
test_solver_type (void)
{
  static const char *const types[][2] = {
    { "SGD", "SGD" }, { "NESTEROV", "Nesterov" }, { "ADAGRAD", "AdaGrad" },
    { "RMSPROP", "RMSProp" }, { "ADADELTA", "AdaDelta" }, { "ADAM", "Adam" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autofree char *text = g_strdup_printf ("base_lr: 0.1 solver_type: %s\n", types[i][0]);
      g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      Caffe__SolverParameter *solver = (Caffe__SolverParameter *)
        ct_text_parse (&caffe__solver_parameter__descriptor, text, -1, "s.prototxt",
                       CT_TEXT_STRICT, &error);

      g_assert_no_error (error);
      g_assert_true (ct_solver_needs_upgrade (solver));
      g_assert_true (ct_upgrade_solver (solver, "s.prototxt", notes, &error));
      g_assert_no_error (error);
      g_assert_false (ct_solver_needs_upgrade (solver));
      g_assert_false (solver->has_solver_type);
      g_assert_cmpstr (solver->type, ==, types[i][1]);
      g_assert_cmpuint (notes->len, ==, 1);
      protobuf_c_message_free_unpacked (&solver->base, NULL);
    }

  {
    g_autoptr(GError) error = NULL;
    Caffe__SolverParameter *solver = (Caffe__SolverParameter *)
      ct_text_parse (&caffe__solver_parameter__descriptor, "solver_type: ADAM type: 'Adam'", -1,
                     "s.prototxt", CT_TEXT_STRICT, &error);

    g_assert_no_error (error);
    g_assert_false (ct_upgrade_solver (solver, "s.prototxt", NULL, &error));
    g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE);
    g_assert_nonnull (strstr (error->message, "solver_type"));
    protobuf_c_message_free_unpacked (&solver->base, NULL);
  }
}

/* Nets inside a solver are upgraded like net files. */
static void
test_solver_embedded_net (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  Caffe__SolverParameter *solver = (Caffe__SolverParameter *)
    ct_text_parse (&caffe__solver_parameter__descriptor,
                   "base_lr: 0.1 net_param { layers { name: 'r' type: RELU } }\n"
                   "test_net_param { input: 'x' input_dim: 1 input_dim: 1 input_dim: 1 "
                   "input_dim: 1 }\n", -1, "s.prototxt", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  g_assert_true (ct_solver_needs_upgrade (solver));
  g_assert_true (ct_upgrade_solver (solver, "s.prototxt", notes, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (solver->net_param->layer[0]->type, ==, "ReLU");
  g_assert_cmpstr (solver->test_net_param[0]->layer[0]->type, ==, "Input");
  g_assert_true (notes_contain (notes, "in net_param: upgraded V1 layer 'r'"));
  g_assert_true (notes_contain (notes, "in test_net_param #1: moved net input 'x'"));
  protobuf_c_message_free_unpacked (&solver->base, NULL);
}

/* Fields kept by a lenient parse travel with their layer and print back. */
static void
test_kept_text_survives (void)
{
  Caffe__NetParameter *net = parse_net (
    "layers {\n  name: 'c'\n  type: CONVOLUTION\n  fancy_param { x: 1 }\n"
    "  convolution_param { num_output: 2 ceil_mode: true }\n}\n", CT_TEXT_LENIENT);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) unknown = NULL;
  g_autofree char *text = NULL;

  g_assert_true (ct_upgrade_net (net, "k.prototxt", NULL, &error));
  g_assert_no_error (error);
  unknown = ct_text_list_unknown (&net->base);
  g_assert_cmpuint (unknown->len, ==, 2);
  text = ct_text_print (&net->base);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "fancy_param"));
  g_assert_nonnull (strstr (text, "ceil_mode: true"));
  g_assert_nonnull (strstr (text, "type: \"Convolution\""));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

/* Kept text naming a field that only the new format has becomes that
 * field, so that the upgraded text reads back the same. */
static void
assert_print_round_trip (const ProtobufCMessage *msg)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *printed = ct_text_print (msg);
  g_autofree char *reprinted = NULL;
  ProtobufCMessage *again;

  g_test_message ("%s", printed);
  again = ct_text_parse (msg->descriptor, printed, -1, "printed", CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  reprinted = ct_text_print (again);
  g_assert_cmpstr (printed, ==, reprinted);
  protobuf_c_message_free_unpacked (again, NULL);
}

static void
test_kept_text_collisions (void)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  Caffe__NetParameter *v1 = parse_net (
    "layers { name: 'x' type: FANCY_LOSS bottom: 'a' propagate_down: true\n"
    "         phase: TRAIN phase: 7 }\n", CT_TEXT_LENIENT);
  Caffe__NetParameter *v0 = parse_net (
    "layers { layer { name: 'y' type: 'relu' include { phase: TEST } } top: 'r' }\n",
    CT_TEXT_LENIENT);

  g_assert_true (ct_upgrade_net (v1, "k.prototxt", notes, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (v1->layer[0]->type, ==, "FANCY_LOSS");
  g_assert_cmpuint (v1->layer[0]->n_propagate_down, ==, 1);
  g_assert_true (v1->layer[0]->has_phase);
  g_assert_true (notes_contain (notes, "kept text 'propagate_down: true' of layer 'x' became"));
  g_assert_true (notes_contain (notes, "dropped kept text 'phase: 7' of layer 'x'"));
  assert_print_round_trip (&v1->base);

  g_assert_true (ct_upgrade_net (v0, "k.prototxt", notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (v0->layer[0]->n_include, ==, 1);
  g_assert_cmpint (v0->layer[0]->include[0]->phase, ==, CAFFE__PHASE__TEST);
  g_assert_false (ct_text_has_unknown (&v0->base));
  assert_print_round_trip (&v0->base);

  protobuf_c_message_free_unpacked (&v1->base, NULL);
  protobuf_c_message_free_unpacked (&v0->base, NULL);
}

static void
test_needs_upgrade (void)
{
  Caffe__NetParameter *net = load_net ("zoo/mnist/lenet_train_test.prototxt", NULL);

  g_assert_false (ct_net_needs_upgrade (net));
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

/* BVLC later changed GoogLeNet's data layers to mean_value, dropped `std`
 * from its xavier fillers and fixed the top of loss2/loss. */
static const LayerwisePair googlenet = {
  "zoo/legacy_v1_googlenet/train_val.prototxt", "zoo/bvlc_googlenet/train_val.prototxt",
  TRUE, FALSE, "Data", "loss2/loss", 164 };
/* The V0 ImageNet net is CaffeNet before LMDB sources, the test phase and
 * the loss top were added. */
static const LayerwisePair imagenet = {
  "zoo/legacy_v0_imagenet/imagenet.prototxt", "zoo/bvlc_reference_caffenet/train_val.prototxt",
  TRUE, TRUE, "Data", "loss", 23 };
/* Its deploy version had training settings (multipliers, fillers) that the
 * V2 deploy file leaves out. */
static const LayerwisePair imagenet_deploy = {
  "zoo/legacy_v0_imagenet/imagenet_deploy.prototxt", "zoo/bvlc_reference_caffenet/deploy.prototxt",
  FALSE, FALSE, NULL, NULL, 24 };
/* The V0 LeNet read a LevelDB and had no test phase yet. */
static const LayerwisePair lenet_v0 = {
  "zoo/legacy_v0_lenet/lenet_train.prototxt", "zoo/mnist/lenet_train_test.prototxt",
  TRUE, TRUE, "Data", "loss", 8 };

static const char *const lenet[] = {
  "zoo/legacy_v1_lenet/lenet_train_test.prototxt", "zoo/mnist/lenet_train_test.prototxt" };
static const char *const siamese[] = {
  "zoo/legacy_v1_siamese/mnist_siamese_train_test.prototxt",
  "zoo/siamese/mnist_siamese_train_test.prototxt" };
static const char *const caffenet[] = {
  "zoo/legacy_v1_caffenet/deploy.prototxt", "zoo/bvlc_reference_caffenet/deploy.prototxt" };
static const char *const input_shape[] = {
  "zoo/legacy_input_shape_lenet/lenet.prototxt", "zoo/mnist/lenet.prototxt" };

/* All pairs of the zoo, one after the other, counted. */
static void
test_zoo_pairs (void)
{
  n_pairs_compared = 0;
  test_pair_exact (lenet);
  test_pair_exact (siamese);
  test_pair_input_layer (caffenet);
  test_pair_input_layer (input_shape);
  test_pair_layerwise (&googlenet);
  test_pair_layerwise (&imagenet);
  test_pair_layerwise (&imagenet_deploy);
  test_pair_layerwise (&lenet_v0);
  test_pair_solver ();
  g_test_message ("upgrade pairs compared: %u", n_pairs_compared);
  g_assert_cmpuint (n_pairs_compared, ==, 9);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/proto/upgrade/zoo/pairs", test_zoo_pairs);
  g_test_add_func ("/proto/upgrade/v0/padding-fold", test_v0_padding_fold);
  g_test_add_func ("/proto/upgrade/v0/fields", test_v0_fields);
  g_test_add_func ("/proto/upgrade/v0/invalid", test_v0_invalid);
  g_test_add_func ("/proto/upgrade/v1/param-specs", test_v1_param_specs);
  g_test_add_func ("/proto/upgrade/v1/every-param-block", test_v1_every_param_block);
  g_test_add_func ("/proto/upgrade/v1/invalid", test_v1_invalid);
  g_test_add_func ("/proto/upgrade/data-transformation", test_data_transformation);
  g_test_add_func ("/proto/upgrade/input/dim", test_input_dim);
  g_test_add_func ("/proto/upgrade/input/shape", test_input_shape);
  g_test_add_func ("/proto/upgrade/batch-norm", test_batch_norm);
  g_test_add_func ("/proto/upgrade/solver/type", test_solver_type);
  g_test_add_func ("/proto/upgrade/solver/embedded-net", test_solver_embedded_net);
  g_test_add_func ("/proto/upgrade/kept-text", test_kept_text_survives);
  g_test_add_func ("/proto/upgrade/kept-text-collisions", test_kept_text_collisions);
  g_test_add_func ("/proto/upgrade/needs-upgrade", test_needs_upgrade);

  return g_test_run ();
}
