#!/usr/bin/env bash
# db_door_selftest.sh: db_door.sh (db/ is the one door to PostgreSQL, issue 45 part 1) over small
# fake trees in a temporary folder: a tree that keeps the rule passes (libpq called and included
# in db/, a unit test of db/ that makes results by hand, a comment elsewhere that names a libpq
# function); a call of libpq in lgctl/, one written "PQfinish (db)" in controller/, and an
# include of libpq-fe.h in a header of web-export/ each fail, naming FILE:LINE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh" # selftest_begin, run, expect_pass, expect_fail, fail
selftest_begin dbdoor "$here/db_door.sh"

# tree NAME: a fresh fake tree that keeps the rule.
tree() {
    d=$T/$1
    mkdir -p "$d/db" "$d/lgctl" "$d/controller" "$d/web-export" "$d/tests/unit"
    cat >"$d/db/db.h" <<'EOF'
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
int lg_db_nrows(const PGresult *r);
EOF
    cat >"$d/db/result.c" <<'EOF'
#include <libpq-fe.h>
#include "db.h"
int lg_db_nrows(const PGresult *r)
{
    return r ? PQntuples(r) : 0;
}
EOF
    cat >"$d/tests/unit/test_dbconn.c" <<'EOF'
#include <libpq-fe.h>
#include "db.h"
static void test_parse(void)
{
    PQconninfoOption *o = PQconninfoParse("host=x", NULL);
    PQconninfoFree(o);
}
EOF
    cat >"$d/lgctl/report.c" <<'EOF'
#include "db.h"
/* Rows read as PQgetvalue(r, i, c) would, through db/:
 * lg_db_get. */
int lg_report(const PGresult *r)
{
    return lg_db_nrows(r); // not PQntuples(r)
}
EOF
}

tree clean
expect_pass clean

tree call
printf '#include "db.h"\n\nvoid lg_x(PGresult *r)\n{\n    PQclear(r);\n}\n' >"$T/call/lgctl/x.c"
expect_fail call "lgctl/x.c:5: calls PQclear()"

tree spaced_call
printf '#include "db.h"\nvoid lg_y(PGconn *db)\n{\n    PQfinish (db);\n}\n' >"$T/spaced_call/controller/y.c"
expect_fail spaced_call "controller/y.c:4: calls PQfinish()"

tree header
printf '/* site.h */\n#include <stddef.h>\n#include <libpq-fe.h>\n' >"$T/header/web-export/site.h"
expect_fail header "web-export/site.h:3: includes libpq-fe.h"

# A unit test of something else than db/ is not db/'s: its call of libpq fails too.
tree other_test
printf '#include <libpq-fe.h>\n' >"$T/other_test/tests/unit/test_report.c"
expect_fail other_test "tests/unit/test_report.c:1: includes libpq-fe.h"
echo "db_door_selftest: all passed"
