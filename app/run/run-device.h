/* run-device.h: which device the runner and the trainer compute on, for
 * the window's device menu: the GPUs there are, by name, and moving a net
 * or a solver's nets onto one of them. No GTK. */
#pragma once

#include <glib.h>

#include "net.h"

G_BEGIN_DECLS

/* "GPU 0: NVIDIA H200", one per usable CUDA device (owned, NULL-terminated;
 * empty when there is none). When empty, *REASON (may be NULL) says why,
 * translated: built without CUDA, or what the CUDA runtime says. */
char **ct_run_list_gpus (char **reason);

/* ct_engine_gpu_select (devices.h), then NET onto it (ct_net_set_use_gpu). */
gboolean ct_run_use_gpu (CtNet *net, int device, GError **error);

G_END_DECLS
