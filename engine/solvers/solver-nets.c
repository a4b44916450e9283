/* solver-nets.c: the nets a solver trains and tests, built as Caffe's
 * Solver::InitTrainNet and InitTestNets build them, and the weight sharing
 * between them (Caffe's Net::ShareTrainedLayersWith).
 *
 * Each net's NetState starts from the solver's default phase (TRAIN for the
 * train net, TEST for test nets), takes what the NetParameter's own `state`
 * sets, then what train_state or test_state[i] sets, later ones winning for
 * phase and level and stages adding up. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "engine-error.h"
#include "proto-file.h"
#include "solver-private.h"

/* PATH as given when it exists from the working directory (Caffe's rule);
 * otherwise from the solver file's folder, when it exists there. */
static char *
resolve_path (const CtSolver *solver, const char *path)
{
  g_autofree char *dir = NULL;
  g_autofree char *candidate = NULL;

  if (g_path_is_absolute (path) || g_file_test (path, G_FILE_TEST_EXISTS) ||
      solver->source_path == NULL)
    return g_strdup (path);
  dir = g_path_get_dirname (solver->source_path);
  candidate = g_build_filename (dir, path, NULL);
  if (g_file_test (candidate, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&candidate);
  return g_strdup (path);
}

static Caffe__NetParameter *
load_net_file (CtSolver *solver, const char *field, const char *path, GError **error)
{
  g_autofree char *resolved = resolve_path (solver, path);
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) local = NULL;
  Caffe__NetParameter *param;

  if (!g_file_test (resolved, G_FILE_TEST_IS_REGULAR))
    {
      ct_solver_param_fail (solver, field, error, _("the net file '%s' does not exist"), path);
      return NULL;
    }
  param = ct_net_load_text_file (resolved, CT_TEXT_STRICT, notes, &local);
  if (param == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  for (guint i = 0; i < notes->len; i++)
    CT_SOLVER_LOG (solver, "%s: %s", resolved, (const char *) notes->pdata[i]);
  return param;
}

/* The phase and level a net is built with: DEFAULT_PHASE and 0, then
 * what the NetParameter's own state sets, then what OVERRIDE (may be NULL)
 * sets. Stages are added up by build_net and the builder. */
static void
merge_state (CtNetConfig *config, Caffe__Phase default_phase, const Caffe__NetParameter *param,
             const Caffe__NetState *override)
{
  const Caffe__NetState *layers[2] = { param->state, override };

  config->phase = default_phase;
  config->level = 0;
  for (guint i = 0; i < G_N_ELEMENTS (layers); i++)
    {
      if (layers[i] == NULL)
        continue;
      if (layers[i]->has_phase)
        config->phase = layers[i]->phase;
      if (layers[i]->has_level)
        config->level = layers[i]->level;
    }
}

static CtNet *
build_net (CtSolver *solver, const Caffe__NetParameter *param, Caffe__Phase default_phase,
           const Caffe__NetState *override, guint64 seed, const char *source_name,
           CtNetMemoryPlan plan, GError **error)
{
  g_autoptr (GPtrArray) stages = g_ptr_array_new ();
  CtNetConfig config = { 0 };

  merge_state (&config, default_phase, param, override);
  for (gsize i = 0; override != NULL && i < override->n_stage; i++)
    g_ptr_array_add (stages, override->stage[i]);
  g_ptr_array_add (stages, NULL);
  config.stages = (const char *const *) stages->pdata;
  config.seed = seed;
  config.source_name = source_name;
  config.memory_plan = solver->plan_memory ? plan : CT_NET_MEMORY_KEEP_ALL;
  return ct_net_new_with_config (param, &config, error);
}

static guint64
base_seed (const CtSolver *solver)
{
  if (solver->param->random_seed >= 0)
    return (guint64) solver->param->random_seed;
  return ((guint64) g_random_int () << 32) | g_random_int ();
}

static gboolean
build_train_net (CtSolver *solver, guint64 seed, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  g_autoptr (GError) local = NULL;
  Caffe__NetParameter *loaded = NULL;
  const Caffe__NetParameter *param;
  const char *field, *source;

  if (p->train_net_param != NULL || p->net_param != NULL)
    {
      field = p->train_net_param != NULL ? "train_net_param" : "net_param";
      param = p->train_net_param != NULL ? p->train_net_param : p->net_param;
      CT_SOLVER_LOG (solver, "Creating training net specified in %s.", field);
      source = field;
    }
  else
    {
      field = p->train_net != NULL ? "train_net" : "net";
      source = p->train_net != NULL ? p->train_net : p->net;
      CT_SOLVER_LOG (solver, "Creating training net from %s file: %s", field, source);
      param = loaded = load_net_file (solver, field, source, error);
      if (param == NULL)
        return FALSE;
    }
  solver->net = build_net (solver, param, CAFFE__PHASE__TRAIN, p->train_state, seed, source,
                           CT_NET_MEMORY_TRAINING, &local);
  if (loaded != NULL)
    protobuf_c_message_free_unpacked (&loaded->base, NULL);
  if (solver->net == NULL)
    {
      g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_NET, _("train net (%s): %s"),
                   source, local->message);
      return FALSE;
    }
  return TRUE;
}

