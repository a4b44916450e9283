/* cli-explain.c: `cortado-cli explain --model=NET --weights=W
 * --method=saliency|grad-cam|occlusion (--image=FILE | --fashion=INDEX)`:
 * why the net gives one image the class it gives: the map of the chosen
 * method over the image, saved as a PNG overlay (--png) and as .npy
 * (--npy), and a line on standard output with the class, its score and the
 * map's size. The class is the net's answer unless --class names another.
 * The image goes into the net's input (or `data`) blob, scaled by --scale
 * (default 1; the Fashion-MNIST examples read pixels × 1/256). */
#include <glib/gi18n-lib.h>
#include <string.h>

#include "analysis-net.h"
#include "attribution-export.h"
#include "cli-analysis-private.h"
#include "cli-private.h"
#include "grad-cam.h"
#include "occlusion.h"
#include "run-inputs.h"
#include "saliency.h"

typedef struct {
  char *model, *weights, *method, *layer, *image, *png, *npy, *input, *scores, *fashion_dir;
  int fashion, klass, patch, stride, batch;
  double scale, opacity, fill;
  gboolean has_fill;
} ExplainOptions;

static float *
load_image (const ExplainOptions *o, const CtAnalysisPath *path, GError **error)
{
  gint64 dims[4] = { 1, path->channels, path->height, path->width };
  CtInputTransform transform;

  if (o->image != NULL)
    {
      ct_input_transform_init (&transform);
      transform.scale = (float) o->scale;
      return ct_input_load_path (o->image, &transform, dims, 4, error);
    }
  else
    {
      g_autoptr (CtFashionSet) set = ct_fashion_set_load (o->fashion_dir, error);
      guint item = (guint) o->fashion;

      if (set == NULL)
        return NULL;
      if (item >= set->count)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                       _("the Fashion-MNIST test set has %u images; there is no image %u"),
                       set->count, item);
          return NULL;
        }
      return ct_fashion_set_batch (set, &item, 1, dims, 4, (float) o->scale, NULL, error);
    }
}

/* The net's answer for IMAGE: the class of the highest score. */
static gboolean
answer (CtNet *net, const CtClassifier *c, const CtAnalysisPath *path, const float *image,
        guint *klass, GError **error)
{
  float *input = ct_analysis_path_batch (path, net, 1, error);
  const float *scores;
  guint k = 0;

  if (input == NULL)
    return FALSE;
  memcpy (input, image, sizeof (float) * path->channels * path->height * path->width);
  if (!ct_analysis_path_forward (path, net, error))
    return FALSE;
  scores = ct_analysis_path_scores (path, net, c, &k, error);
  if (scores == NULL)
    return FALSE;
  *klass = 0;
  for (guint j = 1; j < k; j++)
    if (scores[j] > scores[*klass])
      *klass = j;
  return TRUE;
}

static void
image_range (const float *v, gsize n, float *lo, float *hi)
{
  *lo = *hi = v[0];
  for (gsize i = 1; i < n; i++)
    {
      *lo = MIN (*lo, v[i]);
      *hi = MAX (*hi, v[i]);
    }
}

static gboolean
run_explain (const ExplainOptions *o, GError **error)
{
  g_autoptr (CtNet) net = ct_analysis_load_net (o->model, o->weights, CAFFE__PHASE__TEST, TRUE,
                                                error);
  g_autofree float *image = NULL;
  g_autofree float *map = NULL;
  CtClassifier classifier;
  CtAnalysisPath path;
  float score = 0.0f;
  guint klass;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (net == NULL || !ct_classifier_find (net, o->scores, &classifier, error)
      || !ct_analysis_path_init (&path, net, &classifier, o->input, error))
    return FALSE;
  image = load_image (o, &path, error);
  if (image == NULL)
    return FALSE;
  if (o->klass >= 0)
    klass = (guint) o->klass;
  else if (!answer (net, &classifier, &path, image, &klass, error))
    return FALSE;
  if (strcmp (o->method, "saliency") == 0)
    {
      g_autofree float *gradient = ct_saliency_gradient (net, &classifier, &path, image, klass,
                                                         &score, error);

      if (gradient == NULL)
        return FALSE;
      map = ct_saliency_map (gradient, path.channels, path.height, path.width);
    }
  else if (strcmp (o->method, "grad-cam") == 0)
    {
      g_autoptr (CtGradCam) cam = ct_grad_cam_compute (net, &classifier, &path, image, klass,
                                                       o->layer, error);

      if (cam == NULL)
        return FALSE;
      score = cam->score;
      map = g_steal_pointer (&cam->image_cam);
    }
  else
    {
      CtOcclusionParams params = {
        .patch = (guint) o->patch, .stride = (guint) o->stride, .batch = (guint) o->batch,
        .fill = (float) o->fill,
      };
      g_autoptr (CtOcclusion) occ = NULL;

      if (!o->has_fill)
        {
          float lo, hi;

          image_range (image, (gsize) path.channels * path.height * path.width, &lo, &hi);
          params.fill = (lo + hi) / 2.0f;
        }
      occ = ct_occlusion_compute (net, &classifier, &path, image, klass, &params, NULL, NULL,
                                  error);
      if (occ == NULL)
        return FALSE;
      score = occ->baseline;
      map = g_steal_pointer (&occ->image_map);
    }
  if (o->png != NULL
      && !ct_attribution_save_png (o->png, image, path.channels, path.height, path.width, map,
                                   o->opacity, 8, error))
    return FALSE;
  if (o->npy != NULL && !ct_attribution_save_npy (o->npy, map, path.height, path.width, error))
    return FALSE;
  g_print ("%s\tclass %u\tscore %s\t%u×%u\n", o->method, klass,
           g_ascii_formatd (buf, sizeof buf, "%.6g", score), path.height, path.width);
  return TRUE;
}

