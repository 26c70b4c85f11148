/* lg_spec.h: campaign specs (YAML) parsed once into typed structs, and the run matrix they imply.
 * Every error names the file, line and key. Nothing downstream re-parses strings. */
#ifndef LG_SPEC_H
#define LG_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lg_names.h"
#include "lg_search.h"

/* Where a spec error was found and what it was. */
typedef struct {
    char file[256];
    int line;           /* 1-based; 0 if unknown */
    int column;         /* 1-based; 0 if unknown */
    char key[128];      /* dotted path, e.g. "profiles[1]" or "qd"; "" for the document */
    char message[1024]; /* e.g. "unknown profile \"4k-random\"" */
} lg_spec_diag_t;

/* Formats "FILE:LINE:COL: key \"KEY\": MESSAGE" into buf. */
void lg_spec_diag_format(const lg_spec_diag_t *d, char *buf, size_t len);

typedef struct {
    char *key;
    char *value;
} lg_label_t;

/* Which agents drive a target together: each entry picks one agent by name, or every agent
 * whose labels (lg-agent --label) include all of the given ones; an entry may fix that agent's
 * threads x QD at the campaign's load point (the spec's threads x qd; 0: the run's): a sweep's
 * other points and a search's probes run every agent at their own load. No entries: every idle
 * agent. */
typedef struct {
    char *name; /* NULL: by labels */
    lg_label_t *labels;
    size_t nlabels;
    uint32_t threads; /* 0: the run's */
    uint32_t qd;      /* 0: the run's */
} lg_agentsel_t;

typedef struct {
    lg_agentsel_t *sel;
    size_t nsel;
    lg_share_t share;
    bool sel_given;   /* agents: was written here (a target: else the campaign's applies) */
    bool share_given; /* share: was written here */
} lg_agents_t;

/* Where one protocol of a SUT config is reached. */
typedef struct {
    char protocol[32]; /* label: smb, iscsi, nfs, local, ... ([a-z0-9-]) */
    lg_target_kind_t kind;
    char *path;         /* absolute path (file or device), the smb:// or iscsi:// URL; "" for
                         * LG_TARGET_NULL */
    lg_agents_t agents; /* agents: and share: of this target (not given: the campaign's) */
    char fs[8];         /* fs: what a file target must sit on: cifs, nfs, iscsi, local, any;
                         * "" = by protocol (the agent's lg_fs_expect) */
    char *mount;        /* mount: the mount point a file target must be under; NULL: none */
    bool dir;           /* given as dir:/abs/dir (path is that folder's lg-data.bin) */
} lg_target_t;

/* A telemetry source: a Prometheus text endpoint on the NAS (node_exporter, FreeBSD's,
 * windows_exporter, netdata) that the controller scrapes during each run. */
#define LG_MAX_TELEMETRY 16
typedef struct {
    char name[64];        /* [A-Za-z0-9._-], unique in its list */
    char *url;            /* http:// or https:// */
    uint32_t interval_ms; /* default 1000 */
    uint32_t timeout_ms;  /* default 800; under interval_ms */
    char **metrics;       /* extra metric names kept ("NAME" or a prefix "NAME*") */
    size_t nmetrics;
    char credential[64]; /* the operator's credential sent with each scrape ("": none) */
    /* From that credential (lg_telemetry_resolve), never from a spec or a database row: */
    char *ca_file;    /* absolute; NULL: the system's CAs */
    char *token_file; /* absolute; a bearer token read by the controller; NULL: none */
} lg_telemetry_t;

/* One NAS configuration under test and its targets, in spec order. */
typedef struct {
    lg_label_t *labels;
    size_t nlabels;
    lg_target_t *targets;
    size_t ntargets;
    int line;                  /* where the config starts in the spec (for messages) */
    lg_telemetry_t *telemetry; /* telemetry: of this config (telemetry_given), else the spec's */
    size_t ntelemetry;
    bool telemetry_given;
    /* reduction: {probe: NAME, KEY: VALUE ...}: a probe of the operator's file (lg_operator.h)
     * and the values of its parameters, checked there; NULL: none */
    char *reduction;
    char **reduction_keys, **reduction_vals;
    size_t nreduction_params;
} lg_sutconfig_t;

