/* geometry.c: shapes, tile and bar layouts, hit-testing (see geometry.h). */
#include "geometry.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (ct-heatmap-error-quark, ct_heatmap_error)

gboolean
ct_heatmap_shape_init (CtHeatmapShape *shape,
                       const gint64 *dims,
                       guint ndims,
                       GError **error)
{
  gint64 folded = 1;

  memset (shape, 0, sizeof *shape);
  if (ndims == 0 || ndims > CT_HEATMAP_MAX_DIMS)
    {
      g_set_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_SHAPE,
                   _("A heatmap shows blobs of 1 to %d axes, not %u"),
                   CT_HEATMAP_MAX_DIMS, ndims);
      return FALSE;
    }
  for (guint i = 0; i < ndims; i++)
    if (dims[i] < 0 || dims[i] > G_MAXINT)
      {
        g_set_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_SHAPE,
                     _("Axis %u of the blob has a size of %" PRId64
                       ", which a heatmap cannot show"), i, dims[i]);
        return FALSE;
      }
  for (guint i = 3; i < ndims; i++)
    folded *= dims[i];
  if (folded > G_MAXINT)
    {
      g_set_error (error, CT_HEATMAP_ERROR, CT_HEATMAP_ERROR_SHAPE,
                   _("The blob's last axes hold %" PRId64
                     " values per row, more than a heatmap can show"), folded);
      return FALSE;
    }

  shape->ndims = ndims;
  for (guint i = 0; i < ndims; i++)
    shape->dims[i] = dims[i];
  shape->n = shape->c = shape->h = shape->w = 1;
  switch (ndims)
    {
    case 1:
      shape->w = (int) dims[0];
      break;
    case 2:
      shape->n = (int) dims[0];
      shape->w = (int) dims[1];
      break;
    case 3:
      shape->n = (int) dims[0];
      shape->c = (int) dims[1];
      shape->w = (int) dims[2];
      break;
    default:
      shape->n = (int) dims[0];
      shape->c = (int) dims[1];
      shape->h = (int) dims[2];
      shape->w = (int) folded;
      break;
    }
  return TRUE;
}

gsize
ct_heatmap_shape_count (const CtHeatmapShape *shape)
{
  return (gsize) shape->n * shape->c * shape->h * shape->w;
}

CtHeatmapKind
ct_heatmap_shape_default_kind (const CtHeatmapShape *shape)
{
  if (shape->ndims == 1)
    return CT_HEATMAP_BARS;
  if (shape->ndims == 2)
    return CT_HEATMAP_MATRIX;
  return CT_HEATMAP_GRID;
}

gboolean
ct_heatmap_shape_fits_kind (const CtHeatmapShape *shape, CtHeatmapKind kind)
{
  switch (kind)
    {
    case CT_HEATMAP_GRID:
    case CT_HEATMAP_MATRIX:
    case CT_HEATMAP_BARS:
      return TRUE;
    case CT_HEATMAP_RGB:
      return shape->ndims == 4 && shape->c == 3;
    case CT_HEATMAP_KIND_N:
    default:
      return FALSE;
    }
}

