/* reference-dump.h: reading the binary blob dumps of real Caffe described
 * in ../shared/reference/README.md ("CAFFEDMP": every net blob's data and
 * diff, then every parameter blob), so that layer tests can feed a layer
 * the reference's bottoms and compare its tops and diffs. */
#pragma once

#include "blob.h"
#include "net.h"

typedef struct {
  int kind; /* 0: net blob, 1: parameter blob */
  char *name;
  int index;
  guint n_axes;
  gint64 dims[CT_BLOB_MAX_AXES];
  gint64 count;
  float *data;
  float *diff;
} CtTestDumpRecord;

typedef struct {
  float loss;
  GPtrArray *records; /* CtTestDumpRecord* */
} CtTestDump;

/* The dump FILE_NAME from $CT_TEST_DATA/reference, else
 * $CT_SHARED_DIR/reference; NULL when neither has it (the caller skips).
 * A file that exists but does not parse fails the test. */
CtTestDump *ct_test_dump_load (const char *file_name);
void ct_test_dump_free (CtTestDump *dump);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtTestDump, ct_test_dump_free)

/* The net blob (KIND 0) or parameter blob (KIND 1) named NAME; fails the
 * test when absent. */
const CtTestDumpRecord *ct_test_dump_find (const CtTestDump *dump, int kind,
                                           const char *name, int index);

/* A new blob with the record's shape, data and diff. */
CtBlob *ct_test_dump_blob (const CtTestDumpRecord *record);

/* Whether RECORD's shape is BLOB's. */
gboolean ct_test_dump_record_fits (const CtTestDumpRecord *record, CtBlob *blob);

/* NET's blob or parameter blob that RECORD describes (a net blob by its
 * index, checked against its name; a parameter by layer name and index),
 * or NULL when the net has none. */
CtBlob *ct_test_dump_net_blob (CtNet *net, const CtTestDumpRecord *record);

/* ||ours - ref|| / ||ref|| (the plain norm of OURS when REF is all zeros). */
double ct_test_relative_error (const float *ours, const float *ref, gint64 n);
