/* test-binary-io.c: binary model files: round trips of every kind, the
 * reference LeNet caffemodel trained by real Caffe, and every way a file
 * can be broken (cut short anywhere, random bytes, wrong wire types,
 * empty, over 2 GiB), plus atomic saves that never lose the old file. */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "atomic-write.h"
#include "binary-io.h"
#include "caffe.pb-c.h"
#include "proto-error.h"
#include "text-format.h"
#include "test-files.h"

static char *
data_path (const char *relative)
{
  const char *dir = g_getenv ("CT_TEST_DATA");

  g_assert_nonnull (dir);
  return g_build_filename (dir, relative, NULL);
}

static GBytes *
pack (const ProtobufCMessage *msg)
{
  gsize size = protobuf_c_message_get_packed_size (msg);
  guint8 *buf = g_malloc (MAX (size, 1));

  protobuf_c_message_pack (msg, buf);
  return g_bytes_new_take (buf, size);
}

static char *
make_temp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ct-binary-io-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static guint
count_dir_entries (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static ProtobufCMessage *
parse_text (const ProtobufCMessageDescriptor *desc, const char *text, CtTextFlags flags)
{
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (desc, text, -1, "test", flags, &error);

  g_assert_no_error (error);
  return msg;
}

/* Writes MSG to a file, reads it back as DESC and checks the bytes agree. */
static void
assert_round_trip (const ProtobufCMessage *msg, const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) before = pack (msg);
  g_autoptr(GBytes) after = NULL;
  ProtobufCMessage *back;

  g_assert_true (ct_binary_write_file (msg, path, &error));
  g_assert_no_error (error);
  back = ct_binary_read_file (msg->descriptor, path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  after = pack (back);
  g_assert_true (g_bytes_equal (before, after));
  protobuf_c_message_free_unpacked (back, NULL);
}

static void
test_round_trip (void)
{
  g_autofree char *dir = make_temp_dir ();
  ProtobufCMessage *net, *blob, *legacy_blob, *state;

  net = parse_text (&caffe__net_parameter__descriptor,
                    "name: 'tiny'\n"
                    "layer { name: 'ip' type: 'InnerProduct' bottom: 'x' top: 'y'\n"
                    "  param { lr_mult: 1 } param { lr_mult: 2 decay_mult: 0 }\n"
                    "  blobs { shape { dim: 2 dim: 3 } data: [1, -2.5, 3e-8, inf, -0, 6] }\n"
                    "  blobs { shape { dim: 2 } data: [0.5, 0.25] }\n"
                    "  inner_product_param { num_output: 2 } }\n", CT_TEXT_STRICT);
  blob = parse_text (&caffe__blob_proto__descriptor,
                     "shape { dim: 1 dim: 3 dim: 2 dim: 2 }\n"
                     "data: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n"
                     "diff: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]\n", CT_TEXT_STRICT);
  legacy_blob = parse_text (&caffe__blob_proto__descriptor,
                            "num: 1 channels: 2 height: 1 width: 1\n"
                            "double_data: [1e-300, 2] double_diff: [3, 4]\n", CT_TEXT_STRICT);
  state = parse_text (&caffe__solver_state__descriptor,
                      "iter: 10000 learned_net: 'lenet_iter_10000.caffemodel'\n"
                      "current_step: 2\n"
                      "history { shape { dim: 20 dim: 1 dim: 5 dim: 5 } }\n"
                      "history { shape { dim: 20 } data: [0.125] }\n", CT_TEXT_STRICT);

  assert_round_trip (net, dir, "tiny.caffemodel");
  assert_round_trip (blob, dir, "mean.binaryproto");
  assert_round_trip (legacy_blob, dir, "legacy.binaryproto");
  assert_round_trip (state, dir, "tiny.solverstate");
  /* writing over an existing file leaves one file, no temporaries */
  assert_round_trip (net, dir, "tiny.caffemodel");
  g_assert_cmpuint (count_dir_entries (dir), ==, 4);

  protobuf_c_message_free_unpacked (net, NULL);
  protobuf_c_message_free_unpacked (blob, NULL);
  protobuf_c_message_free_unpacked (legacy_blob, NULL);
  protobuf_c_message_free_unpacked (state, NULL);
  ct_test_remove_tree (dir);
}

/* Kept prototxt text is not written, and the caller's message keeps it. */
static void
test_write_strips_kept_text (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "kept.caffemodel", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) expected = NULL, got = NULL;
  ProtobufCMessage *lenient, *strict, *back;

  lenient = parse_text (&caffe__net_parameter__descriptor,
                        "name: 'k' layer { name: 'p' type: 'Pooling'\n"
                        "  pooling_param { pool: MAX ceil_mode: true } prior_box_param { a: 1 } }\n",
                        CT_TEXT_LENIENT);
  strict = parse_text (&caffe__net_parameter__descriptor,
                       "name: 'k' layer { name: 'p' type: 'Pooling'\n"
                       "  pooling_param { pool: MAX } }\n", CT_TEXT_STRICT);
  g_assert_true (ct_text_has_unknown (lenient));

  g_assert_true (ct_binary_write_file (lenient, path, &error));
  g_assert_no_error (error);
  g_assert_true (ct_text_has_unknown (lenient));

  back = ct_binary_read_file (&caffe__net_parameter__descriptor, path, &error);
  g_assert_no_error (error);
  g_assert_false (ct_text_has_unknown (back));
  expected = pack (strict);
  got = pack (back);
  g_assert_true (g_bytes_equal (expected, got));

  protobuf_c_message_free_unpacked (lenient, NULL);
  protobuf_c_message_free_unpacked (strict, NULL);
  protobuf_c_message_free_unpacked (back, NULL);
  ct_test_remove_tree (dir);
}

