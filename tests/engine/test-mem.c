/* test-mem.c: CtMem. Lazy zeroed allocation, every head-state transition of
 * Caffe's SyncedMemory (on a fake device, since the build machine has no
 * GPU), reference counting, borrowed pointers, and clean failures: no GPU,
 * a failing device, an allocation larger than memory. */
#include <glib.h>
#include <string.h>

#include "engine-error.h"
#include "fake-device.h"
#include "mem.h"

/* Huge allocations must fail with an error, not abort: let AddressSanitizer
 * return NULL as malloc does (the default would stop the test). */
const char *__asan_default_options (void);
const char *
__asan_default_options (void)
{
  return "allocator_may_return_null=1";
}

#define SIZE 100 /* bytes: not a multiple of the alignment */

static gboolean
all_bytes (const void *ptr, gsize size, guint8 value)
{
  const guint8 *bytes = ptr;

  for (gsize i = 0; i < size; i++)
    if (bytes[i] != value)
      return FALSE;
  return TRUE;
}

static void
test_lazy_cpu (void)
{
  g_autoptr (CtMem) mem = ct_mem_new (SIZE);
  g_autoptr (GError) error = NULL;
  const void *data;
  void *mutable;

  g_assert_cmpuint (ct_mem_get_size (mem), ==, SIZE);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_UNINITIALIZED);
  data = ct_mem_cpu_data (mem, &error);
  g_assert_no_error (error);
  g_assert_nonnull (data);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_HEAD_AT_CPU);
  g_assert_true (all_bytes (data, SIZE, 0));
  g_assert_cmpuint ((guintptr) data % CT_MEM_ALIGNMENT, ==, 0);
  /* Later accesses return the same memory. */
  mutable = ct_mem_mutable_cpu_data (mem, &error);
  g_assert_no_error (error);
  g_assert_true (mutable == data);
  memset (mutable, 7, SIZE);
  g_assert_true (ct_mem_cpu_data (mem, NULL) == data);
  g_assert_true (all_bytes (data, SIZE, 7));
  g_assert_cmpstr (ct_mem_head_to_string (ct_mem_get_head (mem)), ==, "HEAD_AT_CPU");
}

static void
test_mutable_first (void)
{
  g_autoptr (CtMem) mem = ct_mem_new (SIZE);
  void *data = ct_mem_mutable_cpu_data (mem, NULL);

  g_assert_nonnull (data);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_HEAD_AT_CPU);
  g_assert_true (all_bytes (data, SIZE, 0));
}

static void
test_zero_size (void)
{
  g_autoptr (CtMem) mem = ct_mem_new (0);
  g_autoptr (GError) error = NULL;

  /* NULL means failure, so even an empty block has a pointer. */
  g_assert_nonnull (ct_mem_cpu_data (mem, &error));
  g_assert_no_error (error);
}

static void
test_huge_allocation (void)
{
  g_autoptr (CtMem) mem = ct_mem_new (G_MAXSIZE / 2);
  g_autoptr (GError) error = NULL;

  g_assert_null (ct_mem_cpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY);
  g_test_message ("%s", error->message);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_UNINITIALIZED);
  g_clear_error (&error);
  g_assert_null (ct_mem_mutable_cpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY);
}

