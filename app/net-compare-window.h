/* net-compare-window.h: CtNetCompareWindow, what changed between two nets
 * (the document and its saved file, another prototxt or a git revision):
 * a summary, the legend of the colours the workbench's graph gives the
 * layers, the layers removed (which the graph cannot show), and the
 * changes as text field by field, both ways: from the other net to the
 * document, and back. "clear-marks" (void) asks to take the colours off
 * the graph. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CT_TYPE_NET_COMPARE_WINDOW (ct_net_compare_window_get_type ())
G_DECLARE_FINAL_TYPE (CtNetCompareWindow, ct_net_compare_window, CT, NET_COMPARE_WINDOW,
                      GtkWindow)

/* FORWARD: CtNetDiffEntry* from OTHER to the document; BACKWARD the other
 * way. OTHER names the other net ("lenet.prototxt at HEAD~1"). */
CtNetCompareWindow *ct_net_compare_window_new (GtkWindow *parent, const char *other,
                                               GPtrArray *forward, GPtrArray *backward);

/* For tests: the summary, the list of removed layers and the text shown. */
const char *ct_net_compare_window_get_summary (CtNetCompareWindow *self);
const char *ct_net_compare_window_get_removed (CtNetCompareWindow *self);
char *ct_net_compare_window_dup_text (CtNetCompareWindow *self);

G_END_DECLS
