#!/usr/bin/env bash
# ownership.sh [SRC]: ownership reads one way (issue 45 part 7; czmq's rule, docs/design.md):
#   x_destroy(x_t **self_p)  frees a heap object (what x_new made), sets *self_p to NULL, and does
#                            nothing for NULL or *NULL
#   x_clear(x_t *self)       frees what a struct the caller owns (on its stack, inside another)
#                            holds, not the struct itself, and leaves it zeroed
#   x_free(...)              only for plain C data (a string, a char ** list): never a type of
#                            the tree's own
# Every function declared or defined (universal-ctags' prototypes and functions) in the C files
# of the parts (core net sys db agent controller lgctl web-export; their headers first of all) and
# of tests/ whose name ends in _free, _destroy or _clear is checked; cmocka's cases (test_*, which
# take void **state) are not such functions. Fails, naming each by FILE:LINE, on:
#   free FILE:LINE NAME      a *_free that takes a type of the tree's own: a typedef, a struct,
#                            union or enum defined in these files, or a protobuf-c message of
#                            proto/lg.proto (Lg__*): a _destroy or a _clear by what it frees
#   destroy FILE:LINE NAME   a *_destroy whose first parameter is not a pointer's address (**)
#   clear FILE:LINE NAME     a *_clear whose first parameter is a pointer's address (**)
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
dirs=(core net sys db agent controller lgctl web-export tests)

. "$(dirname "$0")/lib.sh" # lint_ctags, lint_c_files
lint_ctags ownership.sh
cd "$src"

lint_c_files "${dirs[@]}"
if [ ${#files[@]} -eq 0 ]; then
    echo "ownership.sh: no C files under $src" >&2
    exit 2
fi

found=$(
    "$ctags" -x --_xformat='%{input}	%{line}	%{kind}	%{name}	%{signature}' --languages=C \
        --map-C=+.h --map-C++=-.h --kinds-C=fpstug "${files[@]}" |
        perl -F'\t' -e '
        use strict;
        my (%typedef, %tag, @fns);
        while (my $l = <STDIN>) {
            chomp $l;
            my ($file, $line, $kind, $name, $sig) = split /\t/, $l, 5;
            next if $name =~ /^__anon/;
            if ($kind eq "typedef") { $typedef{$name} = 1; next; }
            if ($kind =~ /^(struct|union|enum)$/) { $tag{"$kind $name"} = 1; next; }
            next unless $kind =~ /^(function|prototype)$/;
            next unless $name =~ /_(free|destroy|clear)$/ && $name !~ /^test_/;
            push @fns, [$file, $line, $name, $sig // ""];
        }
        # The parameters of a signature "(a,b (*c)(d,e))": split at the commas outside parentheses.
        sub params {
            my ($sig) = @_;
            $sig =~ s/^\s*\(//;
            $sig =~ s/\)\s*$//;
            my @p;
            my ($cur, $depth) = ("", 0);
            for my $ch (split //, $sig) {
                $depth++ if $ch eq "(";
                $depth-- if $ch eq ")";
                if ($ch eq "," && $depth == 0) { push @p, $cur; $cur = ""; next; }
                $cur .= $ch;
            }
            push @p, $cur if $cur =~ /\S/;
            s/\*\s+(?=\*)/*/g for @p; # "x_t * * p" -> "x_t ** p"
            return @p;
        }
        # The type of the tree'"'"'s own a parameter names, or "".
        sub own_type {
            my ($p) = @_;
            return "$1 $2" if $p =~ /\b(struct|union|enum)\s+(\w+)/ && $tag{"$1 $2"};
            for my $w ($p =~ /\b([A-Za-z_]\w*)\b/g) {
                return $w if $typedef{$w} || $w =~ /^Lg__\w+$/;
            }
            return "";
        }
        my %seen;
        for my $f (sort { $a->[0] cmp $b->[0] || $a->[1] <=> $b->[1] } @fns) {
            my ($file, $line, $name, $sig) = @$f;
            next if $seen{"$file:$line:$name"}++;
            my @p = params($sig);
            my $first = @p ? $p[0] : "";
            if ($name =~ /_free$/) {
                for my $p (@p) {
                    my $t = own_type($p);
                    next unless $t ne "";
                    print "free $file:$line $name$sig: takes $t; a heap object is x_destroy(x_t **self_p), a struct the caller owns x_clear(x_t *self)\n";
                    last;
                }
            } elsif ($name =~ /_destroy$/) {
                print "destroy $file:$line $name$sig: a _destroy takes the address of what it frees (x_t **self_p) and sets it to NULL\n"
                    unless $first =~ /\*\*/;
            } elsif ($first =~ /\*\*/) {
                print "clear $file:$line $name$sig: a _clear takes the struct whose contents it frees (x_t *self); freeing the object itself is x_destroy(x_t **self_p)\n";
            }
        }
    '
)
if [ -n "$found" ]; then
    echo "ownership.sh: ownership does not read one way (issue 45 part 7; czmq's rule):" >&2
    printf '%s\n' "$found" | sed 's/^/  /' >&2
    echo "x_new() / x_destroy(x_t **self_p) for heap objects (frees, sets *self_p to NULL, no-op on NULL); x_init / x_clear(x_t *self) for the contents of a struct the caller owns; _free only for plain C data (strings, char ** lists)." >&2
    exit 1
fi
echo "ownership.sh: ${#files[@]} C files of ${dirs[*]}: every _destroy takes **, no _clear does, no _free takes a type of the tree's own"
