/* rng.c: seeded uniform, gaussian and Bernoulli draws on GRand. */
#include <math.h>

#include "rng.h"

struct _CtRng {
  GRand *rand;
};

CtRng *
ct_rng_new (guint64 seed)
{
  CtRng *rng = g_new0 (CtRng, 1);
  guint32 words[2] = { (guint32) seed, (guint32) (seed >> 32) };

  rng->rand = g_rand_new_with_seed_array (words, 2);
  return rng;
}

void
ct_rng_free (CtRng *rng)
{
  if (rng == NULL)
    return;
  g_rand_free (rng->rand);
  g_free (rng);
}

guint32
ct_rng_uint32 (CtRng *rng)
{
  return g_rand_int (rng->rand);
}

guint64
ct_rng_next_seed (CtRng *rng)
{
  guint64 high = g_rand_int (rng->rand);

  return (high << 32) | g_rand_int (rng->rand);
}

void
ct_rng_uniform (CtRng *rng, gint64 n, float a, float b, float *out)
{
  for (gint64 i = 0; i < n; i++)
    out[i] = (float) g_rand_double_range (rng->rand, a, b);
}

/* Box-Muller, both values of each pair used. */
void
ct_rng_gaussian (CtRng *rng, gint64 n, float mean, float stddev, float *out)
{
  for (gint64 i = 0; i < n; i += 2)
    {
      double u1 = 1.0 - g_rand_double (rng->rand); /* (0, 1]: log is finite */
      double u2 = g_rand_double (rng->rand);
      double r = sqrt (-2.0 * log (u1));

      out[i] = (float) (mean + stddev * r * cos (2.0 * G_PI * u2));
      if (i + 1 < n)
        out[i + 1] = (float) (mean + stddev * r * sin (2.0 * G_PI * u2));
    }
}

void
ct_rng_bernoulli (CtRng *rng, gint64 n, float p, float *out)
{
  for (gint64 i = 0; i < n; i++)
    out[i] = g_rand_double (rng->rand) < p ? 1.0f : 0.0f;
}
