/* test-reflect.c: the protobuf-c reflection helpers (proto/reflect.h) that
 * the text format, the upgrades and the field paths share: sizes and names
 * of types, presence by label (optional, repeated, required, oneof), and
 * the storage helpers, whose results protobuf_c_message_free_unpacked()
 * must free without a leak or a double free.
 *
 * Uses text-test.proto (every field type, a oneof) and Caffe's
 * ClipParameter (required fields). */
#include <string.h>
#include <glib.h>

#include "caffe.pb-c.h"
#include "reflect.h"
#include "text-format.h"
#include "text-test.pb-c.h"

#define ALL (&cttest__all_types__descriptor)

static const ProtobufCFieldDescriptor *
field (const ProtobufCMessageDescriptor *desc, const char *name)
{
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name (desc, name);

  g_assert_nonnull (f);
  return f;
}

static gsize
count (const Cttest__AllTypes *m, const char *name)
{
  return ct_proto_field_count (&m->base, field (ALL, name));
}

static void
test_types (void)
{
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_INT32), ==, 4);
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_ENUM), ==, sizeof (int));
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_FLOAT), ==, sizeof (float));
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_SFIXED64), ==, 8);
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_DOUBLE), ==, sizeof (double));
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_BOOL), ==, sizeof (protobuf_c_boolean));
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_STRING), ==, sizeof (char *));
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_BYTES), ==, sizeof (ProtobufCBinaryData));
  g_assert_cmpuint (ct_proto_type_size (PROTOBUF_C_TYPE_MESSAGE), ==, sizeof (ProtobufCMessage *));

  g_assert_cmpstr (ct_proto_type_name (PROTOBUF_C_TYPE_SINT64), ==, "sint64");
  g_assert_cmpstr (ct_proto_type_name (PROTOBUF_C_TYPE_FIXED32), ==, "fixed32");
  g_assert_cmpstr (ct_proto_type_name (PROTOBUF_C_TYPE_BYTES), ==, "bytes");
  g_assert_cmpstr (ct_proto_type_name (PROTOBUF_C_TYPE_MESSAGE), ==, "message");
}

static void
test_message_new (void)
{
  Cttest__AllTypes *m = (Cttest__AllTypes *) ct_proto_message_new (ALL);

  g_assert_true (m->base.descriptor == ALL);
  g_assert_cmpint (m->def_i32, ==, 7);
  g_assert_cmpstr (m->def_str, ==, "hello");
  g_assert_cmpint (m->def_colour, ==, CTTEST__COLOUR__BLUE);
  /* defaults are not values: nothing is set */
  for (guint i = 0; i < ALL->n_fields; i++)
    g_assert_false (ct_proto_field_is_set (&m->base, &ALL->fields[i]));
  protobuf_c_message_free_unpacked (&m->base, NULL);
}

static void
test_presence (void)
{
  g_autoptr (GError) error = NULL;
  Cttest__AllTypes *m = (Cttest__AllTypes *) ct_text_parse (
    ALL, "i32: 0 str: 'x' inner { } r_i32: [1, 2, 3] def_str: 'hello' pick_str: 'p'", -1,
    "t", CT_TEXT_STRICT, &error);
  g_autoptr (GError) clip_error = NULL;
  Caffe__ClipParameter *clip = (Caffe__ClipParameter *) ct_text_parse (
    &caffe__clip_parameter__descriptor, "", -1, "t", CT_TEXT_STRICT, &clip_error);

  g_assert_no_error (error);
  g_assert_no_error (clip_error);

  /* an optional scalar set to its default is still set */
  g_assert_cmpuint (count (m, "i32"), ==, 1);
  g_assert_cmpuint (count (m, "i64"), ==, 0);
  g_assert_cmpuint (count (m, "str"), ==, 1);
  /* an empty message is set */
  g_assert_cmpuint (count (m, "inner"), ==, 1);
  g_assert_cmpuint (count (m, "r_i32"), ==, 3);
  g_assert_cmpuint (count (m, "r_str"), ==, 0);
  /* a string given as its default text is a copy, so it is set */
  g_assert_cmpuint (count (m, "def_str"), ==, 1);
  /* a oneof: only the chosen member */
  g_assert_cmpuint (count (m, "pick_str"), ==, 1);
  g_assert_cmpuint (count (m, "pick_int"), ==, 0);
  g_assert_cmpuint (count (m, "pick_msg"), ==, 0);
  g_assert_true (ct_proto_field_is_set (&m->base, field (ALL, "pick_str")));
  g_assert_false (ct_proto_field_is_set (&m->base, field (ALL, "pick_int")));

  /* required scalars have no has_ flag: always there */
  g_assert_cmpuint (ct_proto_field_count (&clip->base,
                                          field (&caffe__clip_parameter__descriptor, "min")),
                    ==, 1);

  protobuf_c_message_free_unpacked (&m->base, NULL);
  protobuf_c_message_free_unpacked (&clip->base, NULL);
}

