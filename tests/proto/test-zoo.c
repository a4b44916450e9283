/* test-zoo.c: conformance over real-world prototxt files.
 *
 * Every file listed in a zoo's INDEX.tsv goes through the loader users
 * get (ct_proto_load_text_file): files BVLC's caffe.proto accepts must
 * load strictly; files that need a fork's fields must fail strictly with
 * an error naming one of those fields, and load leniently with exactly
 * those fields kept and printed back; V0 and V1 nets come out as V2.
 * tests/data/zoo is always there; the full corpus in CT_SHARED_DIR/zoo
 * (93 files) is checked too when present. */
#include <string.h>

#include "proto-error.h"
#include "proto-file.h"
#include "text-format.h"
#include "upgrade.h"

typedef struct {
  guint total;
  guint strict_ok;        /* `ok` files that loaded strictly */
  guint strict_rejected;  /* fork files rejected strictly, naming a listed field */
  guint lenient_ok;       /* fork files loaded leniently with their fields kept */
  guint upgraded;         /* V0/V1 nets that came out as V2 */
  guint solvers;
} ZooCounts;

/* Column indexes by header name, so that both index layouts work. */
static gint
column (char **header, const char *name)
{
  for (gint i = 0; header[i] != NULL; i++)
    if (strcmp (header[i], name) == 0)
      return i;
  g_error ("INDEX.tsv has no column '%s'", name);
  return -1;
}

/* "LayerParameter.roi_pooling_param,PoolingParameter.ceil_mode" -> set */
static GHashTable *
expected_unknown (const char *check)
{
  GHashTable *set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *prefix = "unknown to BVLC caffe.proto: ";
  g_auto(GStrv) items = NULL;

  g_assert_true (g_str_has_prefix (check, prefix));
  items = g_strsplit (check + strlen (prefix), ",", -1);
  for (char **i = items; *i != NULL; i++)
    g_hash_table_add (set, g_strstrip (g_strdup (*i)));
  return set;
}

static void
check_strict_failure (const char *path, GHashTable *expected)
{
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg;
  GHashTableIter iter;
  gpointer key;
  gboolean named = FALSE;

  msg = ct_proto_load_text_file (path, CT_TEXT_STRICT, NULL, NULL, &error);
  g_assert_null (msg);
  g_assert_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UNKNOWN_FIELD);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_hash_table_iter_init (&iter, expected);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *dot = strchr (key, '.');
      g_autofree char *field = g_strdup_printf ("unknown field '%s' in %.*s", dot + 1,
                                                (int) (dot - (const char *) key),
                                                (const char *) key);
      if (strstr (error->message, field) != NULL)
        named = TRUE;
    }
  if (!named)
    g_error ("%s: strict error names none of the fields in the index: %s", path,
             error->message);
}

/* TEXT without any white space, stored in *OUT */
static const char *
squeeze (const char *text, char **out)
{
  GString *s = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isspace (*p))
      g_string_append_c (s, *p);
  *out = g_string_free (s, FALSE);
  return *out;
}

static void
check_lenient (const char *path, GHashTable *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) unknown = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *printed = NULL;
  g_autofree char *squeezed = NULL;
  ProtobufCMessage *msg, *again;

  msg = ct_proto_load_text_file (path, CT_TEXT_LENIENT, NULL, NULL, &error);
  g_assert_no_error (error);
  unknown = ct_text_list_unknown (msg);
  g_assert_cmpuint (unknown->len, >, 0);
  printed = ct_text_print (msg);
  squeeze (printed, &squeezed);
  for (guint i = 0; i < unknown->len; i++)
    {
      const CtTextUnknown *u = g_ptr_array_index (unknown, i);
      g_autofree char *text = NULL;

      g_hash_table_add (seen, g_strdup_printf ("%s.%s", u->message_type, u->field_name));
      /* the kept text is printed back as it was written (the printer may
       * re-indent it and drop carriage returns) */
      if (strstr (squeezed, squeeze (u->text, &text)) == NULL)
        g_error ("%s:%u:%u: kept text of '%s' missing from the printed net", path, u->line,
                 u->column, u->field_name);
    }
  g_assert_cmpuint (g_hash_table_size (seen), ==, g_hash_table_size (expected));
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, expected);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      if (!g_hash_table_contains (seen, key))
        g_error ("%s: %s was not kept", path, (const char *) key);
  }

  /* what we print we read again, keeping the same fields */
  again = ct_text_parse (msg->descriptor, printed, -1, "printed", CT_TEXT_LENIENT, &error);
  g_assert_no_error (error);
  {
    g_autoptr(GPtrArray) unknown_again = ct_text_list_unknown (again);
    g_assert_cmpuint (unknown_again->len, ==, unknown->len);
  }
  protobuf_c_message_free_unpacked (again, NULL);
  protobuf_c_message_free_unpacked (msg, NULL);
}