typedef struct {
    uint32_t threads;
    uint32_t qd;
    uint32_t rate; /* offered IOPS over all agents and threads ("16T16Q@5000"); 0: unpaced */
} lg_load_t;

typedef struct {
    uint32_t bs;
    uint32_t pct;
} lg_bssplit_t;

/* An application benchmark (a profile with app:) instead of a fio workload: the agent runs a
 * private database server with its data in the target's folder, loads the data set and runs the
 * tool. */
typedef struct {
    int kind;            /* lg_app_kind_t (lg_app.h): pgbench or sysbench-oltp; 0: a fio profile */
    uint32_t clients;    /* pgbench clients: / sysbench threads:; 0: the campaign's threads */
    uint32_t jobs;       /* pgbench jobs: (its worker threads); 0: min(clients, the host's CPUs) */
    uint32_t scale;      /* pgbench scale: (100,000 accounts each) */
    uint32_t tables;     /* sysbench tables: */
    uint64_t table_size; /* sysbench table_size: rows per table */
    uint32_t runtime_s;  /* runtime:; 0: the campaign's */
    bool keep;           /* keep: leave the data folder (its server stopped) after the run */
} lg_appwl_t;

#define LG_MAX_LOADS 64
#define LG_MAX_BSSPLIT 16
#define LG_MAX_CURVE 20

/* A profile: a named workload. Standard ones: 4k-rand, 8k-7030, 8k-seq, 128k-seq. */
typedef struct {
    char name[64];
    uint32_t bs; /* bytes (with a bssplit: the largest block size) */
    bool random;
    int read_pct; /* 0..100 for a mixed run; -1: two runs, 100% read then 100% write */
    bool sweep;   /* the standard grid 2T2Q .. 16T16Q (8k-7030 by default) */
    lg_load_t loads[LG_MAX_LOADS]; /* explicit load points; nloads 0: sweep or the default */
    size_t nloads;
    uint32_t rate_iops;    /* per thread cap; 0 = none */
    uint32_t thinktime_us; /* pause after thinktime_blocks I/Os; 0 = none */
    uint32_t thinktime_blocks;
    lg_bssplit_t bssplit[LG_MAX_BSSPLIT];
    size_t nbssplit;
    bool loads_given;   /* sweep: was written (with a search, no load points unless it was) */
    lg_search_t search; /* search: {metric, limit, vary, ...}; .on false: none (threads/qd 0:
                         * the spec's) */
    uint32_t curve[LG_MAX_CURVE]; /* curve: percent of the maximum found (the search's best, else
                                   * the first load point's unpaced run), each a paced run */
    size_t ncurve;
    lg_appwl_t app;   /* app: an application benchmark; .kind 0: a fio workload */
    uint32_t retries; /* retries: of this profile's runs (retries_given), else the campaign's */
    bool retries_given;
    int line; /* where the profile is in the spec (messages) */
} lg_profile_t;

typedef struct {
    char *path;              /* file the spec came from (as given) */
    char *text;              /* the spec verbatim */
    char *name;              /* campaign name: [A-Za-z0-9._-]{1,63} */
    lg_sutconfig_t *configs; /* at least one, each with at least one target */
    size_t nconfigs;
    uint64_t size; /* bytes of the target file / null device to use */
    lg_profile_t *profiles;
    size_t nprofiles;
    uint32_t threads;   /* default load: >= 1, <= 256 */
    uint32_t qd;        /* >= 1, <= 4096 */
    uint32_t ramp_s;    /* seconds, >= 0 */
    uint32_t runtime_s; /* seconds, >= 1 */
    bool direct;        /* default true */
    uint32_t repeats;   /* measured runs per load point; default 1 */
    uint32_t retries;   /* more attempts of a run that failed for a transient reason; default 1 */
    lg_precond_t precondition; /* default steady state */
    uint32_t round_s;          /* steady-state round length; default 60 */
    uint32_t precond_max_s;    /* preconditioning stops here at the latest; default 1800 */
    double compress_ratio;     /* 0: not set (fio's random data) */
    double dedup_ratio;        /* 0: not set */
    uint32_t dedup_unit;       /* bytes; default 128 KiB */
    lg_between_t between;      /* between SUT configs; default pause */
    bool stop_on_agent_loss;   /* on_agent_loss: stop (true) or continue (default) */
    lg_agents_t agents;        /* the campaign's agents: and share: (targets may set their own) */
    lg_telemetry_t *telemetry; /* telemetry: the sources every config scrapes (may override) */
    size_t ntelemetry;
} lg_spec_t;

