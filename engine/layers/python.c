/* python.c: Python, Caffe's layer type whose code is a Python class named
 * by python_param. Cortado runs no Python: the type is known (so that such
 * nets open, and show every shape up to it) but its setup always fails with
 * an error naming the module and class the net asked for. */
#include <glib/gi18n-lib.h>

#include "layer.h"
#include "common-private.h"

static gboolean
python_setup (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  const Caffe__PythonParameter *p = layer->param->python_param;
  const char *module = p != NULL && p->module != NULL ? p->module : "";
  const char *name = p != NULL && p->layer != NULL ? p->layer : "";

  return ct_layer_fail (layer, error, CT_ENGINE_ERROR_INVALID,
                        _("Python layers cannot run in Cortado (python_param asks for "
                          "module '%s', layer '%s'); replace it with a built-in layer type"),
                        module, name);
}

static gboolean
python_reshape (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, GError **error)
{
  return python_setup (layer, bottom, top, error);
}

static gboolean
python_forward (CtLayer *layer, GPtrArray *bottom, GPtrArray *top, gboolean gpu, GError **error)
{
  return python_setup (layer, bottom, top, error);
}

static const CtLayerExplanation python_explanation = {
  .summary = N_("A layer written in Python for Caffe. Cortado keeps it in the net text "
                "but cannot run it."),
  .formula = N_("y = f(x), f defined by the Python module"),
  .parameters = N_("module, layer: the Python class; param_str: its settings."),
  .gradient = N_("Defined by the Python code; Cortado cannot compute it."),
};

const CtLayerClass ct_python_layer_class = {
  .explanation = &python_explanation,
  .type = "Python",
  .family = CT_LAYER_FAMILY_UTILITY,
  .description = N_("A layer written in Python for Caffe; Cortado cannot run it"),
  .instance_size = sizeof (CtLayer),
  .setup = python_setup,
  .reshape = python_reshape,
  .forward = python_forward,
  .new_layer_text = "python_param { module: \"my_module\" layer: \"MyLayer\" }",
};
