/* class-names.h: the names of a classifier's classes, one per line of a
 * labels.txt (line i names class i), as the examples ship beside their
 * nets. A class without a name is shown by its number. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The lines of PATH, trailing spaces and "\r" removed; an empty file is an
 * error. A NULL-terminated list. */
char **ct_class_names_load (const char *path, GError **error);

/* labels.txt in the folder of MODEL_PATH, or NULL (no error) when there is
 * none; an existing file that cannot be read is an error. */
char **ct_class_names_find_beside (const char *model_path, GError **error);

/* NAMES[index], or the number as text when NAMES has no such line. */
char *ct_class_name (char *const *names, guint index);

G_END_DECLS
