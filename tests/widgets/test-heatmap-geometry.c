/* test-heatmap-geometry.c: the heatmap's shapes, layouts and hit-tests
 * against hand-computed cases: the number of columns, the whole-number
 * scale, centring, points on tile edges and in the gaps, the zoomed
 * channel, matrices, bars, RGB filters, and the text shown for the value
 * under the pointer. */
#include <math.h>

#include "heatmap/heatmap.h"

static void
test_shapes (void)
{
  CtHeatmapShape s;
  g_autoptr(GError) error = NULL;
  const gint64 vec[] = { 7 };
  const gint64 mat[] = { 10, 1000 };
  const gint64 three[] = { 2, 3, 5 };
  const gint64 five[] = { 2, 3, 4, 5, 6 };
  const gint64 bad[] = { 2, -1 };

  g_assert_true (ct_heatmap_shape_init (&s, vec, 1, NULL));
  g_assert_cmpint (s.n, ==, 1);
  g_assert_cmpint (s.w, ==, 7);
  g_assert_cmpint (ct_heatmap_shape_default_kind (&s), ==, CT_HEATMAP_BARS);
  g_assert_true (ct_heatmap_shape_init (&s, mat, 2, NULL));
  g_assert_cmpint (s.n, ==, 10);
  g_assert_cmpint (s.c, ==, 1);
  g_assert_cmpint (s.w, ==, 1000);
  g_assert_cmpint (ct_heatmap_shape_default_kind (&s), ==, CT_HEATMAP_MATRIX);
  g_assert_false (ct_heatmap_shape_fits_kind (&s, CT_HEATMAP_RGB));
  g_assert_true (ct_heatmap_shape_init (&s, three, 3, NULL));
  g_assert_cmpint (s.c, ==, 3);
  g_assert_cmpint (s.h, ==, 1);
  g_assert_cmpint (s.w, ==, 5);
  g_assert_false (ct_heatmap_shape_fits_kind (&s, CT_HEATMAP_RGB));
  g_assert_true (ct_heatmap_shape_init (&s, five, 5, NULL));
  g_assert_cmpint (s.h, ==, 4);
  g_assert_cmpint (s.w, ==, 30);
  g_assert_cmpuint (ct_heatmap_shape_count (&s), ==, 720);
  {
    g_autofree char *at = ct_heatmap_shape_format_index (&s, 719);
    g_autofree char *text = ct_heatmap_shape_format (&s);

    g_assert_cmpstr (at, ==, "(1, 2, 3, 4, 5)");
    g_assert_cmpstr (text, ==, "2×3×4×5×6");
  }
  g_assert_false (ct_heatmap_shape_init (&s, bad, 2, &error));
  g_assert_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_false (ct_heatmap_shape_init (&s, vec, 0, &error));
  g_assert_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_SHAPE);
}

/* 18 tiles of 24 x 24 in 400 x 300 with 2-pixel gaps: 5 columns give
 * min ((400 - 8) / 120, (300 - 6) / 96) = 3.06, better than 6 columns
 * (2.71) or 4 (2.43); scale 3, tiles 72 x 72, the grid 368 x 294 centred
 * at (16, 3). */
