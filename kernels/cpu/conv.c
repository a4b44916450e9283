/* cpu/conv.c: the CPU side of conv.h, on im2col (im2col.h) and OpenBLAS.
 *
 * The images are cut into chunks that the pool's threads take (parallel.h).
 * A chunk walks its images in sub-batches: with few output positions per
 * image, several images' column matrices sit side by side in one matrix, so
 * that each product is large enough for BLAS to run at speed; one image is
 * multiplied straight into the output (and, with a 1x1 kernel, straight from
 * the input). Spatial shapes other than 2-D go one image at a time through
 * the N-D im2col.
 *
 * The workspace holds one scratch slot per thread that can run at once
 * (a chunk claims a free slot and gives it back), and for the backward pass
 * the parameter gradients of every chunk after the first, added in chunk
 * order at the end so that results repeat.
 *
 * On CPUs with AVX-512, 2-D shapes with small planes run their forward
 * pass and input gradient on column tiles kept in the L1 cache
 * (cpu/conv-tiles.c) instead of whole column matrices and BLAS; first
 * layers (a few input channels, stride 1) run their forward pass straight
 * from the images (cpu/conv-direct.c), ahead of oneDNN.
 *
 * In builds with oneDNN, each call first offers its shape to
 * cpu/conv-dnnl.c and runs here only when that declines; 1x1 kernels at a
 * stride run as the stride-1 convolution of their samples
 * (cpu/conv-sampled.c). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "common.h"
#include "conv-direct.h"
#include "conv-tiles.h"
#include "conv.h"
#include "parallel.h"
#ifdef CT_HAVE_DNNL
#include "conv-dnnl.h"
#include "conv-sampled.h"
#include "switches.h"
#endif

/* The floats a sub-batch's column matrix and output rows may take (128
 * KiB): small enough to stay in a core's L2 cache between im2col and the
 * product, so that only images with very few output positions are
 * multiplied several at a time (larger ones are slower: PERFORMANCE.md). */
#define SUB_BATCH_FLOATS ((int64_t) 1 << 15)

/* What a shape needs, worked out once per call. */
typedef struct {
  int64_t positions;   /* output positions per image: prod (out_dims) */
  int64_t kernel_dim;  /* weights per output channel: in / group * prod (kernel) */
  int64_t col_rows;    /* rows of the column matrix: kernel_dim * group */
  int64_t in_dim, out_dim;  /* floats per image */
  int64_t params;      /* weights then bias: one chunk's parameter gradient */
  int one_by_one;      /* the column matrix is the input itself */
  int two_d;           /* the 2-D im2col, which can put images side by side */
} Plan;

/* How a pass cuts the batch. */
typedef struct {
  int chunks;
  int slots;           /* scratch slots: threads that may run chunks at once */
  int64_t sub_batch;   /* images per sub-batch */
  size_t slot_floats;
} Split;

static int
mul_ok (int64_t a, int64_t b, int64_t *out)
{
  return !__builtin_mul_overflow (a, b, out);
}

static int
plan_shape (const CtConvShape *s, Plan *p)
{
  int64_t in_spatial = 1, kernel_size = 1;

  memset (p, 0, sizeof *p);
  if (s->num < 0 || s->in_channels <= 0 || s->out_channels <= 0 || s->group <= 0
      || s->in_channels % s->group != 0 || s->out_channels % s->group != 0
      || s->num_spatial_axes < 0 || s->num_spatial_axes > CT_IM2COL_MAX_AXES)
    return 0;
  p->positions = 1;
  p->one_by_one = 1;
  for (int i = 0; i < s->num_spatial_axes; i++)
    {
      if (s->in_dims[i] <= 0 || s->out_dims[i] <= 0 || s->kernel[i] <= 0 || s->pad[i] < 0
          || s->stride[i] <= 0 || s->dilation[i] <= 0
          || !mul_ok (in_spatial, s->in_dims[i], &in_spatial)
          || !mul_ok (p->positions, s->out_dims[i], &p->positions)
          || !mul_ok (kernel_size, s->kernel[i], &kernel_size))
        return 0;
      if (s->kernel[i] != 1 || s->stride[i] != 1 || s->pad[i] != 0)
        p->one_by_one = 0;
    }
  if (p->one_by_one && in_spatial != p->positions)
    return 0;
  p->two_d = s->num_spatial_axes == 2;
  return mul_ok (s->in_channels / s->group, kernel_size, &p->kernel_dim)
         && mul_ok (p->kernel_dim, s->group, &p->col_rows)
         && mul_ok (s->in_channels, in_spatial, &p->in_dim)
         && mul_ok (s->out_channels, p->positions, &p->out_dim)
         && mul_ok (s->out_channels, p->kernel_dim, &p->params)
         && !__builtin_add_overflow (p->params, s->out_channels, &p->params)
         && (int64_t) (p->col_rows + s->out_channels) < INT64_MAX / p->positions;
}

