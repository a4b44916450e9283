/* cpu/conv-dnnl.c: 2-D convolutions (groups, padding, stride, dilation) on
 * oneDNN's direct convolution, forward, backward-data and backward-weights,
 * through its C API. Never Winograd: the direct algorithm keeps every sum
 * exact up to its order, inside the conformance contract.
 *
 * Threads. Cortado's pool (parallel.h) stays the one runtime: the batch is
 * cut into one chunk of images per pool thread, and each chunk runs its
 * primitives on one OpenMP thread (omp_set_num_threads (1) in that thread,
 * before the primitive is created: oneDNN fixes a primitive's thread count
 * then), so libgomp never starts a team of its own that would spin beside
 * the pool on the same cores; OpenBLAS already runs at one thread under
 * the pool. Weight and bias gradients are kept per chunk and added in
 * chunk order, so results repeat for a given thread count. A batch with
 * fewer images than threads is declined (cpu/conv.c then splits its
 * products by columns). CT_DNNL_THREADS=omp instead runs the whole batch
 * in the calling thread on a team of ct_cpu_num_threads () OpenMP threads:
 * a switch for measuring the two, not for use: the convolutions take the
 * same time either way, but the team's spinning thread slows the pool's
 * passes after them (PERFORMANCE.md).
 *
 * Layouts. The engine's blobs are NCHW and its weights OIHW (GOIHW with
 * groups). The primitives are created with "any" layouts, so that oneDNN
 * picks its blocked layouts (nChw16c ...) and AVX-512 kernels; the data are
 * reordered into the workspace before and out of it after. That pays:
 * with the plain layouts forced (CT_DNNL_LAYOUT=plain, again only to
 * measure) oneDNN falls back to its own im2col.
 *
 * Cache. Kernels never allocate on the hot path: every thread keeps its own
 * cache of plans (primitive, reorders, memory objects), one per shape, pass
 * and chunk size, created the first time that thread meets it and freed
 * when the thread ends. Nothing is shared between threads but the engine,
 * so there are no locks. ct_dnnl_conv_workspace_floats builds the calling
 * thread's plans; the pool's threads build theirs in the first pass. The
 * reorder buffers and oneDNN's scratchpads (user mode) live in the caller's
 * workspace, one region per chunk. */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "blas.h"
#include "common.h"
#include "conv-dnnl.h"
#include "parallel.h"

#define PASS_FORWARD CT_DNNL_FORWARD
#define PASS_BACKWARD_DATA CT_DNNL_BACKWARD_DATA
#define PASS_BACKWARD_WEIGHTS CT_DNNL_BACKWARD_WEIGHTS

/* A plan's key: pass, threads, bias, layout, then the chunk's shape. */
#define KEY_LEN 20
#define MAX_ARGS 6
/* Buffers in a region start on cache lines: 16 floats. */
#define ALIGN_FLOATS 16
/* Input channels that count as a first layer's (see ct_dnnl_conv_takes). */
#define SMALL_INPUT_CHANNELS 4

typedef struct {
  int dnnl_arg;
  int output;               /* written by the primitive */
  dnnl_memory_t user;       /* the caller's memory, NULL for the scratchpad */
  dnnl_memory_t prim;       /* the primitive's, in the region; NULL when USER serves */
  dnnl_primitive_t reorder; /* between USER and PRIM */
  size_t offset;            /* of PRIM in the region, in floats */
} Arg;

typedef struct {
  int64_t key[KEY_LEN];
  uint64_t hash;
  int ok;                   /* 0: oneDNN does not take this one */
  dnnl_primitive_t prim;
  int nargs;
  Arg args[MAX_ARGS];
  size_t floats;            /* region floats: reorder buffers and scratchpad */
} Plan;

typedef struct {
  dnnl_stream_t stream;
  Plan **plans;
  size_t n_plans, capacity;
} ThreadCache;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static dnnl_engine_t engine;
static pthread_key_t cache_key;
static int use_omp_team;
static int use_plain_layout;
static atomic_int forced;

void
ct_dnnl_conv_set_forced (int f)
{
  atomic_store (&forced, f);
}

static void
plan_free (Plan *p)
{
  for (int i = 0; i < p->nargs; i++)
    {
      if (p->args[i].user != NULL)
        dnnl_memory_destroy (p->args[i].user);
      if (p->args[i].prim != NULL)
        dnnl_memory_destroy (p->args[i].prim);
      if (p->args[i].reorder != NULL)
        dnnl_primitive_destroy (p->args[i].reorder);
    }
  if (p->prim != NULL)
    dnnl_primitive_destroy (p->prim);
  free (p);
}

