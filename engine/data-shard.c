/* data-shard.c: the calling thread's share of the training data (see
 * data-shard.h). Thread-local, as Caffe keeps it in its per-thread
 * singleton, so that solvers on several threads each read their own. */
#include "data-shard.h"

static _Thread_local guint shard_rank;
static _Thread_local guint shard_count = 1;

void
ct_data_shard_set (guint rank, guint count)
{
  g_return_if_fail (count > 0 && rank < count);
  shard_rank = rank;
  shard_count = count;
}

void
ct_data_shard_get (guint *rank, guint *count)
{
  *rank = shard_rank;
  *count = shard_count;
}
