/* test-text-malformed.c: what the parser says about text it cannot take.
 *
 * A table of malformed inputs, each with the exact "LINE:COLUMN: message"
 * it must produce. Columns count bytes (a tab or each byte of a UTF-8
 * character is one column). Every case must fail cleanly: an error in
 * CT_PROTO_ERROR, no message, no crash, no leak. */
#include <stdio.h>
#include <string.h>

#include "caffe.pb-c.h"
#include "proto-error.h"
#include "text-format.h"
#include "text-test.pb-c.h"

typedef enum {
  ALL,     /* cttest.AllTypes: every field type */
  NET,     /* caffe.NetParameter */
  SOLVER,  /* caffe.SolverParameter */
} Schema;

typedef struct {
  Schema schema;
  const char *input;
  gssize length;        /* -1: NUL-terminated */
  CtTextFlags flags;
  const char *expected; /* "LINE:COLUMN: message", after "t.prototxt:" */
} Case;

#define STRICT CT_TEXT_STRICT
#define LENIENT CT_TEXT_LENIENT

static const Case cases[] = {
  /* strings */
  { NET, "name: \"abc", -1, STRICT, "1:7: unterminated string: reached end of file" },
  { NET, "name: \"ab\ncd\"", -1, STRICT, "1:7: unterminated string: strings cannot span lines" },
  { NET, "name: \"a\\qb\"", -1, STRICT, "1:9: invalid escape sequence '\\q' in string" },
  { ALL, "str: \"\\xZZ\"", -1, STRICT, "1:7: expected hex digits after '\\x' in string" },
  { ALL, "str: \"\\u12\"", -1, STRICT, "1:7: expected four hex digits after '\\u' in string" },
  { ALL, "str: \"\\U00110000\"", -1, STRICT,
    "1:7: expected eight hex digits up to 10ffff after '\\U' in string" },
  { ALL, "str: \"a\\0b\"", -1, STRICT, "1:6: string field 'str' in AllTypes cannot contain a NUL character" },

  /* NUL bytes and stray bytes */
  { NET, "name: \"a\"\n\0layer {}", 19, STRICT, "2:1: NUL byte in input" },
  { NET, "name: \"a\0b\"", 11, STRICT, "1:9: NUL byte in input" },
  { NET, "# comment \0\nname: \"a\"", 21, STRICT, "1:11: NUL byte in input" },
  { ALL, "i32: 5\x01", -1, STRICT, "1:7: invalid control character 0x01" },
  { ALL, "i32: 5 @", -1, STRICT, "1:8: unexpected character '@'" },
  { ALL, "i32: 5 \xc3\xa9", -1, STRICT, "1:8: unexpected byte 0xc3 outside a string" },

  /* unknown fields, in strict mode */
  { NET, "layer {\n  name: \"c\"\n  convolution_param {\n    kernal_size: 3\n  }\n}\n", -1, STRICT,
    "4:5: unknown field 'kernal_size' in ConvolutionParameter" },
  { NET, "layer { pooling_param { ceil_mode: true } }", -1, STRICT,
    "1:25: unknown field 'ceil_mode' in PoolingParameter" },
  { NET, "base_lr: 0.1", -1, STRICT, "1:1: unknown field 'base_lr' in NetParameter" },
  { SOLVER, "base_lr: 0.01 lr_policy: \"step\" gama: 0.1", -1, STRICT,
    "1:33: unknown field 'gama' in SolverParameter" },

  /* wrong kind of value */
  { NET, "layer { convolution_param { num_output: \"x\" } }", -1, STRICT,
    "1:41: expected an integer for uint32 field 'num_output' in ConvolutionParameter, found '\"x\"'" },
  { NET, "layer { convolution_param { num_output { } } }", -1, STRICT,
    "1:40: field 'num_output' in ConvolutionParameter holds a uint32, not a message" },
  { NET, "layer { convolution_param { num_output: { } } }", -1, STRICT,
    "1:41: field 'num_output' in ConvolutionParameter holds a uint32, not a message" },
  { NET, "layer { convolution_param: 5 }", -1, STRICT,
    "1:28: field 'convolution_param' in LayerParameter is a message (ConvolutionParameter): "
    "expected '{', found '5'" },
  { ALL, "i32: 1.5", -1, STRICT, "1:6: expected an integer for int32 field 'i32' in AllTypes, found '1.5'" },
  { ALL, "i32: --1", -1, STRICT, "1:7: expected an integer for int32 field 'i32' in AllTypes, found '-'" },
  { ALL, "str: abc", -1, STRICT,
    "1:6: expected a quoted string for string field 'str' in AllTypes, found 'abc'" },
  { ALL, "f: abc", -1, STRICT, "1:4: expected a number for float field 'f' in AllTypes, found 'abc'" },
  { ALL, "f: 0x10", -1, STRICT,
    "1:4: expected a decimal number for float field 'f' in AllTypes, found '0x10'" },
  { ALL, "colour: \"RED\"", -1, STRICT,
    "1:9: expected an enum value name or number for enum field 'colour' in AllTypes, found '\"RED\"'" },
  { ALL, "i32: [1]", -1, STRICT, "1:6: field 'i32' in AllTypes is not repeated: a [ ] list is not allowed" },
  { ALL, "r_inner: [,]", -1, STRICT,
    "1:11: field 'r_inner' in AllTypes is a message (Inner): expected '{', found ','" },

  /* enums */
  { NET, "layer {\n  pooling_param {\n    pool: MAXX\n  }\n}", -1, STRICT,
    "3:11: invalid value 'MAXX' for enum field 'pool' in PoolingParameter" },
  { NET, "layer { pooling_param { pool: 7 } }", -1, STRICT,
    "1:31: invalid value '7' for enum field 'pool' in PoolingParameter" },
  { ALL, "colour: -7", -1, STRICT, "1:9: invalid value '-7' for enum field 'colour' in AllTypes" },
  { ALL, "r_colour: [RED, PURPLE]", -1, STRICT,
    "1:17: invalid value 'PURPLE' for enum field 'r_colour' in AllTypes" },

  /* bools */
  { ALL, "b: maybe", -1, STRICT, "1:4: invalid value 'maybe' for bool field 'b' in AllTypes (expected true or false)" },
  { ALL, "b: 2", -1, STRICT, "1:4: invalid value '2' for bool field 'b' in AllTypes (expected true or false)" },
  { ALL, "b: -1", -1, STRICT, "1:4: invalid value '-' for bool field 'b' in AllTypes (expected true or false)" },

  /* braces, lists, separators */
  { NET, "name: \"n\"\nlayer {\n  name: \"a\"\n", -1, STRICT,
    "4:1: expected '}' to close 'layer' (opened at 2:1) but reached end of file" },
  { NET, "name: \"a\" }", -1, STRICT, "1:11: unexpected '}' in NetParameter: no message is open" },
  { ALL, "inner < a: 1 }", -1, STRICT, "1:14: expected '>' to close 'inner' (opened at 1:1) but found '}'" },
  { ALL, "r_i32: [1, 2", -1, STRICT,
    "1:13: expected ']' to close the list of field 'r_i32' in AllTypes (opened at 1:8) but reached end of file" },
  { ALL, "r_i32: [1 2]", -1, STRICT,
    "1:11: expected ',' or ']' in the list of field 'r_i32' in AllTypes (opened at 1:8), found '2'" },
  { ALL, "r_inner: [{a: 1}", -1, STRICT,
    "1:17: expected ',' or ']' in the list of field 'r_inner' in AllTypes (opened at 1:10), found end of file" },
  { ALL, "i32: 1;;", -1, STRICT, "1:8: expected a field name in AllTypes, found ';'" },
  { ALL, ": 5", -1, STRICT, "1:1: expected a field name in AllTypes, found ':'" },
  { ALL, "i32: 1 5", -1, STRICT, "1:8: expected a field name in AllTypes, found '5'" },
  { ALL, "[ext.foo]: 1", -1, STRICT, "1:1: extension and Any fields ('[...]') are not supported in AllTypes" },

  /* missing pieces */
  { NET, "layer { name: }", -1, STRICT, "1:15: missing value for string field 'name' in LayerParameter, found '}'" },
  { ALL, "i32:", -1, STRICT, "1:5: missing value for int32 field 'i32' in AllTypes, found end of file" },
  { NET, "name \"a\"", -1, STRICT, "1:6: expected ':' after field 'name' in NetParameter, found '\"a\"'" },

  /* duplicates */
  { NET, "name: \"a\"\nname: \"b\"", -1, STRICT,
    "2:1: non-repeated field 'name' in NetParameter is specified multiple times" },
  { NET, "layer { pooling_param { } pooling_param { } }", -1, STRICT,
    "1:27: non-repeated field 'pooling_param' in LayerParameter is specified multiple times" },
  { ALL, "pick_int: 1 pick_str: \"a\"", -1, STRICT,
    "1:13: field 'pick_str' in AllTypes is given along with field 'pick_int' of the same oneof" },

  /* integer ranges */
  { ALL, "i32: 2147483648", -1, STRICT, "1:6: value '2147483648' is out of range for int32 field 'i32' in AllTypes" },
  { ALL, "i32: -2147483649", -1, STRICT, "1:6: value '-2147483649' is out of range for int32 field 'i32' in AllTypes" },
  { ALL, "s32: 0x80000000", -1, STRICT, "1:6: value '0x80000000' is out of range for sint32 field 's32' in AllTypes" },
  { ALL, "u32: 4294967296", -1, STRICT, "1:6: value '4294967296' is out of range for uint32 field 'u32' in AllTypes" },
  { ALL, "i64: 9223372036854775808", -1, STRICT,
    "1:6: value '9223372036854775808' is out of range for int64 field 'i64' in AllTypes" },
  { ALL, "i64: -9223372036854775809", -1, STRICT,
    "1:6: value '-9223372036854775809' is out of range for int64 field 'i64' in AllTypes" },
  { ALL, "u64: 18446744073709551616", -1, STRICT,
    "1:6: value '18446744073709551616' is out of range for uint64 field 'u64' in AllTypes" },
  { ALL, "u32: -1", -1, STRICT, "1:6: negative value for uint32 field 'u32' in AllTypes" },
  { ALL, "r_u64: [1, -2]", -1, STRICT, "1:12: negative value for uint64 field 'r_u64' in AllTypes" },

  /* number syntax and float ranges */
  { ALL, "i32: 0x", -1, STRICT, "1:6: '0x' must be followed by hex digits" },
  { ALL, "i32: 09", -1, STRICT, "1:6: numbers starting with 0 must be octal" },
  { ALL, "i32: 12abc", -1, STRICT, "1:6: need space between number and identifier" },
  { ALL, "f: 1e", -1, STRICT, "1:4: exponent 'e' must be followed by digits" },
  { ALL, "f: 1.5.2", -1, STRICT, "1:4: number has more than one decimal point or exponent" },
  { ALL, "f: 1e39", -1, STRICT, "1:4: value '1e39' is out of range for float field 'f' in AllTypes" },
  { ALL, "r_f: [1, -3.5e38]", -1, STRICT, "1:10: value '-3.5e38' is out of range for float field 'r_f' in AllTypes" },
  { ALL, "d: -1e400", -1, STRICT, "1:4: value '-1e400' is out of range for double field 'd' in AllTypes" },

  /* positions count bytes: tabs, CRLF, UTF-8 */
  { NET, "layer {\n\tname: 5\n}", -1, STRICT,
    "2:8: expected a quoted string for string field 'name' in LayerParameter, found '5'" },
  { NET, "name: \"a\"\r\nlayer {\r\n  bad: 1\r\n}", -1, STRICT, "3:3: unknown field 'bad' in LayerParameter" },
  { NET, "name: \"\xc3\xa9\" bad: 1", -1, STRICT, "1:12: unknown field 'bad' in NetParameter" },

  /* lenient mode keeps unknown fields but not broken syntax */
  { NET, "layer { foo { a: } }", -1, LENIENT, "1:18: missing value for field 'a', found '}'" },
  { NET, "layer { foo { a: 1 }", -1, LENIENT,
    "1:21: expected '}' to close 'layer' (opened at 1:1) but reached end of file" },
  { NET, "layer { foo: [1, 2 }", -1, LENIENT,
    "1:20: expected ',' or ']' in the list of field 'foo' (opened at 1:14), found '}'" },
  { NET, "foo 5", -1, LENIENT, "1:5: expected ':' or '{' after field 'foo', found '5'" },
};

