# Sourced by the CLI tests that load pages in headless Chromium, after
# cli_test_util.sh (for $tmp):
#   find_browser       sets $browser to Chromium's command, or "" when there
#                      is none (Debian's `chromium`; scripts/install-deps.sh)
#   browse ARGS...     runs it headless, off the network (every host name
#                      resolves to nothing, so any fetch fails loudly)
#   browser_works      0 when it renders a trivial page here; else 1 with
#                      the reason in $browser_why
#   layout_of PAGE W   loads a copy of PAGE in a window W px wide with every
#                      <details> open and prints FITS, or WIDE and a line per
#                      table whose box runs past the window or does not
#                      scroll (tests/cli/report_layout.html is the check; the
#                      copy drops the page's Content-Security-Policy, which
#                      forbids scripts, so that the check can run)
find_browser() {
    browser=""
    for b in chromium chromium-browser google-chrome; do
        if command -v "$b" >/dev/null 2>&1; then browser=$b; return; fi
    done
}
# The browser runs as whoever runs the tests (often root in containers):
# --no-sandbox.
browser_flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
               --disable-extensions --disable-sync --user-data-dir="$tmp/profile"
               "--host-resolver-rules=MAP * ~NOTFOUND" --enable-logging=stderr --v=0)
browse() { timeout 120 "$browser" "${browser_flags[@]}" "$@"; }
browser_works() {
    printf '<!DOCTYPE html><title>t</title><p id="ok">ok</p>\n' >"$tmp/smoke.html"
    if browse --dump-dom "file://$tmp/smoke.html" >"$tmp/smoke.dom" 2>"$tmp/smoke.log" &&
        grep -q 'id="ok"' "$tmp/smoke.dom"; then
        return 0
    fi
    browser_why=$(grep -v '^\[' "$tmp/smoke.log" | grep -v '^$' | tail -1)
    browser_why=${browser_why:-$(tail -1 "$tmp/smoke.log")}
    return 1
}
layout_of() {
    local page=$1 width=$2 here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    sed '/Content-Security-Policy/d' "$page" >"$tmp/layout.html"
    cat "$here/report_layout.html" >>"$tmp/layout.html"
    browse --window-size="$width,900" --dump-dom "file://$tmp/layout.html" 2>/dev/null |
        sed -n '/<pre id="cml-layout">/,/<\/pre>/p' | sed -e 's/<[^>]*>//g' -e '/^$/d'
}
