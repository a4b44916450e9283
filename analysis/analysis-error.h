/* analysis-error.h: the error domain of analysis/: what a net or a file
 * lacks for an analysis (no classifier, no labels, a layer that is not a
 * convolution), and a run the caller cancelled. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CT_ANALYSIS_ERROR (ct_analysis_error_quark ())
GQuark ct_analysis_error_quark (void);

typedef enum {
  CT_ANALYSIS_ERROR_NO_CLASSIFIER, /* no blob of class scores found */
  CT_ANALYSIS_ERROR_BAD_LABEL,     /* a label outside the classes */
  CT_ANALYSIS_ERROR_BAD_ARGUMENT,  /* a class, layer, channel or size that does not fit */
  CT_ANALYSIS_ERROR_UNSUPPORTED,   /* a layer the analysis cannot see through */
  CT_ANALYSIS_ERROR_CANCELLED,     /* the progress callback asked to stop */
  CT_ANALYSIS_ERROR_FILE,          /* a file that cannot be read or written */
} CtAnalysisError;

/* Told the share of the work done (0..1); returns FALSE to cancel, and the
 * analysis then fails with CT_ANALYSIS_ERROR_CANCELLED. */
typedef gboolean (*CtAnalysisProgressFunc) (double fraction, gpointer user_data);

/* Calls FUNC (may be NULL); FALSE with the cancelled error when it says stop. */
gboolean ct_analysis_report (CtAnalysisProgressFunc func, gpointer user_data, double fraction,
                             GError **error);

G_END_DECLS
