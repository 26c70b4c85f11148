# embed_bytes.cmake: what schema/embed.cmake (the schema) and db/embed_queries.cmake (query files)
# share to write files into C as byte arrays.
#
# lg_embed_bytes(FILE VAR SRC): appends to the variable SRC a static const char array VAR holding
# FILE's bytes and a NUL.
# (The parameters' names are unlike any caller's variable: ${${_eb_src}} reads the caller's.)
function(lg_embed_bytes _eb_file _eb_var _eb_src)
  file(READ ${_eb_file} _eb_hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _eb_bytes "${_eb_hex}")
  set(${_eb_src} "${${_eb_src}}static const char ${_eb_var}[] = {${_eb_bytes}0x00};\n"
      PARENT_SCOPE)
endfunction()

# lg_embed_files(FILES PREFIX SRC TABLE): each of the list FILES as an array PREFIX0, PREFIX1...
# appended to SRC, and a {"name", PREFIXn}, row (the file's name without its extension) to TABLE.
function(lg_embed_files _ef_files _ef_prefix _ef_src _ef_table)
  set(_ef_s "${${_ef_src}}")
  set(_ef_t "${${_ef_table}}")
  set(_ef_i 0)
  foreach(_ef_f ${_ef_files})
    get_filename_component(_ef_name ${_ef_f} NAME_WE)
    lg_embed_bytes(${_ef_f} ${_ef_prefix}${_ef_i} _ef_s)
    string(APPEND _ef_t "    {\"${_ef_name}\", ${_ef_prefix}${_ef_i}},\n")
    math(EXPR _ef_i "${_ef_i}+1")
  endforeach()
  set(${_ef_src} "${_ef_s}" PARENT_SCOPE)
  set(${_ef_table} "${_ef_t}" PARENT_SCOPE)
endfunction()
