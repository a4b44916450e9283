/* cli-private.h: what the cortado-cli verbs share: exit codes, the verb
 * table, option-context setup and output helpers. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit codes, documented in --help. */
enum {
  CT_CLI_EXIT_OK = 0,     /* everything went well */
  CT_CLI_EXIT_INPUT = 1,  /* an input file has errors, or a file could not be written */
  CT_CLI_EXIT_USAGE = 2,  /* the command line is wrong */
};

typedef int (*CtCliVerbFunc) (int argc, char **argv);

int ct_cli_check (int argc, char **argv);
int ct_cli_format (int argc, char **argv);
int ct_cli_upgrade (int argc, char **argv);
int ct_cli_info (int argc, char **argv);
int ct_cli_draw (int argc, char **argv);

/* A GOptionContext for VERB with SUMMARY and the exit-code text;
 * PARAMETERS is e.g. "FILE…". */
GOptionContext *ct_cli_context_new (const char *verb,
                                    const char *parameters,
                                    const char *summary,
                                    const GOptionEntry *entries);

/* Parses ARGV with CONTEXT. On a usage error prints it with a hint and
 * returns FALSE (the caller exits with CT_CLI_EXIT_USAGE). */
gboolean ct_cli_parse (GOptionContext *context, int *argc, char ***argv);

/* ct_cli_parse for a verb that takes FILE…: the option context's
 * remaining-arguments entry fills *FILES. FALSE after printing the usage
 * error, also when no file is given. */
gboolean ct_cli_parse_files (GOptionContext *context, const char *verb, int *argc, char ***argv,
                             char ***files);

/* Prints "cortado-cli VERB: MESSAGE" and a --help hint to stderr; returns
 * CT_CLI_EXIT_USAGE. */
int ct_cli_usage_error (const char *verb, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Writes bytes to stdout unchanged (file contents must not be converted
 * to the locale's charset, as g_print would). Returns FALSE on a write error. */
gboolean ct_cli_write_stdout (const char *data, gsize length);

/* Reads PATH, or standard input for "-". */
gboolean ct_cli_read_input (const char *path, char **contents, gsize *length, GError **error);

G_END_DECLS
