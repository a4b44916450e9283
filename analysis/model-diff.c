/* model-diff.c: comparing the weights of two caffemodels. */
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "analysis-error.h"
#include "binary-io.h"
#include "blob.h"
#include "model-diff.h"
#include "proto-file.h"

static void
blob_free (gpointer p)
{
  CtModelDiffBlob *b = p;

  g_free (b->layer);
  g_free (b->shape_a);
  g_free (b->shape_b);
  g_free (b);
}

void
ct_model_diff_free (CtModelDiff *diff)
{
  if (diff == NULL)
    return;
  g_ptr_array_unref (diff->blobs);
  g_ptr_array_unref (diff->only_a);
  g_ptr_array_unref (diff->only_b);
  g_free (diff);
}

static const Caffe__LayerParameter *
find_layer (const Caffe__NetParameter *net, const char *name)
{
  for (gsize i = 0; i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return net->layer[i];
  return NULL;
}

static char *
shape_text (CtBlob *blob)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < ct_blob_num_axes (blob); i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? " " : "",
                            ct_blob_get_shape (blob)[i]);
  return g_string_free (s, FALSE);
}

static gboolean
compare_blob (CtModelDiffBlob *d, const Caffe__BlobProto *pa, const Caffe__BlobProto *pb,
              GError **error)
{
  g_autoptr (CtBlob) a = ct_blob_new ();
  g_autoptr (CtBlob) b = ct_blob_new ();
  const float *va, *vb;
  double sa = 0.0, sd = 0.0;

  if (!ct_blob_from_proto (a, pa, TRUE, error) || !ct_blob_from_proto (b, pb, TRUE, error))
    {
      g_prefix_error (error, _("layer '%s', blob %u: "), d->layer, d->blob_index);
      return FALSE;
    }
  d->shape_a = shape_text (a);
  d->shape_b = shape_text (b);
  d->same_shape = strcmp (d->shape_a, d->shape_b) == 0;
  d->count = ct_blob_count (a);
  d->max_index = -1;
  if (!d->same_shape)
    return TRUE;
  va = ct_blob_cpu_data (a, error);
  vb = va == NULL ? NULL : ct_blob_cpu_data (b, error);
  if (vb == NULL)
    return FALSE;
  for (gint64 i = 0; i < d->count; i++)
    {
      double delta = (double) vb[i] - (double) va[i];

      sa += (double) va[i] * va[i];
      sd += delta * delta;
      if (memcmp (&va[i], &vb[i], sizeof (float)) != 0)
        d->n_changed++;
      if (fabs (delta) > d->max_abs_delta || (d->max_index < 0 && delta != 0.0))
        {
          d->max_abs_delta = fabs (delta);
          d->max_index = i;
        }
    }
  d->norm_a = sqrt (sa);
  d->norm_delta = sqrt (sd);
  d->relative = d->norm_a > 0.0 ? d->norm_delta / d->norm_a : d->norm_delta;
  return TRUE;
}

static void
add_only (GPtrArray *out, const Caffe__NetParameter *here, const Caffe__NetParameter *there)
{
  for (gsize i = 0; i < here->n_layer; i++)
    {
      const Caffe__LayerParameter *l = here->layer[i];
      const Caffe__LayerParameter *other = find_layer (there, l->name);

      if (l->n_blobs > 0 && (other == NULL || other->n_blobs == 0))
        g_ptr_array_add (out, g_strdup (l->name));
    }
}

CtModelDiff *
ct_model_diff_compute (const Caffe__NetParameter *a, const Caffe__NetParameter *b,
                       GError **error)
{
  g_autoptr (CtModelDiff) diff = g_new0 (CtModelDiff, 1);

  diff->blobs = g_ptr_array_new_with_free_func (blob_free);
  diff->only_a = g_ptr_array_new_with_free_func (g_free);
  diff->only_b = g_ptr_array_new_with_free_func (g_free);
  add_only (diff->only_a, a, b);
  add_only (diff->only_b, b, a);
  for (gsize i = 0; i < a->n_layer; i++)
    {
      const Caffe__LayerParameter *la = a->layer[i];
      const Caffe__LayerParameter *lb = find_layer (b, la->name);

      if (lb == NULL || la->n_blobs == 0 || lb->n_blobs == 0)
        continue;
      for (gsize j = 0; j < MAX (la->n_blobs, lb->n_blobs); j++)
        {
          CtModelDiffBlob *d = g_new0 (CtModelDiffBlob, 1);

          d->layer = g_strdup (la->name);
          d->blob_index = (guint) j;
          g_ptr_array_add (diff->blobs, d);
          if (j >= la->n_blobs || j >= lb->n_blobs)
            {
              d->shape_a = g_strdup (j < la->n_blobs ? "?" : "-");
              d->shape_b = g_strdup (j < lb->n_blobs ? "?" : "-");
              d->max_index = -1;
              continue;
            }
          if (!compare_blob (d, la->blobs[j], lb->blobs[j], error))
            return NULL;
        }
    }
  return g_steal_pointer (&diff);
}

