#!/usr/bin/env bash
# Checks the systemd units without installing anything on this machine:
#   1. `systemd-analyze verify` of tickerboard.service and the sample fetcher's .service/.timer, on
#      temporary copies whose ExecStart points at a binary that exists (verify insists on that): the
#      built tickerboard if given ($TICKERBOARD_BIN or the first argument), else /bin/true.
#   2. `systemd-analyze security --offline=true` exposure of tickerboard.service: must be <= 1.5,
#      the goal is <= 1.0; of tickerboard-fetch.service (the fetcher, which needs the network): must
#      be <= 2.0. The numbers are printed.
#   3. install.sh and uninstall.sh into a temporary DESTDIR (with --no-build, so nothing is compiled):
#      what is installed, that a user's config is never overwritten, that uninstall keeps it unless
#      --purge. Skipped when there is no binary to install.
#   4. build-deb.sh with that binary into a temporary directory: the package holds what
#      systemd/README.md says, /etc/tickerboard/tickerboard.conf is its conffile, and lintian (when
#      installed) reports no error or warning that debian/lintian-overrides does not explain.
# Exit status 0 when all pass. Needs systemd-analyze (package systemd); nothing runs as a service.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin=${1:-${TICKERBOARD_BIN:-}}
if [ -z "$bin" ]; then
    for candidate in "$root/.build/release/tickerboard" "$root/.build/debug/tickerboard"; do
        if [ -x "$candidate" ]; then bin=$candidate; break; fi
    done
fi

# ExecStart= needs an absolute path.
[ -n "$bin" ] && bin=$(realpath "$bin")

if ! command -v systemd-analyze >/dev/null; then
    echo "verify.sh: systemd-analyze not found (apt-get install systemd)" >&2
    exit 1
fi

