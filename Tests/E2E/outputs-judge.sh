# outputs-judge.sh — display-e2e.sh's judges of one daemon driving two outputs (issue 34), sourced
# by it: judge_outputs reads what guest-virtio.sh's outputs_phases left in $OUT/virtio (status notes
# "TAG: first=STATE,FLIPS,CONNECTOR,SCENE second=... time=T", both heads' screendumps, the
# screendumps' host times in *.heads.done) and prints the RESULT lines outputs-check-selftest (the
# seam judge on drawn pictures, started by display-e2e.sh), two-outputs-own-scenes,
# one-output-unplugged-other-runs and tape-spans-two-outputs.

# note_of LOG TAG: the last note TAG of LOG ("" when none)
note_of() { grep -h "^$2: " "$1" 2>/dev/null | tail -1 | cut -d' ' -f2-; }
# part NOTE WHO N: field N (1 state, 2 flips, 3 connector, 4 scene) of output WHO in NOTE; WHO
# time: the status's time, up: the guest's uptime when it was read
part() {
  case "$2" in time|up) echo "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2; return;; esac
  echo "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2 | cut -d, -f"$3"
}
num() { case "$1" in ''|*[!0-9]*) echo 0;; *) echo "$1";; esac; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 > b + 0) }'; }
# pair_gap DONE: seconds from the start of the pair's first screendump to the end of its second
pair_gap() { awk 'NR == 1 { s = $3 } { e = $4 } END { if (NR == 2) printf "%.3f", e - s; else print "" }' "$1" 2>/dev/null; }

