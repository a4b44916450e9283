/* mailbox.c: CtMailbox, one item at most on its way from a worker thread
 * to a main context. */
#include "mailbox.h"

struct _CtMailbox {
  GMutex lock;
  GMainContext *context;
  const char *name;
  gpointer pending;        /* not yet taken by the main context */
  gboolean scheduled;      /* an idle source will take PENDING */
  gboolean closed;
  CtMailboxMergeFunc merge;
  GDestroyNotify unref_item;
  CtMailboxDeliverFunc deliver;
  gpointer user_data;
};

CtMailbox *
ct_mailbox_new (const char *name, CtMailboxMergeFunc merge, GDestroyNotify unref_item,
                CtMailboxDeliverFunc deliver, gpointer user_data)
{
  CtMailbox *mailbox = g_atomic_rc_box_new0 (CtMailbox);

  g_mutex_init (&mailbox->lock);
  mailbox->context = g_main_context_ref_thread_default ();
  mailbox->name = name;
  mailbox->merge = merge;
  mailbox->unref_item = unref_item;
  mailbox->deliver = deliver;
  mailbox->user_data = user_data;
  return mailbox;
}

static void
mailbox_clear (gpointer data)
{
  CtMailbox *mailbox = data;

  if (mailbox->pending != NULL)
    mailbox->unref_item (mailbox->pending);
  g_main_context_unref (mailbox->context);
  g_mutex_clear (&mailbox->lock);
}

CtMailbox *
ct_mailbox_ref (CtMailbox *mailbox)
{
  return g_atomic_rc_box_acquire (mailbox);
}

void
ct_mailbox_unref (CtMailbox *mailbox)
{
  g_atomic_rc_box_release_full (mailbox, mailbox_clear);
}

void
ct_mailbox_close (CtMailbox *mailbox)
{
  g_mutex_lock (&mailbox->lock);
  mailbox->closed = TRUE;
  g_mutex_unlock (&mailbox->lock);
}

static gboolean
deliver (gpointer data)
{
  CtMailbox *mailbox = data;
  gpointer item;
  gboolean closed;

  g_mutex_lock (&mailbox->lock);
  item = g_steal_pointer (&mailbox->pending);
  mailbox->scheduled = FALSE;
  closed = mailbox->closed;
  g_mutex_unlock (&mailbox->lock);
  /* CLOSED is set only in this context's thread, so the owner cannot go
   * away while the callback runs. */
  if (!closed && item != NULL)
    mailbox->deliver (item, mailbox->user_data);
  if (item != NULL)
    mailbox->unref_item (item);
  return G_SOURCE_REMOVE;
}

void
ct_mailbox_post (CtMailbox *mailbox, gpointer item)
{
  gpointer replaced;
  gboolean schedule;

  g_mutex_lock (&mailbox->lock);
  if (mailbox->closed)
    {
      g_mutex_unlock (&mailbox->lock);
      mailbox->unref_item (item);
      return;
    }
  replaced = mailbox->pending;
  if (replaced != NULL && mailbox->merge != NULL)
    mailbox->merge (item, replaced);
  mailbox->pending = item;
  schedule = !mailbox->scheduled;
  mailbox->scheduled = TRUE;
  g_mutex_unlock (&mailbox->lock);
  if (replaced != NULL)
    mailbox->unref_item (replaced);

  if (schedule)
    {
      g_autoptr (GSource) source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, deliver, ct_mailbox_ref (mailbox),
                             (GDestroyNotify) ct_mailbox_unref);
      g_source_set_static_name (source, mailbox->name);
      g_source_attach (source, mailbox->context);
    }
}
