/* test-files.h: temporary folders for the tests of every folder. */
#pragma once

#include <glib.h>

/* A new temporary folder named after TEMPLATE ("cortado-solver-XXXXXX");
 * the test fails when it cannot be made. */
char *ct_test_tmpdir_make (const char *template_);

/* Removes PATH and, for a folder, everything in it (links are removed,
 * never followed). Nothing happens when PATH is missing. */
void ct_test_remove_tree (const char *path);
