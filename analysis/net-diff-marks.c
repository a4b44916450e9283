/* net-diff-marks.c: a net diff gathered per layer (see net-diff-marks.h). */
#include <glib/gi18n-lib.h>

#include "net-diff-marks.h"

static void
mark_free (gpointer p)
{
  CtNetDiffMark *m = p;

  g_free (m->layer);
  g_free (m->type);
  g_free (m->note);
  g_free (m);
}

static CtNetDiffMark *
mark_for (GPtrArray *out, GHashTable *by_layer, const char *layer, CtNetDiffKind kind)
{
  CtNetDiffMark *m = g_hash_table_lookup (by_layer, layer);

  if (m != NULL)
    return m;
  m = g_new0 (CtNetDiffMark, 1);
  m->layer = g_strdup (layer);
  m->kind = kind;
  g_ptr_array_add (out, m);
  g_hash_table_insert (by_layer, m->layer, m);
  return m;
}

static void
add_line (CtNetDiffMark *m, char *line)
{
  char *joined = m->note != NULL ? g_strconcat (m->note, "\n", line, NULL) : g_strdup (line);

  g_free (m->note);
  m->note = joined;
  g_free (line);
}

GPtrArray *
ct_net_diff_marks (GPtrArray *entries)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (mark_free);
  g_autoptr (GHashTable) kept = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) removed = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < entries->len; i++)
    {
      const CtNetDiffEntry *e = entries->pdata[i];
      CtNetDiffMark *m;

      switch (e->kind)
        {
        case CT_NET_DIFF_ADDED:
          m = mark_for (out, kept, e->layer_b, CT_NET_DIFF_ADDED);
          add_line (m, g_strdup_printf (_("added (%s)"), e->type));
          break;
        case CT_NET_DIFF_REMOVED:
          m = mark_for (out, removed, e->layer_a, CT_NET_DIFF_REMOVED);
          m->type = g_strdup (e->type);
          add_line (m, g_strdup_printf (_("removed (%s)"), e->type));
          break;
        case CT_NET_DIFF_RENAMED:
          m = mark_for (out, kept, e->layer_b, CT_NET_DIFF_RENAMED);
          add_line (m, g_strdup_printf (_("renamed from '%s'"), e->layer_a));
          break;
        case CT_NET_DIFF_CHANGED:
          if (e->layer_a == NULL)
            break;
          m = mark_for (out, kept, e->layer_a, CT_NET_DIFF_CHANGED);
          /* TRANSLATORS: a field of a layer that changed: its path, the old
           * value and the new */
          add_line (m, g_strdup_printf (_("changed: %s %s → %s"), e->field, e->value_a,
                                        e->value_b));
          break;
        }
    }
  return out;
}

void
ct_net_diff_kind_color (CtNetDiffKind kind, guint8 rgb[3])
{
  static const guint32 colors[] = {
    [CT_NET_DIFF_ADDED] = 0x26a269,
    [CT_NET_DIFF_REMOVED] = 0xc01c28,
    [CT_NET_DIFF_RENAMED] = 0x3584e4,
    [CT_NET_DIFF_CHANGED] = 0xe66100,
  };
  guint32 c = colors[kind];

  rgb[0] = c >> 16 & 0xff;
  rgb[1] = c >> 8 & 0xff;
  rgb[2] = c & 0xff;
}
