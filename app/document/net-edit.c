/* net-edit.c: the workbench's edits as operations on a NetParameter (see
 * net-edit.h). Everything allocated into the message comes from malloc
 * (g_malloc on glibc) so that protobuf_c_message_free_unpacked frees it. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "net-edit.h"
#include "layer-catalogue.h"
#include "text-format.h"

G_DEFINE_QUARK (ct-net-edit-error-quark, ct_net_edit_error)

/* Repeated strings. */

static void
strv_append (size_t *n, char ***array, const char *value)
{
  *array = g_realloc (*array, (*n + 1) * sizeof (char *));
  (*array)[(*n)++] = g_strdup (value);
}

static void
strv_remove (size_t *n, char ***array, gsize index)
{
  g_free ((*array)[index]);
  memmove (*array + index, *array + index + 1, (*n - index - 1) * sizeof (char *));
  if (--(*n) == 0)
    g_clear_pointer (array, g_free);
}

static void
strv_replace (char **slot, const char *value)
{
  g_free (*slot);
  *slot = g_strdup (value);
}

static gboolean
strv_contains (size_t n, char *const *array, const char *value)
{
  for (gsize i = 0; i < n; i++)
    if (g_strcmp0 (array[i], value) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
layer_writes (const Caffe__LayerParameter *layer, const char *blob)
{
  return strv_contains (layer->n_top, layer->top, blob);
}

/* Names. */

gboolean
ct_net_edit_name_in_use (const Caffe__NetParameter *net, const char *name)
{
  for (gsize i = 0; i < net->n_layer; i++)
    {
      const Caffe__LayerParameter *layer = net->layer[i];
      if (g_strcmp0 (layer->name, name) == 0 || strv_contains (layer->n_top, layer->top, name)
          || strv_contains (layer->n_bottom, layer->bottom, name))
        return TRUE;
    }
  return FALSE;
}

char *
ct_net_edit_unique_name (const Caffe__NetParameter *net, const char *prefix)
{
  for (guint n = 1;; n++)
    {
      g_autofree char *name = g_strdup_printf ("%s%u", prefix, n);
      if (!ct_net_edit_name_in_use (net, name))
        return g_steal_pointer (&name);
    }
}

char *
ct_net_edit_name_prefix (const char *type)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (type);

  if (klass != NULL && klass->name_prefix != NULL)
    return g_strdup (klass->name_prefix);
  if ((klass != NULL && klass->is_loss) || g_str_has_suffix (type, "Loss"))
    return g_strdup ("loss");
  if (*type == '\0')
    return g_strdup ("layer");
  return g_ascii_strdown (type, -1);
}

/* Layers in the array. */

static void
insert_layer_at (Caffe__NetParameter *net, Caffe__LayerParameter *layer, gsize index)
{
  net->layer = g_realloc (net->layer, (net->n_layer + 1) * sizeof *net->layer);
  memmove (net->layer + index + 1, net->layer + index,
           (net->n_layer - index) * sizeof *net->layer);
  net->layer[index] = layer;
  net->n_layer++;
}

static Caffe__LayerParameter *
take_layer_at (Caffe__NetParameter *net, gsize index)
{
  Caffe__LayerParameter *layer = net->layer[index];

  memmove (net->layer + index, net->layer + index + 1,
           (net->n_layer - index - 1) * sizeof *net->layer);
  if (--net->n_layer == 0)
    g_clear_pointer (&net->layer, g_free);
  return layer;
}

static gssize
last_writer (const Caffe__NetParameter *net, const char *blob, gsize before)
{
  for (gsize i = MIN (before, net->n_layer); i > 0; i--)
    if (layer_writes (net->layer[i - 1], blob))
      return (gssize) i - 1;
  return -1;
}

static gboolean
check_index (const Caffe__NetParameter *net, guint index, GError **error)
{
  if (index < net->n_layer)
    return TRUE;
  g_set_error (error, CT_NET_EDIT_ERROR, 0, _("The net has no layer number %u"), index + 1);
  return FALSE;
}

/* Counts from the catalogue: what a new layer of KLASS should have. */
static guint
default_count (const CtCountRule *rule, guint fallback)
{
  gboolean unset = rule->exact == 0 && rule->min == 0 && rule->max == 0;

  if (unset)
    return fallback;
  if (rule->exact >= 0)
    return (guint) rule->exact;
  if (rule->min > 0)
    return (guint) rule->min;
  return fallback;
}

static Caffe__LayerParameter *
new_layer (const Caffe__NetParameter *net, const CtLayerClass *klass, const char *type,
           GError **error)
{
  Caffe__LayerParameter *layer = NULL;
  g_autofree char *prefix = NULL;

  /* The type's own starting parameters (CtLayerClass), Caffe's classic
   * choices. */
  if (klass != NULL && klass->new_layer_text != NULL)
    {
      layer = (Caffe__LayerParameter *) ct_text_parse (&caffe__layer_parameter__descriptor,
                                                       klass->new_layer_text, -1, type,
                                                       CT_TEXT_STRICT, error);
      if (layer == NULL)
        return NULL;
    }
  else
    {
      layer = g_malloc0 (sizeof *layer);
      caffe__layer_parameter__init (layer);
    }
  prefix = ct_net_edit_name_prefix (type);
  g_free (layer->name);
  layer->name = ct_net_edit_unique_name (net, prefix);
  g_free (layer->type);
  layer->type = g_strdup (type);
  return layer;
}

int
ct_net_edit_add_layer (Caffe__NetParameter *net, const char *type, const char *bottom,
                       GError **error)
{
  const CtLayerClass *klass = ct_layer_catalogue_lookup (type);
  Caffe__LayerParameter *layer;
  guint n_bottoms = 1, n_tops = 1;
  gboolean in_place;
  gsize position;

  if (type == NULL || *type == '\0')
    {
      g_set_error (error, CT_NET_EDIT_ERROR, 0, _("A layer needs a type"));
      return -1;
    }
  if (klass != NULL)
    {
      n_bottoms = default_count (&klass->bottoms, 1);
      n_tops = default_count (&klass->tops, 1);
    }
  if (klass != NULL && klass->is_data_source)
    n_bottoms = 0, n_tops = 2;
  layer = new_layer (net, klass, type, error);
  if (layer == NULL)
    return -1;

  in_place = bottom != NULL && n_bottoms > 0 && n_tops == 1
             && klass != NULL && klass->usually_in_place;
  if (bottom != NULL && n_bottoms > 0)
    {
      strv_append (&layer->n_bottom, &layer->bottom, bottom);
      /* A loss or an accuracy compares with the labels. */
      if (n_bottoms >= 2 && klass != NULL && klass->family == CT_LAYER_FAMILY_LOSS
          && last_writer (net, "label", net->n_layer) >= 0)
        strv_append (&layer->n_bottom, &layer->bottom, "label");
    }
  if (in_place)
    strv_append (&layer->n_top, &layer->top, bottom);
  else if (n_tops == 2 && n_bottoms == 0)
    {
      g_autofree char *data = ct_net_edit_name_in_use (net, "data")
                                ? ct_net_edit_unique_name (net, "data") : g_strdup ("data");
      g_autofree char *label = ct_net_edit_name_in_use (net, "label")
                                 ? ct_net_edit_unique_name (net, "label") : g_strdup ("label");
      strv_append (&layer->n_top, &layer->top, data);
      strv_append (&layer->n_top, &layer->top, label);
    }
  else
    for (guint i = 0; i < n_tops; i++)
      {
        g_autofree char *top = i == 0 ? g_strdup (layer->name)
                                      : g_strdup_printf ("%s_%u", layer->name, i);
        strv_append (&layer->n_top, &layer->top, top);
      }

  if (bottom != NULL && n_bottoms > 0)
    {
      gssize writer = last_writer (net, bottom, net->n_layer);
      position = writer >= 0 ? (gsize) writer + 1 : net->n_layer;
    }
  else if (n_bottoms == 0)
    {
      /* After the other layers that read nothing, at the top of the file. */
      position = 0;
      while (position < net->n_layer && net->layer[position]->n_bottom == 0)
        position++;
    }
  else
    position = net->n_layer;
  insert_layer_at (net, layer, position);
  return (int) position;
}

static int
index_of_layer (const Caffe__NetParameter *net, const Caffe__LayerParameter *layer)
{
  for (gsize i = 0; i < net->n_layer; i++)
    if (net->layer[i] == layer)
      return (int) i;
  return -1;
}

int
ct_net_edit_insert_layer (Caffe__NetParameter *net, const char *type, guint from,
                          guint from_top, guint to, guint to_bottom, GError **error)
{
  Caffe__LayerParameter *target, *added;
  g_autofree char *blob = NULL;
  int index;

  if (!check_index (net, from, error) || !check_index (net, to, error))
    return -1;
  if (from_top >= net->layer[from]->n_top || to_bottom >= net->layer[to]->n_bottom)
    {
      g_set_error (error, CT_NET_EDIT_ERROR, 0, _("That connection does not exist"));
      return -1;
    }
  blob = g_strdup (net->layer[from]->top[from_top]);
  target = net->layer[to];
  index = ct_net_edit_add_layer (net, type, blob, error);
  if (index < 0)
    return -1;
  added = net->layer[index];
  if (added->n_top > 0 && !g_str_equal (added->top[0], blob))
    strv_replace (&target->bottom[to_bottom], added->top[0]);
  else if (index > index_of_layer (net, target))
    {
      /* In place, but placed after TARGET: it must run before it. */
      take_layer_at (net, index);
      insert_layer_at (net, added, index_of_layer (net, target));
    }
  if (!ct_net_edit_sort (net, error))
    return -1;
  return index_of_layer (net, added);
}

gboolean
ct_net_edit_delete_layer (Caffe__NetParameter *net, guint index, GError **error)
{
  Caffe__LayerParameter *layer;

  if (!check_index (net, index, error))
    return FALSE;
  layer = take_layer_at (net, index);
  if (layer->n_bottom == 1 && layer->n_top == 1
      && g_strcmp0 (layer->bottom[0], layer->top[0]) != 0
      && last_writer (net, layer->top[0], net->n_layer) < 0)
    {
      /* Bridge: whoever read the deleted layer's output now reads its input. */
      for (gsize i = index; i < net->n_layer; i++)
        for (gsize j = 0; j < net->layer[i]->n_bottom; j++)
          if (g_strcmp0 (net->layer[i]->bottom[j], layer->top[0]) == 0)
            strv_replace (&net->layer[i]->bottom[j], layer->bottom[0]);
    }
  protobuf_c_message_free_unpacked (&layer->base, NULL);
  return TRUE;
}

gboolean
ct_net_edit_rename_layer (Caffe__NetParameter *net, guint index, const char *name,
                          GError **error)
{
  g_autofree char *clean = NULL;

  if (!check_index (net, index, error))
    return FALSE;
  clean = g_strstrip (g_strdup (name != NULL ? name : ""));
  if (*clean == '\0')
    {
      g_set_error (error, CT_NET_EDIT_ERROR, 0, _("A layer name cannot be empty"));
      return FALSE;
    }
  for (gsize i = 0; i < net->n_layer; i++)
    if (i != index && g_strcmp0 (net->layer[i]->name, clean) == 0)
      {
        g_set_error (error, CT_NET_EDIT_ERROR, 0, _("Another layer is already called '%s'"),
                     clean);
        return FALSE;
      }
  strv_replace (&net->layer[index]->name, clean);
  return TRUE;
}

gboolean
ct_net_edit_connect (Caffe__NetParameter *net, guint from, guint from_top, guint to,
                     int to_bottom, GError **error)
{
  Caffe__LayerParameter *target;
  g_autofree char *blob = NULL;
  g_autofree char *old = NULL;
  gboolean appended;

  if (!check_index (net, from, error) || !check_index (net, to, error))
    return FALSE;
  if (from == to)
    {
      g_set_error (error, CT_NET_EDIT_ERROR, 0, _("A layer cannot read its own output"));
      return FALSE;
    }
  if (from_top >= net->layer[from]->n_top)
    {
      g_set_error (error, CT_NET_EDIT_ERROR, 0, _("Layer '%s' has no top number %u"),
                   net->layer[from]->name, from_top + 1);
      return FALSE;
    }
  blob = g_strdup (net->layer[from]->top[from_top]);
  target = net->layer[to];
  appended = to_bottom < 0 || (gsize) to_bottom >= target->n_bottom;
  if (appended)
    strv_append (&target->n_bottom, &target->bottom, blob);
  else
    {
      old = g_strdup (target->bottom[to_bottom]);
      strv_replace (&target->bottom[to_bottom], blob);
    }
  if (!ct_net_edit_sort (net, error))
    {
      /* Undo, so that a refused connection leaves the net as it was. */
      if (appended)
        strv_remove (&target->n_bottom, &target->bottom, target->n_bottom - 1);
      else
        strv_replace (&target->bottom[to_bottom], old);
      return FALSE;
    }
  return TRUE;
}

gboolean
ct_net_edit_disconnect (Caffe__NetParameter *net, guint to, guint to_bottom, GError **error)
{
  if (!check_index (net, to, error))
    return FALSE;
  if (to_bottom >= net->layer[to]->n_bottom)
    {
      g_set_error (error, CT_NET_EDIT_ERROR, 0, _("Layer '%s' has no bottom number %u"),
                   net->layer[to]->name, to_bottom + 1);
      return FALSE;
    }
  strv_remove (&net->layer[to]->n_bottom, &net->layer[to]->bottom, to_bottom);
  return TRUE;
}

/* Sorting. Layer J depends on the layer that writes each blob it reads:
 * the last writer before it, or (a connection just made backwards) the
 * first writer after it. Kahn's algorithm taking the lowest ready index
 * keeps the present order wherever it works. */
gboolean
ct_net_edit_sort (Caffe__NetParameter *net, GError **error)
{
  gsize n = net->n_layer;
  g_autofree guint *indegree = g_new0 (guint, n);
  g_autoptr (GPtrArray) dependents = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autofree gboolean *done = g_new0 (gboolean, n);
  g_autofree Caffe__LayerParameter **order = g_new (Caffe__LayerParameter *, n);
  gsize placed = 0;

  for (gsize i = 0; i < n; i++)
    g_ptr_array_add (dependents, g_array_new (FALSE, FALSE, sizeof (guint)));
  for (gsize j = 0; j < n; j++)
    {
      const Caffe__LayerParameter *layer = net->layer[j];
      for (gsize b = 0; b < layer->n_bottom; b++)
        {
          gssize writer = last_writer (net, layer->bottom[b], j);
          if (writer < 0)
            for (gsize k = j + 1; k < n && writer < 0; k++)
              if (layer_writes (net->layer[k], layer->bottom[b]))
                writer = (gssize) k;
          if (writer < 0)
            continue;
          g_array_append_val (g_ptr_array_index (dependents, writer), j);
          indegree[j]++;
        }
    }
  while (placed < n)
    {
      gssize next = -1;
      GArray *deps;

      for (gsize i = 0; i < n && next < 0; i++)
        if (!done[i] && indegree[i] == 0)
          next = (gssize) i;
      if (next < 0)
        {
          g_set_error (error, CT_NET_EDIT_ERROR, 1,
                       _("That would make a cycle: a layer would read its own output"));
          return FALSE;
        }
      done[next] = TRUE;
      order[placed++] = net->layer[next];
      deps = g_ptr_array_index (dependents, next);
      for (guint d = 0; d < deps->len; d++)
        indegree[g_array_index (deps, guint, d)]--;
    }
  memcpy (net->layer, order, n * sizeof *order);
  return TRUE;
}

/* Clipboard. */

char *
ct_net_edit_copy_text (const Caffe__NetParameter *net, const guint *indices, guint n)
{
  Caffe__NetParameter part = CAFFE__NET_PARAMETER__INIT;
  g_autofree Caffe__LayerParameter **layers = g_new (Caffe__LayerParameter *, MAX (n, 1));
  guint kept = 0;

  for (guint i = 0; i < n; i++)
    if (indices[i] < net->n_layer)
      layers[kept++] = net->layer[indices[i]];
  part.n_layer = kept;
  part.layer = layers;
  /* Borrowed layers: print, never free PART. */
  return ct_text_print (&part.base);
}

static void
rename_blob_in (Caffe__LayerParameter **layers, gsize n, const char *from, const char *to)
{
  for (gsize i = 0; i < n; i++)
    {
      for (gsize j = 0; j < layers[i]->n_bottom; j++)
        if (g_strcmp0 (layers[i]->bottom[j], from) == 0)
          strv_replace (&layers[i]->bottom[j], to);
      for (gsize j = 0; j < layers[i]->n_top; j++)
        if (g_strcmp0 (layers[i]->top[j], from) == 0)
          strv_replace (&layers[i]->top[j], to);
    }
}

static Caffe__NetParameter *
parse_clipboard (const char *text, GError **error)
{
  g_autoptr (GError) local = NULL;
  Caffe__NetParameter *part;
  Caffe__LayerParameter *single;

  part = (Caffe__NetParameter *) ct_text_parse (&caffe__net_parameter__descriptor, text, -1,
                                                _("clipboard"), CT_TEXT_LENIENT, &local);
  if (part != NULL && part->n_layer > 0)
    return part;
  if (part != NULL)
    protobuf_c_message_free_unpacked (&part->base, NULL);
  /* A bare layer body ("name: ... type: ..."), as copied from inside a block. */
  single = (Caffe__LayerParameter *) ct_text_parse (&caffe__layer_parameter__descriptor, text,
                                                    -1, _("clipboard"), CT_TEXT_LENIENT, NULL);
  if (single != NULL && single->type != NULL)
    {
      part = g_malloc0 (sizeof *part);
      caffe__net_parameter__init (part);
      part->layer = g_new (Caffe__LayerParameter *, 1);
      part->layer[0] = single;
      part->n_layer = 1;
      return part;
    }
  if (single != NULL)
    protobuf_c_message_free_unpacked (&single->base, NULL);
  if (local != NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  else
    g_set_error (error, CT_NET_EDIT_ERROR, 2, _("The clipboard holds no layers"));
  return NULL;
}

static char *
unique_name_in_both (const Caffe__NetParameter *net, const Caffe__NetParameter *part,
                     const char *prefix)
{
  for (guint n = 1;; n++)
    {
      g_autofree char *name = g_strdup_printf ("%s%u", prefix, n);
      if (!ct_net_edit_name_in_use (net, name) && !ct_net_edit_name_in_use (part, name))
        return g_steal_pointer (&name);
    }
}

gboolean
ct_net_edit_paste_text (Caffe__NetParameter *net, const char *text, GArray *new_indices,
                        GError **error)
{
  Caffe__NetParameter *part = parse_clipboard (text, error);
  g_autofree Caffe__LayerParameter **pasted = NULL;
  gsize n_pasted;

  if (part == NULL)
    return FALSE;
  for (gsize i = 0; i < part->n_layer; i++)
    {
      Caffe__LayerParameter *layer = part->layer[i];
      g_autofree char *prefix = NULL;
      g_autofree char *fresh = NULL;

      if (layer->type == NULL)
        layer->type = g_strdup ("");
      if (layer->name != NULL && *layer->name != '\0'
          && !ct_net_edit_name_in_use (net, layer->name))
        continue;
      prefix = ct_net_edit_name_prefix (layer->type);
      fresh = unique_name_in_both (net, part, prefix);
      strv_replace (&layer->name, fresh);
      /* Blobs this layer wrote under names the net uses follow it, unless
       * it computes them in place on a blob it reads. */
      for (gsize t = 0; t < layer->n_top; t++)
        {
          g_autofree char *top = g_strdup (layer->top[t]);
          g_autofree char *renamed = NULL;

          if (strv_contains (layer->n_bottom, layer->bottom, top)
              || !ct_net_edit_name_in_use (net, top))
            continue;
          renamed = t == 0 ? g_strdup (fresh)
                           : g_strdup_printf ("%s_%" G_GSIZE_FORMAT, fresh, t);
          rename_blob_in (part->layer + i, part->n_layer - i, top, renamed);
        }
    }
  n_pasted = part->n_layer;
  pasted = g_new (Caffe__LayerParameter *, MAX (n_pasted, 1));
  for (gsize i = 0; i < n_pasted; i++)
    {
      pasted[i] = part->layer[i];
      insert_layer_at (net, part->layer[i], net->n_layer);
      part->layer[i] = NULL;
    }
  part->n_layer = 0;
  protobuf_c_message_free_unpacked (&part->base, NULL);
  if (!ct_net_edit_sort (net, error))
    return FALSE;
  if (new_indices != NULL)
    for (gsize i = 0; i < n_pasted; i++)
      {
        int index = index_of_layer (net, pasted[i]);
        g_array_append_val (new_indices, index);
      }
  return TRUE;
}

/* Data paths. */

static guint
resolve_path (char **path, const char *base_dir)
{
  g_autofree char *candidate = NULL;

  if (*path == NULL || **path == '\0' || g_path_is_absolute (*path)
      || g_file_test (*path, G_FILE_TEST_EXISTS))
    return 0;
  candidate = g_build_filename (base_dir, *path, NULL);
  if (!g_file_test (candidate, G_FILE_TEST_EXISTS))
    return 0;
  g_free (*path);
  *path = g_steal_pointer (&candidate);
  return 1;
}

guint
ct_net_edit_resolve_paths (Caffe__NetParameter *net, const char *base_dir)
{
  guint changed = 0;

  if (base_dir == NULL)
    return 0;
  for (gsize i = 0; i < net->n_layer; i++)
    {
      Caffe__LayerParameter *layer = net->layer[i];

      if (layer->data_param != NULL)
        changed += resolve_path (&layer->data_param->source, base_dir);
      if (layer->image_data_param != NULL)
        {
          changed += resolve_path (&layer->image_data_param->source, base_dir);
          changed += resolve_path (&layer->image_data_param->root_folder, base_dir);
        }
      if (layer->hdf5_data_param != NULL)
        changed += resolve_path (&layer->hdf5_data_param->source, base_dir);
      if (layer->window_data_param != NULL)
        changed += resolve_path (&layer->window_data_param->source, base_dir);
      if (layer->transform_param != NULL)
        changed += resolve_path (&layer->transform_param->mean_file, base_dir);
    }
  return changed;
}
