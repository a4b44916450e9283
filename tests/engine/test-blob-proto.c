/* test-blob-proto.c: CtBlob to and from BlobProto: round trips in float,
 * double, scalar and legacy 4-D form, bad messages, Caffe's ShapeEquals
 * rules, and every parameter blob of the trained LeNet in tests/data. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "blob.h"
#include "engine-error.h"
#include "fake-device.h"
#include "blob-test-util.h"

static void
free_proto (Caffe__BlobProto *proto)
{
  protobuf_c_message_free_unpacked ((ProtobufCMessage *) proto, NULL);
}

/* Packs PROTO to bytes and unpacks it again, as a file would. */
static Caffe__BlobProto *
through_wire (const Caffe__BlobProto *proto)
{
  gsize size = caffe__blob_proto__get_packed_size (proto);
  g_autofree guint8 *bytes = g_malloc (MAX (size, 1));
  Caffe__BlobProto *copy;

  g_assert_cmpuint (caffe__blob_proto__pack (proto, bytes), ==, size);
  copy = caffe__blob_proto__unpack (NULL, size, bytes);
  g_assert_nonnull (copy);
  return copy;
}

static void
test_proto_float (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (3, (gint64) 2, (gint64) 1, (gint64) 3);
  g_autoptr (CtBlob) back = ct_blob_new ();
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto *proto, *wire;

  ct_test_fill_pattern (blob, 0.25f, -1);
  proto = ct_blob_to_proto (blob, CT_BLOB_PROTO_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_nonnull (proto->shape);
  g_assert_cmpuint (proto->shape->n_dim, ==, 3);
  g_assert_cmpint (proto->shape->dim[0], ==, 2);
  g_assert_cmpint (proto->shape->dim[2], ==, 3);
  g_assert_false (proto->has_num || proto->has_channels || proto->has_height || proto->has_width);
  g_assert_cmpuint (proto->n_data, ==, 6);
  g_assert_cmpuint (proto->n_diff, ==, 0);
  g_assert_cmpuint (proto->n_double_data, ==, 0);
  g_assert_cmpfloat (proto->data[5], ==, 1.25f);
  wire = through_wire (proto);
  free_proto (proto);

  g_assert_true (ct_blob_from_proto (back, wire, TRUE, &error));
  g_assert_no_error (error);
  ct_test_assert_shape_string (back, "2 1 3 (6)");
  for (int i = 0; i < 6; i++)
    {
      g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[i], ==, 0.25f * i);
      g_assert_cmpfloat (ct_blob_cpu_diff (back, NULL)[i], ==, 0);
    }
  free_proto (wire);

  /* With the diff. */
  proto = ct_blob_to_proto (blob, CT_BLOB_PROTO_WRITE_DIFF, &error);
  g_assert_cmpuint (proto->n_diff, ==, 6);
  g_assert_cmpfloat (proto->diff[4], ==, -4);
  wire = through_wire (proto);
  free_proto (proto);
  g_assert_true (ct_blob_from_proto (back, wire, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ct_blob_cpu_diff (back, NULL)[4], ==, -4);
  free_proto (wire);
}

static void
test_proto_double (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (2, (gint64) 2, (gint64) 2);
  g_autoptr (CtBlob) back = ct_blob_new ();
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto *proto, *wire;

  ct_test_fill_pattern (blob, 1.5f, 0.125f);
  proto = ct_blob_to_proto (blob, CT_BLOB_PROTO_DOUBLE | CT_BLOB_PROTO_WRITE_DIFF, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (proto->n_data, ==, 0);
  g_assert_cmpuint (proto->n_diff, ==, 0);
  g_assert_cmpuint (proto->n_double_data, ==, 4);
  g_assert_cmpuint (proto->n_double_diff, ==, 4);
  g_assert_cmpfloat (proto->double_data[3], ==, 4.5);
  g_assert_cmpfloat (proto->double_diff[3], ==, 0.375);
  wire = through_wire (proto);
  free_proto (proto);
  g_assert_true (ct_blob_from_proto (back, wire, TRUE, &error));
  g_assert_no_error (error);
  ct_test_assert_shape_string (back, "2 2 (4)");
  g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[3], ==, 4.5f);
  g_assert_cmpfloat (ct_blob_cpu_diff (back, NULL)[3], ==, 0.375f);
  free_proto (wire);

  /* double_data wins over data when both are present, as in Caffe. */
  {
    Caffe__BlobProto mixed = CAFFE__BLOB_PROTO__INIT;
    Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;
    int64_t dims[1] = { 2 };
    float floats[2] = { 1, 2 };
    double doubles[2] = { 1e-3, -0.5 };
    shape.n_dim = 1;
    shape.dim = dims;
    mixed.shape = &shape;
    mixed.n_data = 2;
    mixed.data = floats;
    mixed.n_double_data = 2;
    mixed.double_data = doubles;
    g_assert_true (ct_blob_from_proto (back, &mixed, TRUE, &error));
    g_assert_no_error (error);
    ct_test_assert_shape_string (back, "2 (2)");
    g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[0], ==, 1e-3f);
    g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[1], ==, -0.5f);
  }
}