/* CHUNKS chunks of the batch; sub-batches as large as SUB_BATCH_FLOATS
 * allows (at least one image) where images can sit side by side. */
static void
plan_split (const CtConvShape *s, const Plan *p, int chunks, Split *split)
{
  int64_t per_image = (p->col_rows + s->out_channels) * p->positions;
  int64_t fit = SUB_BATCH_FLOATS / per_image;
  int threads = ct_cpu_num_threads ();

  split->chunks = chunks;
  split->slots = chunks < threads ? chunks : threads;
  split->sub_batch = 1;
  if (p->one_by_one || p->two_d)
    {
      int64_t per_chunk = (s->num + chunks - 1) / chunks;

      split->sub_batch = fit < 1 ? 1 : fit;
      if (split->sub_batch > per_chunk)
        split->sub_batch = per_chunk;
    }
  split->slot_floats = (size_t) (per_image * split->sub_batch);
}

static void
plan_forward (const CtConvShape *s, const Plan *p, Split *split)
{
  plan_split (s, p, ct_cpu_parallel_chunks (s->num, 1), split);
}

/* One chunk per thread: each chunk after the first keeps its own parameter
 * gradient, added at the end. */
static void
plan_backward (const CtConvShape *s, const Plan *p, Split *split)
{
  int threads = ct_cpu_num_threads ();

  plan_split (s, p, s->num < threads ? (int) s->num : threads, split);
}

static size_t
backward_partials (const Plan *p, const Split *split)
{
  return (size_t) (split->chunks - 1) * (size_t) p->params;
}

/* The backend (CtConvBackend); -1 until the environment has been read. */
static atomic_int backend = -1;

static CtConvBackend
get_backend (void)
{
  int b = atomic_load (&backend);

  if (b < 0)
    {
      const char *env = getenv ("CT_CONV_BACKEND");

      b = env == NULL                    ? CT_CONV_BACKEND_AUTO
          : strcmp (env, "im2col") == 0 ? CT_CONV_BACKEND_IM2COL
          : strcmp (env, "dnnl") == 0   ? CT_CONV_BACKEND_DNNL
                                        : CT_CONV_BACKEND_AUTO;
      atomic_store (&backend, b);
    }
  return (CtConvBackend) b;
}

int
ct_cpu_conv_uses_dnnl (void)
{
#ifdef CT_HAVE_DNNL
  return get_backend () != CT_CONV_BACKEND_IM2COL;
#else
  return 0;
#endif
}

/* Whether oneDNN is to run every shape it can (tests). */
static int
dnnl_forced (void)
{
  return get_backend () == CT_CONV_BACKEND_DNNL;
}

#ifdef CT_HAVE_DNNL
static int
use_dnnl (void)
{
  CtConvBackend b = get_backend ();

  ct_dnnl_conv_set_forced (b == CT_CONV_BACKEND_DNNL);
  return b != CT_CONV_BACKEND_IM2COL;
}
#endif

CtConvBackend
ct_cpu_conv_set_backend (CtConvBackend b)
{
  CtConvBackend old = get_backend ();

  atomic_store (&backend, (int) b);
  return old;
}

int
ct_cpu_conv_have_dnnl (void)
{
#ifdef CT_HAVE_DNNL
  return 1;
#else
  return 0;
#endif
}

