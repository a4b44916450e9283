/* layer-classes.h: the class of every built-in layer type, one per file in
 * this folder, for the catalogue's table. */
#pragma once

#include "layer.h"

G_BEGIN_DECLS

/* Data */
extern const CtLayerClass ct_input_layer_class;
extern const CtLayerClass ct_dummy_data_layer_class;
extern const CtLayerClass ct_data_layer_class;
extern const CtLayerClass ct_image_data_layer_class;
extern const CtLayerClass ct_hdf5_data_layer_class;
extern const CtLayerClass ct_hdf5_output_layer_class;
extern const CtLayerClass ct_memory_data_layer_class;

/* Common: Softmax */
extern const CtLayerClass ct_softmax_layer_class;

/* Loss */
extern const CtLayerClass ct_softmax_with_loss_layer_class;
extern const CtLayerClass ct_euclidean_loss_layer_class;
extern const CtLayerClass ct_sigmoid_cross_entropy_loss_layer_class;
extern const CtLayerClass ct_hinge_loss_layer_class;
extern const CtLayerClass ct_infogain_loss_layer_class;
extern const CtLayerClass ct_multinomial_logistic_loss_layer_class;
extern const CtLayerClass ct_contrastive_loss_layer_class;
extern const CtLayerClass ct_accuracy_layer_class;

/* Recurrent (RNN and LSTM come later) */
extern const CtLayerClass ct_lstm_unit_layer_class;

/* Recurrent: unrolled nets (rnn.c, lstm.c on recurrent-base.c) */
extern const CtLayerClass ct_rnn_layer_class;
extern const CtLayerClass ct_lstm_layer_class;

/* Neuron */
extern const CtLayerClass ct_relu_layer_class;
extern const CtLayerClass ct_prelu_layer_class;
extern const CtLayerClass ct_elu_layer_class;
extern const CtLayerClass ct_sigmoid_layer_class;
extern const CtLayerClass ct_tanh_layer_class;
extern const CtLayerClass ct_absval_layer_class;
extern const CtLayerClass ct_power_layer_class;
extern const CtLayerClass ct_exp_layer_class;
extern const CtLayerClass ct_log_layer_class;
extern const CtLayerClass ct_bnll_layer_class;
extern const CtLayerClass ct_threshold_layer_class;
extern const CtLayerClass ct_dropout_layer_class;
extern const CtLayerClass ct_swish_layer_class;
extern const CtLayerClass ct_clip_layer_class;

/* Normalization */
extern const CtLayerClass ct_batch_norm_layer_class;
extern const CtLayerClass ct_mvn_layer_class;

/* Common */
extern const CtLayerClass ct_inner_product_layer_class;
extern const CtLayerClass ct_bias_layer_class;
extern const CtLayerClass ct_scale_layer_class;
extern const CtLayerClass ct_concat_layer_class;
extern const CtLayerClass ct_slice_layer_class;
extern const CtLayerClass ct_split_layer_class;
extern const CtLayerClass ct_eltwise_layer_class;
extern const CtLayerClass ct_flatten_layer_class;
extern const CtLayerClass ct_reshape_layer_class;
extern const CtLayerClass ct_tile_layer_class;
extern const CtLayerClass ct_reduction_layer_class;
extern const CtLayerClass ct_argmax_layer_class;
extern const CtLayerClass ct_embed_layer_class;
extern const CtLayerClass ct_filter_layer_class;
extern const CtLayerClass ct_batch_reindex_layer_class;
extern const CtLayerClass ct_silence_layer_class;
extern const CtLayerClass ct_parameter_layer_class;

/* Utility */
extern const CtLayerClass ct_python_layer_class;

/* Vision */
extern const CtLayerClass ct_convolution_layer_class;
extern const CtLayerClass ct_deconvolution_layer_class;
extern const CtLayerClass ct_pooling_layer_class;
extern const CtLayerClass ct_spp_layer_class;
extern const CtLayerClass ct_im2col_layer_class;
extern const CtLayerClass ct_crop_layer_class;
extern const CtLayerClass ct_lrn_layer_class;

G_END_DECLS
