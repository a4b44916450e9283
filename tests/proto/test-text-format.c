/* test-text-format.c: the prototxt parser and printer, feature by feature.
 *
 * Uses text-test.proto (every field type) for the generic parts and the
 * Caffe schema for lenient mode. Where protoc is installed, prints and
 * encodings of the every-type messages are also compared with it. */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "caffe.pb-c.h"
#include "proto-error.h"
#include "text-format.h"
#include "text-test.pb-c.h"

#define ALL (&cttest__all_types__descriptor)

static Cttest__AllTypes *
parse_all (const char *text)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (ALL, text, -1, "t.prototxt", CT_TEXT_STRICT, &error);

  g_assert_no_error (error);
  g_assert_nonnull (msg);
  return (Cttest__AllTypes *) msg;
}

static char *
print_all (const char *text)
{
  Cttest__AllTypes *m = parse_all (text);
  char *out = ct_text_print (&m->base);

  cttest__all_types__free_unpacked (m, NULL);
  return out;
}

static void
assert_print (const char *text, const char *expected)
{
  g_autofree char *out = print_all (text);

  g_assert_cmpstr (out, ==, expected);
}

static char *
parse_error (const ProtobufCMessageDescriptor *desc, const char *text, CtTextFlags flags)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (desc, text, -1, "t.prototxt", flags, &error);

  g_assert_null (msg);
  g_assert_nonnull (error);
  g_assert_true (error->domain == CT_PROTO_ERROR);
  return g_strdup (error->message);
}

/* ---- every type ------------------------------------------------------ */

static void
test_all_types (void)
{
  Cttest__AllTypes *m = parse_all (
    "i32: -2147483648 i64: -9223372036854775808 u32: 4294967295\n"
    "u64: 18446744073709551615 s32: -5 s64: -6 f32: 0xffffffff f64: 077\n"
    "sf32: -9 sf64: -10 b: t f: 0.25 d: -1e-300 str: 'x' by: \"\\0\\1\"\n"
    "colour: NEGATIVE inner { a: 3 s: \"in\" child { a: 4 } colour: GREEN }\n");

  g_assert_true (m->has_i32 && m->i32 == G_MININT32);
  g_assert_true (m->has_i64 && m->i64 == G_MININT64);
  g_assert_true (m->has_u32 && m->u32 == G_MAXUINT32);
  g_assert_true (m->has_u64 && m->u64 == G_MAXUINT64);
  g_assert_cmpint (m->s32, ==, -5);
  g_assert_cmpint (m->s64, ==, -6);
  g_assert_cmpuint (m->f32, ==, 0xffffffffu);
  g_assert_cmpuint (m->f64, ==, 63);
  g_assert_cmpint (m->sf32, ==, -9);
  g_assert_cmpint (m->sf64, ==, -10);
  g_assert_true (m->has_b && m->b);
  g_assert_cmpfloat (m->f, ==, 0.25f);
  g_assert_cmpfloat (m->d, ==, -1e-300);
  g_assert_cmpstr (m->str, ==, "x");
  g_assert_true (m->has_by);
  g_assert_cmpuint (m->by.len, ==, 2);
  g_assert_cmpint (m->by.data[0], ==, 0);
  g_assert_cmpint (m->by.data[1], ==, 1);
  g_assert_cmpint (m->colour, ==, CTTEST__COLOUR__NEGATIVE);
  g_assert_nonnull (m->inner);
  g_assert_cmpint (m->inner->a, ==, 3);
  g_assert_cmpstr (m->inner->s, ==, "in");
  g_assert_cmpuint (m->inner->n_child, ==, 1);
  g_assert_cmpint (m->inner->child[0]->a, ==, 4);
  g_assert_cmpint (m->inner->colour, ==, CTTEST__COLOUR__GREEN);
  cttest__all_types__free_unpacked (m, NULL);
}

/* ---- syntax ---------------------------------------------------------- */

static void
test_comments_and_separators (void)
{
  Cttest__AllTypes *m = parse_all (
    "# leading comment\n"
    "i32: 1, u32: 2; i64: 3   # trailing comment with 'quotes\" and { braces\n"
    "inner { a: 1; s: \"#not a comment\", } # after\n"
    "r_i32: 5; r_i32: 6,\n");

  g_assert_cmpint (m->i32, ==, 1);
  g_assert_cmpuint (m->u32, ==, 2);
  g_assert_cmpint (m->i64, ==, 3);
  g_assert_cmpstr (m->inner->s, ==, "#not a comment");
  g_assert_cmpuint (m->n_r_i32, ==, 2);
  cttest__all_types__free_unpacked (m, NULL);
}

static void
test_message_syntax (void)
{
  /* ':' optional before a message, {} or <>, and lists of messages. */
  Cttest__AllTypes *m = parse_all (
    "inner: { a: 1 }\n"
    "r_inner < a: 2 >\n"
    "r_inner: < a: 3 >\n"
    "r_inner [ { a: 4 }, < a: 5 > ]\n"
    "r_inner: [ { child [ {a: 7}, {a: 8} ] } ]\n"
    "r_inner: []\n");

  g_assert_cmpint (m->inner->a, ==, 1);
  g_assert_cmpuint (m->n_r_inner, ==, 5);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (m->r_inner[i]->a, ==, i + 2);
  g_assert_cmpuint (m->r_inner[4]->n_child, ==, 2);
  g_assert_cmpint (m->r_inner[4]->child[1]->a, ==, 8);
  cttest__all_types__free_unpacked (m, NULL);
}

