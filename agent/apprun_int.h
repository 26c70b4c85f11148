/* apprun_int.h: inside an application run (apprun.c, the run on the loop; appsetup.c, what is
 * checked and made before anything starts): the run's state and what the two share. Not for
 * use outside agent/. */
#ifndef LG_APPRUN_INT_H
#define LG_APPRUN_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "appfs.h"
#include "appout.h"
#include "appprog.h"
#include "apprun.h"
#include "fiorun.h"
#include "lg_child.h"

typedef enum {
    ST_START,   /* the first step waits for the loop (its failures go through on_done) */
    ST_INSTALL, /* initdb / mariadb-install-db */
    ST_READY,   /* the server started; polling until it accepts connections */
    ST_CREATEDB,
    ST_LOAD, /* pgbench -i / sysbench prepare */
    ST_HELD, /* the tool is held until lg_apprun_release */
    ST_RUNNING,
    ST_STOPPING, /* the server being stopped */
    ST_REMOVING, /* the folders being removed (worker thread) */
    ST_DONE
} step_t;

struct lg_apprun {
    uv_loop_t *loop;
    const Lg__RunSpec *spec;
    lg_app_kind_t kind;
    const char *tool_name; /* "pgbench", "sysbench" */
    lg_apprun_cbs_t cbs;
    void *arg;
    int destroyed;
    int setid;
    uid_t uid;
    gid_t gid;
    uint32_t clients, jobs, scale, tables;
    uint64_t table_size;
    lg_appprog_t prog;
    lg_appfs_folder_t data, sock;
    /* the spec's figures used after the Prepare: the agent may free the spec on destroy while
     * the server is still being stopped and the folders removed */
    uint64_t run_id;
    uint32_t runtime_s;
    int keep;
    int rec_fd;    /* the run's record (apprec.h), open to add its processes; -1: none */
    char *rec_dir; /* the folder it is in */
    int rec_warned;
    char sockfile[128];
    char *env[6];
    char env_buf[4][1200];
    /* the processes we wait for (lg_child: stdout and stderr in one pipe, their tail kept),
     * and their command lines for messages */
    lg_child_t *server, *cmd;
    char server_line[512], cmd_line[512];
    int server_pid;
    uv_timer_t timer;
    int timer_open;
    step_t step;
    uint64_t t0_ms, ready_deadline_ms, prepare_ms;
    lg_fiorun_t *tool;
    int released, stopped, tool_ran;
    int stop_killed;      /* pgbench outlived TOOL_STOP_GRACE_MS after the Stop */
    uint64_t run_mono_ms; /* when the tool woke */
    char stop_note[256];  /* how the Stop ended the tool, when it printed its summary */
    int64_t tool_status;
    int tool_sig;
    lg_appout_t out; /* the tool's output and its reports */
    lg_app_total_t tot;
    int has_tot;
    uv_work_t rm;
    char rm_err[512];
    int err;
    char errmsg[3072];
};

/* The spec's application part within bounds, defaults filled in. */
int lg__apprun_check_spec(lg_apprun_t *r, const lg_agent_config_t *cfg, const Lg__RunSpec *spec,
                          char *err, size_t errlen);
/* Who the servers and the tools run as: --app-user (required as root), else ourselves. */
int lg__apprun_app_user(lg_apprun_t *r, const lg_agent_config_t *cfg, char *err, size_t errlen);
/* The data folder "dirname(target)/lg-TOOL-RUNID-AGENT", made in the target's folder as
 * resolved now and held open (whatever happens to the path meanwhile). Returns 0 or an error
 * with err set (nothing made then). */
int lg__apprun_make_data(lg_apprun_t *r, const lg_agent_config_t *cfg, const char *agent_name,
                         char *err, size_t errlen);
/* The sockets' folder: a fresh one under /tmp (a socket's path has at most 107 bytes). */
int lg__apprun_make_sock(lg_apprun_t *r, char *err, size_t errlen);
/* The record of the folders just made and the server to come, in dir, before any process
 * starts: a killed agent's successor finds them by it (appclean.h). */
int lg__apprun_record(lg_apprun_t *r, const char *dir, char *err, size_t errlen);

#endif
