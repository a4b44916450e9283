/* blob-stats.c: statistics of a blob's data or diff, shared between the
 * runner's snapshots and `cortado-cli forward --stats`. The arithmetic is
 * the kernel's (kernels/stats.h); this file owns the result, and spreads
 * large arrays over the CPU pool without changing a bit of it.
 *
 * A step through a net computes the statistics of every blob it wrote:
 * AlexNet's conv1 at batch 10 is 2.9 million values, fc6's weight
 * gradient 37.7 million, and one thread takes milliseconds to tens of
 * milliseconds over them. The kernel sums in four double lanes (element i
 * in lane i % 4, each lane in index order, the lanes added 0 to 3), so
 * lanes are independent sequences: computed on separate threads in the
 * same order they give the same sums to the bit. Minimum, maximum and the
 * counts do not depend on order, nor does the histogram, which is cut into
 * contiguous slices. tests/run/test-blob-stats.c holds this path to the
 * kernel's results bit for bit, NaN and infinities included.
 *
 * Every lane runs through the whole array, so each lane group reads all of
 * it: the split pays off only with cores to spare. On two cores shared
 * with other work it was measured slower than the kernel alone (a thread
 * the OS parks holds the step up), so it needs four threads in the pool
 * (CT_NUM_THREADS or one per core), and arrays larger than a cache get two
 * lane groups rather than four. */
#include <float.h>
#include <math.h>

#include "blob-stats-private.h"
#include "parallel.h"

#define N_LANES 4
/* Below this many values the kernel alone is quicker than handing work to
 * the pool. */
#define PARALLEL_MIN ((gint64) 1 << 17)
#define PARALLEL_MIN_THREADS 4
/* Above this many values (32 MiB) four groups would read the array four
 * times from memory. */
#define FOUR_GROUPS_MAX ((gint64) 1 << 23)
#define MAX_SLICES 16
#define BLOCK 1024 /* a multiple of N_LANES */

typedef struct {
  const float *x;
  gint64 n;
  int n_groups;        /* lanes are cut into this many groups (1, 2 or 4) */
  int n_slices;        /* histogram slices */
  /* first pass, per lane */
  double sum[N_LANES], sumsq[N_LANES];
  double lo[N_LANES], hi[N_LANES];
  gint64 n_finite[N_LANES], n_zeros[N_LANES], n_nan[N_LANES], n_inf[N_LANES];
  /* second pass */
  double mean, lo_all, scale;
  double dev[N_LANES];
  gint64 bins[MAX_SLICES][CT_BLOB_STATS_BINS];
} Split;

/* Lanes [L0, L0 + NL) of the first pass over [BEGIN, END) (BEGIN a
 * multiple of N_LANES), all values finite: no branch, so that the
 * compiler can keep the lanes in vector registers. NL is a constant where
 * this is inlined. */
static G_ALWAYS_INLINE inline void
first_finite (const float *x, gint64 begin, gint64 end, int l0, int nl, double *sum,
              double *sumsq, float *lo, float *hi, gint64 *zeros)
{
  gint64 i = begin;

  for (; i + N_LANES <= end; i += N_LANES)
    for (int l = 0; l < nl; l++)
      {
        float v = x[i + l0 + l];

        sum[l] += (double) v;
        sumsq[l] += (double) v * (double) v;
        lo[l] = v < lo[l] ? v : lo[l];
        hi[l] = v > hi[l] ? v : hi[l];
        zeros[l] += v == 0.0f;
      }
  for (int l = 0; l < nl && i + l0 + l < end; l++)
    {
      float v = x[i + l0 + l];

      sum[l] += (double) v;
      sumsq[l] += (double) v * (double) v;
      lo[l] = v < lo[l] ? v : lo[l];
      hi[l] = v > hi[l] ? v : hi[l];
      zeros[l] += v == 0.0f;
    }
}

