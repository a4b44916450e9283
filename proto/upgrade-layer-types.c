/* upgrade-layer-types.c: the name each layer type had in Caffe's three net
 * formats: V0's lower-case strings ("conv"), V1's enum (CONVOLUTION) and
 * V2's type strings ("Convolution"). One table serves both upgrade steps,
 * V0 -> V1 and V1 -> V2. */
#include "upgrade-private.h"

#include <string.h>

/* In V1's enum order. V0 had a name for only some of them (NULL: none);
 * V1's NONE became the empty string. */
static const struct {
  const char *v0;
  const char *v1;
  const char *v2;
} layer_types[] = {
  { NULL, "NONE", "" },
  { NULL, "ABSVAL", "AbsVal" },
  { "accuracy", "ACCURACY", "Accuracy" },
  { NULL, "ARGMAX", "ArgMax" },
  { "bnll", "BNLL", "BNLL" },
  { "concat", "CONCAT", "Concat" },
  { NULL, "CONTRASTIVE_LOSS", "ContrastiveLoss" },
  { "conv", "CONVOLUTION", "Convolution" },
  { NULL, "DECONVOLUTION", "Deconvolution" },
  { "data", "DATA", "Data" },
  { "dropout", "DROPOUT", "Dropout" },
  { NULL, "DUMMY_DATA", "DummyData" },
  { "euclidean_loss", "EUCLIDEAN_LOSS", "EuclideanLoss" },
  { NULL, "ELTWISE", "Eltwise" },
  { NULL, "EXP", "Exp" },
  { "flatten", "FLATTEN", "Flatten" },
  { "hdf5_data", "HDF5_DATA", "HDF5Data" },
  { "hdf5_output", "HDF5_OUTPUT", "HDF5Output" },
  { NULL, "HINGE_LOSS", "HingeLoss" },
  { "im2col", "IM2COL", "Im2col" },
  { "images", "IMAGE_DATA", "ImageData" },
  { "infogain_loss", "INFOGAIN_LOSS", "InfogainLoss" },
  { "innerproduct", "INNER_PRODUCT", "InnerProduct" },
  { "lrn", "LRN", "LRN" },
  { NULL, "MEMORY_DATA", "MemoryData" },
  { "multinomial_logistic_loss", "MULTINOMIAL_LOGISTIC_LOSS", "MultinomialLogisticLoss" },
  { NULL, "MVN", "MVN" },
  { "pool", "POOLING", "Pooling" },
  { NULL, "POWER", "Power" },
  { "relu", "RELU", "ReLU" },
  { "sigmoid", "SIGMOID", "Sigmoid" },
  { NULL, "SIGMOID_CROSS_ENTROPY_LOSS", "SigmoidCrossEntropyLoss" },
  { NULL, "SILENCE", "Silence" },
  { "softmax", "SOFTMAX", "Softmax" },
  { "softmax_loss", "SOFTMAX_LOSS", "SoftmaxWithLoss" },
  { "split", "SPLIT", "Split" },
  { NULL, "SLICE", "Slice" },
  { "tanh", "TANH", "TanH" },
  { "window_data", "WINDOW_DATA", "WindowData" },
  { NULL, "THRESHOLD", "Threshold" },
};

const char *
ct_upgrade_v1_type_of_v0 (const char *v0)
{
  for (gsize i = 0; i < G_N_ELEMENTS (layer_types); i++)
    if (layer_types[i].v0 != NULL && strcmp (layer_types[i].v0, v0) == 0)
      return layer_types[i].v1;
  return NULL;
}

const char *
ct_upgrade_v2_type_of_v1 (const char *v1)
{
  for (gsize i = 0; i < G_N_ELEMENTS (layer_types); i++)
    if (strcmp (layer_types[i].v1, v1) == 0)
      return layer_types[i].v2;
  return NULL;
}
