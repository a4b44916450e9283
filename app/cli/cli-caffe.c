/* cli-caffe.c: the helpers of the Caffe-compatible verbs (see
 * cli-caffe-private.h). Caffe logs through glog, and scripts such as its
 * parse_log read those lines, date and time included; so the verbs that
 * stand in for `caffe` write the same prefix. */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "cli-caffe-private.h"
#include "device.h"
#include "engine-error.h"

static gboolean progress_shown;
static gint64 progress_last_us;

void
ct_cli_progress_clear (void)
{
  if (progress_shown)
    {
      fputs ("\r\033[K", stderr);
      fflush (stderr);
      progress_shown = FALSE;
    }
}

void
ct_cli_progress_show (const char *text, gboolean force)
{
  gint64 now = g_get_monotonic_time ();

  if (!isatty (STDERR_FILENO))
    return;
  if (!force && progress_shown && now - progress_last_us < 100000)
    return;
  progress_last_us = now;
  fprintf (stderr, "\r\033[K%s", text);
  fflush (stderr);
  progress_shown = TRUE;
}

void
ct_cli_glog (char severity, const char *file, int line, const char *message)
{
  const char *base = strrchr (file, '/');
  struct timeval tv;
  struct tm tm;

  ct_cli_progress_clear ();
  gettimeofday (&tv, NULL);
  localtime_r (&tv.tv_sec, &tm);
  fprintf (stderr, "%c%02d%02d %02d:%02d:%02d.%06ld %5d %s:%d] %s\n", severity,
           tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long) tv.tv_usec,
           (int) getpid (), base != NULL ? base + 1 : file, line, message);
  fflush (stderr);
}

void
ct_cli_glogf (char severity, const char *file, int line, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  ct_cli_glog (severity, file, line, message);
}

const char *
ct_cli_format_number (char *buf, double value)
{
  return g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%g", value);
}

void
ct_cli_accept_single_dash (int argc, char **argv, const GOptionEntry *entries)
{
  /* the rewritten arguments live as long as the process; GOption moves
   * argv's pointers around, so they are kept here */
  static GPtrArray *kept;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      gsize len;

      if (strcmp (arg, "--") == 0)
        return;
      if (arg[0] != '-' || arg[1] == '-' || arg[1] == '\0' || arg[2] == '\0')
        continue;
      len = strcspn (arg + 1, "=");
      for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
        if (strlen (e->long_name) == len && strncmp (e->long_name, arg + 1, len) == 0)
          {
            if (kept == NULL)
              kept = g_ptr_array_new ();
            argv[i] = g_strconcat ("-", arg, NULL);
            g_ptr_array_add (kept, argv[i]);
            break;
          }
    }
}

gboolean
ct_cli_check_gpu (const char *gpu, GError **error)
{
  int count = 0;

  if (gpu == NULL)
    return TRUE;
  if (!CT_HAVE_CUDA)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE,
                   _("no GPU available: Cortado was built without CUDA"));
      return FALSE;
    }
  if (ct_cuda_device_count (&count) != CT_STATUS_OK || count == 0)
    {
      g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE,
                   _("no GPU available: CUDA finds no usable device"));
      return FALSE;
    }
  return TRUE;
}

char **
ct_cli_split_stages (char **stages)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  for (char **s = stages; s != NULL && *s != NULL; s++)
    {
      g_auto (GStrv) parts = g_strsplit (*s, ",", -1);

      for (char **p = parts; *p != NULL; p++)
        if (**p != '\0')
          g_strv_builder_add (builder, *p);
    }
  return g_strv_builder_end (builder);
}