#ifdef CT_HAVE_DNNL
/* Whether S runs over its samples (cpu/conv-sampled.c) as SUB: in the
 * automatic backend only. The plain im2col path's column matrix is the
 * samples already, and a forced oneDNN is to run every shape it takes. */
static int
sampled (const CtConvShape *s, CtConvShape *sub)
{
  return get_backend () == CT_CONV_BACKEND_AUTO && ct_conv_sampled_shape (s, sub);
}

/* The samples, in the backward pass their gradient too, then SUB's own. */
static size_t
sampled_workspace_floats (const CtConvShape *s, const CtConvShape *sub, unsigned passes)
{
  size_t samples = ct_conv_sampled_floats (s);
  size_t floats = 1, pass;

  if (passes & CT_CONV_PASS_FORWARD)
    {
      pass = samples + ct_cpu_conv_workspace_floats_for (sub, CT_CONV_PASS_FORWARD);
      floats = pass > floats ? pass : floats;
    }
  if (passes & CT_CONV_PASS_BACKWARD)
    {
      pass = 2 * samples + ct_cpu_conv_workspace_floats_for (sub, CT_CONV_PASS_BACKWARD);
      floats = pass > floats ? pass : floats;
    }
  return floats;
}
#endif

/* The im2col path's workspace for PASSES; 1 float at least for a valid
 * shape (0 for an invalid one), so that callers can tell the two apart. */
static size_t
im2col_workspace_floats (const CtConvShape *s, unsigned passes)
{
  Plan p;
  Split f, b;
  size_t floats = 1;

  if (!plan_shape (s, &p) || s->num == 0)
    return 0;
  if (passes & CT_CONV_PASS_FORWARD)
    {
      size_t forward;

      plan_forward (s, &p, &f);
      forward = (size_t) f.slots * f.slot_floats;
      floats = forward > floats ? forward : floats;
    }
  if (passes & CT_CONV_PASS_BACKWARD)
    {
      size_t backward;

      plan_backward (s, &p, &b);
      backward = (size_t) b.slots * b.slot_floats + backward_partials (&p, &b);
      floats = backward > floats ? backward : floats;
    }
  return floats;
}

size_t
ct_cpu_conv_workspace_floats_for (const CtConvShape *s, unsigned passes)
{
  size_t floats = im2col_workspace_floats (s, passes);
#ifdef CT_HAVE_DNNL
  size_t dnnl;
  CtConvShape sub;

  use_dnnl ();   /* sets whether oneDNN is forced, which decides its passes */
  if (floats > 0 && sampled (s, &sub))
    return sampled_workspace_floats (s, &sub, passes);
  dnnl = floats > 0 ? ct_dnnl_conv_workspace_floats (s, passes) : 0;

  if (dnnl > floats)
    floats = dnnl;
#endif
  return floats;
}

size_t
ct_cpu_conv_workspace_floats (const CtConvShape *s)
{
  return ct_cpu_conv_workspace_floats_for (s, CT_CONV_PASS_FORWARD | CT_CONV_PASS_BACKWARD);
}

typedef struct {
  const CtConvShape *s;
  Plan p;
  Split split;
  const float *input, *weights, *bias, *output_diff;
  float *output, *weight_diff, *bias_diff, *input_diff;
  float *slots;      /* split.slots slots of split.slot_floats */
  float *partials;   /* per chunk after the first: weight then bias gradient */
  int on_tiles;      /* the forward pass, or the input gradient, runs on tiles */
  CtConvTiles tiles;
  int on_direct;     /* the forward pass runs on cpu/conv-direct.c */
  CtConvDirect direct;
  atomic_uint_fast64_t busy;  /* one bit per slot in use */
  CtStatus status[CT_PARALLEL_MAX_CHUNKS];
} Job;

/* The slot this thread took last: the pool's threads live on, and the
 * caller passes the same workspace call after call, so a thread that takes
 * its own slot again finds it in its core's cache. Only a hint. */
static _Thread_local int preferred_slot;

/* A free scratch slot. At most split.slots chunks run at once, so one is
 * always free, or about to be. */
