/* data-test-util.h: what the data tests share: temporary folders, small
 * databases of Datum records, PNG files made with gdk-pixbuf, and nets
 * built from prototxt text. */
#pragma once

#include "test-files.h"

#include <glib.h>

#include "db.h"
#include "image.h"
#include "net.h"

G_BEGIN_DECLS

/* A new temporary folder; remove it with ct_test_remove_tree. */
char *ct_test_make_temp_dir (void);

/* The pixel of record I at index K of a C×H×W test image. */
static inline guint8
ct_test_pixel (guint i, gsize k)
{
  return (guint8) ((i * 37 + k * 11) % 251);
}

/* Write N raw records of C×H×W (pixels from ct_test_pixel, label I % 7)
 * with keys "%08u". */
void ct_test_write_db (const char *path, CtDbBackend backend, guint n, int c, int h, int w);

/* Put one record with KEY and VALUE into PATH (made if missing). */
void ct_test_put_record (const char *path, CtDbBackend backend, const char *key,
                         GBytes *value);

/* Save an RGB PNG of H×W whose pixel (y, x) has red
 * R0+y, green G0+x, blue B0+x+y. */
void ct_test_write_png (const char *path, int h, int w, guint8 r0, guint8 g0, guint8 b0);

/* Build a net from prototxt TEXT in PHASE with SEED; NULL and ERROR on
 * failure. */
CtNet *ct_test_build_net (const char *text, Caffe__Phase phase, guint64 seed, GError **error);

G_END_DECLS
