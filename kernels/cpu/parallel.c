/* cpu/parallel.c: the pool of parallel.h, on POSIX threads.
 *
 * THREADS - 1 workers are started at the first call; the calling thread is
 * member 0, the workers 1 .. THREADS - 1. A job is published under LOCK with a new generation
 * number; members claim chunks one by one under LOCK (a job has at most a
 * few chunks, so the lock is cheap) and run them outside it. Each member
 * owns an equal run of the chunks and takes its own first, so that layer
 * after layer the same thread (and core) handles the same part of the
 * batch and finds its activations in its cache; then it helps with the
 * others' from their end (chunks taken in plain order go to whichever
 * thread comes first, another part of the batch in every layer). Workers spin
 * for a short while after a job before they sleep, because layers follow
 * each other closely and waking a sleeping thread costs tens of
 * microseconds; the caller likewise spins briefly before it sleeps waiting
 * for the last chunk. */
#include <cblas.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "parallel.h"

/* OpenBLAS's own threads, started when the library loads, busy-wait
 * for work (up to 2^28 cycles, about 0.1 s) before they sleep. Its
 * pthread and OpenMP builds export this call to stop them; weak, so
 * that a build without it still links. */
extern int blas_thread_shutdown_ (void) __attribute__ ((weak));

/* How long a thread spins before it sleeps, in nanoseconds: long enough to
 * bridge the gaps of serial work between layers, since each wake costs
 * tens of microseconds (PERFORMANCE.md). */
#define SPIN_NS 500000

typedef struct {
  CtParallelFunc func;
  void *data;
  int64_t n;
  int chunks;
  int members;   /* the caller and workers 1 .. MEMBERS - 1 take chunks */
} Job;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int n_threads = 1;

/* Held by the thread whose job the pool runs. */
static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER;

/* Guard JOB, TAKEN and PENDING; GENERATION and PENDING are also read
 * without it while spinning. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static Job job;
static uint64_t taken;   /* bit c: chunk c is claimed */
static atomic_int pending;
static atomic_uint_fast64_t generation;

/* Set while a thread runs a chunk: nested calls run serially. */
static _Thread_local int inside;

/* ct_cpu_set_thread_limit's N for the jobs this thread starts (0: all). */
static _Thread_local int thread_limit;

static int64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#endif
}

static void
chunk_range (int64_t n, int chunks, int c, int64_t *begin, int64_t *end)
{
  *begin = n * c / chunks;
  *end = n * (c + 1) / chunks;
}

/* Claims a chunk of generation GEN's job into *J and *CHUNK for MEMBER:
 * 1; 0 when none is left (or that job is over); -1 when the job leaves
 * MEMBER out (ct_cpu_set_thread_limit). */
/* The chunks of the job that MEMBER owns: an equal run of them, in the
 * order of the range. */
static void
owned_chunks (const Job *j, int member, int *first, int *last)
{
  *first = (int) ((int64_t) j->chunks * member / j->members);
  *last = (int) ((int64_t) j->chunks * (member + 1) / j->members);
}

/* The next chunk for MEMBER: its own first, front to back, then another
 * member's from the back. Layer after layer, a member thus takes the same
 * part of the batch, whose activations are still in its core's cache. */
static int
pick_chunk (int member)
{
  int first, last;

  owned_chunks (&job, member, &first, &last);
  for (int c = first; c < last; c++)
    if (!(taken & ((uint64_t) 1 << c)))
      return c;
  for (int c = job.chunks - 1; c >= 0; c--)
    if (!(taken & ((uint64_t) 1 << c)))
      return c;
  return -1;
}

static int
claim (uint64_t gen, int member, Job *j, int *chunk)
{
  int ok = 0;

  pthread_mutex_lock (&lock);
  if (atomic_load (&generation) == gen && member >= job.members)
    ok = -1;
  else if (atomic_load (&generation) == gen && (*chunk = pick_chunk (member)) >= 0)
    {
      taken |= (uint64_t) 1 << *chunk;
      *j = job;
      ok = 1;
    }
  pthread_mutex_unlock (&lock);
  return ok;
}

/* MEMBER: 0 for the caller, the worker's number otherwise. 0 when the
 * job leaves MEMBER out. */
static int
run_claimed (uint64_t gen, int member)
{
  Job j;
  int c, ok;

  while ((ok = claim (gen, member, &j, &c)) == 1)
    {
      int64_t begin, end;

      chunk_range (j.n, j.chunks, c, &begin, &end);
      inside = 1;
      j.func (begin, end, c, j.data);
      inside = 0;
      pthread_mutex_lock (&lock);
      if (atomic_fetch_sub (&pending, 1) == 1)
        pthread_cond_signal (&finished);
      pthread_mutex_unlock (&lock);
    }
  return ok == 0;
}

/* Spins first when SPIN: the next job is likely to follow closely. */
static uint64_t
wait_for_job (uint64_t seen, int spin)
{
  int64_t start = now_ns ();
  uint64_t gen;

  for (int i = 0; spin; i++)
    {
      if ((gen = atomic_load (&generation)) != seen)
        return gen;
      cpu_relax ();
      if (i % 256 == 255 && now_ns () - start > SPIN_NS)
        break;
    }
  pthread_mutex_lock (&lock);
  while ((gen = atomic_load (&generation)) == seen)
    pthread_cond_wait (&wake, &lock);
  pthread_mutex_unlock (&lock);
  return gen;
}

