# zmq-unity.cmake: read by libzmq's CMake right after its project() (deps.sh passes it as
# CMAKE_PROJECT_INCLUDE). libzmq is built as a unity build, except its two C files: tweetnacl.c
# and external/sha1/sha1.c define macros (FOR, S, ...) that break each other in one unit.
set_source_files_properties(
  ${CMAKE_CURRENT_SOURCE_DIR}/src/tweetnacl.c
  ${CMAKE_CURRENT_SOURCE_DIR}/external/sha1/sha1.c
  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
