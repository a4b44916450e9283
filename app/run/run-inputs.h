/* run-inputs.h: what the window feeds a net's Input blobs, prepared without
 * GTK: image files and folders passed through a transform like Caffe's
 * TransformationParameter, and items of the Fashion-MNIST test set. The
 * results are N×C×H×W floats for ct_runner_set_input().
 *
 * Images. A file is decoded (gdk-pixbuf, engine/image.h), made grey for
 * C = 1 or colour for C = 3, resized to H×W (bilinear), put in the blob's
 * channel order (blue, green, red as Caffe's OpenCV decoding gives, or
 * red, green, blue on request), and each value becomes
 * (pixel − mean[c]) × scale, as Caffe's transformer does, with the means
 * given per channel of the blob. A folder gives its image files (by their
 * extension) in name order (byte order of the names). Fewer images than N
 * repeat from the first, so that every sample holds an image (a batch of
 * 4 from 3 images is 1 2 3 1); more than N: the first N are used.
 *
 * Fashion-MNIST. The test set of Debian's dataset-fashion-mnist package
 * (t10k, 10,000 images of 28×28 grey pixels with labels 0..9), read with
 * the engine's IDX reader. Items picked by index fill the batch in the
 * same way (repeating when fewer than N), their pixels × scale (the example
 * net uses 1/256). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  CT_INPUT_ORDER_BGR, /* Caffe's order, the default */
  CT_INPUT_ORDER_RGB,
} CtInputOrder;

typedef struct {
  float scale;    /* multiplies after the mean is subtracted; 1: none */
  float mean[3];  /* per channel of the blob, in the blob's order */
  CtInputOrder order;
} CtInputTransform;

/* scale 1, no mean, BGR */
void ct_input_transform_init (CtInputTransform *transform);

/* The image files of folder DIR, sorted by name (full paths). */
GPtrArray *ct_input_list_folder (const char *dir, GError **error);

/* One image into C×H×W floats at OUT. Errors name the file. */
gboolean ct_input_load_image (const char *path, const CtInputTransform *transform, int channels,
                              int height, int width, float *out, GError **error);

/* A file or a folder into a batch of DIMS (N, C, H, W; C is 1 or 3):
 * count floats, or NULL with an error naming the file or folder. */
float *ct_input_load_path (const char *path, const CtInputTransform *transform,
                           const gint64 *dims, guint n_axes, GError **error);

/* Fashion-MNIST */

#define CT_FASHION_DIR "/usr/share/datasets/fashion-mnist"
#define CT_FASHION_IMAGES "t10k-images-idx3-ubyte.gz"
#define CT_FASHION_LABELS "t10k-labels-idx1-ubyte.gz"

typedef struct {
  guint32 count, rows, cols;
  guint8 *pixels;  /* count × rows × cols */
  guint8 *labels;  /* count */
} CtFashionSet;

/* The test set in DIR (NULL: CT_FASHION_DIR). */
CtFashionSet *ct_fashion_set_load (const char *dir, GError **error);
void ct_fashion_set_free (CtFashionSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtFashionSet, ct_fashion_set_free)

/* Items ITEMS (N_ITEMS ≥ 1 indices) as a batch of DIMS (N, then
 * C × H × W = rows × cols), each pixel × SCALE; with LABELS, N floats of
 * their labels too. NULL and an error when the shape does not fit. */
float *ct_fashion_set_batch (const CtFashionSet *set, const guint *items, guint n_items,
                             const gint64 *dims, guint n_axes, float scale, float **labels,
                             GError **error);

G_END_DECLS