static const Caffe__LayerParameter *
find_layer (const Caffe__NetParameter *net, const char *name)
{
  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return net->layer[i];
  return NULL;
}

static guint64
blob_count (const Caffe__BlobProto *blob)
{
  guint64 count = 1;

  g_assert_nonnull (blob->shape);
  for (gsize i = 0; i < blob->shape->n_dim; i++)
    count *= (guint64) blob->shape->dim[i];
  return count;
}

/* The LeNet that real Caffe trained on Fashion-MNIST. */
static void
test_reference_caffemodel (void)
{
  static const struct {
    const char *name;
    const char *type;
    gint64 shapes[2][4];
    guint n_dims[2];
  } expected[] = {
    { "mnist", "Data", { { 0 } }, { 0, 0 } },
    { "conv1", "Convolution", { { 20, 1, 5, 5 }, { 20 } }, { 4, 1 } },
    { "pool1", "Pooling", { { 0 } }, { 0, 0 } },
    { "conv2", "Convolution", { { 50, 20, 5, 5 }, { 50 } }, { 4, 1 } },
    { "pool2", "Pooling", { { 0 } }, { 0, 0 } },
    { "ip1", "InnerProduct", { { 500, 800 }, { 500 } }, { 2, 1 } },
    { "relu1", "ReLU", { { 0 } }, { 0, 0 } },
    { "ip2", "InnerProduct", { { 10, 500 }, { 10 } }, { 2, 1 } },
    { "loss", "SoftmaxWithLoss", { { 0 } }, { 0, 0 } },
  };
  g_autofree char *path = data_path ("reference/fashion_lenet_iter_10000.caffemodel");
  g_autoptr(GError) error = NULL;
  Caffe__NetParameter *net;
  guint64 total = 0;

  net = (Caffe__NetParameter *) ct_binary_read_file (&caffe__net_parameter__descriptor,
                                                     path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (net->name, ==, "LeNet");
  g_assert_cmpuint (net->n_layer, ==, G_N_ELEMENTS (expected));
  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const Caffe__LayerParameter *layer = find_layer (net, expected[i].name);
      guint n_blobs = expected[i].n_dims[0] > 0 ? 2 : 0;

      if (layer == NULL)
        g_error ("no layer '%s' in the reference caffemodel", expected[i].name);
      g_assert_cmpstr (layer->type, ==, expected[i].type);
      g_assert_cmpuint (layer->n_blobs, ==, n_blobs);
      for (guint b = 0; b < n_blobs; b++)
        {
          const Caffe__BlobProto *blob = layer->blobs[b];

          g_assert_cmpuint (blob->shape->n_dim, ==, expected[i].n_dims[b]);
          for (guint d = 0; d < expected[i].n_dims[b]; d++)
            g_assert_cmpint (blob->shape->dim[d], ==, expected[i].shapes[b][d]);
          g_assert_cmpuint (blob->n_data, ==, blob_count (blob));
          total += blob->n_data;
        }
    }
  g_assert_cmpuint (total, ==, 431080);
  protobuf_c_message_free_unpacked (&net->base, NULL);
}

