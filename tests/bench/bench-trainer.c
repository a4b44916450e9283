/* bench-trainer.c: training in the window's trainer against the solver
 * alone (what `cortado-cli train` runs): LeNet on DummyData (no LMDB
 * needed), the same iterations, the solver built in both. The trainer
 * hands progress over to a main loop after every iteration and computes
 * the update ratios of every layer at every iteration; a followed blob is
 * copied every 10; and once more without either. Goal: the trainer within 5% of the solver. Prints
 * the medians and their ratio; never fails on speed. */
#include <stdio.h>

#include "bench-util.h"
#include "solver.h"
#include "text-format.h"
#include "trainer.h"

#define ITERS 60
#define ROUNDS 3

static const char lenet[] =
  "net_param { name: 'LeNet' "
  "  layer { name: 'mnist' type: 'DummyData' top: 'data' top: 'label' "
  "    dummy_data_param { shape { dim: 64 dim: 1 dim: 28 dim: 28 } shape { dim: 64 } "
  "      data_filler { type: 'uniform' min: 0 max: 1 } "
  "      data_filler { type: 'uniform' min: 0 max: 9.99 } } } "
  "  layer { name: 'conv1' type: 'Convolution' bottom: 'data' top: 'conv1' "
  "    convolution_param { num_output: 20 kernel_size: 5 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'pool1' type: 'Pooling' bottom: 'conv1' top: 'pool1' "
  "    pooling_param { pool: MAX kernel_size: 2 stride: 2 } } "
  "  layer { name: 'conv2' type: 'Convolution' bottom: 'pool1' top: 'conv2' "
  "    convolution_param { num_output: 50 kernel_size: 5 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'pool2' type: 'Pooling' bottom: 'conv2' top: 'pool2' "
  "    pooling_param { pool: MAX kernel_size: 2 stride: 2 } } "
  "  layer { name: 'ip1' type: 'InnerProduct' bottom: 'pool2' top: 'ip1' "
  "    inner_product_param { num_output: 500 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'relu1' type: 'ReLU' bottom: 'ip1' top: 'ip1' } "
  "  layer { name: 'ip2' type: 'InnerProduct' bottom: 'ip1' top: 'ip2' "
  "    inner_product_param { num_output: 10 weight_filler { type: 'xavier' } } } "
  "  layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'ip2' bottom: 'label' top: 'loss' } "
  "} "
  "base_lr: 0.01 momentum: 0.9 weight_decay: 0.0005 lr_policy: 'inv' gamma: 0.0001 "
  "power: 0.75 display: 0 max_iter: 60 random_seed: 1 snapshot_after_train: false ";

static double
solver_alone (const Caffe__SolverParameter *param)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr (GError) error = NULL;
  g_autoptr (CtSolver) solver = ct_solver_new (param, NULL, &error);

  if (solver == NULL || !ct_solver_step (solver, ITERS, &error))
    g_error ("%s", error->message);
  return (double) (g_get_monotonic_time () - start) / 1e6;
}

static void
on_progress (CtTrainer *trainer, CtTrainProgress *progress, gpointer user_data)
{
  CtTrainProgress **last = user_data;

  (void) trainer;
  if (progress->error != NULL)
    g_error ("%s", progress->error->message);
  g_clear_pointer (last, ct_train_progress_unref);
  *last = ct_train_progress_ref (progress);
}

static double
trainer (const Caffe__SolverParameter *param, guint ratio_every, guint *handovers)
{
  CtTrainConfig config = { .ratio_every = ratio_every };
  CtTrainProgress *last = NULL;
  gint64 start = g_get_monotonic_time ();
  CtTrainer *t = ct_trainer_new (param, NULL, &config, on_progress, &last);
  double seconds;

  *handovers = 0;
  if (ratio_every > 0)
    ct_trainer_watch (t, "conv2", 10);
  ct_trainer_start (t);
  while (last == NULL || last->state != CT_TRAIN_STATE_FINISHED)
    {
      CtTrainProgress *before = last;

      g_main_context_iteration (NULL, TRUE);
      *handovers += last != before;
    }
  seconds = (double) (g_get_monotonic_time () - start) / 1e6;
  ct_trainer_free (t);
  ct_train_progress_unref (last);
  return seconds;
}

int
main (void)
{
  g_autoptr (GError) error = NULL;
  Caffe__SolverParameter *param = (Caffe__SolverParameter *) ct_text_parse (
    &caffe__solver_parameter__descriptor, lenet, -1, NULL, CT_TEXT_STRICT, &error);
  double direct[ROUNDS], trained[ROUNDS], bare[ROUNDS], d, t, b;
  guint handovers = 0, bare_handovers = 0;

  if (param == NULL)
    g_error ("%s", error->message);
  solver_alone (param); /* warm up */
  for (int i = 0; i < ROUNDS; i++)
    {
      direct[i] = solver_alone (param);
      trained[i] = trainer (param, 1, &handovers);
      bare[i] = trainer (param, 0, &bare_handovers);
    }
  d = ct_bench_median (direct, ROUNDS);
  t = ct_bench_median (trained, ROUNDS);
  b = ct_bench_median (bare, ROUNDS);
  printf ("LeNet, batch 64, %d iterations (median of %d):\n", ITERS, ROUNDS);
  printf ("  ct_solver_step alone   %8.3f s  (%.1f iter/s)\n", d, ITERS / d);
  printf ("  CtTrainer              %8.3f s  (%.1f iter/s, %u hand-overs, update ratios "
          "every iteration)\n", t, ITERS / t, handovers);
  printf ("  CtTrainer, no ratios   %8.3f s  (%.1f iter/s, %u hand-overs, nothing followed)\n",
          b, ITERS / b, bare_handovers);
  printf ("  trainer / solver       %8.3f  (goal <= 1.05; without ratios %.3f)\n", t / d,
          b / d);
  protobuf_c_message_free_unpacked (&param->base, NULL);
  return 0;
}