int
ct_cli_explain (int argc, char **argv)
{
  ExplainOptions o = { .fashion = -1, .klass = -1, .patch = 5, .stride = 1, .batch = 64,
                       .scale = 1.0, .opacity = 0.6 };
  const GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &o.model, N_("The net"), N_("NET") },
    { "weights", 0, 0, G_OPTION_ARG_FILENAME, &o.weights, N_("Trained weights (.caffemodel)"),
      N_("FILE") },
    { "method", 0, 0, G_OPTION_ARG_STRING, &o.method,
      N_("saliency, grad-cam or occlusion"), N_("METHOD") },
    { "layer", 0, 0, G_OPTION_ARG_STRING, &o.layer,
      N_("The convolution layer of grad-cam"), N_("LAYER") },
    { "class", 0, 0, G_OPTION_ARG_INT, &o.klass,
      N_("The class to explain (default: the net's answer)"), N_("K") },
    { "image", 0, 0, G_OPTION_ARG_FILENAME, &o.image, N_("An image file"), N_("FILE") },
    { "fashion", 0, 0, G_OPTION_ARG_INT, &o.fashion,
      N_("Image INDEX of the Fashion-MNIST test set"), N_("INDEX") },
    { "fashion-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.fashion_dir,
      N_("Where the Fashion-MNIST files are"), N_("DIR") },
    { "scale", 0, 0, G_OPTION_ARG_DOUBLE, &o.scale,
      N_("Multiply the pixels by this (default 1)"), N_("S") },
    { "input", 0, 0, G_OPTION_ARG_STRING, &o.input,
      N_("The input blob (default: the net's first input, or data)"), N_("BLOB") },
    { "scores", 0, 0, G_OPTION_ARG_STRING, &o.scores, N_("The blob of class scores"),
      N_("BLOB") },
    { "patch", 0, 0, G_OPTION_ARG_INT, &o.patch, N_("Occlusion: the patch's side (default 5)"),
      N_("PIXELS") },
    { "stride", 0, 0, G_OPTION_ARG_INT, &o.stride,
      N_("Occlusion: pixels between patches (default 1)"), N_("PIXELS") },
    { "fill", 0, 0, G_OPTION_ARG_DOUBLE, &o.fill,
      N_("Occlusion: the patch's value (default: the middle of the image's range)"), N_("V") },
    { "png", 0, 0, G_OPTION_ARG_FILENAME, &o.png, N_("Save the map over the image as a PNG"),
      N_("FILE") },
    { "npy", 0, 0, G_OPTION_ARG_FILENAME, &o.npy, N_("Save the map as a NumPy .npy file"),
      N_("FILE") },
    { "opacity", 0, 0, G_OPTION_ARG_DOUBLE, &o.opacity,
      N_("The map's opacity over the image, 0 to 1 (default 0.6)"), N_("A") },
    { NULL }
  };
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  const char *methods[] = { "saliency", "grad-cam", "occlusion", NULL };
  int status = CT_CLI_EXIT_OK;

  o.fill = G_MAXDOUBLE;
  context = ct_cli_context_new ("explain", NULL,
                                _("Show which parts of an image a trained net's answer rests "
                                  "on: saliency, Grad-CAM or occlusion, as a PNG overlay and a "
                                  ".npy map."), entries);
  if (!ct_cli_parse (context, &argc, &argv))
    status = CT_CLI_EXIT_USAGE;
  else if (argc > 1)
    status = ct_cli_usage_error ("explain", _("unexpected argument '%s'"), argv[1]);
  else if (o.model == NULL)
    status = ct_cli_usage_error ("explain", _("no net given (--model NET)"));
  else if (o.method == NULL || !g_strv_contains (methods, o.method))
    status = ct_cli_usage_error ("explain", _("--method must be saliency, grad-cam or "
                                              "occlusion"));
  else if (strcmp (o.method, "grad-cam") == 0 && o.layer == NULL)
    status = ct_cli_usage_error ("explain", _("grad-cam needs a layer (--layer LAYER)"));
  else if ((o.image == NULL) == (o.fashion < 0))
    status = ct_cli_usage_error ("explain", _("give one image: --image FILE or --fashion INDEX"));
  else if (o.patch < 1 || o.stride < 1)
    status = ct_cli_usage_error ("explain", _("--patch and --stride must be 1 or more"));
  else
    {
      o.has_fill = o.fill != G_MAXDOUBLE;
      if (!run_explain (&o, &error))
        {
          g_printerr ("cortado-cli explain: %s\n", error->message);
          status = CT_CLI_EXIT_INPUT;
        }
    }
  g_free (o.model);
  g_free (o.weights);
  g_free (o.method);
  g_free (o.layer);
  g_free (o.image);
  g_free (o.png);
  g_free (o.npy);
  g_free (o.input);
  g_free (o.scores);
  g_free (o.fashion_dir);
  return status;
}