/* Offsets where a top-level NetParameter field starts: cutting there
 * leaves a shorter but valid message, as protobuf cannot tell otherwise. */
static GHashTable *
top_level_boundaries (const guint8 *data, gsize length)
{
  GHashTable *set = g_hash_table_new (NULL, NULL);
  gsize pos = 0;

  g_hash_table_add (set, GSIZE_TO_POINTER (0));
  while (pos < length)
    {
      guint64 key = 0, len = 0;
      guint shift = 0;

      do
        key |= (guint64) (data[pos] & 0x7f) << shift, shift += 7;
      while (data[pos++] & 0x80);
      g_assert_cmpuint (key & 7, ==, 2); /* a caffemodel's top level: name and layers */
      shift = 0;
      do
        len |= (guint64) (data[pos] & 0x7f) << shift, shift += 7;
      while (data[pos++] & 0x80);
      pos += len;
      g_hash_table_add (set, GSIZE_TO_POINTER (pos));
    }
  return set;
}

static void
test_truncated (void)
{
  g_autofree char *path = data_path ("reference/fashion_lenet_iter_10000.caffemodel");
  g_autofree char *contents = NULL;
  g_autoptr(GHashTable) boundaries = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *cuts = g_ptr_array_new ();
  guint n_failed = 0, n_valid = 0, n_deep = 0;
  gsize length;

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  boundaries = top_level_boundaries ((const guint8 *) contents, length);

  /* every cut in the first 4 KiB and the last 512 bytes, 2000 in between */
  for (gsize cut = 1; cut < 4096; cut++)
    g_ptr_array_add (cuts, GSIZE_TO_POINTER (cut));
  for (gsize i = 0; i < 2000; i++)
    g_ptr_array_add (cuts, GSIZE_TO_POINTER (4096 + i * ((length - 4608) / 2000)));
  for (gsize cut = length - 512; cut < length; cut++)
    g_ptr_array_add (cuts, GSIZE_TO_POINTER (cut));

  for (guint i = 0; i < cuts->len; i++)
    {
      gsize cut = GPOINTER_TO_SIZE (g_ptr_array_index (cuts, i));
      g_autofree char *expected = g_strdup_printf ("cut: truncated at byte %lu while reading ",
                                                   (unsigned long) cut);
      ProtobufCMessage *msg;

      msg = ct_binary_parse (&caffe__net_parameter__descriptor, (const guint8 *) contents,
                             cut, "cut", &error);
      if (msg != NULL)
        {
          g_assert_true (g_hash_table_contains (boundaries, GSIZE_TO_POINTER (cut)));
          protobuf_c_message_free_unpacked (msg, NULL);
          n_valid++;
          continue;
        }
      g_assert_false (g_hash_table_contains (boundaries, GSIZE_TO_POINTER (cut)));
      g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT);
      if (!g_str_has_prefix (error->message, expected))
        g_error ("cut at %lu: %s", (unsigned long) cut, error->message);
      if (strstr (error->message, "of BlobProto") != NULL ||
          strstr (error->message, "of BlobShape") != NULL)
        n_deep++;
      if (i == 100 || i == 5000)
        g_test_message ("%s", error->message);
      g_clear_error (&error);
      n_failed++;
    }
  g_test_message ("%u cut points: %u truncated (%u inside a blob), %u at field boundaries",
                  cuts->len, n_failed, n_deep, n_valid);
  g_assert_cmpuint (cuts->len, ==, 4095 + 2000 + 512);
  g_assert_cmpuint (n_failed + n_valid, ==, cuts->len);
  g_assert_cmpuint (n_valid, <=, 12);
  g_assert_cmpuint (n_deep, >, 5000);
  g_ptr_array_unref (cuts);
}

typedef struct {
  const char *what;
  const char *bytes;
  gsize length;
  const ProtobufCMessageDescriptor *desc;
  const char *message; /* expected error, after "bad: " */
} Malformed;

#define B(s) s, sizeof s - 1