static int
claim_slot (Job *j)
{
  for (;;)
    for (int k = 0; k < j->split.slots; k++)
      {
        int i = (preferred_slot + k) % j->split.slots;
        uint_fast64_t bit = (uint_fast64_t) 1 << i;

        if ((atomic_fetch_or (&j->busy, bit) & bit) == 0)
          return preferred_slot = i;
      }
}

static void
release_slot (Job *j, int slot)
{
  atomic_fetch_and (&j->busy, ~((uint_fast64_t) 1 << slot));
}

/* Between NB images and their column matrix, the images side by side
 * (rows NB * P floats long): im2col from the images SRC into DST when
 * TO_COL, else col2im from the column matrix SRC into the images DST. (With
 * one image and a 1x1 kernel the callers use the image itself instead.) */
static CtStatus
sub_batch_columns (const Job *j, int to_col, const float *src, int64_t nb, float *dst)
{
  const CtConvShape *s = j->s;
  const int64_t p = j->p.positions;
  int64_t im_shape[CT_IM2COL_MAX_AXES + 1], col_shape[CT_IM2COL_MAX_AXES + 1];
  CtStatus status = CT_STATUS_OK;

  if (j->p.one_by_one)
    return to_col ? ct_cpu_batch_pack (nb, j->p.col_rows, p, src, dst, NULL)
                  : ct_cpu_batch_unpack (nb, j->p.col_rows, p, src, NULL, dst);
  if (!j->p.two_d)
    {
      im_shape[0] = s->in_channels;
      col_shape[0] = j->p.col_rows;
      memcpy (im_shape + 1, s->in_dims, (size_t) s->num_spatial_axes * sizeof (int64_t));
      memcpy (col_shape + 1, s->out_dims, (size_t) s->num_spatial_axes * sizeof (int64_t));
      return (to_col ? ct_cpu_im2col_nd : ct_cpu_col2im_nd) (src, s->num_spatial_axes, im_shape,
                                                             col_shape, s->kernel, s->pad,
                                                             s->stride, s->dilation, dst);
    }
  for (int64_t i = 0; i < nb && status == CT_STATUS_OK; i++)
    if (to_col)
      status = ct_cpu_im2col_ld (src + i * j->p.in_dim, s->in_channels,
                                 s->in_dims[0], s->in_dims[1], s->kernel[0], s->kernel[1],
                                 s->pad[0], s->pad[1], s->stride[0], s->stride[1],
                                 s->dilation[0], s->dilation[1], dst + i * p, nb * p);
    else
      status = ct_cpu_col2im_ld (src + i * p, nb * p, s->in_channels,
                                 s->in_dims[0], s->in_dims[1], s->kernel[0], s->kernel[1],
                                 s->pad[0], s->pad[1], s->stride[0], s->stride[1],
                                 s->dilation[0], s->dilation[1], dst + i * j->p.in_dim);
  return status;
}

/* Forward of images [N, N + NB). One image is multiplied straight into
 * the output (and, with a 1x1 kernel, straight from the input); several go
 * through the column and row matrices of SCRATCH. */
static CtStatus
forward_sub_batch (const Job *j, int64_t n, int64_t nb, float *scratch)
{
  const CtConvShape *s = j->s;
  const int64_t m = s->out_channels / s->group, k = j->p.kernel_dim;
  const int64_t ld = nb * j->p.positions;
  const float *input = j->input + n * j->p.in_dim;
  float *output = j->output + n * j->p.out_dim;
  const float *col = scratch;
  float *rows = nb == 1 ? output : scratch + j->p.col_rows * ld;
  CtStatus status = CT_STATUS_OK;

  if (j->on_direct)
    {
      ct_conv_direct_forward (&j->direct, s, nb, input, j->weights, j->bias, output, scratch);
      return CT_STATUS_OK;
    }
  if (j->on_tiles)
    {
      for (int64_t i = 0; i < nb; i++)
        ct_conv_tiles_forward (&j->tiles, s, input + i * j->p.in_dim, j->weights, j->bias,
                               output + i * j->p.out_dim, scratch);
      return CT_STATUS_OK;
    }
  if (nb == 1 && j->p.one_by_one)
    col = input;
  else
    status = sub_batch_columns (j, 1, input, nb, scratch);
  for (int64_t g = 0; g < s->group && status == CT_STATUS_OK; g++)
    status = ct_cpu_gemm (CT_NO_TRANS, CT_NO_TRANS, m, ld, k, 1.0f, j->weights + m * k * g,
                          col + g * k * ld, 0.0f, rows + g * m * ld);
  if (status != CT_STATUS_OK)
    return status;
  /* The bias is added as Caffe adds it: one rounding per element. */
  if (nb == 1)
    return j->bias != NULL ? ct_cpu_bias_forward (1, s->out_channels, j->p.positions, output,
                                                  j->bias, output)
                           : CT_STATUS_OK;
  return ct_cpu_batch_unpack (nb, s->out_channels, j->p.positions, rows, j->bias, output);
}

