#!/usr/bin/env bash
# format.sh SRC: every C file of the parts (core db agent controller lgctl web-export) and of the
# tests is as the checked-in .clang-format lays it out (clang-format --dry-run -Werror), so that
# a change shows only what it changes. The fix: clang-format -i FILE. Include order matters in
# a few files (winsock2.h before windows.h, cmocka.h after the headers it needs): such includes
# stand in blocks of their own (a blank line between), which clang-format sorts one by one.
set -euo pipefail
src=${1:?usage: format.sh SRC}
cd "$src"
command -v clang-format >/dev/null || { echo "clang-format is missing (deploy/install-deps.sh)" >&2; exit 1; }
mapfile -t files < <(find core db agent controller lgctl web-export tests -name '*.[ch]' | sort)
[ "${#files[@]}" -ge 200 ] || { echo "only ${#files[@]} C files found under $src" >&2; exit 1; }
bad=()
for f in "${files[@]}"; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ "${#bad[@]}" -gt 0 ]; then
    printf 'not as .clang-format lays it out (clang-format -i FILE): %s\n' "${bad[@]}" >&2
    clang-format --dry-run -Werror "${bad[0]}" 2>&1 | head -n 12 >&2
    exit 1
fi
echo "ok: ${#files[@]} C files as .clang-format lays them out ($(clang-format --version | head -n 1))"
