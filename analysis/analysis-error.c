/* analysis-error.c: the error domain, and the progress check every long
 * analysis makes between batches. */
#include <glib/gi18n-lib.h>

#include "analysis-error.h"

G_DEFINE_QUARK (ct-analysis-error-quark, ct_analysis_error)

gboolean
ct_analysis_report (CtAnalysisProgressFunc func, gpointer user_data, double fraction,
                    GError **error)
{
  if (func == NULL || func (CLAMP (fraction, 0.0, 1.0), user_data))
    return TRUE;
  g_set_error_literal (error, CT_ANALYSIS_ERROR, CT_ANALYSIS_ERROR_CANCELLED,
                       _("The analysis was cancelled"));
  return FALSE;
}