static void
cache_free (void *data)
{
  ThreadCache *c = data;

  for (size_t i = 0; i < c->n_plans; i++)
    plan_free (c->plans[i]);
  free (c->plans);
  if (c->stream != NULL)
    dnnl_stream_destroy (c->stream);
  free (c);
}

static void
init (void)
{
  const char *threads = getenv ("CT_DNNL_THREADS");
  const char *layout = getenv ("CT_DNNL_LAYOUT");

  if (dnnl_engine_create (&engine, dnnl_cpu, 0) != dnnl_success)
    engine = NULL;
  pthread_key_create (&cache_key, cache_free);
  use_omp_team = threads != NULL && strcmp (threads, "omp") == 0;
  use_plain_layout = layout != NULL && strcmp (layout, "plain") == 0;
}

static ThreadCache *
thread_cache (void)
{
  ThreadCache *c;

  pthread_once (&init_once, init);
  if (engine == NULL)
    return NULL;
  if ((c = pthread_getspecific (cache_key)) != NULL)
    return c;
  if ((c = calloc (1, sizeof *c)) == NULL)
    return NULL;
  if (dnnl_stream_create (&c->stream, engine, dnnl_stream_default_flags) != dnnl_success)
    {
      free (c);
      return NULL;
    }
  pthread_setspecific (cache_key, c);
  return c;
}

/* oneDNN takes 2-D shapes whose right padding (what the last window needs
 * beyond the input) is not negative; Caffe's rule can leave rows out. */
static int
shape_taken (const CtConvShape *s)
{
  if (s->num_spatial_axes != 2 || s->num <= 0 || s->group <= 0
      || s->in_channels % s->group != 0 || s->out_channels % s->group != 0)
    return 0;
  for (int i = 0; i < 2; i++)
    {
      int64_t ext = s->dilation[i] * (s->kernel[i] - 1) + 1;

      if (s->in_dims[i] <= 0 || s->out_dims[i] <= 0 || s->kernel[i] <= 0 || s->pad[i] < 0
          || s->stride[i] <= 0 || s->dilation[i] <= 0
          || (s->out_dims[i] - 1) * s->stride[i] + ext - s->in_dims[i] - s->pad[i] < 0
          || (s->in_dims[i] + 2 * s->pad[i] - ext) / s->stride[i] + 1 != s->out_dims[i])
        return 0;
    }
  return 1;
}

/* oneDNN's blocked kernels work on 16 channels at a time: other channel
 * counts are padded, and the padding's multiply-adds are wasted (LeNet's
 * conv1, 1 -> 20, gains nothing). From 16 channels in and out, and at
 * most PADDING_WASTE times the multiply-adds, the direct convolution beats
 * im2col (LeNet's conv2, 20 -> 50, padded 32 -> 64, does not). An input of
 * a few channels (a first layer) has kernels of its own, forward and for
 * the weights, which beat im2col at strides 1 and 2; at stride 4 only the
 * forward pass does, and training never needs the data gradient there.
 * (At stride 1, cpu/conv.c runs a first layer's forward pass on
 * cpu/conv-direct.c before it asks here.) PERFORMANCE.md has the figures. */
#define PADDING_WASTE 1.5

/* A 1x1 kernel at stride 1 without padding is, per image, one product
 * on the NCHW blob as it is (cpu/conv.c), while oneDNN first reorders
 * the input into its blocked layout and the output back: from planes of
 * 14 x 14 the product wins, on smaller ones oneDNN (PERFORMANCE.md). */
#define POINTWISE_PRODUCT_POSITIONS 196

static int
pointwise_product_wins (const CtConvShape *s)
{
  for (int i = 0; i < 2; i++)
    if (s->kernel[i] != 1 || s->stride[i] != 1 || s->pad[i] != 0)
      return 0;
  return s->out_dims[0] * s->out_dims[1] >= POINTWISE_PRODUCT_POSITIONS;
}

/* Channels as oneDNN's blocked layouts hold them. */
static int64_t
padded (int64_t channels)
{
  return (channels + 15) / 16 * 16;
}

