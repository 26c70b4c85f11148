#!/usr/bin/env bash
# columns_by_name.sh [SRC]: fails when any C source reads a libpq result's column by its position
# (PQgetvalue / PQgetisnull / PQgetlength, or db's lg_db_get / lg_db_isnull, given a literal
# number or an upper-case constant as the column). Columns are found by name once per result
# (lg_db_col, as pg_dump's i_name = PQfnumber(res, "name")): a query that gains a column must
# not silently shift every later read (issue 33). A loop over all of a result's columns
# (PQgetvalue(r, i, k)) is fine.
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$src"

# One call's first two arguments may hold a call of their own: f(a, g(b), 0).
scan() {
    perl -0777 -ne '
        my $arg = qr/[^,()]*(?:\([^()]*\)[^,()]*)*/;
        while (/\b(PQgetvalue|PQgetisnull|PQgetlength|lg_db_get|lg_db_isnull)\s*\(\s*$arg,\s*$arg,\s*([0-9][0-9A-Za-z_]*|[A-Z][A-Z0-9_]*)\s*\)/g) {
            my ($fn, $col, $at) = ($1, $2, $-[0]);
            my $line = 1 + (() = substr($_, 0, $at) =~ /\n/g);
            print "$ARGV:$line: $fn(..., $col): a column by position; find it by name (lg_db_col)\n";
        }' "$@"
}

# The check checks itself: a read by position it must find, and one by name it must not.
probe=$(mktemp)
trap 'rm -f "$probe"' EXIT
printf '%s\n' 'x = PQgetvalue(r, 0,' '  3);' 'y = PQgetisnull(r, row(i), C_NAME);' \
    'z = lg_db_get(r, i, col[C_NAME]); w = PQgetvalue(r, i, k);' >"$probe"
if [ "$(scan "$probe" | wc -l)" -ne 2 ]; then
    echo "columns_by_name.sh: the check no longer finds reads by position:" >&2
    scan "$probe" >&2
    exit 2
fi

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.c' '*.h')
else
    mapfile -t files < <(find . -name '*.[ch]' -not -path './build*' -not -path './.git/*')
fi
found=$(scan "${files[@]}")
if [ -n "$found" ]; then
    printf '%s\n' "$found"
    echo "$(printf '%s\n' "$found" | wc -l) result column(s) read by position: name each in the query (AS name) and read it with lg_db_col / lg_db_get (db/db.h)" >&2
    exit 1
fi
echo "no result column read by position in ${#files[@]} C files"
