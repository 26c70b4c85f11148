/* lg_error.c: names and messages of lg's error codes.
 * LG_E* codes come from the one LG_ERRNO_MAP table in lg_error.h; negated errno values are
 * passed to strerror() so callers can print any code the same way. */
#include "lg_error.h"

#include <string.h>

const char *lg_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
#define X(name, code, msg)                                                                         \
    case (code):                                                                                   \
        return (msg);
        LG_ERRNO_MAP(X)
#undef X
    default:
        break;
    }
    /* Our codes start at -1001, so anything negative above that range is a negated errno.
     * strerror() is not thread-safe in theory, but glibc returns static strings for known
     * values and a thread-local buffer otherwise; lg needs no more. */
    if (err < 0 && err > -1000)
        return strerror(-err);
    return "unknown error";
}

/* A list of names laid out by hand: clang-format settles on no one layout of it. */
/* clang-format off */
/* The errno values lg's I/O and process handling can plausibly meet. */
#define LG_ERRNO_NAMES(X)                                                                    \
    X(EPERM) X(ENOENT) X(ESRCH) X(EINTR) X(EIO) X(ENXIO) X(E2BIG) X(ENOEXEC) X(EBADF)        \
    X(ECHILD) X(EAGAIN) X(ENOMEM) X(EACCES) X(EFAULT) X(EBUSY) X(EEXIST) X(EXDEV) X(ENODEV)  \
    X(ENOTDIR) X(EISDIR) X(EINVAL) X(ENFILE) X(EMFILE) X(ENOTTY) X(EFBIG) X(ENOSPC)          \
    X(ESPIPE) X(EROFS) X(EMLINK) X(EPIPE) X(EDOM) X(ERANGE) X(EDEADLK) X(ENAMETOOLONG)       \
    X(ENOSYS) X(ENOTEMPTY) X(ELOOP) X(ENOTSUP) X(EPROTO) X(EMSGSIZE) X(EADDRINUSE)          \
    X(EADDRNOTAVAIL) X(ENETDOWN) X(ENETUNREACH) X(ECONNABORTED) X(ECONNRESET) X(ENOBUFS)    \
    X(EISCONN) X(ENOTCONN) X(ETIMEDOUT) X(ECONNREFUSED) X(EHOSTUNREACH) X(EALREADY)         \
    X(EINPROGRESS) X(ECANCELED) X(EOVERFLOW) X(EILSEQ) LG_ERRNO_POSIX_ONLY(X)
/* clang-format on */
#ifdef _WIN32
#define LG_ERRNO_POSIX_ONLY(X) /* Windows has no ESTALE, EDQUOT */
#else
#define LG_ERRNO_POSIX_ONLY(X) X(ESTALE) X(EDQUOT)
#endif

const char *lg_err_name(int err)
{
    switch (err) {
    case 0:
        return "OK";
#define X(name, code, msg)                                                                         \
    case (code):                                                                                   \
        return "LG_E" #name;
        LG_ERRNO_MAP(X)
#undef X
    default:
        break;
    }
    if (err >= 0 || err <= -1000)
        return "UNKNOWN";
        /* An if-chain, not a switch: some errno values alias (EWOULDBLOCK, EOPNOTSUPP) and
         * duplicate case labels would not compile on every platform. */
#define X(e)                                                                                       \
    if (-err == (e))                                                                               \
        return #e;
    LG_ERRNO_NAMES(X)
#undef X
    return "ERRNO";
}