tmp=$(mktemp -d /tmp/tickerboard-verify.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0

# 1. verify
exec_target=${bin:-/bin/true}
fetch_target=/bin/true
[ -n "$bin" ] && [ -x "$(dirname "$bin")/tickerboard-fetch" ] && fetch_target="$(dirname "$bin")/tickerboard-fetch"
bridge_target=/bin/true
[ -n "$bin" ] && [ -x "$(dirname "$bin")/tickerboard-mqtt" ] && bridge_target="$(dirname "$bin")/tickerboard-mqtt"
mkdir -p "$tmp/example"
for unit in "$here/tickerboard.service" "$here/tickerboard-fetch.service" "$here/tickerboard-mqtt.service" \
            "$root/assets/fetch-example/tickerboard-fetch.service" "$root/assets/fetch-example/tickerboard-fetch.timer"; do
    out_dir=$tmp
    case "$unit" in */fetch-example/*) out_dir=$tmp/example ;; esac
    sed -e "s|/usr/bin/tickerboard-fetch|$fetch_target|g" -e "s|/usr/bin/tickerboard-mqtt|$bridge_target|g" -e "s|/usr/bin/tickerboard|$exec_target|g" \
        -e "s|/usr/share/tickerboard/fetch-example/fetch-prices.sh|/bin/true|g" "$unit" > "$out_dir/$(basename "$unit")"
done
cd "$tmp"
# The sample fetcher's unit has the same name as the real one: verified in its own directory.
if out=$(systemd-analyze verify --man=no ./tickerboard.service ./tickerboard-fetch.service ./tickerboard-mqtt.service 2>&1; \
         cd example && systemd-analyze verify --man=no ./tickerboard-fetch.service ./tickerboard-fetch.timer 2>&1) \
   && [ -z "$out" ]; then
    echo "verify: systemd-analyze verify: clean (ExecStart -> $exec_target)"
else
    echo "verify: systemd-analyze verify reported:"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
fi

# 2. security exposure
report=$(systemd-analyze security --offline=true ./tickerboard.service 2>&1 || true)
exposure=$(echo "$report" | sed -n 's/.*Overall exposure level for tickerboard.service: \([0-9.]*\).*/\1/p')
if [ -z "$exposure" ]; then
    echo "verify: could not read the exposure from systemd-analyze security:"
    echo "$report" | tail -5 | sed 's/^/    /'
    failures=$((failures + 1))
else
    verdict=$(awk -v e="$exposure" 'BEGIN { if (e <= 1.0) print "goal met (<= 1.0)"; else if (e <= 1.5) print "acceptable (<= 1.5, goal 1.0)"; else print "TOO HIGH (must be <= 1.5)" }')
    echo "verify: security exposure $exposure: $verdict"
    echo "$report" | grep '✗' | sed 's/  */ /g; s/^/    /' || true
    awk -v e="$exposure" 'BEGIN { exit !(e <= 1.5) }' || failures=$((failures + 1))
fi

# The network-side units (the fetcher, the MQTT bridge): at most 2.0.
network_unit_exposure() {   # network_unit_exposure UNIT LABEL
    local report exposure verdict
    report=$(systemd-analyze security --offline=true "./$1" 2>&1 || true)
    exposure=$(echo "$report" | sed -n "s/.*Overall exposure level for $1: \([0-9.]*\).*/\1/p")
    if [ -z "$exposure" ]; then
        echo "verify: could not read the $2's exposure from systemd-analyze security:"
        echo "$report" | tail -5 | sed 's/^/    /'
        failures=$((failures + 1))
        return
    fi
    verdict=$(awk -v e="$exposure" 'BEGIN { if (e <= 2.0) print "goal met (<= 2.0)"; else print "TOO HIGH (must be <= 2.0)" }')
    echo "verify: $1 security exposure $exposure: $verdict"
    echo "$report" | grep '✗' | sed 's/  */ /g; s/^/    /' || true
    awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || failures=$((failures + 1))
}
network_unit_exposure tickerboard-fetch.service fetcher
network_unit_exposure tickerboard-mqtt.service bridge
cd "$root"

# 3. install / uninstall into a temporary root
if [ -n "$bin" ] && [ -x "$bin" ]; then
    dest="$tmp/root"
    if ! "$here/install.sh" --destdir "$dest" --no-build --binary "$bin" >"$tmp/install.log" 2>&1; then
        echo "verify: install.sh failed:"; sed 's/^/    /' "$tmp/install.log"; failures=$((failures + 1))
    else
        missing=""
        for f in usr/bin/tickerboard usr/lib/systemd/system/tickerboard.service etc/tickerboard/tickerboard.conf \
                 usr/share/doc/tickerboard/README.md usr/share/doc/tickerboard/APPLIANCE.md \
                 usr/share/doc/tickerboard/docs/configuration.md \
                 usr/share/tickerboard/tickerboard.conf usr/share/tickerboard/no-vt.conf \
                 usr/share/tickerboard/fetch-example/fetch-prices.sh \
                 usr/share/tickerboard/fetch-example/tickerboard-fetch.service \
                 usr/share/tickerboard/fetch-example/tickerboard-fetch.timer; do
            [ -e "$dest/$f" ] || missing="$missing $f"
        done
        [ -x "$dest/usr/bin/tickerboard" ] || missing="$missing (usr/bin/tickerboard not executable)"
        if [ -x "$(dirname "$bin")/tickerboard-fetch" ]; then
            for f in usr/bin/tickerboard-fetch usr/lib/systemd/system/tickerboard-fetch.service; do
                [ -e "$dest/$f" ] || missing="$missing $f"
            done
        fi
        # A second install must keep a changed config and put the new default beside it.
        echo "# mine" >> "$dest/etc/tickerboard/tickerboard.conf"
        "$here/install.sh" --destdir "$dest" --no-build --binary "$bin" >"$tmp/install2.log" 2>&1 || missing="$missing (second install failed)"
        grep -q '^# mine$' "$dest/etc/tickerboard/tickerboard.conf" || missing="$missing (user config overwritten)"
        [ -e "$dest/etc/tickerboard/tickerboard.conf.dist" ] || missing="$missing etc/tickerboard/tickerboard.conf.dist"
        "$here/uninstall.sh" --destdir "$dest" >"$tmp/uninstall.log" 2>&1 || missing="$missing (uninstall failed)"
        [ ! -e "$dest/usr/bin/tickerboard" ] || missing="$missing (binary left after uninstall)"
        [ ! -e "$dest/usr/bin/tickerboard-fetch" ] || missing="$missing (fetcher left after uninstall)"
        [ ! -e "$dest/usr/lib/systemd/system/tickerboard.service" ] || missing="$missing (unit left after uninstall)"
        grep -q '^# mine$' "$dest/etc/tickerboard/tickerboard.conf" 2>/dev/null || missing="$missing (uninstall removed the user config)"
        "$here/uninstall.sh" --destdir "$dest" --purge >>"$tmp/uninstall.log" 2>&1 || missing="$missing (uninstall --purge failed)"
        [ ! -e "$dest/etc/tickerboard" ] || missing="$missing (--purge left /etc/tickerboard)"
        if [ -z "$missing" ]; then
            echo "verify: install.sh/uninstall.sh into a temporary root: ok"
        else
            echo "verify: install/uninstall problems:$missing"
            sed 's/^/    /' "$tmp/install.log" "$tmp/uninstall.log"
            failures=$((failures + 1))
        fi
    fi
else
    echo "verify: install check skipped (no built binary; pass one as the first argument)"
fi

# 4. the Debian package
if [ -n "$bin" ] && [ -x "$bin" ] && command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
    lint=""; command -v lintian >/dev/null && lint=--lintian
    # The test suite installs lintian and asks for it (TB_REQUIRE_LINTIAN=1): never skipped there.
    if [ -z "$lint" ] && [ "${TB_REQUIRE_LINTIAN:-}" = 1 ]; then
        echo "verify: lintian is required (TB_REQUIRE_LINTIAN=1) but not installed"; failures=$((failures + 1))
    fi
    if deb=$("$here/build-deb.sh" --binary "$bin" --out "$tmp/deb" $lint 2>"$tmp/deb.log" | tail -1) && [ -f "$deb" ]; then
        listing=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||')
        missing=""
        for f in usr/bin/tickerboard usr/bin/tickerboard-fetch usr/bin/tickerboard-mqtt lib/systemd/system/tickerboard.service \
                 lib/systemd/system/tickerboard-mqtt.service usr/lib/sysusers.d/tickerboard.conf etc/tickerboard/tickerboard.conf \
                 usr/share/tickerboard/no-vt.conf usr/share/tickerboard/fetch-example/fetch-prices.sh \
                 usr/share/tickerboard/fetch-example/tickerboard-fetch.service usr/share/doc/tickerboard/copyright \
                 usr/share/doc/tickerboard/changelog.gz usr/share/doc/tickerboard/APPLIANCE.md \
                 usr/share/man/man1/tickerboard.1.gz usr/share/man/man5/tickerboard.conf.5.gz; do
            grep -qx "$f" <<< "$listing" || missing="$missing $f"
        done
        dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles 2>/dev/null | grep -qx /etc/tickerboard/tickerboard.conf \
            || missing="$missing (conffiles lacks /etc/tickerboard/tickerboard.conf)"
        if [ -z "$missing" ]; then
            echo "verify: build-deb.sh: $(basename "$deb") ok$([ -n "$lint" ] && echo ", lintian: nothing unexplained" || echo " (lintian not installed: not run)")"
        else
            echo "verify: build-deb.sh: the package lacks:$missing"; failures=$((failures + 1))
        fi
    else
        echo "verify: build-deb.sh failed:"; sed 's/^/    /' "$tmp/deb.log"; failures=$((failures + 1))
    fi
    # What a plain `swift build -c release` leaves beside the daemon must not be shipped: a fetcher
    # whose RUNPATH points into the toolchain (made here with the C compiler: the same dynamic
    # section), and no fetcher at all.
    if command -v cc >/dev/null; then
        mkdir -p "$tmp/dyn" "$tmp/nofetch"
        cp "$bin" "$tmp/dyn/tickerboard"; cp "$bin" "$tmp/nofetch/tickerboard"
        [ -x "$(dirname "$bin")/tickerboard-mqtt" ] && cp "$(dirname "$bin")/tickerboard-mqtt" "$tmp/dyn/tickerboard-mqtt"
        echo 'int main(void) { return 0; }' | cc -x c - -o "$tmp/dyn/tickerboard-fetch" -Wl,-rpath,/opt/swift/usr/lib/swift/linux
        refused() { ! "$here/build-deb.sh" --binary "$1" --out "$tmp/deb-refused" >/dev/null 2>"$tmp/refused.log" && grep -q "$2" "$tmp/refused.log"; }
        if refused "$tmp/dyn/tickerboard" 'RUNPATH' && refused "$tmp/nofetch/tickerboard" 'tickerboard-fetch: missing'; then
            echo "verify: build-deb.sh refuses a fetcher with a toolchain RUNPATH, and a missing fetcher"
        else
            echo "verify: build-deb.sh packed a toolchain-bound or missing fetcher: $(cat "$tmp/refused.log")"; failures=$((failures + 1))
        fi
    fi
else
    echo "verify: package check skipped (no built binary, or no dpkg-deb/dpkg-shlibdeps)"
fi

if [ "$failures" -gt 0 ]; then
    echo "verify: $failures check(s) failed"
    exit 1
fi
echo "verify: all checks passed"
