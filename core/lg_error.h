/* lg_error.h: error codes shared by every lg module.
 * Functions return 0 or a negative LG_E* code; errno values are returned negated. */
#ifndef LG_ERROR_H
#define LG_ERROR_H

#include <errno.h>

/* One table generates the names and the messages (see lg_error.c). */
#define LG_ERRNO_MAP(X)                                                                            \
    X(PARSE, -1001, "malformed input")                                                             \
    X(SPEC, -1002, "invalid campaign spec")                                                        \
    X(PROTO, -1003, "protocol error")                                                              \
    X(DB, -1004, "database error")                                                                 \
    X(FIO, -1005, "fio failed")                                                                    \
    X(DENIED, -1006, "not allowed")                                                                \
    X(STATE, -1007, "operation not valid in this state")                                           \
    X(TOOBIG, -1008, "too large")                                                                  \
    X(TIMEOUT, -1009, "timed out")                                                                 \
    X(NOTFOUND, -1010, "not found")                                                                \
    X(CHILD, -1011, "child process failed")                                                        \
    X(CONNECT, -1012, "could not connect or log in to the target")

enum {
#define X(name, code, msg) LG_E##name = (code),
    LG_ERRNO_MAP(X)
#undef X
};

/* Returns a static string; never NULL. Negative errno values map to strerror(). */
const char *lg_strerror(int err);
/* Returns the short name ("LG_EPARSE", "ENOENT"); static, never NULL. */
const char *lg_err_name(int err);

#endif
