/* comm-threads.c: CtComm between the threads of one process, one rank per
 * thread, as when one cortado-cli drives several GPUs (each thread trains
 * one solver). Every operation meets the other threads at a barrier; the
 * data stays where it is and each thread reads the others' buffers.
 *
 * A sum is a reduce-scatter then an all-gather over host memory: thread R
 * adds up slice R of every thread's buffer (always in rank order, so all
 * ranks get the same bits), then copies every other slice from the thread
 * that summed it. Sums finish inside sum_start: this transport carries the
 * few small host-memory operations of a GPU job (NCCL's unique id, stop
 * and snapshot requests) and, with solvers on CPU threads, lets the whole
 * multi-GPU driver run and be tested on a machine without a GPU. */
#include <string.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "comm.h"

struct _CtCommGroup {
  gint ref;
  guint size;
  GMutex lock;
  GCond cond;
  guint arrived;
  guint64 generation;
  gboolean broken;
  /* what each rank brings to the operation under way */
  float **bufs;
  gsize *counts;
  int *values;
};

typedef struct {
  CtComm parent;
  CtCommGroup *group;
} ThreadsComm;

CtCommGroup *
ct_comm_group_new (guint size)
{
  CtCommGroup *group = g_new0 (CtCommGroup, 1);

  g_return_val_if_fail (size > 0, NULL);
  group->ref = 1;
  group->size = size;
  g_mutex_init (&group->lock);
  g_cond_init (&group->cond);
  group->bufs = g_new0 (float *, size);
  group->counts = g_new0 (gsize, size);
  group->values = g_new0 (int, size);
  return group;
}

static CtCommGroup *
group_ref (CtCommGroup *group)
{
  g_atomic_int_inc (&group->ref);
  return group;
}

void
ct_comm_group_unref (CtCommGroup *group)
{
  if (group == NULL || !g_atomic_int_dec_and_test (&group->ref))
    return;
  g_mutex_clear (&group->lock);
  g_cond_clear (&group->cond);
  g_free (group->bufs);
  g_free (group->counts);
  g_free (group->values);
  g_free (group);
}

void
ct_comm_group_break (CtCommGroup *group)
{
  g_mutex_lock (&group->lock);
  group->broken = TRUE;
  g_cond_broadcast (&group->cond);
  g_mutex_unlock (&group->lock);
}

/* Wait until every rank has arrived; FALSE once a rank broke the group. */
static gboolean
barrier (CtCommGroup *group, GError **error)
{
  gboolean broken;

  g_mutex_lock (&group->lock);
  if (!group->broken)
    {
      guint64 generation = group->generation;

      if (++group->arrived == group->size)
        {
          group->arrived = 0;
          group->generation++;
          g_cond_broadcast (&group->cond);
        }
      else
        while (generation == group->generation && !group->broken)
          g_cond_wait (&group->cond, &group->lock);
    }
  broken = group->broken;
  g_mutex_unlock (&group->lock);
  if (broken)
    g_set_error (error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_COMM,
                 _("another solver thread of this run failed"));
  return !broken;
}

static void
slice (gsize n, guint size, guint rank, gsize *begin, gsize *end)
{
  *begin = n * rank / size;
  *end = n * (rank + 1) / size;
}

static CtCommRequest *const finished = (CtCommRequest *) &finished;

static CtCommRequest *
threads_sum_start (CtComm *comm, float *buf, gsize n, GError **error)
{
  CtCommGroup *g = ((ThreadsComm *) comm)->group;
  const guint me = comm->rank;
  gsize begin, end;

  g->bufs[me] = buf;
  g->counts[me] = n;
  if (!barrier (g, error))
    return NULL;
  for (guint r = 0; r < g->size; r++)
    if (g->counts[r] != n)
      {
        /* every rank sees the same counts, so every rank fails here */
        g_set_error (error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_SETUP,
                     _("solver %u sums %lu values but solver %u sums %lu"), me,
                     (unsigned long) n, r, (unsigned long) g->counts[r]);
        return NULL;
      }
  /* my slice: the sum over every rank, added in rank order */
  slice (n, g->size, me, &begin, &end);
  for (gsize i = begin; i < end; i++)
    {
      float sum = g->bufs[0][i];

      for (guint r = 1; r < g->size; r++)
        sum += g->bufs[r][i];
      buf[i] = sum;
    }
  if (!barrier (g, error))
    return NULL;
  /* the other slices, from the rank that summed each */
  for (guint r = 0; r < g->size; r++)
    if (r != me)
      {
        slice (n, g->size, r, &begin, &end);
        memcpy (buf + begin, g->bufs[r] + begin, (end - begin) * sizeof (float));
      }
  /* nobody may write its buffer again while another still reads it */
  return barrier (g, error) ? finished : NULL;
}

static gboolean
threads_sum_test (CtComm *comm, CtCommRequest *request, gboolean *done, GError **error)
{
  *done = TRUE;
  return TRUE;
}

static gboolean
threads_sum_wait (CtComm *comm, CtCommRequest *request, GError **error)
{
  return TRUE;
}

static gboolean
threads_broadcast (CtComm *comm, void *buf, gsize bytes, GError **error)
{
  CtCommGroup *g = ((ThreadsComm *) comm)->group;

  g->bufs[comm->rank] = buf;
  g->counts[comm->rank] = bytes;
  if (!barrier (g, error))
    return FALSE;
  if (comm->rank != 0)
    memcpy (buf, g->bufs[0], MIN (bytes, g->counts[0]));
  return barrier (g, error);
}

static gboolean
threads_or_int (CtComm *comm, int *value, GError **error)
{
  CtCommGroup *g = ((ThreadsComm *) comm)->group;
  int all = 0;

  g->values[comm->rank] = *value;
  if (!barrier (g, error))
    return FALSE;
  for (guint r = 0; r < g->size; r++)
    all |= g->values[r];
  if (!barrier (g, error))
    return FALSE;
  *value = all;
  return TRUE;
}

/* Every rank is a thread of this process: ending it ends them all. */
static void
threads_abort (CtComm *comm, int status)
{
  _exit (status);
}

static void
threads_free (CtComm *comm)
{
  ct_comm_group_unref (((ThreadsComm *) comm)->group);
  g_free (comm);
}

static const CtCommClass threads_class = {
  .name = "threads",
  .sum_start = threads_sum_start,
  .sum_test = threads_sum_test,
  .sum_wait = threads_sum_wait,
  .broadcast = threads_broadcast,
  .or_int = threads_or_int,
  .abort = threads_abort,
  .free = threads_free,
};

CtComm *
ct_comm_threads_new (CtCommGroup *group, guint rank)
{
  ThreadsComm *self;

  g_return_val_if_fail (rank < group->size, NULL);
  self = g_new0 (ThreadsComm, 1);
  self->parent.klass = &threads_class;
  self->parent.rank = rank;
  self->parent.size = group->size;
  self->parent.local_rank = rank;
  self->group = group_ref (group);
  return &self->parent;
}

gboolean
ct_comm_is_threads (const CtComm *comm)
{
  return comm != NULL && comm->klass == &threads_class;
}

CtCommGroup *
ct_comm_threads_get_group (CtComm *comm)
{
  g_return_val_if_fail (ct_comm_is_threads (comm), NULL);
  return ((ThreadsComm *) comm)->group;
}
