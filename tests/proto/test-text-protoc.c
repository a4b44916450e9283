/* test-text-protoc.c: the text format against protoc, file by file.
 *
 * For every net and solver of the zoo corpus whose INDEX.tsv row says it
 * parses against Caffe's schema, our strict parse packed with protobuf-c
 * must give the bytes `protoc --encode` gives, and our printer must write
 * what `protoc --decode` writes for those bytes. Files that need a Caffe
 * fork must fail strict parsing naming one of their unknown fields, parse
 * leniently keeping exactly the unknown fields the index lists, and keep
 * their text through printing. Runs over tests/data/zoo, and over the full
 * corpus in CT_SHARED_DIR/zoo when it is there. */
#include <string.h>
#include <gio/gio.h>

#include "caffe.pb-c.h"
#include "proto-error.h"
#include "text-format.h"

typedef struct {
  guint known_rows;         /* index rows that Caffe's schema parses */
  guint fork_rows;          /* index rows that need a fork */
  guint files;
  guint strict_ok;          /* known-schema files parsed strictly */
  guint lenient_ok;         /* fork files parsed leniently with the listed unknowns */
  guint encode_identical;   /* packed bytes equal to protoc --encode */
  guint print_identical;    /* print equal to protoc --decode */
} Counts;

static char *protoc_path;
static char *proto_dir;

/* Run protoc with ARGS, feeding INPUT; its stdout, or NULL if it failed. */
static GBytes *
run_protoc (const char *mode, const char *type, GBytes *input)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  g_autofree char *include = g_strdup_printf ("--proto_path=%s", proto_dir);
  g_autofree char *what = g_strdup_printf ("--%s=%s", mode, type);

  proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                           | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
                           protoc_path, include, what, "caffe.proto", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate (proc, input, NULL, &out, &err, &error);
  g_assert_no_error (error);
  if (!g_subprocess_get_if_exited (proc) || g_subprocess_get_exit_status (proc) != 0)
    {
      g_test_message ("protoc --%s failed: %.*s", mode, (int) g_bytes_get_size (err),
                      (const char *) g_bytes_get_data (err, NULL));
      return NULL;
    }
  return g_steal_pointer (&out);
}

static GBytes *
pack (const ProtobufCMessage *msg)
{
  gsize size = protobuf_c_message_get_packed_size (msg);
  guint8 *buf = g_malloc (size + 1);

  protobuf_c_message_pack (msg, buf);
  return g_bytes_new_take (buf, size);
}

static gboolean
bytes_equal_text (GBytes *bytes, const char *text)
{
  gsize n;
  const char *data = g_bytes_get_data (bytes, &n);

  return n == strlen (text) && memcmp (data, text, n) == 0;
}

/* TEXT with the leading blanks of every line removed: the printer may
 * change only the indentation of kept text. */
