# The lab's WebAssembly (issue #18): the training core cpp/train/ (session, model, AdamW, tasks) and its
# Embind class LabSession (cpp/train/bindings/lab.cpp), linked against relpos_simd and relpos_scalar into
# web/dist/relpos-lab-{simd,scalar}.{js,wasm}. A module of its own so the inference module users download
# (relpos-simd / -scalar) does not grow: web/lab.js starts a Worker (web/lab-worker.js) that loads it on
# the first lab.train() call. Included by CMakeLists.txt under emcmake; `scripts/build.sh --package` builds
# relpos_lab_package_simd and relpos_lab_package_scalar.
#
# Link flags follow cmake/wasm_package.cmake: an ES module factory (createRelposLabModule) built for web
# and worker only, the .wasm instantiated by web/lab-worker.js through instantiateWasm, -O2 + emmalloc,
# the glue minified by scripts/minify-glue.mjs. Single-threaded: parallel_for compiles to an inline loop
# in relpos_simd / relpos_scalar (no pthreads build of the lab).
file(GLOB RELPOS_LAB_SOURCES CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/cpp/train/*.cpp ${CMAKE_SOURCE_DIR}/cpp/train/tasks/*.cpp)
set(RELPOS_LAB_BINDINGS ${CMAKE_SOURCE_DIR}/cpp/train/bindings/lab.cpp)
set(RELPOS_LAB_LINK_FLAGS
    --bind -O2 -sMALLOC=emmalloc
    -sMODULARIZE=1 -sEXPORT_ES6=1 -sEXPORT_NAME=createRelposLabModule
    -sENVIRONMENT=web,worker
    -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=16MB -sMAXIMUM_MEMORY=2GB -sTOTAL_STACK=1MB
    -sFILESYSTEM=0
    -sINCOMING_MODULE_JS_API=instantiateWasm,print,printErr
    -sTEXTDECODER=2)

foreach(variant simd scalar)
  set(target relpos_lab_package_${variant})
  set(name relpos-lab-${variant})
  add_executable(${target} ${RELPOS_LAB_SOURCES} ${RELPOS_LAB_BINDINGS})
  target_link_libraries(${target} PRIVATE relpos_${variant})
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/cpp/train ${CMAKE_SOURCE_DIR}/cpp/src ${CMAKE_SOURCE_DIR}/cpp)
  set_source_files_properties(${RELPOS_LAB_BINDINGS} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS -Oz)
  target_link_options(${target} PRIVATE ${RELPOS_LAB_LINK_FLAGS})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name} SUFFIX ".js")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E make_directory ${RELPOS_PACKAGE_DIST}
    COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE_DIR:${target}>/${name}.js $<TARGET_FILE_DIR:${target}>/${name}.wasm ${RELPOS_PACKAGE_DIST}/
    COMMAND node ${CMAKE_SOURCE_DIR}/scripts/minify-glue.mjs ${RELPOS_PACKAGE_DIST}/${name}.js
    COMMENT "relpos: web/dist/${name}.{js,wasm} (the lab module; glue minified by scripts/minify-glue.mjs)")
endforeach()
