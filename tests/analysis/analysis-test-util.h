/* analysis-test-util.h: what the analysis tests share: nets built from
 * text, blobs filled by hand. */
#pragma once

#include <glib.h>

#include "net.h"

G_BEGIN_DECLS

/* TEXT as a NetParameter built in the TEST phase; the test fails when it
 * does not build. */
CtNet *ct_test_analysis_net (const char *text);

/* Copy N values into the data of parameter blob PARAM of layer LAYER. */
void ct_test_set_param (CtNet *net, const char *layer, guint param, const float *values,
                        gsize n);

/* Copy N values into the data of blob NAME. */
void ct_test_set_blob (CtNet *net, const char *name, const float *values, gsize n);

G_END_DECLS