static char *
strip_indent (const char *text)
{
  GString *out = g_string_new (NULL);
  gboolean line_start = TRUE;

  for (const char *p = text; *p != '\0'; p++)
    {
      if (line_start && (*p == ' ' || *p == '\t'))
        continue;
      line_start = *p == '\n';
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

/* Print MSG and check it against protoc --decode of MSG's packed bytes. */
static void
check_print (const ProtobufCMessage *msg, const char *type, const char *path, Counts *counts)
{
  g_autoptr (GBytes) bytes = pack (msg);
  g_autoptr (GBytes) decoded = run_protoc ("decode", type, bytes);
  g_autofree char *printed = ct_text_print (msg);

  g_assert_nonnull (decoded);
  if (!bytes_equal_text (decoded, printed))
    {
      g_test_message ("%s: print differs from protoc --decode", path);
      g_test_fail ();
      return;
    }
  counts->print_identical++;
}

/* Printing, parsing and printing again changes nothing. */
static void
check_idempotent (const ProtobufCMessage *msg,
                  const ProtobufCMessageDescriptor *desc,
                  CtTextFlags flags,
                  const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *first = ct_text_print (msg);
  ProtobufCMessage *again = ct_text_parse (desc, first, -1, path, flags, &error);
  g_autofree char *second = NULL;

  g_assert_no_error (error);
  second = ct_text_print (again);
  g_assert_cmpstr (first, ==, second);

  if (!(flags & CT_TEXT_LENIENT))
    {
      /* A strict round trip gives an equal message. */
      g_autoptr (GBytes) a = pack (msg);
      g_autoptr (GBytes) b = pack (again);
      g_assert_true (g_bytes_equal (a, b));
    }
  protobuf_c_message_free_unpacked (again, NULL);
}

static void
check_known_file (const char *path,
                  const ProtobufCMessageDescriptor *desc,
                  const char *type,
                  Counts *counts)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;
  ProtobufCMessage *msg;
  g_autoptr (GBytes) ours = NULL;
  g_autoptr (GBytes) input = NULL;
  g_autoptr (GBytes) theirs = NULL;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  msg = ct_text_parse (desc, contents, (gssize) length, path, CT_TEXT_STRICT, &error);
  if (msg == NULL)
    {
      g_test_message ("%s: %s", path, error->message);
      g_test_fail ();
      return;
    }
  counts->strict_ok++;
  g_assert_false (ct_text_has_unknown (msg));

  ours = pack (msg);
  input = g_bytes_new_static (contents, length);
  theirs = run_protoc ("encode", type, input);
  g_assert_nonnull (theirs);
  if (g_bytes_equal (ours, theirs))
    counts->encode_identical++;
  else
    {
      g_test_message ("%s: packed bytes differ from protoc --encode (%zu vs %zu bytes)", path,
                      g_bytes_get_size (ours), g_bytes_get_size (theirs));
      g_test_fail ();
    }

  check_print (msg, type, path, counts);
  check_idempotent (msg, desc, CT_TEXT_STRICT, path);
  protobuf_c_message_free_unpacked (msg, NULL);
}

/* CHECK is the index's "unknown to BVLC caffe.proto: A.b,C.d" column. */
static void
check_fork_file (const char *path,
                 const ProtobufCMessageDescriptor *desc,
                 const char *type,
                 const char *check,
                 Counts *counts)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) strict_error = NULL;
  g_autoptr (GPtrArray) unknown = NULL;
  g_autoptr (GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) names = NULL;
  g_autofree char *printed = NULL;
  g_autofree char *printed_flat = NULL;
  const char *colon = strchr (check, ':');
  ProtobufCMessage *msg;
  gboolean named = FALSE;

  g_assert_nonnull (colon);
  names = g_strsplit (colon + 1, ",", -1);
  for (guint i = 0; names[i] != NULL; i++)
    g_hash_table_add (listed, g_strstrip (g_strdup (names[i])));

  /* Strict: fails on one of the listed fields, naming it and its type. */
  msg = ct_text_parse_file (desc, path, CT_TEXT_STRICT, &strict_error);
  g_assert_null (msg);
  g_assert_error (strict_error, CT_PROTO_ERROR, CT_PROTO_ERROR_UNKNOWN_FIELD);
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, listed);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      {
        g_auto (GStrv) parts = g_strsplit (key, ".", 2);
        g_autofree char *want = g_strdup_printf ("unknown field '%s' in %s", parts[1], parts[0]);

        named |= strstr (strict_error->message, want) != NULL;
      }
  }
  if (!named)
    {
      g_test_message ("%s: strict error names none of %s: %s", path, check, strict_error->message);
      g_test_fail ();
    }

  /* Lenient: keeps exactly the listed fields. */
  msg = ct_text_parse_file (desc, path, CT_TEXT_LENIENT, &error);
  g_assert_no_error (error);
  unknown = ct_text_list_unknown (msg);
  g_assert_cmpuint (unknown->len, >, 0);
  for (guint i = 0; i < unknown->len; i++)
    {
      const CtTextUnknown *u = g_ptr_array_index (unknown, i);
      g_hash_table_add (found, g_strdup_printf ("%s.%s", u->message_type, u->field_name));
      g_assert_true (g_str_has_prefix (u->text, u->field_name));
    }
  g_assert_cmpuint (g_hash_table_size (found), ==, g_hash_table_size (listed));
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, listed);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      g_assert_true (g_hash_table_contains (found, key));
  }

  /* check_strict says what strict parsing said. */
  g_assert_false (ct_text_check_strict (msg, path, &error));
  g_assert_cmpstr (error->message, ==, strict_error->message);
  g_clear_error (&error);

  /* Every kept text comes back through print, only re-indented. */
  printed = ct_text_print (msg);
  printed_flat = strip_indent (printed);
  for (guint i = 0; i < unknown->len; i++)
    {
      const CtTextUnknown *u = g_ptr_array_index (unknown, i);
      g_autofree char *flat = strip_indent (u->text);

      if (strstr (printed_flat, flat) == NULL)
        {
          g_test_message ("%s:%u:%u: kept text of '%s' lost in print", path, u->line, u->column,
                          u->field_name);
          g_test_fail ();
        }
    }
  check_idempotent (msg, desc, CT_TEXT_LENIENT, path);
  counts->lenient_ok++;

  /* Without the kept text, the rest is what protoc prints. */
  ct_text_strip_unknown (msg);
  g_assert_false (ct_text_has_unknown (msg));
  check_print (msg, type, path, counts);
  protobuf_c_message_free_unpacked (msg, NULL);
}

/* Check every file of DIR/INDEX.tsv; columns are found by name, since the
 * full corpus has more of them than tests/data. */