static void
test_element (void)
{
  g_autoptr (GError) error = NULL;
  Cttest__AllTypes *m = (Cttest__AllTypes *) ct_text_parse (
    ALL, "i64: -9 r_d: [0.5, 1.5] r_str: ['a', 'b']", -1, "t", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  g_assert_cmpint (*(const gint64 *) ct_proto_field_element (&m->base, field (ALL, "i64"), 0),
                   ==, -9);
  g_assert_cmpfloat (*(const double *) ct_proto_field_element (&m->base, field (ALL, "r_d"), 1),
                     ==, 1.5);
  g_assert_cmpstr (*(char *const *) ct_proto_field_element (&m->base, field (ALL, "r_str"), 0),
                   ==, "a");
  g_assert_true (ct_proto_field_member (&m->base, field (ALL, "i64")) == (void *) &m->i64);
  g_assert_true (ct_proto_field_quantifier (&m->base, field (ALL, "r_d")) == (void *) &m->n_r_d);
  protobuf_c_message_free_unpacked (&m->base, NULL);
}

static void
test_storage (void)
{
  Cttest__AllTypes *m = (Cttest__AllTypes *) ct_proto_message_new (ALL);
  const ProtobufCFieldDescriptor *r_str = field (ALL, "r_str");
  const ProtobufCFieldDescriptor *r_by = field (ALL, "r_by");
  const ProtobufCFieldDescriptor *def_str = field (ALL, "def_str");
  const ProtobufCFieldDescriptor *inner = field (ALL, "inner");
  const ProtobufCFieldDescriptor *f = field (ALL, "f");
  const ProtobufCFieldDescriptor *pick_int = field (ALL, "pick_int");
  ProtobufCBinaryData *bytes;
  g_autofree char *printed = NULL;

  /* appended slots come zeroed and counted */
  for (int i = 0; i < 5; i++)
    {
      char **slot = ct_proto_field_append (&m->base, r_str);

      g_assert_null (*slot);
      *slot = g_strdup_printf ("s%d", i);
    }
  g_assert_cmpuint (m->n_r_str, ==, 5);
  g_assert_cmpstr (m->r_str[4], ==, "s4");
  bytes = ct_proto_field_append (&m->base, r_by);
  bytes->data = (guint8 *) g_strdup ("xy");
  bytes->len = 2;

  /* presence: a has_ flag, a oneof case, nothing for strings */
  m->f = 2.5f;
  ct_proto_field_set_present (&m->base, f, TRUE);
  g_assert_true (m->has_f);
  m->pick_int = 4;
  ct_proto_field_set_present (&m->base, pick_int, TRUE);
  g_assert_cmpint (m->choice_case, ==, CTTEST__ALL_TYPES__CHOICE_PICK_INT);
  ct_proto_field_set_present (&m->base, def_str, TRUE);
  g_assert_cmpuint (ct_proto_field_count (&m->base, def_str), ==, 0);

  printed = ct_text_print (&m->base);
  g_assert_cmpstr (printed, ==,
                   "f: 2.5\n"
                   "r_str: \"s0\"\nr_str: \"s1\"\nr_str: \"s2\"\nr_str: \"s3\"\nr_str: \"s4\"\n"
                   "r_by: \"xy\"\n"
                   "pick_int: 4\n");

  ct_proto_field_set_present (&m->base, f, FALSE);
  g_assert_false (m->has_f);
  ct_proto_field_set_present (&m->base, pick_int, FALSE);
  g_assert_cmpint (m->choice_case, ==, CTTEST__ALL_TYPES__CHOICE__NOT_SET);

  /* clearing frees what a value owns, never a static default */
  ct_proto_value_clear (def_str, &m->def_str);
  g_assert_null (m->def_str);
  m->def_str = g_strdup ("mine");
  ct_proto_value_clear (def_str, &m->def_str);
  g_assert_null (m->def_str);
  m->inner = (Cttest__Inner *) ct_proto_message_new (&cttest__inner__descriptor);
  ct_proto_value_clear (inner, &m->inner);
  g_assert_null (m->inner);
  ct_proto_value_clear (r_by, &m->r_by[0]);
  g_assert_null (m->r_by[0].data);
  g_assert_cmpuint (m->r_by[0].len, ==, 0);
  ct_proto_value_clear (r_str, &m->r_str[2]);
  g_assert_null (m->r_str[2]);

  /* what is left is freed as protobuf-c frees an unpacked message */
  protobuf_c_message_free_unpacked (&m->base, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/proto/reflect/types", test_types);
  g_test_add_func ("/proto/reflect/message-new", test_message_new);
  g_test_add_func ("/proto/reflect/presence", test_presence);
  g_test_add_func ("/proto/reflect/element", test_element);
  g_test_add_func ("/proto/reflect/storage", test_storage);
  return g_test_run ();
}
