#!/bin/bash
# display-e2e.sh — end-to-end checks of the Display backends on a real kernel (qemu, TCG).
# usage: bash Tests/E2E/display-e2e.sh            (from the repo root; as root: apt, qemu)
# One VM with bochs-drm (card0, /dev/fb0, QMP screendumps) and vkms (card1, real 60 Hz vblank) runs
# `tickerboard display-check` scenarios (guest-display.sh), a second one virtio-gpu's with two heads
# (guest-virtio.sh: display-check on each head, and one daemon driving both, issue 34), a third virtio-gpu's on the bookworm-backports kernel, where its plane takes
# FB_DAMAGE_CLIPS (guest-virtio.sh damage); this script judges the logs and
# captures and prints one `RESULT name PASS|FAIL detail` per check, then `E2E: N passed, M failed`.
# Env: TB_E2E_BIN=path (a binary that takes `display-check …`; default: build tickerboard release),
#      TB_E2E_OUT=dir (keep artefacts there; default a fresh dir under /var/tmp), TB_VM_VKMS=0,
#      TB_E2E_ONLY=virtio (only the virtio-gpu VM and its checks: quicker when iterating on them).
. "$(dirname "$0")/lib.sh"

if ! bash "$HERE/setup.sh" 2>&1; then result setup FAIL "Tests/E2E/setup.sh failed"; finish; fi

BIN="${TB_E2E_BIN:-}"
if [ -z "$BIN" ]; then
  # As build-deb.sh and run-all build it: other flags make the next build compile everything again.
  if ! (cd "$ROOT" && swift build -c release --static-swift-stdlib --product tickerboard > /tmp/tb-e2e-build.log 2>&1); then
    tail -20 /tmp/tb-e2e-build.log; result build FAIL "swift build -c release failed"; finish
  fi
  BIN="$(cd "$ROOT" && swift build -c release --show-bin-path)/tickerboard"
fi
if ! "$BIN" display-check --help 2>&1 | grep -q 'display-check'; then
  result build FAIL "$BIN has no display-check subcommand"; finish
fi
result build PASS "$BIN"

