/* status.c: names of kernel statuses. */
#include "status.h"

const char *
ct_status_to_string (CtStatus status)
{
  switch (status)
    {
    case CT_STATUS_OK:
      return "ok";
    case CT_STATUS_NO_DEVICE:
      return "no device";
    case CT_STATUS_DEVICE_ERROR:
      return "device error";
    case CT_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case CT_STATUS_INVALID:
      return "invalid argument";
    }
  /* A value outside the enum (a cast int): still answer something. */
  return "unknown status";
}
