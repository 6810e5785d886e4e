# Training core (issue #18, first step): cpp/train/ — a tiny encoder with backward passes, AdamW, tasks —
# over the native library's kernels and thread pool. Native builds only for now (the lab WASM module
# comes later). Targets: relpos_train_native (static), relpos_train_tests (Catch2, ctest "train_native"),
# relpos_lab_native (the feasibility experiment, cpp/train/tools/lab_native.cpp).
file(GLOB RELPOS_TRAIN_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cpp/train/*.cpp ${CMAKE_SOURCE_DIR}/cpp/train/tasks/*.cpp)
add_library(relpos_train_native STATIC ${RELPOS_TRAIN_SOURCES})
target_link_libraries(relpos_train_native PUBLIC relpos_native)
target_include_directories(relpos_train_native PUBLIC ${CMAKE_SOURCE_DIR}/cpp/train ${CMAKE_SOURCE_DIR}/cpp/src)

add_executable(relpos_lab_native ${CMAKE_SOURCE_DIR}/cpp/train/tools/lab_native.cpp)
target_link_libraries(relpos_lab_native PRIVATE relpos_train_native)

if(RELPOS_TESTS)
  file(GLOB RELPOS_TRAIN_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cpp/train/tests/*.cpp)
  add_executable(relpos_train_tests ${RELPOS_TRAIN_TEST_SOURCES})
  target_link_libraries(relpos_train_tests PRIVATE relpos_train_native)
  target_compile_options(relpos_train_tests PRIVATE -O1)
  add_test(NAME train_native COMMAND relpos_train_tests)
endif()
if(RELPOS_TESTS)
  # scripts/make-train-reference.py writes PyTorch reference gradients here (not committed).
  target_compile_definitions(relpos_train_tests PRIVATE RELPOS_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                             RELPOS_TRAIN_REFERENCE_DIR="${CMAKE_SOURCE_DIR}/build/train-reference")
endif()