void
ct_heatmap_layout_tiles (CtHeatmapLayout *layout,
                         int tiles,
                         int data_w,
                         int data_h,
                         double x,
                         double y,
                         double width,
                         double height,
                         double gap)
{
  double best = -1.0;
  int best_cols = 1;

  memset (layout, 0, sizeof *layout);
  layout->kind = CT_HEATMAP_GRID;
  tiles = MAX (tiles, 1);
  data_w = MAX (data_w, 1);
  data_h = MAX (data_h, 1);
  if (tiles == 1)
    gap = 0.0;

  for (int cols = 1; cols <= tiles; cols++)
    {
      int rows = (tiles + cols - 1) / cols;
      double sx = (width - (cols - 1) * gap) / ((double) cols * data_w);
      double sy = (height - (rows - 1) * gap) / ((double) rows * data_h);
      double s = MIN (sx, sy);

      /* Strictly larger only: among equal scales the fewest columns win,
       * so a single row is used only when it is truly better. */
      if (s > best + 1e-9)
        {
          best = s;
          best_cols = cols;
        }
      /* Once the rows stop shrinking, more columns only make sx smaller. */
      if (rows == 1)
        break;
    }
  if (best >= 1.0)
    best = floor (best);
  else if (best <= 0.0)
    best = 1e-3;

  layout->tiles = tiles;
  layout->columns = best_cols;
  layout->rows = (tiles + best_cols - 1) / best_cols;
  layout->data_w = data_w;
  layout->data_h = data_h;
  layout->cell_w = layout->cell_h = best;
  layout->tile_w = best * data_w;
  layout->tile_h = best * data_h;
  layout->gap = gap;
  layout->width = layout->columns * layout->tile_w + (layout->columns - 1) * gap;
  layout->height = layout->rows * layout->tile_h + (layout->rows - 1) * gap;
  layout->x = x + floor ((width - layout->width) / 2.0);
  layout->y = y + floor ((height - layout->height) / 2.0);
}

void
ct_heatmap_layout_matrix (CtHeatmapLayout *layout,
                          int rows,
                          int cols,
                          double x,
                          double y,
                          double width,
                          double height)
{
  double cw, ch;

  memset (layout, 0, sizeof *layout);
  rows = MAX (rows, 1);
  cols = MAX (cols, 1);
  cw = width / cols;
  ch = height / rows;
  if (cw >= 1.0)
    cw = floor (cw);
  if (ch >= 1.0)
    ch = floor (ch);
  /* Cells at most 8 times longer one way than the other. */
  ch = MIN (ch, 8.0 * cw);
  cw = MIN (cw, 8.0 * ch);
  cw = MAX (cw, 1e-3);
  ch = MAX (ch, 1e-3);

  layout->kind = CT_HEATMAP_MATRIX;
  layout->tiles = 1;
  layout->columns = layout->rows = 1;
  layout->data_w = cols;
  layout->data_h = rows;
  layout->cell_w = cw;
  layout->cell_h = ch;
  layout->tile_w = layout->width = cw * cols;
  layout->tile_h = layout->height = ch * rows;
  layout->x = x + floor ((width - layout->width) / 2.0);
  layout->y = y + floor ((height - layout->height) / 2.0);
}

void
ct_heatmap_layout_bars (CtHeatmapLayout *layout,
                        int count,
                        double lo,
                        double hi,
                        double x,
                        double y,
                        double width,
                        double height)
{
  double pitch;

  memset (layout, 0, sizeof *layout);
  count = MAX (count, 1);
  lo = MIN (lo, 0.0);
  hi = MAX (hi, 0.0);
  if (!(hi > lo))
    hi = lo + 1.0;
  pitch = width / count;
  if (pitch >= 1.0)
    pitch = floor (pitch);

  layout->kind = CT_HEATMAP_BARS;
  layout->tiles = 1;
  layout->columns = count;
  layout->rows = 1;
  layout->data_w = count;
  layout->data_h = 1;
  layout->cell_w = pitch;
  layout->cell_h = height;
  layout->tile_w = layout->width = pitch * count;
  layout->tile_h = layout->height = height;
  layout->x = x + floor ((width - layout->width) / 2.0);
  layout->y = y;
  layout->value_lo = lo;
  layout->value_hi = hi;
  layout->baseline = y + height * hi / (hi - lo);
}

void
ct_heatmap_layout_tile_rect (const CtHeatmapLayout *layout,
                             int i,
                             double *x,
                             double *y,
                             double *width,
                             double *height)
{
  int col = i % MAX (layout->columns, 1);
  int row = i / MAX (layout->columns, 1);

  if (layout->kind == CT_HEATMAP_BARS)
    col = row = 0;
  *x = layout->x + col * (layout->tile_w + layout->gap);
  *y = layout->y + row * (layout->tile_h + layout->gap);
  *width = layout->tile_w;
  *height = layout->tile_h;
}

