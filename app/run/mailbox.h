/* mailbox.h: CtMailbox, how a worker thread hands things (the runner's
 * snapshots, the trainer's progress) to the main context that created
 * the mailbox, without flooding it.
 *
 * The mailbox holds at most one item not yet delivered. The worker posts
 * into it under its lock; an item posted while another waits replaces it,
 * after a merge function has carried over what must not be lost (an
 * error, the points of a plot). One idle source is attached per delivery;
 * an idle source (rather than g_main_context_invoke, which runs the
 * function at once in the calling thread when that thread can acquire the
 * context) guarantees that the callback always runs in the thread that
 * iterates the context, never in the worker. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* NEXT is about to replace OLD (neither is shared yet): move into NEXT
 * what OLD must not lose. */
typedef void (*CtMailboxMergeFunc) (gpointer next, gpointer old);
/* In the main context, with the item (borrowed). */
typedef void (*CtMailboxDeliverFunc) (gpointer item, gpointer user_data);

typedef struct _CtMailbox CtMailbox;

/* A mailbox delivering into the caller's thread-default main context.
 * MERGE may be NULL; UNREF_ITEM drops an item. NAME names the idle
 * sources (static). */
CtMailbox *ct_mailbox_new (const char *name, CtMailboxMergeFunc merge,
                           GDestroyNotify unref_item, CtMailboxDeliverFunc deliver,
                           gpointer user_data);
CtMailbox *ct_mailbox_ref (CtMailbox *mailbox);
void ct_mailbox_unref (CtMailbox *mailbox);
/* From the worker: hand ITEM (taken) over. */
void ct_mailbox_post (CtMailbox *mailbox, gpointer item);
/* From the main context's thread: deliver nothing more (what arrives
 * later is dropped). */
void ct_mailbox_close (CtMailbox *mailbox);

G_END_DECLS
