#!/usr/bin/env bash
# Install the build into a scratch DESTDIR (what `make install PREFIX=/usr/local
# DESTDIR=...` does), then build the README's C example against the installed
# pkg-config file, exactly as the README says (cc ex.c $(pkg-config --cflags
# --libs cumemlab-model)), and run it.
#
#   test_install.sh BUILD_DIR README.md VERSION [EXTRA_CFLAGS]
#
# EXTRA_CFLAGS: the sanitizer flags when the build is instrumented (the
# installed library then is too). $CC: the C compiler (default cc). Exit 77
# (skipped) without pkg-config or a C compiler.
set -u
build=$1 readme=$2 version=$3 extra=${4:-}
. "$(dirname "$0")/cli_test_util.sh"

command -v pkg-config >/dev/null 2>&1 || { echo "skipped: no pkg-config"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "skipped: no C compiler ($cc)"; exit 77; }

prefix=/usr/local
stage=$tmp/stage
root=$stage$prefix

# ---- install ---------------------------------------------------------------
run env DESTDIR="$stage" cmake --install "$build" --prefix "$prefix"
check "cmake --install succeeds (rc $rc: $(tail -n 3 "$tmp/err"))" test "$rc" -eq 0
check "the program is installed" test -x "$root/bin/cumemlab"
libdir=$(cd "$root" && ls -d lib*/pkgconfig lib/*/pkgconfig 2>/dev/null | head -n 1)
libdir=${libdir%/pkgconfig}
check "cumemlab-model.pc is installed under $prefix/lib*/pkgconfig" \
    test -f "$root/$libdir/pkgconfig/cumemlab-model.pc"
check "the static library is installed" test -f "$root/$libdir/libcumemlab-model.a"
for h in model.h status.h expr.h; do
    check "include/cumemlab/$h is installed" test -f "$root/include/cumemlab/$h"
done
# The public headers stand alone: they include one another and the C
# library, nothing of src/ (which is not installed).
bad=$(grep -h '^[[:space:]]*#[[:space:]]*include' "$root"/include/cumemlab/*.h |
      grep -v '<std[a-z]*\.h>\|"cumemlab/[a-z_]*\.h"' || true)
check "installed headers include only cumemlab/*.h and <std*.h> (got: $bad)" test -z "$bad"
check "no GPU-only header is installed" test ! -e "$root/include/cumemlab/status_gpu.h"
run "$root/bin/cumemlab" --version
check "the installed program runs (--version: $(cat "$tmp/out" "$tmp/err"))" test "$rc" -eq 0

# Every cml_ symbol the library uses, it defines: the model stands alone.
if command -v nm >/dev/null 2>&1; then
    nm -g --defined-only "$root/$libdir/libcumemlab-model.a" 2>/dev/null |
        awk 'NF == 3 {print $3}' | sort -u >"$tmp/defined"
    nm -u "$root/$libdir/libcumemlab-model.a" 2>/dev/null | awk '{print $NF}' |
        grep '^cml_' | sort -u >"$tmp/used"
    missing=$(comm -13 "$tmp/defined" "$tmp/used" | tr '\n' ' ')
    check "libcumemlab-model.a defines every cml_ symbol it uses (missing: $missing)" \
        test -z "$missing"
fi

# ---- the pkg-config file -----------------------------------------------------
# The staged tree is used as a sysroot: pkg-config puts $stage before the
# -I and -L paths, which must be the installed ones.
export PKG_CONFIG_PATH="$root/$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"
unset PKG_CONFIG_LIBDIR
run pkg-config --modversion cumemlab-model
check "pkg-config --modversion is $version (got $(cat "$tmp/out" "$tmp/err"))" \
    test "$(cat "$tmp/out")" = "$version"
check "the .pc file's prefix is $prefix" \
    grep -qx "prefix=$prefix" "$root/$libdir/pkgconfig/cumemlab-model.pc"
# shellcheck disable=SC2046,SC2005 # echo trims the trailing space pkgconf prints
cflags=$(echo $(pkg-config --cflags cumemlab-model)) libs=$(echo $(pkg-config --libs cumemlab-model))
check "pkg-config --cflags points into the install ($cflags)" \
    test "$cflags" = "-I$root/include"
case " $libs " in
*" -L$root/$libdir "*"-lcumemlab-model "*) ok=1 ;;
*) ok=0 ;;
esac
check "pkg-config --libs links the installed library ($libs)" test "$ok" = 1

# ---- the README's example ------------------------------------------------------
# The first C block of the section "The model as a library".
awk '/^## The model as a library/ {s = 1; next}
     s && /^## / {exit}
     s && /^```c$/ {c = 1; next}
     c && /^```/ {exit}
     c {print}' "$readme" >"$tmp/ex.c"
check "the README has the C example" grep -q 'int main' "$tmp/ex.c"
# shellcheck disable=SC2046,SC2086 # the flags are words
run "$cc" "$tmp/ex.c" $(pkg-config --cflags --libs cumemlab-model) $extra -o "$tmp/ex"
check "cc ex.c \$(pkg-config --cflags --libs cumemlab-model) builds: $(cat "$tmp/err")" \
    test "$rc" -eq 0
# With the shared library too (-DCUMEMLAB_MODEL_SHARED=ON) the link took it:
# the loader must find it in the staged tree.
shared=
ls "$root/$libdir"/libcumemlab-model.so* >/dev/null 2>&1 && shared=$root/$libdir
run env ${shared:+LD_LIBRARY_PATH="$shared"} "$tmp/ex"
check "the example runs (rc $rc: $(cat "$tmp/err"))" test "$rc" -eq 0
check "the example prints '5 sectors, efficiency 0.80' (got: $(cat "$tmp/out"))" \
    grep -qx '5 sectors, efficiency 0.80' "$tmp/out"
# The headers are clean C11 under the project's warnings, and C++ can
# include them too.
# shellcheck disable=SC2046,SC2086
run "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only "$tmp/ex.c" \
    $(pkg-config --cflags cumemlab-model)
check "the example compiles with -std=c11 -Wall -Wextra -Wpedantic -Werror: $(cat "$tmp/err")" \
    test "$rc" -eq 0
if command -v c++ >/dev/null 2>&1; then
    printf '#include <cumemlab/expr_kernel.h>\n#include <cumemlab/model.h>\nint main() { return cml_status_str(CML_OK)[0] != 0 ? 0 : 1; }\n' \
        >"$tmp/ex.cc"
    # shellcheck disable=SC2046,SC2086
    run c++ -Wall -Wextra -Werror -fsyntax-only "$tmp/ex.cc" $(pkg-config --cflags cumemlab-model)
    check "C++ includes the public headers: $(cat "$tmp/err")" test "$rc" -eq 0
fi

echo "$checks checks, $fails failed (installed into $stage, prefix $prefix)"
[ "$fails" -eq 0 ]
