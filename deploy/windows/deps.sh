#!/usr/bin/env bash
# deps.sh: cross-build what the Windows lg-agent needs, from Debian's own source packages, on a
# Debian 12 machine (as root): libuv, libzmq (CURVE via its bundled tweetnacl), the protobuf-c
# runtime, jansson, zstd and lz4 (the data reduction check; its SHA-256 is Windows' own CNG),
# cmocka (for the unit tests) and fio.exe. Everything lands in $LG_WIN_CACHE/prefix (default
# /var/cache/lg-windows):
#   include/  lib/*.a  lib/pkgconfig/*.pc  lib/cmake/jansson/  CMake/ (ZeroMQConfig)
#   bin/fio.exe
# so that a cross build of the agent can use
#   -DCMAKE_TOOLCHAIN_FILE=deploy/windows/mingw-w64.cmake -DCMAKE_PREFIX_PATH=$LG_WIN_CACHE/prefix
# Nothing third-party is kept in the repository: sources are fetched and built in the cache.
# A component whose stamp records the same source version (and recipe) is skipped, so a second
# run takes seconds. When the newest version's source cannot be downloaded (the mirror may lack
# a security upload's files), the next older one in the lists is built, with a warning. Set
# LG_WIN_JOBS to change the build parallelism (default: nproc).
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
    echo "deps.sh: run as root (it uses apt-get)" >&2
    exit 1
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
toolchain=$here/mingw-w64.cmake
cache=${LG_WIN_CACHE:-/var/cache/lg-windows}
prefix=$cache/prefix
jobs=${LG_WIN_JOBS:-$(nproc)}
triplet=x86_64-w64-mingw32
cc=$triplet-gcc-posix # same compiler as the toolchain file uses
# Debian's wine64 package has no /usr/bin wrappers (those come with the "wine" package).
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver64

# Host build settings must not leak into a cross build (fio's Makefile appends $CPPFLAGS, CMake
# reads $CFLAGS/$LDFLAGS, pkg-config reads $PKG_CONFIG_PATH).
unset CC CXX CFLAGS CXXFLAGS CPPFLAGS LDFLAGS PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
export LC_ALL=C DEBIAN_FRONTEND=noninteractive

t_start=$EPOCHREALTIME
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", b - a }'; }

# ---- 1. Debian packages (only asks apt when something is missing) ----
# mingw-w64 for x86_64 with the posix threading model (gcc, g++, binutils, headers/CRT);
# libz-mingw-w64-dev gives fio its zlib features (log compression, --inflate-log) as a static
# libz.a; dpkg-dev/xz-utils unpack source packages; wine64 runs fio.exe once as a smoke check.
pkgs=(gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64
      mingw-w64-x86-64-dev libz-mingw-w64-dev cmake make dpkg-dev xz-utils wine64)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    t=$EPOCHREALTIME
    echo "deps.sh: installing ${missing[*]}"
    . "$here/../apt.sh" # apt_get: waits for apt's locks (unattended upgrades)
    apt_get update -q >/dev/null
    apt_get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
    echo "deps.sh: packages installed in $(since "$t")"
fi

mkdir -p "$cache"/{apt/parts,apt/lists/partial,apt/archives/partial,dl,src,build,log,stamps} "$prefix"
# One run at a time: two would unpack and install over each other.
exec 9>"$cache/.lock"
flock -n 9 || { echo "deps.sh: waiting for another run on $cache" >&2; flock 9; }

# ---- 2. Debian source indexes, without touching /etc (as deploy/fio-src.sh does) ----
# deb-src twins of the system's own deb stanzas, with private lists.
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f"
done >"$cache/apt/parts/src.sources"
if [ -f /etc/apt/sources.list ]; then
    { grep -E '^deb ' /etc/apt/sources.list || true; } | sed 's/^deb /deb-src /' >"$cache/apt/src.list"
else
    : >"$cache/apt/src.list"
