#!/usr/bin/env bash
# Installs what the build and tests need beyond the CUDA toolkit, gcc and
# CMake, from Debian's packages, only when missing. Never fails the build for
# an optional tool: it says what it skipped.
set -u
# The Compute Sanitizer API (sanitizer.h, sanitizer_patching.h and
# libsanitizer-public.so) for the injection library of `cumemlab trace`
# (src/trace/inject). A toolkit installed with its tools has it in
# compute-sanitizer/; one without (a CI image with nvcc alone) gets the
# same files from PyPI, nvidia-cuda-sanitizer-api of nvcc's CUDA release,
# unpacked into .deps/sanitizer-api/ (ignored by git), where CMake looks.
# Without either the build leaves the injection library out, saying so.
sanitizer_api() {
  local root nvcc ver cuda dest
  root=$(cd "$(dirname "$0")/.." && pwd)
  dest="$root/.deps/sanitizer-api"
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$nvcc" ] || return 0
  cuda=$(cd "$(dirname "$nvcc")/.." && pwd)
  [ -f "$cuda/compute-sanitizer/include/sanitizer.h" ] && return 0
  ls "$dest"/nvidia/cu*/include/sanitizer.h >/dev/null 2>&1 && return 0
  ver=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
  [ -n "$ver" ] || return 0
  if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
    echo "install-deps: no pip: the Compute Sanitizer API is not fetched (cumemlab trace's injection library is not built)" >&2
    return 0
  fi
  local tmp
  tmp=$(mktemp -d)
  echo "install-deps: fetching nvidia-cuda-sanitizer-api ${ver}.* (PyPI) into .deps/sanitizer-api" >&2
  if python3 -m pip download -q --no-deps -d "$tmp" "nvidia-cuda-sanitizer-api==${ver}.*" \
      >/dev/null 2>&1 && mkdir -p "$dest" &&
     python3 -m zipfile -e "$tmp"/nvidia_cuda_sanitizer_api-*.whl "$dest" >/dev/null 2>&1; then
    :
  else
    echo "install-deps: could not fetch the Compute Sanitizer API: cumemlab trace's injection library is not built" >&2
  fi
  rm -rf "$tmp"
}
sanitizer_api
# nvdisasm, for the SASS of a traced instruction (src/trace/trace_sass.c)
# and its test: from PyPI (nvidia-cuda-nvdisasm) into .deps/nvdisasm/ where
# the toolkit has none; nvcc's release when published, else the newest of
# its major version (a newer disassembler reads older cubins).
nvdisasm_tool() {
  local root nvcc ver major cuda dest tmp
  root=$(cd "$(dirname "$0")/.." && pwd)
  dest="$root/.deps/nvdisasm"
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  [ -x "$nvcc" ] || return 0
  cuda=$(cd "$(dirname "$nvcc")/.." && pwd)
  [ -x "$cuda/bin/nvdisasm" ] && return 0
  ls "$dest"/nvidia/cu*/bin/nvdisasm >/dev/null 2>&1 && return 0
  ver=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
  major=${ver%%.*}
  [ -n "$ver" ] && python3 -m pip --version >/dev/null 2>&1 || return 0
  tmp=$(mktemp -d)
  echo "install-deps: fetching nvidia-cuda-nvdisasm (PyPI) into .deps/nvdisasm" >&2
  if { python3 -m pip download -q --no-deps -d "$tmp" "nvidia-cuda-nvdisasm==${ver}.*" ||
       python3 -m pip download -q --no-deps -d "$tmp" \
           "nvidia-cuda-nvdisasm>=${ver},<$((major + 1))"; } >/dev/null 2>&1 &&
     mkdir -p "$dest" &&
     python3 -m zipfile -e "$tmp"/nvidia_cuda_nvdisasm-*.whl "$dest" >/dev/null 2>&1; then
    chmod +x "$dest"/nvidia/cu*/bin/nvdisasm 2>/dev/null
  else
    echo "install-deps: could not fetch nvdisasm: traced instructions show no SASS" >&2
  fi
  rm -rf "$tmp"
}
nvdisasm_tool
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