/* One run of the matrix. */
typedef struct {
    uint32_t config;        /* index into spec->configs */
    uint32_t target;        /* index into that config's targets */
    uint32_t profile_index; /* index into spec->profiles (fill: the first profile) */
    bool gate;              /* the first run of a config after the first: pause or hook first */
    lg_phase_t phase;
    uint32_t repeat; /* 1-based */
    char profile[64];
    char rw[16];       /* fio rw=: randread, randwrite, randrw, read, write, rw */
    char direction[8]; /* "read", "write" or "mixed" */
    uint32_t bs;
    int read_pct; /* 100, 0, or the mix */
    uint32_t threads;
    uint32_t qd;
    uint32_t ramp_s;
    uint32_t runtime_s; /* measure: runtime; preconditioning: the maximum duration */
    uint32_t round_s;   /* steady state: round length */
    uint32_t rate;      /* offered IOPS over all agents (0: unpaced) */
    uint32_t search;    /* search probes: which search (1-based, in plan order); 0: none */
    uint32_t probe;     /* 1-based probe number; only the first one's load is known beforehand */
    uint32_t curve_pct; /* a curve point: percent of its base's IOPS; 0: not one */
    int32_t curve_base; /* index of the run whose IOPS the curve is of; -1: the search's best */
} lg_run_plan_t;

/* Parse a spec from a file. On error returns LG_ESPEC (or a negative errno if the file cannot be
 * read) and fills *diag. Caller owns *out (lg_spec_destroy). */
int lg_spec_parse_file(const char *path, lg_spec_t **out, lg_spec_diag_t *diag);
/* Same, from memory; path is used in messages. text need not be NUL-terminated. */
int lg_spec_parse_text(const char *text, size_t len, const char *path, lg_spec_t **out,
                       lg_spec_diag_t *diag);
/* Sets *self_p to NULL. */
void lg_spec_destroy(lg_spec_t **self_p);

/* The agents and share that apply to target t: each its own if given, else the campaign's.
 * A shallow copy: it points into spec. */
lg_agents_t lg_spec_agents(const lg_spec_t *spec, const lg_target_t *t);
/* The selection as JSON for lg.run.agents, e.g. [{"name":"h1","threads":4},{"labels":{"rack":
 * "a"}}] ("[]": every idle agent). Caller frees. NULL on ENOMEM. */
char *lg_agents_json(const lg_agents_t *a);

/* The run matrix in execution order: for each config, each target, (a fill first if asked),
 * each profile in spec order, each workload (read before write, or the one mixed run): a
 * steady-state preconditioning run if asked, then each load point x repeats. Caller owns *runs
 * (free()). Returns 0 or -ENOMEM. */
int lg_spec_plan(const lg_spec_t *spec, lg_run_plan_t **runs, size_t *nruns);
/* Seconds the plan takes at most (ramp + runtime of every run; preconditioning at its maximum). */
uint64_t lg_plan_seconds(const lg_run_plan_t *runs, size_t nruns);
/* A fill's length so far as known (lgctl watch): its runtime is only its limit (max_s, ramp
 * included), so the ramp plus the time the slowest of n agents takes to write its size[i] at the
 * rate of what its samples so far moved (bytes[i] in ms[i] of samples), at most max_s; max_s
 * while an agent has no sample yet. */
uint32_t lg_plan_fill_s(uint32_t ramp_s, uint32_t max_s, const uint64_t *size,
                        const uint64_t *bytes, const uint64_t *ms, size_t n);