fi
APT=(-o "Dir::Etc::SourceList=$cache/apt/src.list" -o "Dir::Etc::SourceParts=$cache/apt/parts"
     -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache::Archives=$cache/apt/archives")
t=$EPOCHREALTIME
if ! apt-get "${APT[@]}" -q update >"$cache/log/apt-update.log" 2>&1; then
    # Lists from an earlier run still name versions we may already have built: go on with them.
    if compgen -G "$cache/apt/lists/*Sources*" >/dev/null; then
        echo "deps.sh: warning: apt-get update (deb-src) failed, using the previous lists" >&2
    else
        cat "$cache/log/apt-update.log" >&2
        echo "deps.sh: apt-get update (deb-src) failed" >&2
        exit 1
    fi
fi
echo "deps.sh: source indexes in $(since "$t")"

# src_versions PKG: the versions of source package PKG in the lists, newest first (the first is
# what apt-get source would pick; bookworm and bookworm-security may both list one).
src_versions() {
    local vs i j t
    # shellcheck disable=SC2207 # versions have no blanks
    vs=($(apt-cache "${APT[@]}" showsrc "$1" 2>/dev/null |
          awk -v p="$1" '/^Package: /{ok = ($2 == p)} ok && /^Version: /{print $2}' | sort -u))
    if [ ${#vs[@]} = 0 ]; then
        echo "deps.sh: no source package $1 in the Debian lists" >&2
        return 1
    fi
    for ((i = 0; i < ${#vs[@]}; i++)); do # two or three of them: a selection sort does
        for ((j = i + 1; j < ${#vs[@]}; j++)); do
            if dpkg --compare-versions "${vs[j]}" gt "${vs[i]}"; then
                t=${vs[i]} vs[i]=${vs[j]} vs[j]=$t
            fi
        done
    done
    printf '%s\n' "${vs[@]}"
}

# download PKG VER: PKG=VER's source into dl/, unless it is there.
download() {
    local pkg=$1 ver=$2 nover=${2#*:} # file names carry no epoch
    [ -f "$cache/dl/${pkg}_$nover.dsc" ] && return 0
    rm -f "$cache/dl/${pkg}_"*
    # apt checks every file against the signed Sources index.
    (cd "$cache/dl" && apt-get "${APT[@]}" -q source --download-only "$pkg=$ver") && return 0
    rm -f "$cache/dl/${pkg}_"* # a part of it would pass for all of it next time
    return 1
}

# unpack PKG VER: unpack the downloaded source of PKG=VER afresh into src/PKG-UPSTREAM (patches
# of the Debian package applied); sets $srcdir.
unpack() {
    local pkg=$1 ver=$2 nover=${2#*:} # file names carry no epoch
    local up=${nover%-*}              # upstream version: without the Debian revision
    local dsc=$cache/dl/${pkg}_$nover.dsc
    rm -rf "$cache/src/$pkg-"*
    srcdir=$cache/src/$pkg-$up
    # --no-check: the .dsc signature needs debian-keyring; apt has already checked the hashes.
    dpkg-source -x --no-check "$dsc" "$srcdir"
}

# component LANE NAME SRCPKG RECIPE OUTPUT BUILDFN: queue NAME to be built from source package
# SRCPKG with BUILDFN in build lane LANE (build_lanes) unless its stamp says "SRCPKG VER recipe
# RECIPE" and prefix/OUTPUT exists. VER is the newest version whose source can be downloaded
# (downloaded here, one at a time). Bump RECIPE when the way a component is built changes, so
# the next run rebuilds it.
LANE_ITEMS=("" "")
component() {
    local lane=$1 name=$2 pkg=$3 recipe=$4 output=$5 fn=$6
    local t0=$EPOCHREALTIME vers ver="" v want stamp=$cache/stamps/$name
    local dlog=$cache/log/$name-download.log
    vers=$(src_versions "$pkg")
    for v in $vers; do
        want="$pkg $v recipe $recipe"
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -e "$prefix/$output" ]; then
            printf 'deps.sh: %-10s %-28s up to date (%s)\n' "$name" "$v" "$(since "$t0")"
            return 0
        fi
        if download "$pkg" "$v" >"$dlog" 2>&1; then
            ver=$v
            break
        fi
        echo "deps.sh: warning: the source of $pkg $v could not be downloaded" \
            "($(grep -m 1 '^E: ' "$dlog" || echo "see $dlog")); trying the previous version" >&2
    done
    if [ -z "$ver" ]; then
        cat "$dlog" >&2
        echo "deps.sh: no version of $pkg could be downloaded ($vers)" >&2
        exit 1
    fi
    rm -f "$stamp"
    LANE_ITEMS[lane]+="$name $pkg $ver $fn $recipe"$'\n'
}

# build NAME PKG VER FN RECIPE: unpack PKG=VER and build it with FN, its log in log/NAME.log.
build() {
    local name=$1 pkg=$2 ver=$3 fn=$4 recipe=$5 t0=$EPOCHREALTIME rc
    local log=$cache/log/$name.log
    printf 'deps.sh: %-10s %-28s building (log: %s)\n' "$name" "$ver" "$log"
    # A subshell outside any "||" keeps set -e in force inside the build function; -x puts each
    # command in the log, so its tail shows what failed.
    set +e
    ( set -ex; unpack "$pkg" "$ver"; "$fn" ) >"$log" 2>&1
    rc=$?
    set -e
    if [ $rc != 0 ]; then
        tail -n 40 "$log" >&2
        echo "deps.sh: building $name failed (full log: $log)" >&2
        return 1
    fi
    echo "$pkg $ver recipe $recipe" >"$cache/stamps/$name"
    printf 'deps.sh: %-10s %-28s built in %s\n' "$name" "$ver" "$(since "$t0")"
}

# build_lanes: the queued builds, each lane's in order, the two lanes side by side. Configure
# scripts and CMake's checks run on one CPU and the installs write no file of the other lane's,
# so on 2 CPUs fio's build in one lane fills what the other's configure steps leave idle (about
# 270 s of work in 190 s on a fresh machine). The first failure stops its lane; both are waited for.
build_lanes() {
    local pids=() rc=0 l
    for l in 0 1; do
        [ -n "${LANE_ITEMS[l]}" ] || continue
        (
            while read -r name pkg ver fn recipe; do
                [ -n "$name" ] || continue
                build "$name" "$pkg" "$ver" "$fn" "$recipe" || exit 1
            done <<<"${LANE_ITEMS[l]}"
        ) &
        pids+=($!)
    done
    for l in "${pids[@]}"; do
        wait "$l" || rc=1
    done
    [ $rc = 0 ] || exit 1
}

# Common CMake options: the toolchain, a Release build, plain lib/ (no lib64 or multiarch).
cmake_configure() { # SRC BUILD [options...]: a fresh build directory
    local src=$1 b=$2
    shift 2
    rm -rf "$b"
    cmake -S "$src" -B "$b" -G "Unix Makefiles" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib "$@"
}
cmake_build() { # SRC BUILD [options...]: configure, build everything, install
    cmake_configure "$@"
    cmake --build "$2" -j "$jobs"
    cmake --install "$2"
}

# write_pc FILE NAME DESCRIPTION VERSION LIB: prefix/lib/pkgconfig/FILE.pc for a static archive
# libLIB.a whose headers are in prefix/include (what the agent's pkg_check_modules reads).
write_pc() {
    cat >"$prefix/lib/pkgconfig/$1.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $2
Description: $3 (static, $triplet)
Version: $4
Libs: -L\${libdir} -l$5
Cflags: -I\${includedir}
EOF
}

# ---- 3. the components ----

build_libuv() {
    # libuv 1.44's CMake builds the DLL (uv) and the static archive (uv_a): only the archive is
    # built (half the compiling) and installed by hand with its headers. The agent links
    # statically: "pkg-config libuv" must name the archive and its system libraries, which is
    # what the libuv-static.pc its configure writes says.
    local b=$cache/build/libuv
    cmake_configure "$srcdir" "$b" -DBUILD_TESTING=OFF -DLIBUV_BUILD_TESTS=OFF \
        -DLIBUV_BUILD_BENCH=OFF
    cmake --build "$b" -j "$jobs" --target uv_a
    install -D -m 644 "$b/libuv_a.a" "$prefix/lib/libuv_a.a"
    install -D -m 644 "$srcdir/include/uv.h" "$prefix/include/uv.h"
    install -d "$prefix/include/uv"
    install -m 644 "$srcdir"/include/uv/*.h "$prefix/include/uv/"
    install -d "$prefix/lib/pkgconfig"
    sed 's/^Name: libuv-static$/Name: libuv/' "$b/libuv-static.pc" >"$prefix/lib/pkgconfig/libuv.pc"
    grep -q -- '-luv_a' "$prefix/lib/pkgconfig/libuv.pc"
}

build_libzmq() {
    # CMAKE_SYSTEM_VERSION=10.0: libzmq derives _WIN32_WINNT from it. ZMQ_HAVE_IPC=OFF: mingw-w64
    # ships afunix.h, so libzmq's CMake enables ipc://, whose 4.3.4 sources then want
    # <sys/socket.h> and do not compile; lg uses tcp:// only.
    # CURVE with the bundled tweetnacl (no libsodium for mingw in Debian). Static only.
    # A unity build (CMake joins 8 C++ files a compiler run): libzmq's 100 C++ files each parse
    # the same large standard headers, so this takes 21 s instead of 110 s on 2 idle cores (and
    # 300 s beside the test suite), with the same code. Its two C files (tweetnacl, sha1)
    # define clashing macros and are left out of it (zmq-unity.cmake, read after project()).
    cmake_build "$srcdir" "$cache/build/libzmq" \
        -DCMAKE_UNITY_BUILD=ON -DCMAKE_PROJECT_INCLUDE="$here/zmq-unity.cmake" \
        -DCMAKE_SYSTEM_VERSION=10.0 -DZMQ_HAVE_IPC=OFF \
        -DENABLE_CURVE=ON -DWITH_LIBSODIUM=OFF -DENABLE_DRAFTS=OFF \
        -DBUILD_SHARED=OFF -DBUILD_STATIC=ON -DBUILD_TESTS=OFF \
        -DWITH_DOCS=OFF -DWITH_DOC=OFF -DENABLE_CPACK=OFF
    # The agent's transport depends on CURVE: fail here rather than at the first handshake.
    grep -q '^#define ZMQ_HAVE_CURVE' "$cache/build/libzmq/platform.hpp"
    # Its libzmq.pc is written for a DLL: a static libzmq needs ZMQ_STATIC defined (else zmq.h
    # declares everything dllimport) and the C++ runtime and Winsock libraries on the link line.
    # shellcheck disable=SC2016 # ${libdir} and ${includedir} are pkg-config variables
    sed -i -e 's/^Libs: .*/Libs: -L${libdir} -lzmq -lws2_32 -liphlpapi -lrpcrt4 -lstdc++/' \
        -e 's/^Libs.private: .*/Libs.private:/' \
        -e 's/^Cflags: .*/Cflags: -I${includedir} -DZMQ_STATIC/' "$prefix/lib/pkgconfig/libzmq.pc"
}

build_protobuf_c() {
    # Only the runtime (one C file) is needed on Windows; protoc-c runs on the Linux build host
    # (Debian's protobuf-c-compiler, the same version). Built without PROTOBUF_C_USE_SHARED_LIB,
    # so the header declares plain (static) symbols.
    local b=$cache/build/protobuf-c ver
    rm -rf "$b"
    mkdir -p "$b"
    "$cc" -O2 -g -Wall -I"$srcdir" -c "$srcdir/protobuf-c/protobuf-c.c" -o "$b/protobuf-c.o"
    rm -f "$b/libprotobuf-c.a"
    "$triplet-ar" rcs "$b/libprotobuf-c.a" "$b/protobuf-c.o"
    install -D -m 644 "$srcdir/protobuf-c/protobuf-c.h" "$prefix/include/protobuf-c/protobuf-c.h"
    install -D -m 644 "$b/libprotobuf-c.a" "$prefix/lib/libprotobuf-c.a"
    ver=$(basename "$srcdir")
    ver=${ver#protobuf-c-}
    write_pc libprotobuf-c libprotobuf-c "Protocol Buffers C runtime" "$ver" protobuf-c
}

build_jansson() {
    # Static only (its default), no Sphinx docs, tests or examples. The CMake package goes to
    # lib/cmake/jansson (on WIN32 jansson would put it in <prefix>/cmake); typed STRING, since
    # CMake makes an untyped -D of what the project declares a PATH absolute against the current
    # directory. jansson.h has no dllimport declarations, the seed code finds CryptGenRandom at
    # run time (GetProcAddress), and sched_yield comes from winpthreads, which gcc links by
    # default: jansson.pc (-ljansson, -I) is complete for a static link as it is.
    cmake_build "$srcdir" "$cache/build/jansson" -DJANSSON_BUILD_SHARED_LIBS=OFF \
        -DJANSSON_BUILD_DOCS=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_EXAMPLES=OFF \
        -DJANSSON_INSTALL_CMAKE_DIR:STRING=lib/cmake/jansson
    [ -f "$prefix/lib/cmake/jansson/janssonConfig.cmake" ]
    # shellcheck disable=SC2016 # ${libdir} is a pkg-config variable
    grep -qx 'Libs: -L${libdir} -ljansson' "$prefix/lib/pkgconfig/jansson.pc"
}

build_zstd() {
    # Only the static library, by its own Makefile with the mingw compiler: no programs, tests
    # or CMake. Its libzstd.a is single-threaded (lg uses one context per scanner) and zstd.h
    # declares nothing dllimport unless ZSTD_DLL_IMPORT=1, so a static consumer needs no define.
    # Without the legacy decoders (frames of zstd before 0.8): nothing here reads those.
    make -C "$srcdir/lib" -j "$jobs" libzstd.a CC="$cc" AR="$triplet-ar" ZSTD_LEGACY_SUPPORT=0
    install -D -m 644 "$srcdir/lib/libzstd.a" "$prefix/lib/libzstd.a"
    for h in zstd.h zstd_errors.h zdict.h; do
        install -D -m 644 "$srcdir/lib/$h" "$prefix/include/$h"
    done
    local v
    v=$(awk '/^#define ZSTD_VERSION_(MAJOR|MINOR|RELEASE) / { v = v (v == "" ? "" : ".") $3 }
             END { print v }' "$srcdir/lib/zstd.h")
    write_pc libzstd zstd "fast lossless compression algorithm library" "$v" zstd
    grep -q '^Version: [0-9]*\.[0-9]*\.[0-9]*$' "$prefix/lib/pkgconfig/libzstd.pc"
}

build_lz4() {
    # Only liblz4.a (lz4, lz4hc, lz4frame, lz4file, xxhash), by its own Makefile with the mingw
    # compiler: not the lz4 program. lz4.h declares nothing dllimport unless LZ4_DLL_IMPORT=1.
    local ver
    make -C "$srcdir/lib" -j "$jobs" liblz4.a CC="$cc" AR="$triplet-ar"
    install -D -m 644 "$srcdir/lib/liblz4.a" "$prefix/lib/liblz4.a"
    for h in lz4.h lz4hc.h lz4frame.h lz4frame_static.h lz4file.h; do
        install -D -m 644 "$srcdir/lib/$h" "$prefix/include/$h"
    done
    ver=$(basename "$srcdir")
    write_pc liblz4 lz4 "extremely fast lossless compression algorithm library" "${ver#lz4-}" lz4
}

build_cmocka() {
    # cmocka 1.1.5's CMake always builds the DLL; WITH_STATIC_LIB adds the archive cmocka-static.
    # Only that target is built, and it is installed by hand as libcmocka.a, so -lcmocka can
    # never pick a DLL import library. cmocka.h has no dllimport/dllexport declarations (the DLL
    # exports through cmocka.def), so a static consumer needs no define such as CMOCKA_STATIC;
    # clock_gettime (winpthreads) and __emutls_* (libgcc) come with gcc's default libraries.
    # Its cmocka.pc and cmocka-config.cmake (which names the DLL's import library) are not used.
    local b=$cache/build/cmocka
    cmake_configure "$srcdir" "$b" -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF \
        -DWITH_CMOCKERY_SUPPORT=OFF -DCMAKE_DISABLE_FIND_PACKAGE_Doxygen=ON
    cmake --build "$b" -j "$jobs" --target cmocka-static
    install -D -m 644 "$srcdir/include/cmocka.h" "$prefix/include/cmocka.h"
    install -D -m 644 "$srcdir/include/cmocka_pbc.h" "$prefix/include/cmocka_pbc.h"
    install -D -m 644 "$b/src/libcmocka-static.a" "$prefix/lib/libcmocka.a"
    local v
    v=$(sed -n 's/^project(cmocka VERSION \([0-9.]*\).*/\1/p' "$srcdir/CMakeLists.txt")
    write_pc cmocka cmocka "The cmocka unit testing library" "$v" cmocka
    grep -q '^Version: [0-9]' "$prefix/lib/pkgconfig/cmocka.pc"
}

build_fio() {
    # fio builds for Windows with mingw from its own tree: configure recognises _WIN32, selects
    # the windowsaio engine and forces a static link (-static: no DLLs besides Windows' own).
    # --disable-native: no -march=native of this build machine.
    cd "$srcdir"
    ./configure --cc="$cc" --disable-native --build-static
    # not "all": t/ test tools and docs are not needed. OPTFLAGS without fio's -g: the debug info
    # was stripped from what agents get anyway, and writing it took a fifth of the compiling.
    make -j "$jobs" fio OPTFLAGS=-ffast-math
    install -D -m 755 fio.exe "$prefix/bin/fio.exe"
    # 6 MB of DWARF debug info is not needed on agents; the unstripped fio.exe stays in src/.
    "$triplet-strip" "$prefix/bin/fio.exe"
}

# Lane 1 is fio alone (the longest); lane 0 the libraries.
component 0 libuv libuv1 2 lib/libuv_a.a build_libuv
component 0 libzmq zeromq3 2 lib/libzmq.a build_libzmq
component 0 protobuf-c protobuf-c 1 lib/libprotobuf-c.a build_protobuf_c
component 0 jansson jansson 2 lib/libjansson.a build_jansson
component 0 zstd libzstd 1 lib/libzstd.a build_zstd
component 0 lz4 lz4 1 lib/liblz4.a build_lz4
component 0 cmocka cmocka 1 lib/libcmocka.a build_cmocka
component 1 fio fio 2 bin/fio.exe build_fio
build_lanes

# ---- 4. smoke check: fio.exe starts under wine (only after fio was (re)built) ----
if [ "$cache/stamps/fio" -nt "$cache/stamps/fio.wine" ] || [ ! -f "$cache/stamps/fio.wine" ]; then
    if [ -x "$wine" ]; then
        t=$EPOCHREALTIME
        want=$(awk '{print $2}' "$cache/stamps/fio") # Debian version, e.g. 3.33-3
        want=${want#*:}
        want=fio-${want%-*} # what fio --version prints, e.g. fio-3.33
        # Own wine prefix in the cache (its first start creates it: a few seconds). 9>&-: wine
        # leaves wineserver and its services running a while; they must not inherit our lock.
        WINEPREFIX=$cache/wine WINEDEBUG=-all "$wine" "$prefix/bin/fio.exe" --version \
            >"$cache/log/fio-wine.out" 2>"$cache/log/fio-wine.err" </dev/null 9>&- || true
        # ... and wait for them to end, so that nothing started here outlives this run.
        WINEPREFIX=$cache/wine "$wineserver" -w 9>&- || true
        # Windows console output ends lines with \r\n.
        got=$(tr -d '\r' <"$cache/log/fio-wine.out")
        if [ "$got" = "$want" ]; then
            echo "deps.sh: fio.exe --version under wine: $got ($(since "$t"))"
            touch "$cache/stamps/fio.wine"
        else
            echo "deps.sh: warning: fio.exe --version under wine printed '$got', expected '$want'" \
                "(see $cache/log/fio-wine.err)" >&2
        fi
    else
        echo "deps.sh: $wine not found: fio.exe not tried" >&2
    fi
fi

# ---- 5. what there is ----
echo "deps.sh: done in $(since "$t_start"); prefix $prefix"
for f in lib/libuv_a.a lib/libzmq.a lib/libprotobuf-c.a lib/libjansson.a lib/libzstd.a \
         lib/liblz4.a lib/libcmocka.a bin/fio.exe; do
    printf '  %-52s %s\n' "$prefix/$f" "$("$triplet-objdump" -f "$prefix/$f" 2>/dev/null |
        awk '/file format/ {print $NF; exit}')"
done
pcs=libuv,libzmq,libprotobuf-c,jansson,libzstd,liblz4,cmocka
echo "  pkg-config: $prefix/lib/pkgconfig/{$pcs}.pc"
echo "  toolchain:  $toolchain"
