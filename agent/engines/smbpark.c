/* smbpark.c: lgsmb's parked sessions (see smbpark.h): the key, the park folder's names, a parked
 * worker's wait and the handshake by which a job adopts it. Names in the folder:
 *   t-PID          a worker's socket while it is made (no job may find it before it listens)
 *   p-KEY-PID      a parked worker, KEY the first bytes of its key in hex
 *   c-PID-CLAIMER  a parked worker a job has claimed (renamed: no other job can take it), for the
 *                  instant of the connect
 * The folder is lg-agent's own (0700); a socket's peer must be of this user on either side, and
 * what comes over it is checked as data: no path or command is taken from it. */
#include "smbpark.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "creds.h"
#include "smbconn.h"
#include "smbctx.h"
#include "smblogon.h"

/* What a job and a parked worker say to each other: in the key (a worker of another lgsmb.so
 * never matches) and in each message. */
#define S_VERSION 1
#define S_MAGIC UINT64_C(0x6c67736d62706b31) /* "lgsmbpk1" */
#define S_KEY_HEX 12                         /* bytes of the key in a parked name */
#define S_HANDSHAKE_MS 2000
#define S_CLAIM_GRACE_MS 2000 /* a worker claimed as its idle time ended waits for its job */
#define S_MAX_SLOT (1u << 30)
#define S_MAX_INDEX 65536u
#define S_MAX_FILES 65536u

/* Job to worker, with the pool's memfd and the completion pipe's write end. */
typedef struct {
    uint64_t magic;
    uint32_t version;
    uint32_t index;
    uint64_t slot_size;
    uint32_t nfiles;
    uint32_t pad;
    uint8_t key[LG__SMB_KEY_LEN];
} s_adopt_msg_t;

/* Worker to job, with the worker's own pidfd when result is 0. */
typedef struct {
    uint64_t magic;
    int32_t result; /* 0, or why the worker refused (a negative errno value); it then exits */
    int32_t pid;
} s_reply_t;

/* ---- the park and its key ---- */

/* s_num: a decimal number at *v, from 1 to max, followed by ':'; *v moves past the ':'. */
static int s_num(const char **v, uint64_t max, uint64_t *out)
{
    const char *s = *v;
    uint64_t n = 0;
    if (!isdigit((unsigned char)*s))
        return -EINVAL;
    for (; isdigit((unsigned char)*s); s++) {
        if (n > (max - (uint64_t)(*s - '0')) / 10)
            return -EINVAL;
        n = n * 10 + (uint64_t)(*s - '0');
    }
    if (*s != ':' || n == 0)
        return -EINVAL;
    *v = s + 1;
    *out = n;
    return 0;
}

/* s_put: a field into the key, with its end (no field holds a NUL). */
static int s_put(EVP_MD_CTX *md, const char *field)
{
    return EVP_DigestUpdate(md, field, strlen(field) + 1) == 1 ? 0 : -EIO;
}

/* s_key: pk->key from td's credentials, dialects and targets (what a session of its pool is). */
static int s_key(struct thread_data *td, lg__smb_park_t *pk, char *err, size_t errlen)
{
    const struct lg__smb_opts *o = td->eo;
    lg_creds_t c;
    memset(&c, 0, sizeof c);
    int have = o->credentials && o->credentials[0];
    if (have) {
        int e = lg_creds_read(o->credentials, 1, &c, err, errlen);
        if (e)
            return -e;
    }
    char head[64];
    snprintf(head, sizeof head, "lgsmb park %d", S_VERSION);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int rc = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 ? 0 : -ENOMEM;
    if (!rc)
        rc = s_put(md, head) ||
                     s_put(md, o->min_protocol && o->min_protocol[0] ? o->min_protocol
                                                                     : LG_SMBCTX_MIN_PROTOCOL) ||
                     s_put(md, have ? "creds" : "none") || s_put(md, c.user) ||
                     s_put(md, c.domain) || s_put(md, c.password)
                 ? -EIO
                 : 0;
    for (unsigned i = 0; !rc && i < td->files_index; i++) {
        lg__smb_target_t t;
        if (lg__smb_parse_target(td->files[i]->file_name, &t) == 0)
            rc = s_put(md, t.authority) || s_put(md, t.share) ? -EIO : 0;
    }
    unsigned len = 0;
    if (!rc && (EVP_DigestFinal_ex(md, pk->key, &len) != 1 || len != LG__SMB_KEY_LEN))
        rc = -EIO;
    EVP_MD_CTX_free(md);
    lg_creds_clear(&c);
    if (rc)
        snprintf(err, errlen, "could not make the key of the SMB sessions");
    return rc;
}

