/* parallel.h: the CPU kernels' threads.
 *
 * Cortado runs one threading runtime on the CPU: this pool. When it has
 * more than one thread it sets OpenBLAS to one thread, and splits work
 * itself: large matrix products by columns, pooling and element-wise
 * kernels by planes or ranges, convolutions by images (the engine's layers
 * call ct_cpu_parallel_for). Two runtimes on the same cores (OpenBLAS's
 * spinning workers and ours) would oversubscribe them.
 *
 * The number of threads is CT_NUM_THREADS from the environment, else what
 * OpenBLAS was started with (OPENBLAS_NUM_THREADS, or one per core), read
 * once, at the first call. A range is always cut into the same chunks for
 * the same length, grain and thread count, whichever thread runs which, so
 * results repeat bit for bit; any thread may take any chunk, so a thread
 * that the OS has parked does not hold the others up.
 *
 * Calls made from inside a chunk, or while another thread of the program
 * holds the pool, run their chunks one after the other in the calling
 * thread (the same chunks, so the same results). */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest number of chunks a range is cut into. */
#define CT_PARALLEL_MAX_CHUNKS 64

/* Ranges are cut into up to this many chunks per thread: a thread that the
 * OS parks (the machine is busy) then holds up one small chunk, while the
 * others take the rest. */
#define CT_PARALLEL_OVERSPLIT 4

/* Runs on chunk CHUNK, items [BEGIN, END). */
typedef void (*CtParallelFunc) (int64_t begin, int64_t end, int chunk, void *data);

/* Threads the pool runs (>= 1). */
int ct_cpu_num_threads (void);

/* How many chunks ct_cpu_parallel_for cuts N items into, each of at least
 * GRAIN items (GRAIN >= 1): N / GRAIN, at most CT_PARALLEL_OVERSPLIT per
 * thread and CT_PARALLEL_MAX_CHUNKS, at least 1 (1 with one thread). Chunk
 * c is [c * N / C, (c + 1) * N / C). */
int ct_cpu_parallel_chunks (int64_t n, int64_t grain);

/* Runs FUNC on every chunk of [0, N) and returns when all are done; the
 * calling thread takes part. */
void ct_cpu_parallel_for (int64_t n, int64_t grain, CtParallelFunc func, void *data);

/* The same with CHUNKS chunks (clamped to [1, min (N, MAX_CHUNKS)]), for
 * callers that keep a partial result per chunk and want one per thread. */
void ct_cpu_parallel_for_chunks (int64_t n, int chunks, CtParallelFunc func, void *data);

/* Lets at most N threads of the pool, the calling one included, run the
 * chunks of the jobs the calling thread starts from now on (N <= 0, or
 * more than the pool has: all of them). Ranges are still cut by the
 * pool's size, so results do not change, only who computes them: a
 * thread stepping a net beside a window's main loop leaves that loop a
 * core this way. Per thread: other threads' jobs are not limited. */
void ct_cpu_set_thread_limit (int n);

/* Element-wise loops: ranges of at least this many elements per chunk
 * (256 KiB of floats), below which handing work over costs more than it
 * saves. */
#define CT_PARALLEL_ELEMENT_GRAIN ((int64_t) 1 << 16)

#ifdef __cplusplus
}
#endif