OUT="${TB_E2E_OUT:-$(mktemp -d /var/tmp/tb-e2e.XXXXXX)}"
mkdir -p "$OUT"; rm -f "$OUT"/*.log "$OUT"/*.ppm
# The guest sees the host root, but not host /tmp (tmpfs there), so ship what it runs in $OUT.
cp "$BIN" "$OUT/tickerboard"; cp "$HERE/guest-display.sh" "$HERE/check-screen.py" "$HERE/ppm.py" "$OUT/"
# run-vm.sh shares its --out dir as /run/e2e: the virtio-gpu VM gets a dir of its own.
mkdir -p "$OUT/virtio"; rm -f "$OUT"/virtio/*.log "$OUT"/virtio/*.ppm "$OUT"/virtio/*.done "$OUT"/virtio/*.json
cp "$BIN" "$OUT/virtio/tickerboard"
cp "$HERE/guest-virtio.sh" "$HERE/outputs-check.py" "$HERE/daemon-check.py" "$HERE/ppm.py" "$HERE/fixtures/outputs/"*.conf "$OUT/virtio/"
CHECK="python3 $HERE/check-screen.py"
# rotated RUN: the rotation path a --rotation 90 log took must be the one its plane offers
rot_expected() { case ",$(field plane_turns "$1")," in *,90,*) echo plane;; *) echo copy;; esac; }
# The virtio-gpu VM: two heads (card0's Virtual-1 and Virtual-2, 1024x768 each)
run_virtio_vm() {
  bash "$HERE/run-vm.sh" --gpu virtio2 --timeout 240 --out "$OUT/virtio" -- sh /run/e2e/guest-virtio.sh > "$OUT/vm-virtio.log" 2>&1
  VMRC=$?
  sed 's/^/  vm-virtio: /' "$OUT/vm-virtio.log"
  [ "$VMRC" = 0 ] && result vm-boot-virtio PASS "$(tail -1 "$OUT/vm-virtio.log")" || result vm-boot-virtio FAIL "run-vm.sh exit $VMRC"
}
judge_virtio() {
  # (v) virtio-gpu: the pattern, the commit path it got, paced by the timer (no vblank), turned 90°
  L="$OUT/virtio/virtio.log"
  if [ "$(field exit "$L")" = 0 ] && [ "$(field flips "$L")" -ge 120 ] 2>/dev/null && [ "$(field pacing "$L")" = timer ] \
     && D=$($CHECK "$OUT/virtio/virtio.ppm" pattern 2>&1); then
    result virtio-pattern PASS "$(field flips "$L") flips (commit $(field commit "$L"), pacing timer, $(field hz "$L") Hz); $D"
  else
    result virtio-pattern FAIL "exit=$(field exit "$L") flips=$(field flips "$L") pacing=$(field pacing "$L"); $($CHECK "$OUT/virtio/virtio.ppm" pattern 2>&1)"
  fi
  L="$OUT/virtio/virtio-rot90.log"; RP=$(field rotation_path "$L")
  if [ "$(field exit "$L")" = 0 ] && [ -n "$RP" ] && [ "$RP" = "$(rot_expected "$L")" ] && D=$($CHECK "$OUT/virtio/virtio-rot90.ppm" pattern-rot90 2>&1); then
    result virtio-rotation PASS "rotation 90 by $RP (plane turns: $(field plane_turns "$L")); $D"
  else
    result virtio-rotation FAIL "exit=$(field exit "$L") rotation_path=$RP plane_turns=$(field plane_turns "$L"); $($CHECK "$OUT/virtio/virtio-rot90.ppm" pattern-rot90 2>&1)"
  fi
  # (v'') the second head: QEMU (-display none) enables head 0 only, so Virtual-2 starts
  # disconnected; forced on through sysfs it has the driver's modes, and display-check on it alone
  # shows the pattern on head 1 (QMP screendump device tbgpu head 1) while head 0 shows none of it
  L="$OUT/virtio/virtio-head1.log"
  if [ "$(field head1_before "$L")" = disconnected ] && [ "$(field exit "$L")" = 0 ] && grep -q ' Virtual-2 ' "$L" \
     && D=$($CHECK "$OUT/virtio/virtio-head1.head1.ppm" pattern 2>&1) && D0=$($CHECK "$OUT/virtio/virtio-head1.head0.ppm" console 2>&1); then
    result virtio-second-head PASS "Virtual-2 $(field head1_before "$L") until forced on; display-check on it: $(grep -o 'Virtual-2 [0-9x@.]*' "$L" | head -1), $(field flips "$L") flips; head 1: $D; head 0: $D0; screendumps $(awk '{ printf "%s %.0f ms, ", $1, ($4 - $3) * 1000 }' "$OUT/virtio/virtio-head1.heads.done" 2>/dev/null)"
  else
    result virtio-second-head FAIL "head1_before=$(field head1_before "$L") exit=$(field exit "$L") $(grep -E 'display-check: (kms|/dev)' "$L" | tail -2 | tr '\n' '|'); head 1: $($CHECK "$OUT/virtio/virtio-head1.head1.ppm" pattern 2>&1); head 0: $($CHECK "$OUT/virtio/virtio-head1.head0.ppm" console 2>&1)"
  fi
}
. "$HERE/outputs-judge.sh"
# The seam judge proves it can fail (a true seam passes, 1 px either way and 40 px fail) on pictures
# `render` draws; on the host while the VMs run (its result is printed with the others).
python3 "$HERE/outputs-check.py" selftest "$BIN" > "$OUT/outputs-selftest.log" 2>&1 &
SELFTEST=$!
if [ "${TB_E2E_ONLY:-}" = virtio ]; then run_virtio_vm; judge_virtio; judge_outputs; echo "artefacts: $OUT"; finish; fi
VKMS=--vkms; [ -f /var/cache/tickerboard-vm/vkms/vkms.ko ] || [ -f "${TB_VM_CACHE:-/nonexistent}/vkms/vkms.ko" ] || VKMS=""
bash "$HERE/run-vm.sh" --gpu bochs $VKMS --timeout 240 --out "$OUT" -- sh /run/e2e/guest-display.sh > "$OUT/vm.log" 2>&1
VMRC=$?
sed 's/^/  vm: /' "$OUT/vm.log"
[ "$VMRC" = 0 ] && result vm-boot PASS "$(tail -1 "$OUT/vm.log")" || result vm-boot FAIL "run-vm.sh exit $VMRC"
run_virtio_vm

# (a) bochs: display-check takes the screen, flips 120 times, the capture shows the pattern
L="$OUT/bochs.log"; F=$(field flips "$L")
if [ "$(field exit "$L")" = 0 ] && [ "${F:-0}" -ge 120 ] && D=$($CHECK "$OUT/bochs.ppm" pattern 2>&1); then
  result bochs-pattern PASS "$F flips ($(field api "$L")); $D"
else
  result bochs-pattern FAIL "exit=$(field exit "$L") flips=$F; $($CHECK "$OUT/bochs.ppm" pattern 2>&1)"
fi
# (b) bochs has no vblank: flips must be paced by the timer, never faster than the mode's rate: each
# flip completes on a tick of its own of the pacing timerfd (the kernel counts the ticks; flips <=
# the span of ticks). How close to the rate it gets, and the CPU it costs, is speed (under TCG it
# follows the host's load): reported, never judged here.
HZ=$(field hz "$L"); MODEHZ=$(grep -o '@[0-9.]*' "$L" | head -1 | tr -d @); CPU=$(field cpu_pct "$L")
paced() { awk -v f="$(field flips "$1")" -v a="$(field first_seq "$1")" -v b="$(field last_seq "$1")" \
  'BEGIN { exit !(f > 0 && a != "" && b != "" && f <= b - a + 1) }'; }
if [ "$(field pacing "$L")" = timer ] && paced "$L"; then
  result bochs-pacing PASS "$(field flips "$L") flips on ticks $(field first_seq "$L")..$(field last_seq "$L") of the mode's timer (${MODEHZ} Hz): $HZ Hz, cpu ${CPU}% of one vCPU, $(field cpu_ms_per_frame "$L") ms/frame"
else
  result bochs-pacing FAIL "pacing=$(field pacing "$L") flips=$(field flips "$L") ticks $(field first_seq "$L")..$(field last_seq "$L") hz=$HZ mode=$MODEHZ cpu=$CPU%"
fi
# (b') idle: with nothing to show, the pacing timer stops: (almost) no wakeups. The CPU time is
# reported: under TCG it follows the host's load.
W=$(field idle_wakeups "$L"); IC=$(field idle_cpu_ms "$L")
if between "$W" 0 2; then
  result bochs-idle PASS "$W wakeups and $IC ms CPU in $(field idle_s "$L") s idle"
else
  result bochs-idle FAIL "idle_wakeups=$W idle_cpu_ms=$IC"
fi
# (a') bochs turned 90°: the path the plane allows, and the turned pattern on the glass
L="$OUT/bochs-rot90.log"; RP=$(field rotation_path "$L")
if [ "$(field exit "$L")" = 0 ] && [ -n "$RP" ] && [ "$RP" = "$(rot_expected "$L")" ] && D=$($CHECK "$OUT/bochs-rot90.ppm" pattern-rot90 2>&1); then
  result bochs-rotation PASS "rotation 90 by $RP (plane turns: $(field plane_turns "$L")), $(field flips "$L") flips; $D"
else
  result bochs-rotation FAIL "exit=$(field exit "$L") rotation_path=$RP plane_turns=$(field plane_turns "$L"); $($CHECK "$OUT/bochs-rot90.ppm" pattern-rot90 2>&1)"
fi
# (a'') bochs at 1080p: whichever path it ends on (single-buffered DIRTYFB when two buffers do not
# fit), the pattern is on the glass and the frames keep coming, timer-paced
L="$OUT/bochs-1080.log"
if [ "$(field exit "$L")" = 0 ] && [ "$(field flips "$L")" -ge 60 ] 2>/dev/null && [ "$(field pacing "$L")" = timer ] \
   && D=$($CHECK "$OUT/bochs-1080.ppm" pattern 2>&1); then
  result bochs-1080 PASS "commit $(field commit "$L")$(grep -o 'commit path [a-z]* -> [a-z]*' "$L" | head -1 | sed 's/^/ after /'), $(field flips "$L") flips at $(field hz "$L") Hz; $D"
else
  result bochs-1080 FAIL "exit=$(field exit "$L") flips=$(field flips "$L") pacing=$(field pacing "$L") $(grep -E 'commit|memory' "$L" | tr '\n' '|'); $($CHECK "$OUT/bochs-1080.ppm" pattern 2>&1)"
fi
# (c) vkms: flips at the vblank rate, with the kernel's vblank sequence
L="$OUT/vkms.log"
if [ -z "$VKMS" ]; then
  result vkms-vblank FAIL "vkms.ko not built (setup.sh with TB_VM_VKMS=1)"
else
  # Judged: paced by the kernel's vblank events, one flip per vblank at most (the flips fit in the
  # sequence span). The rate itself is speed: reported.
  HZ=$(field hz "$L")
  if [ "$(field exit "$L")" = 0 ] && [ "$(field pacing "$L")" = vblank ] && paced "$L"; then
    result vkms-vblank PASS "$HZ Hz ($(field api "$L")), missed vblanks $(field missed "$L"), seq $(field first_seq "$L")..$(field last_seq "$L"), cpu $(field cpu_pct "$L")%, idle $(field idle_wakeups "$L") wakeups"
  else
    result vkms-vblank FAIL "exit=$(field exit "$L") pacing=$(field pacing "$L") hz=$HZ"
  fi
  L="$OUT/vkms-legacy.log"; HZ=$(field hz "$L")
  if [ "$(field exit "$L")" = 0 ] && [ "$(field api "$L")" = legacy ] && [ "$(field pacing "$L")" = vblank ] && paced "$L"; then
    result vkms-legacy-api PASS "$HZ Hz through SetCrtc + PageFlip, missed vblanks $(field missed "$L")"
  else
    result vkms-legacy-api FAIL "exit=$(field exit "$L") api=$(field api "$L") pacing=$(field pacing "$L") hz=$HZ"
  fi
fi
# (c'') vkms turned 90° (no screendump of vkms: the path and the flips are judged)
if [ -n "$VKMS" ]; then
  L="$OUT/vkms-rot90.log"; RP=$(field rotation_path "$L")
  if [ "$(field exit "$L")" = 0 ] && [ -n "$RP" ] && [ "$RP" = "$(rot_expected "$L")" ] && [ "$(field flips "$L")" -ge 60 ] 2>/dev/null; then
    result vkms-rotation PASS "rotation 90 by $RP (plane turns: $(field plane_turns "$L")), $(field flips "$L") flips at $(field hz "$L") Hz"
  else
    result vkms-rotation FAIL "exit=$(field exit "$L") rotation_path=$RP plane_turns=$(field plane_turns "$L") flips=$(field flips "$L")"
  fi
fi
judge_virtio
judge_outputs
# (w) damage to the glass: on the backports kernel virtio-gpu's plane has FB_DAMAGE_CLIPS. The flips
# must carry it, be accepted (still atomic at the end: a malformed blob fails the commit and falls
# back), and the capture after 90 flips that each damaged only the block's band must show the last
# frame's block, whole, and nothing of earlier ones. A flip to the other framebuffer makes this
# driver upload all of it (a 1x1 clip in every flip still left the right picture), so the exactness
# of the rectangles is the unit tests' (ScanoutDamage), not this check's.
BPO="${TB_VM_CACHE_BACKPORTS:-/var/cache/tickerboard-vm-backports}"
if TB_VM_KERNEL=backports TB_VM_CACHE="$BPO" bash "$HERE/setup.sh" > "$OUT/setup-backports.log" 2>&1 \
   || TB_VM_KERNEL=backports TB_VM_VKMS=0 TB_VM_CACHE="$BPO" bash "$HERE/setup.sh" >> "$OUT/setup-backports.log" 2>&1; then
  BVKMS=--vkms; [ -f "$BPO/vkms/vkms.ko" ] || BVKMS=""
  mkdir -p "$OUT/damage"; rm -f "$OUT"/damage/*.log "$OUT"/damage/*.ppm "$OUT"/damage/*.state
  cp "$BIN" "$OUT/damage/tickerboard"; cp "$HERE/guest-virtio.sh" "$OUT/damage/"
  TB_VM_CACHE="$BPO" bash "$HERE/run-vm.sh" --gpu virtio $BVKMS --timeout 180 --out "$OUT/damage" -- sh /run/e2e/guest-virtio.sh damage > "$OUT/vm-damage.log" 2>&1
  VMRC=$?
  sed 's/^/  vm-damage: /' "$OUT/vm-damage.log"
  L="$OUT/damage/damage.log"; BX=$(field block_x "$L")
  if [ "$VMRC" = 0 ] && [ "$(field exit "$L")" = 0 ] && grep -q 'flips carry FB_DAMAGE_CLIPS' "$L" && [ "$(field commit "$L")" = atomic ] \
     && [ "$(field flips "$L")" -ge 90 ] 2>/dev/null \
     && [ -n "$BX" ] && D=$($CHECK "$OUT/damage/damage.ppm" pattern --block-x "$BX" 2>&1); then
    result virtio-damage-clips PASS "$(grep -o 'kernel [^,]*' "$OUT/vm-damage.log" | head -1): flips carry FB_DAMAGE_CLIPS, $(field flips "$L") atomic flips; $D"
  else
    result virtio-damage-clips FAIL "vm exit $VMRC, exit=$(field exit "$L") flips=$(field flips "$L") commit=$(field commit "$L") clips: $(grep -c 'flips carry FB_DAMAGE_CLIPS' "$L" 2>/dev/null); $($CHECK "$OUT/damage/damage.ppm" pattern --block-x "${BX:-0}" 2>&1)"
  fi
  # (w') vkms on the same kernel turns the picture by the plane's `rotation` property: display-check
  # takes that path, and the kernel's primary plane holds DRM_MODE_ROTATE_270 (8: DRM counts
  # counter-clockwise, the panel's 90 is clockwise) while the turned frame is shown.
  L="$OUT/damage/vkms-rot90.log"
  if [ -z "$BVKMS" ]; then
    result vkms-plane-rotation SKIP "vkms.ko not built for the backports kernel: $(grep -i -m1 'error' "$OUT/setup-backports.log")"
  elif [ "$(field exit "$L")" = 0 ] && [ "$(field rotation_path "$L")" = plane ] && [ "$(field kernel_plane0_rotation "$OUT/damage/vkms-rot90.state")" = 8 ]; then
    result vkms-plane-rotation PASS "rotation 90 by the plane (turns: $(field plane_turns "$L")), kernel plane-0 rotation=8, $(field flips "$L") flips at $(field hz "$L") Hz"
  else
    result vkms-plane-rotation FAIL "exit=$(field exit "$L") rotation_path=$(field rotation_path "$L") plane_turns=$(field plane_turns "$L") kernel rotation=$(field kernel_plane0_rotation "$OUT/damage/vkms-rot90.state")"
  fi
else
  result virtio-damage-clips SKIP "no bookworm-backports kernel here: $(tail -1 "$OUT/setup-backports.log")"
  result vkms-plane-rotation SKIP "no bookworm-backports kernel here"
fi
# The commit path each KMS run took is the one chosen at open (logged with its reason) or a logged fallback.
PATHS="" BAD=""
for L in "$OUT/bochs.log" "$OUT/bochs-1080.log" "$OUT/vkms.log" "$OUT/vkms-legacy.log" "$OUT/virtio/virtio.log"; do
  [ -f "$L" ] || continue
  C=$(field commit "$L"); CHOSEN=$(grep -o 'commit path [a-z]* (' "$L" | head -1 | cut -d' ' -f3)
  PATHS="$PATHS $(basename "$L" .log)=$C($(field pacing "$L"))"
  if [ -z "$C" ] || { [ "$C" != "$CHOSEN" ] && ! grep -q -- "-> $C" "$L"; }; then BAD="$BAD $(basename "$L")"; fi
done
[ -z "$BAD" ] && [ -n "$PATHS" ] && result commit-paths PASS "$PATHS" || result commit-paths FAIL "unexplained:$BAD;$PATHS"
# (d) fbdev: the same pattern through /dev/fb0
L="$OUT/fbdev.log"
if [ "$(field exit "$L")" = 0 ] && D=$($CHECK "$OUT/fbdev.ppm" pattern 2>&1); then
  result fbdev-pattern PASS "$(field flips "$L") frames at $(field hz "$L") Hz; $D"
else
  result fbdev-pattern FAIL "exit=$(field exit "$L"); $($CHECK "$OUT/fbdev.ppm" pattern 2>&1)"
fi
# (d') fbdev on vkms: paced by FBIO_WAITFORVSYNC (and the timer), never faster than the vblanks:
# each frame on a tick of its own (the rate is reported)
L="$OUT/fbdev-vkms.log"
if [ "$(field exit "$L")" = 0 ] && [ "$(field pacing "$L")" = vsync-ioctl+timer ] && paced "$L"; then
  result fbdev-vsync PASS "$(field device "$L") ($(field name "$L")): pacing $(field pacing "$L"), $(field flips "$L") frames on ticks $(field first_seq "$L")..$(field last_seq "$L"), $(field hz "$L") Hz"
else
  WHY="$(grep -v '^$' "$L" 2>/dev/null | tail -4 | tr '\n' '|')"
  result fbdev-vsync FAIL "${WHY:-no framebuffer named vkms under /sys/class/graphics in the guest}"
fi
# (e) SIGTERM: clean exit, the CRTC shows the console's framebuffer again
L="$OUT/sigterm.log"; SAVED=$(field saved_fb "$L"); AFTER=$(field crtc_fb_after "$L")
if [ "$(field exit "$L")" = 0 ] && [ "$(field signalled "$L")" = 1 ] && [ -n "$SAVED" ] && [ "$SAVED" = "$AFTER" ] \
   && grep -q 'allocated by = \[fbcon\]' "$L" && $CHECK "$OUT/sigterm-before.ppm" pattern >/dev/null 2>&1 \
   && D=$($CHECK "$OUT/sigterm-after.ppm" console 2>&1); then
  result sigterm-restore PASS "fb $SAVED restored, plane allocated by [fbcon]; after: $D"
else
  result sigterm-restore FAIL "exit=$(field exit "$L") signalled=$(field signalled "$L") saved=$SAVED after=$AFTER $(grep state: "$L")"
fi
# (f) a second instance waits for DRM master without errors and takes over when the first exits
L1="$OUT/master-first.log"; L2="$OUT/master-second.log"
if [ "$(field exit "$L1")" = 0 ] && [ "$(field exit "$L2")" = 0 ] && grep -q 'another process is DRM master' "$L2" \
   && grep -q 'event masterRegained' "$L2" && [ "$(field flips "$L2")" -ge 60 ] 2>/dev/null; then
  result master-handover PASS "second instance waited, regained master, $(field flips "$L2") flips at $(field hz "$L2") Hz"
else
  result master-handover FAIL "first exit=$(field exit "$L1"); second: $(tr '\n' '|' < "$L2")"
fi
# (g) hotplug: lost -> no rendering, no CPU; back -> modeset and flipping resumes
L="$OUT/hotplug.log"; WK=$(field lost_wakeups "$L"); ASLEEP=$(field lost_asleep "$L")
if [ "$(field exit "$L")" = 0 ] && grep -q 'event connectorLost' "$L" && grep -q 'event connectorReturned' "$L" \
   && [ "$(field flips "$L")" -ge 150 ] 2>/dev/null && [ "$ASLEEP" = 1,1 ] && between "$WK" 0 5; then
  result hotplug PASS "lost and returned, $(field flips "$L") flips; while unplugged: asleep in $(field lost_wchan "$L"), $WK wakeups in 1 s"
else
  result hotplug FAIL "exit=$(field exit "$L") flips=$(field flips "$L") lost_asleep=$ASLEEP lost_wakeups=$WK wchan=$(field lost_wchan "$L") $(grep -c event "$L") events"
fi
# (h) no display at start: wait asleep in epoll_wait (a handful of wakeups at most), then modeset
# when one is plugged in
L="$OUT/nooutput.log"; WK=$(field waiting_wakeups "$L"); ASLEEP=$(field waiting_asleep "$L")
if [ "$(field exit "$L")" = 0 ] && grep -q 'event connectorReturned' "$L" && [ "$(field flips "$L")" -ge 60 ] 2>/dev/null \
   && [ "$ASLEEP" = 1,1 ] && between "$WK" 0 5; then
  result wait-for-output PASS "waited asleep in $(field waiting_wchan "$L") ($WK wakeups in 1 s), then $(field flips "$L") flips at $(field hz "$L") Hz"
else
  result wait-for-output FAIL "exit=$(field exit "$L") flips=$(field flips "$L") waiting_asleep=$ASLEEP waiting_wakeups=$WK wchan=$(field waiting_wchan "$L")"
fi
echo "artefacts: $OUT"
finish