static void
test_no_gpu (void)
{
  g_autoptr (CtMem) mem = ct_mem_new (SIZE);
  g_autoptr (GError) error = NULL;
  guint8 *cpu;

  if (CT_HAVE_CUDA)
    {
      g_test_skip ("built with CUDA");
      return;
    }
  /* From UNINITIALIZED: nothing changes. */
  g_assert_null (ct_mem_gpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_assert_null (ct_mem_mutable_gpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_clear_error (&error);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_UNINITIALIZED);

  /* From AT_CPU: the CPU copy stays current and intact. */
  cpu = ct_mem_mutable_cpu_data (mem, NULL);
  memset (cpu, 3, SIZE);
  g_assert_null (ct_mem_gpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_clear_error (&error);
  g_assert_null (ct_mem_mutable_gpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_HEAD_AT_CPU);
  g_assert_true (ct_mem_cpu_data (mem, NULL) == cpu);
  g_assert_true (all_bytes (cpu, SIZE, 3));
}

static void
test_refcount (void)
{
  CtMem *mem = ct_mem_new (SIZE);
  guint8 *data = ct_mem_mutable_cpu_data (mem, NULL);
  CtMem *other = ct_mem_ref (mem);

  g_assert_true (other == mem);
  data[0] = 42;
  ct_mem_unref (mem);
  /* Still alive through the second reference (ASan would see a use after
   * free otherwise). */
  g_assert_cmpuint (((const guint8 *) ct_mem_cpu_data (other, NULL))[0], ==, 42);
  ct_mem_unref (other);
  ct_mem_unref (NULL);
}

static void
test_set_cpu_data (void)
{
  g_autoptr (CtMem) mem = ct_mem_new (SIZE);
  guint8 external[SIZE];
  guint8 other[SIZE];

  memset (external, 9, SIZE);
  /* The block's own allocation is freed when replaced (ASan: no leak); the
   * borrowed arrays live on the stack and must never be freed. */
  g_assert_nonnull (ct_mem_mutable_cpu_data (mem, NULL));
  ct_mem_set_cpu_data (mem, external);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_HEAD_AT_CPU);
  g_assert_true (ct_mem_cpu_data (mem, NULL) == external);
  ct_mem_set_cpu_data (mem, other);
  g_assert_true (ct_mem_mutable_cpu_data (mem, NULL) == other);
}

/* Every transition: start in STATE, call OP, check the head, the copies
 * made and the values seen. */
typedef enum { OP_CPU, OP_MUTABLE_CPU, OP_GPU, OP_MUTABLE_GPU } Op;

typedef struct {
  CtMemHead start;
  Op op;
  CtMemHead head;
  guint host_to_device;
  guint device_to_host;
} Transition;

static const Transition transitions[] = {
  { CT_MEM_UNINITIALIZED, OP_CPU, CT_MEM_HEAD_AT_CPU, 0, 0 },
  { CT_MEM_UNINITIALIZED, OP_MUTABLE_CPU, CT_MEM_HEAD_AT_CPU, 0, 0 },
  { CT_MEM_UNINITIALIZED, OP_GPU, CT_MEM_HEAD_AT_GPU, 0, 0 },
  { CT_MEM_UNINITIALIZED, OP_MUTABLE_GPU, CT_MEM_HEAD_AT_GPU, 0, 0 },
  { CT_MEM_HEAD_AT_CPU, OP_CPU, CT_MEM_HEAD_AT_CPU, 0, 0 },
  { CT_MEM_HEAD_AT_CPU, OP_MUTABLE_CPU, CT_MEM_HEAD_AT_CPU, 0, 0 },
  { CT_MEM_HEAD_AT_CPU, OP_GPU, CT_MEM_SYNCED, 1, 0 },
  { CT_MEM_HEAD_AT_CPU, OP_MUTABLE_GPU, CT_MEM_HEAD_AT_GPU, 1, 0 },
  { CT_MEM_HEAD_AT_GPU, OP_CPU, CT_MEM_SYNCED, 0, 1 },
  { CT_MEM_HEAD_AT_GPU, OP_MUTABLE_CPU, CT_MEM_HEAD_AT_CPU, 0, 1 },
  { CT_MEM_HEAD_AT_GPU, OP_GPU, CT_MEM_HEAD_AT_GPU, 0, 0 },
  { CT_MEM_HEAD_AT_GPU, OP_MUTABLE_GPU, CT_MEM_HEAD_AT_GPU, 0, 0 },
  { CT_MEM_SYNCED, OP_CPU, CT_MEM_SYNCED, 0, 0 },
  { CT_MEM_SYNCED, OP_MUTABLE_CPU, CT_MEM_HEAD_AT_CPU, 0, 0 },
  { CT_MEM_SYNCED, OP_GPU, CT_MEM_SYNCED, 0, 0 },
  { CT_MEM_SYNCED, OP_MUTABLE_GPU, CT_MEM_HEAD_AT_GPU, 0, 0 },
};

/* A block in STATE holding the byte 0x11 everywhere (or zeros when
 * uninitialized), with the fake device's counters cleared. */
static CtMem *
mem_in_state (CtMemHead state)
{
  CtMem *mem = ct_mem_new (SIZE);

  switch (state)
    {
    case CT_MEM_HEAD_AT_CPU:
      memset (ct_mem_mutable_cpu_data (mem, NULL), 0x11, SIZE);
      break;
    case CT_MEM_HEAD_AT_GPU:
      /* The fake device's memory is host memory: write it directly. */
      memset (ct_mem_mutable_gpu_data (mem, NULL), 0x11, SIZE);
      break;
    case CT_MEM_SYNCED:
      memset (ct_mem_mutable_cpu_data (mem, NULL), 0x11, SIZE);
      g_assert_nonnull (ct_mem_gpu_data (mem, NULL));
      break;
    case CT_MEM_UNINITIALIZED:
    default:
      break;
    }
  g_assert_cmpint (ct_mem_get_head (mem), ==, state);
  fake_device_stats.host_to_device = fake_device_stats.device_to_host = 0;
  return mem;
}

static void
test_transitions (void)
{
  guint checked = 0;

  fake_device_install ();
  for (gsize i = 0; i < G_N_ELEMENTS (transitions); i++)
    {
      const Transition *t = &transitions[i];
      g_autoptr (GError) error = NULL;
      CtMem *mem = mem_in_state (t->start);
      const void *ptr = NULL;

      switch (t->op)
        {
        case OP_CPU:
          ptr = ct_mem_cpu_data (mem, &error);
          break;
        case OP_MUTABLE_CPU:
          ptr = ct_mem_mutable_cpu_data (mem, &error);
          break;
        case OP_GPU:
          ptr = ct_mem_gpu_data (mem, &error);
          break;
        case OP_MUTABLE_GPU:
          ptr = ct_mem_mutable_gpu_data (mem, &error);
          break;
        }
      g_test_message ("%s + op %d -> %s", ct_mem_head_to_string (t->start), t->op,
                      ct_mem_head_to_string (ct_mem_get_head (mem)));
      g_assert_no_error (error);
      g_assert_nonnull (ptr);
      g_assert_cmpint (ct_mem_get_head (mem), ==, t->head);
      g_assert_cmpuint (fake_device_stats.host_to_device, ==, t->host_to_device);
      g_assert_cmpuint (fake_device_stats.device_to_host, ==, t->device_to_host);
      /* Whichever side was asked for shows the values: fresh memory is
       * zeroed (the fake device hands out 0xA5 bytes), written memory keeps
       * its bytes across copies. */
      g_assert_true (all_bytes (ptr, SIZE, t->start == CT_MEM_UNINITIALIZED ? 0 : 0x11));
      ct_mem_unref (mem);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 16);
  /* Every device allocation was released with its block. */
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 0);
  fake_device_uninstall ();
}

