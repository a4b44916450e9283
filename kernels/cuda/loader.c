/* cuda/loader.c: every ct_cuda_* function in a build with CUDA, forwarded
 * to the CUDA module, which the first call opens (cuda-module.h).
 *
 * The module is looked for at $CT_CUDA_MODULE when set; else, for a program
 * run from its build folder (the one holding cortado-uninstalled.ini: the
 * program's folder or one of the two above it), in that folder's kernels/;
 * else in CT_CUDA_MODULE_DIR, where meson installs it. When it cannot be opened the
 * calls go to the stubs (cuda/stub*.c, compiled here under the names
 * ct_cuda_stub_*), which answer CT_STATUS_NO_DEVICE, and ct_cuda_last_error
 * gives the reason. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda-module.h"
#include "table.h"

#define CT_CUDA_STUB_DECLARATION(ret, name, params, args) ret ct_cuda_stub_##name params;
CT_CUDA_FUNCTIONS (CT_CUDA_STUB_DECLARATION)

#define CT_CUDA_STUB_ENTRY(ret, name, params, args) .name = ct_cuda_stub_##name,

/* Not const: load_module points its last_error at the reason. */
static CtCudaTable stubs = {
  .version = CT_CUDA_TABLE_VERSION,
  CT_CUDA_FUNCTIONS (CT_CUDA_STUB_ENTRY)
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const CtCudaTable *table = &stubs;
static CtCudaModuleState state;
static char path[PATH_MAX];
static char reason[PATH_MAX + 256];

static const char *
stub_last_error (void)
{
  return reason;
}

/* The build folder above the running program, when it is run from one. */
static int
find_build_dir (char *dir, size_t size)
{
  ssize_t n = readlink ("/proc/self/exe", dir, size - 1);

  if (n <= 0)
    return 0;
  dir[n] = '\0';
  for (int up = 0; up < 3; up++)
    {
      char ini[PATH_MAX];
      char *slash = strrchr (dir, '/');

      if (slash == NULL)
        return 0;
      *slash = '\0';
      if (snprintf (ini, sizeof ini, "%s/cortado-uninstalled.ini", dir) < (int) sizeof ini
          && access (ini, F_OK) == 0)
        return 1;
    }
  return 0;
}

/* PATH: where the module is looked for; 0 when that does not fit in it. */
static int
find_module (void)
{
  const char *override = getenv ("CT_CUDA_MODULE");
  char dir[PATH_MAX];
  int n;

  if (override != NULL && *override != '\0')
    n = snprintf (path, sizeof path, "%s", override);
  else if (find_build_dir (dir, sizeof dir))
    n = snprintf (path, sizeof path, "%s/kernels/%s", dir, CT_CUDA_MODULE_NAME);
  else
    n = snprintf (path, sizeof path, "%s/%s", CT_CUDA_MODULE_DIR, CT_CUDA_MODULE_NAME);
  return n >= 0 && n < (int) sizeof path;
}

static void
load_module (void)
{
  void *handle;
  const CtCudaTable *found;

  stubs.last_error = stub_last_error;
  if (!find_module () || access (path, F_OK) != 0)
    {
      state = CT_CUDA_MODULE_MISSING;
      snprintf (reason, sizeof reason, "Cortado's CUDA module %s is missing", path);
      return;
    }
  /* RTLD_LOCAL: the CUDA runtime and cuBLAS stay the module's own. */
  handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    {
      state = CT_CUDA_MODULE_UNLOADABLE;
      snprintf (reason, sizeof reason, "%s", dlerror ());
      return;
    }
  found = dlsym (handle, CT_CUDA_TABLE_SYMBOL);
  if (found == NULL || found->version != CT_CUDA_TABLE_VERSION)
    {
      state = CT_CUDA_MODULE_MISMATCH;
      snprintf (reason, sizeof reason, "Cortado's CUDA module %s belongs to another build", path);
      dlclose (handle);
      return;
    }
  /* Never closed: device memory and cuBLAS handles live as long as the process. */
  state = CT_CUDA_MODULE_LOADED;
  table = found;
}

static const CtCudaTable *
get_table (void)
{
  pthread_once (&once, load_module);
  return table;
}

CtCudaModuleState
ct_cuda_module_load (const char **detail)
{
  get_table ();
  if (detail != NULL)
    *detail = state == CT_CUDA_MODULE_UNLOADABLE ? reason : state == CT_CUDA_MODULE_LOADED ? "" : path;
  return state;
}

#define CT_CUDA_FORWARD(ret, name, params, args) \
  ret ct_cuda_##name params { return get_table ()->name args; }
CT_CUDA_FUNCTIONS (CT_CUDA_FORWARD)
