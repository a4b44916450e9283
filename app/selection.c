/* selection.c: CtSelection (see selection.h). */
#include "selection.h"

struct _CtSelection {
  GObject parent_instance;

  GStrv ids;
  /* A blob instead of ids: its name and its edge's ends (ids empty). */
  char *blob;
  char *producer;
  char *consumer;
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

static void
clear_blob (CtSelection *self)
{
  g_clear_pointer (&self->blob, g_free);
  g_clear_pointer (&self->producer, g_free);
  g_clear_pointer (&self->consumer, g_free);
}

void
ct_selection_set (CtSelection *self, const char *const *ids, CtSelectionFlags flags)
{
  gboolean had_blob;

  g_return_if_fail (CT_IS_SELECTION (self));
  had_blob = self->blob != NULL;
  if (same_ids ((const char *const *) self->ids, ids) && !had_blob
      && (flags & CT_SELECTION_REVEAL) == 0)
    return;
  clear_blob (self);
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

void
ct_selection_set_blob (CtSelection *self, const char *blob, const char *producer,
                       const char *consumer, CtSelectionFlags flags)
{
  g_return_if_fail (CT_IS_SELECTION (self));
  g_return_if_fail (blob != NULL);
  if (g_strcmp0 (self->blob, blob) == 0 && g_strcmp0 (self->producer, producer) == 0
      && g_strcmp0 (self->consumer, consumer) == 0 && (flags & CT_SELECTION_REVEAL) == 0)
    return;
  if (g_strcmp0 (self->blob, blob) != 0 || g_strcmp0 (self->producer, producer) != 0
      || g_strcmp0 (self->consumer, consumer) != 0)
    {
      /* The arguments may point into the old values. */
      char *new_blob = g_strdup (blob);
      char *new_producer = g_strdup (producer);
      char *new_consumer = g_strdup (consumer);

      clear_blob (self);
      self->blob = new_blob;
      self->producer = new_producer;
      self->consumer = new_consumer;
      g_strfreev (self->ids);
      self->ids = g_new0 (char *, 1);
    }
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0, (guint) flags);
}

const char *
ct_selection_get_blob (CtSelection *self)
{
  g_return_val_if_fail (CT_IS_SELECTION (self), NULL);
  return self->blob;
}

const char *
ct_selection_get_blob_producer (CtSelection *self)
{
  g_return_val_if_fail (CT_IS_SELECTION (self), NULL);
  return self->producer;
}

const char *
ct_selection_get_blob_consumer (CtSelection *self)
{
  g_return_val_if_fail (CT_IS_SELECTION (self), NULL);
  return self->consumer;
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
  clear_blob (self);
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
