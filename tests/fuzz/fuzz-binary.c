/* fuzz-binary.c: libFuzzer target for the binary reader.
 *
 * Each input is read as a NetParameter and as a BlobProto. The reader must
 * never crash, must give an error for whatever it refuses, and must never
 * accept what protobuf-c then fails to unpack (that would mean its checks
 * missed a case; the "could not decode" fallback is reported as a crash).
 * What it accepts must pack to bytes it reads back identically, and must
 * print as text; nets also go through the upgrader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary-io.h"
#include "caffe.pb-c.h"
#include "text-format.h"
#include "upgrade.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-binary: %s: %s\n", what, detail);
  abort ();
}

static guint8 *
pack (const ProtobufCMessage *msg, gsize *size)
{
  guint8 *buf;

  *size = protobuf_c_message_get_packed_size (msg);
  buf = g_malloc (MAX (*size, 1));
  if (protobuf_c_message_pack (msg, buf) != *size)
    fail ("pack", "packed size differs from the announced one");
  return buf;
}

static void
check (const ProtobufCMessageDescriptor *desc, const guint8 *data, gsize size)
{
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *packed = NULL, *repacked = NULL;
  g_autofree char *text = NULL;
  gsize n_packed, n_repacked;
  ProtobufCMessage *msg, *again;

  msg = ct_binary_parse (desc, data, size, "<fuzz>", &error);
  if (msg == NULL)
    {
      if (error == NULL)
        fail ("parse", "failed without an error");
      if (strstr (error->message, "could not decode") != NULL)
        fail ("walk", error->message);
      return;
    }

  packed = pack (msg, &n_packed);
  again = ct_binary_parse (desc, packed, n_packed, "<packed>", &error);
  if (again == NULL)
    fail ("reparse of the packed message", error->message);
  repacked = pack (again, &n_repacked);
  if (n_packed != n_repacked || memcmp (packed, repacked, n_packed) != 0)
    fail ("repack", "packing what we read back gives other bytes");
  protobuf_c_message_free_unpacked (again, NULL);

  text = ct_text_print (msg);
  if (desc == &caffe__net_parameter__descriptor)
    {
      Caffe__NetParameter *net = (Caffe__NetParameter *) msg;

      if (ct_net_needs_upgrade (net) && ct_upgrade_net (net, "<fuzz>", NULL, &error))
        {
          g_free (text);
          text = ct_text_print (msg);
        }
      g_clear_error (&error);
    }
  protobuf_c_message_free_unpacked (msg, NULL);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  check (&caffe__net_parameter__descriptor, data, size);
  check (&caffe__blob_proto__descriptor, data, size);
  return 0;
}