static const ProtobufCMessageDescriptor *
descriptor_of (Schema schema)
{
  switch (schema)
    {
    case NET: return &caffe__net_parameter__descriptor;
    case SOLVER: return &caffe__solver_parameter__descriptor;
    default: return &cttest__all_types__descriptor;
    }
}

/* Parse INPUT, which must fail with "t.prototxt:EXPECTED". */
static gboolean
check_case (Schema schema, const char *input, gssize length, CtTextFlags flags, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *want = g_strdup_printf ("t.prototxt:%s", expected);
  guint line = 0, column = 0, want_line, want_column;
  ProtobufCMessage *msg = ct_text_parse (descriptor_of (schema), input, length, "t.prototxt",
                                         flags, &error);

  if (msg != NULL)
    {
      g_test_message ("accepted: %s", input);
      protobuf_c_message_free_unpacked (msg, NULL);
      return FALSE;
    }
  g_assert_nonnull (error);
  g_assert_true (error->domain == CT_PROTO_ERROR);
  if (!g_str_equal (error->message, want))
    {
      g_test_message ("input:    %s\nexpected: %s\ngot:      %s", input, want, error->message);
      return FALSE;
    }
  /* the position the message starts with travels as data too */
  if (sscanf (expected, "%u:%u:", &want_line, &want_column) == 2
      && (!ct_proto_error_get_position (error, &line, &column) || line != want_line
          || column != want_column))
    {
      g_test_message ("input:    %s\nposition: %u:%u as data, %u:%u in the message", input, line,
                      column, want_line, want_column);
      return FALSE;
    }
  return TRUE;
}