static void
test_round_trip_values (void)
{
  g_autoptr (CtMem) mem = NULL;
  guint8 *cpu, *gpu;

  fake_device_install ();
  mem = ct_mem_new (SIZE);
  cpu = ct_mem_mutable_cpu_data (mem, NULL);
  memset (cpu, 1, SIZE);
  gpu = ct_mem_mutable_gpu_data (mem, NULL);
  g_assert_true (gpu != cpu);
  g_assert_true (all_bytes (gpu, SIZE, 1));
  /* A GPU write is what the CPU then reads, after one copy back. */
  memset (gpu, 2, SIZE);
  g_assert_true (ct_mem_cpu_data (mem, NULL) == cpu);
  g_assert_true (all_bytes (cpu, SIZE, 2));
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_SYNCED);
  /* No GPU memory is allocated twice: one allocation for the block. */
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 1);
  g_clear_pointer (&mem, ct_mem_unref);
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 0);
  fake_device_uninstall ();
}

static void
test_set_gpu_data (void)
{
  g_autoptr (CtMem) mem = NULL;
  guint8 device_memory[SIZE];
  const guint8 *cpu;

  fake_device_install ();
  mem = ct_mem_new (SIZE);
  g_assert_nonnull (ct_mem_gpu_data (mem, NULL));
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 1);
  memset (device_memory, 5, SIZE);
  /* The block's own device memory is released; the borrowed one is not. */
  ct_mem_set_gpu_data (mem, device_memory);
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 0);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_HEAD_AT_GPU);
  cpu = ct_mem_cpu_data (mem, NULL);
  g_assert_true (all_bytes (cpu, SIZE, 5));
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_SYNCED);
  g_assert_true (ct_mem_gpu_data (mem, NULL) == device_memory);
  g_clear_pointer (&mem, ct_mem_unref);
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 0);
  fake_device_uninstall ();
}

