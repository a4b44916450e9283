/* cli-load.c: how the verbs that run a net (forward, test, time) get one:
 * the prototxt read strictly and upgraded, the net built for the state
 * they were asked for, and trained weights copied in. One place, so that
 * the verbs agree on what a net file may hold and how its errors read. */
#include "cli-net-private.h"
#include "net.h"
#include "proto-file.h"
#include "snapshot.h"

CtNet *
ct_cli_load_net (const CtCliNetRequest *request, GError **error)
{
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  CtNetConfig config = {
    .phase = request->phase,
    .level = request->level,
    .stages = request->stages,
    .seed = request->seed,
    .source_name = request->model,
    .memory_plan = request->memory_plan,
  };
  Caffe__NetParameter *param;
  g_autoptr (CtNet) net = NULL;

  param = ct_net_load_text_file (request->model, CT_TEXT_STRICT, notes, error);
  if (param == NULL)
    return NULL;
  for (guint i = 0; i < notes->len && request->report_note != NULL; i++)
    request->report_note (request->model, notes->pdata[i]);
  net = ct_net_new_with_config (param, &config, error);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  if (net == NULL)
    {
      /* The engine names the layer; the user also needs the file. */
      g_prefix_error (error, "%s: ", request->model);
      return NULL;
    }
  if (request->weights != NULL && !ct_snapshot_load_weights_list (net, request->weights, error))
    return NULL;
  return g_steal_pointer (&net);
}