static void
test_table (void)
{
  guint passed = 0;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];

      if (check_case (c->schema, c->input, c->length, c->flags, c->expected))
        passed++;
      else
        g_test_fail ();
    }
  g_test_message ("%u of %u malformed inputs gave the expected error", passed,
                  (guint) G_N_ELEMENTS (cases));
  g_assert_cmpuint (passed, ==, G_N_ELEMENTS (cases));
  g_assert_cmpuint (passed, >=, 70);
}

static void
test_nested_too_deep (void)
{
  /* 200 levels: the parser stops at 100 with an error, not a crash. Each
   * "child { " is 8 bytes after the 8 of "inner { ", so the 100th child,
   * which would open level 101, starts at column 9 + 8 * 99 = 801. */
  GString *known = g_string_new ("inner { ");
  GString *unknown = g_string_new (NULL);

  for (guint i = 0; i < 199; i++)
    g_string_append (known, "child { ");
  for (guint i = 0; i < 200; i++)
    g_string_append (known, "} ");
  g_assert_true (check_case (ALL, known->str, -1, STRICT,
                             "1:801: messages nested more than 100 levels deep at field 'child' in Inner"));

  /* Skipping an unknown block in lenient mode obeys the same limit: the
   * 101st "foo { " (6 bytes each) starts at column 601. */
  for (guint i = 0; i < 200; i++)
    g_string_append (unknown, "foo { ");
  for (guint i = 0; i < 200; i++)
    g_string_append (unknown, "} ");
  g_assert_true (check_case (ALL, unknown->str, -1, LENIENT,
                             "1:601: messages nested more than 100 levels deep at field 'foo'"));

  g_string_free (known, TRUE);
  g_string_free (unknown, TRUE);
}