static void
test_malformed (void)
{
  const Malformed cases[] = {
    { "wire type 7", B ("\x0f\x01"), &caffe__net_parameter__descriptor,
      "not a protobuf file (bad wire type 7 at byte 0)" },
    { "wire type 6", B ("\x0e"), &caffe__blob_proto__descriptor,
      "not a protobuf file (bad wire type 6 at byte 0)" },
    { "prototxt", B ("name: \"LeNet\"\nlayer {\n"), &caffe__net_parameter__descriptor,
      "not a protobuf file (bad wire type 6 at byte 0); it looks like text" },
    { "group", B ("\x0b\x0c"), &caffe__net_parameter__descriptor,
      "not a protobuf file (unsupported group wire type 3 at byte 0)" },
    { "field 0", B ("\x02\x00"), &caffe__net_parameter__descriptor,
      "not a protobuf file (bad field number 0 at byte 0)" },
    { "later bad wire type", B ("\x0a\x01x\x0f"), &caffe__net_parameter__descriptor,
      "corrupt data at byte 3: bad wire type 7" },
    { "string as varint", B ("\x08\x01"), &caffe__net_parameter__descriptor,
      "not a protobuf file (field 'name' of NetParameter has wire type varint, "
      "expected length-delimited at byte 0)" },
    { "float as varint", B ("\x0a\x00\x25\x01\x02"), &caffe__net_parameter__descriptor,
      "corrupt data at byte 2: field 'input_dim' of NetParameter has wire type 32-bit, "
      "expected varint" },
    { "cut string", B ("\x0a\x05" "ab"), &caffe__net_parameter__descriptor,
      "truncated at byte 4 while reading field 'name' of NetParameter" },
    { "cut tag", B ("\x0a\x01x\xa2"), &caffe__net_parameter__descriptor,
      "truncated at byte 4 while reading a field tag of NetParameter" },
    { "cut varint", B ("\x20\x80\x80"), &caffe__net_parameter__descriptor,
      "truncated at byte 3 while reading field 'input_dim' of NetParameter" },
    { "cut fixed32", B ("\x7d\x01\x02"), &caffe__blob_proto__descriptor,
      "truncated at byte 3 while reading unknown field 15 of BlobProto" },
    { "cut double", B ("\x41\x01\x02\x03"), &caffe__blob_proto__descriptor,
      "truncated at byte 4 while reading field 'double_data' of BlobProto" },
    { "cut length", B ("\x2a\x80"), &caffe__blob_proto__descriptor,
      "truncated at byte 2 while reading field 'data' of BlobProto" },
    { "varint 11 bytes", B ("\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
      &caffe__net_parameter__descriptor,
      "corrupt data at byte 1: varint longer than 10 bytes in field 'input_dim'" },
    { "tag 6 bytes", B ("\xff\xff\xff\xff\xff\x01"), &caffe__net_parameter__descriptor,
      "not a protobuf file (field tag longer than 5 bytes at byte 0)" },
    { "length 6 bytes", B ("\x0a\xff\xff\xff\xff\xff\x01"), &caffe__net_parameter__descriptor,
      "corrupt data at byte 1: length prefix longer than 5 bytes" },
    { "length over 2 GiB", B ("\x0a\xff\xff\xff\xff\x0f"), &caffe__net_parameter__descriptor,
      "corrupt data at byte 1: length 4294967295 over 2 GiB" },
    { "packed floats, 3 bytes", B ("\x2a\x03" "abc"), &caffe__blob_proto__descriptor,
      "corrupt data at byte 2: packed field 'data' of BlobProto holds 3 bytes, "
      "not a multiple of 4" },
    { "packed doubles, 12 bytes", B ("\x42\x0c" "abcdefghijkl"), &caffe__blob_proto__descriptor,
      "corrupt data at byte 2: packed field 'double_data' of BlobProto holds 12 bytes, "
      "not a multiple of 8" },
    { "packed varints, cut", B ("\x22\x02\x01\x80"), &caffe__net_parameter__descriptor,
      "corrupt data at byte 3: bad varint in packed field 'input_dim' of NetParameter" },
    /* Found by fuzz-binary: protobuf-c scans packed bools as varints too. */
    { "packed bools, cut", B ("\xa2\x06\x04\x5a\x02\x01\x80"),
      &caffe__net_parameter__descriptor,
      "corrupt data at byte 6: bad varint in packed field 'propagate_down' of LayerParameter" },
    { "packed doubles, cut", B ("\x42\x08" "abcd"), &caffe__blob_proto__descriptor,
      "truncated at byte 6 while reading field 'double_data' of BlobProto" },
    { "inner field past its message", B ("\xa2\x06\x02\x3a\x05\x0a\x00\x0a\x00"),
      &caffe__net_parameter__descriptor,
      "corrupt data at byte 5: field 'blobs' of LayerParameter runs past the end of its "
      "enclosing message" },
    { "inner field cut", B ("\xa2\x06\x09\x3a\x07\x3a\x05\x0a\x03\x08"),
      &caffe__net_parameter__descriptor,
      "truncated at byte 10 while reading field 'dim' of BlobShape" },
    { "cut nested varint", B ("\xa2\x06\x04\x3a\x02\x08\x81"), &caffe__net_parameter__descriptor,
      "truncated at byte 7 while reading field 'num' of BlobProto" },
    { "blob num as string", B ("\xa2\x06\x05\x3a\x03\x0a\x01\x00"),
      &caffe__net_parameter__descriptor,
      "corrupt data at byte 5: field 'num' of BlobProto has wire type length-delimited, "
      "expected varint" },
  };
  guint n_checked = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *expected = g_strconcat ("bad: ", cases[i].message, NULL);
      ProtobufCMessage *msg;

      msg = ct_binary_parse (cases[i].desc, (const guint8 *) cases[i].bytes, cases[i].length,
                             "bad", &error);
      if (msg != NULL)
        g_error ("case '%s' parsed", cases[i].what);
      g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT);
      if (!g_str_has_prefix (error->message, expected))
        g_error ("case '%s':\n  got      %s\n  expected %s…", cases[i].what,
                 error->message, expected);
      /* protobuf-c agrees that these are broken */
      msg = protobuf_c_message_unpack (cases[i].desc, NULL, cases[i].length,
                                       (const guint8 *) cases[i].bytes);
      if (msg != NULL)
        g_error ("case '%s': protobuf-c accepts it", cases[i].what);
      n_checked++;
    }
  g_test_message ("%u malformed inputs, each with its message", n_checked);
  g_assert_cmpuint (n_checked, ==, 27);
}

