# RELPOS_AVAILABLE_DEFS: RELPOS_HAS_<XParams> for every scheme factory `make_scheme(const XParams&)`
# and RELPOS_HAS_<function> for every relpos/positions.h function that cpp/src defines.
# The scheme files land one by one; code that binds or exercises every scheme (cpp/bindings,
# cpp/tools/golden.cpp) compiles only what exists instead of failing to link. The scan re-runs
# whenever a library source changes.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RELPOS_SOURCES})

set(RELPOS_AVAILABLE_DEFS "")
set(_relpos_position_fns sinusoid_table sinusoid_row shaw_index_table bert_relative_index_table
    t5_relative_bucket t5_bucket_table deberta_relative_position deberta_relative_table deberta_span
    alibi_slopes rope_tables)
foreach(src ${RELPOS_SOURCES})
  file(STRINGS ${src} _lines
       REGEX "^(std::)?unique_ptr<(relpos::)?Scheme> +(relpos::)?make_scheme\\(const (relpos::)?[A-Za-z0-9]+Params")
  foreach(line ${_lines})
    string(REGEX REPLACE ".*make_scheme\\(const (relpos::)?([A-Za-z0-9]+Params).*" "\\2" _params "${line}")
    list(APPEND RELPOS_AVAILABLE_DEFS RELPOS_HAS_${_params})
  endforeach()
  foreach(fn ${_relpos_position_fns})
    file(STRINGS ${src} _lines REGEX "^(std::vector<[A-Za-z0-9_:]+>|int|void|float) +(relpos::)?${fn}\\(")
    if(_lines)
      list(APPEND RELPOS_AVAILABLE_DEFS RELPOS_HAS_${fn})
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES RELPOS_AVAILABLE_DEFS)
list(SORT RELPOS_AVAILABLE_DEFS)