int
ct_dnnl_conv_takes (const CtConvShape *s, int pass)
{
  int64_t in = s->group > 0 ? s->in_channels / s->group : 0;
  int64_t out = s->group > 0 ? s->out_channels / s->group : 0;

  if (!shape_taken (s))
    return 0;
  if (atomic_load (&forced))
    return 1;
  if (pointwise_product_wins (s))
    return 0;
  if (in >= 16 && out >= 16)
    return padded (in) * padded (out) <= PADDING_WASTE * (double) (in * out);
  if (out % 16 != 0)
    return 0;
  if (in > SMALL_INPUT_CHANNELS)
    return 0;
  return pass == PASS_FORWARD
         || (pass == PASS_BACKWARD_WEIGHTS && s->stride[0] <= 2 && s->stride[1] <= 2);
}

static void
make_key (const CtConvShape *s, int64_t num, int pass, int bias, int threads, int64_t *key)
{
  int64_t *k = key;

  memset (key, 0, KEY_LEN * sizeof (int64_t));
  *k++ = pass;
  *k++ = threads;
  *k++ = bias;
  *k++ = use_plain_layout;
  *k++ = num;
  *k++ = s->in_channels;
  *k++ = s->out_channels;
  *k++ = s->group;
  for (int i = 0; i < 2; i++)
    {
      *k++ = s->in_dims[i];
      *k++ = s->out_dims[i];
      *k++ = s->kernel[i];
      *k++ = s->pad[i];
      *k++ = s->stride[i];
      *k++ = s->dilation[i];
    }
}

static uint64_t
hash_key (const int64_t *key)
{
  uint64_t h = 1469598103934665603u;

  for (int i = 0; i < KEY_LEN; i++)
    h = (h ^ (uint64_t) key[i]) * 1099511628211u;
  return h;
}

/* Adds argument DNNL_ARG, whose caller's layout is USER and the primitive's
 * PRIM (NULL: the scratchpad, which lives in the region only). */
static int
add_arg (Plan *p, int dnnl_arg, int output, const dnnl_memory_desc_t *user,
         const dnnl_memory_desc_t *prim)
{
  Arg *a = &p->args[p->nargs++];
  size_t bytes;

  memset (a, 0, sizeof *a);
  a->dnnl_arg = dnnl_arg;
  a->output = output;
  if (user != NULL && dnnl_memory_create (&a->user, user, engine, DNNL_MEMORY_NONE)
                      != dnnl_success)
    return 0;
  if (user != NULL && dnnl_memory_desc_equal (user, prim))
    return 1;
  if ((bytes = dnnl_memory_desc_get_size (prim)) == 0)
    return 1;
  if (dnnl_memory_create (&a->prim, prim, engine, DNNL_MEMORY_NONE) != dnnl_success)
    return 0;
  a->offset = p->floats;
  p->floats += (bytes / sizeof (float) + ALIGN_FLOATS) / ALIGN_FLOATS * ALIGN_FLOATS;
  if (user != NULL)
    {
      dnnl_primitive_desc_t pd;
      dnnl_status_t st;

      if (output)
        st = dnnl_reorder_primitive_desc_create (&pd, prim, engine, user, engine, NULL);
      else
        st = dnnl_reorder_primitive_desc_create (&pd, user, engine, prim, engine, NULL);
      if (st != dnnl_success)
        return 0;
      st = dnnl_primitive_create (&a->reorder, pd);
      dnnl_primitive_desc_destroy (pd);
      if (st != dnnl_success)
        return 0;
    }
  return 1;
}

/* The descriptors of a chunk of NUM images of S. */
typedef struct {
  dnnl_memory_desc_t src, dst, weights, bias, any_src, any_dst, any_weights;
  dnnl_dims_t strides, dilates, pad_l, pad_r;
} Descs;

