/* fuzz-text.c: libFuzzer target for the prototxt parser and printer.
 *
 * Each input is parsed as a NetParameter, strictly and leniently. Whatever
 * parses must print, the print must parse again with the same flags, and
 * printing that must give the same text: the printer writes only what the
 * parser reads back. The lenient result also goes through the upgrader,
 * whose output must print and parse too. A broken promise aborts, which
 * libFuzzer reports as a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caffe.pb-c.h"
#include "proto-file.h"
#include "text-format.h"
#include "upgrade.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
fail (const char *what, const char *detail, const char *text)
{
  fprintf (stderr, "fuzz-text: %s: %s\n--- text ---\n%s\n---\n", what, detail, text);
  abort ();
}

/* Prints MSG, parses the print with FLAGS and checks it prints the same. */
static void
check_print_round_trip (const ProtobufCMessage *msg, CtTextFlags flags, const char *stage)
{
  g_autofree char *printed = ct_text_print (msg);
  g_autofree char *reprinted = NULL;
  g_autoptr(GError) error = NULL;
  ProtobufCMessage *again;

  again = ct_text_parse (msg->descriptor, printed, -1, "<printed>", flags, &error);
  if (again == NULL)
    fail (stage, error->message, printed);
  reprinted = ct_text_print (again);
  protobuf_c_message_free_unpacked (again, NULL);
  if (strcmp (printed, reprinted) != 0)
    fail (stage, "the print of the print differs", reprinted);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static const CtTextFlags modes[] = { CT_TEXT_STRICT, CT_TEXT_LENIENT };

  (void) ct_proto_guess_kind ((const char *) data, (gssize) size);

  for (gsize m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(GError) error = NULL;
      ProtobufCMessage *msg;

      msg = ct_text_parse (&caffe__net_parameter__descriptor, (const char *) data,
                           (gssize) size, "<fuzz>", modes[m], &error);
      if (msg == NULL)
        {
          if (error == NULL)
            fail ("parse", "failed without an error", "");
          continue;
        }
      check_print_round_trip (msg, modes[m], modes[m] == CT_TEXT_STRICT ? "strict reparse"
                                                                        : "lenient reparse");
      if (modes[m] == CT_TEXT_LENIENT)
        {
          Caffe__NetParameter *net = (Caffe__NetParameter *) msg;

          if (ct_net_needs_upgrade (net) && ct_upgrade_net (net, "<fuzz>", NULL, &error))
            check_print_round_trip (msg, CT_TEXT_LENIENT, "upgraded reparse");
          ct_text_strip_unknown (msg);
          if (ct_text_has_unknown (msg))
            fail ("strip", "kept text left after stripping", "");
        }
      protobuf_c_message_free_unpacked (msg, NULL);
    }
  return 0;
}
