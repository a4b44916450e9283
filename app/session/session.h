/* session.h: a workbench session in one file, so that next week's class
 * continues where this one stopped: the net (its text, and the file it
 * came from), the weights it ran with (the caffemodel's bytes), the
 * solver, the run settings, the chosen inputs, the view and phase shown,
 * where the step-through stood and what the inspector showed of it, and
 * the runs on the training plots. The file is a GKeyFile (text; the
 * weights in base64), written all or nothing (files/atomic-write.h). No
 * GTK: the window fills a CtSession and applies one (window-session.c). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define CT_SESSION_ERROR (ct_session_error_quark ())
GQuark ct_session_error_quark (void);

typedef enum {
  CT_SESSION_ERROR_PARSE,     /* not a key file, or a value of the wrong kind */
  CT_SESSION_ERROR_VERSION,   /* written by a newer Cortado */
  CT_SESSION_ERROR_MISSING,   /* a part every session has is missing */
} CtSessionError;

/* The suffix a session file's name ends with. */
#define CT_SESSION_SUFFIX ".cortado-session"

/* One series of the training plots. */
typedef struct {
  char *name;
  char *run_label;           /* may be NULL */
  int panel, side, color, style;
  gboolean faded, visible;
  GArray *xs, *ys;           /* double, as many of each */
} CtSessionSeries;

typedef struct {
  char *net_text;            /* the prototxt as edited */
  char *net_path;            /* the file it was opened from, or NULL */
  char *net_title;           /* the title of an untitled net, or NULL */
  char *base_dir;            /* where its relative paths start, or NULL */
  GBytes *weights;           /* a caffemodel, or NULL: the fillers */
  char *weights_name;        /* its file's name, for the user */
  char *solver_text;         /* or NULL */
  char *solver_path;         /* or NULL */
  char *phase;               /* "train", "test" or "both" */
  char *view;                /* "graph", "source" or "training" */
  guint batch;               /* the inspection batch (0: the net's) */
  guint64 seed;
  guint pace_ms;             /* the pause after each layer of a pass (0: none) */
  GArray *items;             /* guint Fashion-MNIST items, or NULL */
  char *input_path;          /* an image or a folder, or NULL */
  GPtrArray *series;         /* CtSessionSeries */
  /* where the step-through stood: "none", "forward" or "backward", and
   * the next layer to step (-1: the pass is complete) */
  char *step_pass;
  int step_next;
  char *selected;            /* the selected layer, or NULL */
  /* the inspector: its blob (item label), data or diff, the heatmap's
   * focused channel (-1: all), colour map (-1: the blob's own), scale */
  char *blob;
  gboolean blob_diff;
  int channel;
  int colormap;
  int scale;
} CtSession;

CtSession *ct_session_new (void);
void ct_session_free (CtSession *session);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtSession, ct_session_free)

/* Add a series (copies N points). */
CtSessionSeries *ct_session_add_series (CtSession *session, const char *name,
                                        const char *run_label, const double *xs,
                                        const double *ys, gsize n);

char *ct_session_to_text (const CtSession *session, gsize *length);
CtSession *ct_session_from_text (const char *text, gsize length, const char *name,
                                 GError **error);
gboolean ct_session_save (const CtSession *session, const char *path, GError **error);
CtSession *ct_session_load (const char *path, GError **error);

gboolean ct_session_is_session_path (const char *path);

G_END_DECLS
