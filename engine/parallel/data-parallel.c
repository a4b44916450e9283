/* data-parallel.c: the gradient exchange of data-parallel training (see
 * data-parallel.h). The learnable parameters are grouped, from the last
 * layer's to the first's, into buckets of about BUCKET_BYTES; a bucket is
 * complete once the backward pass has left the lowest layer owning one of
 * its parameters (a shared parameter's owner is the first layer using it,
 * so its sharers above are done by then). A complete bucket's diffs are
 * copied into the bucket's buffer and its sum started; each later layer's
 * end lets the started sums progress; before the update every bucket is
 * waited for and its mean copied back into the diffs. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "blas.h"
#include "device.h"
#include "data-parallel.h"
#include "engine-error.h"

typedef struct {
  guint first;            /* learnable ids first..last (first >= last: net order reversed) */
  guint last;
  guint ready_layer;      /* complete once this layer's backward is done */
  float *buffer;          /* host memory, or device memory for a comm that sums there */
  gsize n;
  CtCommRequest *request; /* while its sum travels */
  gboolean started;
  gboolean finished;
} Bucket;

struct _CtDataParallel {
  CtSolver *solver;
  CtComm *comm;
  gboolean gpu;           /* buckets and diffs on the GPU (comm->device_memory) */
  CtNet *net;
  GArray *buckets;        /* Bucket */
  guint observer_id;
  int pass;               /* backward passes since the last exchange */
  GError *failure;        /* the first error met inside the net observer */
  CtDataParallelStats stats;
};

static double
now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

static gboolean
start_bucket (CtDataParallel *dp, Bucket *b, GError **error)
{
  gsize at = 0;

  for (guint id = b->first; ; id--)
    {
      CtBlob *blob = ct_net_get_learnable (dp->net, id)->blob;
      const float *diff = ct_blob_diff_on (blob, dp->gpu, error);
      gsize count = (gsize) ct_blob_count (blob);

      if (diff == NULL ||
          !ct_engine_check_status ((dp->gpu ? ct_cuda_copy : ct_cpu_copy) ((int64_t) count, diff,
                                                                         b->buffer + at),
                                   _("Collecting the gradients"), error))
        return FALSE;
      at += count;
      if (id == b->last)
        break;
    }
  b->started = TRUE;
  b->request = ct_comm_sum_start (dp->comm, b->buffer, b->n, error);
  return b->request != NULL;
}

/* The mean of the ranks' gradients back into the diffs. */
static gboolean
finish_bucket (CtDataParallel *dp, Bucket *b, GError **error)
{
  const float scale = 1.0f / (float) dp->comm->size;
  gsize at = 0;

  for (guint id = b->first; ; id--)
    {
      CtBlob *blob = ct_net_get_learnable (dp->net, id)->blob;
      float *diff = ct_blob_mutable_diff_on (blob, dp->gpu, error);
      gint64 count = ct_blob_count (blob);

      if (diff == NULL ||
          !ct_engine_check_status ((dp->gpu ? ct_cuda_scale : ct_cpu_scale) (count, scale,
                                                                           b->buffer + at, diff),
                                   _("Averaging the gradients"), error))
        return FALSE;
      at += (gsize) count;
      if (id == b->last)
        break;
    }
  b->finished = TRUE;
  return TRUE;
}

