/* bench-analysis.c: the analyses of Caffe's trained LeNet on the
 * Fashion-MNIST test set: the confusion matrix over the 10,000 images
 * (goal < 3 s), and for image 0 occlusion with a 5×5 patch at stride 1
 * (576 places, goal < 1 s), saliency and Grad-CAM; the top activations of
 * a conv1 and a conv2 channel over the 10,000 images as the window finds
 * them (from the images its count kept, goal: seconds), and as
 * `cortado-cli top-activations` does (the whole net over the LMDB). Medians of a few runs;
 * the net is built once, as the window's worker keeps it. Needs
 * dataset-fashion-mnist (skips without it) and CT_CLI to make the LMDB. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <glib.h>

#include "analysis-net.h"
#include "bench-util.h"
#include "confusion.h"
#include "grad-cam.h"
#include "occlusion.h"
#include "run-inputs.h"
#include "saliency.h"
#include "top-activations.h"
#include "test-files.h"

#define FASHION "/usr/share/datasets/fashion-mnist/"

static char *
reference (const char *name)
{
  return g_build_filename (g_getenv ("CT_TEST_DATA"), "reference", name, NULL);
}

/* CPU seconds of the whole process (every thread): on a shared machine
 * the wall time also counts the others' work. */
static double
cpu_seconds (void)
{
  struct timespec t;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + t.tv_nsec / 1e9;
}

static double
bench_confusion (void)
{
  g_autofree char *model = reference ("lenet_train_test.prototxt");
  g_autofree char *weights = reference ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_analysis_load_net (model, weights, CAFFE__PHASE__TEST, FALSE,
                                                &error);
  double times[3], cpu[3];
  double accuracy = 0.0;
  CtClassifier c;

  g_assert_no_error (error);
  g_assert_true (ct_classifier_find (net, NULL, &c, &error));
  for (int r = 0; r < 3; r++)
    {
      gint64 start = g_get_monotonic_time ();
      double cpu_start = cpu_seconds ();
      g_autoptr (CtConfusion) conf = ct_confusion_run (net, &c, 100, NULL, NULL, &error);

      g_assert_no_error (error);
      times[r] = (g_get_monotonic_time () - start) / 1e6;
      cpu[r] = cpu_seconds () - cpu_start;
      accuracy = ct_confusion_accuracy (conf);
      g_assert_cmpuint (ct_confusion_total (conf), ==, 10000);
    }
  printf ("confusion matrix, 10,000 images: %.3f s, %.3f s of CPU (medians of 3; "
          "accuracy %.4f)\n", ct_bench_median (times, 3), ct_bench_median (cpu, 3), accuracy);
  return ct_bench_median (times, 3);
}

static void
bench_one_image (void)
{
  g_autofree char *model = reference ("lenet_fashion_deploy_loss.prototxt");
  g_autofree char *weights = reference ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_analysis_load_net (model, weights, CAFFE__PHASE__TEST, TRUE,
                                                &error);
  g_autoptr (CtFashionSet) set = ct_fashion_set_load (NULL, &error);
  const gint64 dims[4] = { 1, 1, 28, 28 };
  const guint item = 0;
  g_autofree float *image = NULL;
  CtOcclusionParams params = { .patch = 5, .stride = 1, .fill = 0.5f, .batch = 64 };
  double occ[5], sal[5], cam[5];
  CtClassifier c;
  CtAnalysisPath path;

  g_assert_no_error (error);
  image = ct_fashion_set_batch (set, &item, 1, dims, 4, 1.0f / 256, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ct_classifier_find (net, NULL, &c, &error));
  g_assert_true (ct_analysis_path_init (&path, net, &c, NULL, &error));
  for (int r = 0; r < 5; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr (CtOcclusion) o = ct_occlusion_compute (net, &c, &path, image, 9, &params, NULL,
                                                        NULL, &error);
      gint64 t1 = g_get_monotonic_time ();
      g_autofree float *g = ct_saliency_gradient (net, &c, &path, image, 9, NULL, &error);
      gint64 t2 = g_get_monotonic_time ();
      g_autoptr (CtGradCam) gc = ct_grad_cam_compute (net, &c, &path, image, 9, "conv2", &error);
      gint64 t3 = g_get_monotonic_time ();

      g_assert_no_error (error);
      occ[r] = (t1 - t0) / 1e3;
      sal[r] = (t2 - t1) / 1e3;
      cam[r] = (t3 - t2) / 1e3;
    }
  printf ("occlusion 28x28, 5x5 patch, stride 1 (576 places, batches of 64): %.1f ms\n",
          ct_bench_median (occ, 5));
  printf ("saliency: %.2f ms; Grad-CAM (conv2): %.2f ms (medians of 5)\n",
          ct_bench_median (sal, 5), ct_bench_median (cam, 5));
}