static void
test_device_failures (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtMem) mem = NULL;
  g_autoptr (CtMem) on_gpu = NULL;

  fake_device_install ();
  mem = ct_mem_new (SIZE);
  on_gpu = ct_mem_new (SIZE);
  memset (ct_mem_mutable_gpu_data (on_gpu, NULL), 4, SIZE);

  /* Out of device memory on the first GPU access. */
  fake_device_stats.fail_with = CT_STATUS_OUT_OF_MEMORY;
  g_assert_null (ct_mem_gpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_OUT_OF_MEMORY);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_UNINITIALIZED);
  g_clear_error (&error);

  /* A copy that fails leaves the head where it was, in both directions. */
  fake_device_stats.fail_with = CT_STATUS_OK;
  memset (ct_mem_mutable_cpu_data (mem, NULL), 6, SIZE);
  fake_device_stats.fail_with = CT_STATUS_DEVICE_ERROR;
  g_assert_null (ct_mem_mutable_gpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_DEVICE);
  g_test_message ("%s", error->message);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_HEAD_AT_CPU);
  g_clear_error (&error);
  g_assert_null (ct_mem_cpu_data (on_gpu, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_DEVICE);
  g_assert_cmpint (ct_mem_get_head (on_gpu), ==, CT_MEM_HEAD_AT_GPU);
  g_clear_error (&error);

  /* Once the device recovers, both blocks sync with their values. */
  fake_device_stats.fail_with = CT_STATUS_OK;
  g_assert_true (all_bytes (ct_mem_gpu_data (mem, NULL), SIZE, 6));
  g_assert_true (all_bytes (ct_mem_cpu_data (on_gpu, NULL), SIZE, 4));
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_SYNCED);
  g_assert_cmpint (ct_mem_get_head (on_gpu), ==, CT_MEM_SYNCED);
  g_clear_pointer (&mem, ct_mem_unref);
  g_clear_pointer (&on_gpu, ct_mem_unref);
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 0);
  fake_device_uninstall ();
}

static void
test_clear_failure_keeps_allocation (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtMem) mem = NULL;

  fake_device_install ();
  mem = ct_mem_new (SIZE);
  /* Allocation succeeds, clearing fails: the retry must reuse the device
   * memory rather than leak it. */
  fake_device_stats.fill_fails_with = CT_STATUS_DEVICE_ERROR;
  g_assert_null (ct_mem_gpu_data (mem, &error));
  g_assert_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_DEVICE);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_UNINITIALIZED);
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 1);
  g_clear_error (&error);
  fake_device_stats.fill_fails_with = CT_STATUS_OK;
  g_assert_true (all_bytes (ct_mem_gpu_data (mem, &error), SIZE, 0));
  g_assert_no_error (error);
  g_assert_cmpint (ct_mem_get_head (mem), ==, CT_MEM_HEAD_AT_GPU);
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 1);
  g_clear_pointer (&mem, ct_mem_unref);
  g_assert_cmpint (fake_device_stats.live_allocations, ==, 0);
  fake_device_uninstall ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/engine/mem/lazy-cpu", test_lazy_cpu);
  g_test_add_func ("/engine/mem/mutable-first", test_mutable_first);
  g_test_add_func ("/engine/mem/zero-size", test_zero_size);
  g_test_add_func ("/engine/mem/huge-allocation", test_huge_allocation);
  g_test_add_func ("/engine/mem/no-gpu", test_no_gpu);
  g_test_add_func ("/engine/mem/refcount", test_refcount);
  g_test_add_func ("/engine/mem/set-cpu-data", test_set_cpu_data);
  g_test_add_func ("/engine/mem/transitions", test_transitions);
  g_test_add_func ("/engine/mem/round-trip", test_round_trip_values);
  g_test_add_func ("/engine/mem/set-gpu-data", test_set_gpu_data);
  g_test_add_func ("/engine/mem/device-failures", test_device_failures);
  g_test_add_func ("/engine/mem/clear-failure", test_clear_failure_keeps_allocation);
  return g_test_run ();
}