/* Let every travelling sum progress (MPI moves bytes only inside its calls). */
static gboolean
progress (CtDataParallel *dp, GError **error)
{
  for (guint i = 0; i < dp->buckets->len; i++)
    {
      Bucket *b = &g_array_index (dp->buckets, Bucket, i);
      gboolean done = FALSE;

      if (b->request == NULL)
        continue;
      if (!ct_comm_sum_test (dp->comm, b->request, &done, error))
        {
          b->request = NULL;
          return FALSE;
        }
      if (done)
        {
          b->request = NULL;
          if (!finish_bucket (dp, b, error))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
on_layer_done (CtDataParallel *dp, guint layer_index, GError **error)
{
  for (guint i = 0; i < dp->buckets->len; i++)
    {
      Bucket *b = &g_array_index (dp->buckets, Bucket, i);

      if (!b->started && layer_index <= b->ready_layer && !start_bucket (dp, b, error))
        return FALSE;
    }
  return progress (dp, error);
}

static void
on_net_event (CtNet *net, CtNetEvent event, guint layer_index, gpointer user_data)
{
  CtDataParallel *dp = user_data;
  const int iter_size = ct_solver_get_param (dp->solver)->iter_size;
  double started;

  if (event == CT_NET_EVENT_BEFORE_BACKWARD && layer_index + 1 == ct_net_n_layers (net))
    dp->pass++;
  /* with iter_size passes the diffs are final after the last one only */
  if (event != CT_NET_EVENT_AFTER_BACKWARD || dp->pass < iter_size || dp->failure != NULL)
    return;
  started = now ();
  on_layer_done (dp, layer_index, &dp->failure);
  dp->stats.busy_seconds += now () - started;
}

static gboolean
gradients_ready (CtSolver *solver, gpointer user_data, GError **error)
{
  CtDataParallel *dp = user_data;
  double started = now ();
  gboolean ok = TRUE;

  dp->pass = 0;
  if (dp->failure != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&dp->failure));
      return FALSE;
    }
  /* buckets the observer did not start (iter_size > 1, or no backward) */
  if (!on_layer_done (dp, 0, error))
    return FALSE;
  for (guint i = 0; i < dp->buckets->len; i++)
    {
      Bucket *b = &g_array_index (dp->buckets, Bucket, i);

      if (ok && b->request != NULL)
        {
          CtCommRequest *request = g_steal_pointer (&b->request);

          ok = ct_comm_sum_wait (dp->comm, request, error) && finish_bucket (dp, b, error);
        }
      b->started = b->finished = FALSE;
    }
  dp->stats.iterations++;
  dp->stats.blocked_seconds += now () - started;
  dp->stats.busy_seconds += now () - started;
  return ok;
}

enum {
  WANT_STOP = 1,
  WANT_SNAPSHOT = 2,
};

static gboolean
agree (CtSolver *solver, CtSolverAction *action, gpointer user_data, GError **error)
{
  CtDataParallel *dp = user_data;
  int want = (*action == CT_SOLVER_ACTION_STOP ? WANT_STOP : 0) |
             (*action == CT_SOLVER_ACTION_SNAPSHOT ? WANT_SNAPSHOT : 0);

  if (!ct_comm_or_int (dp->comm, &want, error))
    return FALSE;
  /* a stop snapshots anyway (snapshot after training) */
  *action = (want & WANT_STOP) ? CT_SOLVER_ACTION_STOP
            : (want & WANT_SNAPSHOT) ? CT_SOLVER_ACTION_SNAPSHOT : CT_SOLVER_ACTION_NONE;
  return TRUE;
}

static gboolean
alloc_buffer (CtDataParallel *dp, Bucket *b, GError **error)
{
  gsize bytes = MAX (b->n, 1) * sizeof (float);

  if (!dp->gpu)
    {
      b->buffer = g_new (float, MAX (b->n, 1));
      return TRUE;
    }
  return ct_engine_check_status (ct_cuda_malloc ((void **) &b->buffer, bytes),
                                 _("Allocating the gradient buckets"), error);
}

static gboolean
make_buckets (CtDataParallel *dp, gsize bucket_bytes, GError **error)
{
  const guint n = ct_net_n_learnable (dp->net);
  Bucket b = { 0 };
  gboolean open = FALSE;

  for (guint id = n; id-- > 0;)
    {
      const CtNetLearnable *l = ct_net_get_learnable (dp->net, id);

      if (!open)
        {
          memset (&b, 0, sizeof b);
          b.first = id;
          b.ready_layer = l->layer_index;
          open = TRUE;
        }
      b.last = id;
      b.n += (gsize) ct_blob_count (l->blob);
      b.ready_layer = MIN (b.ready_layer, l->layer_index);
      if (b.n * sizeof (float) >= bucket_bytes || id == 0)
        {
          if (!alloc_buffer (dp, &b, error))
            return FALSE;
          dp->stats.floats += b.n;
          g_array_append_val (dp->buckets, b);
          open = FALSE;
        }
    }
  dp->stats.n_buckets = dp->buckets->len;
  return TRUE;
}

static void
free_buckets (CtDataParallel *dp)
{
  for (guint i = 0; i < dp->buckets->len; i++)
    {
      Bucket *b = &g_array_index (dp->buckets, Bucket, i);

      if (dp->gpu)
        ct_cuda_free (b->buffer);
      else
        g_free (b->buffer);
    }
  g_array_unref (dp->buckets);
}

CtDataParallel *
ct_data_parallel_new (CtSolver *solver, CtComm *comm, gsize bucket_bytes, GError **error)
{
  CtDataParallel *dp = g_new0 (CtDataParallel, 1);
  const CtSolverSyncFuncs funcs = { .gradients_ready = gradients_ready, .agree = agree };

  dp->solver = solver;
  dp->comm = comm;
  dp->gpu = comm->device_memory;
  dp->net = ct_solver_get_net (solver);
  dp->buckets = g_array_new (FALSE, TRUE, sizeof (Bucket));
  if (dp->gpu && !ct_solver_get_use_gpu (solver))
    {
      g_set_error (error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_SETUP,
                   _("%s sums gradients on the GPU, but the solver trains on the CPU"),
                   comm->klass->name);
      free_buckets (dp);
      g_free (dp);
      return NULL;
    }
  if (!make_buckets (dp, MAX (bucket_bytes, sizeof (float)), error))
    {
      free_buckets (dp);
      g_free (dp);
      return NULL;
    }
  dp->observer_id = ct_net_add_observer (dp->net, on_net_event, dp, NULL);
  ct_solver_set_sync (solver, &funcs, dp, comm->rank == 0);
  return dp;
}

void
ct_data_parallel_free (CtDataParallel *dp)
{
  if (dp == NULL)
    return;
  ct_net_remove_observer (dp->net, dp->observer_id);
  g_clear_error (&dp->failure);
  free_buckets (dp);
  g_free (dp);
}

static gboolean
broadcast_blob_data (CtDataParallel *dp, CtBlob *blob, GError **error)
{
  const gsize bytes = (gsize) ct_blob_count (blob) * sizeof (float);
  float *data = ct_blob_mutable_data_on (blob, dp->gpu, error);

  if (data == NULL)
    return FALSE;
  return dp->gpu ? dp->comm->klass->broadcast_device (dp->comm, data, bytes, error)
                 : ct_comm_broadcast (dp->comm, data, bytes, error);
}

/* Every rank must hold the same net before bytes are broadcast into it. */
static gboolean
check_same_net (CtDataParallel *dp, GError **error)
{
  int count = (int) dp->stats.floats, mine = count;

  if (!ct_comm_broadcast (dp->comm, &count, sizeof count, error))
    return FALSE;
  if (count == mine)
    return TRUE;
  g_set_error (error, CT_PARALLEL_ERROR, CT_PARALLEL_ERROR_SETUP,
               _("rank %u's net has %d learnable values but rank 0's has %d"),
               dp->comm->rank, mine, count);
  return FALSE;
}

gboolean
ct_data_parallel_broadcast_state (CtDataParallel *dp, GError **error)
{
  GPtrArray *history = ct_solver_get_history (dp->solver);

  if (!check_same_net (dp, error))
    return FALSE;
  for (guint id = 0; id < ct_net_n_learnable (dp->net); id++)
    if (!broadcast_blob_data (dp, ct_net_get_learnable (dp->net, id)->blob, error))
      return FALSE;
  for (guint i = 0; i < history->len; i++)
    if (!broadcast_blob_data (dp, history->pdata[i], error))
      return FALSE;
  return TRUE;
}

void
ct_data_parallel_get_stats (const CtDataParallel *dp, CtDataParallelStats *stats)
{
  *stats = dp->stats;
}
