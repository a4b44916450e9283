/* cli-run.h: running the built cortado-cli from a test, as a user would,
 * in English, and keeping what it printed. */
#pragma once

#include <glib.h>

typedef struct {
  int status; /* exit code */
  char *out;
  char *err;
} CtCliRun;

void ct_cli_run_clear (CtCliRun *run);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CtCliRun, ct_cli_run_clear)

/* Run $CT_CLI with the NULL-terminated arguments in the C.UTF-8 locale. A
 * non-zero exit is logged with its stderr. */
CtCliRun ct_cli_run (const char *first, ...);

/* The same with the arguments in an array. */
CtCliRun ct_cli_runv (const char *const *args);

/* RELATIVE inside $CT_TEST_DATA (tests/data). */
char *ct_test_data_path (const char *relative);
