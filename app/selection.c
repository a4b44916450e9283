/* selection.c: CtSelection (see selection.h). */
#include "selection.h"

struct _CtSelection {
  GObject parent_instance;

  GStrv ids;
};

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (CtSelection, ct_selection, G_TYPE_OBJECT)

static gboolean
same_ids (const char *const *a, const char *const *b)
{
  gsize i = 0;

  for (; a != NULL && a[i] != NULL && b != NULL && b[i] != NULL; i++)
    if (!g_str_equal (a[i], b[i]))
      return FALSE;
  return (a == NULL || a[i] == NULL) && (b == NULL || b[i] == NULL);
}

void
ct_selection_set (CtSelection *self, const char *const *ids, CtSelectionFlags flags)
{
  g_return_if_fail (CT_IS_SELECTION (self));
  if (same_ids ((const char *const *) self->ids, ids) && (flags & CT_SELECTION_REVEAL) == 0)
    return;
  if (!same_ids ((const char *const *) self->ids, ids))
    {
      /* IDS may point into the old array. */
      GStrv old = self->ids;

      self->ids = g_strdupv ((char **) ids);
      if (self->ids == NULL)
        self->ids = g_new0 (char *, 1);
      g_strfreev (old);
    }
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, (guint) flags);
}

const char *const *
ct_selection_get_ids (CtSelection *self)
{
  g_return_val_if_fail (CT_IS_SELECTION (self), NULL);
  return (const char *const *) self->ids;
}

char **
ct_selection_dup_ids (CtSelection *self)
{
  g_return_val_if_fail (CT_IS_SELECTION (self), NULL);
  return g_strdupv (self->ids);
}

guint
ct_selection_get_count (CtSelection *self)
{
  g_return_val_if_fail (CT_IS_SELECTION (self), 0);
  return g_strv_length (self->ids);
}

gboolean
ct_selection_contains (CtSelection *self, const char *id)
{
  g_return_val_if_fail (CT_IS_SELECTION (self), FALSE);
  return id != NULL && g_strv_contains ((const char *const *) self->ids, id);
}

static void
ct_selection_finalize (GObject *object)
{
  CtSelection *self = CT_SELECTION (object);

  g_strfreev (self->ids);
  G_OBJECT_CLASS (ct_selection_parent_class)->finalize (object);
}

static void
ct_selection_class_init (CtSelectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ct_selection_finalize;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
ct_selection_init (CtSelection *self)
{
  self->ids = g_new0 (char *, 1);
}

CtSelection *
ct_selection_new (void)
{
  return g_object_new (CT_TYPE_SELECTION, NULL);
}
