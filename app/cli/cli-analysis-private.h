/* cli-analysis-private.h: the verbs that ask what a trained net learned
 * (confusion, explain, top-activations) and what changed between two
 * files (diff), all computed by analysis/. */
#pragma once

G_BEGIN_DECLS

int ct_cli_confusion (int argc, char **argv);
int ct_cli_explain (int argc, char **argv);
int ct_cli_top_activations (int argc, char **argv);
int ct_cli_diff (int argc, char **argv);

G_END_DECLS
