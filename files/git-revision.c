/* git-revision.c: reading a file at a git revision (see git-revision.h).
 * git runs in the file's folder and is given the path as "./NAME", which
 * git resolves against that folder, so that the file may sit anywhere in
 * the work tree. */
#include <string.h>
#include <glib/gi18n-lib.h>

#include "git-revision.h"

G_DEFINE_QUARK (ct-git-error-quark, ct_git_error)

/* Run git with ARGV in DIR; its standard output, or NULL with ERROR set
 * to its standard error (first line) in domain CODE. */
static char *
run_git (const char *dir, const char *const *argv, CtGitError code, GCancellable *cancellable,
         GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *out = NULL, *err = NULL;

  g_subprocess_launcher_set_cwd (launcher, dir);
  /* the user's language would be fine, but the pager and colours are not */
  g_subprocess_launcher_setenv (launcher, "GIT_PAGER", "cat", TRUE);
  process = g_subprocess_launcher_spawnv (launcher, argv, &local);
  if (process == NULL)
    {
      g_set_error (error, CT_GIT_ERROR, CT_GIT_ERROR_NO_GIT,
                   _("Could not run git (is it installed?): %s"), local->message);
      return NULL;
    }
  if (!g_subprocess_communicate_utf8 (process, NULL, cancellable, &out, &err, error))
    return NULL;
  if (!g_subprocess_get_successful (process))
    {
      g_strstrip (err != NULL ? err : (err = g_strdup ("")));
      if (strchr (err, '\n') != NULL)
        *strchr (err, '\n') = '\0';
      g_set_error_literal (error, CT_GIT_ERROR, code, err);
      return NULL;
    }
  return g_steal_pointer (&out);
}

char *
ct_git_show_file (const char *path, const char *rev, GCancellable *cancellable, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);
  g_autofree char *spec = NULL;
  g_autofree char *inside = NULL;
  char *text;
  g_autoptr (GError) local = NULL;
  const char *check[] = { "git", "rev-parse", "--is-inside-work-tree", NULL };
  const char *show[] = { "git", "show", NULL, NULL };

  if (rev == NULL || *rev == '\0' || *rev == '-' || strchr (rev, ':') != NULL)
    {
      g_set_error (error, CT_GIT_ERROR, CT_GIT_ERROR_BAD_REVISION,
                   _("'%s' is not a revision: give a commit, a branch, a tag or HEAD~N"),
                   rev != NULL ? rev : "");
      return NULL;
    }
  inside = run_git (dir, check, CT_GIT_ERROR_NOT_A_REPO, cancellable, &local);
  if (inside == NULL && g_error_matches (local, CT_GIT_ERROR, CT_GIT_ERROR_NOT_A_REPO))
    {
      g_set_error (error, CT_GIT_ERROR, CT_GIT_ERROR_NOT_A_REPO,
                   _("%s is not in a git work tree, so it has no revisions to compare with"),
                   path);
      return NULL;
    }
  if (inside == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  spec = g_strdup_printf ("%s:./%s", rev, name);
  show[2] = spec;
  text = run_git (dir, show, CT_GIT_ERROR_NO_REVISION, cancellable, &local);
  if (text == NULL && g_error_matches (local, CT_GIT_ERROR, CT_GIT_ERROR_NO_REVISION))
    {
      const char *why = local->message;

      if (g_str_has_prefix (why, "fatal: "))
        why += strlen ("fatal: ");
      /* TRANSLATORS: the file, the revision, and git's own words */
      g_set_error (error, CT_GIT_ERROR, CT_GIT_ERROR_NO_REVISION,
                   _("Could not read %s at revision %s: %s"), name, rev, why);
      return NULL;
    }
  if (text == NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  return text;
}