static void
test_scalar_lists (void)
{
  Cttest__AllTypes *m = parse_all (
    "r_i32: [1, -2, 0x10, 010] r_i32: 9\n"
    "r_f: [1, 2.5, -inf, 3f] r_str: ['a', \"b\" 'c'] r_str: []\n"
    "r_colour: [RED, 2, -5, GREEN] r_b: [true, f, 1, False]\n"
    "r_i64: [-1, 9223372036854775807] r_u64: [0, 0xffffffffffffffff]\n");

  g_assert_cmpuint (m->n_r_i32, ==, 5);
  g_assert_cmpint (m->r_i32[0], ==, 1);
  g_assert_cmpint (m->r_i32[1], ==, -2);
  g_assert_cmpint (m->r_i32[2], ==, 16);
  g_assert_cmpint (m->r_i32[3], ==, 8);
  g_assert_cmpint (m->r_i32[4], ==, 9);
  g_assert_cmpuint (m->n_r_f, ==, 4);
  g_assert_cmpfloat (m->r_f[1], ==, 2.5f);
  g_assert_true (isinf (m->r_f[2]) && m->r_f[2] < 0);
  g_assert_cmpfloat (m->r_f[3], ==, 3.0f);
  g_assert_cmpuint (m->n_r_str, ==, 2);
  g_assert_cmpstr (m->r_str[1], ==, "bc");
  g_assert_cmpuint (m->n_r_colour, ==, 4);
  g_assert_cmpint (m->r_colour[1], ==, CTTEST__COLOUR__BLUE);
  g_assert_cmpint (m->r_colour[2], ==, CTTEST__COLOUR__NEGATIVE);
  g_assert_cmpuint (m->n_r_b, ==, 4);
  g_assert_true (m->r_b[0] && !m->r_b[1] && m->r_b[2] && !m->r_b[3]);
  g_assert_cmpint (m->r_i64[1], ==, G_MAXINT64);
  g_assert_cmpuint (m->r_u64[1], ==, G_MAXUINT64);
  cttest__all_types__free_unpacked (m, NULL);
}

static void
test_strings (void)
{
  Cttest__AllTypes *m = parse_all (
    "str: \"a\\n\\t\\\\\\'\\\"\\101\\x41\\x4a\\7\\a\\b\\f\\v\\r\\?\" 'single \"quoted\"'\n"
    "r_str: '\\u00e9\\U0001F600\\ud83d\\ude00'\n"
    "r_str: \"\xc3\xa9 raw bytes \xff\"\n"
    "by: \"\\000\\377\\x80z\"\n");

  g_assert_cmpstr (m->str, ==, "a\n\t\\'\"AAJ\a\a\b\f\v\r?single \"quoted\"");
  g_assert_cmpstr (m->r_str[0], ==, "\xc3\xa9\xf0\x9f\x98\x80\xf0\x9f\x98\x80");
  /* Invalid UTF-8 is taken as bytes. */
  g_assert_cmpstr (m->r_str[1], ==, "\xc3\xa9 raw bytes \xff");
  g_assert_cmpuint (m->by.len, ==, 4);
  g_assert_cmpmem (m->by.data, 4, "\0\377\200z", 4);
  cttest__all_types__free_unpacked (m, NULL);
}

static void
test_numbers (void)
{
  Cttest__AllTypes *m = parse_all (
    "r_f: [inf, -inf, nan, -nan, Infinity, -INF, NaN, infinity, 1.5f, 2F, 1e3, .5, 5., 1E-2, 7, -0]\n"
    "r_d: [99999999999999999999999999, 1e308, -1e-320, 0.1, 18446744073709551615]\n"
    "i32: -0x80000000 u32: 0xFFFFFFFF i64: -01 u64: 0\n");

  g_assert_cmpuint (m->n_r_f, ==, 16);
  g_assert_true (isinf (m->r_f[0]) && m->r_f[0] > 0);
  g_assert_true (isinf (m->r_f[1]) && m->r_f[1] < 0);
  g_assert_true (isnan (m->r_f[2]) && !signbit (m->r_f[2]));
  g_assert_true (isnan (m->r_f[3]) && signbit (m->r_f[3]));
  g_assert_true (isinf (m->r_f[4]) && m->r_f[4] > 0);
  g_assert_true (isinf (m->r_f[5]) && m->r_f[5] < 0);
  g_assert_true (isnan (m->r_f[6]));
  g_assert_true (isinf (m->r_f[7]));
  g_assert_cmpfloat (m->r_f[8], ==, 1.5f);
  g_assert_cmpfloat (m->r_f[9], ==, 2.0f);
  g_assert_cmpfloat (m->r_f[10], ==, 1000.0f);
  g_assert_cmpfloat (m->r_f[11], ==, 0.5f);
  g_assert_cmpfloat (m->r_f[12], ==, 5.0f);
  g_assert_cmpfloat (m->r_f[13], ==, 0.01f);
  g_assert_cmpfloat (m->r_f[14], ==, 7.0f);
  g_assert_true (m->r_f[15] == 0 && signbit (m->r_f[15]));
  g_assert_cmpfloat (m->r_d[0], ==, 1e26);
  g_assert_cmpfloat (m->r_d[1], ==, 1e308);
  g_assert_cmpfloat (m->r_d[2], ==, -1e-320);
  g_assert_cmpfloat (m->r_d[4], ==, 18446744073709551615.0);
  g_assert_cmpint (m->i32, ==, G_MININT32);
  g_assert_cmpuint (m->u32, ==, G_MAXUINT32);
  g_assert_cmpint (m->i64, ==, -1);
  g_assert_true (m->has_u64 && m->u64 == 0);
  cttest__all_types__free_unpacked (m, NULL);

  /* The largest float reads back from its printed form. */
  m = parse_all ("f: 3.40282347e+38 r_f: -3.4028235e38");
  g_assert_cmpfloat (m->f, ==, FLT_MAX);
  g_assert_cmpfloat (m->r_f[0], ==, -FLT_MAX);
  cttest__all_types__free_unpacked (m, NULL);
}