/* Top activations: the window's way (the images kept, the layers up to
 * the channel's) and the CLI's (every layer, the data read again). */
static void
bench_top (void)
{
  g_autofree char *model = reference ("lenet_train_test.prototxt");
  g_autofree char *weights = reference ("fashion_lenet_iter_10000.caffemodel");
  g_autoptr (GError) error = NULL;
  g_autoptr (CtNet) net = ct_analysis_load_net (model, weights, CAFFE__PHASE__TEST, FALSE,
                                                &error);
  g_autoptr (CtSampleStore) store = ct_sample_store_new ((gsize) 512 * 1024 * 1024);
  g_autoptr (CtConfusion) conf = NULL;
  const char *layers[] = { "conv1", "conv2" };
  CtClassifier c;
  CtAnalysisPath path;

  g_assert_no_error (error);
  g_assert_true (ct_classifier_find (net, NULL, &c, &error));
  g_assert_true (ct_analysis_path_init (&path, net, &c, NULL, &error));
  conf = ct_confusion_run_keeping (net, &c, 100, path.input_blob, store, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (store->count, ==, 10000);
  for (guint l = 0; l < G_N_ELEMENTS (layers); l++)
    {
      double kept[3], kept_cpu[3], whole[3], whole_cpu[3];

      for (int r = 0; r < 3; r++)
        {
          gint64 t0 = g_get_monotonic_time ();
          double c0 = cpu_seconds ();
          g_autoptr (CtTopActivations) a = ct_top_activations_of_store (
            net, &path, store, layers[l], 3, 12, 100, NULL, NULL, &error);
          gint64 t1 = g_get_monotonic_time ();
          double c1 = cpu_seconds ();
          g_autoptr (CtTopActivations) b = ct_top_activations_run (net, NULL, layers[l], 3, 12,
                                                                   100, NULL, NULL, &error);

          g_assert_no_error (error);
          kept[r] = (t1 - t0) / 1e6;
          kept_cpu[r] = c1 - c0;
          whole[r] = (g_get_monotonic_time () - t1) / 1e6;
          whole_cpu[r] = cpu_seconds () - c1;
          g_assert_cmpuint (a->items->len, ==, 12);
          g_assert_cmpuint (b->items->len, ==, 12);
        }
      printf ("top activations, %s channel 3, 10,000 images: %.3f s (%.3f s of CPU) from the "
              "images kept; %.3f s (%.3f s of CPU) running the whole net over the LMDB "
              "(medians of 3)\n", layers[l], ct_bench_median (kept, 3),
              ct_bench_median (kept_cpu, 3), ct_bench_median (whole, 3),
              ct_bench_median (whole_cpu, 3));
    }
}

int
main (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *cmd = NULL;
  g_autofree char *cwd = g_get_current_dir ();

  if (!g_file_test (FASHION "t10k-images-idx3-ubyte.gz", G_FILE_TEST_EXISTS))
    {
      printf ("dataset-fashion-mnist is not installed: nothing to measure\n");
      return 77;
    }
  dir = ct_test_tmpdir_make ("cortado-bench-analysis-XXXXXX");
  cmd = g_strdup_printf ("cd '%s' && '%s' convert mnist " FASHION "t10k-images-idx3-ubyte.gz "
                         FASHION "t10k-labels-idx1-ubyte.gz fashion_test_lmdb >/dev/null",
                         dir, g_getenv ("CT_CLI"));
  if (system (cmd) != 0 || chdir (dir) != 0)
    return 1;
  bench_confusion ();
  bench_one_image ();
  bench_top ();
  if (chdir (cwd) != 0)
    return 1;
  ct_test_remove_tree (dir);
  return 0;
}