static int
make_descs (const CtConvShape *s, int64_t num, Descs *d)
{
  dnnl_dims_t src = { num, s->in_channels, s->in_dims[0], s->in_dims[1] };
  dnnl_dims_t dst = { num, s->out_channels, s->out_dims[0], s->out_dims[1] };
  dnnl_dims_t bias = { s->out_channels };
  dnnl_dims_t w = { s->group, s->out_channels / s->group, s->in_channels / s->group,
                    s->kernel[0], s->kernel[1] };
  int grouped = s->group > 1;
  dnnl_format_tag_t any = use_plain_layout ? dnnl_format_tag_undef : dnnl_format_tag_any;

  if (!grouped)
    memmove (w, w + 1, 4 * sizeof w[0]);
  for (int i = 0; i < 2; i++)
    {
      d->strides[i] = s->stride[i];
      d->dilates[i] = s->dilation[i] - 1;
      d->pad_l[i] = s->pad[i];
      d->pad_r[i] = (s->out_dims[i] - 1) * s->stride[i] + s->dilation[i] * (s->kernel[i] - 1)
                    + 1 - s->in_dims[i] - s->pad[i];
    }
  if (dnnl_memory_desc_init_by_tag (&d->src, 4, src, dnnl_f32, dnnl_nchw) != dnnl_success
      || dnnl_memory_desc_init_by_tag (&d->dst, 4, dst, dnnl_f32, dnnl_nchw) != dnnl_success
      || dnnl_memory_desc_init_by_tag (&d->bias, 1, bias, dnnl_f32, dnnl_x) != dnnl_success
      || dnnl_memory_desc_init_by_tag (&d->weights, grouped ? 5 : 4, w, dnnl_f32,
                                       grouped ? dnnl_goihw : dnnl_oihw) != dnnl_success)
    return 0;
  if (any == dnnl_format_tag_undef)
    {
      d->any_src = d->src;
      d->any_dst = d->dst;
      d->any_weights = d->weights;
      return 1;
    }
  return dnnl_memory_desc_init_by_tag (&d->any_src, 4, src, dnnl_f32, any) == dnnl_success
         && dnnl_memory_desc_init_by_tag (&d->any_dst, 4, dst, dnnl_f32, any) == dnnl_success
         && dnnl_memory_desc_init_by_tag (&d->any_weights, grouped ? 5 : 4, w, dnnl_f32, any)
            == dnnl_success;
}

static const dnnl_memory_desc_t *
query (const_dnnl_primitive_desc_t pd, dnnl_query_t what, int index)
{
  return dnnl_primitive_desc_query_md (pd, what, index);
}

/* Builds the primitive and its arguments into P. */
static int
plan_build (Plan *p, const CtConvShape *s, int64_t num, int pass, int bias)
{
  dnnl_convolution_desc_t fwd_desc, desc;
  dnnl_primitive_desc_t fwd_pd = NULL, pd = NULL;
  dnnl_primitive_attr_t attr = NULL;
  Descs d;
  int ok = 0;

  if (!make_descs (s, num, &d)
      || dnnl_dilated_convolution_forward_desc_init (&fwd_desc, dnnl_forward_training,
                                                     dnnl_convolution_direct, &d.any_src,
                                                     &d.any_weights, bias ? &d.bias : NULL,
                                                     &d.any_dst, d.strides, d.dilates,
                                                     d.pad_l, d.pad_r) != dnnl_success
      || dnnl_primitive_attr_create (&attr) != dnnl_success
      || dnnl_primitive_attr_set_scratchpad_mode (attr, dnnl_scratchpad_mode_user)
         != dnnl_success
      || dnnl_primitive_desc_create (&fwd_pd, &fwd_desc, attr, engine, NULL) != dnnl_success)
    goto out;
  if (pass == PASS_FORWARD)
    pd = fwd_pd, fwd_pd = NULL;
  else if (pass == PASS_BACKWARD_DATA)
    {
      if (dnnl_dilated_convolution_backward_data_desc_init (&desc, dnnl_convolution_direct,
                                                            &d.any_src, &d.any_weights,
                                                            &d.any_dst, d.strides, d.dilates,
                                                            d.pad_l, d.pad_r) != dnnl_success
          || dnnl_primitive_desc_create (&pd, &desc, attr, engine, fwd_pd) != dnnl_success)
        goto out;
    }
  else if (dnnl_dilated_convolution_backward_weights_desc_init (&desc, dnnl_convolution_direct,
                                                                &d.any_src, &d.any_weights,
                                                                bias ? &d.bias : NULL,
                                                                &d.any_dst, d.strides,
                                                                d.dilates, d.pad_l, d.pad_r)
           != dnnl_success
           || dnnl_primitive_desc_create (&pd, &desc, attr, engine, fwd_pd) != dnnl_success)
    goto out;

  if (dnnl_primitive_create (&p->prim, pd) != dnnl_success)
    goto out;
  switch (pass)
    {
    case PASS_FORWARD:
      ok = add_arg (p, DNNL_ARG_SRC, 0, &d.src, query (pd, dnnl_query_src_md, 0))
           && add_arg (p, DNNL_ARG_WEIGHTS, 0, &d.weights, query (pd, dnnl_query_weights_md, 0))
           && (!bias || add_arg (p, DNNL_ARG_BIAS, 0, &d.bias,
                                 query (pd, dnnl_query_weights_md, 1)))
           && add_arg (p, DNNL_ARG_DST, 1, &d.dst, query (pd, dnnl_query_dst_md, 0));
      break;
    case PASS_BACKWARD_DATA:
      ok = add_arg (p, DNNL_ARG_DIFF_DST, 0, &d.dst, query (pd, dnnl_query_diff_dst_md, 0))
           && add_arg (p, DNNL_ARG_WEIGHTS, 0, &d.weights, query (pd, dnnl_query_weights_md, 0))
           && add_arg (p, DNNL_ARG_DIFF_SRC, 1, &d.src, query (pd, dnnl_query_diff_src_md, 0));
      break;
    default:
      ok = add_arg (p, DNNL_ARG_SRC, 0, &d.src, query (pd, dnnl_query_src_md, 0))
           && add_arg (p, DNNL_ARG_DIFF_DST, 0, &d.dst, query (pd, dnnl_query_diff_dst_md, 0))
           && add_arg (p, DNNL_ARG_DIFF_WEIGHTS, 1, &d.weights,
                       query (pd, dnnl_query_diff_weights_md, 0))
           && (!bias || add_arg (p, DNNL_ARG_DIFF_BIAS, 1, &d.bias,
                                 query (pd, dnnl_query_diff_weights_md, 1)));
      break;
    }
  ok = ok && add_arg (p, DNNL_ARG_SCRATCHPAD, 0, NULL, query (pd, dnnl_query_scratchpad_md, 0));

out:
  if (pd != NULL)
    dnnl_primitive_desc_destroy (pd);
  if (fwd_pd != NULL)
    dnnl_primitive_desc_destroy (fwd_pd);
  if (attr != NULL)
    dnnl_primitive_attr_destroy (attr);
  return ok;
}