static G_ALWAYS_INLINE inline void
first_lanes_n (Split *s, int l0, int nl)
{
  const float *x = s->x;
  double sum[N_LANES] = { 0 }, sumsq[N_LANES] = { 0 };
  float lo[N_LANES], hi[N_LANES];
  gint64 finite[N_LANES] = { 0 }, zeros[N_LANES] = { 0 }, nan[N_LANES] = { 0 },
         inf[N_LANES] = { 0 };

  for (int l = 0; l < nl; l++)
    {
      lo[l] = INFINITY;
      hi[l] = -INFINITY;
    }
  for (gint64 b = 0; b < s->n; b += BLOCK)
    {
      gint64 end = MIN (b + BLOCK, s->n);
      int bad = 0;

      for (gint64 i = b; i < end; i++)
        bad |= !(fabsf (x[i]) <= FLT_MAX);
      if (!bad)
        {
          first_finite (x, b, end, l0, nl, sum, sumsq, lo, hi, zeros);
          for (int l = 0; l < nl; l++)
            finite[l] += (end - b - (l0 + l) + N_LANES - 1) / N_LANES;
          continue;
        }
      for (gint64 i = b + l0; i < end; i += N_LANES)
        for (int l = 0; l < nl && i + l < end; l++)
          {
            float v = x[i + l];

            if (isnan (v))
              nan[l]++;
            else if (isinf (v))
              inf[l]++;
            else
              {
                finite[l]++;
                zeros[l] += v == 0.0f;
                lo[l] = v < lo[l] ? v : lo[l];
                hi[l] = v > hi[l] ? v : hi[l];
                sum[l] += (double) v;
                sumsq[l] += (double) v * (double) v;
              }
          }
    }
  for (int l = 0; l < nl; l++)
    {
      s->sum[l0 + l] = sum[l];
      s->sumsq[l0 + l] = sumsq[l];
      s->lo[l0 + l] = lo[l];
      s->hi[l0 + l] = hi[l];
      s->n_finite[l0 + l] = finite[l];
      s->n_zeros[l0 + l] = zeros[l];
      s->n_nan[l0 + l] = nan[l];
      s->n_inf[l0 + l] = inf[l];
    }
}

static void
first_lanes (Split *s, int l0, int nl)
{
  if (nl == 4)
    first_lanes_n (s, l0, 4);
  else if (nl == 2)
    first_lanes_n (s, l0, 2);
  else
    first_lanes_n (s, l0, 1);
}

static void
first_job (int64_t begin, int64_t end, int chunk, void *data)
{
  Split *s = data;
  int nl = N_LANES / s->n_groups;

  for (int64_t g = begin; g < end; g++)
    first_lanes (s, (int) g * nl, nl);
}

/* The kernel's bin of finite V (kernels/cpu/stats.c: bin_of). */
static inline gint64
bin_of (float v, double lo, double scale)
{
  gint64 b = (gint64) (((double) v - lo) * scale);

  return b >= CT_BLOB_STATS_BINS ? CT_BLOB_STATS_BINS - 1 : b < 0 ? 0 : b;
}

/* Second pass: items [0, n_groups) are lane groups of squared deviations,
 * the rest histogram slices. */
static void
second_job (int64_t begin, int64_t end, int chunk, void *data)
{
  Split *s = data;
  int nl = N_LANES / s->n_groups;

  for (int64_t item = begin; item < end; item++)
    {
      if (item < s->n_groups)
        for (int l = (int) item * nl; l < (int) item * nl + nl; l++)
          {
            double dev = 0.0;

            for (gint64 i = l; i < s->n; i += N_LANES)
              {
                float v = s->x[i];
                double d;

                if (!(fabsf (v) <= FLT_MAX))
                  continue;
                d = (double) v - s->mean;
                dev += d * d;
              }
            s->dev[l] = dev;
          }
      else
        {
          int slice = (int) item - s->n_groups;
          gint64 from = s->n * slice / s->n_slices, to = s->n * (slice + 1) / s->n_slices;
          gint64 *bins = s->bins[slice];

          for (gint64 i = from; i < to; i++)
            {
              float v = s->x[i];

              if (fabsf (v) <= FLT_MAX)
                bins[bin_of (v, s->lo_all, s->scale)]++;
            }
        }
    }
}

