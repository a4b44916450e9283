/* test-session.c: session files (app/session/session.c) with no display:
 * a session reads back to the same values, bit for bit (weights, every
 * double of the plots, in a comma locale too); a damaged file is an error
 * that names the file, group and key, never a crash; saving is atomic. */
#include <locale.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "session.h"
#include "test-files.h"

static CtSession *
sample_session (void)
{
  CtSession *s = ct_session_new ();
  guint8 weights[300];
  double xs[] = { 0, 100, 200, 300 };
  double ys[] = { 2.302585092994046, 0.1 + 0.2, 1e-300, NAN };
  guint items[] = { 23, 0, 9999 };
  CtSessionSeries *series;

  for (guint i = 0; i < sizeof weights; i++)
    weights[i] = (guint8) (i * 7);
  g_free (s->net_text);
  s->net_text = g_strdup ("name: \"LeNet\"\n# a comment; with = and [brackets]\nlayer {\n}\n");
  s->net_path = g_strdup ("/home/teacher/lenet_train_test.prototxt");
  s->base_dir = g_strdup ("/home/teacher");
  s->weights = g_bytes_new (weights, sizeof weights);
  s->weights_name = g_strdup ("lenet_iter_200.caffemodel");
  s->solver_text = g_strdup ("base_lr: 0.05\nmax_iter: 200\n");
  s->solver_path = g_strdup ("/home/teacher/lenet_solver.prototxt");
  g_free (s->phase);
  s->phase = g_strdup ("test");
  g_free (s->view);
  s->view = g_strdup ("training");
  s->batch = 4;
  s->pace_ms = 300;
  s->seed = G_GUINT64_CONSTANT (18446744073709551615);
  s->items = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_vals (s->items, items, G_N_ELEMENTS (items));
  series = ct_session_add_series (s, "loss", "base_lr 0.01", xs, ys, G_N_ELEMENTS (xs));
  series->faded = TRUE;
  series->color = 3;
  series->panel = 1;
  series->side = 1;
  series->style = 2;
  ct_session_add_series (s, "accuracy", NULL, xs, ys, 0)->visible = FALSE;
  g_free (s->step_pass);
  s->step_pass = g_strdup ("backward");
  s->step_next = 4;
  s->selected = g_strdup ("conv2");
  s->blob = g_strdup ("conv2 (output)");
  s->blob_diff = TRUE;
  s->channel = 17;
  s->colormap = 2;
  s->scale = 1;
  return s;
}

static void
assert_same (const CtSession *a, const CtSession *b)
{
  g_assert_cmpstr (a->net_text, ==, b->net_text);
  g_assert_cmpstr (a->net_path, ==, b->net_path);
  g_assert_cmpstr (a->net_title, ==, b->net_title);
  g_assert_cmpstr (a->base_dir, ==, b->base_dir);
  g_assert_true ((a->weights == NULL) == (b->weights == NULL));
  if (a->weights != NULL)
    g_assert_true (g_bytes_equal (a->weights, b->weights));
  g_assert_cmpstr (a->weights_name, ==, b->weights_name);
  g_assert_cmpstr (a->solver_text, ==, b->solver_text);
  g_assert_cmpstr (a->solver_path, ==, b->solver_path);
  g_assert_cmpstr (a->phase, ==, b->phase);
  g_assert_cmpstr (a->view, ==, b->view);
  g_assert_cmpuint (a->batch, ==, b->batch);
  g_assert_cmpuint (a->pace_ms, ==, b->pace_ms);
  g_assert_cmpuint (a->seed, ==, b->seed);
  g_assert_cmpuint (a->items != NULL ? a->items->len : 0, ==, b->items != NULL ? b->items->len : 0);
  for (guint i = 0; a->items != NULL && i < a->items->len; i++)
    g_assert_cmpuint (g_array_index (a->items, guint, i), ==, g_array_index (b->items, guint, i));
  g_assert_cmpstr (a->input_path, ==, b->input_path);
  g_assert_cmpstr (a->step_pass, ==, b->step_pass);
  g_assert_cmpint (a->step_next, ==, b->step_next);
  g_assert_cmpstr (a->selected, ==, b->selected);
  g_assert_cmpstr (a->blob, ==, b->blob);
  g_assert_cmpint (a->blob_diff, ==, b->blob_diff);
  g_assert_cmpint (a->channel, ==, b->channel);
  g_assert_cmpint (a->colormap, ==, b->colormap);
  g_assert_cmpint (a->scale, ==, b->scale);
  g_assert_cmpuint (a->series->len, ==, b->series->len);
  for (guint i = 0; i < a->series->len; i++)
    {
      const CtSessionSeries *x = g_ptr_array_index (a->series, i);
      const CtSessionSeries *y = g_ptr_array_index (b->series, i);

      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpstr (x->run_label, ==, y->run_label);
      g_assert_cmpint (x->panel, ==, y->panel);
      g_assert_cmpint (x->side, ==, y->side);
      g_assert_cmpint (x->color, ==, y->color);
      g_assert_cmpint (x->style, ==, y->style);
      g_assert_cmpint (x->faded, ==, y->faded);
      g_assert_cmpint (x->visible, ==, y->visible);
      g_assert_cmpuint (x->xs->len, ==, y->xs->len);
      /* bit for bit, NaN included */
      g_assert_cmpmem (x->xs->data, x->xs->len * sizeof (double), y->xs->data,
                       y->xs->len * sizeof (double));
      for (guint p = 0; p < x->ys->len; p++)
        {
          double u = g_array_index (x->ys, double, p), v = g_array_index (y->ys, double, p);

          g_assert_true ((isnan (u) && isnan (v)) || memcmp (&u, &v, sizeof u) == 0);
        }
    }
}