static void
test_proto_scalar (void)
{
  /* A blob with no axes holds one element and writes no shape at all. */
  g_autoptr (CtBlob) scalar = ct_blob_new ();
  g_autoptr (CtBlob) back = ct_test_blob_of (1, (gint64) 5);
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto *proto;

  g_assert_true (ct_blob_reshape (scalar, NULL, 0, NULL));
  ct_blob_mutable_cpu_data (scalar, NULL)[0] = 7;
  proto = ct_blob_to_proto (scalar, CT_BLOB_PROTO_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_null (proto->shape);
  g_assert_cmpuint (proto->n_data, ==, 1);
  g_assert_true (ct_blob_from_proto (back, proto, TRUE, &error));
  g_assert_no_error (error);
  ct_test_assert_shape_string (back, "(1)");
  g_assert_cmpfloat (ct_blob_cpu_data (back, NULL)[0], ==, 7);
  free_proto (proto);
}

static void
test_proto_legacy (void)
{
  g_autoptr (CtBlob) blob = ct_blob_new ();
  g_autoptr (CtBlob) bias = ct_test_blob_of (1, (gint64) 3);
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto proto = CAFFE__BLOB_PROTO__INIT;
  Caffe__BlobShape ignored = CAFFE__BLOB_SHAPE__INIT;
  int64_t ignored_dims[2] = { 9, 9 };
  float values[12];

  for (int i = 0; i < 12; i++)
    values[i] = (float) i;
  /* Legacy fields win over `shape` and give 4 axes. */
  ignored.n_dim = 2;
  ignored.dim = ignored_dims;
  proto.shape = &ignored;
  proto.has_num = proto.has_channels = proto.has_height = proto.has_width = TRUE;
  proto.num = 1;
  proto.channels = 1;
  proto.height = 3;
  proto.width = 4;
  proto.n_data = 12;
  proto.data = values;
  g_assert_true (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_no_error (error);
  ct_test_assert_shape_string (blob, "1 1 3 4 (12)");
  g_assert_cmpfloat (ct_blob_data_at (blob, 0, 0, 2, 3, NULL), ==, 11);

  /* A (1 1 1 3) legacy bias loads into a (3) blob without reshaping: the
   * legacy view compares from the end. */
  proto.shape = NULL;
  proto.height = 1;
  proto.width = 3;
  proto.n_data = 3;
  g_assert_true (ct_blob_from_proto (bias, &proto, FALSE, &error));
  g_assert_no_error (error);
  ct_test_assert_shape_string (bias, "3 (3)");
  g_assert_cmpfloat (ct_blob_cpu_data (bias, NULL)[2], ==, 2);

  /* Only some legacy fields set: the others are their default 0, as Caffe
   * reads them, so the blob is empty and takes no values. */
  proto.has_height = proto.has_width = FALSE;
  proto.height = proto.width = 0;
  proto.num = 2;
  proto.channels = 5;
  proto.n_data = 0;
  g_assert_true (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_no_error (error);
  ct_test_assert_shape_string (blob, "2 5 0 0 (0)");
}

static void
test_proto_errors (void)
{
  g_autoptr (CtBlob) blob = ct_test_blob_of (2, (gint64) 2, (gint64) 2);
  g_autoptr (GError) error = NULL;
  Caffe__BlobProto proto = CAFFE__BLOB_PROTO__INIT;
  Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;
  int64_t dims[CT_BLOB_MAX_AXES + 1];
  float values[6] = { 1, 2, 3, 4, 5, 6 };
  double doubles[6] = { 1, 2, 3, 4, 5, 6 };
  guint refused = 0;

  ct_test_fill_pattern (blob, 1, 1);
  shape.n_dim = 2;
  shape.dim = dims;
  dims[0] = 2;
  dims[1] = 3;
  proto.shape = &shape;

  /* Too few data values for the shape. */
  proto.n_data = 5;
  proto.data = values;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  refused++;
  /* No data at all for a non-empty shape. */
  proto.n_data = 0;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_clear_error (&error);
  refused++;
  /* Right data, wrong diff count (float, then double). */
  proto.n_data = 6;
  proto.n_diff = 4;
  proto.diff = values;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_assert_nonnull (strstr (error->message, "diff"));
  g_clear_error (&error);
  refused++;
  proto.n_diff = 0;
  proto.n_double_diff = 7;
  proto.double_diff = doubles;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_assert_nonnull (strstr (error->message, "double_diff"));
  g_clear_error (&error);
  refused++;
  proto.n_double_diff = 0;
  /* Wrong double_data count, even with a matching float data. */
  proto.n_double_data = 2;
  proto.double_data = doubles;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_PROTO);
  g_clear_error (&error);
  refused++;
  proto.n_double_data = 0;
  /* Without reshape, the shape must already match. */
  g_assert_false (ct_blob_from_proto (blob, &proto, FALSE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  refused++;
  /* Bad shapes: negative, 33 axes, overflowing, negative legacy. */
  dims[1] = -3;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);
  refused++;
  for (int i = 0; i < CT_BLOB_MAX_AXES + 1; i++)
    dims[i] = 1;
  shape.n_dim = CT_BLOB_MAX_AXES + 1;
  proto.n_data = 1;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);
  refused++;
  shape.n_dim = 3;
  dims[0] = dims[1] = (int64_t) 1 << 31;
  dims[2] = 4;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OVERFLOW);
  g_clear_error (&error);
  refused++;
  proto.shape = NULL;
  proto.has_num = TRUE;
  proto.num = -1;
  g_assert_false (ct_blob_from_proto (blob, &proto, TRUE, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_SHAPE);
  g_clear_error (&error);
  refused++;

  /* After every refusal, the blob is as it was. */
  ct_test_assert_shape_string (blob, "2 2 (4)");
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat (ct_blob_cpu_data (blob, NULL)[i], ==, (float) i);
  g_assert_cmpuint (refused, ==, 10);
}

static Caffe__BlobProto
legacy_proto (int num, int channels, int height, int width)
{
  Caffe__BlobProto proto = CAFFE__BLOB_PROTO__INIT;

  proto.has_num = proto.has_channels = proto.has_height = proto.has_width = TRUE;
  proto.num = num;
  proto.channels = channels;
  proto.height = height;
  proto.width = width;
  return proto;
}

static void
test_shape_equals (void)
{
  g_autoptr (CtBlob) bias = ct_test_blob_of (1, (gint64) 7);
  g_autoptr (CtBlob) weights = ct_test_blob_of (2, (gint64) 10, (gint64) 20);
  g_autoptr (CtBlob) four = ct_test_blob_of (4, (gint64) 2, (gint64) 3, (gint64) 4, (gint64) 5);
  g_autoptr (CtBlob) five = ct_test_blob_of (5, (gint64) 1, (gint64) 1, (gint64) 1, (gint64) 1, (gint64) 7);
  g_autoptr (CtBlob) scalar = ct_blob_new ();
  Caffe__BlobProto proto;
  Caffe__BlobShape shape = CAFFE__BLOB_SHAPE__INIT;
  int64_t dims[3] = { 10, 20, 1 };

  /* Legacy protos compare as 4-D, missing leading axes 1. */
  proto = legacy_proto (1, 1, 1, 7);
  g_assert_true (ct_blob_shape_equals (bias, &proto));
  g_assert_false (ct_blob_shape_equals (five, &proto)); /* more than 4 axes */
  proto = legacy_proto (7, 1, 1, 1);
  g_assert_false (ct_blob_shape_equals (bias, &proto));
  proto = legacy_proto (1, 1, 10, 20);
  g_assert_true (ct_blob_shape_equals (weights, &proto));
  proto = legacy_proto (10, 20, 1, 1);
  g_assert_false (ct_blob_shape_equals (weights, &proto));
  proto = legacy_proto (2, 3, 4, 5);
  g_assert_true (ct_blob_shape_equals (four, &proto));
  proto = legacy_proto (2, 3, 5, 4);
  g_assert_false (ct_blob_shape_equals (four, &proto));
  /* One legacy field set: the others are 0, and 0 is not the padding 1. */
  proto = (Caffe__BlobProto) CAFFE__BLOB_PROTO__INIT;
  proto.has_width = TRUE;
  proto.width = 7;
  g_assert_false (ct_blob_shape_equals (bias, &proto));
  /* A legacy field wins over `shape`. */
  proto = legacy_proto (1, 1, 10, 20);
  shape.n_dim = 3;
  shape.dim = dims;
  proto.shape = &shape;
  g_assert_true (ct_blob_shape_equals (weights, &proto));

  /* N-D protos compare exactly: no padding, same number of axes. */
  proto = (Caffe__BlobProto) CAFFE__BLOB_PROTO__INIT;
  proto.shape = &shape;
  g_assert_false (ct_blob_shape_equals (weights, &proto)); /* 10 20 1 */
  shape.n_dim = 2;
  g_assert_true (ct_blob_shape_equals (weights, &proto)); /* 10 20 */
  dims[0] = 20;
  dims[1] = 10;
  g_assert_false (ct_blob_shape_equals (weights, &proto));
  shape.n_dim = 1;
  dims[0] = 7;
  g_assert_true (ct_blob_shape_equals (bias, &proto));
  /* No shape at all: only a blob without axes. */
  proto.shape = NULL;
  g_assert_true (ct_blob_shape_equals (scalar, &proto));
  g_assert_false (ct_blob_shape_equals (bias, &proto));
}

/* Every parameter blob of the reference caffemodels in tests/data (the
 * trained Fashion-MNIST LeNet, and the freshly filled layer zoo): load,
 * compare values, write back, load again. Returns the blob count. */
static guint
check_caffemodel (const char *name, gint64 *parameters)
{
  const char *data_dir = g_getenv ("CT_TEST_DATA");
  g_autofree char *path = NULL;
  g_autofree char *bytes = NULL;
  g_autoptr (GError) error = NULL;
  gsize length;
  Caffe__NetParameter *net;
  guint blobs = 0;

  g_assert_nonnull (data_dir);
  path = g_build_filename (data_dir, "reference", name, NULL);
  g_assert_true (g_file_get_contents (path, &bytes, &length, &error));
  g_assert_no_error (error);
  net = caffe__net_parameter__unpack (NULL, length, (const guint8 *) bytes);
  g_assert_nonnull (net);

  *parameters = 0;
  for (gsize l = 0; l < net->n_layer; l++)
    for (gsize b = 0; b < net->layer[l]->n_blobs; b++)
      {
        const Caffe__BlobProto *proto = net->layer[l]->blobs[b];
        g_autoptr (CtBlob) blob = ct_blob_new ();
        g_autoptr (CtBlob) again = ct_blob_new ();
        g_autofree char *shape = NULL;
        Caffe__BlobProto *written;

        g_assert_true (ct_blob_from_proto (blob, proto, TRUE, &error));
        g_assert_no_error (error);
        g_assert_true (ct_blob_shape_equals (blob, proto));
        shape = ct_blob_shape_string (blob);
        g_test_message ("%s: %s blob %" G_GSIZE_FORMAT ": %s", name, net->layer[l]->name, b, shape);
        g_assert_cmpuint (proto->n_data, ==, (gsize) ct_blob_count (blob));
        g_assert_cmpint (memcmp (ct_blob_cpu_data (blob, NULL), proto->data,
                                 proto->n_data * sizeof (float)), ==, 0);

        written = ct_blob_to_proto (blob, CT_BLOB_PROTO_DEFAULT, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (written->n_data, ==, proto->n_data);
        g_assert_cmpint (memcmp (written->data, proto->data, proto->n_data * sizeof (float)), ==, 0);
        g_assert_true (ct_blob_from_proto (again, written, TRUE, &error));
        g_assert_no_error (error);
        g_assert_true (ct_blob_shape_equals (again, proto));
        free_proto (written);
        *parameters += ct_blob_count (blob);
        blobs++;
      }
  protobuf_c_message_free_unpacked ((ProtobufCMessage *) net, NULL);
  g_test_message ("%s: %u parameter blobs, %" G_GINT64_FORMAT " parameters",
                  name, blobs, *parameters);
  return blobs;
}

static void
test_reference_caffemodels (void)
{
  gint64 parameters;

  /* conv1, conv2, ip1, ip2: a weight and a bias each. */
  g_assert_cmpuint (check_caffemodel ("fashion_lenet_iter_10000.caffemodel", &parameters), ==, 8);
  g_assert_cmpint (parameters, ==, 431080);
  g_assert_cmpuint (check_caffemodel ("layer_zoo_seed1701_init.caffemodel", &parameters), ==, 22);
  g_assert_cmpint (parameters, ==, 2614);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/blob/proto-float", test_proto_float);
  g_test_add_func ("/engine/blob/proto-double", test_proto_double);
  g_test_add_func ("/engine/blob/proto-scalar", test_proto_scalar);
  g_test_add_func ("/engine/blob/proto-legacy", test_proto_legacy);
  g_test_add_func ("/engine/blob/proto-errors", test_proto_errors);
  g_test_add_func ("/engine/blob/shape-equals", test_shape_equals);
  g_test_add_func ("/engine/blob/reference-caffemodels", test_reference_caffemodels);
  return g_test_run ();
}
