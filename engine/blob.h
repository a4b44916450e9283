/* blob.h: CtBlob, the N-D float array that holds everything a net computes:
 * data (values passed forward) and diff (gradients passed backward), each a
 * CtMem with a CPU and a GPU copy. It follows Caffe's Blob member for
 * member: shape up to 32 axes, negative axes counted from the end, the
 * legacy num/channels/height/width view, offsets, grow-only capacity, copy,
 * share, update, norms and BlobProto conversion.
 *
 * Counts are 64-bit; a shape whose element count (or byte size) does not fit
 * is refused with CT_ENGINE_ERROR_OVERFLOW. Everything that can be asked
 * wrongly (a bad axis, a mismatched shape, a huge blob) returns an error;
 * functions returning a count or index return -1 with the error set,
 * functions returning a float return 0 with the error set.
 *
 * Reshape allocates nothing: memory is allocated (zeroed) on first access, so
 * the accessors take a GError for the case where that allocation fails. */
#pragma once

#include <glib.h>

#include "caffe.pb-c.h"
#include "mem.h"

G_BEGIN_DECLS

#define CT_BLOB_MAX_AXES 32

typedef struct _CtBlob CtBlob;

typedef enum {
  CT_BLOB_COPY_DATA = 0,           /* copy the source's data into data */
  CT_BLOB_COPY_DIFF = 1 << 0,      /* copy the source's diff into diff instead */
  CT_BLOB_COPY_RESHAPE = 1 << 1,   /* take the source's shape instead of failing */
} CtBlobCopyFlags;

typedef enum {
  CT_BLOB_PROTO_DEFAULT = 0,         /* shape and float data */
  CT_BLOB_PROTO_WRITE_DIFF = 1 << 0, /* also the diff */
  CT_BLOB_PROTO_DOUBLE = 1 << 1,     /* double_data / double_diff instead of data / diff */
} CtBlobProtoFlags;

/* A blob with no axes and no elements (count 0), as Caffe's Blob(). */
CtBlob *ct_blob_new (void);
CtBlob *ct_blob_new_with_shape (const gint64 *dims, guint n_axes, GError **error);
void ct_blob_free (CtBlob *blob);

/* Reshaping. On error the blob is unchanged. Memory is reallocated only when
 * the new count exceeds the capacity; it is never shrunk. */
gboolean ct_blob_reshape (CtBlob *blob, const gint64 *dims, guint n_axes, GError **error);
gboolean ct_blob_reshape_4d (CtBlob *blob, gint64 num, gint64 channels,
                             gint64 height, gint64 width, GError **error);
gboolean ct_blob_reshape_from_shape (CtBlob *blob, const Caffe__BlobShape *shape, GError **error);
gboolean ct_blob_reshape_like (CtBlob *blob, const CtBlob *other, GError **error);

/* The shape: ct_blob_num_axes() entries, borrowed. */
const gint64 *ct_blob_get_shape (const CtBlob *blob);
guint ct_blob_num_axes (const CtBlob *blob);
gint64 ct_blob_count (const CtBlob *blob);
gint64 ct_blob_capacity (const CtBlob *blob);

/* "2 3 4 5 (120)": each dimension, then the count. */
char *ct_blob_shape_string (const CtBlob *blob);

/* AXIS in [-num_axes, num_axes) as an index in [0, num_axes); -1 on error. */
int ct_blob_canonical_axis_index (const CtBlob *blob, int axis, GError **error);

/* The dimension of AXIS (negative counts from the end); -1 on error. */
gint64 ct_blob_shape_at (const CtBlob *blob, int axis, GError **error);

/* Product of the dimensions of axes [START, END) (not canonicalised: both
 * in [0, num_axes], START <= END), and of [START, num_axes). -1 on error. */
gint64 ct_blob_count_range (const CtBlob *blob, int start_axis, int end_axis, GError **error);
gint64 ct_blob_count_from (const CtBlob *blob, int start_axis, GError **error);

/* The legacy 4-D view, for blobs of at most 4 axes. INDEX in [-4, 4); axes
 * the blob lacks read as 1, so that a bias of shape (N) reads as 1 1 1 N
 * from the end. -1 on error. */
gint64 ct_blob_legacy_shape (const CtBlob *blob, int index, GError **error);
gint64 ct_blob_num (const CtBlob *blob, GError **error);
gint64 ct_blob_channels (const CtBlob *blob, GError **error);
gint64 ct_blob_height (const CtBlob *blob, GError **error);
gint64 ct_blob_width (const CtBlob *blob, GError **error);

/* ((n * channels + c) * height + h) * width + w. As in Caffe, each index may
 * equal its dimension (one past the end), for strides such as offset (1).
 * -1 on error. */
gint64 ct_blob_offset (const CtBlob *blob, gint64 n, gint64 c, gint64 h, gint64 w,
                       GError **error);

/* Row-major offset of INDICES (N_INDICES <= num_axes leading indices, the
 * rest 0), each in [0, dim). -1 on error. */
gint64 ct_blob_offset_index (const CtBlob *blob, const gint64 *indices, guint n_indices,
                             GError **error);