/* Backward of images [N, N + NB): parameter gradients added to
 * WEIGHT_DIFF and BIAS_DIFF (either may be NULL), the input gradient
 * written. */
static CtStatus
backward_sub_batch (const Job *j, int64_t n, int64_t nb, float *scratch, float *weight_diff,
                    float *bias_diff)
{
  const CtConvShape *s = j->s;
  const int64_t m = s->out_channels / s->group, k = j->p.kernel_dim;
  const int64_t p = j->p.positions, ld = nb * p;
  const float *top_diff = j->output_diff + n * j->p.out_dim;
  float *input_diff = j->input_diff != NULL ? j->input_diff + n * j->p.in_dim : NULL;
  float *col = scratch;
  const float *rows = top_diff;
  CtStatus status = CT_STATUS_OK;

  /* The output diff as one matrix (the image itself when alone); the bias
   * gradient is its row sums. */
  if (nb > 1)
    {
      float *packed = scratch + j->p.col_rows * ld;

      status = ct_cpu_batch_pack (nb, s->out_channels, p, top_diff, packed, bias_diff);
      rows = packed;
    }
  else if (bias_diff != NULL)
    status = ct_cpu_bias_backward (1, s->out_channels, p, top_diff, 1, bias_diff);

  if (status == CT_STATUS_OK && weight_diff != NULL)
    {
      const float *input = j->input + n * j->p.in_dim;
      const float *in_col = col;

      if (nb == 1 && j->p.one_by_one)
        in_col = input;
      else
        status = sub_batch_columns (j, 1, input, nb, col);
      for (int64_t g = 0; g < s->group && status == CT_STATUS_OK; g++)
        status = ct_cpu_gemm (CT_NO_TRANS, CT_TRANS, m, k, ld, 1.0f, rows + g * m * ld,
                              in_col + g * k * ld, 1.0f, weight_diff + m * k * g);
    }
  if (status != CT_STATUS_OK || input_diff == NULL)
    return status;

  if (j->on_tiles)
    {
      for (int64_t i = 0; i < nb; i++)
        ct_conv_tiles_backward_data (&j->tiles, s, top_diff + i * j->p.out_dim, j->weights,
                                     input_diff + i * j->p.in_dim, scratch);
      return CT_STATUS_OK;
    }
  if (nb == 1 && j->p.one_by_one)
    col = input_diff;
  for (int64_t g = 0; g < s->group && status == CT_STATUS_OK; g++)
    status = ct_cpu_gemm (CT_TRANS, CT_NO_TRANS, k, ld, m, 1.0f, j->weights + m * k * g,
                          rows + g * m * ld, 0.0f, col + g * k * ld);
  if (status != CT_STATUS_OK || (nb == 1 && j->p.one_by_one))
    return status;
  return sub_batch_columns (j, 0, col, nb, input_diff);
}

static void
forward_chunk (int64_t begin, int64_t end, int chunk, void *data)
{
  Job *j = data;
  int slot = claim_slot (j);
  float *scratch = j->slots + (size_t) slot * j->split.slot_floats;
  CtStatus status = CT_STATUS_OK;

  for (int64_t n = begin; n < end && status == CT_STATUS_OK; n += j->split.sub_batch)
    status = forward_sub_batch (j, n, end - n < j->split.sub_batch ? end - n
                                                                    : j->split.sub_batch,
                                scratch);
  release_slot (j, slot);
  j->status[chunk] = status;
}

