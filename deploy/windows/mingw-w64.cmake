# mingw-w64.cmake: CMake toolchain file for 64-bit Windows (x86_64-w64-mingw32), Debian's mingw-w64.
#
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=deploy/windows/mingw-w64.cmake \
#         -DCMAKE_PREFIX_PATH=/var/cache/lg-windows/prefix
#
# deploy/windows/deps.sh uses it to cross-build libuv, libzmq, protobuf-c, jansson, cmocka, zstd and lz4 into
# that prefix (static libraries, headers, pkg-config files) and fio.exe next to them.

set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
# Windows 10 is the oldest target. libzmq derives _WIN32_WINNT from this (unset, it passes an
# empty -D_WIN32_WINNT=); a -DCMAKE_SYSTEM_VERSION on the command line still wins.
if(NOT DEFINED CMAKE_SYSTEM_VERSION)
  set(CMAKE_SYSTEM_VERSION 10.0)
endif()

set(LG_MINGW_TRIPLET x86_64-w64-mingw32)
# The *-posix compilers use the winpthreads threading model: C++11 std::thread/std::mutex (libzmq)
# and pthreads (fio, our agent) work; gcc 12's *-win32 variants lack std::thread and friends.
set(CMAKE_C_COMPILER ${LG_MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${LG_MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${LG_MINGW_TRIPLET}-windres)

# Where deps.sh installs (LG_WIN_CACHE, default /var/cache/lg-windows, + /prefix).
if(NOT DEFINED LG_WIN_PREFIX)
  if(DEFINED ENV{LG_WIN_CACHE} AND NOT "$ENV{LG_WIN_CACHE}" STREQUAL "")
    set(LG_WIN_PREFIX "$ENV{LG_WIN_CACHE}/prefix")
  else()
    set(LG_WIN_PREFIX /var/cache/lg-windows/prefix)
  endif()
endif()

# Find headers, libraries and CMake packages only for the target, never the host's /usr. Roots:
# the mingw-w64 sysroot, our prefix and whatever CMAKE_PREFIX_PATH names (a path already under a
# root is searched as is; others would be re-rooted under the sysroot and missed).
set(CMAKE_FIND_ROOT_PATH /usr/${LG_MINGW_TRIPLET} ${LG_WIN_PREFIX} ${CMAKE_PREFIX_PATH})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER) # build tools (protoc-c, ...) run on the host
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (pkg_check_modules) must not fall back to the host's .pc files either: only the
# prefix's (and CMAKE_PREFIX_PATH's, which FindPkgConfig adds by itself).
set(ENV{PKG_CONFIG_LIBDIR} "${LG_WIN_PREFIX}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# One self-contained .exe: link libgcc, libstdc++ (libzmq is C++) and winpthreads statically,
# so no libgcc_s_seh-1.dll / libstdc++-6.dll / libwinpthread-1.dll has to ship with it.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
