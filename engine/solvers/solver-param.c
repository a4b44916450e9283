/* solver-param.c: reading a solver prototxt and checking a
 * SolverParameter before anything is built, with the checks Caffe makes
 * (as errors, where Caffe aborts).
 *
 * The text parser reports syntax errors with their position; the checks
 * here come after parsing, so to name a wrong field's line they look the
 * field up again in the file's text: the first top-level occurrence of the
 * field name, outside comments, strings and nested messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "lr-policy.h"
#include "proto-file.h"
#include "solver-private.h"
#include "text-format.h"
#include "upgrade.h"

G_DEFINE_QUARK (ct-solver-error-quark, ct_solver_error)

static const CtSolverType *const solver_types[] = {
  &ct_solver_type_sgd,
  &ct_solver_type_nesterov,
  &ct_solver_type_adagrad,
  &ct_solver_type_rmsprop,
  &ct_solver_type_adadelta,
  &ct_solver_type_adam,
};

const CtSolverType *
ct_solver_type_lookup (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (solver_types); i++)
    if (name != NULL && strcmp (name, solver_types[i]->name) == 0)
      return solver_types[i];
  return NULL;
}

/* Skip a comment or a quoted string starting at *P; TRUE if there was one. */
static gboolean
skip_comment_or_string (const char **p, guint *line, guint *column)
{
  const char *s = *p;

  if (*s == '#')
    {
      while (*s != '\0' && *s != '\n')
        s++;
    }
  else if (*s == '"' || *s == '\'')
    {
      char quote = *s++;

      while (*s != '\0' && *s != quote && *s != '\n')
        s += (*s == '\\' && s[1] != '\0') ? 2 : 1;
      if (*s == quote)
        s++;
    }
  else
    return FALSE;
  *column += (guint) (s - *p);
  *p = s;
  return TRUE;
}

/* The 1-based position of top-level field FIELD in TEXT; FALSE if absent. */
static gboolean
find_top_level_field (const char *text, const char *field, guint *line_out,
                      guint *column_out)
{
  gsize field_len = strlen (field);
  guint line = 1, column = 1;
  int depth = 0;
  const char *p = text;

  while (*p != '\0')
    {
      if (skip_comment_or_string (&p, &line, &column))
        continue;
      if (*p == '\n')
        {
          line++;
          column = 1;
          p++;
          continue;
        }
      if (*p == '{' || *p == '<')
        depth++;
      else if ((*p == '}' || *p == '>') && depth > 0)
        depth--;
      else if (depth == 0 && (g_ascii_isalpha (*p) || *p == '_'))
        {
          const char *start = p;
          guint start_column = column;

          while (g_ascii_isalnum (*p) || *p == '_')
            p++;
          column += (guint) (p - start);
          if ((gsize) (p - start) == field_len && strncmp (start, field, field_len) == 0)
            {
              *line_out = line;
              *column_out = start_column;
              return TRUE;
            }
          continue;
        }
      p++;
      column++;
    }
  return FALSE;
}

gboolean
ct_solver_param_fail (const CtSolver *solver, const char *field, GError **error,
                      const char *format, ...)
{
  g_autofree char *message = NULL;
  g_autofree char *text = NULL;
  const char *source = solver->source_path != NULL ? solver->source_path : _("solver");
  guint line, column;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (field != NULL && solver->source_path != NULL &&
      g_file_get_contents (solver->source_path, &text, NULL, NULL) &&
      find_top_level_field (text, field, &line, &column))
    g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_PARAM,
                 /* TRANSLATORS: FILE:LINE:COLUMN: field 'NAME' in SolverParameter: MESSAGE */
                 _("%s:%u:%u: field '%s' in SolverParameter: %s"),
                 source, line, column, field, message);
  else if (field != NULL)
    g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_PARAM,
                 _("%s: field '%s' in SolverParameter: %s"), source, field, message);
  else
    g_set_error (error, CT_SOLVER_ERROR, CT_SOLVER_ERROR_PARAM,
                 _("%s: SolverParameter: %s"), source, message);
  return FALSE;
}

/* Caffe's default snapshot_prefix: the solver file's path without its
 * extension; a prefix naming a folder gets the file's stem appended. */
static void
default_snapshot_prefix (Caffe__SolverParameter *param, const char *path)
{
  const char *slash = strrchr (path, '/');
  const char *name = slash != NULL ? slash + 1 : path;
  const char *dot = strrchr (name, '.');
  g_autofree char *stem = dot != NULL && dot != name ? g_strndup (name, (gsize) (dot - name))
                                                    : g_strdup (name);

  if (param->snapshot_prefix == NULL || param->snapshot_prefix[0] == '\0')
    {
      free (param->snapshot_prefix);
      param->snapshot_prefix = g_strdup_printf ("%.*s%s", (int) (name - path), path, stem);
    }
  else if (g_file_test (param->snapshot_prefix, G_FILE_TEST_IS_DIR))
    {
      char *prefix = g_build_filename (param->snapshot_prefix, stem, NULL);

      free (param->snapshot_prefix);
      param->snapshot_prefix = prefix;
    }
}

Caffe__SolverParameter *
ct_solver_param_load_file (const char *path, GError **error)
{
  Caffe__SolverParameter *param;

  param = (Caffe__SolverParameter *) ct_text_parse_file (&caffe__solver_parameter__descriptor,
                                                         path, CT_TEXT_STRICT, error);
  if (param == NULL)
    return NULL;
  if (!ct_upgrade_solver (param, path, NULL, error))
    {
      protobuf_c_message_free_unpacked (&param->base, NULL);
      return NULL;
    }
  default_snapshot_prefix (param, path);
  return param;
}

