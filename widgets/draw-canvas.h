/* draw-canvas.h: CtDrawCanvas, a small grey image a user draws with the
 * mouse or a pen (GTK 4): a grid of WIDTH × HEIGHT values from 0 (empty)
 * to 1 (full ink), shown large with square pixels. The brush lays ink with
 * a soft round edge, the eraser takes it away; a stroke is a line from
 * point to point, so a fast drag leaves no gaps.
 *
 * The widget knows nothing of nets: "changed" says the values changed
 * (once per point of a stroke) and ct_draw_canvas_get_values() reads
 * them. The stroke functions take grid coordinates (0..WIDTH, 0..HEIGHT;
 * a pixel's centre is at .5), so tests draw exactly what a drag would. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum {
  CT_DRAW_TOOL_BRUSH,
  CT_DRAW_TOOL_ERASER,
} CtDrawTool;

#define CT_TYPE_DRAW_CANVAS (ct_draw_canvas_get_type ())
G_DECLARE_FINAL_TYPE (CtDrawCanvas, ct_draw_canvas, CT, DRAW_CANVAS, GtkWidget)

GtkWidget *ct_draw_canvas_new (int width, int height);

/* A new grid size, all empty. */
void ct_draw_canvas_set_grid_size (CtDrawCanvas *self, int width, int height);
int ct_draw_canvas_get_grid_width (CtDrawCanvas *self);
int ct_draw_canvas_get_grid_height (CtDrawCanvas *self);

void ct_draw_canvas_set_tool (CtDrawCanvas *self, CtDrawTool tool);
CtDrawTool ct_draw_canvas_get_tool (CtDrawCanvas *self);
/* The brush's radius in grid pixels (default 1.4: a pen stroke of a
 * 28×28 digit). */
void ct_draw_canvas_set_radius (CtDrawCanvas *self, double radius);

/* A stroke with the current tool: begin at (X, Y), go on to further
 * points, end. */
void ct_draw_canvas_begin_stroke (CtDrawCanvas *self, double x, double y);
void ct_draw_canvas_stroke_to (CtDrawCanvas *self, double x, double y);
void ct_draw_canvas_end_stroke (CtDrawCanvas *self);

void ct_draw_canvas_clear (CtDrawCanvas *self);
/* WIDTH × HEIGHT values (0..1, row by row) replace the drawing. */
void ct_draw_canvas_set_values (CtDrawCanvas *self, const float *values);
/* The values, row by row (borrowed; changes with the drawing). */
const float *ct_draw_canvas_get_values (CtDrawCanvas *self);

G_END_DECLS
