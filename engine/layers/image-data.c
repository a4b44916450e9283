/* image-data.c: ImageData, batches of image files named in a list file
 * (image_data_param.source), one "PATH LABEL" per line (the label follows
 * the last space, so paths may hold spaces). As in Caffe: root_folder is
 * put in front of each path as it is written, images are decoded in colour
 * (three channels, blue-green-red) or grey when is_color is false, resized
 * to new_height × new_width when both are set, transformed by
 * transform_param; shuffle reorders the list at the start and after each
 * pass (drawing from the layer's seed), rand_skip skips a random number of
 * lines at the start, and a prefetch thread loads batches ahead.
 *
 * A missing or undecodable image, or one whose size differs from the first
 * image of its batch, stops the forward with an error naming the list
 * file's line and the image. */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "data-transformer.h"
#include "engine-error.h"
#include "image.h"
#include "layer.h"
#include "prefetch-private.h"
#include "rng.h"

typedef struct {
  char *path;  /* root_folder + the listed path */
  int label;
  guint line;  /* in the list file, for errors */
} ImageEntry;

typedef struct {
  CtLayer parent;
  char *source;
  ImageEntry *entries;
  guint n_entries;
  guint next;               /* the entry the next batch starts with */
  gboolean shuffle;
  CtRng *shuffle_rng;
  CtImageColor color;
  int new_height, new_width;
  guint batch_size;
  CtDataTransformer *transformer;
  CtPrefetcher *prefetcher;
} CtImageDataLayer;

static const Caffe__ImageDataParameter *
get_param (const CtLayer *layer)
{
  static const Caffe__ImageDataParameter defaults = CAFFE__IMAGE_DATA_PARAMETER__INIT;

  return layer->param->image_data_param != NULL ? layer->param->image_data_param : &defaults;
}

/* Fisher-Yates over the entries. */
static void
shuffle_entries (CtImageDataLayer *self)
{
  for (guint i = self->n_entries; i > 1; i--)
    {
      guint j = ct_rng_uint32 (self->shuffle_rng) % i;
      ImageEntry tmp = self->entries[i - 1];

      self->entries[i - 1] = self->entries[j];
      self->entries[j] = tmp;
    }
}

/* Parse one "PATH LABEL" line; FALSE when it is not one. */
static gboolean
parse_line (char *line, const char *root, ImageEntry *entry)
{
  char *space = strrchr (line, ' ');
  char *end = NULL;
  gint64 label;

  if (space == NULL || space == line || space[1] == '\0')
    return FALSE;
  errno = 0;
  label = g_ascii_strtoll (space + 1, &end, 10);
  if (errno != 0 || *end != '\0' || label < G_MININT32 || label > G_MAXINT32)
    return FALSE;
  *space = '\0';
  entry->path = g_strconcat (root, line, NULL);
  entry->label = (int) label;
  return TRUE;
}

static gboolean
read_list (CtImageDataLayer *self, const char *root, GError **error)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (GArray) entries = g_array_new (FALSE, TRUE, sizeof (ImageEntry));

  if (!g_file_get_contents (self->source, &contents, NULL, &local))
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_INVALID,
                          _("cannot read the image list: %s"), local->message);
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strchomp (lines[i]); /* also drops a '\r' */
      ImageEntry entry = { 0 };

      if (*line == '\0')
        continue;
      if (!parse_line (line, root, &entry))
        {
          for (guint k = 0; k < entries->len; k++)
            g_free (g_array_index (entries, ImageEntry, k).path);
          return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_INVALID,
                                _("%s:%u: expected 'PATH LABEL' with an integer label"),
                                self->source, i + 1);
        }
      entry.line = i + 1;
      g_array_append_val (entries, entry);
    }
  if (entries->len == 0)
    return ct_layer_fail (&self->parent, error, CT_ENGINE_ERROR_INVALID,
                          _("%s: the image list is empty"), self->source);
  self->n_entries = entries->len;
  self->entries = (ImageEntry *) (void *) g_array_free (g_steal_pointer (&entries), FALSE);
  return TRUE;
}

static char *
entry_name (const CtImageDataLayer *self, const ImageEntry *entry)
{
  /* TRANSLATORS: list file, line number, image path */
  return g_strdup_printf (_("%s:%u: image %s"), self->source, entry->line, entry->path);
}

static gboolean
load_entry (CtImageDataLayer *self, const ImageEntry *entry, CtPixels *pixels, char **where,
            GError **error)
{
  g_autoptr (GError) local = NULL;

  *where = entry_name (self, entry);
  if (ct_image_load (entry->path, self->color, self->new_height, self->new_width, pixels,
                     &local))
    return TRUE;
  g_set_error (error, CT_DATA_ERROR, local->code, "%s:%u: %s", self->source, entry->line,
               local->message);
  return FALSE;
}

static gboolean
load_batch (CtLayer *layer, CtPrefetchBatch *batch, GError **error)
{
  CtImageDataLayer *self = (CtImageDataLayer *) layer;
  gint64 first[3] = { 0 }, chw[3];
  gsize stride = 0;

  for (guint i = 0; i < self->batch_size; i++)
    {
      const ImageEntry *entry = &self->entries[self->next];
      g_auto (CtPixels) pixels = { 0 };
      g_autofree char *where = NULL;

      if (!load_entry (self, entry, &pixels, &where, error) ||
          !ct_data_transformer_shape (self->transformer, &pixels, chw, where, error))
        return FALSE;
      if (i == 0)
        {
          memcpy (first, chw, sizeof first);
          ct_prefetch_batch_shape (batch, self->batch_size, chw);
          stride = (gsize) (chw[0] * chw[1] * chw[2]);
        }
      else if (memcmp (first, chw, sizeof first) != 0)
        {
          g_set_error (error, CT_DATA_ERROR, CT_DATA_ERROR_SHAPE,
                       _("%s: gives a %" PRId64 "×%" PRId64 "×%"
                         PRId64 " image but the batch began with %" PRId64
                         "×%" PRId64 "×%" PRId64
                         " (set new_height and new_width to resize them all)"),
                       where, chw[0], chw[1], chw[2], first[0], first[1], first[2]);
          return FALSE;
        }
      if (!ct_data_transformer_apply (self->transformer, &pixels, batch->data + i * stride,
                                      where, error))
        return FALSE;
      batch->labels[i] = (float) entry->label;
      if (++self->next >= self->n_entries)
        {
          self->next = 0;
          if (self->shuffle)
            shuffle_entries (self);
        }
    }
  return TRUE;
}

