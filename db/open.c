/* open.c: the database as the command-line programs open it, once for all of them (lgctl's
 * reading commands and local mode, lg-export): a connection string, or the private cluster of a
 * data folder; Ctrl-C wired to every wait of db/; and their start-up with the options that say
 * which database (dbcli.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "dbcli.h"
#include "lg_error.h"
#include "lg_log.h"
#include "lg_util.h"

int lg_db_open(const char *url, const char *data_dir, lg_db_open_t *self, char *err, size_t errlen)
{
    memset(self, 0, sizeof *self);
    self->conninfo = url;
    if (!url) {
        int rc = data_dir ? lg_localpg_open(data_dir, &self->pg, err, errlen) : -EINVAL;
        if (rc) {
            if (!data_dir)
                snprintf(err, errlen, "no database: neither a connection string nor a data folder");
            lg_db_open_clear(self);
            return rc;
        }
        self->conninfo = self->pg.conninfo;
    }
    char why[3800];
    self->db = lg_db_connect(self->conninfo, why, sizeof why);
    if (!self->db) {
        snprintf(err, errlen, "could not connect to the database: %s", why);
        lg_db_open_clear(self);
        return LG_EDB;
    }
    return 0;
}

void lg_db_open_clear(lg_db_open_t *self)
{
    lg_db_close(&self->db);
    lg_localpg_close(&self->pg);
    memset(self, 0, sizeof *self);
}

static volatile int s_own_flag, *s_flag;

static void s_on_signal(int sig)
{
    (void)sig;
    if (s_flag)
        *s_flag = 1;
}

void lg_db_interrupt_on_signals(volatile int *flag)
{
    if (!flag)
        flag = &s_own_flag;
    *flag = 0;
    s_flag = flag;
    lg_db_set_interrupt(flag);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = s_on_signal; /* no SA_RESTART */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void lg_dbcli_init(lg_dbcli_t *self, const char *prog, int local)
{
    memset(self, 0, sizeof *self);
    lg_log_init(prog);
    lg_db_set_app(prog);
    lg_db_set_deadline_ms(10000);
    self->url = getenv("LG_DATABASE_URL");
    if (self->url && !self->url[0])
        self->url = NULL;
    if (local) {
        lg_localpg_default_dir(self->dflt, sizeof self->dflt);
        self->data_dir = self->dflt;
    }
}

int lg_dbcli_start(const lg_dbcli_t *self, volatile int *flag)
{
    if (self->data_dir && self->data_dir[0] != '/') {
        lg_error("--data-dir must be an absolute path");
        return LG_EPARSE;
    }
    lg_db_interrupt_on_signals(flag);
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

int lg_dbcli_opt_data_dir(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    lg_dbcli_t *d = (lg_dbcli_t *)(void *)((char *)ctx + o->off);
    (void)err, (void)errlen;
    d->data_dir = v;
    d->data_dir_given = 1;
    return 0;
}

int lg_dbcli_opt_timeout(void *ctx, const lg_opt_t *o, const char *v, char *err, size_t errlen)
{
    uint64_t t;
    (void)ctx, (void)o;
    if (lg_parse_u64(v, 1, 86400, &t) != 0) {
        snprintf(err, errlen, "--timeout must be a number of seconds from 1 to 86400, got \"%s\"",
                 v);
        return -1;
    }
    lg_db_set_deadline_ms((uint32_t)t * 1000);
    return 0;
}
