/* cpu/isa.c: cpu/isa.h, on GCC's (and clang's) __builtin_cpu_supports. */
#include <stdatomic.h>

#include "isa.h"

#if defined(__x86_64__) && defined(__GNUC__)
/* -1 until asked. */
static atomic_int fma3 = -1, avx2 = -1, avx512 = -1;

static int
ask (atomic_int *cached, int answer)
{
  int h = atomic_load (cached);

  if (h < 0)
    {
      h = answer;
      atomic_store (cached, h);
    }
  return h;
}

int
ct_cpu_have_fma (void)
{
  return ask (&fma3, __builtin_cpu_supports ("fma") != 0);
}

int
ct_cpu_have_avx2 (void)
{
  return ask (&avx2, __builtin_cpu_supports ("avx2") != 0);
}

int
ct_cpu_have_avx512 (void)
{
  return ask (&avx512, __builtin_cpu_supports ("avx512f") != 0);
}
#else
int
ct_cpu_have_fma (void)
{
  return 0;
}

int
ct_cpu_have_avx2 (void)
{
  return 0;
}

int
ct_cpu_have_avx512 (void)
{
  return 0;
}
#endif
