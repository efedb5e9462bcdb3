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
  if ! (cd "$ROOT" && swift build -c release --product tickerboard > /var/tmp/tb-touch-build.log 2>&1); then
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
bash "$HERE/run-vm.sh" --gpu none --timeout 300 --out "$OUT" -- sh /run/e2e/touch-guest.sh "$CACHE" > "$OUT/vm.log" 2>&1
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
echo "artefacts: $OUT"
finish