static void
test_exactly_at_limit (void)
{
  /* 100 levels are fine. */
  GString *text = g_string_new ("inner { ");
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg;

  for (guint i = 0; i < 99; i++)
    g_string_append (text, "child { ");
  for (guint i = 0; i < 100; i++)
    g_string_append (text, "} ");
  msg = ct_text_parse (&cttest__all_types__descriptor, text->str, -1, "t", CT_TEXT_STRICT, &error);
  g_assert_no_error (error);
  g_assert_nonnull (msg);
  protobuf_c_message_free_unpacked (msg, NULL);
  g_string_free (text, TRUE);
}

static void
test_every_prefix (void)
{
  /* Every truncation of a valid file is either valid or a clean error. */
  static const char text[] =
    "name: \"n\" # c\nlayer { name: 'a' type: \"Convolution\" bottom: \"x\\n\" top: \"y\"\n"
    "  convolution_param < num_output: 0x10 kernel_size: [3, 3] weight_filler { type: \"xavier\" std: 1e-2 } >\n"
    "  param { lr_mult: -1.5f }, include { phase: TEST } }\n";
  guint errors = 0;

  for (gsize n = 0; n <= sizeof text - 1; n++)
    {
      g_autoptr (GError) error = NULL;
      ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, (gssize) n,
                                             "t", CT_TEXT_STRICT, &error);

      if (msg == NULL)
        {
          g_assert_nonnull (error);
          g_assert_true (g_str_has_prefix (error->message, "t:"));
          errors++;
        }
      else
        protobuf_c_message_free_unpacked (msg, NULL);
    }
  g_assert_cmpuint (errors, >, sizeof text / 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/proto/text-malformed/table", test_table);
  g_test_add_func ("/proto/text-malformed/nested-too-deep", test_nested_too_deep);
  g_test_add_func ("/proto/text-malformed/exactly-at-limit", test_exactly_at_limit);
  g_test_add_func ("/proto/text-malformed/every-prefix", test_every_prefix);

  return g_test_run ();
}
