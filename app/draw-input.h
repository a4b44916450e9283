/* draw-input.h: CtDrawInput, the "Draw an Input" window: a canvas the
 * size of the net's input (28×28 for LeNet, shown large) where a student
 * draws with a brush and an eraser, or pastes a picture from the
 * clipboard, and the net's class scores (softmax %, named by the
 * labels.txt beside the net) follow the drawing. The scores come from a
 * runner of its own (app/run/runner.h, batch 1, TEST phase, the window's
 * weights) on its worker thread: every change queues one forward pass,
 * and changes made while a pass runs are gathered into the next one.
 * "Step Through" gives the drawing to the main window as its input and
 * steps its first layer, so the class follows it layer by layer. */
#pragma once

#include <adwaita.h>

#include "draw-canvas.h"
#include "window.h"

G_BEGIN_DECLS

#define CT_TYPE_DRAW_INPUT (ct_draw_input_get_type ())
G_DECLARE_FINAL_TYPE (CtDrawInput, ct_draw_input, CT, DRAW_INPUT, AdwWindow)

/* For WINDOW's net as it is now. */
CtDrawInput *ct_draw_input_new (CtWindow *window);

CtDrawCanvas *ct_draw_input_get_canvas (CtDrawInput *self);
/* The scores shown (softmax probabilities, one per class; borrowed) for
 * the drawing as it was when *SERIAL_OUT counted it, or NULL before any.
 * The serial counts the drawing's changes: scores are current when it
 * equals ct_draw_input_get_drawing_serial(). */
const float *ct_draw_input_get_scores (CtDrawInput *self, guint *n_classes, guint64 *serial_out);
guint64 ct_draw_input_get_drawing_serial (CtDrawInput *self);
/* The input as the net gets it (C×H×W floats, borrowed) for those scores. */
const float *ct_draw_input_get_net_input (CtDrawInput *self, gint64 shape[3]);
/* The error shown instead of scores, or NULL. */
const char *ct_draw_input_get_error (CtDrawInput *self);
/* Replace the drawing with TEXTURE (grey, fitted to the grid; a light
 * background turned dark as the net's images have it). */
void ct_draw_input_paste_texture (CtDrawInput *self, GdkTexture *texture);

G_END_DECLS
