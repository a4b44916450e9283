/* cli-caffe-private.h: what the verbs that stand in for Caffe's `caffe`
 * tool (train, test, time, device_query) share: glog-style log lines on stderr,
 * gflags' single-dash spellings, the --gpu and --stage flags, and a
 * progress line on a terminal. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

int ct_cli_train (int argc, char **argv);
int ct_cli_test (int argc, char **argv);
int ct_cli_device_query (int argc, char **argv);

/* One line as glog writes it, on stderr:
 * "I1122 12:00:00.123456  4242 file.c:88] MESSAGE". SEVERITY is 'I', 'W'
 * or 'E'; FILE is shown without its folders. A progress line on the
 * terminal is cleared first and drawn again by the next update. */
void ct_cli_glog (char severity, const char *file, int line, const char *message);
void ct_cli_glogf (char severity, const char *file, int line, const char *format, ...)
  G_GNUC_PRINTF (4, 5);
#define CT_CLI_LOG_INFO(...) ct_cli_glogf ('I', __FILE__, __LINE__, __VA_ARGS__)
#define CT_CLI_LOG_WARNING(...) ct_cli_glogf ('W', __FILE__, __LINE__, __VA_ARGS__)

/* VALUE as Caffe's streams print a float (%g), in any locale; BUF holds
 * G_ASCII_DTOSTR_BUF_SIZE bytes. */
const char *ct_cli_format_number (char *buf, double value);

/* gflags spellings: "-solver x" and "-solver=x" become "--solver x" and
 * "--solver=x" for the long names in ENTRIES, so that GOption reads them.
 * Short options ("-h") and unknown names are left alone. */
void ct_cli_accept_single_dash (int argc, char **argv, const GOptionEntry *entries);

/* --gpu: NULL (absent) is the CPU. Otherwise FALSE with ERROR unless a GPU
 * can be used; the error gives the CUDA runtime's reason ("CUDA driver
 * version is insufficient for CUDA runtime version"). */
gboolean ct_cli_check_gpu (const char *gpu, GError **error);

/* The device --gpu asks for, as Caffe's tool reads the flag: NULL is the
 * CPU (logs "Use CPU."; *USE_GPU FALSE); "N", "N,M,..." or "all" make the
 * first id listed (the first device for "all") this process's device
 * (ct_cuda_set_device) and set *USE_GPU. Cortado computes on one GPU:
 * more ids are accepted, as Caffe's train takes them, and a warning says
 * that only the first is used. TRAINING picks Caffe's train lines ("Using
 * GPUs 0", "GPU 0: NAME"), otherwise its test and time lines ("Use GPU
 * with device ID 0", "GPU device name: NAME"). FALSE with ERROR for an id
 * that is not a device, or when no GPU can be used. */
gboolean ct_cli_select_gpu (const char *gpu, gboolean training, gboolean *use_gpu,
                            GError **error);

/* The GPU ids of a --gpu value ("all": every device of the COUNT there
 * are), checked against COUNT; a new array of int. NULL with ERROR for a
 * value that is not a list of device ids. */
GArray *ct_cli_parse_gpu_ids (const char *gpu, int count, GError **error);

/* --stage values, repeated or comma-separated as Caffe takes them, as one
 * NULL-terminated list (never NULL). */
char **ct_cli_split_stages (char **stages);

/* The progress line: drawn on stderr only when it is a terminal, at most
 * ten times a second unless FORCE. */
void ct_cli_progress_show (const char *text, gboolean force);
void ct_cli_progress_clear (void);

G_END_DECLS