static void
test_bools_and_enums (void)
{
  Cttest__AllTypes *m = parse_all ("b: True def_b: False r_b: [t, true, 1, 0x1, f, false, 0] "
                                   "colour: 2 def_colour: RED r_colour: -5");

  g_assert_true (m->has_b && m->b);
  g_assert_true (m->has_def_b && !m->def_b);
  g_assert_cmpuint (m->n_r_b, ==, 7);
  g_assert_true (m->r_b[3] && !m->r_b[6]);
  g_assert_cmpint (m->colour, ==, CTTEST__COLOUR__BLUE);
  g_assert_true (m->has_def_colour && m->def_colour == CTTEST__COLOUR__RED);
  g_assert_cmpint (m->r_colour[0], ==, CTTEST__COLOUR__NEGATIVE);
  cttest__all_types__free_unpacked (m, NULL);
}

static void
test_oneof (void)
{
  Cttest__AllTypes *m = parse_all ("pick_str: \"x\"");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (m->choice_case, ==, CTTEST__ALL_TYPES__CHOICE_PICK_STR);
  g_assert_cmpstr (m->pick_str, ==, "x");
  out = ct_text_print (&m->base);
  g_assert_cmpstr (out, ==, "pick_str: \"x\"\n");
  cttest__all_types__free_unpacked (m, NULL);

  err = parse_error (ALL, "pick_msg { a: 1 } pick_int: 2", CT_TEXT_STRICT);
  g_assert_cmpstr (err, ==, "t.prototxt:1:19: field 'pick_int' in AllTypes is given along with "
                   "field 'pick_msg' of the same oneof");
}

static void
test_empty_input (void)
{
  Cttest__AllTypes *m = parse_all ("");
  g_autofree char *out = ct_text_print (&m->base);

  g_assert_cmpstr (out, ==, "");
  cttest__all_types__free_unpacked (m, NULL);

  m = parse_all ("  # only a comment, no newline at the end");
  cttest__all_types__free_unpacked (m, NULL);
}

/* ---- printing -------------------------------------------------------- */

static void
test_print_layout (void)
{
  /* Field-number order whatever the source order; repeated in order; only
   * set fields; two-space indent; empty messages as "name {\n}". */
  assert_print ("r_inner { a: 2 } str: \"s\" i32: 1 r_i32: [3, 4] inner { child { } child { a: 5 } } "
                "r_inner { }",
                "i32: 1\n"
                "str: \"s\"\n"
                "inner {\n"
                "  child {\n"
                "  }\n"
                "  child {\n"
                "    a: 5\n"
                "  }\n"
                "}\n"
                "r_i32: 3\n"
                "r_i32: 4\n"
                "r_inner {\n"
                "  a: 2\n"
                "}\n"
                "r_inner {\n"
                "}\n");
}

static void
test_print_defaults (void)
{
  Cttest__AllTypes *m = parse_all ("");
  g_autofree char *out = NULL;
  g_autofree char *explicit = NULL;

  /* message_init fills the defaults in, and none of them is printed. */
  g_assert_cmpint (m->def_i32, ==, 7);
  g_assert_cmpstr (m->def_str, ==, "hello");
  out = ct_text_print (&m->base);
  g_assert_cmpstr (out, ==, "");
  cttest__all_types__free_unpacked (m, NULL);

  /* Given explicitly, even with the default value, they are. */
  explicit = print_all ("def_i32: 7 def_f: 0.5 def_str: \"hello\" def_colour: BLUE def_b: true");
  g_assert_cmpstr (explicit, ==,
                   "def_i32: 7\ndef_f: 0.5\ndef_str: \"hello\"\ndef_colour: BLUE\ndef_b: true\n");

  /* Zero values that were given are printed too. */
  assert_print ("i32: 0 str: \"\" by: \"\" b: false f: 0", "i32: 0\nb: false\nf: 0\nstr: \"\"\nby: \"\"\n");
}

static void
test_print_floats (void)
{
  assert_print ("r_f: [0.1, 1e-5, 3.4028235e38, 1.17549435e-38, 1e-39, 1.4e-45, -0, 1, 0.333333333, "
                "16777217, 123456789, 100000, 1000000, 1e7, inf, -inf, nan, 2.5e-7]",
                "r_f: 0.1\nr_f: 1e-05\nr_f: 3.40282347e+38\nr_f: 1.17549435e-38\n"
                "r_f: 1.00000022e-39\nr_f: 1.40129846e-45\nr_f: -0\nr_f: 1\nr_f: 0.333333343\n"
                "r_f: 16777216\nr_f: 123456792\nr_f: 100000\nr_f: 1e+06\nr_f: 1e+07\n"
                "r_f: inf\nr_f: -inf\nr_f: nan\nr_f: 2.5e-07\n");
  assert_print ("r_d: [0.1, 0.3333333333333333, 1e22, 100, 123456789012345678, 1e-320, -nan, 5e-324]",
                "r_d: 0.1\nr_d: 0.33333333333333331\nr_d: 1e+22\nr_d: 100\n"
                "r_d: 1.2345678901234568e+17\nr_d: 9.99988867182683e-321\nr_d: nan\n"
                "r_d: 4.94065645841247e-324\n");
}

static void
test_print_escapes (void)
{
  assert_print ("str: \"a\\\"b'c\\\\d\\n\\t\\r\\001\\177\\u00e9?\\x1f \"",
                "str: \"a\\\"b\\'c\\\\d\\n\\t\\r\\001\\177\\303\\251?\\037 \"\n");
  assert_print ("by: \"\\000\\377\\x80\\a\\b\\f\\v\"", "by: \"\\000\\377\\200\\007\\010\\014\\013\"\n");
}

static void
test_print_enum_numbers (void)
{
  /* A value the enum lacks (as binary files can hold) prints as a number. */
  Cttest__AllTypes *m = parse_all ("");
  g_autofree char *out = NULL;

  m->has_colour = TRUE;
  m->colour = 42;
  out = ct_text_print (&m->base);
  g_assert_cmpstr (out, ==, "colour: 42\n");
  cttest__all_types__free_unpacked (m, NULL);
}

/* ---- round trips ----------------------------------------------------- */

