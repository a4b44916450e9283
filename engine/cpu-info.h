/* cpu-info.h: what runs Cortado's arithmetic on this CPU, in words a user
 * reads (`cortado-cli device_query`, the About window's debugging
 * information). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Lines "Label: value", one per path (the kernels' instruction set and
 * threads, the matrix products, the convolutions, OpenBLAS), each ending
 * in a newline. Labels are translated; library names are not. */
char *ct_engine_describe_cpu (void);

G_END_DECLS
