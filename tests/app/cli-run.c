/* cli-run.c: the tests' way of running cortado-cli. */
#include <sys/wait.h>

#include "cli-run.h"

void
ct_cli_run_clear (CtCliRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
}

CtCliRun
ct_cli_runv (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) env = g_get_environ ();
  g_autoptr (GError) error = NULL;
  CtCliRun run = { 0 };
  int wait_status;

  g_ptr_array_add (argv, (gpointer) g_getenv ("CT_CLI"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  env = g_environ_setenv (env, "LC_ALL", "C.UTF-8", TRUE);
  env = g_environ_unsetenv (env, "LANGUAGE");
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
                               &run.out, &run.err, &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  run.status = WEXITSTATUS (wait_status);
  if (run.status != 0)
    g_test_message ("exit %d: %s", run.status, run.err);
  return run;
}

CtCliRun
ct_cli_run (const char *first, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  va_list ap;

  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return ct_cli_runv ((const char *const *) args->pdata);
}

char *
ct_test_data_path (const char *relative)
{
  return g_build_filename (g_getenv ("CT_TEST_DATA"), relative, NULL);
}
