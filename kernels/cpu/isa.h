/* cpu/isa.h: which vector instructions this CPU runs, for the CPU kernels
 * that have code for several (each also keeps a switch that tests turn
 * off, to run the others). Private to the CPU kernels. */
#pragma once

/* Whether the CPU runs FMA, AVX2, and AVX-512 F; asked once. Always 0
 * off x86-64 or without GCC's builtins. */
int ct_cpu_have_fma (void);
int ct_cpu_have_avx2 (void);
int ct_cpu_have_avx512 (void);
