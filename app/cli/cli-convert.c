/* cli-convert.c: `cortado-cli convert`, which writes the databases a Data
 * layer reads, as Caffe's converter tools do:
 *
 *   convert mnist IMAGES LABELS OUT_DB [--backend lmdb|leveldb]
 *     IDX files (MNIST, Fashion-MNIST; gzip-compressed or not) to raw
 *     1×rows×cols Datum records with keys "%08d" (the index);
 *   convert images LIST ROOT OUT_DB [--resize H W] [--gray] [--shuffle]
 *                                  [--encoded] [--backend lmdb|leveldb]
 *     a list of "PATH LABEL" lines (paths under ROOT) to Datum records with
 *     keys "%08d_PATH": raw colour (blue-green-red) or grey pixels, or with
 *     --encoded the image file itself (re-encoded as PNG when resized).
 *
 * Records are committed a thousand at a time. The database must not exist
 * yet; if the conversion fails, the half-written database is removed so
 * that running the command again starts afresh. */
#include <inttypes.h>
#include <errno.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "cli-data-private.h"
#include "cli-private.h"
#include "datum.h"
#include "db.h"
#include "idx.h"
#include "image.h"
#include "rng.h"

#define COMMIT_EVERY 1000

gboolean
ct_cli_parse_backend (const char *name, CtDbBackend *backend)
{
  if (name == NULL)
    {
      *backend = CT_DB_LMDB;
      return TRUE;
    }
  return ct_db_backend_from_name (name, backend);
}

gboolean
ct_cli_guess_backend (const char *path, CtDbBackend *backend)
{
  g_autofree char *mdb = g_build_filename (path, "data.mdb", NULL);
  g_autofree char *current = g_build_filename (path, "CURRENT", NULL);

  if (g_file_test (mdb, G_FILE_TEST_EXISTS))
    *backend = CT_DB_LMDB;
  else if (g_file_test (current, G_FILE_TEST_EXISTS))
    *backend = CT_DB_LEVELDB;
  else
    return FALSE;
  return TRUE;
}

void
ct_cli_remove_db (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *file = g_build_filename (path, name, NULL);
      g_unlink (file);
    }
  g_rmdir (path);
}

/* Writes records, committing every COMMIT_EVERY. */
typedef struct {
  CtDb *db;
  CtDbTxn *txn;
  guint64 written;
} Writer;

static gboolean
writer_put (Writer *w, const char *key, GBytes *value, GError **error)
{
  gsize length;
  const void *data = g_bytes_get_data (value, &length);

  ct_db_txn_put (w->txn, key, strlen (key), data, length);
  w->written++;
  if (ct_db_txn_n_puts (w->txn) >= COMMIT_EVERY)
    return ct_db_txn_commit (w->txn, error);
  return TRUE;
}

static gboolean
convert_mnist (const char *images_path, const char *labels_path, Writer *w, GError **error)
{
  g_autoptr (CtIdxFile) images = NULL;
  g_autoptr (CtIdxFile) labels = NULL;
  guint32 n_images, n_labels, rows, cols;
  g_autofree guint8 *pixels = NULL;

  images = ct_idx_open (images_path, CT_IDX_IMAGES, error);
  if (images == NULL)
    return FALSE;
  labels = ct_idx_open (labels_path, CT_IDX_LABELS, error);
  if (labels == NULL)
    return FALSE;
  n_images = ct_idx_count (images);
  n_labels = ct_idx_count (labels);
  rows = ct_idx_rows (images);
  cols = ct_idx_cols (images);
  if (n_images != n_labels)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                   g_dngettext (GETTEXT_PACKAGE, "%s holds %u image but %s holds %u labels",
                                "%s holds %u images but %s holds %u labels", n_images),
                   images_path, n_images,
                   labels_path, n_labels);
      return FALSE;
    }
  pixels = g_malloc ((gsize) rows * cols);
  for (guint32 i = 0; i < n_images; i++)
    {
      CtPixels px = { .channels = 1, .height = (int) rows, .width = (int) cols, .u8 = pixels };
      g_autoptr (GBytes) datum = NULL;
      char key[16];
      guint8 label;

      if (!ct_idx_read_next (images, pixels, error) || !ct_idx_read_next (labels, &label, error))
        return FALSE;
      g_snprintf (key, sizeof key, "%08u", i);
      datum = ct_datum_pack_raw (&px, label);
      if (!writer_put (w, key, datum, error))
        return FALSE;
    }
  return TRUE;
}