/* Random bytes never crash, and we reject exactly what protobuf-c rejects
 * (within the few stricter rules documented in binary-io.c). */
static void
test_random_bytes (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (1701);
  const ProtobufCMessageDescriptor *descs[] = {
    &caffe__net_parameter__descriptor, &caffe__blob_proto__descriptor,
    &caffe__solver_state__descriptor,
  };
  guint n_rejected = 0, n_accepted = 0, n_stricter = 0;
  guint8 buf[512];

  for (guint round = 0; round < 20000; round++)
    {
      gsize length = g_rand_int_range (rand, 1, sizeof buf);
      const ProtobufCMessageDescriptor *desc = descs[round % G_N_ELEMENTS (descs)];
      g_autoptr(GError) error = NULL;
      ProtobufCMessage *ours, *theirs;

      for (gsize i = 0; i < length; i++)
        buf[i] = (guint8) g_rand_int (rand);
      /* a third of the rounds start from a plausible field, to get deeper */
      if (round % 3 == 0)
        buf[0] = 0x3a;

      ours = ct_binary_parse (desc, buf, length, "random", &error);
      theirs = protobuf_c_message_unpack (desc, NULL, length, buf);
      if (ours != NULL)
        {
          g_assert_nonnull (theirs);
          n_accepted++;
        }
      else
        {
          g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT);
          g_assert_true (g_str_has_prefix (error->message, "random: "));
          if (theirs != NULL)
            {
              g_test_message ("rejected only by us: %s", error->message);
              n_stricter++;
            }
          n_rejected++;
        }
      protobuf_c_message_free_unpacked (ours, NULL);
      protobuf_c_message_free_unpacked (theirs, NULL);
    }
  g_test_message ("20000 random inputs: %u rejected, %u accepted, %u rejected only by us",
                  n_rejected, n_accepted, n_stricter);
  g_assert_cmpuint (n_rejected + n_accepted, ==, 20000);
  g_assert_cmpuint (n_rejected, >, 15000);
  /* we are stricter only on field numbers 0 and over 2^29 - 1, and on bools
   * sent with another wire type than varint */
  g_assert_cmpuint (n_stricter, <, n_rejected / 100);
}