int lg__smb_park_init(struct thread_data *td, lg__smb_park_t *pk, char *err, size_t errlen)
{
    memset(pk, 0, sizeof *pk);
    const char *v = getenv(LG__SMB_PARK_ENV);
    if (!v || !v[0])
        return 0;
    uint64_t idle, pid, start;
    if (s_num(&v, 86400, &idle) || s_num(&v, INT32_MAX, &pid) || s_num(&v, UINT64_MAX, &start) ||
        v[0] != '/' || strlen(v) >= sizeof pk->dir) {
        snprintf(err, errlen, "%s is not IDLE_S:AGENT_PID:AGENT_START:DIR", LG__SMB_PARK_ENV);
        return -EINVAL;
    }
    pk->idle_s = (unsigned)idle;
    pk->agent_pid = (int)pid;
    pk->agent_start = start;
    snprintf(pk->dir, sizeof pk->dir, "%s", v);
    int rc = s_key(td, pk, err, errlen);
    if (rc)
        return rc;
    int n = snprintf(pk->prefix, sizeof pk->prefix, "p-");
    for (int i = 0; i < S_KEY_HEX; i++)
        n += snprintf(pk->prefix + n, sizeof pk->prefix - (size_t)n, "%02x", pk->key[i]);
    snprintf(pk->prefix + n, sizeof pk->prefix - (size_t)n, "-");
    return 1;
}

/* ---- the folder and the sockets ---- */

/* s_dir_open: the park folder, which must be this user's alone. A descriptor or negative errno. */
static int s_dir_open(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    struct stat st;
    if (fstat(dfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
        close(dfd);
        return -EPERM;
    }
    return dfd;
}

/* s_addr: the socket name in the folder dfd (through /proc/self/fd: a work folder's path may be
 * longer than a socket address holds). */
static int s_addr(int dfd, const char *name, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    int n = snprintf(sa->sun_path, sizeof sa->sun_path, "/proc/self/fd/%d/%s", dfd, name);
    return n > 0 && (size_t)n < sizeof sa->sun_path ? 0 : -ENAMETOOLONG;
}

/* s_peer_ok: fd's peer is of this user (and, if pid > 0, that process). */
static int s_peer_ok(int fd, int pid)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || len != sizeof cr)
        return 0;
    return cr.uid == geteuid() && (pid <= 0 || cr.pid == pid);
}