/* Block devices and iSCSI LUNs whose first run in the plan reads, with no fill before it: lg
 * writes such a target only in write runs (it is the user's device), and a region never written
 * reads as zeros without touching the disks (a fresh thin LUN or zvol), so those figures would
 * not be the disks'. Calls warn once per such target, naming it, the run and what to do.
 * Returns how many targets it warned about. */
size_t lg_plan_unwritten_reads(const lg_spec_t *spec, const lg_run_plan_t *runs, size_t nruns,
                               void (*warn)(void *arg, const char *msg), void *arg);
/* Parse "16T16Q" (threads 1..256, qd 1..1024), optionally paced: "16T16Q@5000", "@20k" (offered
 * IOPS over all agents; k = 1000). Returns 0 or LG_EPARSE. */
int lg_parse_load(const char *s, lg_load_t *out);

/* The telemetry sources config k scrapes: its own if it gave telemetry:, else the spec's. */
const lg_telemetry_t *lg_spec_telemetry(const lg_spec_t *spec, size_t k, size_t *n);
/* Sources as JSON for lg.run.telemetry ([{"name","url","interval_ms","timeout_ms","metrics",
 * "credential"}]); "[]" for none. Caller frees; NULL on ENOMEM. */
char *lg_telemetry_json(const lg_telemetry_t *t, size_t n);
/* And back (the controller reads lg.run.telemetry): 0, or LG_EPARSE with err. Caller owns the
 * array of *n sources (lg_telemetry_destroy). */
int lg_telemetry_from_json(const char *json, lg_telemetry_t **out, size_t *n, char *err,
                           size_t errlen);
/* Free the array *self_p of n sources (each cleared, then the array) and set *self_p to NULL;
 * NULL or *NULL: nothing. */
void lg_telemetry_destroy(lg_telemetry_t **self_p, size_t n);
/* Free what one source holds (not the struct itself) and zero it. */
void lg_telemetry_clear(lg_telemetry_t *t);
/* Each source's credential looked up in the operator's file (lg_operator.h) and checked against
 * its URL's origin; its token_file and ca_file copied in. 0, or LG_EDENIED / -ENOMEM with err
 * naming the source. */
struct lg_operator;
int lg_telemetry_resolve(lg_telemetry_t *t, size_t n, const struct lg_operator *op, char *err,
                         size_t errlen);
/* A config's reduction probe as JSON (lg.run.reduction: {"probe":NAME,"params":{KEY:VALUE}});
 * NULL for none or ENOMEM. */
char *lg_reduction_json(const lg_sutconfig_t *cfg);
/* And back: the probe's name and its parameters (n of them). 0 or LG_EPARSE. Caller frees the
 * strings and arrays (lg_reduction_ref_free). */
int lg_reduction_from_json(const char *json, char **probe, char ***keys, char ***vals, size_t *n);
void lg_reduction_ref_free(char *probe, char **keys, char **vals, size_t n);
/* Parse "800ms", "1s", "1.5s", "2m", "1000" (ms) into milliseconds. 0 or LG_EPARSE. */
int lg_parse_ms(const char *s, uint32_t *ms);

/* Look up a standard profile by name; NULL if unknown. */
const lg_profile_t *lg_profile_find(const char *name);

/* Parse "5s", "2m", "1h", "90" (seconds). Returns 0 or LG_EPARSE. */
int lg_parse_duration(const char *s, uint32_t *seconds);
/* Parse "4096", "4k", "4KiB", "256M", "1G", "16 GB", "1T", "1P", "1E": K to E are powers of 1024,
 * as in fio; a unit may follow one space; B and iB after it change nothing. Returns 0 or
 * LG_EPARSE. */
int lg_parse_size(const char *s, uint64_t *bytes);
/* Parse "4k/50:64k/50" (block sizes multiples of 512 up to 16M, percentages 1-100) into out (at
 * most max pairs, *n of them), their percentages summed in *total (callers check it is 100).
 * Returns 0 or LG_EPARSE. */
int lg_parse_bssplit(const char *s, lg_bssplit_t *out, size_t max, size_t *n, uint32_t *total);

#endif