/* This thread's plan for a chunk of NUM images of S, to run on THREADS
 * OpenMP threads; NULL when memory ran out. A plan that oneDNN declined is
 * kept too (ok = 0), so that it is not tried again. oneDNN fixes a
 * primitive's thread count when it creates it (omp_get_max_threads), and
 * asks for that many threads when it runs, whatever the thread's setting
 * is by then: the count is set before the primitive is created. */
static Plan *
plan_get (const CtConvShape *s, int64_t num, int pass, int bias, int threads)
{
  ThreadCache *c = thread_cache ();
  int64_t key[KEY_LEN];
  uint64_t hash;
  Plan *p;

  if (c == NULL)
    return NULL;
  make_key (s, num, pass, bias, threads, key);
  hash = hash_key (key);
  for (size_t i = 0; i < c->n_plans; i++)
    if (c->plans[i]->hash == hash && memcmp (c->plans[i]->key, key, sizeof key) == 0)
      return c->plans[i];
  if (c->n_plans == c->capacity)
    {
      size_t capacity = c->capacity ? 2 * c->capacity : 64;
      Plan **plans = realloc (c->plans, capacity * sizeof *plans);

      if (plans == NULL)
        return NULL;
      c->plans = plans;
      c->capacity = capacity;
    }
  if ((p = calloc (1, sizeof *p)) == NULL)
    return NULL;
  memcpy (p->key, key, sizeof key);
  p->hash = hash;
  omp_set_num_threads (threads);
  if (!plan_build (p, s, num, pass, bias))
    {
      /* Keep the verdict, not the half-built objects. */
      plan_free (p);
      if ((p = calloc (1, sizeof *p)) == NULL)
        return NULL;
      memcpy (p->key, key, sizeof key);
      p->hash = hash;
    }
  else
    p->ok = 1;
  c->plans[c->n_plans++] = p;
  return p;
}

/* Runs P with the caller's pointers PTRS (one per argument, in the order
 * plan_build added them; the scratchpad's is ignored) and REGION. SHARED,
 * when not NULL, already holds the output diff in P's layout (the
 * backward-data pass reordered it): P reads it there. */
