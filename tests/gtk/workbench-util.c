/* workbench-util.c: what the workbench tests share (see workbench-util.h). */
#include <glib/gstdio.h>

#include "workbench-util.h"
#include "test-files.h"

CtApplication *ct_test_app;

CtWindow *
ct_test_lenet_window (void)
{
  CtWindow *window = ct_window_new (ct_test_app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ct_window_load_example (window, "lenet-fashion"));
  ct_gui_test_settle (window);
  return window;
}

CtGraphView *
ct_test_view_of (CtWindow *window)
{
  return CT_GRAPH_VIEW (ct_window_get_graph_view (window));
}

int
ct_test_layer_named (CtWindow *window, const char *name)
{
  const Caffe__NetParameter *net = ct_document_get_net (ct_window_get_document (window));

  for (gsize i = 0; net != NULL && i < net->n_layer; i++)
    if (g_strcmp0 (net->layer[i]->name, name) == 0)
      return (int) i;
  return -1;
}

void
ct_test_activate (CtWindow *window, const char *action)
{
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), action));
  g_action_group_activate_action (G_ACTION_GROUP (window), action, NULL);
}

/* Accelerators in one spelling, for comparing. */
char *
ct_test_normalise_accel (const char *accel)
{
  guint key = 0;
  GdkModifierType mods = 0;

  if (!gtk_accelerator_parse (accel, &key, &mods) || key == 0)
    return NULL;
  return gtk_accelerator_name (key, mods);
}