judge_outputs() {
  local V="$OUT/virtio" OC="python3 $HERE/outputs-check.py" DC="python3 $HERE/daemon-check.py"
  # (started by display-e2e.sh before the VMs: outputs-check.py selftest)
  if wait "${SELFTEST:-0}" 2>/dev/null; then
    result outputs-check-selftest PASS "$(cat "$OUT/outputs-selftest.log")"
  else
    result outputs-check-selftest FAIL "$(cat "$OUT/outputs-selftest.log" 2>/dev/null)"
  fi
  # --- two-outputs-own-scenes: the chart on Virtual-1, the full-screen tape on Virtual-2
  local L="$V/outputs-own.log" N S D OK
  N=$(note_of "$L" started); S=own
  D=$($OC scenes "$V/$S.head0.ppm" "$V/$S.head1.ppm" 2>&1); OK=$?
  if [ "$OK" = 0 ] && [ "$(part "$N" first 1)" = running ] && [ "$(part "$N" second 1)" = running ] \
     && [ "$(part "$N" first 3)" = Virtual-1 ] && [ "$(part "$N" second 3)" = Virtual-2 ] \
     && [ "$(part "$N" first 4)" = chart ] && [ "$(part "$N" second 4)" = tape ]; then
    result two-outputs-own-scenes PASS "status: $N; capture $S: $D"
  else
    result two-outputs-own-scenes FAIL "status: ${N:-none} (want first=running,N,Virtual-1,chart second=running,N,Virtual-2,tape); capture ${S:-none}: $D; log: $(grep -v '^[a-z0-9_]*: first=' "$L" 2>/dev/null | tail -4 | tr '\n' '|')"
  fi
  # --- one-output-unplugged-other-runs: each output unplugged in turn, the other runs on
  local U2 U2L R2 R2L U1 U1L R1 WHY=""
  U2=$(note_of "$L" unplug2_waiting); U2L=$(note_of "$L" unplug2_later)
  R2=$(note_of "$L" replug2_running); R2L=$(note_of "$L" replug2_later)
  U1=$(note_of "$L" unplug1_waiting); U1L=$(note_of "$L" unplug1_later); R1=$(note_of "$L" replug1_running)
  # Virtual-2 off: the second waits (its flips stand), the first stays running and shows the chart
  case "$(part "$U2L" second 1)" in waiting*) ;; *) WHY="$WHY; Virtual-2 unplugged: second is '$(part "$U2L" second 1)', not waiting";; esac
  [ "$(part "$U2L" second 2)" = "$(part "$U2" second 2)" ] || WHY="$WHY; second's flips moved while unplugged ($(part "$U2" second 2) -> $(part "$U2L" second 2))"
  [ "$(part "$U2L" first 1)" = running ] || WHY="$WHY; first is '$(part "$U2L" first 1)' while Virtual-2 is unplugged"
  $DC chart "$V/unplug2.head0.ppm" > /dev/null 2>&1 || WHY="$WHY; head 0 shows no chart while Virtual-2 is unplugged"
  # replugged: the second runs and flips again, the tape on head 1
  { [ "$(part "$R2L" second 1)" = running ] && gt "$(part "$R2L" second 2)" "$(part "$R2" second 2)"; } \
    || WHY="$WHY; Virtual-2 replugged: second '$(part "$R2L" second 1)', flips $(part "$R2" second 2) -> $(part "$R2L" second 2)"
  $OC tape "$V/replug2.head1.ppm" > /dev/null 2>&1 || WHY="$WHY; head 1 shows no tape after the replug: $($OC tape "$V/replug2.head1.ppm" 2>&1)"
  # Virtual-1 off: the first waits (its flips stand), the tape on the second keeps flipping
  case "$(part "$U1L" first 1)" in waiting*) ;; *) WHY="$WHY; Virtual-1 unplugged: first is '$(part "$U1L" first 1)', not waiting";; esac
  [ "$(part "$U1L" first 2)" = "$(part "$U1" first 2)" ] || WHY="$WHY; first's flips moved while unplugged ($(part "$U1" first 2) -> $(part "$U1L" first 2))"
  { [ "$(part "$U1L" second 1)" = running ] && gt "$(part "$U1L" second 2)" "$(part "$U1" second 2)"; } \
    || WHY="$WHY; while Virtual-1 is unplugged second is '$(part "$U1L" second 1)', flips $(part "$U1" second 2) -> $(part "$U1L" second 2)"
  $OC tape "$V/unplug1.head1.ppm" > /dev/null 2>&1 || WHY="$WHY; head 1 shows no tape while Virtual-1 is unplugged"
  [ "$(part "$R1" first 1)" = running ] || WHY="$WHY; Virtual-1 replugged: first is '$(part "$R1" first 1)'"
  $DC chart "$V/replug1.head0.ppm" > /dev/null 2>&1 || WHY="$WHY; head 0 shows no chart after the replug"
  [ "$(field exit "$L")" = 0 ] || WHY="$WHY; daemon exit $(field exit "$L")"
  D="Virtual-2 out: second $(part "$U2L" second 1) flips $(part "$U2" second 2)->$(part "$U2L" second 2), first $(part "$U2L" first 1) flips $(part "$U2" first 2)->$(part "$U2L" first 2) (a still chart need not flip); back: second flips $(part "$R2" second 2)->$(part "$R2L" second 2); Virtual-1 out: first $(part "$U1L" first 1) flips $(part "$U1" first 2)->$(part "$U1L" first 2), second flips $(part "$U1" second 2)->$(part "$U1L" second 2); back: first $(part "$R1" first 1)"
  if [ "$(part "$N" first 1),$(part "$N" second 1)" != running,running ]; then
    result one-output-unplugged-other-runs FAIL "the daemon never ran both outputs (status: ${N:-none}); nothing unplugged"
  elif [ -z "$WHY" ] && [ -n "$U2" ] && [ -n "$U1" ]; then
    result one-output-unplugged-other-runs PASS "$D; captures: chart on head 0 while Virtual-2 was out and after Virtual-1 came back, tape on head 1 while Virtual-1 was out and after Virtual-2 came back"
  else
    result one-output-unplugged-other-runs FAIL "${WHY#; }; $D"
  fi
  # --- tape-spans-two-outputs: Virtual-1 | Virtual-2 as one strip (outputs-check.py span)
  L="$V/outputs-span.log"
  local RA RB DT DF1 DF2 FRAME
  N=$(note_of "$L" started); RA=$(note_of "$L" rate_a); RB=$(note_of "$L" rate_b)
  DT=$(awk -v a="$(part "$RA" up)" -v b="$(part "$RB" up)" 'BEGIN { print b - a }')
  DF1=$(( $(num "$(part "$RB" first 2)") - $(num "$(part "$RA" first 2)") ))
  DF2=$(( $(num "$(part "$RB" second 2)") - $(num "$(part "$RA" second 2)") ))
  # the slower output's frame interval over the stretch between the A and B captures (guest time)
  FRAME=$(awk -v t="$DT" -v a="$DF1" -v b="$DF2" 'BEGIN { m = a < b ? a : b; printf "%.3f", (m > 0 ? t / m : t) }')
  D=$($OC span 10 "$FRAME" "$V" 4 2>&1); OK=$?
  D="status: ${N:-none}; frames every $FRAME s (flips +$DF1/+$DF2 in $DT s); $D"
  if [ "$OK" = 0 ] && [ "$(part "$N" first 4)" = tape ] && [ "$(part "$N" second 4)" = tape ] && [ "$(field exit "$L")" = 0 ]; then
    result tape-spans-two-outputs PASS "$D"
  else
    result tape-spans-two-outputs FAIL "$D; exit $(field exit "$L"); log: $(grep -v '^[a-z0-9_]*: first=' "$L" 2>/dev/null | tail -3 | tr '\n' '|')"
  fi
}