static const char *const round_trip_inputs[] = {
  "i32: -1 i64: 5 u32: 7 u64: 9 s32: -3 s64: -4 f32: 1 f64: 2 sf32: -5 sf64: -6 b: false "
  "f: 0.1 d: 0.1 str: \"\\001x\\377\" by: \"\\000\" colour: GREEN inner { a: 1 child { s: 'q' } }",
  "r_f: [1e-39, 3.4028235e38, -0, nan, inf, 0.333333343] r_d: [5e-324, 1.7976931348623157e308]",
  "r_i64: [1, -2, 3] r_str: ['', 'a'] r_colour: [RED, BLUE] r_b: [true] r_by: ['\\0'] "
  "r_u64: [18446744073709551615] r_inner { } pick_msg { colour: NEGATIVE }",
};

static void
test_round_trip (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (round_trip_inputs); i++)
    {
      Cttest__AllTypes *a = parse_all (round_trip_inputs[i]);
      g_autofree char *first = ct_text_print (&a->base);
      Cttest__AllTypes *b = parse_all (first);
      g_autofree char *second = ct_text_print (&b->base);
      gsize na = protobuf_c_message_get_packed_size (&a->base);
      gsize nb = protobuf_c_message_get_packed_size (&b->base);
      g_autofree guint8 *pa = g_malloc (na + 1);
      g_autofree guint8 *pb = g_malloc (nb + 1);

      g_assert_cmpstr (first, ==, second);
      protobuf_c_message_pack (&a->base, pa);
      protobuf_c_message_pack (&b->base, pb);
      g_assert_cmpmem (pa, na, pb, nb);
      cttest__all_types__free_unpacked (a, NULL);
      cttest__all_types__free_unpacked (b, NULL);
    }
}

static void
test_large_repeated (void)
{
  /* 200,000 values: geometric growth keeps this linear. */
  const guint n = 200000;
  GString *text = g_string_new ("r_i32: [");
  Cttest__AllTypes *m;
  gint64 start;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s%u", i ? "," : "", i);
  g_string_append (text, "]\n");
  for (guint i = 0; i < n / 4; i++)
    g_string_append (text, "r_inner { a: 1 }\n");

  start = g_get_monotonic_time ();
  m = parse_all (text->str);
  g_test_message ("parsed %u repeated values in %.1f ms", n + n / 4,
                  (g_get_monotonic_time () - start) / 1000.0);
  g_assert_cmpuint (m->n_r_i32, ==, n);
  g_assert_cmpint (m->r_i32[n - 1], ==, (gint32) (n - 1));
  g_assert_cmpuint (m->n_r_inner, ==, n / 4);
  cttest__all_types__free_unpacked (m, NULL);
  g_string_free (text, TRUE);
}

/* ---- locale ---------------------------------------------------------- */

static void
test_comma_locale (void)
{
  static const char *const locales[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8" };
  g_autofree char *saved = g_strdup (setlocale (LC_ALL, NULL));
  const char *used = NULL;
  Cttest__AllTypes *m;
  g_autofree char *out = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (locales) && used == NULL; i++)
    if (setlocale (LC_ALL, locales[i]) != NULL)
      used = locales[i];
  if (used == NULL)
    {
      g_test_skip ("no comma-decimal locale installed (de_DE.UTF-8 or fr_FR.UTF-8)");
      return;
    }
  g_assert_cmpstr (localeconv ()->decimal_point, ==, ",");

  m = parse_all ("f: 0.5 d: 1.25e-3 r_f: [1e-39, 3.4028235e38] r_d: [0.1, 1.5f]");
  g_assert_cmpfloat (m->f, ==, 0.5f);
  g_assert_cmpfloat (m->d, ==, 1.25e-3);
  out = ct_text_print (&m->base);
  g_assert_cmpstr (out, ==, "f: 0.5\nd: 0.00125\nr_f: 1.00000022e-39\nr_f: 3.40282347e+38\n"
                            "r_d: 0.1\nr_d: 1.5\n");
  cttest__all_types__free_unpacked (m, NULL);
  g_test_message ("parsed and printed under %s", used);

  setlocale (LC_ALL, saved);
}

/* ---- lenient mode ---------------------------------------------------- */

static const char lenient_net[] =
  "name: \"fork\"\n"                                    /* 1 */
  "future_net_option: 3\n"                              /* 2 */
  "layer {\n"                                           /* 3 */
  "  name: \"pool1\"\n"                                 /* 4 */
  "  type: \"Pooling\"\n"                               /* 5 */
  "  bottom: \"a\"\n"                                   /* 6 */
  "      prior_box_param {\n"                           /* 7 */
  "        min_size: 30  # kept, comment and all\n"     /* 8 */
  "        nested < x: [1, 2] y { } >\n"               /* 9 */
  "      }\n"                                           /* 10 */
  "  bottom: \"b\"\n"                                   /* 11 */
  "  pooling_param {\n"                                 /* 12 */
  "    pool: MAXX\n"                                    /* 13 */
  "    kernel_size: 2\n"                                /* 14 */
  "    ceil_mode: true\n"                               /* 15 */
  "  }\n"                                               /* 16 */
  "  top: \"p\"\n"                                      /* 17 */
  "}\n";                                                /* 18 */

static const char lenient_net_printed[] =
  "name: \"fork\"\n"
  "future_net_option: 3\n"
  "layer {\n"
  "  name: \"pool1\"\n"
  "  type: \"Pooling\"\n"
  "  bottom: \"a\"\n"
  "  prior_box_param {\n"
  "    min_size: 30  # kept, comment and all\n"
  "    nested < x: [1, 2] y { } >\n"
  "  }\n"
  "  bottom: \"b\"\n"
  "  top: \"p\"\n"
  "  pooling_param {\n"
  "    pool: MAXX\n"
  "    kernel_size: 2\n"
  "    ceil_mode: true\n"
  "  }\n"
  "}\n";

