/* idx.h: reading IDX files, the format of MNIST and Fashion-MNIST
 * (big-endian magic number and sizes, then unsigned bytes), gzip-compressed
 * or not. One reader for `cortado-cli convert mnist` and for the window's
 * Fashion-MNIST browser (app/run/run-inputs.h). Items are read one after
 * the other, so that a 60,000-image file need not be held whole. */
#pragma once

#include <glib.h>

#include "data-error.h"

G_BEGIN_DECLS

typedef enum {
  CT_IDX_IMAGES = 2051, /* magic, count, rows, cols, then count × rows × cols bytes */
  CT_IDX_LABELS = 2049, /* magic, count, then count bytes */
} CtIdxKind;

typedef struct _CtIdxFile CtIdxFile;

/* Open PATH and read its header; errors (CT_DATA_ERROR) name the file. */
CtIdxFile *ct_idx_open (const char *path, CtIdxKind kind, GError **error);
void ct_idx_close (CtIdxFile *file);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtIdxFile, ct_idx_close)

guint32 ct_idx_count (const CtIdxFile *file);
/* Images files: the size of one image; labels files: 1 × 1. */
guint32 ct_idx_rows (const CtIdxFile *file);
guint32 ct_idx_cols (const CtIdxFile *file);

/* Read the next item (rows × cols bytes) into BUF; an error says where the
 * file ended. */
gboolean ct_idx_read_next (CtIdxFile *file, guint8 *buf, GError **error);

G_END_DECLS
