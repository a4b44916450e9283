/* solver-diff.c: the label of an earlier run by what differed. A class
 * restarts a run with one setting changed and compares the curves: the
 * faded curve is read by that setting ("base_lr 0.01"), not by a number.
 * The fields come from the descriptor, so every solver setting counts. */
#include <string.h>

#include "field-path.h"
#include "reflect.h"
#include "solver-diff.h"

/* Set by the window, not by the user's settings. */
static gboolean
skipped (const char *name)
{
  static const char *const names[] = { "net", "train_net", "test_net", "net_param",
                                       "train_net_param", "test_net_param", "train_state",
                                       "test_state", "snapshot_prefix" };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The field's value as text, its default when unset; repeated values
 * joined by ",". */
static char *
value_text (const Caffe__SolverParameter *param, const ProtobufCFieldDescriptor *f)
{
  const ProtobufCMessage *msg = &param->base;

  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      gsize n = ct_proto_field_count (msg, f);

      for (gsize i = 0; i < n; i++)
        {
          g_autofree char *one = ct_field_value_to_text (msg, f, i);

          if (i > 0)
            g_string_append_c (text, ',');
          g_string_append (text, one != NULL ? one : "");
        }
      return g_string_free (g_steal_pointer (&text), FALSE);
    }
  else
    {
      g_autofree char *set = ct_field_path_get (msg, f->name, NULL);

      return set != NULL ? g_steal_pointer (&set)
                         : ct_field_default_to_text (msg->descriptor, f);
    }
}

char *
ct_solver_param_diff (const Caffe__SolverParameter *earlier,
                      const Caffe__SolverParameter *current, guint max_fields)
{
  const ProtobufCMessageDescriptor *desc = &caffe__solver_parameter__descriptor;
  g_autoptr (GString) label = g_string_new (NULL);
  guint n = 0;

  g_return_val_if_fail (earlier != NULL && current != NULL, NULL);
  for (guint i = 0; i < desc->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &desc->fields[i];
      g_autofree char *a = NULL, *b = NULL;

      if (f->type == PROTOBUF_C_TYPE_MESSAGE || skipped (f->name))
        continue;
      a = value_text (earlier, f);
      b = value_text (current, f);
      if (g_strcmp0 (a, b) == 0)
        continue;
      if (n == max_fields)
        {
          g_string_append (label, ", …");
          break;
        }
      if (n > 0)
        g_string_append (label, ", ");
      g_string_append_printf (label, "%s %s", f->name, a != NULL && *a != '\0' ? a : "\"\"");
      n++;
    }
  return n > 0 ? g_string_free (g_steal_pointer (&label), FALSE) : NULL;
}
