/* lg_util.h: small helpers every binary needs: clocks and strict number parsing. */
#ifndef LG_UTIL_H
#define LG_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Wall clock (CLOCK_REALTIME) in microseconds since the epoch. */
int64_t lg_now_us(void);
/* Monotonic clock in milliseconds. */
uint64_t lg_mono_ms(void);
/* Strict decimal parse of the whole string into [min, max]. Returns 0 or LG_EPARSE. */
int lg_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Bounded copy that always NUL-terminates (when len > 0). Returns strlen(src). */
size_t lg_strlcpy(char *dst, const char *src, size_t len);
/* Read a whole file (at most max bytes) into a NUL-terminated buffer. Caller owns *buf.
 * Returns 0, -errno, or LG_ETOOBIG. */
int lg_read_file(const char *path, size_t max, char **buf, size_t *len);
/* Read at most len - 1 bytes of a small file (a /proc entry, a pid file) into buf, opened with
 * O_RDONLY|O_CLOEXEC|extra_flags (e.g. O_NOFOLLOW), NUL-terminated. Returns the bytes read, or 0
 * when it cannot be opened, read or is empty. */
size_t lg_read_small(const char *path, int extra_flags, char *buf, size_t len);
/* mkdir -p with mode. Returns 0 or -errno. */
int lg_mkdirs(const char *path, unsigned mode);

/* What lg-agent refuses in a target path (or smb:// / iscsi:// URL) on every platform: a '$'
 * (fio would expand ${VAR}) or a "." or ".." component ('/' or '\' between; not the "\\.\" of a
 * Windows device path). NULL when it has none, else a phrase naming it ("a \"..\" component"). */
const char *lg_path_refused_part(const char *p);

/* The user an smb://[domain;]user@host/... URL names ("" when none) into buf; returns buf. */
const char *lg_smb_url_user(const char *url, char *buf, size_t len);

/* v with decimals digits after the point and its whole part grouped by thousands
 * ("1,234,567.8"), into buf; returns buf. */
const char *lg_fmt_thousands(char *buf, size_t len, double v, int decimals);

#endif
