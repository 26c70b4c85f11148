#!/usr/bin/env bash
# ownership_selftest.sh: ownership.sh (ownership reads one way, issue 45 part 7) over small fake
# trees in a temporary folder: a tree that keeps the rule passes (a _destroy(**), a _clear(*), a
# _free of plain C data, calls and comments that name anything, cmocka's test_*_destroy(void
# **state)); each of a header's _free taking a type of the tree's own (a typedef, a struct tag, a
# protobuf-c Lg__ message), a _destroy(*) (on one line or over two), a _clear(**) and a static
# s_*_free in a .c file fails, naming its FILE:LINE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh" # selftest_begin, run, expect_pass, expect_fail, fail
selftest_begin ownership "$here/ownership.sh"

# tree NAME: a fresh fake tree that keeps the rule.
tree() {
    d=$T/$1
    mkdir -p "$d/core" "$d/agent" "$d/tests/unit"
    cat >"$d/core/lg_x.h" <<'EOF'
#include <stddef.h>
typedef struct lg_x lg_x_t;
typedef struct {
    char *name;
} lg_y_t;
struct lg_z {
    int n;
};
lg_x_t *lg_x_new(void);
/* Not lg_x_free(lg_x_t *x), nor lg_x_destroy(lg_x_t *x): a comment names what it likes. */
void lg_x_destroy(lg_x_t **self_p);
void lg_y_clear(lg_y_t *self);
void lg_argv_free(char **argv, size_t n);
void lg_said_clear(void);
EOF
    cat >"$d/core/lg_x.c" <<'EOF'
#include "lg_x.h"
#include <stdlib.h>
struct lg_x {
    lg_y_t y;
};
void lg_x_destroy(lg_x_t **self_p)
{
    if (self_p && *self_p) {
        lg_y_clear(&(*self_p)->y);
        free(*self_p);
        *self_p = NULL;
    }
}
static void s_use(lg_x_t *x, char **argv)
{
    lg_argv_free(argv, 2);
    lg_x_destroy(&x);
}
EOF
    printf 'static void test_x_destroy(void **state)\n{\n    (void)state;\n}\n' >"$d/tests/unit/test_x.c"
}

tree clean
expect_pass clean

tree free_typedef # line 15 of lg_x.h
printf 'void lg_x_free(lg_x_t *x);\n' >>"$T/free_typedef/core/lg_x.h"
expect_fail free_typedef "free core/lg_x.h:15 lg_x_free"

tree free_tag
printf 'void lg_z_free(struct lg_z *z);\n' >>"$T/free_tag/core/lg_x.h"
expect_fail free_tag "free core/lg_x.h:15 lg_z_free"

tree free_message
printf 'void lg_env_free(int flags, Lg__Envelope *env);\n' >>"$T/free_message/core/lg_x.h"
expect_fail free_message "free core/lg_x.h:15 lg_env_free"

tree destroy_single
printf 'void lg_y_destroy(lg_y_t *y);\n' >>"$T/destroy_single/core/lg_x.h"
expect_fail destroy_single "destroy core/lg_x.h:15 lg_y_destroy"

tree destroy_two_lines
printf 'void lg_y_destroy(lg_y_t *y,\n                  int flags);\n' >>"$T/destroy_two_lines/core/lg_x.h"
expect_fail destroy_two_lines "destroy core/lg_x.h:15 lg_y_destroy"

tree clear_double
printf 'void lg_x_clear(lg_x_t **self_p);\n' >>"$T/clear_double/core/lg_x.h"
expect_fail clear_double "clear core/lg_x.h:15 lg_x_clear"

tree static_free # line 19 of lg_x.c
printf 'static void s_y_free(lg_y_t *y)\n{\n    (void)y;\n}\n' >>"$T/static_free/core/lg_x.c"
expect_fail static_free "free core/lg_x.c:19 s_y_free"

tree other_part
printf 'typedef struct {\n    int fd;\n} job_t;\nvoid agent_job_destroy(job_t *j);\n' >"$T/other_part/agent/job.h"
expect_fail other_part "destroy agent/job.h:4 agent_job_destroy"
echo "ownership_selftest: all passed"
