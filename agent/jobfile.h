/* jobfile.h: the fio job file, built by the agent itself from a structured RunSpec.
 * Only a fixed set of options is ever written; no free-form text from the network reaches fio. */
#ifndef LG_JOBFILE_H
#define LG_JOBFILE_H

#include <stddef.h>

#include "lg.pb-c.h"

/* Check every field of spec (rw from a fixed list, bounded numbers, a clean absolute path).
 * Returns 0 or LG_EPROTO with the reason in err. */
int lg_jobfile_validate(const Lg__RunSpec *spec, char *err, size_t errlen);
/* Write the measured job for spec to path (layout_only: a job that only lays the file out).
 * Returns 0, LG_EPROTO (invalid spec, reason in err) or -errno. */
int lg_jobfile_write(const Lg__RunSpec *spec, const char *path, int layout_only, char *err,
                     size_t errlen);

#endif
