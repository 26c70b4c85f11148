#!/usr/bin/env bash
# house.sh [SRC [ALLOW]]: the house rules of issues 33 and 45 over the build's parts, the folders
# core/ net/ sys/ db/ agent/ controller/ lgctl/ web-export/ (their .c and .h files; generated code
# and tests are not theirs). Fails, naming each, on:
#   function FILE NAME     a function over 120 lines (universal-ctags' first to last line)
#   file FILE              a file over 1,000 lines
#   include FILE HEADER    a part including a header from a folder it may not: core/ (pure: no
#                          sockets, threads or processes) from core/ only; net/ and sys/ from
#                          themselves and core/; db/ from db/, core/, net/, sys/; agent/ (with
#                          agent/engines/), controller/, lgctl/ and web-export/ from themselves,
#                          core/, net/, sys/ and db/. A part's private header (*_int.h) from that
#                          part only. The generated lg.pb-c.h, and headers from outside the tree
#                          (fio's), anywhere.
#   circle HEADER ...      headers that include each other in a loop (each set once, sorted)
# A violation whose line (as above, without what follows a ':') is in ALLOW is known and let
# pass: ALLOW (default tests/lint/house_allow.txt) lists today's, and shrinks as the work lands.
# An entry that no longer matches is reported, not failed: remove it.
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
allow=${2:-$src/tests/lint/house_allow.txt}
parts=(core net sys db agent controller lgctl web-export)
max_fn=120
max_file=1000

. "$(dirname "$0")/lib.sh" # lint_ctags, lint_c_files
lint_ctags house.sh
[ -f "$allow" ] || { echo "house.sh: no allowlist \"$allow\"" >&2; exit 2; }
cd "$src"

lint_c_files "${parts[@]}"

found=$(mktemp)
trap 'rm -f "$found"' EXIT
if [ ${#files[@]} -gt 0 ]; then
    # (a) long functions and long files
    "$ctags" -x --_xformat='%{input}	%{name}	%{line}	%{end}' --languages=C --map-C=+.h \
        --map-C++=-.h --kinds-C=f "${files[@]}" |
        awk -F'\t' -v max="$max_fn" '$4 != "" && $4 - $3 + 1 > max {
            printf "function %s %s: %d lines (from line %d), the limit is %d\n", $1, $2, $4 - $3 + 1, $3, max }' \
            >>"$found"
    wc -l "${files[@]}" | awk -v max="$max_file" '$2 != "total" && $1 > max {
        printf "file %s: %d lines, the limit is %d\n", $2, $1, max }' >>"$found"
    # (b) includes across parts, (c) include circles between headers
    perl -e '
        use strict;
        my @files = @ARGV;
        my %have = map { $_ => 1 } @files;
        my %by_name; # "x.h" -> paths ending in it
        for my $f (@files) { (my $b = $f) =~ s{.*/}{}; push @{$by_name{$b}}, $f; }
        sub part { my ($f) = @_; return (split m{/}, $f)[0]; }
        my %below = (core => [], net => ["core"], sys => ["core"], db => ["core", "net", "sys"]);
        sub allowed {
            my ($from, $to) = @_;
            return 1 if $to eq $from;
            my $may = $below{$from} || ["core", "net", "sys", "db"]; # a program: any library part
            return scalar grep { $_ eq $to } @$may;
        }
        # A quoted include, as the compiler finds it: beside the file, else by its name in a part
        # (this part first, then core, net, sys, db); not in the tree (fio, generated): undef.
        sub resolve {
            my ($f, $inc) = @_;
            (my $dir = $f) =~ s{/[^/]*$}{};
            my $near = "$dir/$inc";
            1 while $near =~ s{[^/]+/\.\./}{};
            return $near if $have{$near};
            (my $b = $inc) =~ s{.*/}{};
            my @c = grep { $_ eq $inc || substr($_, -length($inc) - 1) eq "/$inc" } @{$by_name{$b} || []};
            return undef unless @c;
            for my $p (part($f), "core", "net", "sys", "db") {
                my @in = grep { part($_) eq $p } @c;
                return $in[0] if @in;
            }
            return $c[0];
        }
        my %edges; # header -> headers it includes
        for my $f (@files) {
            open(my $fh, "<", $f) or die "$f: $!";
            while (my $l = <$fh>) {
                next unless $l =~ /^\s*#\s*include\s*"([^"]+)"/;
                my $inc = $1;
                next if $inc =~ m{(^|/)lg\.pb-c\.h$};
                my $to = resolve($f, $inc);
                next unless defined $to;
                if (!allowed(part($f), part($to))) {
                    print "include $f $to: part ", part($f), "/ may not include from ", part($to), "/\n";
                } elsif ($to =~ /_int\.h$/ && part($f) ne part($to)) {
                    print "include $f $to: a private header of ", part($to), "/, from ", part($f), "/\n";
                }
                $edges{$f}{$to} = 1 if $f =~ /\.h$/ && $to =~ /\.h$/;
            }
            close $fh;
        }
        # Tarjan: each strongly connected set of two or more headers (or one including itself).
        my ($n, @stack, %idx, %low, %on) = (0);
        my $visit;
        $visit = sub {
            my ($v) = @_;
            $idx{$v} = $low{$v} = $n++;
            push @stack, $v;
            $on{$v} = 1;
            for my $w (sort keys %{$edges{$v} || {}}) {
                if (!defined $idx{$w}) { $visit->($w); $low{$v} = $low{$w} if $low{$w} < $low{$v}; }
                elsif ($on{$w} && $idx{$w} < $low{$v}) { $low{$v} = $idx{$w}; }
            }
            return unless $low{$v} == $idx{$v};
            my @set;
            while (1) { my $w = pop @stack; $on{$w} = 0; push @set, $w; last if $w eq $v; }
            print "circle ", join(" ", sort @set), ": these headers include each other\n"
                if @set > 1 || $edges{$v}{$v};
        };
        for my $v (sort keys %edges) { $visit->($v) unless defined $idx{$v}; }
    ' "${files[@]}" >>"$found"
fi

# Known violations: the allowlist's lines without comments and spaces at either end.
known=$(sed -e 's/#.*//' -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' "$allow" | grep -v '^$' || true)
new=$(awk -v known="$known" 'BEGIN { n = split(known, k, "\n"); for (i = 1; i <= n; i++) ok[k[i]] = 1 }
    { key = $0; sub(/:.*/, "", key); if (!(key in ok)) print }' "$found")
stale=$(printf '%s\n' "$known" | awk -v found="$(sed 's/:.*//' "$found")" '
    BEGIN { n = split(found, f, "\n"); for (i = 1; i <= n; i++) seen[f[i]] = 1 }
    $0 != "" && !($0 in seen)')
if [ -n "$stale" ]; then
    echo "house.sh: no longer found, remove from ${allow#"$src"/}:"
    printf '%s\n' "$stale" | sed 's/^/  /'
fi
if [ -n "$new" ]; then
    echo "house.sh: the house rules are broken (issue 33; docs/design.md):" >&2
    printf '%s\n' "$new" | sed 's/^/  /' >&2
    echo "Split a long function or file along a named seam; include only from the part itself and the parts below it (core/; net/ and sys/; db/), never another part's *_int.h; break a circle. Listing one in ${allow#"$src"/} is for the known ones of today." >&2
    exit 1
fi
echo "house.sh: ${#files[@]} files of ${parts[*]}: no violation beyond the $(printf '%s\n' "$known" | grep -c . || true) known"