void
ct_blob_stats_compute_lanes (CtBlobStats *stats, const float *values, gint64 count,
                             int n_groups, int n_slices)
{
  g_autofree Split *s = g_new0 (Split, 1);
  CtStats *out = &stats->stats;
  double total = 0.0, total_sq = 0.0, total_dev = 0.0;
  double lo = INFINITY, hi = -INFINITY;

  g_return_if_fail (n_groups == 1 || n_groups == 2 || n_groups == 4);
  s->x = values;
  s->n = count;
  s->n_groups = n_groups;
  s->n_slices = CLAMP (n_slices, 1, MAX_SLICES);
  ct_cpu_parallel_for_chunks (s->n_groups, s->n_groups, first_job, s);

  for (int l = 0; l < N_LANES; l++)
    {
      /* the kernel's order: lane 0 first, each added to a running total */
      total += s->sum[l];
      total_sq += s->sumsq[l];
      lo = s->lo[l] < lo ? s->lo[l] : lo;
      hi = s->hi[l] > hi ? s->hi[l] : hi;
      out->n_finite += s->n_finite[l];
      out->n_zeros += s->n_zeros[l];
      out->n_nan += s->n_nan[l];
      out->n_inf += s->n_inf[l];
    }
  s->mean = out->n_finite > 0 ? total / (double) out->n_finite : 0.0;
  s->lo_all = lo;
  s->scale = hi > lo ? (double) CT_BLOB_STATS_BINS / (hi - lo) : 0.0;
  ct_cpu_parallel_for_chunks (s->n_groups + s->n_slices, s->n_groups + s->n_slices,
                              second_job, s);

  for (int l = 0; l < N_LANES; l++)
    total_dev += s->dev[l];
  for (int slice = 0; slice < s->n_slices; slice++)
    for (int b = 0; b < CT_BLOB_STATS_BINS; b++)
      stats->histogram[b] += s->bins[slice][b];

  out->count = count;
  out->min = out->n_finite > 0 ? lo + 0.0 : 0.0;
  out->max = out->n_finite > 0 ? hi + 0.0 : 0.0;
  out->mean = s->mean;
  out->std = out->n_finite > 0 ? sqrt (total_dev / (double) out->n_finite) : 0.0;
  out->l2_norm = sqrt (total_sq);
  out->zero_share = count > 0 ? (double) out->n_zeros / (double) count : 0.0;
}

CtBlobStats *
ct_blob_stats_compute (const float *values, gint64 count)
{
  CtBlobStats *stats = g_atomic_rc_box_new0 (CtBlobStats);
  int threads;
  CtStatus status;

  g_return_val_if_fail (count >= 0, stats);
  threads = count >= PARALLEL_MIN ? ct_cpu_num_threads () : 1;
  if (threads >= PARALLEL_MIN_THREADS)
    {
      ct_blob_stats_compute_lanes (stats, values, count, count <= FOUR_GROUPS_MAX ? 4 : 2,
                                   threads);
      return stats;
    }
  status = ct_cpu_stats (count, values, CT_BLOB_STATS_BINS, stats->histogram, &stats->stats);
  /* Only arguments out of range fail, which the checks above exclude. */
  g_warn_if_fail (status == CT_STATUS_OK);
  return stats;
}

CtBlobStats *
ct_blob_stats_ref (CtBlobStats *stats)
{
  return g_atomic_rc_box_acquire (stats);
}

void
ct_blob_stats_unref (CtBlobStats *stats)
{
  if (stats != NULL)
    g_atomic_rc_box_release (stats);
}

double
ct_blob_stats_health (const CtBlobStats *data, const CtBlobStats *diff)
{
  double data_norm = data->stats.l2_norm, diff_norm = diff->stats.l2_norm;

  if (data->stats.n_nan + data->stats.n_inf + diff->stats.n_nan + diff->stats.n_inf > 0)
    return NAN;
  if (diff_norm == 0.0)
    return 0.0;
  if (data_norm == 0.0)
    return INFINITY;
  return diff_norm / data_norm;
}
