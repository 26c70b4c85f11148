/* delayproxy: a TCP relay that holds every byte for a fixed time in each direction, to give a
 * link a round trip where netem is missing (no sch_netem in this kernel). Benches only.
 * usage: delayproxy LISTEN_ADDR PORT TARGET_ADDR PORT DELAY_US
 * Each accepted connection gets its own connection to the target and a thread per direction;
 * a chunk read at t is written at t + DELAY_US, so the round trip grows by 2 * DELAY_US plus
 * the relay's own wake-ups. Prints "ready" on stdout once it listens; runs until killed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define S_CHUNK (64 * 1024)
#define S_SLOTS 32 /* chunks held per direction: 2 MiB in flight, far above what a bench moves */

typedef struct {
    int from, to;
    struct sockaddr_in target;
} s_pair_t;

typedef struct {
    size_t len, off;
    int64_t due_ns;
    char *data;
} s_chunk_t;

static int64_t s_delay_ns;

static int64_t s_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* s_pump: move bytes from p->from to p->to, each chunk s_delay_ns after it arrived; at end of
 * input, the rest goes out on time and the write side is shut. */
static void *s_pump(void *arg)
{
    s_pair_t *p = arg;
    s_chunk_t q[S_SLOTS];
    unsigned head = 0, n = 0;
    int eof = 0;
    for (unsigned i = 0; i < S_SLOTS; i++) {
        q[i].data = malloc(S_CHUNK);
        if (!q[i].data)
            goto out;
    }
    while (!eof || n) {
        int64_t wait_ns = -1;
        if (n) {
            s_chunk_t *c = &q[head];
            int64_t left = c->due_ns - s_now_ns();
            if (left <= 0) {
                ssize_t w = send(p->to, c->data + c->off, c->len - c->off, MSG_NOSIGNAL);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0)
                    goto out;
                c->off += (size_t)w;
                if (c->off == c->len) {
                    head = (head + 1) % S_SLOTS;
                    n--;
                }
                continue;
            }
            wait_ns = left;
        }
        struct pollfd pfd = {.fd = p->from, .events = (!eof && n < S_SLOTS) ? POLLIN : 0};
        struct timespec ts = {(time_t)(wait_ns / 1000000000), (long)(wait_ns % 1000000000)};
        int r = ppoll(&pfd, 1, wait_ns < 0 ? NULL : &ts, NULL);
        if (r < 0 && errno != EINTR)
            goto out;
        if (r > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR))) {
            s_chunk_t *c = &q[(head + n) % S_SLOTS];
            ssize_t got = recv(p->from, c->data, S_CHUNK, 0);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                eof = 1;
                continue;
            }
            c->len = (size_t)got;
            c->off = 0;
            c->due_ns = s_now_ns() + s_delay_ns;
            n++;
        }
    }
out:
    shutdown(p->to, SHUT_WR);
    shutdown(p->from, SHUT_RD);
    for (unsigned i = 0; i < S_SLOTS; i++)
        free(q[i].data);
    return NULL;
}

/* s_conn: relay one accepted connection until both directions end. */
static void *s_conn(void *arg)
{
    s_pair_t *in = arg;
    int cl = in->from, one = 1;
    int up = socket(AF_INET, SOCK_STREAM, 0);
    if (up < 0 || connect(up, (struct sockaddr *)&in->target, sizeof in->target) < 0) {
        fprintf(stderr, "delayproxy: connect: %s\n", strerror(errno));
        close(cl);
        if (up >= 0)
            close(up);
        free(in);
        return NULL;
    }
    setsockopt(up, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(cl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    s_pair_t down = {.from = up, .to = cl};
    s_pair_t upw = {.from = cl, .to = up};
    pthread_t t;
    if (pthread_create(&t, NULL, s_pump, &down) == 0) {
        s_pump(&upw);
        pthread_join(t, NULL);
    }
    close(cl);
    close(up);
    free(in);
    return NULL;
}

static int s_addr(const char *host, const char *port, struct sockaddr_in *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    char *end;
    long p = strtol(port, &end, 10);
    if (*end || p <= 0 || p > 65535 || inet_pton(AF_INET, host, &sa->sin_addr) != 1)
        return -1;
    sa->sin_port = htons((uint16_t)p);
    return 0;
}

int main(int argc, char **argv)
{
    struct sockaddr_in lsa, tsa;
    char *end;
    long us = argc == 6 ? strtol(argv[5], &end, 10) : -1;
    if (argc != 6 || s_addr(argv[1], argv[2], &lsa) || s_addr(argv[3], argv[4], &tsa) || *end ||
        us < 0) {
        fprintf(stderr, "usage: delayproxy LISTEN_ADDR PORT TARGET_ADDR PORT DELAY_US\n");
        return 2;
    }
    s_delay_ns = us * 1000;
    prctl(PR_SET_TIMERSLACK, 1000UL); /* wake within 1 us of the due time, not 50 */
    signal(SIGPIPE, SIG_IGN);
    int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ls < 0 || bind(ls, (struct sockaddr *)&lsa, sizeof lsa) < 0 || listen(ls, 64) < 0) {
        fprintf(stderr, "delayproxy: listen on %s:%s: %s\n", argv[1], argv[2], strerror(errno));
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        int cl = accept(ls, NULL, NULL);
        if (cl < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            fprintf(stderr, "delayproxy: accept: %s\n", strerror(errno));
            return 1;
        }
        s_pair_t *in = malloc(sizeof *in);
        pthread_t t;
        if (!in) {
            close(cl);
            continue;
        }
        in->from = cl;
        in->target = tsa;
        if (pthread_create(&t, NULL, s_conn, in) != 0) {
            close(cl);
            free(in);
            continue;
        }
        pthread_detach(t);
    }
}