static gboolean
image_data_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  CtImageDataLayer *self = (CtImageDataLayer *) layer;
  const Caffe__ImageDataParameter *p = get_param (layer);
  g_autoptr (CtRng) rng = ct_rng_new (layer->seed);
  g_autoptr (GError) local = NULL;
  g_auto (CtPixels) pixels = { 0 };
  g_autofree char *where = NULL;
  gint64 chw[3], dims[4];

  if (p->source == NULL || *p->source == '\0')
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("image_data_param.source names no image list"));
  if (p->batch_size == 0)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("image_data_param.batch_size must be positive"));
  if ((p->new_height == 0) != (p->new_width == 0))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("set new_height and new_width together (got %u and %u)"),
                          p->new_height, p->new_width);
  if (p->new_height > G_MAXINT16 || p->new_width > G_MAXINT16)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_PROTO,
                          _("new_height and new_width must be below %d"), G_MAXINT16);
  self->source = g_strdup (p->source);
  self->batch_size = p->batch_size;
  self->new_height = (int) p->new_height;
  self->new_width = (int) p->new_width;
  self->color = p->is_color ? CT_IMAGE_COLOR : CT_IMAGE_GRAY;
  self->shuffle = p->shuffle;
  self->shuffle_rng = ct_rng_new (ct_rng_next_seed (rng));
  self->transformer = ct_data_transformer_new (layer->param->transform_param, layer->phase,
                                               ct_rng_next_seed (rng), &local);
  if (self->transformer == NULL)
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, "%s", local->message);
  if (!read_list (self, p->root_folder != NULL ? p->root_folder : "", error))
    return FALSE;
  if (self->shuffle)
    shuffle_entries (self);
  if (p->rand_skip > 0)
    self->next = (ct_rng_uint32 (rng) % p->rand_skip) % self->n_entries;

  /* the tops' shape from the first image, as Caffe infers it */
  if (!load_entry (self, &self->entries[self->next], &pixels, &where, &local) ||
      !ct_data_transformer_shape (self->transformer, &pixels, chw, where, &local))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID, "%s", local->message);
  dims[0] = self->batch_size;
  memcpy (dims + 1, chw, sizeof chw);
  if (!ct_blob_reshape (CT_TOP (top, 0), dims, 4, &local) ||
      (top->len > 1 && !ct_blob_reshape (CT_TOP (top, 1), dims, 1, &local)))
    return ct_layer_fail (layer, error, CT_ENGINE_ERROR_SHAPE, "%s", local->message);

  self->prefetcher = ct_prefetcher_new (layer, 4, load_batch);
  return TRUE;
}

static gboolean
image_data_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return TRUE;
}

/* On the GPU, the batch goes from the loader's buffer straight to the
 * tops' GPU copies. */
static gboolean
image_data_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu,
                    GError **error)
{
  return ct_prefetcher_forward_on (((CtImageDataLayer *) layer)->prefetcher, top, gpu, error);
}

static void
image_data_finalize (CtLayer *layer)
{
  CtImageDataLayer *self = (CtImageDataLayer *) layer;

  g_clear_pointer (&self->prefetcher, ct_prefetcher_free);
  for (guint i = 0; i < self->n_entries; i++)
    g_free (self->entries[i].path);
  g_clear_pointer (&self->entries, g_free);
  g_clear_pointer (&self->source, g_free);
  g_clear_pointer (&self->shuffle_rng, ct_rng_free);
  g_clear_pointer (&self->transformer, ct_data_transformer_free);
}

/* Where the text gives the batch size (for the editor and the runner). */
static guint32 *
image_data_batch_size (Caffe__LayerParameter *param)
{
  return param->image_data_param != NULL ? &param->image_data_param->batch_size : NULL;
}

static const CtLayerExplanation image_data_explanation = {
  .summary = N_("Reads image files listed, each with its label, in a text file, and makes "
                "batches of them, resized and transformed."),
  .formula = N_("data[n] = transform(resize(image n)), label[n] = its label"),
  .parameters = N_("source: the list file; root_folder; batch_size; new_height, new_width: "
                   "resize; shuffle; is_color."),
  .gradient = N_("Data is given, not learned: no diff is computed for it."),
};

const CtLayerClass ct_image_data_layer_class = {
  .explanation = &image_data_explanation,
  .type = "ImageData",
  .family = CT_LAYER_FAMILY_DATA,
  .description = N_("Batches of image files named, with labels, in a list file"),
  .instance_size = sizeof (CtImageDataLayer),
  .bottoms = CT_EXACTLY (0),
  .tops = CT_BETWEEN (1, 2),
  .setup = image_data_setup,
  .reshape = image_data_reshape,
  .forward = image_data_forward,
  .gpu_forward = TRUE,
  .finalize = image_data_finalize,
  .new_layer_text = "image_data_param { source: \"images.txt\" batch_size: 32 }",
  .is_data_source = TRUE,
  .reads_files = TRUE,
  .transforms_data = TRUE,
  .batch_size = image_data_batch_size,
};