static void
check_ok (const char *path, const char *format, ZooCounts *counts)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *msg;
  CtProtoKind kind;

  msg = ct_proto_load_text_file (path, CT_TEXT_STRICT, &kind, notes, &error);
  if (msg == NULL)
    g_error ("%s", error->message);
  g_assert_cmpint (kind, ==, strcmp (format, "solver") == 0 ? CT_PROTO_KIND_SOLVER
                                                            : CT_PROTO_KIND_NET);
  if (kind == CT_PROTO_KIND_SOLVER)
    {
      g_assert_false (ct_solver_needs_upgrade ((Caffe__SolverParameter *) msg));
      counts->solvers++;
    }
  else
    {
      Caffe__NetParameter *net = (Caffe__NetParameter *) msg;

      g_assert_false (ct_net_needs_upgrade (net));
      g_assert_cmpuint (net->n_layers, ==, 0);
      g_assert_cmpuint (net->n_input, ==, 0);
      if (strcmp (format, "v0") == 0 || strcmp (format, "v1-enum") == 0)
        {
          g_autofree char *printed = ct_text_print (msg);
          ProtobufCMessage *again;

          g_assert_cmpuint (notes->len, >, 0);
          g_assert_cmpuint (net->n_layer, >, 0);
          for (gsize i = 0; i < net->n_layer; i++)
            g_assert_nonnull (net->layer[i]->type);
          /* the upgraded text is a V2 net that needs nothing more */
          again = ct_text_parse (&caffe__net_parameter__descriptor, printed, -1, "upgraded",
                                 CT_TEXT_STRICT, &error);
          g_assert_no_error (error);
          g_assert_false (ct_net_needs_upgrade ((Caffe__NetParameter *) again));
          protobuf_c_message_free_unpacked (again, NULL);
          counts->upgraded++;
        }
    }
  counts->strict_ok++;
  protobuf_c_message_free_unpacked (msg, NULL);
}

static ZooCounts
check_zoo (const char *zoo)
{
  g_autofree char *index_path = g_build_filename (zoo, "INDEX.tsv", NULL);
  g_autofree char *index = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) header = NULL;
  g_autoptr(GError) error = NULL;
  ZooCounts counts = { 0 };
  gint path_col, format_col, check_col;

  g_assert_true (g_file_get_contents (index_path, &index, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (index, "\n", -1);
  header = g_strsplit (lines[0], "\t", -1);
  path_col = column (header, "path");
  format_col = column (header, "format");
  check_col = column (header, "bvlc_caffe_proto_check");

  for (char **line = lines + 1; *line != NULL; line++)
    {
      g_auto(GStrv) cols = NULL;
      g_autofree char *path = NULL;

      if (**line == '\0')
        continue;
      cols = g_strsplit (*line, "\t", -1);
      g_assert_cmpuint (g_strv_length (cols), >, (guint) MAX (check_col, format_col));
      path = g_build_filename (zoo, cols[path_col], NULL);
      counts.total++;

      if (strcmp (cols[check_col], "ok") == 0)
        check_ok (path, cols[format_col], &counts);
      else
        {
          g_autoptr(GHashTable) expected = expected_unknown (cols[check_col]);

          check_strict_failure (path, expected);
          counts.strict_rejected++;
          check_lenient (path, expected);
          counts.lenient_ok++;
        }
    }
  g_test_message ("%s: %u files: %u strict ok (%u solvers, %u V0/V1 nets upgraded), "
                  "%u need a fork's fields: %u rejected strictly naming one, "
                  "%u lenient ok with the fields kept",
                  zoo, counts.total, counts.strict_ok, counts.solvers, counts.upgraded,
                  counts.total - counts.strict_ok, counts.strict_rejected, counts.lenient_ok);
  return counts;
}

static void
test_local_zoo (void)
{
  g_autofree char *zoo = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", NULL);
  ZooCounts counts = check_zoo (zoo);

  g_assert_cmpuint (counts.total, ==, 81);
  g_assert_cmpuint (counts.strict_ok, ==, 72);
  g_assert_cmpuint (counts.strict_rejected, ==, 9);
  g_assert_cmpuint (counts.lenient_ok, ==, 9);
  g_assert_cmpuint (counts.upgraded, ==, 7);
  g_assert_cmpuint (counts.solvers, ==, 23);
}

static void
test_shared_zoo (void)
{
  const char *shared = g_getenv ("CT_SHARED_DIR");
  g_autofree char *zoo = NULL;
  ZooCounts counts;

  if (shared == NULL)
    {
      g_test_skip ("CT_SHARED_DIR is not set");
      return;
    }
  zoo = g_build_filename (shared, "zoo", NULL);
  if (!g_file_test (zoo, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no shared zoo");
      return;
    }
  counts = check_zoo (zoo);
  g_assert_cmpuint (counts.total, ==, 93);
  g_assert_cmpuint (counts.strict_ok, ==, 80);
  g_assert_cmpuint (counts.strict_rejected, ==, 13);
  g_assert_cmpuint (counts.lenient_ok, ==, 13);
  g_assert_cmpuint (counts.upgraded, ==, 8);
  g_assert_cmpuint (counts.solvers, ==, 25);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("CT_TEST_DATA") == NULL)
    g_error ("CT_TEST_DATA is not set");
  g_test_add_func ("/proto/zoo/local", test_local_zoo);
  g_test_add_func ("/proto/zoo/shared", test_shared_zoo);

  return g_test_run ();
}
