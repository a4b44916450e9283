/* common-test-util.h: layer builders and checks the Common layer tests share. */
#pragma once

#include "gradient-checker.h"
#include "layer-catalogue.h"
#include "layer-test-util.h"
#include "reference-dump.h"
#include "text-format.h"

CtLayer *ct_test_layer_from_text (const char *text);

void ct_test_assert_floats (const float *got, const float *want, gint64 n, float tolerance);

void ct_test_backward_ok (CtLayer *layer, GPtrArray *top, GPtrArray *bottom);

/* Set-up must fail for TEXT with the layer named and WANT in the message. */
void ct_test_expect_setup_error (const char *text, GPtrArray *bottom, guint n_tops,
                                 const char *want);

void ct_test_check_exhaustive (const char *text, GPtrArray *bottom, GPtrArray *top,
                               int check_bottom);