static void
test_round_trip (void)
{
  g_autoptr (CtSession) s = sample_session ();
  g_autofree char *dir = ct_test_tmpdir_make ("cortado-session-XXXXXX");
  g_autofree char *path = g_build_filename (dir, "week2" CT_SESSION_SUFFIX, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSession) back = NULL;
  g_autoptr (GDir) listing = NULL;

  g_assert_true (ct_session_is_session_path (path));
  g_assert_true (ct_session_save (s, path, &error));
  g_assert_no_error (error);
  back = ct_session_load (path, &error);
  g_assert_no_error (error);
  assert_same (s, back);
  /* saved again over the old one: nothing else is left in the folder */
  g_assert_true (ct_session_save (back, path, &error));
  listing = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (listing), ==, "week2" CT_SESSION_SUFFIX);
  g_assert_null (g_dir_read_name (listing));
  ct_test_remove_tree (dir);

  /* an empty session too */
  {
    g_autoptr (CtSession) empty = ct_session_new ();
    gsize n = 0;
    g_autofree char *text = ct_session_to_text (empty, &n);
    g_autoptr (CtSession) read = ct_session_from_text (text, n, "empty", &error);

    g_assert_no_error (error);
    g_assert_cmpstr (read->net_text, ==, "");
    assert_same (empty, read);
  }
}

/* A locale that writes 0,5 must not change what is written or read. */
static void
test_comma_locale (void)
{
  g_autoptr (CtSession) s = sample_session ();
  g_autofree char *before = NULL, *after = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSession) back = NULL;
  gsize n = 0;

  before = ct_session_to_text (s, &n);
  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("no de_DE.UTF-8 locale");
      return;
    }
  after = ct_session_to_text (s, &n);
  back = ct_session_from_text (after, n, "comma", &error);
  setlocale (LC_NUMERIC, "C");
  g_assert_no_error (error);
  g_assert_cmpstr (before, ==, after);
  assert_same (s, back);
}

static void
assert_bad (const char *text, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSession) s = ct_session_from_text (text, strlen (text), "bad.cortado-session",
                                                  &error);

  g_test_message ("%s", error != NULL ? error->message : "(no error)");
  g_assert_null (s);
  g_assert_nonnull (error);
  g_assert_true (error->domain == CT_SESSION_ERROR);
  g_assert_true (g_str_has_prefix (error->message, "bad.cortado-session: "));
  g_assert_nonnull (strstr (error->message, expected));
}

/* A session saved before the step position was kept reads as "not
 * stepped", the inspector as it opens. */