static void
backward_chunk (int64_t begin, int64_t end, int chunk, void *data)
{
  Job *j = data;
  int slot = claim_slot (j);
  float *scratch = j->slots + (size_t) slot * j->split.slot_floats;
  float *weight_diff = j->weight_diff, *bias_diff = j->bias_diff;
  const int64_t weights = j->p.params - j->s->out_channels;
  CtStatus status = CT_STATUS_OK;

  /* Chunk 0 adds into the gradients; the others into their own partial
   * sums, added in chunk order afterwards so that results repeat. */
  if (chunk > 0 && (weight_diff != NULL || bias_diff != NULL))
    {
      float *part = j->partials + (chunk - 1) * j->p.params;

      memset (part, 0, (size_t) j->p.params * sizeof (float));
      weight_diff = weight_diff != NULL ? part : NULL;
      bias_diff = bias_diff != NULL ? part + weights : NULL;
    }
  for (int64_t n = begin; n < end && status == CT_STATUS_OK; n += j->split.sub_batch)
    status = backward_sub_batch (j, n, end - n < j->split.sub_batch ? end - n
                                                                     : j->split.sub_batch,
                                 scratch, weight_diff, bias_diff);
  release_slot (j, slot);
  j->status[chunk] = status;
}

/* Runs FUNC over the batch: in the split's chunks on the pool's threads,
 * or as one chunk in this thread (where the products themselves may then
 * use the threads). */
static CtStatus
run_chunks (Job *j, CtParallelFunc func)
{
  CtStatus status = CT_STATUS_OK;

  atomic_init (&j->busy, 0);
  if (j->split.chunks > 1)
    ct_cpu_parallel_for_chunks (j->s->num, j->split.chunks, func, j);
  else
    func (0, j->s->num, 0, j);
  for (int c = 0; c < j->split.chunks && status == CT_STATUS_OK; c++)
    status = j->status[c];
  return status;
}

#ifdef CT_HAVE_DNNL
static CtStatus
sampled_forward (const CtConvShape *s, const CtConvShape *sub, const float *input,
                 const float *weights, const float *bias, float *output, float *workspace)
{
  ct_conv_sampled_gather (s, input, workspace);
  return ct_cpu_conv_forward (sub, workspace, weights, bias, output,
                              workspace + ct_conv_sampled_floats (s));
}

/* The samples are gathered again for the weight gradient: a forward pass
 * that kept them would hold a quarter of the input per layer. */
static CtStatus
sampled_backward (const CtConvShape *s, const CtConvShape *sub, const float *input,
                  const float *output_diff, const float *weights, float *weight_diff,
                  float *bias_diff, float *input_diff, float *workspace)
{
  const size_t n = ct_conv_sampled_floats (s);
  float *samples = workspace, *samples_diff = workspace + n;
  CtStatus status;

  if (weight_diff != NULL)
    ct_conv_sampled_gather (s, input, samples);
  status = ct_cpu_conv_backward (sub, samples, output_diff, weights, weight_diff, bias_diff,
                                 input_diff != NULL ? samples_diff : NULL, workspace + 2 * n);
  if (status == CT_STATUS_OK && input_diff != NULL)
    ct_conv_sampled_scatter (s, samples_diff, input_diff);
  return status;
}
#endif

CtStatus
ct_cpu_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                     const float *bias, float *output, float *workspace)
{
  Job j = { .s = s, .input = input, .weights = weights, .bias = bias, .output = output,
            .slots = workspace };

  if (!plan_shape (s, &j.p))
    return CT_STATUS_INVALID;
  if (s->num == 0)
    return CT_STATUS_OK;
#ifdef CT_HAVE_DNNL
  {
    CtConvShape sub;

    if (use_dnnl () && sampled (s, &sub))
      return sampled_forward (s, &sub, input, weights, bias, output, workspace);
  }
#endif
  plan_forward (s, &j.p, &j.split);
  /* A first layer's forward pass runs direct, ahead of oneDNN. */
  j.on_direct = !dnnl_forced () && ct_conv_direct_plan (s, &j.direct)
                && ct_conv_direct_forward_floats (&j.direct, s) <= j.split.slot_floats;
#ifdef CT_HAVE_DNNL
  if (!j.on_direct && use_dnnl ())
    {
      CtStatus st = ct_dnnl_conv_forward (s, input, weights, bias, output, workspace);

      if (st != CT_DNNL_DECLINED)
        return st;
    }
#endif
  j.on_tiles = !j.on_direct && !j.p.one_by_one && ct_conv_tiles_plan (s, &j.tiles)
               && ct_conv_tiles_tile_floats (&j.tiles) <= j.split.slot_floats;
  return run_chunks (&j, forward_chunk);
}