/* Test net I (of the test_net_param, test_net, generic order). */
static gboolean
build_test_net (CtSolver *solver, guint i, guint64 seed, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  g_autoptr (GError) local = NULL;
  g_autofree char *source = NULL;
  Caffe__NetParameter *loaded = NULL;
  const Caffe__NetParameter *param = NULL;
  const char *file = NULL, *field = NULL;
  CtNet *net;

  if (i < p->n_test_net_param)
    {
      param = p->test_net_param[i];
      source = g_strdup ("test_net_param");
    }
  else if (i < p->n_test_net_param + p->n_test_net)
    {
      file = p->test_net[i - p->n_test_net_param];
      field = "test_net";
      source = g_strdup_printf ("test_net file: %s", file);
    }
  else if (p->net_param != NULL)
    {
      param = p->net_param;
      source = g_strdup ("net_param");
    }
  else
    {
      file = p->net;
      field = "net";
      source = g_strdup_printf ("net file: %s", file);
    }
  if (file != NULL && (param = loaded = load_net_file (solver, field, file, error)) == NULL)
    return FALSE;
  CT_SOLVER_LOG (solver, "Creating test net (#%u) specified by %s", i, source);
  net = build_net (solver, param, CAFFE__PHASE__TEST,
                   p->n_test_state > 0 ? p->test_state[i] : NULL, seed,
                   file != NULL ? file : source, CT_NET_MEMORY_FORWARD, &local);
  if (loaded != NULL)
    protobuf_c_message_free_unpacked (&loaded->base, NULL);
  if (net == NULL)
    {
      g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_NET, _("test net #%u (%s): %s"),
                   i, source, local->message);
      return FALSE;
    }
  g_ptr_array_add (solver->test_nets, net);
  return TRUE;
}

static guint
n_test_instances (const CtSolver *solver)
{
  const Caffe__SolverParameter *p = solver->param;

  if (p->net != NULL || p->net_param != NULL)
    return (guint) p->n_test_iter;
  return (guint) (p->n_test_net + p->n_test_net_param);
}

static gboolean
create_history (CtSolver *solver, GError **error)
{
  guint n = ct_net_n_learnable (solver->net);

  for (guint set = 0; set < solver->type->n_history_sets; set++)
    for (guint i = 0; i < n; i++)
      {
        g_autoptr (CtBlob) blob = ct_blob_new ();

        if (!ct_blob_reshape_like (blob, ct_net_get_learnable (solver->net, i)->blob, error))
          return FALSE;
        g_ptr_array_add (solver->history, g_steal_pointer (&blob));
      }
  return TRUE;
}

gboolean
ct_solver_build_nets (CtSolver *solver, GError **error)
{
  guint64 seed = base_seed (solver);
  const Caffe__SolverParameter *p = solver->param;

  if (!build_train_net (solver, seed, error))
    return FALSE;
  for (guint i = 0; i < n_test_instances (solver); i++)
    if (!build_test_net (solver, i, seed + 1 + i, error))
      return FALSE;
  for (gsize w = 0; w < p->n_weights; w++)
    if (!ct_solver_load_weights (solver, p->weights[w], error))
      return FALSE;
  for (guint i = 0; i < solver->test_nets->len; i++)
    if (!ct_solver_share_trained_layers (solver->test_nets->pdata[i], solver->net, error))
      return FALSE;
  return create_history (solver, error);
}

gboolean
ct_solver_load_weights (CtSolver *solver, const char *list, GError **error)
{
  if (!ct_snapshot_load_weights_list (solver->net, list, error))
    return FALSE;
  for (guint i = 0; i < solver->test_nets->len; i++)
    if (!ct_snapshot_load_weights_list (solver->test_nets->pdata[i], list, error))
      return FALSE;
  return TRUE;
}

/* The first layer of NET named NAME, or NULL. */
static CtLayer *
first_layer_named (CtNet *net, const char *name)
{
  for (guint i = 0; i < ct_net_n_layers (net); i++)
    {
      CtLayer *layer = ct_net_get_layer (net, i);

      if (strcmp (ct_layer_get_name (layer), name) == 0)
        return layer;
    }
  return NULL;
}

gboolean
ct_solver_share_trained_layers (CtNet *target, CtNet *source, GError **error)
{
  for (guint i = 0; i < ct_net_n_layers (source); i++)
    {
      CtLayer *from = ct_net_get_layer (source, i);
      CtLayer *to = first_layer_named (target, ct_layer_get_name (from));

      if (to == NULL)
        continue;
      if (to->blobs->len != from->blobs->len)
        {
          g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_NET,
                       g_dngettext (GETTEXT_PACKAGE,
                                    "layer '%s' has %u parameter blob in the train net but %u in the "
                                    "test net",
                                    "layer '%s' has %u parameter blobs in the train net but %u in the "
                                    "test net", from->blobs->len),
                       ct_layer_get_name (from), from->blobs->len,
                       to->blobs->len);
          return FALSE;
        }
      for (guint j = 0; j < from->blobs->len; j++)
        {
          CtBlob *a = from->blobs->pdata[j];
          CtBlob *b = to->blobs->pdata[j];

          if (ct_blob_num_axes (a) != ct_blob_num_axes (b) ||
              memcmp (ct_blob_get_shape (a), ct_blob_get_shape (b),
                      sizeof (gint64) * ct_blob_num_axes (a)) != 0)
            {
              g_autofree char *sa = ct_blob_shape_string (a);
              g_autofree char *sb = ct_blob_shape_string (b);

              g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_NET,
                           _("cannot share parameter %u of layer '%s' with the test net: "
                             "shape %s in the train net, %s in the test net"),
                           j, ct_layer_get_name (from), sa, sb);
              return FALSE;
            }
          if (!ct_blob_share_data (b, a, error))
            return FALSE;
        }
    }
  return TRUE;
}
