# The Catch2 suite (tests/cpp/*.cpp), built once per library variant and registered with CTest.
# WASM test executables run under node with the real filesystem (NODERAWFS) to read ../shared.
file(GLOB RELPOS_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cpp/*.cpp)

foreach(variant ${RELPOS_VARIANTS})
  set(target relpos_tests_${variant})
  add_executable(${target} ${RELPOS_TEST_SOURCES})
  target_link_libraries(${target} PRIVATE relpos_${variant})
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/cpp/src ${CMAKE_SOURCE_DIR}/tests/cpp)
  # The test sources (Catch2 macros, float64 references) compile at -O1: ~35 % less compile time than
  # -O3 per file, over 7 suite builds in npm test (native, scalar, ASan, TSan, 3× WASM). The library
  # they test keeps its own flags (-O3 / -Oz per file), so the code under test is the shipped code.
  target_compile_options(${target} PRIVATE -O1)
  # RELPOS_CHECKPOINT_DIR: written by scripts/make-checkpoint-variants.py (scripts/test.sh runs it first).
  target_compile_definitions(${target} PRIVATE RELPOS_SHARED_DIR="${RELPOS_SHARED_DIR}"
                             RELPOS_CHECKPOINT_DIR="${CMAKE_SOURCE_DIR}/build/checkpoint-variants"
                             RELPOS_VARIANT="${variant}")
  if(EMSCRIPTEN)
    # .cjs: the root package.json says "type": "module", and Emscripten's output is CommonJS.
    set_target_properties(${target} PROPERTIES SUFFIX ".cjs")
    # -O1 at link: Binaryen's -O3 over a whole test executable is slow and buys nothing here.
    target_link_options(${target} PRIVATE -O1 -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1
                        -sTOTAL_STACK=4MB -sEXIT_RUNTIME=1 -sSINGLE_FILE=1)
    if(variant STREQUAL "simd_threads")  # the suite runs on 3 threads (tests/cpp/main.cpp): 2 Workers
      target_link_options(${target} PRIVATE -sPTHREAD_POOL_SIZE=2 -sPTHREAD_POOL_SIZE_STRICT=2)
      # Its CommonJS <target>.worker.js sits in a folder of its own whose package.json says so (the
      # root package.json's "type": "module" would make Node load it as an ES module).
      set(dir ${CMAKE_BINARY_DIR}/threads-suite)
      file(MAKE_DIRECTORY ${dir})
      file(WRITE ${dir}/package.json "{ \"type\": \"commonjs\" }\n")
      set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${dir})
    endif()
    add_test(NAME cpp_${variant} COMMAND node --no-experimental-fetch $<TARGET_FILE:${target}>)
  else()
    add_test(NAME cpp_${variant} COMMAND ${target})
  endif()
endforeach()