static void
test_tiles (void)
{
  CtHeatmapLayout l;
  int tile, row, col;

  ct_heatmap_layout_tiles (&l, 18, 24, 24, 0, 0, 400, 300, 2);
  g_assert_cmpint (l.columns, ==, 5);
  g_assert_cmpint (l.rows, ==, 4);
  g_assert_cmpfloat (l.cell_w, ==, 3.0);
  g_assert_cmpfloat (l.cell_h, ==, 3.0);
  g_assert_cmpfloat (l.tile_w, ==, 72.0);
  g_assert_cmpfloat (l.width, ==, 368.0);
  g_assert_cmpfloat (l.height, ==, 294.0);
  g_assert_cmpfloat (l.x, ==, 16.0);
  g_assert_cmpfloat (l.y, ==, 3.0);

  /* The first cell's corner, the first tile's last cell. */
  g_assert_true (ct_heatmap_layout_hit_cell (&l, 16, 3, &tile, &row, &col));
  g_assert_cmpint (tile, ==, 0);
  g_assert_cmpint (row, ==, 0);
  g_assert_cmpint (col, ==, 0);
  g_assert_true (ct_heatmap_layout_hit_cell (&l, 16 + 71.9, 3 + 71.9, &tile, &row, &col));
  g_assert_cmpint (tile, ==, 0);
  g_assert_cmpint (row, ==, 23);
  g_assert_cmpint (col, ==, 23);
  /* The tile's right edge and the gap are outside every tile. */
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 16 + 72, 3, &tile, &row, &col));
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 16 + 73.9, 3, &tile, &row, &col));
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 16, 3 + 72, &tile, &row, &col));
  /* The next tile starts after the gap. */
  g_assert_true (ct_heatmap_layout_hit_cell (&l, 16 + 74, 3, &tile, &row, &col));
  g_assert_cmpint (tile, ==, 1);
  g_assert_cmpint (col, ==, 0);
  g_assert_true (ct_heatmap_layout_hit_cell (&l, 16 + 74 + 3, 3 + 74 + 5.9, &tile, &row, &col));
  g_assert_cmpint (tile, ==, 6);
  g_assert_cmpint (row, ==, 1);
  g_assert_cmpint (col, ==, 1);
  /* Tile 17 is the last; the places of 18 and 19 are empty. */
  g_assert_true (ct_heatmap_layout_hit_cell (&l, 16 + 2 * 74, 3 + 3 * 74, &tile, &row, &col));
  g_assert_cmpint (tile, ==, 17);
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 16 + 3 * 74, 3 + 3 * 74, &tile, &row, &col));
  /* Outside the grid. */
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 15.9, 3, &tile, &row, &col));
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 16 + 368, 3, &tile, &row, &col));
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 16, 2.9, &tile, &row, &col));

  /* Too many tiles for whole pixels: a fractional scale that still fits. */
  ct_heatmap_layout_tiles (&l, 96, 55, 55, 0, 0, 400, 300, 2);
  g_assert_cmpfloat (l.cell_w, <, 1.0);
  g_assert_cmpfloat (l.cell_w, ==, l.cell_h);
  g_assert_cmpfloat (l.width, <=, 400.0);
  g_assert_cmpfloat (l.height, <=, 300.0);
  g_assert_cmpint (l.columns * l.rows, >=, 96);
  g_assert_cmpfloat (l.tile_w, ==, l.cell_w * 55);

  /* One tile has no gap. */
  ct_heatmap_layout_tiles (&l, 1, 24, 24, 10, 20, 100, 100, 2);
  g_assert_cmpfloat (l.gap, ==, 0.0);
  g_assert_cmpfloat (l.cell_w, ==, 4.0);
  g_assert_cmpfloat (l.x, ==, 12.0);
  g_assert_cmpfloat (l.y, ==, 22.0);
}

