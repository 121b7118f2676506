# Sourced by fuzz.sh and sanitize.sh: configures one build folder in which all
# project code carries AddressSanitizer + UndefinedBehaviorSanitizer (aborting
# on the first report) and libFuzzer's coverage instrumentation, so the lit
# suite under sanitizers and the fuzzers share one (cold: ~15 min on 2 cores)
# build. clang is needed for libFuzzer; the LLVM/MLIR 22 libraries stay
# unsanitized (same C++ ABI).

# The sanitizer settings every run uses. ASan on project code linked against
# the unsanitized LLVM/MLIR libraries reports a false use-after-poison while
# the MLIR context is set up unless allow_user_poisoning=0 (the libraries
# poison memory that the instrumented code then reads legitimately).
tilec_sanitizer_env() {
  local reports=$1
  export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1${reports:+:log_path=$reports/asan}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${reports:+:log_path=$reports/ubsan}"
}

tilec_configure_sanitizer_build() {
  local dir=$1
  local cuda=${CUDA_HOME:-/usr/local/cuda}
  if [ -f "$dir/build.ninja" ]; then
    grep -q '^TILEC_SANITIZE:BOOL=ON' "$dir/CMakeCache.txt" || {
      echo "error: $dir exists but is not a sanitizer build (TILEC_SANITIZE is not ON)" >&2
      echo "hint: pass another folder, or remove $dir" >&2
      return 1
    }
    return 0
  fi
  local cxx=${TILEC_SANITIZER_CXX:-clang++} cc=${TILEC_SANITIZER_CC:-clang}
  command -v "$cxx" >/dev/null || {
    echo "error: $cxx not found (libFuzzer needs clang)" >&2
    echo "hint: apt-get install clang libclang-rt-14-dev, or set TILEC_SANITIZER_CXX=g++ (no libFuzzer targets then)" >&2
    return 1
  }
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  CC=$cc CXX=$cxx cmake -G Ninja -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCUDAToolkit_ROOT="$cuda" -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DTILEC_SANITIZE=ON -DTILEC_ENABLE_FUZZ=ON "${launcher[@]}"
}