float ct_blob_data_at (CtBlob *blob, gint64 n, gint64 c, gint64 h, gint64 w, GError **error);
float ct_blob_diff_at (CtBlob *blob, gint64 n, gint64 c, gint64 h, gint64 w, GError **error);
float ct_blob_data_at_index (CtBlob *blob, const gint64 *indices, guint n_indices, GError **error);
float ct_blob_diff_at_index (CtBlob *blob, const gint64 *indices, guint n_indices, GError **error);

/* The memories themselves, borrowed (ct_mem_ref to keep one). */
CtMem *ct_blob_get_data_mem (const CtBlob *blob);
CtMem *ct_blob_get_diff_mem (const CtBlob *blob);

/* Element access; NULL only with ERROR set (allocation failure, no GPU). */
const float *ct_blob_cpu_data (CtBlob *blob, GError **error);
float *ct_blob_mutable_cpu_data (CtBlob *blob, GError **error);
const float *ct_blob_cpu_diff (CtBlob *blob, GError **error);
float *ct_blob_mutable_cpu_diff (CtBlob *blob, GError **error);
const float *ct_blob_gpu_data (CtBlob *blob, GError **error);
float *ct_blob_mutable_gpu_data (CtBlob *blob, GError **error);
const float *ct_blob_gpu_diff (CtBlob *blob, GError **error);
float *ct_blob_mutable_gpu_diff (CtBlob *blob, GError **error);

/* The same on the CPU or, when GPU, on the GPU: a layer written once for
 * both devices picks its pointers with these and its kernels with
 * `(gpu ? ct_cuda_relu_forward : ct_cpu_relu_forward) (...)`, the twins
 * taking the same arguments. */
const float *ct_blob_data_on (CtBlob *blob, gboolean gpu, GError **error);
float *ct_blob_mutable_data_on (CtBlob *blob, gboolean gpu, GError **error);
const float *ct_blob_diff_on (CtBlob *blob, gboolean gpu, GError **error);
float *ct_blob_mutable_diff_on (CtBlob *blob, gboolean gpu, GError **error);

/* The shape as num_axes int64 values in device memory, for N-D kernels. */
const gint64 *ct_blob_gpu_shape (CtBlob *blob, GError **error);

/* Use DATA (count floats, borrowed) as the CPU data. As in Caffe, if the
 * data memory is not exactly count floats, data and diff are replaced by
 * fresh ones of that size first. */
void ct_blob_set_cpu_data (CtBlob *blob, float *data);
void ct_blob_set_gpu_data (CtBlob *blob, float *data);

/* Copy SOURCE's data (or diff, with CT_BLOB_COPY_DIFF) into this blob's.
 * The shapes must be equal unless CT_BLOB_COPY_RESHAPE is given. */
gboolean ct_blob_copy_from (CtBlob *blob, CtBlob *source, CtBlobCopyFlags flags, GError **error);

/* Make this blob's data (diff) OTHER's, shared: both see every write. The
 * counts must be equal. */
gboolean ct_blob_share_data (CtBlob *blob, const CtBlob *other, GError **error);
gboolean ct_blob_share_diff (CtBlob *blob, const CtBlob *other, GError **error);

/* data -= diff, on the side where the data's head is. */
gboolean ct_blob_update (CtBlob *blob, GError **error);

/* L1 norm, squared L2 norm and in-place scaling of data or diff, on the
 * side where the head is; a memory never written counts as zeros. */
float ct_blob_asum_data (CtBlob *blob, GError **error);
float ct_blob_asum_diff (CtBlob *blob, GError **error);
float ct_blob_sumsq_data (CtBlob *blob, GError **error);
float ct_blob_sumsq_diff (CtBlob *blob, GError **error);
gboolean ct_blob_scale_data (CtBlob *blob, float scale_factor, GError **error);
gboolean ct_blob_scale_diff (CtBlob *blob, float scale_factor, GError **error);

/* Load PROTO: its shape (or legacy num/channels/height/width), then data
 * and diff from the float or double fields. Without RESHAPE the blob's
 * shape must already equal the proto's (ct_blob_shape_equals). The value
 * counts must equal the element count (diff may be absent). On error the
 * blob is unchanged. */
gboolean ct_blob_from_proto (CtBlob *blob, const Caffe__BlobProto *proto, gboolean reshape,
                             GError **error);

/* A new BlobProto with the shape and data (and diff) as FLAGS ask; free it
 * with protobuf_c_message_free_unpacked ((ProtobufCMessage *) proto, NULL). */
Caffe__BlobProto *ct_blob_to_proto (CtBlob *blob, CtBlobProtoFlags flags, GError **error);

/* Caffe's ShapeEquals: a proto with any legacy field set compares as the
 * 4-D shape (num, channels, height, width) against the blob's legacy view
 * (at most 4 axes, missing leading axes 1); otherwise the N-D shapes must be
 * identical. */
gboolean ct_blob_shape_equals (const CtBlob *blob, const Caffe__BlobProto *proto);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtBlob, ct_blob_free)

G_END_DECLS
