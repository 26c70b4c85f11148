/* iscsi_login.c: see iscsi_login.h. Compiled into the lgiscsi engine and into the agent, so that
 * the read-back of a run logs in exactly as the run did. */
#include "iscsi_login.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define S_TCP_SYN_RETRIES 3

int lg_iscsi_read_chap(const char *path, lg_creds_t *c, char *err, size_t errlen)
{
    int rc = lg_creds_read(path, 0, c, err, errlen);
    if (!rc && !c->password[0]) {
        snprintf(err, errlen, "\"%s\": both \"username\" and \"password\" are needed", path);
        rc = EINVAL;
    }
    if (rc)
        lg_creds_clear(c);
    return rc;
}

struct iscsi_context *lg_iscsi_context_new(const char *initiator, uint32_t qualifier)
{
    struct iscsi_context *ctx = iscsi_create_context(initiator);
    uint32_t rnd;

    if (!ctx)
        return NULL;
    /* libiscsi seeds rand() once per process; fio forks jobs after setup() ran in the parent,
     * so sibling jobs would pick the same ISID and the target would end each other's session. */
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
        rnd = (uint32_t)getpid() ^ (uint32_t)time(NULL) ^ ((uint32_t)(uintptr_t)ctx >> 4);
    iscsi_set_isid_random(ctx, rnd, qualifier);
    return ctx;
}

int64_t lg__iscsi_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct {
    int done, status;
    char *why;
    size_t why_len;
} s_connect_wait_t;

static void s_connect_cb(struct iscsi_context *ctx, int status, void *command_data,
                         void *private_data)
{
    s_connect_wait_t *w = private_data;

    (void)command_data;
    w->done = 1;
    w->status = status;
    /* now: libiscsi overwrites the reason (say, the socket error) as it unwinds */
    if (status != SCSI_STATUS_GOOD)
        snprintf(w->why, w->why_len, "%s", iscsi_get_error(ctx));
}
/* TCP connect, login and TEST UNIT READY of the LUN, as iscsi_full_connect_sync() does, but
 * with a deadline that covers the TCP connect too and keeping libiscsi's first reason for a
 * failure. Returns 0, or an errno value with the reason in why. */
static int s_connect(struct iscsi_context *ctx, const char *portal, int lun, char *why,
                     size_t why_len)
{
    s_connect_wait_t w = {.why = why, .why_len = why_len};
    int64_t deadline = lg__iscsi_now_ms() + LG_ISCSI_LOGIN_TIMEOUT_S * 1000;

    why[0] = '\0';
    if (iscsi_full_connect_async(ctx, portal, lun, s_connect_cb, &w) != 0) {
        snprintf(why, why_len, "%s", iscsi_get_error(ctx));
        return EIO;
    }
    while (!w.done) {
        int64_t left = deadline - lg__iscsi_now_ms();
        struct pollfd pfd = {.fd = -1};
        int n;

        if (left <= 0) {
            snprintf(why, why_len, "no answer within %d s", LG_ISCSI_LOGIN_TIMEOUT_S);
            return ETIMEDOUT;
        }
        pfd.events = (short)iscsi_which_events(ctx);
        if (pfd.events)
            pfd.fd = iscsi_get_fd(ctx);
        n = poll(&pfd, 1, (int)(left < LG_ISCSI_MAX_POLL_MS ? left : LG_ISCSI_MAX_POLL_MS));
        if (n < 0 && errno != EINTR) {
            snprintf(why, why_len, "poll: %s", strerror(errno));
            return EIO;
        }
        if (iscsi_service(ctx, n > 0 ? pfd.revents : 0) < 0 && !w.done) {
            snprintf(why, why_len, "%s", iscsi_get_error(ctx));
            return EIO;
        }
    }
    if (w.status != SCSI_STATUS_GOOD) {
        if (!why[0])
            snprintf(why, why_len, "%s", iscsi_get_error(ctx));
        return EIO;
    }
    return 0;
}

int lg_iscsi_login(struct iscsi_context *ctx, const struct iscsi_url *url, const lg_creds_t *chap,
                   char *why, size_t why_len)
{
    if (chap)
        iscsi_set_initiator_username_pwd(ctx, chap->user, chap->password);
    iscsi_set_session_type(ctx, ISCSI_SESSION_NORMAL);
    iscsi_set_header_digest(ctx, ISCSI_HEADER_DIGEST_NONE_CRC32C);
    iscsi_set_tcp_syncnt(ctx, S_TCP_SYN_RETRIES);
    iscsi_set_timeout(ctx, LG_ISCSI_LOGIN_TIMEOUT_S);
    return s_connect(ctx, url->portal, url->lun, why, why_len);
}

void lg_iscsi_logout(struct iscsi_context **ctx_p)
{
    struct iscsi_context *ctx = *ctx_p;

    if (!ctx)
        return;
    if (iscsi_is_logged_in(ctx)) {
        iscsi_set_timeout(ctx, LG_ISCSI_LOGOUT_TIMEOUT_S); /* a silent target must not hold us */
        iscsi_logout_sync(ctx);
    }
    iscsi_destroy_context(ctx);
    *ctx_p = NULL;
}
