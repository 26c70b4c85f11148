/* platform.h: what the agent asks of the operating system. platform_posix.c answers on Linux,
 * platform_win.c on Windows; nothing else in the agent calls OS-specific functions. */
#ifndef LG_PLATFORM_H
#define LG_PLATFORM_H

#include "lg_cpu.h"
#include "lg_fs.h"
#include <stddef.h>
#include <stdint.h>

#include "lg.pb-c.h"

#ifdef _WIN32
#define LG_PLAT_SEP '\\'
#else
#define LG_PLAT_SEP '/'
#endif

typedef struct {
    char os[256];  /* e.g. "Linux 6.1.0-18-amd64 x86_64", "Windows 10.0.20348 x86_64" */
    char cpu[256]; /* CPU model name */
    uint32_t ncpu;
    uint64_t mem_bytes;
} lg_plat_host_t;

void lg_plat_host(lg_plat_host_t *h);

#define LG_PLAT_MAX_NICS 16
#define LG_PLAT_MAX_ADDRS 8

/* Network interfaces (not loopback) with link speed (Mb/s, 0 unknown), MAC and addresses, as
 * Hello carries them: ptr[0..n) point into nic[]. */
typedef struct {
    Lg__Nic nic[LG_PLAT_MAX_NICS];
    Lg__Nic *ptr[LG_PLAT_MAX_NICS];
    char name[LG_PLAT_MAX_NICS][260];
    char mac[LG_PLAT_MAX_NICS][32];
    char addr[LG_PLAT_MAX_NICS][LG_PLAT_MAX_ADDRS][48];
    char *addrp[LG_PLAT_MAX_NICS][LG_PLAT_MAX_ADDRS];
    size_t n;
} lg_plat_nics_t;

void lg_plat_nics(lg_plat_nics_t *t);

/* The size of a block device (Linux /dev/..., Windows \\.\PhysicalDriveN). Returns 0, or an
 * error with err naming the path and the reason (not a block device: LG_EDENIED). */
int lg_plat_block_bytes(const char *path, uint64_t *bytes, char *err, size_t errlen);

/* fio's asynchronous engine here: libaio on Linux, windowsaio on Windows. */
const char *lg_plat_async_engine(void);

/* The first line of "fio --version" of the fio binary given on our command line. */
void lg_plat_fio_version(const char *fio, char *buf, size_t len);

/* An absolute local path: "/..." on Linux; "C:\...", "\\server\share\..." or "\\.\Device" on
 * Windows (where '/' is taken as '\' too). */
int lg_plat_path_absolute(const char *p);

/* A target path fio can be given as is: absolute, at most 1024 bytes, printable, no '$' (fio
 * expands ${VAR} in job files), no ".." component; on Linux no backslash, on Windows no ':' but
 * the drive's. */
int lg_plat_path_clean(const char *p);

/* Is path inside (or equal to) the allowed prefix? Both absolute; compared component by
 * component, case-insensitively on Windows; ".." or "." components are never inside. */
int lg_plat_path_under(const char *path, const char *prefix);

#ifndef _WIN32
/* Is real (a path with its links resolved) inside one of the allowed folders, each with its own
 * links resolved too (an allowed /mnt/nas that is a link to /srv/nas allows /srv/nas/...)? The
 * allowed folder it is in goes to which. smb:// and iscsi:// prefixes are skipped. */
int lg_plat_real_allowed(const char *real, const char *const *allow, size_t nallow, char *which,
                         size_t wlen);
#endif

/* A run's file or device target, resolved, checked against the allow-list and held open from
 * Prepare to the end of the run, so that what fio writes is what was checked: on Linux fio is
 * given "/proc/self/fd/4" (the held descriptor, passed to it as fd 4), which no link swapped in
 * afterwards can redirect; on Windows the handle is held without FILE_SHARE_DELETE, so the file
 * cannot be renamed or replaced while the run has it, and fio is given its resolved path. */
#define LG_PLAT_TARGET_FD 4
typedef struct {
    intptr_t fd;         /* POSIX: the held descriptor (O_PATH, or O_RDWR when we created it);
                          * Windows: the HANDLE; -1 when none */
    uint64_t dev, ino;   /* what it is: device and inode (volume serial and file index) */
    int is_dev;          /* a block or character device */
    int is_chr;          /* a character device */
    uint64_t size;       /* a regular file's size when checked */
    int created;         /* we created it (it did not exist) */
    char real[1100];     /* its resolved path, links followed */
    char fio_path[1100]; /* what the job file names */
} lg_plat_target_t;

/* Resolve path (following every link), open what it names (creating a regular file, and the
 * folders to it, when it does not exist and create is set; never through a link) and check that
 * its resolved path lies inside one of the resolved allowed paths (absolute paths; URL entries
 * are skipped). Folders and anything but regular files and devices are refused, and so is a
 * regular file with more than one hard link (another name of it may lie outside). Returns 0 with
 * *t filled (release it with lg_plat_target_close), or LG_EDENIED / -errno with err naming the
 * target, what it resolved to and why. */
int lg_plat_target_open(const char *path, const char *const *allow, size_t nallow, int create,
                        lg_plat_target_t *t, char *err, size_t errlen);
/* Does path still name the held target? 0, or LG_EDENIED with err saying what changed. */
int lg_plat_target_recheck(const lg_plat_target_t *t, const char *path, char *err, size_t errlen);
/* Make a held regular file at least bytes long (sparse; the layout then writes it). */
int lg_plat_target_extend(lg_plat_target_t *t, uint64_t bytes, char *err, size_t errlen);
/* A path through which this process itself can open the held target (the data check). */
void lg_plat_target_self_path(const lg_plat_target_t *t, char *buf, size_t len);
void lg_plat_target_close(lg_plat_target_t *t);
/* Where the held target really sits: its filesystem, mount point, whether it is a network
 * filesystem or an iSCSI disk (lg_fs.h). f->known stays 0 when nothing could be found out. */
void lg_plat_target_fs(const lg_plat_target_t *t, lg_fs_facts_t *f);

/* One reading of this host's CPU (lg_cpu.h), for the load host's own figures in samples. Linux:
 * /proc/stat's lines of the CPUs in the agent's affinity mask (a pinned agent, or one in a
 * cpuset, measures the CPUs it and its fio can use), and the CPU time of fio_pid and every
 * process below it from /proc/PID/stat. Windows: GetSystemTimes (all processors) and
 * the user and kernel time of fio_pid and the processes below it (SystemProcessInformation).
 * fio_pid <= 0: the host only. What
 * cannot be read leaves host_ok or fio_ok 0. */
void lg_plat_cpu_snap(int64_t fio_pid, lg_cpu_snap_t *s);

/* This host's name (the agent's default name). */
void lg_plat_hostname(char *buf, size_t len);

/* Where the agent's work folders go by default: /var/tmp, or %ProgramData%\lg on Windows. */
void lg_plat_default_work_dir(const char *name, char *buf, size_t len);

#endif