Caffe__NetParameter *
ct_model_read (const char *path, GError **error)
{
  ProtobufCMessage *msg = ct_binary_read_file (&caffe__net_parameter__descriptor, path, error);

  if (msg == NULL)
    return NULL;
  if (!ct_proto_upgrade (msg, CT_PROTO_KIND_NET, path, NULL, error))
    {
      protobuf_c_message_free_unpacked (msg, NULL);
      return NULL;
    }
  return (Caffe__NetParameter *) msg;
}

CtModelDiff *
ct_model_diff_files (const char *path_a, const char *path_b, GError **error)
{
  Caffe__NetParameter *a = ct_model_read (path_a, error);
  Caffe__NetParameter *b = a == NULL ? NULL : ct_model_read (path_b, error);
  CtModelDiff *diff = NULL;

  if (b != NULL)
    diff = ct_model_diff_compute (a, b, error);
  if (a != NULL)
    protobuf_c_message_free_unpacked (&a->base, NULL);
  if (b != NULL)
    protobuf_c_message_free_unpacked (&b->base, NULL);
  return diff;
}

gboolean
ct_model_diff_is_equal (const CtModelDiff *diff)
{
  if (diff->only_a->len > 0 || diff->only_b->len > 0)
    return FALSE;
  for (guint i = 0; i < diff->blobs->len; i++)
    {
      const CtModelDiffBlob *d = diff->blobs->pdata[i];

      if (!d->same_shape || d->n_changed > 0)
        return FALSE;
    }
  return TRUE;
}

static int
by_relative (gconstpointer pa, gconstpointer pb)
{
  const CtModelDiffBlob *a = *(CtModelDiffBlob *const *) pa;
  const CtModelDiffBlob *b = *(CtModelDiffBlob *const *) pb;

  return a->relative > b->relative ? -1 : a->relative < b->relative;
}

GPtrArray *
ct_model_diff_by_change (const CtModelDiff *diff)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < diff->blobs->len; i++)
    g_ptr_array_add (out, diff->blobs->pdata[i]);
  g_ptr_array_sort (out, by_relative);
  return out;
}

static void
append_number (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_c (s, '\t');
  g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

char *
ct_model_diff_to_text (const CtModelDiff *diff)
{
  GString *s = g_string_new ("layer\tblob\tshape\tnorm\tdelta_norm\trelative\tmax_abs_delta"
                             "\tat\tchanged\n");

  for (guint i = 0; i < diff->blobs->len; i++)
    {
      const CtModelDiffBlob *d = diff->blobs->pdata[i];

      if (!d->same_shape)
        continue;
      g_string_append_printf (s, "%s\t%u\t%s", d->layer, d->blob_index, d->shape_a);
      append_number (s, d->norm_a);
      append_number (s, d->norm_delta);
      append_number (s, d->relative);
      append_number (s, d->max_abs_delta);
      g_string_append_printf (s, "\t%" G_GINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n", d->max_index,
                              d->n_changed);
    }
  for (guint i = 0; i < diff->blobs->len; i++)
    {
      const CtModelDiffBlob *d = diff->blobs->pdata[i];

      if (!d->same_shape)
        g_string_append_printf (s, "# %s %u: shape %s -> %s\n", d->layer, d->blob_index,
                                d->shape_a, d->shape_b);
    }
  for (guint i = 0; i < diff->only_a->len; i++)
    g_string_append_printf (s, "# only in the first: %s\n", (char *) diff->only_a->pdata[i]);
  for (guint i = 0; i < diff->only_b->len; i++)
    g_string_append_printf (s, "# only in the second: %s\n", (char *) diff->only_b->pdata[i]);
  return g_string_free (s, FALSE);
}
