/* open.c: the database as the command-line programs open it, once for all of them (lgctl's
 * reading commands and local mode, lg-export): a connection string, or the private cluster of a
 * data folder; and Ctrl-C wired to every wait of db/. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "lg_error.h"

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