static ProtobufCMessage *
parse_net (const char *text, CtTextFlags flags)
{
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                         "fork.prototxt", flags, &error);

  g_assert_no_error (error);
  return msg;
}

static void
test_lenient_keep (void)
{
  ProtobufCMessage *msg = parse_net (lenient_net, CT_TEXT_LENIENT);
  Caffe__NetParameter *net = (Caffe__NetParameter *) msg;
  g_autoptr (GPtrArray) list = ct_text_list_unknown (msg);
  const CtTextUnknown *u;

  /* Known fields around the unknown ones are all there. */
  g_assert_cmpuint (net->n_layer, ==, 1);
  g_assert_cmpuint (net->layer[0]->n_bottom, ==, 2);
  g_assert_nonnull (net->layer[0]->pooling_param);
  g_assert_false (net->layer[0]->pooling_param->has_pool);
  g_assert_cmpuint (net->layer[0]->pooling_param->kernel_size, ==, 2);

  g_assert_cmpuint (list->len, ==, 4);
  u = g_ptr_array_index (list, 0);
  g_assert_cmpstr (u->message_type, ==, "NetParameter");
  g_assert_cmpstr (u->field_name, ==, "future_net_option");
  g_assert_cmpuint (u->line, ==, 2);
  g_assert_cmpuint (u->column, ==, 1);
  g_assert_cmpstr (u->text, ==, "future_net_option: 3");
  g_assert_null (u->value);

  u = g_ptr_array_index (list, 1);
  g_assert_cmpstr (u->message_type, ==, "LayerParameter");
  g_assert_cmpstr (u->field_name, ==, "prior_box_param");
  g_assert_cmpuint (u->line, ==, 7);
  g_assert_cmpuint (u->column, ==, 7);
  g_assert_cmpstr (u->text, ==, "prior_box_param {\n"
                                "        min_size: 30  # kept, comment and all\n"
                                "        nested < x: [1, 2] y { } >\n"
                                "      }");

  u = g_ptr_array_index (list, 2);
  g_assert_cmpstr (u->message_type, ==, "PoolingParameter");
  g_assert_cmpstr (u->field_name, ==, "pool");
  g_assert_cmpstr (u->value, ==, "MAXX");
  g_assert_cmpstr (u->text, ==, "pool: MAXX");
  g_assert_cmpuint (u->line, ==, 13);
  g_assert_cmpuint (u->column, ==, 5);
  g_assert_cmpuint (u->error_line, ==, 13);
  g_assert_cmpuint (u->error_column, ==, 11);

  u = g_ptr_array_index (list, 3);
  g_assert_cmpstr (u->field_name, ==, "ceil_mode");
  g_assert_cmpstr (u->text, ==, "ceil_mode: true");
  g_assert_cmpuint (u->line, ==, 15);

  protobuf_c_message_free_unpacked (msg, NULL);
}

static void
test_lenient_print (void)
{
  ProtobufCMessage *msg = parse_net (lenient_net, CT_TEXT_LENIENT);
  g_autofree char *first = ct_text_print (msg);
  ProtobufCMessage *again = parse_net (first, CT_TEXT_LENIENT);
  g_autofree char *second = ct_text_print (again);

  /* In place, after the known field that preceded it, re-indented. */
  g_assert_cmpstr (first, ==, lenient_net_printed);
  /* Idempotent. */
  g_assert_cmpstr (second, ==, first);

  protobuf_c_message_free_unpacked (msg, NULL);
  protobuf_c_message_free_unpacked (again, NULL);
}

/* A non-repeated enum given an unknown value (kept as text) and a known
 * one parses in either order, and its print parses again: the printer
 * puts the known value where its field stands, which may be before the
 * kept text (a case the fuzzer found). A second known value still fails. */
static void
test_lenient_unknown_enum_again (void)
{
  static const char *const orders[] = {
    "layers { type: NVOLUTION type: EUCLIDEAN_LOSS type: NVOLUTION }\n",
    "layers { type: EUCLIDEAN_LOSS type: NVOLUTION }\n",
    "layers { type: NVOLUTION name: 'd' type: EUCLIDEAN_LOSS }\n",
  };
  g_autoptr (GError) error = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (orders); i++)
    {
      ProtobufCMessage *msg = parse_net (orders[i], CT_TEXT_LENIENT);
      g_autofree char *first = ct_text_print (msg);
      ProtobufCMessage *again = parse_net (first, CT_TEXT_LENIENT);
      g_autofree char *second = ct_text_print (again);

      g_assert_cmpstr (second, ==, first);
      protobuf_c_message_free_unpacked (msg, NULL);
      protobuf_c_message_free_unpacked (again, NULL);
    }
  g_assert_null (ct_text_parse (&caffe__net_parameter__descriptor,
                                "layers { type: NVOLUTION type: CONVOLUTION\n"
                                "  type: EUCLIDEAN_LOSS }\n",
                                -1, "t", CT_TEXT_LENIENT, &error));
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "t:2:3:"));
}

static void
test_lenient_positions (void)
{
  /* Kept text before any known field, after a list, and several in a row. */
  static const char text[] =
    "\tfirst: 1  ;  second { a: 1 }\n"
    "r_i32: [1, 2]\n"
    "third: \"x\" 'y'\n"
    "i32: 5\n"
    "r_i32: 3\n"
    "fourth: -inf\n";
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (ALL, text, -1, "t", CT_TEXT_LENIENT, &error);
  g_autofree char *out = NULL;
  g_autofree char *again_out = NULL;
  ProtobufCMessage *again;

  g_assert_no_error (error);
  out = ct_text_print (msg);
  g_assert_cmpstr (out, ==,
                   "first: 1\n"
                   "second { a: 1 }\n"
                   "i32: 5\n"
                   "r_i32: 1\n"
                   "r_i32: 2\n"
                   "third: \"x\" 'y'\n"
                   "r_i32: 3\n"
                   "fourth: -inf\n");
  again = ct_text_parse (ALL, out, -1, "t", CT_TEXT_LENIENT, &error);
  g_assert_no_error (error);
  again_out = ct_text_print (again);
  g_assert_cmpstr (again_out, ==, out);
  protobuf_c_message_free_unpacked (msg, NULL);
  protobuf_c_message_free_unpacked (again, NULL);
}