static void
test_matrix_and_bars (void)
{
  CtHeatmapLayout l;
  int tile, row, col;

  /* 10 x 1000 in 800 x 600: cells 0.8 wide, and at most 8 times taller. */
  ct_heatmap_layout_matrix (&l, 10, 1000, 0, 0, 800, 600);
  g_assert_cmpfloat (l.cell_w, ==, 0.8);
  g_assert_cmpfloat (fabs (l.cell_h - 6.4), <, 1e-9);
  g_assert_cmpfloat (l.x, ==, 0.0);
  g_assert_cmpfloat (l.y, ==, 268.0);
  g_assert_true (ct_heatmap_layout_hit_cell (&l, 0.5, 268 + 6.5, &tile, &row, &col));
  g_assert_cmpint (row, ==, 1);
  g_assert_cmpint (col, ==, 0);
  g_assert_true (ct_heatmap_layout_hit_cell (&l, 799.9, 268 + 63.9, &tile, &row, &col));
  g_assert_cmpint (row, ==, 9);
  g_assert_cmpint (col, ==, 999);

  /* 4 x 3 in 300 x 200: cells 100 x 50. */
  ct_heatmap_layout_matrix (&l, 4, 3, 0, 0, 300, 200);
  g_assert_cmpfloat (l.cell_w, ==, 100.0);
  g_assert_cmpfloat (l.cell_h, ==, 50.0);

  /* 10 bars for values in [-1, 3] in 200 x 100: 20 pixels apart, the
   * baseline (0) three quarters down. */
  ct_heatmap_layout_bars (&l, 10, -1, 3, 0, 0, 200, 100);
  g_assert_cmpfloat (l.cell_w, ==, 20.0);
  g_assert_cmpfloat (l.baseline, ==, 75.0);
  g_assert_true (ct_heatmap_layout_hit_cell (&l, 39.9, 10, &tile, &row, &col));
  g_assert_cmpint (col, ==, 1);
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 200, 10, &tile, &row, &col));
  g_assert_false (ct_heatmap_layout_hit_cell (&l, 10, 100, &tile, &row, &col));
  /* A range that does not include zero is widened to it. */
  ct_heatmap_layout_bars (&l, 10, 2, 4, 0, 0, 200, 100);
  g_assert_cmpfloat (l.value_lo, ==, 0.0);
  g_assert_cmpfloat (l.baseline, ==, 100.0);
}

static CtHeatmap *
heatmap_with (const gint64 *dims, guint ndims)
{
  g_autoptr(CtHeatmap) h = ct_heatmap_new ();
  CtHeatmapShape shape;
  g_autofree float *v = NULL;
  g_autoptr(GBytes) bytes = NULL;
  gsize n;

  g_assert_true (ct_heatmap_shape_init (&shape, dims, ndims, NULL));
  n = ct_heatmap_shape_count (&shape);
  v = g_new (float, n);
  /* Value i / 4 - 1 at flat index i, so that the text names the index. */
  for (gsize i = 0; i < n; i++)
    v[i] = i / 4.0f - 1.0f;
  bytes = g_bytes_new (v, n * sizeof (float));
  g_assert_true (ct_heatmap_set_data (h, bytes, dims, ndims, NULL));
  return g_steal_pointer (&h);
}

/* The CtHeatmap in a 400 x 340 area: 4 pixels of padding and the 40-pixel
 * legend leave (4, 4, 392, 292). */
