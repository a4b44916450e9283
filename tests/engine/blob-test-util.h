/* blob-test-util.h: blob builders and checks the CtBlob tests share
 * (test-blob*.c). */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

#include "blob.h"
#include "engine-error.h"
#include "fake-device.h"

CtBlob *ct_test_blob_of (guint n_axes, ...);

void ct_test_assert_shape_string (const CtBlob *blob, const char *want);

/* Data = 0, 1, 2, ... (times SCALE); diff likewise with DIFF_SCALE. */
void ct_test_fill_pattern (CtBlob *blob, float scale, float diff_scale);