typedef struct {
  char *path;  /* as listed */
  int label;
  guint line;
} ListEntry;

static void
list_entry_clear (gpointer data)
{
  g_free (((ListEntry *) data)->path);
}

static GArray *
read_image_list (const char *list_path, GError **error)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GArray) entries = g_array_new (FALSE, TRUE, sizeof (ListEntry));

  g_array_set_clear_func (entries, list_entry_clear);
  if (!g_file_get_contents (list_path, &contents, NULL, error))
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strchomp (lines[i]);
      char *space = strrchr (line, ' ');
      char *end = NULL;
      gint64 label;
      ListEntry entry;

      if (*line == '\0')
        continue;
      errno = 0;
      label = space != NULL ? g_ascii_strtoll (space + 1, &end, 10) : 0;
      if (space == NULL || space == line || end == space + 1 || *end != '\0' || errno != 0 ||
          label < G_MININT32 || label > G_MAXINT32)
        {
          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_INVALID,
                       _("%s:%u: expected 'PATH LABEL' with an integer label"), list_path,
                       i + 1);
          return NULL;
        }
      *space = '\0';
      entry.path = g_strdup (line);
      entry.label = (int) label;
      entry.line = i + 1;
      g_array_append_val (entries, entry);
    }
  if (entries->len == 0)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_EMPTY, _("%s: the list is empty"),
                   list_path);
      return NULL;
    }
  return g_steal_pointer (&entries);
}

typedef struct {
  int resize_height, resize_width;
  gboolean gray, shuffle, encoded;
} ImageOptions;

/* The Datum for one listed image. */
static GBytes *
image_datum (const char *path, int label, const ImageOptions *o, GError **error)
{
  g_auto (CtPixels) px = { 0 };
  CtImageColor color = o->gray ? CT_IMAGE_GRAY : CT_IMAGE_COLOR;

  if (!ct_image_load (path, color, o->resize_height, o->resize_width, &px, error))
    return NULL;
  if (o->encoded)
    {
      g_autoptr (GBytes) image = NULL;

      /* the file as it is, unless it was resized (as Caffe keeps it) */
      if (o->resize_height > 0)
        image = ct_pixels_encode_png (&px);
      else
        {
          char *contents = NULL;
          gsize length = 0;

          if (!g_file_get_contents (path, &contents, &length, error))
            return NULL;
          image = g_bytes_new_take (contents, length);
        }
      return ct_datum_pack_encoded (image, label);
    }
  return ct_datum_pack_raw (&px, label);
}

static gboolean
convert_images (const char *list_path, const char *root, const ImageOptions *o, Writer *w,
                GError **error)
{
  g_autoptr (GArray) entries = read_image_list (list_path, error);

  if (entries == NULL)
    return FALSE;
  if (o->shuffle)
    {
      /* a fixed seed: the same list gives the same database */
      g_autoptr (CtRng) rng = ct_rng_new (1701);

      for (guint i = entries->len; i > 1; i--)
        {
          guint j = ct_rng_uint32 (rng) % i;
          ListEntry tmp = g_array_index (entries, ListEntry, i - 1);

          g_array_index (entries, ListEntry, i - 1) = g_array_index (entries, ListEntry, j);
          g_array_index (entries, ListEntry, j) = tmp;
        }
    }
  for (guint i = 0; i < entries->len; i++)
    {
      const ListEntry *e = &g_array_index (entries, ListEntry, i);
      g_autofree char *path = *root != '\0' ? g_build_filename (root, e->path, NULL)
                                            : g_strdup (e->path);
      g_autofree char *key = g_strdup_printf ("%08u_%s", i, e->path);
      g_autoptr (GError) local = NULL;
      g_autoptr (GBytes) datum = image_datum (path, e->label, o, &local);

      if (datum == NULL)
        {
          g_set_error (error, CT_DATA_ERROR, local->code, "%s:%u: %s", list_path, e->line,
                       local->message);
          return FALSE;
        }
      if (!writer_put (w, key, datum, error))
        return FALSE;
    }
  return TRUE;
}

/* "--resize H W" takes two values, which GOption cannot: take it out of
 * ARGV first. */