static void
check_corpus (const char *dir, Counts *counts)
{
  g_autofree char *index_path = g_build_filename (dir, "INDEX.tsv", NULL);
  g_autofree char *index = NULL;
  g_auto (GStrv) lines = NULL;
  g_auto (GStrv) header = NULL;
  int col_path = -1, col_format = -1, col_check = -1;

  g_assert_true (g_file_get_contents (index_path, &index, NULL, NULL));
  lines = g_strsplit (index, "\n", -1);
  header = g_strsplit (lines[0], "\t", -1);
  for (int i = 0; header[i] != NULL; i++)
    {
      if (g_str_equal (header[i], "path"))
        col_path = i;
      else if (g_str_equal (header[i], "format"))
        col_format = i;
      else if (g_str_equal (header[i], "bvlc_caffe_proto_check"))
        col_check = i;
    }
  g_assert_cmpint (col_path, >=, 0);
  g_assert_cmpint (col_format, >=, 0);
  g_assert_cmpint (col_check, >=, 0);

  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) row = NULL;
      g_autofree char *path = NULL;
      const ProtobufCMessageDescriptor *desc;
      const char *type;

      if (*lines[i] == '\0')
        continue;
      row = g_strsplit (lines[i], "\t", -1);
      g_assert_cmpuint (g_strv_length (row), >, (guint) MAX (col_path, MAX (col_format, col_check)));

      path = g_build_filename (dir, row[col_path], NULL);
      if (g_str_equal (row[col_format], "solver"))
        {
          desc = &caffe__solver_parameter__descriptor;
          type = "caffe.SolverParameter";
        }
      else
        {
          /* v2, and legacy v0 / v1-enum nets, are all NetParameter text. */
          desc = &caffe__net_parameter__descriptor;
          type = "caffe.NetParameter";
        }

      counts->files++;
      if (g_str_equal (row[col_check], "ok"))
        {
          counts->known_rows++;
          check_known_file (path, desc, type, counts);
        }
      else
        {
          counts->fork_rows++;
          check_fork_file (path, desc, type, row[col_check], counts);
        }
    }
}

static gboolean
have_protoc (void)
{
  if (protoc_path == NULL)
    {
      g_test_skip ("protoc not found in PATH");
      return FALSE;
    }
  return TRUE;
}

static void
test_repo_zoo (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("CT_TEST_DATA"), "zoo", NULL);
  Counts counts = { 0 };

  if (!have_protoc ())
    return;
  check_corpus (dir, &counts);
  g_test_message ("tests/data/zoo: %u files, %u strict ok, %u lenient ok, "
                  "%u protoc-identical encodings, %u protoc-identical prints",
                  counts.files, counts.strict_ok, counts.lenient_ok,
                  counts.encode_identical, counts.print_identical);

  /* Every row checked and passed; at least the 72 files Caffe's schema
   * knows and the 9 that need a fork that tests/data/zoo had at first. */
  g_assert_cmpuint (counts.known_rows, >=, 72);
  g_assert_cmpuint (counts.fork_rows, >=, 9);
  g_assert_cmpuint (counts.files, ==, counts.known_rows + counts.fork_rows);
  g_assert_cmpuint (counts.strict_ok, ==, counts.known_rows);
  g_assert_cmpuint (counts.lenient_ok, ==, counts.fork_rows);
  g_assert_cmpuint (counts.encode_identical, ==, counts.known_rows);
  g_assert_cmpuint (counts.print_identical, ==, counts.files);
}

static void
test_shared_zoo (void)
{
  const char *shared = g_getenv ("CT_SHARED_DIR");
  g_autofree char *dir = NULL;
  g_autofree char *index = NULL;
  Counts counts = { 0 };

  if (!have_protoc ())
    return;
  if (shared != NULL)
    {
      dir = g_build_filename (shared, "zoo", NULL);
      index = g_build_filename (dir, "INDEX.tsv", NULL);
    }
  if (index == NULL || !g_file_test (index, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("CT_SHARED_DIR/zoo not present");
      return;
    }

  check_corpus (dir, &counts);
  g_test_message ("shared zoo: %u files, %u strict ok, %u lenient ok, "
                  "%u protoc-identical encodings, %u protoc-identical prints",
                  counts.files, counts.strict_ok, counts.lenient_ok,
                  counts.encode_identical, counts.print_identical);

  /* The full corpus: 93 files, 80 that Caffe's schema knows. */
  g_assert_cmpuint (counts.files, >=, 93);
  g_assert_cmpuint (counts.known_rows, >=, 80);
  g_assert_cmpuint (counts.strict_ok, ==, counts.known_rows);
  g_assert_cmpuint (counts.lenient_ok, ==, counts.fork_rows);
  g_assert_cmpuint (counts.encode_identical, ==, counts.known_rows);
  g_assert_cmpuint (counts.print_identical, ==, counts.files);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);

  protoc_path = g_find_program_in_path ("protoc");
  proto_dir = g_build_filename (CT_TEST_SOURCE_DIR, "proto", NULL);

  g_test_add_func ("/proto/text-protoc/repo-zoo", test_repo_zoo);
  g_test_add_func ("/proto/text-protoc/shared-zoo", test_shared_zoo);

  status = g_test_run ();
  g_free (protoc_path);
  g_free (proto_dir);
  return status;
}
