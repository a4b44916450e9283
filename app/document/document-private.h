/* document-private.h: CtDocument's insides, shared by document.c (text,
 * undo, files), document-edit.c (operations), document-check.c
 * (validation), document-data-shapes.c (shapes for unreadable data) and
 * document-sidecar.c (positions, folds and drafts). */
#pragma once

#include "document.h"

G_BEGIN_DECLS

struct _CtDocument {
  GObject parent_instance;

  GFile *file;
  char *title;
  char *text;
  char *clean_text;            /* as last loaded or saved */
  Caffe__NetParameter *net;    /* the last text that parsed, upgraded */
  GError *parse_error;
  GPtrArray *notes;
  char *base_dir;              /* for untitled documents */

  /* Undo: text snapshots. */
  GPtrArray *undo;             /* char*, oldest first */
  GPtrArray *redo;             /* char*, next redo last */
  char *last_group;
  gint64 last_group_time;

  /* Validation. */
  CtDocumentPhase phase;
  guint check_serial;
  guint check_source;          /* pending debounce */
  gboolean checking;
  CtNetShapes *shapes;
  CtNetShapes *test_shapes;
  GPtrArray *layer_errors;     /* GError* per net layer, NULL entries when fine */
  char *summary;

  /* Sidecar and drafts. */
  GKeyFile *sidecar;
  gboolean sidecar_dirty;
  char *draft_id;
  guint draft_source;
  gboolean has_draft;
};

/* document.c */
void ct_document_replace_text (CtDocument *self, const char *text, const char *group,
                               CtDocumentChange flags);
void ct_document_emit_changed (CtDocument *self, CtDocumentChange flags);

/* document-check.c */
void ct_document_schedule_check (CtDocument *self);
void ct_document_clear_check (CtDocument *self);

/* document-data-shapes.c: remembering the data shapes a check saw. */
void ct_document_remember_data_shapes (CtDocument *self);

/* document-sidecar.c */
void ct_document_load_sidecar (CtDocument *self);
void ct_document_schedule_draft (CtDocument *self);
void ct_document_clear_drafts (CtDocument *self);
void ct_document_find_draft (CtDocument *self);
void ct_document_rename_node (CtDocument *self, const char *old_id, const char *new_id);

/* A GPtrArray's free function for GError* entries that may be NULL. */
void ct_document_free_error (gpointer error);

G_END_DECLS