static void *
worker (void *arg)
{
  int member = (int) (intptr_t) arg;
  uint64_t seen = 0;
  int spin = 1;

  for (;;)
    {
      seen = wait_for_job (seen, spin);
      /* A worker left out of a limited job sleeps at once: the core it
       * would spin on is the one the limit leaves free. */
      spin = run_claimed (seen, member);
    }
  return NULL;
}

static int
threads_wanted (void)
{
  const char *env = getenv ("CT_NUM_THREADS");
  long n = env != NULL ? strtol (env, NULL, 10) : 0;

  if (n <= 0)
    n = openblas_get_num_threads ();
  if (n < 1)
    n = 1;
  return n > CT_PARALLEL_MAX_CHUNKS ? CT_PARALLEL_MAX_CHUNKS : (int) n;
}

static void
start_pool (void)
{
  sigset_t all, old;

  n_threads = threads_wanted ();
  /* One runtime: ours splits the products, OpenBLAS runs each piece.
   * Its threads are not needed, and until they time out they spin on a
   * core of their own, and the scheduler puts our threads on the others,
   * which halves the first iterations' speed. With one
   * thread OpenBLAS runs each call in the caller, so it never starts
   * them again. */
  openblas_set_num_threads (1);
  if (blas_thread_shutdown_ != NULL)
    blas_thread_shutdown_ ();
  /* Workers take no signals: a solver's SIGINT goes to the program's own
   * threads. */
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  for (int i = 1; i < n_threads; i++)
    {
      pthread_t thread;
      pthread_attr_t attr;

      pthread_attr_init (&attr);
      pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
      if (pthread_create (&thread, &attr, worker, (void *) (intptr_t) i) != 0)
        n_threads = i;
      pthread_attr_destroy (&attr);
      if (n_threads == i)
        break;
    }
  pthread_sigmask (SIG_SETMASK, &old, NULL);
}

int
ct_cpu_num_threads (void)
{
  pthread_once (&init_once, start_pool);
  return n_threads;
}

int
ct_cpu_parallel_chunks (int64_t n, int64_t grain)
{
  int64_t most = grain > 0 ? n / grain : n;
  int threads = ct_cpu_num_threads ();
  int64_t limit = threads > 1 ? (int64_t) threads * CT_PARALLEL_OVERSPLIT : 1;

  if (limit > CT_PARALLEL_MAX_CHUNKS)
    limit = CT_PARALLEL_MAX_CHUNKS;
  if (most < 1)
    return 1;
  return most < limit ? (int) most : (int) limit;
}

void
ct_cpu_set_thread_limit (int n)
{
  thread_limit = n > 0 ? n : 0;
}

static void
run_serially (int64_t n, int chunks, CtParallelFunc func, void *data)
{
  int was_inside = inside;

  inside = 1;
  for (int c = 0; c < chunks; c++)
    {
      int64_t begin, end;

      chunk_range (n, chunks, c, &begin, &end);
      func (begin, end, c, data);
    }
  inside = was_inside;
}

void
ct_cpu_parallel_for (int64_t n, int64_t grain, CtParallelFunc func, void *data)
{
  if (n > 0)
    ct_cpu_parallel_for_chunks (n, ct_cpu_parallel_chunks (n, grain), func, data);
}

void
ct_cpu_parallel_for_chunks (int64_t n, int chunks, CtParallelFunc func, void *data)
{
  uint64_t gen;
  int64_t start;
  int members;

  if (n <= 0)
    return;
  if (chunks > n)
    chunks = (int) n;
  if (chunks > CT_PARALLEL_MAX_CHUNKS)
    chunks = CT_PARALLEL_MAX_CHUNKS;
  if (chunks < 1)
    chunks = 1;
  members = ct_cpu_num_threads ();
  if (thread_limit > 0 && thread_limit < members)
    members = thread_limit;
  if (members == 1)
    {
      run_serially (n, chunks, func, data);
      return;
    }
  if (chunks == 1 || inside || pthread_mutex_trylock (&owner) != 0)
    {
      run_serially (n, chunks, func, data);
      return;
    }

  pthread_mutex_lock (&lock);
  job = (Job) { func, data, n, chunks, members };
  taken = 0;
  atomic_store (&pending, chunks);
  gen = atomic_load (&generation) + 1;
  atomic_store (&generation, gen);
  pthread_cond_broadcast (&wake);
  pthread_mutex_unlock (&lock);

  run_claimed (gen, 0);

  start = now_ns ();
  for (int i = 0; atomic_load (&pending) > 0; i++)
    {
      cpu_relax ();
      if (i % 256 == 255 && now_ns () - start > SPIN_NS)
        break;
    }
  pthread_mutex_lock (&lock);
  while (atomic_load (&pending) > 0)
    pthread_cond_wait (&finished, &lock);
  pthread_mutex_unlock (&lock);
  pthread_mutex_unlock (&owner);
}