static void
test_heatmap_hits (void)
{
  const gint64 dims[] = { 2, 18, 24, 24 };
  g_autoptr(CtHeatmap) h = heatmap_with (dims, 4);
  CtHeatmapLayout l;
  CtHeatmapHit hit;
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  ct_heatmap_get_layout (h, 400, 340, &l);
  g_assert_cmpint (l.kind, ==, CT_HEATMAP_GRID);
  g_assert_cmpint (l.tiles, ==, 18);
  /* 5 columns: min ((392 - 8) / 120, (292 - 6) / 96) = 2.98 -> 2. */
  g_assert_cmpint (l.columns, ==, 5);
  g_assert_cmpfloat (l.cell_w, ==, 2.0);

  g_assert_true (ct_heatmap_set_sample (h, 1));
  g_assert_false (ct_heatmap_set_sample (h, 1));
  g_assert_false (ct_heatmap_set_sample (h, 7)); /* clamped to 1 */
  /* Tile 6 (row 1, column 1), cell (2, 3). */
  g_assert_true (ct_heatmap_hit (h, 400, 340,
                                 l.x + (l.tile_w + l.gap) + 3 * 2 + 1,
                                 l.y + (l.tile_h + l.gap) + 2 * 2 + 1, &hit));
  g_assert_cmpint (hit.n, ==, 1);
  g_assert_cmpint (hit.c, ==, 6);
  g_assert_cmpint (hit.h, ==, 2);
  g_assert_cmpint (hit.w, ==, 3);
  g_assert_cmpuint (hit.index, ==, ((1 * 18 + 6) * 24 + 2) * 24 + 3);
  text = ct_heatmap_hit_text (h, &hit);
  g_assert_cmpstr (text, ==, "(1, 6, 2, 3) = 3467.75");
  /* 48-pixel tiles stand 4 pixels apart (a twelfth of their size) */
  g_assert_cmpfloat (l.gap, ==, 4.0);
  g_assert_cmpint (ct_heatmap_hit_tile (h, 400, 340, l.x + l.tile_w + l.gap, l.y), ==, 1);
  g_assert_cmpint (ct_heatmap_hit_tile (h, 400, 340, l.x + l.tile_w + 1, l.y), ==, -1);

  /* Zoomed into channel 6: one tile filling the area, the same cell. */
  g_assert_true (ct_heatmap_set_zoom (h, 6));
  ct_heatmap_get_layout (h, 400, 340, &l);
  g_assert_cmpint (l.tiles, ==, 1);
  g_assert_cmpint (l.first, ==, 6);
  g_assert_cmpfloat (l.cell_w, ==, 12.0); /* floor (292 / 24) */
  g_assert_true (ct_heatmap_hit (h, 400, 340, l.x + 3 * 12 + 11.9, l.y + 2 * 12, &hit));
  g_assert_cmpint (hit.c, ==, 6);
  g_assert_cmpint (hit.h, ==, 2);
  g_assert_cmpint (hit.w, ==, 3);
  g_assert_cmpint (ct_heatmap_hit_tile (h, 400, 340, l.x, l.y), ==, 6);
  g_assert_false (ct_heatmap_set_zoom (h, 99) && ct_heatmap_get_zoom (h) != -1);
  g_assert_cmpint (ct_heatmap_get_zoom (h), ==, -1);

  /* Wrong byte counts are refused. */
  {
    g_autoptr(GBytes) few = g_bytes_new ("abcd", 4);

    g_assert_false (ct_heatmap_set_data (h, few, dims, 4, &error));
    g_assert_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_SHAPE);
  }
}

