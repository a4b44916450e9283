/* grad-cam.h: where in the image a convolution layer saw the evidence for
 * a class (Selvaraju et al., 2017). The gradient of the class score with
 * respect to the layer's output A, averaged over each channel's positions,
 * weighs the channels: cam = ReLU(Σ_k α_k A_k), α_k = mean over (y, x) of
 * ∂score/∂A_k(y, x). The map is at the layer's resolution and is scaled
 * to the image's (bilinear, pixel centres aligned).
 *
 * A layer whose output an in-place layer (ReLU) then changes is read after
 * that change, and its gradient there, so that A and ∂score/∂A belong to
 * the same values. */
#pragma once

#include <glib.h>

#include "analysis-net.h"

G_BEGIN_DECLS

typedef struct {
  guint height, width;  /* the layer's output plane */
  float *cam;           /* height × width, before scaling */
  float *weights;       /* α, one per channel */
  guint channels;
  float *image_cam;     /* the path's height × width */
  float score;
} CtGradCam;

void ct_grad_cam_free (CtGradCam *cam);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtGradCam, ct_grad_cam_free)

/* LAYER_NAME: a layer between the input and the scores whose first top is
 * N × C × H × W (a convolution, a pooling). */
CtGradCam *ct_grad_cam_compute (CtNet *net, const CtClassifier *classifier,
                                const CtAnalysisPath *path, const float *image, guint klass,
                                const char *layer_name, GError **error);

/* SRC (SH × SW) resized to DH × DW, bilinear with pixel centres aligned. */
float *ct_resize_bilinear (const float *src, guint sh, guint sw, guint dh, guint dw);

G_END_DECLS
