/* apprec.h: the record an application run keeps in the agent's work folder while it has a
 * private database server and folders: what they are (paths, device and inode, owner, the
 * server's program) and which processes it started, so that an agent killed mid-run can be
 * cleaned up after by the next one (appclean.h). POSIX only. */
#ifndef LG_APPREC_H
#define LG_APPREC_H

#include <stddef.h>
#include <stdint.h>

#define LG_APPREC_PATH 1100
#define LG_APPREC_MAX_PROCS 32 /* a run records 5: its steps, server and tool */
#define LG_APPREC_MAX_BYTES 16384

/* A process the run started: its PID and its start time (clock ticks after boot, from
 * /proc/PID/stat), which together name it even after the PID is reused. */
typedef struct {
    int pid;
    uint64_t start;
    int server; /* the database server (stopped gently); else a client step (killed) */
} lg_apprec_proc_t;

typedef struct {
    int kind; /* lg_app_kind_t: LG_APP_PGBENCH or LG_APP_SYSBENCH_OLTP */
    uint64_t run_id;
    int keep;     /* spec.app.keep: the data folder stays */
    unsigned uid; /* who owns the folders (the application user) */
    /* the kernel's boot_id when it was written: after a reboot no process of it can be
     * running, whatever PIDs and start times say */
    char boot[40];
    char server[LG_APPREC_PATH]; /* the server program, links resolved */
    char data[LG_APPREC_PATH];   /* the data folder, links resolved */
    uint64_t data_dev, data_ino;
    char sock[LG_APPREC_PATH]; /* the socket folder, /tmp/lg-app-XXXXXX */
    uint64_t sock_dev, sock_ino;
    lg_apprec_proc_t procs[LG_APPREC_MAX_PROCS];
    size_t nprocs;
} lg_apprec_t;

/* The record's text without its proc lines, into buf. Returns its length, or LG_ETOOBIG, or
 * LG_EPARSE when a path is not one the parser would take back. */
int lg_apprec_format(const lg_apprec_t *rec, char *buf, size_t len);

/* Read a record's text (len bytes, need not end in a zero). Every field is checked: absolute
 * paths without "." or ".." parts or control characters, a data folder named lg-..., a socket
 * folder /tmp/lg-app-...; of more than LG_APPREC_MAX_PROCS proc lines the newest are kept, and a
 * last line cut short by a crash is dropped. Returns 0, or LG_EPARSE with err naming the line
 * and what is wrong. */
int lg_apprec_parse(const char *text, size_t len, lg_apprec_t *out, char *err, size_t errlen);

/* The record's file name for run_id ("app-RUN.rec") into buf. */
void lg_apprec_name(uint64_t run_id, char *buf, size_t len);

/* Create the record in dir (a folder lg_owndir accepted): made anew (O_CREAT|O_EXCL|O_NOFOLLOW,
 * 0600), written, fsynced, and the folder fsynced. Returns 0 with *fd set (caller owns it: for
 * lg_apprec_add_proc, then close), or a negative errno with err saying why (nothing is left). */
int lg_apprec_create(const char *dir, const lg_apprec_t *rec, int *fd, char *err, size_t errlen);

/* Append the process pid (with its start time) to the record open on fd, fsynced. Returns 0 or
 * a negative errno (ESRCH: pid is gone already, nothing written). */
int lg_apprec_add_proc(int fd, int pid, int server);

/* Remove run_id's record from dir, fsyncing the folder. Returns 0 (also when it is not there)
 * or a negative errno. */
int lg_apprec_remove(const char *dir, uint64_t run_id);

/* This boot's id (/proc/sys/kernel/random/boot_id) into buf (at least 37 bytes). Returns 0 or a
 * negative errno (buf then ""). */
int lg_apprec_boot_id(char *buf, size_t len);

/* pid's start time (from /proc/PID/stat) and whether it is a zombie; 0 when there is no such
 * process or it cannot be read. */
uint64_t lg_apprec_starttime(int pid, int *zombie);
/* What application runs' records and fio's (fiorec.c) share: */
/* The record file name in the open folder dfd, whole, into text (at most max bytes, NUL-ended;
 * text holds max + 1): only a regular file of this user, read without following a link.
 * Returns the length, or -EIO / LG_EDENIED with err set. */
long lg_rec_read(int dfd, const char *name, char *text, size_t max, char *err, size_t errlen);
/* Remove the record file name from folder dir (gone already is fine) and sync the folder.
 * Returns 0 or a negative errno value. */
int lg_rec_remove(const char *dir, const char *name);

#endif
