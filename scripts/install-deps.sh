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
# zlib's headers and library, so that `report` reads gzip-compressed results
# (bench/results/*.json.gz). The build works without them (gzip is then
# refused with a message saying so).
if ! { echo '#include <zlib.h>'; echo 'int main(void){return zlibVersion()==0;}'; } \
    | cc -x c - -lz -o /dev/null >/dev/null 2>&1; then
  need+=(zlib1g-dev)
fi
# Open MPI (its C bindings and mpirun) for fleet runs, `mpirun -np N
# cumemlab ...`, and their test (tests/cli/test_fleet_mpi.sh). The build
# works without it (the fleet test is then skipped, saying why).
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
  need+=(libopenmpi-dev openmpi-bin)
fi
# Headless Chromium for the HTML report's browser test (tests/cli/
# test_report_html.sh), with a font so its screenshots show text. Installed
# on its own below: a distribution without a `chromium` package must not
# cost the other tools.
browser=()
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 &&
   ! command -v google-chrome >/dev/null 2>&1; then
  browser=(chromium fonts-liberation)
fi
[ ${#need[@]} -eq 0 ] && [ ${#browser[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${need[*]} ${browser[*]} (not root or no apt-get): the tests that need them are skipped" >&2
  exit 0
fi
updated=0
# apt_install PACKAGE...: one apt-get call; says so when it cannot.
apt_install() {
  echo "install-deps: installing $*" >&2
  if [ $updated -eq 0 ]; then
    apt-get update -qq >/dev/null 2>&1
    updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 \
    || echo "install-deps: could not install $*: the tests that need them are skipped" >&2
}
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
[ ${#browser[@]} -eq 0 ] || apt_install "${browser[@]}"
exit 0
