#!/usr/bin/env bash
# db_door.sh [SRC]: db/ is the one door to PostgreSQL (issue 45 part 1; docs/design.md, "Code
# layout"), as PostgreSQL's fe_utils is for psql and pg_dump. Fails, naming each by FILE:LINE, on
# a C file outside db/ that
#   calls libpq (a call of PQsomething, comments aside): db/db.h has what callers need
#     (lg_db_exec, lg_db_nrows, lg_db_get, lg_db_result_destroy, lg_db_close, lg_db_result_error...)
#   includes libpq's headers (libpq-fe.h, libpq-events.h, libpq/...): db/db.h declares PGconn and
#     PGresult as names only, which is all a caller needs
# test_dbconn.c checks db/'s connection strings against libpq's own reading of them (PQconninfoParse):
# libpq is its oracle there, not a door to a server. Results made in memory go through db/
# (lg_db_result_make).
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
cd "$src"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t all < <(git ls-files --cached --others --exclude-standard -- '*.c' '*.h' | sort -u)
else
    mapfile -t all < <(find . -name '*.[ch]' -not -path './build*' -not -path './.git/*' |
        sed 's|^\./||' | sort)
fi
files=()
for f in "${all[@]}"; do
    case $f in
    db/* | tests/unit/test_dbconn.c) continue ;;
    esac
    [ -f "$f" ] && files+=("$f")
done
if [ ${#files[@]} -eq 0 ]; then
    echo "db_door.sh: no C files outside db/ under $src" >&2
    exit 2
fi

# Comments are blanked (their newlines kept, so lines still count) before a call is looked for:
# a comment may name a libpq function ("as PQgetvalue(r, i, c) reads it").
found=$(perl -0777 -ne '
    my $text = $_;
    (my $code = $text) =~ s{/\*.*?\*/|//[^\n]*}{ (my $c = $&) =~ s/[^\n]//g; $c }gse;
    while ($code =~ /\b(PQ[A-Za-z]+)\s*\(/g) {
        my ($fn, $at) = ($1, $-[0]);
        my $line = 1 + (() = substr($code, 0, $at) =~ /\n/g);
        print "$ARGV:$line: calls $fn(): libpq is called only in db/ (db/db.h)\n";
    }
    while ($text =~ /^[ \t]*#[ \t]*include[ \t]*[<"](libpq-[a-z]+\.h|libpq\/[^>"]*)[>"]/mg) {
        my ($h, $at) = ($1, $-[0]);
        my $line = 1 + (() = substr($text, 0, $at) =~ /\n/g);
        print "$ARGV:$line: includes $h: only db/ includes libpq'"'"'s headers (db/db.h names PGconn and PGresult)\n";
    }' "${files[@]}")
if [ -n "$found" ]; then
    printf '%s\n' "$found" | sort -t: -k1,1 -k2,2n
    echo "db_door.sh: $(printf '%s\n' "$found" | wc -l) use(s) of libpq outside db/: go through db/db.h (add what is missing there)" >&2
    exit 1
fi
echo "db_door.sh: no libpq call or header in ${#files[@]} C files outside db/"