static void
test_empty_and_missing (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *empty = g_build_filename (dir, "empty.caffemodel", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.caffemodel", NULL);
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg;

  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  msg = ct_binary_read_file (&caffe__net_parameter__descriptor, empty, &error);
  g_assert_null (msg);
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "empty.caffemodel: the file is empty"));
  g_clear_error (&error);

  msg = ct_binary_read_file (&caffe__net_parameter__descriptor, missing, &error);
  g_assert_null (msg);
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, missing));
  g_clear_error (&error);

  msg = ct_binary_read_file (&caffe__net_parameter__descriptor, dir, &error);
  g_assert_null (msg);
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO);
  g_clear_error (&error);

  /* no bytes at all is a valid empty message in memory */
  msg = ct_binary_parse (&caffe__blob_proto__descriptor, NULL, 0, "none", &error);
  g_assert_no_error (error);
  g_assert_nonnull (msg);
  protobuf_c_message_free_unpacked (msg, NULL);
  ct_test_remove_tree (dir);
}

/* A sparse 3 GiB file: only its size is looked at, nothing is read. */
static void
test_too_large (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "huge.caffemodel", NULL);
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg;

  g_assert_true (g_file_set_contents (path, "\x0a\x01x", 3, NULL));
  if (truncate (path, (off_t) 3 << 30) != 0)
    {
      g_test_skip ("cannot make a sparse 3 GiB file here");
      ct_test_remove_tree (dir);
      return;
    }
  msg = ct_binary_read_file (&caffe__net_parameter__descriptor, path, &error);
  g_assert_null (msg);
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_TOO_LARGE);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_suffix (error->message,
                                   "huge.caffemodel: 3.0 GiB is larger than the 2 GiB a model "
                                   "file may hold"));
  ct_test_remove_tree (dir);
}

/* A save that fails leaves the old file as it was. */
static void
test_atomic_write_failure (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *sub = g_build_filename (dir, "models", NULL);
  g_autofree char *path = g_build_filename (sub, "net.caffemodel", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *net;

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, "old contents", -1, NULL));
  net = parse_text (&caffe__net_parameter__descriptor, "name: 'new'", CT_TEXT_STRICT);

  if (geteuid () != 0)
    {
      /* no temporary file can be made next to the target */
      g_assert_cmpint (g_chmod (sub, 0555), ==, 0);
      g_assert_false (ct_binary_write_file (net, path, &error));
      g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, path));
      g_clear_error (&error);
      g_assert_cmpint (g_chmod (sub, 0755), ==, 0);
    }
  else
    {
      /* root may write anywhere: a folder that does not exist fails too */
      g_autofree char *nowhere = g_build_filename (dir, "missing", "net.caffemodel", NULL);
      g_assert_false (ct_binary_write_file (net, nowhere, &error));
      g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO);
      g_clear_error (&error);
      /* and a target that is a folder is refused before anything is written */
      g_assert_false (ct_binary_write_file (net, sub, &error));
      g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO);
      g_clear_error (&error);
    }
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "old contents");
  g_assert_cmpuint (count_dir_entries (sub), ==, 1);

  protobuf_c_message_free_unpacked (net, NULL);
  ct_test_remove_tree (dir);
}

/* Replacing a file keeps its permissions and writes through symlinks. */
static void
test_atomic_write_keeps_mode (void)
{
  g_autofree char *dir = make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "net.prototxt", NULL);
  g_autofree char *link = g_build_filename (dir, "link.prototxt", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;

  g_assert_true (g_file_set_contents (path, "a", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0640), ==, 0);
  g_assert_cmpint (symlink ("net.prototxt", link), ==, 0);

  g_assert_true (ct_file_write_atomic (link, "bb", 2, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "bb");
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);
  g_assert_cmpuint (count_dir_entries (dir), ==, 2);
  ct_test_remove_tree (dir);
}

/* Names in DIR other than NAME itself. */
static guint
count_others (const char *dir, const char *name)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *entry;
  guint n = 0;

  while ((entry = g_dir_read_name (d)) != NULL)
    n += strcmp (entry, name) != 0;
  return n;
}

/* A save killed (SIGKILL) at any moment leaves the old file whole and no
 * temporary file: the bytes go to an unnamed file until the rename. The
 * writer is a forked child killed 1 to 40 ms into a 24 MB save. */
