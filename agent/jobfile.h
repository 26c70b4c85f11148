/* jobfile.h: the fio job file, built by the agent itself from a structured RunSpec.
 * Only a fixed set of options is ever written; no free-form text from the network reaches fio. */
#ifndef LG_JOBFILE_H
#define LG_JOBFILE_H

#include <stddef.h>

#include "lg.pb-c.h"

/* Check every field of spec (rw from a fixed list, bounded numbers, a clean absolute path).
 * Returns 0 or LG_EPROTO with the reason in err. */
int lg_jobfile_validate(const Lg__RunSpec *spec, char *err, size_t errlen);
/* Does the run write (so that a data pattern applies to it)? */
int lg_jobfile_writes(const Lg__RunSpec *spec);

/* What the agent decides about its own host, the same for every job it writes. */
typedef struct {
    const char
        *clocksource; /* fio clocksource= ("cpu", "clock_gettime"), or NULL: fio's own choice */
    const char *engine_dir; /* where lgsmb.so and lgiscsi.so are (smb:// and iscsi:// targets) */
    const char *smb_credentials; /* the agent's SMB credentials file, or NULL */
    const char *iscsi_chap;      /* the agent's CHAP credentials file, or NULL */
} lg_jobhost_t;

/* How many fio jobs the measured job file for spec defines (its numjobs). */
unsigned lg_jobfile_njobs(const Lg__RunSpec *spec);
/* The fio engine a target kind needs beyond fio's own: "lgsmb", "lgiscsi", or NULL. */
const char *lg_jobfile_engine(int target_kind);

/* fio picks its clock by a timing test at start-up that load on the host can disturb, silently
 * falling back from the TSC to clock_gettime (a quarter fewer IOPS on fast targets). Decide once:
 * "cpu" when the kernel itself clocks from a constant, non-stop TSC, else NULL. */
const char *lg_jobfile_detect_clocksource(const char *sys_clocksource_path,
                                          const char *cpuinfo_path);
/* Write the measured job for spec to path (layout_only: a job that only lays the file out, or
 * for smb:// and iscsi:// targets a probe that connects and reads one block, so that a wrong
 * password, a missing share or LUN fails Prepare).
 * host may be NULL. Returns 0, LG_EPROTO (invalid spec, reason in err) or -errno. */
int lg_jobfile_write(const Lg__RunSpec *spec, const char *path, int layout_only,
                     const lg_jobhost_t *host, char *err, size_t errlen);

#endif