static void
test_lenient_enum_list (void)
{
  /* A list with an unknown enum value is kept whole, and none of its
   * values is set. */
  g_autoptr (GError) error = NULL;
  ProtobufCMessage *msg = ct_text_parse (ALL, "r_colour: RED\nr_colour: [GREEN, PURPLE, -9]\ncolour: 9",
                                         -1, "t", CT_TEXT_LENIENT, &error);
  Cttest__AllTypes *m = (Cttest__AllTypes *) msg;
  g_autoptr (GPtrArray) list = NULL;
  g_autofree char *out = NULL;
  const CtTextUnknown *u;

  g_assert_no_error (error);
  g_assert_cmpuint (m->n_r_colour, ==, 1);
  g_assert_false (m->has_colour);
  list = ct_text_list_unknown (msg);
  g_assert_cmpuint (list->len, ==, 2);
  u = g_ptr_array_index (list, 0);
  g_assert_cmpstr (u->text, ==, "r_colour: [GREEN, PURPLE, -9]");
  g_assert_cmpstr (u->value, ==, "PURPLE");
  g_assert_cmpuint (u->error_column, ==, 19);
  u = g_ptr_array_index (list, 1);
  g_assert_cmpstr (u->value, ==, "9");
  out = ct_text_print (msg);
  g_assert_cmpstr (out, ==, "r_colour: RED\nr_colour: [GREEN, PURPLE, -9]\ncolour: 9\n");

  g_assert_false (ct_text_check_strict (msg, "t", &error));
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UNKNOWN_FIELD);
  g_assert_cmpstr (error->message, ==, "t:2:19: invalid value 'PURPLE' for enum field 'r_colour' in AllTypes");
  protobuf_c_message_free_unpacked (msg, NULL);
}

static void
test_check_strict (void)
{
  ProtobufCMessage *msg = parse_net (lenient_net, CT_TEXT_LENIENT);
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) strict_error = NULL;
  ProtobufCMessage *strict;

  strict = ct_text_parse (&caffe__net_parameter__descriptor, lenient_net, -1, "fork.prototxt",
                          CT_TEXT_STRICT, &strict_error);
  g_assert_null (strict);
  g_assert_error (strict_error, CT_PROTO_ERROR, CT_PROTO_ERROR_UNKNOWN_FIELD);
  g_assert_cmpstr (strict_error->message, ==,
                   "fork.prototxt:2:1: unknown field 'future_net_option' in NetParameter");

  g_assert_true (ct_text_has_unknown (msg));
  g_assert_false (ct_text_check_strict (msg, "fork.prototxt", &error));
  g_assert_cmpstr (error->message, ==, strict_error->message);
  g_clear_error (&error);
  protobuf_c_message_free_unpacked (msg, NULL);

  /* A known-only file passes. */
  msg = parse_net ("name: \"x\" layer { name: \"a\" }", CT_TEXT_LENIENT);
  g_assert_false (ct_text_has_unknown (msg));
  g_assert_true (ct_text_check_strict (msg, "x", NULL));
  protobuf_c_message_free_unpacked (msg, NULL);

  /* Unknown enum values fail strict parsing at the value. */
  strict = ct_text_parse (&caffe__net_parameter__descriptor,
                          "layer {\n  pooling_param { pool: MAXX }\n}", -1, "net.prototxt",
                          CT_TEXT_STRICT, &error);
  g_assert_null (strict);
  g_assert_cmpstr (error->message, ==,
                   "net.prototxt:2:25: invalid value 'MAXX' for enum field 'pool' in PoolingParameter");
}

static void
test_strip (void)
{
  ProtobufCMessage *msg = parse_net (lenient_net, CT_TEXT_LENIENT);
  ProtobufCMessage *known;
  g_autofree char *stripped = NULL;
  g_autofree char *expected = NULL;
  g_autoptr (GPtrArray) list = NULL;

  ct_text_strip_unknown (msg);
  g_assert_false (ct_text_has_unknown (msg));
  list = ct_text_list_unknown (msg);
  g_assert_cmpuint (list->len, ==, 0);
  g_assert_true (ct_text_check_strict (msg, "x", NULL));

  known = parse_net ("name: \"fork\" layer { name: \"pool1\" type: \"Pooling\" bottom: \"a\" "
                     "bottom: \"b\" pooling_param { kernel_size: 2 } top: \"p\" }",
                     CT_TEXT_STRICT);
  stripped = ct_text_print (msg);
  expected = ct_text_print (known);
  g_assert_cmpstr (stripped, ==, expected);
  g_assert_cmpuint (protobuf_c_message_get_packed_size (msg), ==,
                    protobuf_c_message_get_packed_size (known));
  protobuf_c_message_free_unpacked (msg, NULL);
  protobuf_c_message_free_unpacked (known, NULL);
}

static void
test_kept_text_packs (void)
{
  /* Kept text is valid wire data (field 19000), so packing a lenient
   * message that was not stripped still gives well-formed protobuf. */
  ProtobufCMessage *msg = parse_net (lenient_net, CT_TEXT_LENIENT);
  gsize n = protobuf_c_message_get_packed_size (msg);
  g_autofree guint8 *buf = g_malloc (n);
  ProtobufCMessage *back;
  g_autofree char *printed = NULL;
  g_autofree char *printed_back = NULL;

  protobuf_c_message_pack (msg, buf);
  back = protobuf_c_message_unpack (&caffe__net_parameter__descriptor, NULL, n, buf);
  g_assert_nonnull (back);
  g_assert_true (ct_text_has_unknown (back));
  printed = ct_text_print (msg);
  printed_back = ct_text_print (back);
  g_assert_cmpstr (printed, ==, printed_back);
  protobuf_c_message_free_unpacked (msg, NULL);
  protobuf_c_message_free_unpacked (back, NULL);
}