static CtStatus
plan_run (const Plan *p, void *const *ptrs, float *region, float *shared)
{
  ThreadCache *c = thread_cache ();
  dnnl_exec_arg_t args[MAX_ARGS];
  int nargs = 0;

  for (int i = 0; i < p->nargs; i++)
    {
      const Arg *a = &p->args[i];
      const int reuse = shared != NULL && a->dnnl_arg == DNNL_ARG_DIFF_DST && a->prim != NULL;

      if (a->user != NULL && dnnl_memory_set_data_handle (a->user, ptrs[i]) != dnnl_success)
        return CT_STATUS_INVALID;
      if (a->prim != NULL
          && dnnl_memory_set_data_handle (a->prim, reuse ? shared : region + a->offset)
             != dnnl_success)
        return CT_STATUS_INVALID;
      if (a->prim == NULL && a->user == NULL)
        continue;   /* a scratchpad of no bytes */
      args[nargs].arg = a->dnnl_arg;
      args[nargs++].memory = a->prim != NULL ? a->prim : a->user;
      if (a->reorder != NULL && !a->output && !reuse)
        {
          dnnl_exec_arg_t r[2] = { { DNNL_ARG_FROM, a->user }, { DNNL_ARG_TO, a->prim } };

          if (dnnl_primitive_execute (a->reorder, c->stream, 2, r) != dnnl_success)
            return CT_STATUS_INVALID;
        }
    }
  if (dnnl_primitive_execute (p->prim, c->stream, nargs, args) != dnnl_success)
    return CT_STATUS_INVALID;
  for (int i = 0; i < p->nargs; i++)
    {
      const Arg *a = &p->args[i];
      dnnl_exec_arg_t r[2] = { { DNNL_ARG_FROM, a->prim }, { DNNL_ARG_TO, a->user } };

      if (a->reorder != NULL && a->output
          && dnnl_primitive_execute (a->reorder, c->stream, 2, r) != dnnl_success)
        return CT_STATUS_INVALID;
    }
  return dnnl_stream_wait (c->stream) == dnnl_success ? CT_STATUS_OK : CT_STATUS_INVALID;
}

/* How a call cuts the batch: CHUNKS chunks of NUM * c / CHUNKS images
 * onwards, each with a region of REGION floats (its parameter gradient, then
 * the largest plan's buffers). */
typedef struct {
  int chunks;
  int threads;             /* OpenMP threads per chunk */
  size_t params;           /* weight then bias gradient floats, rounded up */
  size_t region;
  int share_diff_dst;      /* see diff_dst_shared */
} Split;

/* A plan's reordered output diff, or NULL when it reads the caller's. */
static const Arg *
diff_dst_arg (const Plan *p)
{
  for (int i = 0; i < p->nargs; i++)
    if (p->args[i].dnnl_arg == DNNL_ARG_DIFF_DST && p->args[i].prim != NULL)
      return &p->args[i];
  return NULL;
}

/* Whether the backward-weights plan W can read the output diff that the
 * backward-data plan D reordered: both want it in the same blocked
 * layout. Then the chunk reorders it once, not twice, and W's buffers go
 * after all of D's in the region, so that D's copy outlives D's run. */
static int
diff_dst_shared (const Plan *d, const Plan *w)
{
  const Arg *a = diff_dst_arg (d), *b = diff_dst_arg (w);
  const dnnl_memory_desc_t *ma, *mb;

  return a != NULL && b != NULL
         && dnnl_memory_get_memory_desc (a->prim, &ma) == dnnl_success
         && dnnl_memory_get_memory_desc (b->prim, &mb) == dnnl_success
         && dnnl_memory_desc_equal (ma, mb);
}

static int64_t
chunk_size (int64_t num, int chunks, int c)
{
  return num * (c + 1) / chunks - num * c / chunks;
}

/* Whether oneDNN runs PASS over S as part of the calls in PASSES
 * (CtConvPass bits). */
static int
takes_in (const CtConvShape *s, int pass, unsigned passes)
{
  unsigned call = pass == PASS_FORWARD ? CT_CONV_PASS_FORWARD : CT_CONV_PASS_BACKWARD;

  return (passes & call) != 0 && ct_dnnl_conv_takes (s, pass);
}

/* The split of S for the calls in PASSES, with the calling thread's plans
 * for their passes built; 0 when oneDNN takes none of them. A forward
 * call's region holds no parameter gradient. */