/* Exactly one train net. */
static gboolean
check_train_net (CtSolver *solver, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  int n = (p->net != NULL) + (p->net_param != NULL) + (p->train_net != NULL) +
          (p->train_net_param != NULL);

  if (n == 0)
    return ct_solver_param_fail (solver, NULL, error,
                                 _("no train net: give one of net, net_param, train_net or "
                                   "train_net_param"));
  if (n > 1)
    {
      const char *field = p->train_net != NULL ? "train_net"
                        : p->train_net_param != NULL ? "train_net_param" : "net_param";
      return ct_solver_param_fail (solver, field, error,
                                   _("more than one train net: give only one of net, "
                                     "net_param, train_net and train_net_param"));
    }
  return TRUE;
}

/* Caffe's InitTestNets counts. */
static gboolean
check_test_nets (CtSolver *solver, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  gsize n_specific = p->n_test_net + p->n_test_net_param;
  gboolean generic = p->net != NULL || p->net_param != NULL;
  gsize n_instances;

  if (generic ? p->n_test_iter < n_specific : p->n_test_iter != n_specific)
    return ct_solver_param_fail (solver, "test_iter", error,
                                 g_dngettext (GETTEXT_PACKAGE,
                                              "give one test_iter for each test net (%u given, %u test "
                                              "net)",
                                              "give one test_iter for each test net (%u given, %u test "
                                              "nets)", n_specific),
                                 (guint) p->n_test_iter, (guint) n_specific);
  n_instances = generic ? p->n_test_iter : n_specific;
  if (p->n_test_state > 0 && p->n_test_state != n_instances)
    return ct_solver_param_fail (solver, "test_state", error,
                                 g_dngettext (GETTEXT_PACKAGE,
                                              "give test_state once per test net (%u given, %u test "
                                              "net), or not at all",
                                              "give test_state once per test net (%u given, %u test "
                                              "nets), or not at all", n_instances),
                                 (guint) p->n_test_state,
                                 (guint) n_instances);
  if (n_instances > 0 && p->test_interval <= 0)
    return ct_solver_param_fail (solver, "test_interval", error,
                                 _("test nets need a test_interval above 0"));
  for (gsize i = 0; i < p->n_test_iter; i++)
    if (p->test_iter[i] < 0)
      return ct_solver_param_fail (solver, "test_iter", error,
                                   _("test_iter cannot be negative (%d)"), p->test_iter[i]);
  return TRUE;
}

/* Every float of the parameter a finite number: `base_lr: nan` would train
 * to all-NaN weights. */
static gboolean
check_finite (const CtSolver *solver, GError **error)
{
  const ProtobufCMessageDescriptor *d = &caffe__solver_parameter__descriptor;
  const guint8 *base = (const guint8 *) solver->param;

  for (guint i = 0; i < d->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &d->fields[i];
      double value;

      if (f->label == PROTOBUF_C_LABEL_REPEATED)
        continue;
      if (f->type == PROTOBUF_C_TYPE_FLOAT)
        value = *(const float *) (base + f->offset);
      else if (f->type == PROTOBUF_C_TYPE_DOUBLE)
        value = *(const double *) (base + f->offset);
      else
        continue;
      if (!isfinite (value))
        return ct_solver_param_fail (solver, f->name, error,
                                     _("%s must be a finite number"), f->name);
    }
  return TRUE;
}

gboolean
ct_solver_param_check_numbers (const Caffe__SolverParameter *param, const char *source_path,
                               GError **error)
{
  CtSolver shell = { .param = (Caffe__SolverParameter *) param,
                     .source_path = (char *) source_path };

  return check_finite (&shell, error);
}

static gboolean
check_numbers (CtSolver *solver, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  g_autoptr (GError) local = NULL;
  const char *field = NULL;

  if (!check_finite (solver, error))
    return FALSE;

  if (p->average_loss < 1)
    return ct_solver_param_fail (solver, "average_loss", error,
                                 _("average_loss must be 1 or more (it is %d)"),
                                 p->average_loss);
  if (p->iter_size < 1)
    return ct_solver_param_fail (solver, "iter_size", error,
                                 _("iter_size must be 1 or more (it is %d)"), p->iter_size);
  if (p->max_iter < 0)
    return ct_solver_param_fail (solver, "max_iter", error,
                                 _("max_iter cannot be negative (%d)"), p->max_iter);
  if (p->snapshot < 0)
    return ct_solver_param_fail (solver, "snapshot", error,
                                 _("snapshot cannot be negative (%d)"), p->snapshot);
  if (p->regularization_type == NULL ||
      (strcmp (p->regularization_type, "L2") != 0 && strcmp (p->regularization_type, "L1") != 0))
    return ct_solver_param_fail (solver, "regularization_type", error,
                                 _("unknown regularization type '%s'; known types: L1, L2"),
                                 p->regularization_type != NULL ? p->regularization_type : "");
  if (!ct_lr_policy_check (p, &field, &local))
    return ct_solver_param_fail (solver, field, error, "%s", local->message);
  return TRUE;
}

gboolean
ct_solver_check_param (CtSolver *solver, GError **error)
{
  const Caffe__SolverParameter *p = solver->param;
  g_autoptr (GError) local = NULL;
  const char *field = NULL;

  solver->type = ct_solver_type_lookup (p->type);
  if (solver->type == NULL)
    return ct_solver_param_fail (solver, "type", error,
                                 _("unknown solver type '%s'; known types: SGD, Nesterov, "
                                   "AdaGrad, RMSProp, AdaDelta, Adam"),
                                 p->type != NULL ? p->type : "");
  if (solver->type->check != NULL && !solver->type->check (p, &field, &local))
    return ct_solver_param_fail (solver, field, error, "%s", local->message);
  return check_train_net (solver, error) && check_test_nets (solver, error) &&
         check_numbers (solver, error);
}