static void
test_lenient_still_checks_syntax (void)
{
  g_autofree char *e1 = parse_error (ALL, "foo { a: }", CT_TEXT_LENIENT);
  g_autofree char *e2 = parse_error (ALL, "foo { a: 1", CT_TEXT_LENIENT);
  g_autofree char *e3 = parse_error (ALL, "foo 5", CT_TEXT_LENIENT);
  g_autofree char *e4 = parse_error (ALL, "i32: 1 i32: 2", CT_TEXT_LENIENT);
  g_autofree char *e5 = parse_error (ALL, "i32: \"x\"", CT_TEXT_LENIENT);

  g_assert_cmpstr (e1, ==, "t.prototxt:1:10: missing value for field 'a', found '}'");
  g_assert_cmpstr (e2, ==, "t.prototxt:1:11: expected '}' to close 'foo' (opened at 1:1) but reached end of file");
  g_assert_cmpstr (e3, ==, "t.prototxt:1:5: expected ':' or '{' after field 'foo', found '5'");
  g_assert_cmpstr (e4, ==, "t.prototxt:1:8: non-repeated field 'i32' in AllTypes is specified multiple times");
  g_assert_cmpstr (e5, ==, "t.prototxt:1:6: expected an integer for int32 field 'i32' in AllTypes, found '\"x\"'");
}

/* ---- files ----------------------------------------------------------- */

static void
test_parse_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ct-text-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "lenet.prototxt", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.prototxt", NULL);
  ProtobufCMessage *msg;

  g_assert_true (g_file_set_contents (path, "layer {\n  convolution_param {\n    kernal_size: 5\n  }\n}\n",
                                      -1, NULL));
  msg = ct_text_parse_file (&caffe__net_parameter__descriptor, path, CT_TEXT_STRICT, &error);
  g_assert_null (msg);
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UNKNOWN_FIELD);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_true (g_str_has_suffix (error->message,
                                   ":3:5: unknown field 'kernal_size' in ConvolutionParameter"));
  g_clear_error (&error);

  msg = ct_text_parse_file (&caffe__net_parameter__descriptor, path, CT_TEXT_LENIENT, &error);
  g_assert_no_error (error);
  g_assert_true (ct_text_has_unknown (msg));
  protobuf_c_message_free_unpacked (msg, NULL);

  msg = ct_text_parse_file (&caffe__net_parameter__descriptor, missing, CT_TEXT_STRICT, &error);
  g_assert_null (msg);
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, missing));

  g_unlink (path);
  g_rmdir (dir);
}

/* ---- against protoc -------------------------------------------------- */

static gboolean
have_protoc (void)
{
  g_autofree char *path = g_find_program_in_path ("protoc");

  return path != NULL;
}

static GBytes *
run_protoc (const char *mode, const char *type, GBytes *input)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GBytes) out = NULL;
  g_autofree char *protoc = g_find_program_in_path ("protoc");
  g_autofree char *include = g_strdup_printf ("--proto_path=%s/tests/proto", CT_TEST_SOURCE_DIR);
  g_autofree char *what = g_strdup_printf ("--%s=%s", mode, type);

  if (protoc == NULL)
    return NULL;
  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                           | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                           protoc, include, what, "text-test.proto", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate (proc, input, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 0);
  return g_steal_pointer (&out);
}

static GBytes *
pack (const ProtobufCMessage *msg)
{
  gsize n = protobuf_c_message_get_packed_size (msg);
  guint8 *buf = g_malloc (n + 1);

  protobuf_c_message_pack (msg, buf);
  return g_bytes_new_take (buf, n);
}

static void
assert_bytes_text (GBytes *bytes, const char *text)
{
  gsize n;
  const char *data = g_bytes_get_data (bytes, &n);

  g_assert_cmpmem (data, n, text, strlen (text));
}

static const char *const protoc_inputs[] = {
  "i32: -2147483648 i64: -9223372036854775808 u32: 4294967295 u64: 18446744073709551615 "
  "s32: -5 s64: -6 f32: 0xffffffff f64: 077 sf32: -9 sf64: -10 b: t f: 0.1 d: 0.1 "
  "str: \"a\\\"b\\x27\\n\\t\\r\\001\\177\\u00e9\\U0001F600?\" by: \"\\0\\1\\x00\\377\" "
  "colour: NEGATIVE inner <a: 1 child { s: \"\" } colour: BLUE>",
  "r_f: [1e-5, 3.4028235e38, 1.17549435e-38, 1.4e-45, -0, 1f, .5, inf, -Infinity, NaN, 1e-39, "
  "0.333333333333, 16777217, 123456789, 1e-50, 65504, 0.007, 1e10] "
  "r_d: [0.1, 1e-320, 1e22, 1e21, 1e100, 0.3333333333333333, 100, 1e15, 1e16, 123456789012345678, "
  "-nan, 5e-324, 1.7976931348623157e308, 99999999999999999999999999]",
  "r_i64: [-1, 0, 9223372036854775807] r_str: ['x', \"y\" \"z\"] r_colour: [RED, 2, -5] "
  "r_inner [{a: 1}, <a: 2>] r_b: [t, f, 1, 0] r_by: ['\\x80\\xff', ''] r_u64: [0, 0x8000000000000000] "
  "def_i32: 7 def_f: 0.5 def_str: 'hello' def_colour: BLUE def_b: false pick_str: 'p'",
  "inner { child { child { child { a: -1 } } } } r_i32: [0x7fffffff, -0x80000000, 017]",
};

