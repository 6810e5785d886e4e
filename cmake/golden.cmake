# Native only: relpos_golden (cpp/tools/golden.cpp) and the reference results it writes to
# <build>/relpos-golden.json, which tests/js/golden.test.mjs compares both WebAssembly builds to.
include(${CMAKE_CURRENT_LIST_DIR}/available.cmake)

add_executable(relpos_golden ${CMAKE_SOURCE_DIR}/cpp/tools/golden.cpp)
target_link_libraries(relpos_golden PRIVATE relpos_native)
target_compile_definitions(relpos_golden PRIVATE ${RELPOS_AVAILABLE_DEFS})

set(RELPOS_GOLDEN_JSON ${CMAKE_BINARY_DIR}/relpos-golden.json)
add_custom_command(OUTPUT ${RELPOS_GOLDEN_JSON}
                   COMMAND relpos_golden ${RELPOS_GOLDEN_JSON}
                   DEPENDS relpos_golden
                   COMMENT "relpos: native reference results for the npm package tests")
add_custom_target(relpos_golden_json ALL DEPENDS ${RELPOS_GOLDEN_JSON})
