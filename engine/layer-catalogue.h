/* layer-catalogue.h: every layer type Cortado knows, in one explicit table.
 * The net builder, `cortado-cli layers` and the workbench's palette all read
 * it. Custom layer types are added at run time with
 * ct_layer_catalogue_register() and are then found like built-in ones. */
#pragma once

#include "layer.h"

G_BEGIN_DECLS

/* The class for TYPE ("Convolution"), or NULL. */
const CtLayerClass *ct_layer_catalogue_lookup (const char *type);

/* Every class, built-in first in family order, then registered ones.
 * Returns a new array (free it with g_ptr_array_unref) of borrowed classes. */
GPtrArray *ct_layer_catalogue_list (void);

/* Add a custom type. Fails if a type of that name exists. KLASS must stay
 * valid for the life of the process. Thread-safe. */
gboolean ct_layer_catalogue_register (const CtLayerClass *klass, GError **error);

/* "Vision", "Neuron", ... translated. */
const char *ct_layer_family_name (CtLayerFamily family);

/* The translated one-line description of KLASS. */
const char *ct_layer_class_describe (const CtLayerClass *klass);

/* KLASS's explanation with its texts translated into OUT (borrowed,
 * static strings); FALSE, and OUT emptied, when the type has none. */
gboolean ct_layer_class_explain (const CtLayerClass *klass, CtLayerExplanation *out);

G_END_DECLS
