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
#include "devices.h"
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

/* ERROR as MESSAGE (translated), with the CUDA runtime's own words after
 * it in parentheses when it has any. */
static gboolean
no_gpu (const char *message, GError **error)
{
  const char *words = ct_engine_gpu_last_error ();

  if (words[0] != '\0')
    g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE, "%s (%s)", message, words);
  else
    g_set_error_literal (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE, message);
  return FALSE;
}

gboolean
ct_cli_check_gpu (const char *gpu, GError **error)
{
  g_autofree char *reason = NULL;

  if (gpu == NULL || ct_engine_gpu_count (&reason) > 0)
    return TRUE;
  /* TRANSLATORS: %s says why: "Cortado was built without CUDA", "Cortado's
   * CUDA module cannot be loaded: ...", "CUDA finds no usable GPU (...)" */
  g_set_error (error, CT_ENGINE_ERROR, CT_ENGINE_ERROR_NO_DEVICE, _("no GPU available: %s"),
               reason);
  return FALSE;
}

GArray *
ct_cli_parse_gpu_ids (const char *gpu, int count, GError **error)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto (GStrv) parts = NULL;

  if (strcmp (gpu, "all") == 0)
    {
      for (int i = 0; i < count; i++)
        g_array_append_val (ids, i);
      return g_steal_pointer (&ids);
    }
  parts = g_strsplit (gpu, ",", -1);
  for (char **part = parts; *part != NULL; part++)
    {
      char *end = NULL;
      gint64 n = g_ascii_strtoll (*part, &end, 10);
      int id = (int) n;

      if (end == *part || *end != '\0' || n < 0 || n >= count)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       g_dngettext (GETTEXT_PACKAGE, "no GPU with id '%s' (there is %d)",
                                    "no GPU with id '%s' (there are %d)", count), *part, count);
          return NULL;
        }
      g_array_append_val (ids, id);
    }
  return g_steal_pointer (&ids);
}

gboolean
ct_cli_select_gpu (const char *gpu, gboolean training, gboolean *use_gpu, GError **error)
{
  g_autoptr (GArray) ids = NULL;
  g_autoptr (GString) list = g_string_new (NULL);
  CtGpuInfo info = { 0 };
  int count = 0, device;

  *use_gpu = FALSE;
  if (gpu == NULL)
    {
      CT_CLI_LOG_INFO ("Use CPU.");
      return TRUE;
    }
  if (!ct_cli_check_gpu (gpu, error))
    return FALSE;
  count = ct_engine_gpu_count (NULL);
  if ((ids = ct_cli_parse_gpu_ids (gpu, count, error)) == NULL)
    return FALSE;
  if (ids->len == 0)
    return no_gpu (_("no GPU available: CUDA finds no usable device"), error);
  device = g_array_index (ids, int, 0);
  if (!ct_engine_gpu_select (device, NULL))
    {
      g_autofree char *message = g_strdup_printf (_("no GPU available: GPU %d cannot be used"),
                                                  device);
      return no_gpu (message, error);
    }
  if (!ct_engine_gpu_info (device, &info, NULL))
    g_strlcpy (info.name, "?", sizeof info.name);
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (list, i ? ", %d" : "%d", g_array_index (ids, int, i));
  /* Caffe's own lines: scripts look for them */
  if (training)
    {
      CT_CLI_LOG_INFO ("Using GPUs %s", list->str);
      CT_CLI_LOG_INFO ("GPU %d: %s", device, info.name);
    }
  else
    {
      CT_CLI_LOG_INFO ("Use GPU with device ID %d", device);
      CT_CLI_LOG_INFO ("GPU device name: %s", info.name);
    }
  if (ids->len > 1)
    CT_CLI_LOG_WARNING ("Cortado computes on one GPU: using GPU %d only (--gpu=%s asks for %s)",
                        device, gpu, list->str);
  *use_gpu = TRUE;
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
