/* widget-test.h: what the widget tests under Xvfb share (widgets alone,
 * no application): the start of a test program, waiting for a painted
 * frame, finding an event controller, and rendering a widget's own
 * snapshot to read its pixels. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Start a widget test program: the test AT context (so that tests read
 * accessible properties), the cairo renderer unless one is set,
 * g_test_init and GTK. FALSE without a display: a "PREFIX/no-display"
 * test that skips has been added; run the tests either way. */
gboolean ct_widget_test_init (int *argc, char ***argv, const char *prefix);

/* Run the main loop until WIDGET is mapped with a size and its window
 * has painted a frame (5 s at most, else the test fails). */
void ct_widget_test_wait_for_paint (GtkWidget *widget);

/* WIDGET's first event controller of TYPE (the widget keeps it). */
GtkEventController *ct_widget_test_find_controller (GtkWidget *widget, GType type);

/* WIDGET drawn by its own snapshot() on BACKGROUND, rendered by its
 * window's renderer: what the screen shows. (A GtkWidgetPaintable gives
 * no node here on GTK 4.8.) Waits for a painted frame first. */
GdkTexture *ct_widget_test_render (GtkWidget *widget, const GdkRGBA *background);

/* The RGB of pixel (X, Y) of a texture downloaded as GDK_MEMORY_DEFAULT. */
guint32 ct_widget_test_pixel (const guint8 *data, gsize stride, double x, double y);

G_END_DECLS
