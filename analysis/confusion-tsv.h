/* confusion-tsv.h: a confusion matrix as tab-separated text, what
 * `cortado-cli confusion` prints and a spreadsheet or `pandas.read_csv(sep=
 * '\t', comment='#')` reads:
 *
 *   # accuracy	0.8941	8941	10000
 *   true\predicted	T-shirt/top	Trouser	…	total	precision	recall	accuracy
 *   T-shirt/top	857	0	…	1000	0.83	0.857	0.966
 *
 * Row i is true class i, column j predicted class j; the last four columns
 * are the row's count and class i's precision, recall and one-against-the-
 * rest accuracy. Numbers in the C locale, "nan" for 0 / 0. With
 * N_MISTAKES > 0 a blank line and the N most confident mistakes follow:
 * "index	true	predicted	confidence	true_probability". */
#pragma once

#include <glib.h>

#include "confusion.h"

G_BEGIN_DECLS

char *ct_confusion_to_tsv (const CtConfusion *confusion, char *const *class_names,
                           guint n_mistakes);

G_END_DECLS