static void
test_protoc_every_type (void)
{
  guint checked = 0;

  if (!have_protoc ())
    {
      g_test_skip ("protoc not found in PATH");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (protoc_inputs); i++)
    {
      Cttest__AllTypes *m = parse_all (protoc_inputs[i]);
      g_autoptr (GBytes) input = g_bytes_new_static (protoc_inputs[i], strlen (protoc_inputs[i]));
      g_autoptr (GBytes) theirs = run_protoc ("encode", "cttest.AllTypes", input);
      g_autoptr (GBytes) ours = pack (&m->base);
      g_autoptr (GBytes) decoded = run_protoc ("decode", "cttest.AllTypes", ours);
      g_autofree char *printed = ct_text_print (&m->base);

      g_assert_true (g_bytes_equal (ours, theirs));
      assert_bytes_text (decoded, printed);
      cttest__all_types__free_unpacked (m, NULL);
      checked++;
    }
  g_assert_cmpuint (checked, ==, G_N_ELEMENTS (protoc_inputs));
}

static void
test_protoc_all_bytes (void)
{
  /* Every byte value through the escaper, against protoc. */
  Cttest__AllTypes *m = parse_all ("");
  guint8 all[256];
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GBytes) decoded = NULL;
  g_autofree char *printed = NULL;

  if (!have_protoc ())
    {
      g_test_skip ("protoc not found in PATH");
      cttest__all_types__free_unpacked (m, NULL);
      return;
    }
  for (guint i = 0; i < 256; i++)
    all[i] = (guint8) i;
  m->has_by = TRUE;
  m->by.data = g_memdup2 (all, sizeof all);
  m->by.len = sizeof all;
  bytes = pack (&m->base);
  decoded = run_protoc ("decode", "cttest.AllTypes", bytes);
  printed = ct_text_print (&m->base);
  assert_bytes_text (decoded, printed);
  cttest__all_types__free_unpacked (m, NULL);
}

static void
test_protoc_unknown_wire_fields (void)
{
  /* AllTypes bytes read as Sparse: everything but field 1 is an unknown
   * wire field, which protoc prints by number after the known fields. */
  Cttest__AllTypes *m = parse_all (protoc_inputs[0]);
  Cttest__AllTypes *lists = parse_all (protoc_inputs[2]);
  ProtobufCMessage *sparse;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GBytes) decoded = NULL;
  g_autofree char *printed = NULL;
  GByteArray *joined = g_byte_array_new ();
  g_autoptr (GBytes) b1 = pack (&m->base);
  g_autoptr (GBytes) b2 = pack (&lists->base);

  if (!have_protoc ())
    {
      g_test_skip ("protoc not found in PATH");
      goto out;
    }
  g_byte_array_append (joined, g_bytes_get_data (b2, NULL), g_bytes_get_size (b2));
  g_byte_array_append (joined, g_bytes_get_data (b1, NULL), g_bytes_get_size (b1));
  bytes = g_byte_array_free_to_bytes (g_steal_pointer (&joined));

  sparse = protobuf_c_message_unpack (&cttest__sparse__descriptor, NULL, g_bytes_get_size (bytes),
                                      g_bytes_get_data (bytes, NULL));
  g_assert_nonnull (sparse);
  g_assert_cmpuint (sparse->n_unknown_fields, >, 20);
  decoded = run_protoc ("decode", "cttest.Sparse", bytes);
  printed = ct_text_print (sparse);
  assert_bytes_text (decoded, printed);
  protobuf_c_message_free_unpacked (sparse, NULL);

out:
  if (joined != NULL)
    g_byte_array_unref (joined);
  cttest__all_types__free_unpacked (m, NULL);
  cttest__all_types__free_unpacked (lists, NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/proto/text/parse/all-types", test_all_types);
  g_test_add_func ("/proto/text/parse/comments-separators", test_comments_and_separators);
  g_test_add_func ("/proto/text/parse/message-syntax", test_message_syntax);
  g_test_add_func ("/proto/text/parse/scalar-lists", test_scalar_lists);
  g_test_add_func ("/proto/text/parse/strings", test_strings);
  g_test_add_func ("/proto/text/parse/numbers", test_numbers);
  g_test_add_func ("/proto/text/parse/bools-enums", test_bools_and_enums);
  g_test_add_func ("/proto/text/parse/oneof", test_oneof);
  g_test_add_func ("/proto/text/parse/empty", test_empty_input);
  g_test_add_func ("/proto/text/parse/large-repeated", test_large_repeated);
  g_test_add_func ("/proto/text/parse/file", test_parse_file);
  g_test_add_func ("/proto/text/print/layout", test_print_layout);
  g_test_add_func ("/proto/text/print/defaults", test_print_defaults);
  g_test_add_func ("/proto/text/print/floats", test_print_floats);
  g_test_add_func ("/proto/text/print/escapes", test_print_escapes);
  g_test_add_func ("/proto/text/print/enum-numbers", test_print_enum_numbers);
  g_test_add_func ("/proto/text/round-trip", test_round_trip);
  g_test_add_func ("/proto/text/locale/comma-decimal", test_comma_locale);
  g_test_add_func ("/proto/text/lenient/keep", test_lenient_keep);
  g_test_add_func ("/proto/text/lenient/print-in-place", test_lenient_print);
  g_test_add_func ("/proto/text/lenient/positions", test_lenient_positions);
  g_test_add_func ("/proto/text/lenient/unknown-enum-again", test_lenient_unknown_enum_again);
  g_test_add_func ("/proto/text/lenient/enum-list", test_lenient_enum_list);
  g_test_add_func ("/proto/text/lenient/check-strict", test_check_strict);
  g_test_add_func ("/proto/text/lenient/strip", test_strip);
  g_test_add_func ("/proto/text/lenient/packs", test_kept_text_packs);
  g_test_add_func ("/proto/text/lenient/syntax-errors", test_lenient_still_checks_syntax);
  g_test_add_func ("/proto/text/protoc/every-type", test_protoc_every_type);
  g_test_add_func ("/proto/text/protoc/all-bytes", test_protoc_all_bytes);
  g_test_add_func ("/proto/text/protoc/unknown-wire-fields", test_protoc_unknown_wire_fields);

  return g_test_run ();
}
