// Catch2 entry point for the native and WASM builds of the suite.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
