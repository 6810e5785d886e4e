# Sourced by every build script: compile through ccache when it is installed (scripts/bootstrap.sh installs it).
# CMake (≥ 3.17) takes CMAKE_<LANG>_COMPILER_LAUNCHER from the environment when a build folder is configured;
# emcc/em++ go through it like gcc and clang (their -E output is hashed). CCACHE_BASEDIR = the repository root, so
# clones and git worktrees at other paths share hits; CCACHE_DIR stays the user's default unless set. Why: npm test
# compiles the library seven times (native, ASan+UBSan, TSan, fuzz, WASM SIMD, scalar, threads); a rebuild after a
# small change, a second checkout or a re-run on the same machine then costs only the files that changed.
if command -v ccache >/dev/null 2>&1 && [ -z "${RELPOS_NO_CCACHE:-}" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
  export CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
fi