static gboolean
take_resize (int *argc, char **argv, ImageOptions *o, GError **error)
{
  for (int i = 1; i < *argc; i++)
    {
      gint64 h, w;

      if (strcmp (argv[i], "--") == 0)
        break;
      if (strcmp (argv[i], "--resize") != 0)
        continue;
      if (i + 2 >= *argc ||
          !g_ascii_string_to_signed (argv[i + 1], 10, 1, G_MAXINT16, &h, NULL) ||
          !g_ascii_string_to_signed (argv[i + 2], 10, 1, G_MAXINT16, &w, NULL))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--resize takes a height and a width, positive integers"));
          return FALSE;
        }
      o->resize_height = (int) h;
      o->resize_width = (int) w;
      memmove (argv + i, argv + i + 3, sizeof (char *) * (gsize) (*argc - i - 3));
      *argc -= 3;
      argv[*argc] = NULL;
      i--;
    }
  return TRUE;
}

static int
run_conversion (const char *kind, char **args, const char *out_path, CtDbBackend backend,
                const ImageOptions *o)
{
  g_autoptr (GError) error = NULL;
  Writer w = { 0 };
  gboolean ok;

  w.db = ct_db_open (out_path, backend, CT_DB_NEW, &error);
  if (w.db == NULL)
    {
      g_printerr ("cortado-cli convert: %s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  w.txn = ct_db_txn_new (w.db);
  if (strcmp (kind, "mnist") == 0)
    ok = convert_mnist (args[0], args[1], &w, &error);
  else
    ok = convert_images (args[0], args[1], o, &w, &error);
  ok = ok && ct_db_txn_commit (w.txn, &error);
  ct_db_txn_free (w.txn);
  ct_db_free (w.db);
  if (!ok)
    {
      ct_cli_remove_db (out_path);
      g_printerr ("cortado-cli convert: %s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  g_print (g_dngettext (GETTEXT_PACKAGE, "%s: wrote %" PRIu64 " record (%s)\n",
                        "%s: wrote %" PRIu64 " records (%s)\n", w.written), out_path, w.written,
           ct_db_backend_name (backend));
  return CT_CLI_EXIT_OK;
}

int
ct_cli_convert (int argc, char **argv)
{
  g_autofree char *backend_name = NULL;
  g_auto (GStrv) args = NULL;
  ImageOptions o = { 0 };
  const GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_name,
      N_("Database kind: lmdb (the default) or leveldb"), "KIND" },
    { "gray", 0, 0, G_OPTION_ARG_NONE, &o.gray,
      N_("images: store one grey channel instead of three colour ones"), NULL },
    { "shuffle", 0, 0, G_OPTION_ARG_NONE, &o.shuffle,
      N_("images: store the list in a random (but repeatable) order"), NULL },
    { "encoded", 0, 0, G_OPTION_ARG_NONE, &o.encoded,
      N_("images: store the image files instead of their pixels"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  CtDbBackend backend;
  guint n_args;

  context = ct_cli_context_new ("convert",
                                _("mnist IMAGES LABELS OUT_DB | images LIST ROOT OUT_DB"),
                                _("Write an LMDB or LevelDB database of Datum records for a "
                                  "Data layer, from MNIST-format IDX files (.gz or not) or "
                                  "from a list of image files with labels.\n\n"
                                  "  images options: --resize HEIGHT WIDTH  resize every "
                                  "image"),
                                entries);
  if (!take_resize (&argc, argv, &o, &error))
    return ct_cli_usage_error ("convert", "%s", error->message);
  if (!ct_cli_parse (context, &argc, &argv))
    return CT_CLI_EXIT_USAGE;
  if (!ct_cli_parse_backend (backend_name, &backend))
    return ct_cli_usage_error ("convert", _("unknown backend '%s': use lmdb or leveldb"),
                               backend_name);
  n_args = args != NULL ? g_strv_length (args) : 0;
  if (n_args == 0)
    return ct_cli_usage_error ("convert", _("say what to convert: mnist or images"));
  if (strcmp (args[0], "mnist") != 0 && strcmp (args[0], "images") != 0)
    return ct_cli_usage_error ("convert", _("unknown kind '%s': use mnist or images"),
                               args[0]);
  if (n_args != 4)
    return ct_cli_usage_error ("convert", strcmp (args[0], "mnist") == 0
                                            ? _("mnist takes IMAGES LABELS OUT_DB")
                                            : _("images takes LIST ROOT OUT_DB"));
  if (strcmp (args[0], "mnist") == 0 &&
      (o.gray || o.shuffle || o.encoded || o.resize_height > 0))
    return ct_cli_usage_error ("convert", _("--resize, --gray, --shuffle and --encoded are "
                                            "for images"));
  return run_conversion (args[0], args + 1, args[3], backend, &o);
}
