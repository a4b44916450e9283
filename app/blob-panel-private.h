/* blob-panel-private.h: what the blob panel's files share: blob-panel.c
 * (the widget, the snapshot's items for the selection, versions, data or
 * diff), blob-panel-parts.c (filling the template's widgets: statistics,
 * histogram, top-5 classes, exports) and blob-panel-edge.c (a blob
 * selected as an edge of the graph). */
#pragma once

#include "heatmap-view.h"
#include "runner.h"
#include "blob-panel.h"

G_BEGIN_DECLS

typedef struct _CtBlobExplain CtBlobExplain;

typedef enum {
  ITEM_TOP,
  ITEM_BOTTOM,
  ITEM_PARAM,
} ItemKind;

typedef struct {
  ItemKind kind;
  guint blob;   /* snapshot blob index (tops, bottoms) */
  guint param;  /* parameter index (params) */
} Item;

enum { STAT_MIN, STAT_MAX, STAT_MEAN, STAT_STD, STAT_L2, STAT_ZEROS, STAT_NAN, STAT_INF, N_STATS };


/* What one item shows now: borrowed from the snapshot. */
typedef struct {
  const char *name;
  guint n_axes;
  const gint64 *dims;
  GBytes *values;          /* NULL when the run copied none */
  const CtBlobStats *stats; /* NULL before the values exist */
} Shown;

struct _CtBlobPanel {
  GtkBox parent_instance;

  CtSelection *selection;
  CtDocument *document;
  const CtNetGraph *graph;  /* borrowed from the window */
  CtRunSnapshot *snapshot;
  int layer;                /* snapshot layer index, or -1 */
  int blob;                 /* or a blob selected (an edge): snapshot blob index, or -1 */
  gboolean user_version;    /* the user chose the version of this item */
  gboolean bars;            /* (N, K) blobs as one sample's bars, not a matrix */
  GArray *items;            /* Item */
  guint item;
  guint version;
  gboolean diff;
  gboolean updating;        /* our own changes of the controls */
  gboolean user_colormap;   /* the user chose the map for this item */
  Shown shown;

  char *labels_path;        /* labels.txt read last, and its lines */
  char **labels;

  /* Template children. */
  GtkWidget *status;
  GtkWidget *item_dropdown;
  GtkWidget *edge_button;   /* selects the item's edge on the graph */
  GtkStringList *item_names;
  GtkWidget *version_dropdown;
  GtkWidget *history_label; /* why versions are missing, if they are */
  GtkStringList *version_names;
  GtkWidget *data_button, *diff_button;
  GtkWidget *shape_label;
  GtkWidget *view_box;
  GtkWidget *sample_spin;
  GtkWidget *kind_box;      /* matrix or bars, for (N, K) blobs */
  GtkWidget *matrix_button, *bars_button;
  GtkWidget *colormap_dropdown;
  GtkWidget *scale_dropdown;
  GtkWidget *heatmap;
  GtkWidget *diff_heatmap;  /* the diff beside the data, when wide */
  gboolean wide;            /* the inspector is wide enough for two */
  gboolean side_by_side;
  guint relayout_source;    /* pending show after a change of width */
  GtkWidget *pointer_label;
  GtkWidget *stat_values[N_STATS];
  GtkWidget *histogram;
  GtkWidget *top_label;
  GtkWidget *export_button;
  GtkWidget *stats_grid;
  CtBlobExplain *explain;   /* blob-panel-explain.c */
};

/* blob-panel-edge.c */
/* The snapshot blob the selection's blob is (-1: none selected, or not in
 * the snapshot), and into *VERSION the version its edge carries
 * (G_MAXUINT: the latest). */
int ct_blob_panel_selected_blob (CtBlobPanel *panel, guint *version);
/* Select the current item's blob as an edge of the graph. */
void ct_blob_panel_select_edge (CtBlobPanel *panel);

/* The document layer of graph node ID (a folded layer by its own id), or -1. */
int ct_blob_panel_layer_for_id (CtBlobPanel *panel, const char *id);

/* blob-panel-explain.c */
void ct_blob_panel_explain_init (CtBlobPanel *panel);
void ct_blob_panel_explain_dispose (CtBlobPanel *panel);

/* blob-panel-parts.c */
void ct_blob_panel_show_stats (CtBlobPanel *panel, const CtBlobStats *stats);
void ct_blob_panel_update_histogram (CtBlobPanel *panel);
void ct_blob_panel_update_top (CtBlobPanel *panel);
void ct_blob_panel_fill_parts (CtBlobPanel *panel);
void ct_blob_panel_report_error (CtBlobPanel *panel, const char *message);
void ct_blob_panel_pointer_moved (CtHeatmapView *view, GParamSpec *pspec, CtBlobPanel *panel);
void ct_blob_panel_sample_changed (CtHeatmapView *view, GParamSpec *pspec, CtBlobPanel *panel);
void ct_blob_panel_export_activated (GSimpleAction *action, GVariant *param, gpointer data);
void ct_blob_panel_draw_histogram (GtkDrawingArea *area, cairo_t *cr, int width, int height,
                                   gpointer data);

G_END_DECLS
