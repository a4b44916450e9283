/* net-test-util.h: nets, builders and inputs the CtNet tests share
 * (test-net*.c). */
#pragma once

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "binary-io.h"
#include "engine-error.h"
#include "net.h"
#include "text-format.h"

void ct_test_net_param_free (Caffe__NetParameter *param);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Caffe__NetParameter, ct_test_net_param_free)

Caffe__NetParameter *ct_test_parse (const char *text);

CtNet *ct_test_build (const char *text, Caffe__Phase phase, GError **error);

CtNet *ct_test_build_ok (const char *text, Caffe__Phase phase);

void ct_test_fill_sine (CtBlob *blob, double offset);

void ct_test_fill_labels (CtBlob *blob, int n_classes);

/* A small classifier used by several tests: data 4x6 -> ip1 (5) -> relu
 * (in place) -> ip2 (3) -> loss with label. */
extern const char *ct_test_classifier;

void ct_test_fill_classifier_inputs (CtNet *net);