/* s_send: one message of len bytes with nfds descriptors. 0 or a negative errno value. */
static int s_send(int fd, const void *buf, size_t len, const int *fds, int nfds)
{
    union {
        char b[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {(void *)buf, len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        memset(&u, 0, sizeof u);
        mh.msg_control = u.b;
        mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    }
    ssize_t n;
    do
        n = sendmsg(fd, &mh, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
}

/* s_recv: one message of exactly len bytes and at most maxfds descriptors (close-on-exec), *nfds
 * of them. Any other shape is -EBADMSG, with whatever came closed. */
static int s_recv(int fd, void *buf, size_t len, int *fds, int maxfds, int *nfds)
{
    union {
        char b[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {buf, len};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
    ssize_t n;
    do
        n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    int e = n < 0 ? -errno : 0, got[4], ngot = 0;
    for (struct cmsghdr *cm = n < 0 ? NULL : CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t j = 0; j < k && ngot < 4; j++)
            memcpy(&got[ngot++], CMSG_DATA(cm) + j * sizeof(int), sizeof(int));
    }
    if (!e && (n != (ssize_t)len || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || ngot > maxfds))
        e = -EBADMSG;
    if (e) {
        for (int j = 0; j < ngot; j++)
            close(got[j]);
        *nfds = 0;
        return e;
    }
    memcpy(fds, got, (size_t)ngot * sizeof(int));
    *nfds = ngot;
    return 0;
}

/* s_wait_in: until fd is readable or hung up (1), ms passed (0) or poll failed (negative errno);
 * td's status thread answered meanwhile (td NULL in a worker). */
static int s_wait_in(struct thread_data *td, int fd, int ms)
{
    int64_t end = lg__smb_now_ms() + ms;
    for (;;) {
        int64_t left = end - lg__smb_now_ms();
        if (left <= 0)
            return 0;
        lg__fio_answer_status(td);
        struct pollfd q = {fd, POLLIN, 0};
        int n = poll(&q, 1, left < 10 ? (int)left : 10);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return -errno;
    }
}

/* s_starttime: field 22 of /proc/PID/stat, 0 when pid is gone. */
static uint64_t s_starttime(int pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the name may hold anything: fields count from here */
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

int lg__smb_park_watch(const lg__smb_park_t *pk)
{
    int fd = pidfd_open(pk->agent_pid, 0); /* close-on-exec */
    if (fd < 0)
        return -errno;
    /* The PID named the agent when lg-agent set it; the pidfd is of whoever has it now. */
    if (s_starttime(pk->agent_pid) != pk->agent_start) {
        close(fd);
        return -ESRCH;
    }
    return fd;
}

/* ---- the worker's side ---- */

/* s_publish: a listening socket named pk->prefix and this PID in dfd (into name), made under a
 * temporary name first, so that no job finds it before it listens. The socket or a negative
 * errno value. */
static int s_publish(const lg__smb_park_t *pk, int dfd, char *name, size_t namelen)
{
    char tmp[32];
    struct sockaddr_un sa;
    snprintf(tmp, sizeof tmp, "t-%d", (int)getpid());
    snprintf(name, namelen, "%s%d", pk->prefix, (int)getpid());
    int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (lfd < 0)
        return -errno;
    unlinkat(dfd, tmp, 0); /* left by a worker that had this PID before and was killed */
    int rc = s_addr(dfd, tmp, &sa);
    if (!rc && (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 4) < 0 ||
                renameat(dfd, tmp, dfd, name) < 0))
        rc = -errno;
    if (rc) {
        unlinkat(dfd, tmp, 0);
        close(lfd);
        return rc;
    }
    return lfd;
}

/* s_check: is m, with the memfd and pipe it came with, an adoption of a worker of pk's key? */
static int s_check(const lg__smb_park_t *pk, const s_adopt_msg_t *m, int memfd, int pipe_wr)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    struct stat st;
    if (m->magic != S_MAGIC || m->version != S_VERSION ||
        memcmp(m->key, pk->key, sizeof pk->key) != 0)
        return -EPROTO;
    if (m->index >= S_MAX_INDEX || m->nfiles == 0 || m->nfiles > S_MAX_FILES ||
        m->slot_size < 2 * page || m->slot_size > S_MAX_SLOT || m->slot_size % page)
        return -EINVAL;
    /* sealed against shrinking: no SIGBUS on a slot the job cut short */
    int seals = fcntl(memfd, F_GET_SEALS);
    if (fstat(memfd, &st) < 0 || !S_ISREG(st.st_mode) || seals < 0 || !(seals & F_SEAL_SHRINK) ||
        (uint64_t)st.st_size < ((uint64_t)m->index + 1) * m->slot_size)
        return -EINVAL;
    int fl = fcntl(pipe_wr, F_GETFL);
    if (fstat(pipe_wr, &st) < 0 || !S_ISFIFO(st.st_mode) || fl < 0 || (fl & O_ACCMODE) != O_WRONLY)
        return -EINVAL;
    return 0;
}

/* s_take: the job on cfd (which claimed this worker) adopts it: 0 with *job set, or a negative
 * errno value with everything closed. */
static int s_take(const lg__smb_park_t *pk, int cfd, lg__smb_job_t *job)
{
    s_adopt_msg_t m;
    int fds[2] = {-1, -1}, nfds = 0, self = -1, rc = s_peer_ok(cfd, 0) ? 0 : -EPERM;
    void *slot = MAP_FAILED;
    if (!rc)
        rc = s_wait_in(NULL, cfd, S_HANDSHAKE_MS);
    rc = rc == 1 ? s_recv(cfd, &m, sizeof m, fds, 2, &nfds) : rc ? rc : -ETIMEDOUT;
    if (!rc)
        rc = nfds == 2 ? s_check(pk, &m, fds[0], fds[1]) : -EBADMSG;
    if (!rc) {
        slot = mmap(NULL, m.slot_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0],
                    (off_t)((uint64_t)m.index * m.slot_size));
        if (slot == MAP_FAILED)
            rc = -errno;
    }
    if (!rc && (self = pidfd_open(getpid(), 0)) < 0)
        rc = -errno;
    s_reply_t r = {S_MAGIC, rc, (int32_t)getpid()};
    int sent = s_send(cfd, &r, sizeof r, &self, self >= 0 ? 1 : 0);
    if (self >= 0)
        close(self);
    if (nfds > 0)
        close(fds[0]); /* the mapping holds the memfd's memory */
    if (!rc && !sent) {
        *job = (lg__smb_job_t){.sock = cfd,
                               .done_wr = fds[1],
                               .index = m.index,
                               .slot = slot,
                               .slot_size = m.slot_size,
                               .map = slot,
                               .map_len = m.slot_size,
                               .nfiles = m.nfiles};
        return 0;
    }
    if (slot != MAP_FAILED)
        munmap(slot, m.slot_size);
    if (nfds > 1)
        close(fds[1]);
    close(cfd);
    return rc ? rc : sent;
}

int lg__smb_park_wait(const lg__smb_park_t *pk, int agent_fd, lg__smb_job_t *job)
{
    int dfd = s_dir_open(pk->dir);
    if (dfd < 0)
        return dfd;
    char name[64];
    int lfd = s_publish(pk, dfd, name, sizeof name);
    if (lfd < 0) {
        close(dfd);
        return lfd;
    }
    int64_t end = lg__smb_now_ms() + (int64_t)pk->idle_s * 1000;
    int rc = -ETIMEDOUT, claimed = 0;
    for (;;) {
        int64_t left = end - lg__smb_now_ms();
        if (left <= 0) {
            /* Taking the name back is atomic against a job's claim (a rename): if a job was
             * first, it is connecting now, and is waited for a moment. */
            if (claimed || unlinkat(dfd, name, 0) == 0)
                break;
            claimed = 1;
            end = lg__smb_now_ms() + S_CLAIM_GRACE_MS;
            continue;
        }
        struct pollfd q[2] = {{lfd, POLLIN, 0}, {agent_fd, POLLIN, 0}};
        int n = poll(q, 2, left > 60000 ? 60000 : (int)left);
        if (n < 0 && errno != EINTR) {
            rc = -errno;
            break;
        }
        if (n > 0 && q[1].revents) {
            rc = -ESRCH;
            break;
        }
        if (n > 0 && (q[0].revents & POLLIN)) {
            int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            if (cfd < 0)
                continue; /* the job gave up on its connect */
            /* Only the job that claimed the name connects: adopted or not, no other will. */
            rc = s_take(pk, cfd, job);
            break;
        }
    }
    unlinkat(dfd, name, 0); /* this worker's own name, if still there */
    close(lfd);
    close(dfd);
    return rc;
}

/* ---- the job's side ---- */

/* s_claim: the parked worker pid of name in dfd adopted as a->index: 0 with *out set, else a
 * negative errno value (another job was first, it is gone, or it refused). */
static int s_claim(struct thread_data *td, int dfd, const char *name, int pid,
                   const lg__smb_park_t *pk, const lg__smb_adopt_t *a, lg__smb_adopted_t *out)
{
    char claimed[48];
    struct sockaddr_un sa;
    snprintf(claimed, sizeof claimed, "c-%d-%d", pid, (int)getpid());
    if (renameat2(dfd, name, dfd, claimed, RENAME_NOREPLACE) < 0)
        return -errno;
    struct timeval tv = {S_HANDSHAKE_MS / 1000, 0};
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), pidfd = -1, n = 0;
    int rc = fd < 0 ? -errno : s_addr(dfd, claimed, &sa);
    if (!rc && (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0 ||
                connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0))
        rc = -errno;
    unlinkat(dfd, claimed, 0);
    if (!rc && !s_peer_ok(fd, pid))
        rc = -EPERM;
    s_adopt_msg_t m = {.magic = S_MAGIC,
                       .version = S_VERSION,
                       .index = a->index,
                       .slot_size = a->slot_size,
                       .nfiles = a->nfiles};
    memcpy(m.key, pk->key, sizeof m.key);
    int fds[2] = {a->memfd, a->done_wr};
    if (!rc)
        rc = s_send(fd, &m, sizeof m, fds, 2);
    if (!rc)
        rc = s_wait_in(td, fd, S_HANDSHAKE_MS);
    s_reply_t r = {0};
    rc = rc == 1 ? s_recv(fd, &r, sizeof r, &pidfd, 1, &n) : rc ? rc : -ETIMEDOUT;
    if (!rc && (r.magic != S_MAGIC || r.pid != pid || r.result || n != 1))
        rc = r.result < 0 ? r.result : -EBADMSG;
    if (rc) {
        if (n == 1)
            close(pidfd);
        if (fd >= 0)
            close(fd);
        return rc;
    }
    *out = (lg__smb_adopted_t){.sock = fd, .pidfd = pidfd, .pid = pid};
    return 0;
}

/* s_name_pid: the PID at the end of a parked name (after the prefix), 0 if it is not one. */
static int s_name_pid(const char *s)
{
    long v = 0;
    if (!*s)
        return 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s) || v > INT32_MAX / 10)
            return 0;
        v = v * 10 + (*s - '0');
    }
    return (int)v;
}

unsigned lg__smb_park_adopt(struct thread_data *td, const lg__smb_park_t *pk,
                            const lg__smb_adopt_t *a, lg__smb_adopted_t *out, unsigned want)
{
    int dfd = want ? s_dir_open(pk->dir) : -1;
    if (dfd < 0)
        return 0;
    int dd = dup(dfd);
    DIR *d = dd >= 0 ? fdopendir(dd) : NULL;
    if (!d) {
        if (dd >= 0)
            close(dd);
        close(dfd);
        return 0;
    }
    size_t plen = strlen(pk->prefix);
    unsigned k = 0;
    struct dirent *e;
    while (k < want && (e = readdir(d)) != NULL) {
        int pid = strncmp(e->d_name, pk->prefix, plen) ? 0 : s_name_pid(e->d_name + plen);
        lg__smb_adopt_t one = *a;
        one.index = a->index + k;
        if (pid > 0 && s_claim(td, dfd, e->d_name, pid, pk, &one, &out[k]) == 0)
            k++;
    }
    closedir(d);
    close(dfd);
    return k;
}
