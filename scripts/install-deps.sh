#!/usr/bin/env bash
# Installs what the build and tests need beyond the CUDA toolkit, gcc and
# CMake, from Debian's packages, only when missing. Never fails the build for
# an optional tool: it says what it skipped.
set -u
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v clang >/dev/null 2>&1 || need+=(clang)
# libFuzzer's runtime (for the expression-parser fuzz test)
if command -v clang >/dev/null 2>&1; then
  echo 'int LLVMFuzzerTestOneInput(const unsigned char*d,unsigned long n){(void)d;(void)n;return 0;}' \
    | clang -x c -fsanitize=fuzzer - -o /dev/null >/dev/null 2>&1 || need+=(libclang-rt-dev)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${need[*]} (not root or no apt-get): the tests that need them are skipped" >&2
  exit 0
fi
echo "install-deps: installing ${need[*]}" >&2
{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } >/dev/null 2>&1 \
  || echo "install-deps: could not install ${need[*]}: the tests that need them are skipped" >&2
exit 0