static void
test_atomic_write_killed (void)
{
  g_autofree char *dir = ct_test_tmpdir_make ("ct-atomic-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "big.caffemodel", NULL);
  const gsize size = 24 << 20;
  g_autofree guint8 *data = g_malloc (size);
  g_autoptr (GError) error = NULL;
  g_autofree char *old = NULL;
  gsize old_length = 0;
  guint done = 0;

  memset (data, 0x5a, size);
  g_assert_true (ct_file_write_atomic (path, "old", 3, &error));
  for (guint k = 0; k < 10; k++)
    {
      pid_t child = fork ();
      int status;

      g_assert_cmpint (child, >=, 0);
      if (child == 0)
        _exit (ct_file_write_atomic (path, data, size, NULL) ? 0 : 1);
      g_usleep (1000 + 4000 * k);
      kill (child, SIGKILL);
      g_assert_cmpint (waitpid (child, &status, 0), ==, child);
      done += WIFEXITED (status);
      g_assert_cmpuint (count_others (dir, "big.caffemodel"), ==, 0);
      g_assert_true (g_file_get_contents (path, &old, &old_length, NULL));
      g_assert_true (old_length == 3 || old_length == size);
      g_clear_pointer (&old, g_free);
    }
  g_test_message ("%u of 10 saves finished before the kill", done);
  ct_test_remove_tree (dir);
}

/* Temporaries of an earlier save that died between the link and the
 * rename (NAME.XXXXXX in hexadecimal, older than a minute) go with the
 * next save of NAME; others stay: a fresh one may be another save's, and
 * NAME.backup or GLib's NAME.ZE6OZ3 may be a user's. */
static void
test_atomic_write_removes_stale (void)
{
  g_autofree char *dir = ct_test_tmpdir_make ("ct-atomic-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "lenet_iter_100.solverstate", NULL);
  g_autofree char *stale = g_strconcat (path, ".D2F7A1", NULL);
  g_autofree char *fresh = g_strconcat (path, ".0B12CD", NULL);
  g_autofree char *backup = g_strconcat (path, ".backup", NULL);
  g_autofree char *glib = g_strconcat (path, ".ZE6OZ3", NULL);
  g_autofree char *other = g_build_filename (dir, "notes.txt.D2F7A1", NULL);
  g_autoptr (GError) error = NULL;
  struct utimbuf hour_ago = { time (NULL) - 3600, time (NULL) - 3600 };

  for (const char *const *f = (const char *const[]) { stale, fresh, backup, glib, other, NULL };
       *f; f++)
    g_assert_true (g_file_set_contents (*f, "x", 1, NULL));
  for (const char *const *f = (const char *const[]) { stale, backup, glib, other, NULL }; *f; f++)
    g_assert_cmpint (g_utime (*f, &hour_ago), ==, 0);
  g_assert_true (ct_file_write_atomic (path, "state", 5, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  for (const char *const *f = (const char *const[]) { fresh, backup, glib, other, NULL }; *f; f++)
    g_assert_true (g_file_test (*f, G_FILE_TEST_EXISTS));
  g_assert_true (ct_file_is_stale_temporary ("a.caffemodel.ZE6OZ3", "a.caffemodel"));
  g_assert_false (ct_file_is_stale_temporary ("a.caffemodel.ZE6-Z3", "a.caffemodel"));
  ct_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/proto/binary-io/round-trip", test_round_trip);
  g_test_add_func ("/proto/binary-io/write-strips-kept-text", test_write_strips_kept_text);
  g_test_add_func ("/proto/binary-io/reference-caffemodel", test_reference_caffemodel);
  g_test_add_func ("/proto/binary-io/truncated", test_truncated);
  g_test_add_func ("/proto/binary-io/malformed", test_malformed);
  g_test_add_func ("/proto/binary-io/random-bytes", test_random_bytes);
  g_test_add_func ("/proto/binary-io/empty-and-missing", test_empty_and_missing);
  g_test_add_func ("/proto/binary-io/too-large", test_too_large);
  g_test_add_func ("/proto/binary-io/atomic-write-failure", test_atomic_write_failure);
  g_test_add_func ("/proto/binary-io/atomic-write-keeps-mode", test_atomic_write_keeps_mode);
  g_test_add_func ("/proto/binary-io/atomic-write-killed", test_atomic_write_killed);
  g_test_add_func ("/proto/binary-io/atomic-write-removes-stale", test_atomic_write_removes_stale);

  return g_test_run ();
}
