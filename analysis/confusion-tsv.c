/* confusion-tsv.c: the confusion matrix as text. */
#include <math.h>

#include "class-names.h"
#include "confusion-tsv.h"

static void
append_number (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_c (s, '\t');
  if (isnan (v))
    g_string_append (s, "nan");
  else
    g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.6g", v));
}

/* Names may not hold tabs or line breaks in a TSV cell. */
static void
append_name (GString *s, char *const *names, guint k)
{
  g_autofree char *name = ct_class_name (names, k);

  g_strdelimit (name, "\t\n\r", ' ');
  g_string_append (s, name);
}

char *
ct_confusion_to_tsv (const CtConfusion *c, char *const *names, guint n_mistakes)
{
  GString *s = g_string_new ("# accuracy");
  g_autoptr (GArray) mistakes = NULL;

  append_number (s, ct_confusion_accuracy (c));
  g_string_append_printf (s, "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n",
                          ct_confusion_correct (c), ct_confusion_total (c));
  g_string_append (s, "true\\predicted");
  for (guint k = 0; k < c->n_classes; k++)
    {
      g_string_append_c (s, '\t');
      append_name (s, names, k);
    }
  g_string_append (s, "\ttotal\tprecision\trecall\taccuracy\n");
  for (guint i = 0; i < c->n_classes; i++)
    {
      guint64 total = 0;

      append_name (s, names, i);
      for (guint j = 0; j < c->n_classes; j++)
        {
          total += ct_confusion_count (c, i, j);
          g_string_append_printf (s, "\t%" G_GUINT64_FORMAT, ct_confusion_count (c, i, j));
        }
      g_string_append_printf (s, "\t%" G_GUINT64_FORMAT, total);
      append_number (s, ct_confusion_precision (c, i));
      append_number (s, ct_confusion_recall (c, i));
      append_number (s, ct_confusion_class_accuracy (c, i));
      g_string_append_c (s, '\n');
    }
  if (n_mistakes == 0)
    return g_string_free (s, FALSE);
  mistakes = ct_confusion_misclassified (c);
  g_string_append (s, "\nindex\ttrue\tpredicted\tconfidence\ttrue_probability\n");
  for (guint i = 0; i < MIN (n_mistakes, mistakes->len); i++)
    {
      const CtConfusionSample *m = &g_array_index (mistakes, CtConfusionSample, i);

      g_string_append_printf (s, "%" G_GUINT64_FORMAT "\t", m->index);
      append_name (s, names, m->label);
      g_string_append_c (s, '\t');
      append_name (s, names, m->predicted);
      append_number (s, m->confidence);
      append_number (s, m->label_probability);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}
