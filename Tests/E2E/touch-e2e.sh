#!/bin/bash
# touch-e2e.sh — end-to-end check of the Input module on a real kernel (qemu, TCG): evdev + uinput +
# systemd-udevd + libinput in the guest, a uinput multitouch touchscreen driven by touch-inject.py,
# read by `tickerboard input-check` (touch-guest.sh). touch-check.py judges the logs and prints one
# `RESULT name PASS|FAIL detail` per check; then `E2E: N passed, M failed`. Exit status 0 iff all pass.
# usage: bash Tests/E2E/touch-e2e.sh            (from the repo root; as root: apt, qemu)
# Env: TB_E2E_BIN=path (a tickerboard binary; default: build tickerboard release), TB_E2E_OUT=dir
#      (artefacts; default a fresh dir under /var/tmp), TB_VM_CACHE (the harness cache, as setup.sh),
#      TB_E2E_TESTS=path of the package's test bundle (…/debug/TickerboardPackageTests.xctest): also
#      run the InputTests uinput test in the guest, where /dev/uinput exists.
. "$(dirname "$0")/lib.sh"
CACHE="${TB_VM_CACHE:-/var/cache/tickerboard-vm}"

if ! TB_VM_VKMS="${TB_VM_VKMS:-0}" bash "$HERE/setup.sh" 2>&1; then result setup FAIL "Tests/E2E/setup.sh failed"; finish; fi

BIN="${TB_E2E_BIN:-}"
if [ -z "$BIN" ]; then
  # As build-deb.sh and run-all build it: other flags make the next build compile everything again.
  if ! (cd "$ROOT" && swift build -c release --static-swift-stdlib --product tickerboard > /var/tmp/tb-touch-build.log 2>&1); then
    tail -20 /var/tmp/tb-touch-build.log; result build FAIL "swift build -c release failed"; finish
  fi
  BIN="$(cd "$ROOT" && swift build -c release --show-bin-path)/tickerboard"
fi
if ! "$BIN" input-check --help 2>&1 | grep -q 'input-check'; then result build FAIL "$BIN has no input-check"; finish; fi
result build PASS "$BIN"

OUT="${TB_E2E_OUT:-$(mktemp -d /var/tmp/tb-touch-e2e.XXXXXX)}"
mkdir -p "$OUT"; rm -f "$OUT"/*.log
# The guest sees the host root but not host /tmp, so ship what it runs in $OUT. The guest script
# calls `$OUT/input-check …`: a wrapper that runs `tickerboard input-check …`.
cp "$BIN" "$OUT/input-check.bin"
printf '#!/bin/sh\nexec "$OUT/input-check.bin" input-check "$@"\n' > "$OUT/input-check"; chmod +x "$OUT/input-check"
cp "$HERE/touch-guest.sh" "$HERE/touch-inject.py" "$OUT/"
rm -f "$OUT/tests.xctest"; [ -n "${TB_E2E_TESTS:-}" ] && cp "$TB_E2E_TESTS" "$OUT/tests.xctest"
# portrait-panel-touch: a 720x1280 head mounted on its side (Right Side Up: the panel's right edge at
# the top of the case). The daemon's picture is then 1280x720; a point (lx, ly) of it is on the panel
# at (719 - ly, lx): the kernel's own fbcon turns such a panel by DRM_MODE_ROTATE_270 (counter-
# clockwise, drm_client_modeset.c drm_client_rotation), 90 degrees clockwise. The tap goes to the
# centre of the 1Y button (daily data: 5D 1M 6M 1Y 5Y, the fourth of five) of a 1280x720 picture.
FIX="$HERE/fixtures"
cp "$HERE/daemon-check.py" "$FIX/daemon/TBE2E.csv" "$OUT/"
cat > "$OUT/portrait.conf" <<EOF
# touch-e2e.sh (portrait-panel-touch): rotation follows the panel's orientation
[display]
device = /dev/dri/card0
rotation = auto
[input]
enable = yes
[chart]
cycle-interval = 0
start-range = 1M
[data]
stale-after = 36500d
[instrument TBE2E]
daily = /run/e2e/TBE2E.csv
time-zone = America/New_York
EOF
read -r TAP_LX TAP_LY <<< "$(python3 -c "
import importlib.util as u; s = u.spec_from_file_location('c', '$HERE/daemon-check.py'); c = u.module_from_spec(s); s.loader.exec_module(c)
L = c.layout(1280, 720, buttons=5); print(round(L['centers'][3]), round(L['selector_y'] - L['pill_raise']))")"
echo "TAP_PX=$((719 - TAP_LY)) TAP_PY=$TAP_LX" > "$OUT/portrait-params.sh"
TB_VM_APPEND="video=Virtual-1:panel_orientation=right_side_up" \
  bash "$HERE/run-vm.sh" --gpu portrait --timeout 300 --out "$OUT" -- sh /run/e2e/touch-guest.sh "$CACHE" > "$OUT/vm.log" 2>&1
VMRC=$?
sed 's/^/  vm: /' "$OUT/vm.log"
[ "$VMRC" = 0 ] && result vm-boot PASS "$(tail -1 "$OUT/vm.log")" || result vm-boot FAIL "run-vm.sh exit $VMRC"
while read -r line; do
  case "$line" in
    "RESULT "*" PASS "*) PASSED=$((PASSED + 1)); echo "$line";;
    "RESULT "*) FAILED=$((FAILED + 1)); echo "$line";;
    *) echo "$line";;
  esac
done < <(python3 "$HERE/touch-check.py" "$OUT")
# portrait-panel-touch: the captures (720x1280) are `tickerboard render` of the same data at
# 1280x720 turned 90 degrees clockwise, before (1M) and after the tap (1Y)
CHECK="python3 $HERE/daemon-check.py"
"$BIN" render --data "$FIX/daemon/TBE2E.csv" --time-zone America/New_York --range 1M --size 1280x720 --output "$OUT/ref-portrait-1m.png" > /dev/null
"$BIN" render --data "$FIX/daemon/TBE2E.csv" --time-zone America/New_York --range 1Y --size 1280x720 --output "$OUT/ref-portrait-1y.png" > /dev/null
B1=$($CHECK same "$OUT/portrait-before.ppm" "$OUT/ref-portrait-1m.png" 0 0 720 1280 0.003 --rot 90 2>&1); B1_OK=$?
A1=$($CHECK same "$OUT/portrait-after.ppm" "$OUT/ref-portrait-1y.png" 0 0 720 1280 0.003 --rot 90 2>&1); A1_OK=$?
PB=$(grep -h '^portrait_before: ' "$OUT/portrait-facts.log" 2>/dev/null) PA=$(grep -h '^portrait_after: ' "$OUT/portrait-facts.log" 2>/dev/null)
DET="$(grep -h '^portrait: ' "$OUT/vm.log"); $PB; before vs render 1M turned 90: $B1; tap at panel ($(cut -d' ' -f1-2 "$OUT/portrait-params.sh" | tr '\n' ' ')) = picture ($TAP_LX, $TAP_LY), 1Y's button; $PA; after vs render 1Y turned 90: $A1"
if [ $B1_OK = 0 ] && [ $A1_OK = 0 ] && echo "$PB" | grep -q 'range=1M ' && echo "$PA" | grep -q 'range=1Y ' && grep -q '^exit=0' "$OUT/portrait-facts.log"; then
  result portrait-panel-touch PASS "$DET"
else
  result portrait-panel-touch FAIL "$DET; log: $(grep -E 'display|error|rotation' "$OUT/portrait.log" | head -4 | tr '\n' '|')"
fi
echo "artefacts: $OUT"
finish
