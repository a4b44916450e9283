/* cli-compute-mean.c: `cortado-cli compute-mean DB OUT.binaryproto
 * [--backend lmdb|leveldb]`: the mean image of every Datum record in a
 * database, written as a BlobProto (1×C×H×W, the legacy 4-D fields) for
 * transform_param.mean_file, as Caffe's compute_image_mean writes it; the
 * mean of each channel is printed too, for mean_value. Encoded records
 * are decoded; records of different shapes are an error naming the key.
 * Sums are kept in double precision. */
#include <inttypes.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "binary-io.h"
#include "caffe.pb-c.h"
#include "cli-data-private.h"
#include "cli-private.h"
#include "datum.h"
#include "db.h"

typedef struct {
  int shape[3];
  double *sum;
  gsize size;
  guint64 count;
} MeanSum;

static gboolean
add_record (MeanSum *m, CtDbCursor *cursor, const char *db_path, GError **error)
{
  g_autofree char *key = ct_db_cursor_key_text (cursor);
  g_autofree char *where = g_strdup_printf (_("%s: record '%s'"), db_path, key);
  g_autoptr (Caffe__Datum) datum = NULL;
  g_auto (CtPixels) px = { 0 };
  const guint8 *value;
  gsize length;

  value = ct_db_cursor_value (cursor, &length);
  datum = ct_datum_parse (value, length, where, error);
  if (datum == NULL || !ct_datum_get_pixels (datum, CT_IMAGE_NATIVE, where, &px, error))
    return FALSE;
  if (m->sum == NULL)
    {
      m->shape[0] = px.channels;
      m->shape[1] = px.height;
      m->shape[2] = px.width;
      m->size = (gsize) px.channels * (gsize) px.height * (gsize) px.width;
      m->sum = g_new0 (double, m->size);
    }
  else if (m->shape[0] != px.channels || m->shape[1] != px.height || m->shape[2] != px.width)
    {
      g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                   _("%s: %d×%d×%d, but the records before it are %d×%d×%d "
                     "(channels×height×width)"), where, px.channels, px.height, px.width,
                   m->shape[0], m->shape[1], m->shape[2]);
      return FALSE;
    }
  if (px.u8 != NULL)
    for (gsize i = 0; i < m->size; i++)
      m->sum[i] += px.u8[i];
  else
    for (gsize i = 0; i < m->size; i++)
      m->sum[i] += px.f32[i];
  m->count++;
  return TRUE;
}

static gboolean
write_mean (const MeanSum *m, const char *out_path, GError **error)
{
  Caffe__BlobProto blob = CAFFE__BLOB_PROTO__INIT;
  g_autofree float *data = g_new (float, m->size);
  gsize plane = (gsize) m->shape[1] * (gsize) m->shape[2];

  for (gsize i = 0; i < m->size; i++)
    data[i] = (float) (m->sum[i] / (double) m->count);
  blob.has_num = blob.has_channels = blob.has_height = blob.has_width = TRUE;
  blob.num = 1;
  blob.channels = m->shape[0];
  blob.height = m->shape[1];
  blob.width = m->shape[2];
  blob.n_data = m->size;
  blob.data = data;
  if (!ct_binary_write_file (&blob.base, out_path, error))
    return FALSE;

  for (int c = 0; c < m->shape[0]; c++)
    {
      double total = 0.0;
      char number[G_ASCII_DTOSTR_BUF_SIZE];

      for (gsize i = 0; i < plane; i++)
        total += m->sum[(gsize) c * plane + i];
      g_ascii_formatd (number, sizeof number, "%.6g", total / (double) plane / (double) m->count);
      g_print (_("mean_value channel %d: %s\n"), c, number);
    }
  return TRUE;
}

int
ct_cli_compute_mean (int argc, char **argv)
{
  g_autofree char *backend_name = NULL;
  g_auto (GStrv) args = NULL;
  const GOptionEntry entries[] = {
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_name,
      N_("Database kind: lmdb or leveldb (default: found from the folder's files)"), "KIND" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtDb) db = NULL;
  g_autoptr (CtDbCursor) cursor = NULL;
  MeanSum m = { 0 };
  CtDbBackend backend = CT_DB_LMDB;
  gboolean ok = TRUE;

  context = ct_cli_context_new ("compute-mean", _("DB OUT.binaryproto"),
                                _("Write the mean image of a database of Datum records, for "
                                  "transform_param's mean_file, and print each channel's "
                                  "mean."), entries);
  if (!ct_cli_parse (context, &argc, &argv))
    return CT_CLI_EXIT_USAGE;
  if (args == NULL || g_strv_length (args) != 2)
    return ct_cli_usage_error ("compute-mean", _("give a database and an output file"));
  if (backend_name != NULL && !ct_db_backend_from_name (backend_name, &backend))
    return ct_cli_usage_error ("compute-mean", _("unknown backend '%s': use lmdb or leveldb"),
                               backend_name);
  /* neither kind's files: LMDB, whose open then says what is missing */
  if (backend_name == NULL && !ct_cli_guess_backend (args[0], &backend))
    backend = CT_DB_LMDB;

  db = ct_db_open (args[0], backend, CT_DB_READ, &error);
  if (db != NULL)
    cursor = ct_db_cursor_new (db, &error);
  while (cursor != NULL && ok && ct_db_cursor_valid (cursor))
    ok = add_record (&m, cursor, args[0], &error) && ct_db_cursor_next (cursor, &error);
  if (cursor != NULL && ok && m.count == 0)
    {
      g_set_error (&error, CT_DATA_ERROR, CT_DATA_ERROR_EMPTY,
                   _("%s: the database holds no records"), args[0]);
      ok = FALSE;
    }
  if (cursor != NULL && ok)
    {
      g_print (g_dngettext (GETTEXT_PACKAGE, "%s: %" PRIu64 " record of %d×%d×%d\n",
                            "%s: %" PRIu64 " records of %d×%d×%d\n", m.count), args[0], m.count,
               m.shape[0], m.shape[1], m.shape[2]);
      ok = write_mean (&m, args[1], &error);
    }
  g_free (m.sum);
  if (cursor == NULL || !ok)
    {
      g_printerr ("cortado-cli compute-mean: %s\n", error->message);
      return CT_CLI_EXIT_INPUT;
    }
  return CT_CLI_EXIT_OK;
}
