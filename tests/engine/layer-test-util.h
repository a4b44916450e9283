/* layer-test-util.h: the blobs and blob lists the layer tests build
 * (test-layers-*.c), beside the gradient checker that checks them. */
#pragma once

#include "blob.h"
#include "layer.h"

G_BEGIN_DECLS

/* A blob of the given shape filled with gaussian (std 1) or uniform values
 * from a seeded CtRng, so that every run checks the same numbers. */
CtBlob *ct_test_blob_gaussian (const gint64 *dims, guint n_axes, guint64 seed);
CtBlob *ct_test_blob_uniform (const gint64 *dims, guint n_axes, float lo, float hi, guint64 seed);

/* The same with the N_AXES dims as int arguments. */
CtBlob *ct_test_gaussian (guint64 seed, guint n_axes, ...);
CtBlob *ct_test_uniform (guint64 seed, float lo, float hi, guint n_axes, ...);

/* A blob of shape DIMS holding VALUES. */
CtBlob *ct_test_blob_with (const gint64 *dims, guint n_axes, const float *values);

/* A list of the blobs up to NULL that owns them. */
GPtrArray *ct_test_blobs (CtBlob *first, ...);

/* A list of BLOB alone that only borrows it (an in-place layer's top). */
GPtrArray *ct_test_borrowed (CtBlob *blob);

/* N fresh empty blobs, owned: the tops of a layer about to be set up. */
GPtrArray *ct_test_empty_blobs (guint n);

/* BLOB has N_AXES axes, of the given sizes (int arguments). */
void ct_test_assert_shape (CtBlob *blob, guint n_axes, ...);

/* Whether the layer tests run their layers on the GPU: the environment
 * variable CT_TEST_DEVICE is "gpu" (the `cuda` suite runs the engine's
 * layer tests again so). Without a usable GPU the process then exits with
 * status 77, meson's SKIP, at the first call. */
gboolean ct_test_use_gpu (void);

/* Setup and forward that must succeed (the test stops with the error). */
void ct_test_setup_ok (CtLayer *layer, GPtrArray *bottom, GPtrArray *top);
void ct_test_forward_ok (CtLayer *layer, GPtrArray *bottom, GPtrArray *top);

G_END_DECLS