static int
split_shape (const CtConvShape *s, unsigned passes, Split *split)
{
  int threads = ct_cpu_num_threads ();
  size_t need = 0;

  if (!takes_in (s, PASS_FORWARD, passes) && !takes_in (s, PASS_BACKWARD_DATA, passes)
      && !takes_in (s, PASS_BACKWARD_WEIGHTS, passes))
    return 0;
  if (use_omp_team)
    split->chunks = 1, split->threads = threads;
  else if (s->num < threads)
    return 0;
  else
    split->chunks = threads, split->threads = 1;
  split->params = 0;
  if (passes & CT_CONV_PASS_BACKWARD)
    {
      split->params = (size_t) (s->out_channels * (s->in_channels / s->group) * s->kernel[0]
                                * s->kernel[1] + s->out_channels);
      split->params = (split->params + ALIGN_FLOATS - 1) / ALIGN_FLOATS * ALIGN_FLOATS;
    }
  split->share_diff_dst = takes_in (s, PASS_BACKWARD_DATA, passes)
                          && takes_in (s, PASS_BACKWARD_WEIGHTS, passes);
  /* The chunks come in at most two sizes: the first and the last. */
  for (int c = 0; c < split->chunks; c += split->chunks > 1 ? split->chunks - 1 : 1)
    {
      Plan *plans[PASS_BACKWARD_WEIGHTS + 1] = { NULL };

      for (int pass = PASS_FORWARD; pass <= PASS_BACKWARD_WEIGHTS; pass++)
        {
          if (!takes_in (s, pass, passes))
            continue;
          plans[pass] = plan_get (s, chunk_size (s->num, split->chunks, c), pass,
                                  pass != PASS_BACKWARD_DATA, split->threads);
          if (plans[pass] == NULL || !plans[pass]->ok)
            return 0;
          if (plans[pass]->floats > need)
            need = plans[pass]->floats;
        }
      if (split->share_diff_dst
          && !diff_dst_shared (plans[PASS_BACKWARD_DATA], plans[PASS_BACKWARD_WEIGHTS]))
        split->share_diff_dst = 0;
      if (split->share_diff_dst
          && plans[PASS_BACKWARD_DATA]->floats + plans[PASS_BACKWARD_WEIGHTS]->floats > need)
        need = plans[PASS_BACKWARD_DATA]->floats + plans[PASS_BACKWARD_WEIGHTS]->floats;
    }
  split->region = split->params + need;
  return 1;
}

size_t
ct_dnnl_conv_workspace_floats (const CtConvShape *s, unsigned passes)
{
  Split split;

  if (!split_shape (s, passes, &split))
    return 0;
  /* ALIGN_FLOATS more: the regions start on a cache line. */
  return (size_t) split.chunks * split.region + ALIGN_FLOATS;
}

typedef struct {
  const CtConvShape *s;
  Split split;
  float *base;
  int pass;
  const float *input, *weights, *bias, *output_diff;
  float *output, *input_diff;
  int want_weights, want_bias;
  CtStatus status[CT_PARALLEL_MAX_CHUNKS];
} Job;

/* Runs PASS on images [BEGIN, END) with the chunk's REGION (its parameter
 * gradient first); the plan's buffers start OFFSET floats after that
 * gradient. SHARED: as plan_run's. A backward-data pass sets *DIFF_DST
 * (when not NULL) to its reordered output diff and *USED to its buffers'
 * floats. */
static CtStatus
run_pass (const Job *j, int pass, int64_t begin, int64_t end, float *region, size_t offset,
          float *shared, float **diff_dst, size_t *used)
{
  const CtConvShape *s = j->s;
  const int64_t in_dim = s->in_channels * s->in_dims[0] * s->in_dims[1];
  const int64_t out_dim = s->out_channels * s->out_dims[0] * s->out_dims[1];
  const int bias = pass == PASS_FORWARD ? j->bias != NULL
                 : pass == PASS_BACKWARD_WEIGHTS ? j->want_bias : 0;
  Plan *p = plan_get (s, end - begin, pass, bias, j->split.threads);
  float *buffers = region + j->split.params + offset;
  void *ptrs[MAX_ARGS] = { NULL };

  if (p == NULL)
    return CT_STATUS_OUT_OF_MEMORY;
  if (!p->ok || j->split.params + offset + p->floats > j->split.region)
    return CT_DNNL_DECLINED;
  switch (pass)
    {
    case PASS_FORWARD:
      ptrs[0] = (void *) (j->input + begin * in_dim);
      ptrs[1] = (void *) j->weights;
      if (bias)
        ptrs[2] = (void *) j->bias;
      ptrs[bias ? 3 : 2] = j->output + begin * out_dim;
      break;
    case PASS_BACKWARD_DATA:
      ptrs[0] = (void *) (j->output_diff + begin * out_dim);
      ptrs[1] = (void *) j->weights;
      ptrs[2] = j->input_diff + begin * in_dim;
      if (diff_dst != NULL)
        {
          const Arg *a = diff_dst_arg (p);

          *diff_dst = a != NULL ? buffers + a->offset : NULL;
          *used = p->floats;
        }
      break;
    default:
      ptrs[0] = (void *) (j->input + begin * in_dim);
      ptrs[1] = (void *) (j->output_diff + begin * out_dim);
      ptrs[2] = region;
      ptrs[3] = region + (s->out_channels * (s->in_channels / s->group) * s->kernel[0]
                          * s->kernel[1]);
      break;
    }
  return plan_run (p, ptrs, buffers, shared);
}

