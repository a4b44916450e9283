/* git-revision.h: a file as a git revision holds it (`git show REV:path`),
 * for comparing a net with an earlier version of itself. GLib and GIO only;
 * runs git as a subprocess and blocks until it ends: call it from a worker
 * thread. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define CT_GIT_ERROR (ct_git_error_quark ())
GQuark ct_git_error_quark (void);

typedef enum {
  CT_GIT_ERROR_NO_GIT,        /* git is not installed */
  CT_GIT_ERROR_NOT_A_REPO,    /* the file is not in a git work tree */
  CT_GIT_ERROR_NO_REVISION,   /* the revision does not exist, or lacks the file */
  CT_GIT_ERROR_BAD_REVISION,  /* empty, or written so that git would read it as an option */
} CtGitError;

/* The text of PATH (a file in a git work tree) at revision REV ("HEAD",
 * "HEAD~2", a branch, a tag, a commit), or NULL with a clear error. */
char *ct_git_show_file (const char *path, const char *rev, GCancellable *cancellable,
                        GError **error);

G_END_DECLS
