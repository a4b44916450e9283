/* reference-dump.c: see reference-dump.h. */
#include <math.h>
#include <string.h>

#include "reference-dump.h"

static void
record_free (gpointer data)
{
  CtTestDumpRecord *r = data;

  g_free (r->name);
  g_free (r->data);
  g_free (r->diff);
  g_free (r);
}

void
ct_test_dump_free (CtTestDump *dump)
{
  if (dump == NULL)
    return;
  g_ptr_array_unref (dump->records);
  g_free (dump);
}

typedef struct {
  const guint8 *p;
  gsize left;
} Cursor;

static void
take (Cursor *c, void *out, gsize n)
{
  g_assert_cmpuint (c->left, >=, n);
  memcpy (out, c->p, n);
  c->p += n;
  c->left -= n;
}

static gint32
take_i32 (Cursor *c)
{
  gint32 v;

  take (c, &v, sizeof v);
  return GINT32_FROM_LE (v);
}

static char *
find_file (const char *file_name)
{
  const char *roots[] = { "CT_TEST_DATA", "CT_SHARED_DIR" };

  for (gsize i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      const char *root = g_getenv (roots[i]);
      g_autofree char *path = NULL;

      if (root == NULL)
        continue;
      path = g_build_filename (root, "reference", file_name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  return NULL;
}

CtTestDump *
ct_test_dump_load (const char *file_name)
{
  g_autofree char *path = find_file (file_name);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  CtTestDump *dump;
  Cursor c;
  gsize length;
  char magic[8];
  gint32 n_records;

  if (path == NULL)
    return NULL;
  g_file_get_contents (path, &contents, &length, &error);
  g_assert_no_error (error);
  c.p = (const guint8 *) contents;
  c.left = length;
  take (&c, magic, sizeof magic);
  g_assert_true (memcmp (magic, "CAFFEDMP", 8) == 0);
  g_assert_cmpint (take_i32 (&c), ==, 1);
  n_records = take_i32 (&c);
  g_assert_cmpint (n_records, >, 0);

  dump = g_new0 (CtTestDump, 1);
  dump->records = g_ptr_array_new_with_free_func (record_free);
  take (&c, &dump->loss, sizeof (float));
  for (gint32 i = 0; i < n_records; i++)
    {
      CtTestDumpRecord *r = g_new0 (CtTestDumpRecord, 1);
      gint32 name_len;

      g_ptr_array_add (dump->records, r);
      r->kind = take_i32 (&c);
      name_len = take_i32 (&c);
      g_assert_cmpint (name_len, >=, 0);
      r->name = g_malloc0 ((gsize) name_len + 1);
      take (&c, r->name, (gsize) name_len);
      r->index = take_i32 (&c);
      r->n_axes = (guint) take_i32 (&c);
      g_assert_cmpuint (r->n_axes, <=, CT_BLOB_MAX_AXES);
      r->count = 1;
      for (guint a = 0; a < r->n_axes; a++)
        {
          r->dims[a] = take_i32 (&c);
          r->count *= r->dims[a];
        }
      r->data = g_new (float, MAX (r->count, 1));
      r->diff = g_new (float, MAX (r->count, 1));
      take (&c, r->data, (gsize) r->count * sizeof (float));
      take (&c, r->diff, (gsize) r->count * sizeof (float));
    }
  g_assert_cmpuint (c.left, ==, 0);
  g_test_message ("%s: %d records, loss %.9g", path, n_records, dump->loss);
  return dump;
}

const CtTestDumpRecord *
ct_test_dump_find (const CtTestDump *dump, int kind, const char *name, int index)
{
  for (guint i = 0; i < dump->records->len; i++)
    {
      const CtTestDumpRecord *r = g_ptr_array_index (dump->records, i);

      if (r->kind == kind && strcmp (r->name, name) == 0 && (kind == 0 || r->index == index))
        return r;
    }
  g_error ("no record %s (kind %d, index %d) in the dump", name, kind, index);
  return NULL;
}

CtBlob *
ct_test_dump_blob (const CtTestDumpRecord *record)
{
  g_autoptr (GError) error = NULL;
  CtBlob *blob = ct_blob_new_with_shape (record->dims, record->n_axes, &error);

  g_assert_no_error (error);
  memcpy (ct_blob_mutable_cpu_data (blob, NULL), record->data,
          (gsize) record->count * sizeof (float));
  memcpy (ct_blob_mutable_cpu_diff (blob, NULL), record->diff,
          (gsize) record->count * sizeof (float));
  return blob;
}

double
ct_test_relative_error (const float *ours, const float *ref, gint64 n)
{
  double num = 0.0, den = 0.0;

  for (gint64 i = 0; i < n; i++)
    {
      double d = (double) ours[i] - ref[i];

      num += d * d;
      den += (double) ref[i] * ref[i];
    }
  return den > 0.0 ? sqrt (num / den) : sqrt (num);
}

gboolean
ct_test_dump_record_fits (const CtTestDumpRecord *record, CtBlob *blob)
{
  if (record->n_axes != ct_blob_num_axes (blob))
    return FALSE;
  for (guint a = 0; a < record->n_axes; a++)
    if (record->dims[a] != ct_blob_get_shape (blob)[a])
      return FALSE;
  return TRUE;
}

CtBlob *
ct_test_dump_net_blob (CtNet *net, const CtTestDumpRecord *record)
{
  CtLayer *layer;

  if (record->kind == 0)
    return record->index >= 0 && (guint) record->index < ct_net_n_blobs (net)
               && strcmp (ct_net_get_blob_name (net, (guint) record->index), record->name) == 0
             ? ct_net_get_blob (net, (guint) record->index)
             : NULL;
  layer = ct_net_layer_by_name (net, record->name);
  return layer != NULL && record->index >= 0 && (guint) record->index < layer->blobs->len
           ? layer->blobs->pdata[record->index]
           : NULL;
}
