/* bench-exchange.c: what the gradient exchange of data-parallel training
 * costs on this machine, per net: the bytes of gradients, one forward and
 * backward pass (every rank computing at once, as in training), and the
 * sum of all gradients over the ranks in 4 MB buckets with every rank
 * ready (a barrier first, so that no rank's waiting for a slower one is
 * counted), and the same sum as one MPI call for comparison. Medians of REPEATS. Run under a launcher:
 *
 *   mpirun -np 2 build/tests/parallel/bench-exchange NET.prototxt...
 *
 * Without one it measures a single rank (the exchange then costs nothing). */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "data-parallel.h"
#include "proto-file.h"

#define REPEATS 5

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median (double *values, int n)
{
  qsort (values, (size_t) n, sizeof (double), compare_doubles);
  return values[n / 2];
}

static double
now_ms (void)
{
  return (double) g_get_monotonic_time () / 1e3;
}

static gboolean
barrier (CtComm *comm, GError **error)
{
  int zero = 0;

  return ct_comm_or_int (comm, &zero, error);
}

static gboolean
exchange (CtComm *comm, float *values, gsize n, gsize bucket_bytes, GError **error)
{
  const gsize bucket = bucket_bytes / sizeof (float);
  g_autoptr (GPtrArray) requests = g_ptr_array_new ();

  for (gsize at = 0; at < n; at += bucket)
    {
      CtCommRequest *r = ct_comm_sum_start (comm, values + at, MIN (bucket, n - at), error);

      if (r == NULL)
        return FALSE;
      g_ptr_array_add (requests, r);
    }
  for (guint i = 0; i < requests->len; i++)
    if (!ct_comm_sum_wait (comm, requests->pdata[i], error))
      return FALSE;
  return TRUE;
}

static gboolean
measure (CtComm *comm, const char *path, GError **error)
{
  g_autoptr (CtNet) net = NULL;
  Caffe__NetParameter *param = ct_net_load_text_file (path, 0, NULL, error);
  double pass[REPEATS], sum[REPEATS], whole[REPEATS];
  g_autofree float *values = NULL;
  g_autofree char *name = NULL;
  gsize n = 0;

  if (param == NULL)
    return FALSE;
  net = ct_net_new (param, CAFFE__PHASE__TRAIN, 0, NULL, 1, error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  if (net == NULL)
    return FALSE;
  for (guint i = 0; i < ct_net_n_learnable (net); i++)
    n += (gsize) ct_blob_count (ct_net_get_learnable (net, i)->blob);
  values = g_new0 (float, MAX (n, 1));
  for (int r = -1; r < REPEATS; r++)
    {
      double t;

      if (!barrier (comm, error))
        return FALSE;
      t = now_ms ();
      if (!ct_net_forward (net, NULL, error) || !ct_net_backward (net, error))
        return FALSE;
      if (r >= 0)
        pass[r] = now_ms () - t;
    }
  for (int r = -1; r < REPEATS; r++)
    {
      double t;

      if (!barrier (comm, error))
        return FALSE;
      t = now_ms ();
      if (!exchange (comm, values, n, CT_DATA_PARALLEL_BUCKET_BYTES, error))
        return FALSE;
      if (r >= 0)
        sum[r] = now_ms () - t;
      if (!barrier (comm, error))
        return FALSE;
      t = now_ms ();
      if (!exchange (comm, values, n, G_MAXINT, error))
        return FALSE;
      if (r >= 0)
        whole[r] = now_ms () - t;
    }
  name = g_path_get_basename (path);
  if (comm->rank == 0)
    g_print ("%-45s %9.2f MB %10.1f ms %10.2f ms %10.2f ms\n", name, (double) n * 4.0 / 1e6,
             median (pass, REPEATS), median (sum, REPEATS), median (whole, REPEATS));
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  CtComm *comm = ct_comm_mpi_new (&argc, &argv, &error);

  if (comm == NULL && error != NULL)
    {
      g_printerr ("bench-exchange: %s\n", error->message);
      return 1;
    }
  if (comm == NULL)
    comm = ct_comm_single_new ();
  if (comm->rank == 0)
    g_print ("%u ranks (%s); medians of %d; exchange in 4 MB buckets, and as one sum\n"
             "%-45s %12s %13s %13s %13s\n", comm->size, comm->klass->name, REPEATS, "net",
             "gradients", "fwd+bwd", "exchange", "one sum");
  for (int i = 1; i < argc; i++)
    if (!measure (comm, argv[i], &error))
      {
        g_printerr ("bench-exchange: rank %u: %s: %s\n", comm->rank, argv[i], error->message);
        ct_comm_abort (comm, 1);
      }
  ct_comm_free (comm);
  return 0;
}