CtStatus
ct_cpu_conv_backward (const CtConvShape *s, const float *input, const float *output_diff,
                      const float *weights, float *weight_diff, float *bias_diff,
                      float *input_diff, float *workspace)
{
  Job j = { .s = s, .input = input, .output_diff = output_diff, .weights = weights,
            .weight_diff = weight_diff, .bias_diff = bias_diff, .input_diff = input_diff };
  int64_t weights_size;
  CtStatus status;

  if (!plan_shape (s, &j.p))
    return CT_STATUS_INVALID;
  weights_size = j.p.params - s->out_channels;
  if (s->num == 0 || (weight_diff == NULL && bias_diff == NULL && input_diff == NULL))
    return CT_STATUS_OK;
#ifdef CT_HAVE_DNNL
  /* oneDNN takes the passes it runs faster; this path runs the rest. */
  if (use_dnnl ())
    {
      CtConvShape sub;
      int data = input_diff != NULL && ct_dnnl_conv_takes (s, CT_DNNL_BACKWARD_DATA);
      int params = (weight_diff != NULL || bias_diff != NULL)
                   && ct_dnnl_conv_takes (s, CT_DNNL_BACKWARD_WEIGHTS);
      CtStatus st = CT_DNNL_DECLINED;

      if (sampled (s, &sub))
        return sampled_backward (s, &sub, input, output_diff, weights, weight_diff, bias_diff,
                                 input_diff, workspace);
      if (data || params)
        st = ct_dnnl_conv_backward (s, input, output_diff, weights,
                                    params ? weight_diff : NULL, params ? bias_diff : NULL,
                                    data ? input_diff : NULL, workspace);
      if (st != CT_DNNL_DECLINED && st != CT_STATUS_OK)
        return st;
      if (st == CT_STATUS_OK)
        {
          if (params)
            weight_diff = NULL, bias_diff = NULL;
          if (data)
            input_diff = NULL;
          if (weight_diff == NULL && bias_diff == NULL && input_diff == NULL)
            return CT_STATUS_OK;
        }
    }
#endif
  j.weight_diff = weight_diff;
  j.bias_diff = bias_diff;
  j.input_diff = input_diff;
  plan_backward (s, &j.p, &j.split);
  j.partials = workspace;
  j.slots = workspace + backward_partials (&j.p, &j.split);
  j.on_tiles = input_diff != NULL && !j.p.one_by_one && ct_conv_tiles_plan (s, &j.tiles)
               && j.tiles.rows_per_tile == s->out_dims[0]
               && ct_conv_tiles_tile_floats (&j.tiles) <= j.split.slot_floats;
  if ((status = run_chunks (&j, backward_chunk)) != CT_STATUS_OK)
    return status;
  for (int c = 1; c < j.split.chunks; c++)
    {
      const float *part = j.partials + (c - 1) * j.p.params;

      if (weight_diff != NULL)
        ct_cpu_axpy (weights_size, 1.0f, part, weight_diff);
      if (bias_diff != NULL)
        ct_cpu_axpy (s->out_channels, 1.0f, part + weights_size, bias_diff);
    }
  return CT_STATUS_OK;
}

CtStatus
ct_cpu_conv_bias_forward (int64_t num, int64_t channels, int64_t spatial, const float *bias,
                          float *data)
{
  return ct_cpu_bias_forward (num, channels, spatial, data, bias, data);
}

CtStatus
ct_cpu_conv_bias_backward (int64_t num, int64_t channels, int64_t spatial, const float *diff,
                           float *bias_diff)
{
  return ct_cpu_bias_backward (num, channels, spatial, diff, 1, bias_diff);
}
