/* window-blobs.c: what a run snapshot shows of the selection in the
 * inspector. A placeholder that shows nothing yet: the inspector panel
 * (heatmap, statistics, versions, data and diff, export) takes its place. */
#include "window-private.h"

void
ct_window_blobs_show_snapshot (CtWindow *self, CtRunSnapshot *snapshot)
{
}