static void
test_older (void)
{
  static const char text[] = "[Session]\nversion=1\n[Net]\ntext=x\n[Run]\nphase=test\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSession) s = ct_session_from_text (text, strlen (text), "old.cortado-session",
                                                  &error);

  g_assert_no_error (error);
  g_assert_cmpstr (s->step_pass, ==, "none");
  g_assert_cmpint (s->step_next, ==, -1);
  g_assert_null (s->selected);
  g_assert_null (s->blob);
  g_assert_false (s->blob_diff);
  g_assert_cmpint (s->channel, ==, -1);
  g_assert_cmpint (s->colormap, ==, -1);
  g_assert_cmpint (s->scale, ==, 0);
}

static void
test_bad (void)
{
  assert_bad ("not a key file", "bad.cortado-session: ");
  assert_bad ("[Net]\ntext=x\n", "not a Cortado session");
  assert_bad ("[Session]\nversion=2\n[Net]\ntext=x\n", "newer Cortado (version 2");
  assert_bad ("[Session]\nversion=one\n[Net]\ntext=x\n", "[Session] version:");
  assert_bad ("[Session]\nversion=1\n[Net]\n", "[Net] text:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Weights]\ndata=AB$C\n",
              "[Weights] data: not base64");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Weights]\ndata=ABC\n",
              "[Weights] data: cut short");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Run]\nphase=deploy\n", "[Run] phase:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Run]\nview=3d\n", "[Run] view:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Run]\nitems=1;-2;\n", "[Run] items:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Run]\nitems=1;x;\n", "[Run] items:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Run]\nbatch=-1\n", "[Run] batch:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Run]\npace_ms=60001\n", "[Run] pace_ms:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Run]\npace_ms=slow\n", "[Run] pace_ms:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Step]\npass=sideways\n",
              "[Step] pass: not none, forward or backward");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Step]\nnext-layer=-5\n",
              "[Step] next-layer: -5 is not between -1");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Inspector]\nchannel=two\n",
              "[Inspector] channel:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Inspector]\ndiff=perhaps\n",
              "[Inspector] diff:");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Series 0]\nname=loss\npanel=0\nside=0\n"
              "color=0\nstyle=0\nfaded=false\nvisible=true\nxs=1;2;\nys=1;\n",
              "[Series 0] ys: 2 x values but 1 y values");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Series 0]\nname=loss\npanel=0\nside=0\n"
              "color=0\nstyle=0\nfaded=false\nvisible=true\nxs=2;1;\nys=1;1;\n",
              "[Series 0] xs: the x values must be finite");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Series 0]\nname=loss\npanel=0\nside=0\n"
              "color=99\nstyle=0\nfaded=false\nvisible=true\n",
              "[Series 0] color: 99 is not between 0 and 6");
  assert_bad ("[Session]\nversion=1\n[Net]\ntext=x\n[Series 0]\nname=loss\npanel=0\nside=0\n"
              "color=0\nstyle=0\nfaded=maybe\nvisible=true\n",
              "[Series 0] faded:");
}

/* Every prefix of a saved session, and bytes changed: a session or an
 * error, never a crash (run under the sanitizers). */
static void
test_never_crashes (void)
{
  g_autoptr (CtSession) s = sample_session ();
  gsize n = 0;
  g_autofree char *text = ct_session_to_text (s, &n);

  for (gsize cut = 0; cut <= n; cut += 3)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtSession) back = ct_session_from_text (text, cut, "cut", &error);

      g_assert_true ((back == NULL) != (error == NULL));
    }
  for (gsize at = 0; at < n; at += 2)
    {
      g_autofree char *changed = g_strdup (text);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtSession) back = NULL;

      changed[at] = (char) (changed[at] == '1' ? '-' : changed[at] == ';' ? '\n' : '9');
      back = ct_session_from_text (changed, n, "changed", &error);
      g_assert_true ((back == NULL) != (error == NULL));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/session/round-trip", test_round_trip);
  g_test_add_func ("/session/comma-locale", test_comma_locale);
  g_test_add_func ("/session/bad", test_bad);
  g_test_add_func ("/session/older", test_older);
  g_test_add_func ("/session/never-crashes", test_never_crashes);
  return g_test_run ();
}