gboolean
ct_heatmap_layout_hit_cell (const CtHeatmapLayout *layout,
                            double px,
                            double py,
                            int *tile,
                            int *row,
                            int *col)
{
  double dx = px - layout->x, dy = py - layout->y;
  int tc, tr, t, r, c;

  if (dx < 0 || dy < 0 || dx >= layout->width || dy >= layout->height)
    return FALSE;
  if (layout->kind == CT_HEATMAP_BARS)
    {
      c = (int) floor (dx / layout->cell_w);
      if (c >= layout->data_w)
        return FALSE;
      *tile = 0;
      *row = 0;
      *col = c;
      return TRUE;
    }
  tc = (int) floor (dx / (layout->tile_w + layout->gap));
  tr = (int) floor (dy / (layout->tile_h + layout->gap));
  dx -= tc * (layout->tile_w + layout->gap);
  dy -= tr * (layout->tile_h + layout->gap);
  if (dx >= layout->tile_w || dy >= layout->tile_h)
    return FALSE; /* in a gap */
  t = tr * layout->columns + tc;
  if (tc >= layout->columns || t >= layout->tiles)
    return FALSE; /* past the last tile of the last row */
  c = MIN ((int) floor (dx / layout->cell_w), layout->data_w - 1);
  r = MIN ((int) floor (dy / layout->cell_h), layout->data_h - 1);
  *tile = t;
  *row = r;
  *col = c;
  return TRUE;
}

gboolean
ct_heatmap_layout_hit (const CtHeatmapLayout *layout,
                       const CtHeatmapShape *shape,
                       int sample,
                       double px,
                       double py,
                       CtHeatmapHit *hit)
{
  int tile, row, col;
  gsize per_sample = (gsize) shape->c * shape->h * shape->w;
  gsize index;

  if (!ct_heatmap_layout_hit_cell (layout, px, py, &tile, &row, &col))
    return FALSE;
  switch (layout->kind)
    {
    case CT_HEATMAP_GRID:
      index = (((gsize) sample * shape->c + layout->first + tile) * shape->h + row)
              * shape->w + col;
      break;
    case CT_HEATMAP_RGB:
      index = (((gsize) (layout->first + tile) * shape->c) * shape->h + row)
              * shape->w + col;
      break;
    case CT_HEATMAP_MATRIX:
      index = (gsize) row * per_sample + col;
      break;
    case CT_HEATMAP_BARS:
      index = (gsize) sample * per_sample + col;
      break;
    case CT_HEATMAP_KIND_N:
    default:
      return FALSE;
    }
  if (index >= ct_heatmap_shape_count (shape))
    return FALSE;
  hit->index = index;
  hit->w = (int) (index % shape->w);
  hit->h = (int) (index / shape->w % shape->h);
  hit->c = (int) (index / ((gsize) shape->w * shape->h) % shape->c);
  hit->n = (int) (index / per_sample);
  return TRUE;
}

char *
ct_heatmap_shape_format_index (const CtHeatmapShape *shape, gsize index)
{
  gint64 at[CT_HEATMAP_MAX_DIMS];
  GString *s = g_string_new ("(");

  for (guint i = shape->ndims; i-- > 0;)
    {
      gint64 d = MAX (shape->dims[i], 1);

      at[i] = (gint64) (index % (guint64) d);
      index /= (guint64) d;
    }
  for (guint i = 0; i < shape->ndims; i++)
    g_string_append_printf (s, "%s%" PRId64, i > 0 ? ", " : "", at[i]);
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

char *
ct_heatmap_shape_format (const CtHeatmapShape *shape)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < shape->ndims; i++)
    g_string_append_printf (s, "%s%" PRId64, i > 0 ? "×" : "", shape->dims[i]);
  return g_string_free (s, FALSE);
}
