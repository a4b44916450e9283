/* geometry.h: where a blob's values go on the heatmap, GTK-free.
 *
 * Any blob shape is read as (N, C, H, W), the way Caffe's 4-D blobs are:
 * a vector (K) is (1, 1, 1, K), a matrix (N, K) is (N, 1, 1, K), a 3-D
 * (N, C, L) is (N, C, 1, L), and axes past the fourth fold into W; the
 * values stay in the same row-major order, so the flat index never changes.
 *
 * Four ways to show them (CtHeatmapKind): one sample's channels as a grid
 * of tiles (or one channel zoomed to fill the area); an (N, K) matrix as
 * one tile of N rows and K columns; one sample's K values as a bar chart;
 * and a (K, 3, h, w) parameter blob as K colour tiles, the first layer's
 * RGB filters. A CtHeatmapLayout places the tiles (columns, rows, tile size,
 * gaps) or the bars in a rectangle, keeping the cells square and
 * integer-scaled where possible, and answers hit-tests: which (n, c, h, w)
 * lies under a point, and nothing in the gaps. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Errors of the heatmap library: a shape it cannot show, a file it cannot
 * write. */
#define CT_HEATMAP_ERROR (ct_heatmap_error_quark ())
GQuark ct_heatmap_error_quark (void);

typedef enum {
  CT_HEATMAP_ERROR_SHAPE,
  CT_HEATMAP_ERROR_WRITE,
} CtHeatmapError;

typedef enum {
  CT_HEATMAP_GRID,   /* one sample's channels, tile per channel */
  CT_HEATMAP_MATRIX, /* (N, K): N rows of K cells */
  CT_HEATMAP_BARS,   /* one sample's values as bars */
  CT_HEATMAP_RGB,    /* (K, 3, h, w): K colour tiles */
  CT_HEATMAP_KIND_N
} CtHeatmapKind;

#define CT_HEATMAP_MAX_DIMS 8

/* A blob's shape as given, and as (N, C, H, W). */
typedef struct {
  guint ndims;
  gint64 dims[CT_HEATMAP_MAX_DIMS];
  int n, c, h, w;
} CtHeatmapShape;

typedef struct {
  CtHeatmapKind kind;
  int tiles;     /* tiles drawn (1 when zoomed or for a matrix) */
  int first;     /* channel (grid) or filter (RGB) of the first tile */
  int columns, rows;
  int data_w, data_h; /* one tile's size in cells */
  double cell_w, cell_h; /* one cell's size on screen */
  double tile_w, tile_h;
  double gap;
  double x, y;          /* top-left corner of the first tile or bar */
  double width, height; /* the extent of all tiles, or the bar plot */
  /* Bars only: one bar per cell, spaced by cell_w; values lo..hi span the
   * plot's height and the bars grow from the baseline (the value 0). */
  double value_lo, value_hi;
  double baseline;
} CtHeatmapLayout;

/* Where a point fell: the cell as (n, c, h, w) and its flat index. */
typedef struct {
  int n, c, h, w;
  gsize index;
} CtHeatmapHit;

/* Read DIMS as (N, C, H, W). FALSE (with an error) for no axes, more than
 * CT_HEATMAP_MAX_DIMS, a negative size, or more than G_MAXINT per axis. */
gboolean ct_heatmap_shape_init (CtHeatmapShape *shape,
                                const gint64 *dims,
                                guint ndims,
                                GError **error);
gsize ct_heatmap_shape_count (const CtHeatmapShape *shape);

/* The kind a shape is shown as by default: bars for a vector, a matrix
 * for two axes, a grid otherwise. */
CtHeatmapKind ct_heatmap_shape_default_kind (const CtHeatmapShape *shape);

/* Whether SHAPE can be shown as KIND (RGB needs three channels). */
gboolean ct_heatmap_shape_fits_kind (const CtHeatmapShape *shape, CtHeatmapKind kind);

/* Lay out TILES tiles of DATA_W x DATA_H cells in the rectangle (X, Y,
 * WIDTH, HEIGHT) with GAP between tiles: the number of columns that gives
 * the largest tiles, square cells, a whole-number scale when the cells are
 * at least one pixel, centred in the rectangle on whole pixels. */
void ct_heatmap_layout_tiles (CtHeatmapLayout *layout,
                              int tiles,
                              int data_w,
                              int data_h,
                              double x,
                              double y,
                              double width,
                              double height,
                              double gap);

/* Lay out ROWS x COLS cells as one tile filling the rectangle; cells may
 * be wider than tall (by at most 8 times) so that a 10 x 1000 matrix
 * stays readable. */
void ct_heatmap_layout_matrix (CtHeatmapLayout *layout,
                               int rows,
                               int cols,
                               double x,
                               double y,
                               double width,
                               double height);

/* Lay out COUNT bars in the rectangle for values in [LO, HI]; the range
 * always includes zero, where the baseline is. */
void ct_heatmap_layout_bars (CtHeatmapLayout *layout,
                             int count,
                             double lo,
                             double hi,
                             double x,
                             double y,
                             double width,
                             double height);

/* The rectangle of tile I (0 <= I < tiles). */
void ct_heatmap_layout_tile_rect (const CtHeatmapLayout *layout,
                                  int i,
                                  double *x,
                                  double *y,
                                  double *width,
                                  double *height);

/* The tile and cell under (PX, PY): TRUE with *TILE and the cell's row and
 * column inside it; FALSE in a gap or outside. Tiles and cells are
 * half-open: a point on a tile's right or bottom edge is outside it. For
 * bars, only the x coordinate picks the bar (within the plot's height). */
gboolean ct_heatmap_layout_hit_cell (const CtHeatmapLayout *layout,
                                     double px,
                                     double py,
                                     int *tile,
                                     int *row,
                                     int *col);

/* The hit for a point: the cell under it in SHAPE for SAMPLE, mapping the
 * layout's tile, row and column back to (n, c, h, w). */
gboolean ct_heatmap_layout_hit (const CtHeatmapLayout *layout,
                                const CtHeatmapShape *shape,
                                int sample,
                                double px,
                                double py,
                                CtHeatmapHit *hit);

/* "(0, 3, 4, 5)" in the blob's own axes (a matrix reads "(n, k)"). */
char *ct_heatmap_shape_format_index (const CtHeatmapShape *shape, gsize index);

/* "2×3×4×5". */
char *ct_heatmap_shape_format (const CtHeatmapShape *shape);

G_END_DECLS