static void
test_heatmap_kinds (void)
{
  const gint64 mat[] = { 3, 5 };
  const gint64 vec[] = { 10 };
  const gint64 filters[] = { 4, 3, 2, 2 };
  CtHeatmapLayout l;
  CtHeatmapHit hit;

  {
    g_autoptr(CtHeatmap) h = heatmap_with (mat, 2);
    g_autofree char *text = NULL;

    g_assert_cmpint (ct_heatmap_get_kind (h), ==, CT_HEATMAP_MATRIX);
    g_assert_false (ct_heatmap_set_kind (h, CT_HEATMAP_RGB));
    ct_heatmap_get_layout (h, 400, 340, &l);
    g_assert_true (ct_heatmap_hit (h, 400, 340, l.x + 4 * l.cell_w, l.y + 2 * l.cell_h, &hit));
    g_assert_cmpint (hit.n, ==, 2);
    g_assert_cmpint (hit.w, ==, 4);
    text = ct_heatmap_hit_text (h, &hit);
    g_assert_cmpstr (text, ==, "(2, 4) = 2.5");

    /* The same matrix as one sample's bars. */
    g_assert_true (ct_heatmap_set_kind (h, CT_HEATMAP_BARS));
    g_assert_true (ct_heatmap_set_sample (h, 1));
    ct_heatmap_get_layout (h, 400, 340, &l);
    g_assert_cmpint (l.data_w, ==, 5);
    g_assert_true (ct_heatmap_hit (h, 400, 340, l.x + 2 * l.cell_w, l.y + 1, &hit));
    g_clear_pointer (&text, g_free);
    text = ct_heatmap_hit_text (h, &hit);
    g_assert_cmpstr (text, ==, "(1, 2) = 0.75");
  }
  {
    g_autoptr(CtHeatmap) h = heatmap_with (vec, 1);
    g_autofree char *text = NULL;

    g_assert_cmpint (ct_heatmap_get_kind (h), ==, CT_HEATMAP_BARS);
    ct_heatmap_get_layout (h, 400, 340, &l);
    g_assert_true (ct_heatmap_hit (h, 400, 340, l.x + 9 * l.cell_w, l.y + l.height - 1, &hit));
    text = ct_heatmap_hit_text (h, &hit);
    g_assert_cmpstr (text, ==, "(9) = 1.25");
  }
  {
    g_autoptr(CtHeatmap) h = heatmap_with (filters, 4);
    g_autofree char *text = NULL;

    g_assert_cmpint (ct_heatmap_get_kind (h), ==, CT_HEATMAP_GRID);
    g_assert_true (ct_heatmap_set_kind (h, CT_HEATMAP_RGB));
    g_assert_cmpint (ct_heatmap_get_n_tiles (h), ==, 4);
    ct_heatmap_get_layout (h, 400, 340, &l);
    g_assert_cmpint (l.kind, ==, CT_HEATMAP_RGB);
    g_assert_cmpint (l.tiles, ==, 4);
    /* Filter 2, cell (1, 0): red plane index 2*12 + 2 = 26. */
    ct_heatmap_layout_tile_rect (&l, 2, &l.x, &l.y, &l.width, &l.height);
    {
      CtHeatmapLayout again;

      ct_heatmap_get_layout (h, 400, 340, &again);
      g_assert_true (ct_heatmap_layout_hit (&again, ct_heatmap_get_shape (h), 0,
                                            l.x + 0.5, l.y + again.cell_h + 0.5, &hit));
    }
    g_assert_cmpint (hit.n, ==, 2);
    g_assert_cmpint (hit.h, ==, 1);
    g_assert_cmpint (hit.w, ==, 0);
    text = ct_heatmap_hit_text (h, &hit);
    g_assert_cmpstr (text, ==, "(2, :, 1, 0) = (5.5, 6.5, 7.5)");
  }
}

/* Drawing the RGB filters: each filter rescaled to its own range puts its
 * smallest value black and its largest white. */
static void
test_draw_rgb (void)
{
  const gint64 filters[] = { 4, 3, 2, 2 };
  g_autoptr(CtHeatmap) h = heatmap_with (filters, 4);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 340);
  cairo_t *cr = cairo_create (s);
  CtHeatmapLayout l;
  guint32 *px;
  int stride;
  double x, y, w, hh;

  g_assert_true (ct_heatmap_set_kind (h, CT_HEATMAP_RGB));
  ct_heatmap_draw (h, cr, 400, 340);
  cairo_surface_flush (s);
  px = (guint32 *) cairo_image_surface_get_data (s);
  stride = cairo_image_surface_get_stride (s) / 4;
  ct_heatmap_get_layout (h, 400, 340, &l);
  ct_heatmap_layout_tile_rect (&l, 1, &x, &y, &w, &hh);
  /* Cell (0, 0) of filter 1: R is its smallest value, B of cell (1, 1)
   * its largest. */
  g_assert_cmphex (px[(int) (y + 1) * stride + (int) (x + 1)] & 0xff0000, ==, 0);
  g_assert_cmphex (px[(int) (y + hh - 1) * stride + (int) (x + w - 1)] & 0xff, ==, 0xff);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/widgets/heatmap-geometry/shapes", test_shapes);
  g_test_add_func ("/widgets/heatmap-geometry/tiles", test_tiles);
  g_test_add_func ("/widgets/heatmap-geometry/matrix-and-bars", test_matrix_and_bars);
  g_test_add_func ("/widgets/heatmap-geometry/heatmap-hits", test_heatmap_hits);
  g_test_add_func ("/widgets/heatmap-geometry/heatmap-kinds", test_heatmap_kinds);
  g_test_add_func ("/widgets/heatmap-geometry/draw-rgb", test_draw_rgb);
  return g_test_run ();
}
