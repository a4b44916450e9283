/* rng.h: the engine's seeded random numbers. One seed gives one sequence on
 * every machine, so a seeded net fills the same weights and drops the same
 * units every run. Draws follow Caffe's distributions (uniform on [a, b],
 * gaussian, Bernoulli); the generator is GLib's Mersenne Twister. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CtRng CtRng;

CtRng *ct_rng_new (guint64 seed);
void ct_rng_free (CtRng *rng);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtRng, ct_rng_free)

/* A seed for a child generator (one per layer), drawn from RNG. */
guint64 ct_rng_next_seed (CtRng *rng);
guint32 ct_rng_uint32 (CtRng *rng);

void ct_rng_uniform (CtRng *rng, gint64 n, float a, float b, float *out);
void ct_rng_gaussian (CtRng *rng, gint64 n, float mean, float stddev, float *out);
/* out[i] = 1 with probability P, else 0. */
void ct_rng_bernoulli (CtRng *rng, gint64 n, float p, float *out);

G_END_DECLS
