/* net-diff.h: what changed between two nets (two prototxts, or a document
 * and its saved file): layers added, removed and renamed (matched by name;
 * a layer that is gone and one that is new count as a rename when they
 * differ in nothing but the name), and, for layers in both, every field
 * that differs, by its path ("convolution_param.num_output") with both
 * values. Fields of the net itself compare the same way. A field left out
 * equals one written with its default value.
 *
 * Nets are read leniently: fields the schema does not know (a fork's
 * `prior_box_param`) are compared by their text, as "?prior_box_param".
 * Old (V0, V1) nets are upgraded before comparing, so that a net and its
 * upgrade compare equal. Any two messages of one type compare the same
 * way: two solvers too. */
#pragma once

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

G_BEGIN_DECLS

typedef enum {
  CT_NET_DIFF_ADDED,    /* LAYER_B is new */
  CT_NET_DIFF_REMOVED,  /* LAYER_A is gone */
  CT_NET_DIFF_RENAMED,  /* LAYER_A is now called LAYER_B */
  CT_NET_DIFF_CHANGED,  /* FIELD of LAYER_A (NULL: of the net) went from VALUE_A to VALUE_B */
} CtNetDiffKind;

typedef struct {
  CtNetDiffKind kind;
  char *layer_a, *layer_b;   /* NULL where there is none */
  char *type;                /* the layer's type, for added, removed and renamed */
  char *field;               /* CHANGED: the field's path */
  char *value_a, *value_b;   /* CHANGED: the values as text, "(none)" when absent */
} CtNetDiffEntry;

/* Compare two messages of the same type; a GPtrArray of CtNetDiffEntry,
 * empty when they are equal. NetParameters compare layer by layer. */
GPtrArray *ct_net_diff_compute (const ProtobufCMessage *a, const ProtobufCMessage *b);

/* Two prototxt files of the same kind (nets or solvers). Errors name the
 * file; two files of different kinds are an error. */
GPtrArray *ct_net_diff_files (const char *path_a, const char *path_b, GError **error);

/* Two nets given as prototxt text (read leniently and upgraded); NAME_A
 * and NAME_B name them in errors ("lenet.prototxt:12:7: ..."). */
GPtrArray *ct_net_diff_texts (const char *text_a, const char *name_a, const char *text_b,
                              const char *name_b, GError **error);

/* One line per entry:
 *   - layer 'conv2' (Convolution)
 *   + layer 'conv3' (Convolution)
 *   ~ layer 'ip1' renamed to 'fc1'
 *   ~ conv1: convolution_param.num_output: 20 -> 50
 *   ~ net: force_backward: false -> true */
char *ct_net_diff_to_text (GPtrArray *entries);

G_END_DECLS