static void
chunk_func (int64_t begin, int64_t end, int chunk, void *data)
{
  Job *j = data;
  float *region = j->base + (size_t) chunk * j->split.region;
  CtStatus status = CT_STATUS_OK;

  omp_set_num_threads (j->split.threads);
  if (j->pass == PASS_FORWARD)
    status = run_pass (j, PASS_FORWARD, begin, end, region, 0, NULL, NULL, NULL);
  else
    {
      float *diff_dst = NULL;
      size_t used = 0;

      if (j->input_diff != NULL)
        status = run_pass (j, PASS_BACKWARD_DATA, begin, end, region, 0, NULL, &diff_dst,
                           &used);
      /* The weights pass reads the output diff the data pass reordered,
       * with its own buffers after the data pass's. */
      if (!j->split.share_diff_dst || diff_dst == NULL)
        diff_dst = NULL, used = 0;
      if (status == CT_STATUS_OK && j->want_weights)
        status = run_pass (j, PASS_BACKWARD_WEIGHTS, begin, end, region, used, diff_dst, NULL,
                           NULL);
    }
  j->status[chunk] = status;
}

static CtStatus
run_job (Job *j, float *workspace)
{
  CtStatus status = CT_STATUS_OK;

  j->base = (float *) (((uintptr_t) workspace + 63) & ~(uintptr_t) 63);
  if (j->split.chunks > 1)
    ct_cpu_parallel_for_chunks (j->s->num, j->split.chunks, chunk_func, j);
  else
    chunk_func (0, j->s->num, 0, j);
  for (int c = 0; c < j->split.chunks; c++)
    if (j->status[c] != CT_STATUS_OK && status == CT_STATUS_OK)
      status = j->status[c];
  return status;
}

CtStatus
ct_dnnl_conv_forward (const CtConvShape *s, const float *input, const float *weights,
                      const float *bias, float *output, float *workspace)
{
  Job j = { .s = s, .pass = PASS_FORWARD, .input = input, .weights = weights, .bias = bias,
            .output = output };

  if (!ct_dnnl_conv_takes (s, PASS_FORWARD)
      || !split_shape (s, CT_CONV_PASS_FORWARD, &j.split))
    return CT_DNNL_DECLINED;
  return run_job (&j, workspace);
}

CtStatus
ct_dnnl_conv_backward (const CtConvShape *s, const float *input, const float *output_diff,
                       const float *weights, float *weight_diff, float *bias_diff,
                       float *input_diff, float *workspace)
{
  Job j = { .s = s, .pass = PASS_BACKWARD_DATA, .input = input, .output_diff = output_diff,
            .weights = weights, .input_diff = input_diff };
  const int64_t out_spatial = s->out_dims[0] * s->out_dims[1];
  int64_t weights_size;
  CtStatus status;

  if (!split_shape (s, CT_CONV_PASS_BACKWARD, &j.split))
    return CT_DNNL_DECLINED;
  /* The bias gradient alone is a plain sum, cheaper than oneDNN's pass. */
  j.want_weights = weight_diff != NULL;
  j.want_bias = weight_diff != NULL && bias_diff != NULL;
  if ((status = run_job (&j, workspace)) != CT_STATUS_OK)
    return status;
  if (bias_diff != NULL && !j.want_bias)
    return ct_cpu_bias_backward (s->num, s->out_channels, out_spatial, output_diff, 1,
                                 bias_diff);
  if (!j.want_weights)
    return CT_STATUS_OK;
  weights_size = s->out_channels * (s->in_channels / s->group) * s->kernel[0] * s->kernel[1];
  for (int c = 0; c < j.split.chunks; c++)
    {
      const float *part = j.base + (size_t) c * j.split.region;

      ct_cpu_axpy (weights_size, 1.0f, part, weight_diff);
      if (j.want_bias)
        ct_cpu_axpy (s->out_channels, 1.0f, part + weights_size, bias_diff);
    }
  return CT_STATUS_OK;
}
