# The npm package's WebAssembly: three Embind modules (relpos-simd-threads below) with identical exports, built from
# cpp/bindings/*.cpp against relpos_simd (SIMD128) and relpos_scalar, written to
# web/dist/relpos-{simd,scalar,simd-threads}.{js,wasm} (+ relpos-simd-threads.worker.js). Included by CMakeLists.txt when configured with emcmake.
#
# Output format: ES module factory `createRelposModule(moduleArg)` (MODULARIZE + EXPORT_ES6).
# ENVIRONMENT=web,worker: Emscripten 3.1.6's Node code path uses require/__dirname (absent in ES
# modules) and installs process handlers, so the .js carries no Node branch at all; web/loader.js
# instantiates the .wasm itself through Module.instantiateWasm (bytes read from disk under Node,
# streamed with fetch elsewhere), which works the same in Node, browsers, module workers and
# bundlers. The .js still names its .wasm with `new URL('relpos-*.wasm', import.meta.url)`.
#
# Which schemes / position helpers get bound: see cmake/available.cmake (RELPOS_HAS_* defines).

file(GLOB RELPOS_BINDING_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cpp/bindings/*.cpp)
include(${CMAKE_CURRENT_LIST_DIR}/available.cmake)
message(STATUS "relpos bindings: ${RELPOS_AVAILABLE_DEFS}")

# Where the package files go: web/dist, or elsewhere for a bench-only build (bench/run.sh's profiled
# copy: -DRELPOS_PACKAGE_DIST=build/g-wasm-prof/dist -DRELPOS_PROFILE=ON).
set(RELPOS_PACKAGE_DIST ${CMAKE_SOURCE_DIR}/web/dist CACHE PATH "Output folder of the npm package's .js/.wasm")
set(RELPOS_PACKAGE_LINK_FLAGS
    --bind -O3
    -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createRelposModule
    -sENVIRONMENT=web,worker
    -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=16MB -sMAXIMUM_MEMORY=2GB -sTOTAL_STACK=1MB
    -sFILESYSTEM=0 -sEXPORTED_FUNCTIONS=_malloc,_free
    -sINCOMING_MODULE_JS_API=instantiateWasm,print,printErr
    -sTEXTDECODER=2)  # every engine relpos runs on has TextDecoder: no JS UTF-8 decoder in the glue

# relpos-simd-threads: the SIMD build on a thread pool (Emscripten pthreads, SharedArrayBuffer
# memory). Workers are created at start-up, as many as the factory argument's relposWorkers says
# (web/loader.js: threads − 1), so no thread ever waits for a Worker to load; asking for more fails
# (PTHREAD_POOL_SIZE_STRICT=2) and set_num_threads reports the count it got. The glue names its
# worker literally: new Worker(new URL('relpos-simd-threads.worker.js', import.meta.url)).
set(RELPOS_PACKAGE_EXTRA_LINK_FLAGS_simd_threads
    -sPTHREAD_POOL_SIZE=Module.relposWorkers -sPTHREAD_POOL_SIZE_STRICT=2)
# The single-thread builds link for size (the 150 KiB gzip budget of relpos-simd .wasm + glue): -O2 at
# link time (Binaryen's pass set; the code itself is compiled -O3/-Oz per file in CMakeLists.txt) and
# emmalloc instead of dlmalloc. Measured on relpos-simd, gzip -9: link -O3 + dlmalloc 148.3 KB,
# -O2 145.7, -O2 + emmalloc 143.1; -Oz 142.0 but 1–4 % slower attention/forwards, while -O2 +
# emmalloc ran attention at parity and the bench layers' forwards 1–2 % slower, in one interleaved A/B.
# The threads build keeps -O3 and dlmalloc (its size is reported, not budgeted).
set(RELPOS_PACKAGE_EXTRA_LINK_FLAGS_simd -O2 -sMALLOC=emmalloc)
set(RELPOS_PACKAGE_EXTRA_LINK_FLAGS_scalar -O2 -sMALLOC=emmalloc)
set(RELPOS_PACKAGE_NAME_simd relpos-simd)
set(RELPOS_PACKAGE_NAME_scalar relpos-scalar)
set(RELPOS_PACKAGE_NAME_simd_threads relpos-simd-threads)

foreach(variant simd scalar simd_threads)
  set(target relpos_package_${variant})
  set(name ${RELPOS_PACKAGE_NAME_${variant}})
  add_executable(${target} ${RELPOS_BINDING_SOURCES})
  target_link_libraries(${target} PRIVATE relpos_${variant})
  target_compile_definitions(${target} PRIVATE ${RELPOS_AVAILABLE_DEFS})
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/cpp/src)  # internal headers (models/layers, plan)
  # bindings at -O2: -Oz left ByteBuffer's zeroing a call per byte (2.5 s for a 735 MB file) and measured 0.3 KB larger
  target_compile_options(${target} PRIVATE -O2)
  target_link_options(${target} PRIVATE ${RELPOS_PACKAGE_LINK_FLAGS} ${RELPOS_PACKAGE_EXTRA_LINK_FLAGS_${variant}})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name} SUFFIX ".js")
  set(files $<TARGET_FILE_DIR:${target}>/${name}.js $<TARGET_FILE_DIR:${target}>/${name}.wasm)
  if(variant STREQUAL "simd_threads")
    list(APPEND files $<TARGET_FILE_DIR:${target}>/${name}.worker.js)
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E make_directory ${RELPOS_PACKAGE_DIST}
    COMMAND ${CMAKE_COMMAND} -E copy ${files} ${RELPOS_PACKAGE_DIST}/
    COMMAND node ${CMAKE_SOURCE_DIR}/scripts/minify-glue.mjs ${RELPOS_PACKAGE_DIST}/${name}.js
    COMMENT "relpos: web/dist/${name}.{js,wasm} (glue minified by scripts/minify-glue.mjs)")
endforeach()
