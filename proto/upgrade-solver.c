/* upgrade-solver.c: legacy Caffe solvers brought to the current format:
 * the `solver_type` enum becomes the `type` string, and the nets a solver
 * embeds (net_param, train_net_param, test_net_param) are upgraded as net
 * files are (upgrade.c), their notes and errors naming the field. */
#include "upgrade.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "proto-error.h"
#include "reflect.h"
#include "upgrade-private.h"

/* Legacy SolverType enum names and the type strings that replaced them. */
static const struct {
  const char *v1;
  const char *type;
} solver_types[] = {
  { "SGD", "SGD" },
  { "NESTEROV", "Nesterov" },
  { "ADAGRAD", "AdaGrad" },
  { "RMSPROP", "RMSProp" },
  { "ADADELTA", "AdaDelta" },
  { "ADAM", "Adam" },
};

/* The solver's embedded nets, which we upgrade like net files. */
static const char *solver_nets[] = { "net_param", "train_net_param", "test_net_param" };

static gboolean
solver_nets_need_upgrade (const Caffe__SolverParameter *solver)
{
  if (solver->net_param != NULL && ct_net_needs_upgrade (solver->net_param))
    return TRUE;
  if (solver->train_net_param != NULL && ct_net_needs_upgrade (solver->train_net_param))
    return TRUE;
  for (gsize i = 0; i < solver->n_test_net_param; i++)
    if (ct_net_needs_upgrade (solver->test_net_param[i]))
      return TRUE;
  return FALSE;
}

gboolean
ct_solver_needs_upgrade (const Caffe__SolverParameter *solver)
{
  g_return_val_if_fail (solver != NULL, FALSE);

  return solver->has_solver_type || solver_nets_need_upgrade (solver);
}

static gboolean
upgrade_embedded_net (Caffe__NetParameter *net,
                      const char *field,
                      const char *filename,
                      GPtrArray *notes,
                      GError **error)
{
  g_autoptr(GPtrArray) net_notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) local_error = NULL;

  if (!ct_net_needs_upgrade (net))
    return TRUE;
  if (!ct_upgrade_net (net, filename, net_notes, &local_error))
    {
      g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                   _("%s (in %s)"), local_error->message, field);
      return FALSE;
    }
  for (guint i = 0; i < net_notes->len; i++)
    ct_upgrade_note (notes, _("in %s: %s"), field, (const char *) g_ptr_array_index (net_notes, i));
  return TRUE;
}

gboolean
ct_upgrade_solver (Caffe__SolverParameter *solver,
                   const char *filename,
                   GPtrArray *notes,
                   GError **error)
{
  const ProtobufCFieldDescriptor *type_field;

  g_return_val_if_fail (solver != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  type_field = ct_upgrade_field_by_name (&caffe__solver_parameter__descriptor, "type");
  if (solver->has_solver_type)
    {
      const ProtobufCEnumValue *value =
        protobuf_c_enum_descriptor_get_value (&caffe__solver_parameter__solver_type__descriptor,
                                              solver->solver_type);
      const char *type = NULL;

      if (ct_proto_field_is_set (&solver->base, type_field))
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                       _("%s: the solver sets both the legacy 'solver_type' and 'type'; "
                         "keep only 'type'"),
                       ct_upgrade_source_name (filename));
          return FALSE;
        }
      for (gsize i = 0; value != NULL && i < G_N_ELEMENTS (solver_types); i++)
        if (strcmp (solver_types[i].v1, value->name) == 0)
          type = solver_types[i].type;
      if (type == NULL)
        {
          g_set_error (error, CT_PROTO_ERROR, CT_PROTO_ERROR_UPGRADE,
                       _("%s: solver_type %d is not a known solver type"),
                       ct_upgrade_source_name (filename), (int) solver->solver_type);
          return FALSE;
        }
      if (solver->type != NULL && solver->type != type_field->default_value)
        g_free (solver->type);
      solver->type = g_strdup (type);
      solver->has_solver_type = FALSE;
      solver->solver_type = CAFFE__SOLVER_PARAMETER__SOLVER_TYPE__SGD;
      ct_upgrade_note (notes, _("upgraded solver_type %s to type \"%s\""), value->name, type);
    }

  for (gsize i = 0; i < G_N_ELEMENTS (solver_nets); i++)
    {
      const ProtobufCFieldDescriptor *field =
        ct_upgrade_field_by_name (&caffe__solver_parameter__descriptor, solver_nets[i]);

      if (field->label == PROTOBUF_C_LABEL_REPEATED)
        {
          for (gsize j = 0; j < solver->n_test_net_param; j++)
            {
              g_autofree char *label = g_strdup_printf ("%s #%" G_GSIZE_FORMAT,
                                                        solver_nets[i], j + 1);
              if (!upgrade_embedded_net (solver->test_net_param[j], label,
                                         filename, notes, error))
                return FALSE;
            }
        }
      else
        {
          Caffe__NetParameter *net =
            *(Caffe__NetParameter **) ct_proto_field_member (&solver->base, field);

          if (net != NULL &&
              !upgrade_embedded_net (net, solver_nets[i], filename, notes, error))
            return FALSE;
        }
    }
  return TRUE;
}
