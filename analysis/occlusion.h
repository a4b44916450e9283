/* occlusion.h: which parts of the image the class score depends on, found
 * by hiding them (Zeiler and Fergus, 2014): a square patch of one grey
 * value slides over the image, and for each place the drop in the class
 * score (unhidden minus hidden) is recorded. Every hidden copy is an image
 * of a batch run through the net from the input to the scores.
 *
 * The map is the drop per patch place (a grid of places) and, for the
 * image, per pixel the mean drop of the places whose patch covers it
 * (0 where none does). Positive: hiding the pixel lowers the score. */
#pragma once

#include <glib.h>

#include "analysis-error.h"
#include "analysis-net.h"

G_BEGIN_DECLS

typedef struct {
  guint patch;    /* the patch's side in pixels (5) */
  guint stride;   /* pixels between places (1) */
  float fill;     /* the grey value, in the input's units */
  guint batch;    /* images per pass (64) */
} CtOcclusionParams;

typedef struct {
  guint grid_height, grid_width; /* patch places: (H − patch) / stride + 1, likewise */
  float *grid;                   /* drop per place */
  float *image_map;              /* H × W: mean drop over covering places */
  float baseline;                /* the score of the unhidden image */
} CtOcclusion;

void ct_occlusion_free (CtOcclusion *occlusion);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtOcclusion, ct_occlusion_free)

/* IMAGE: C × H × W floats of the path's size. PROGRESS is told after each
 * batch and may cancel. */
CtOcclusion *ct_occlusion_compute (CtNet *net, const CtClassifier *classifier,
                                   const CtAnalysisPath *path, const float *image, guint klass,
                                   const CtOcclusionParams *params,
                                   CtAnalysisProgressFunc progress, gpointer user_data,
                                   GError **error);

G_END_DECLS
