#!/usr/bin/env bash
# arm64-parity.sh — the packaged arm64 tickerboard draws, byte for byte, what the amd64 one draws:
# the same `render` commands through both (the arm64 one under qemu-user with the cross sysroot as
# its root), every PNG and every --values line compared with cmp. The amd64 pictures are the ones
# `swift test` holds against the goldens; this is the arm64 half of that, at the cost of one
# emulated process a picture (~1 s) instead of the arm64 Swift test build (TICKERBOARD_ARM64_TESTS=1).
# Covers what differs between the two machines: the SIMD paths of the rasterizer (fills, strokes,
# gradients, dimming), FreeType's glyphs in Latin, CJK and the locale tables, the morph's frames,
# scenes, sizes from 480x320 to 1080p, portrait, the tape and the portfolio.
# usage: arm64-parity.sh AMD64_BIN ARM64_BIN SYSROOT OUTDIR
#   Prints one line "N pictures and M value lists identical" or names each one that differs; exit 1 then.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
AMD=$1 ARM=$2 SYSROOT=$3 OUT=$4
mkdir -p "$OUT"
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64) || { echo "no qemu-aarch64"; exit 1; }
D="$HERE/fixtures/daemon/TBE2E.csv"
PF="$ROOT/Tests/Portfolio/fixtures"
NY=(--data "$D" --time-zone America/New_York)
pictures=0 values=0 differ=()
case_() {   # case_ NAME ARGS...: one picture (or, with --transition, a folder of them) through both
  local name=$1; shift
  local a="$OUT/$name.amd64" b="$OUT/$name.arm64"
  if [[ " $* " == *" --transition "* ]]; then
    rm -rf "$a" "$b"; mkdir -p "$a" "$b"
    "$AMD" render "$@" --output-dir "$a" > /dev/null 2>&1 || { differ+=("$name: amd64 exit $?"); return; }
    "$QEMU" -L "$SYSROOT" "$ARM" render "$@" --output-dir "$b" > /dev/null 2>&1 || { differ+=("$name: arm64 exit $?"); return; }
    local f n=0
    for f in "$a"/*.png; do
      n=$((n + 1))
      cmp -s "$f" "$b/$(basename "$f")" || differ+=("$name/$(basename "$f")")
    done
    [ "$n" -gt 0 ] || differ+=("$name: no frames")
    [ "$(ls "$b" | wc -l)" = "$n" ] || differ+=("$name: $(ls "$b" | wc -l) arm64 frames, $n amd64")
    pictures=$((pictures + n))
    return
  fi
  local v=(--values); [[ " $* " == *" watchlist "* ]] && v=()   # the watchlist has no --values
  "$AMD" render "$@" --output "$a.png" "${v[@]}" > "$a.values" 2>/dev/null || { differ+=("$name: amd64 exit $?"); return; }
  "$QEMU" -L "$SYSROOT" "$ARM" render "$@" --output "$b.png" "${v[@]}" > "$b.values" 2>/dev/null || { differ+=("$name: arm64 exit $?"); return; }
  cmp -s "$a.png" "$b.png" || differ+=("$name.png")
  # the values name the output file; the two names differ by design
  cmp -s <(grep -v '^output=' "$a.values" | sed "s#$a#X#g") <(grep -v '^output=' "$b.values" | sed "s#$b#X#g") || differ+=("$name.values")
  pictures=$((pictures + 1)); [ ${#v[@]} = 0 ] || values=$((values + 1))
}

case_ sample-1M-1080p --range 1M --size 1920x1080
case_ sample-1D-800 --range 1D --size 800x480
case_ tbe2e-5D "${NY[@]}" --range 5D --size 800x480
case_ tbe2e-6M-scrub "${NY[@]}" --range 6M --size 1280x800 --scrub 613
case_ tbe2e-1Y-480 "${NY[@]}" --range 1Y --size 480x320
case_ tbe2e-5Y-portrait "${NY[@]}" --range 5Y --size 720x1280
case_ tbe2e-1M-closed "${NY[@]}" --range 1M --size 800x480 --now 2024-03-30T11:00
case_ bars-half --scene bars --at 0.5 --size 800x480
case_ bars-settled --scene bars --size 1920x1080
case_ draw-1s --scene draw --at 1.0 --size 800x480
case_ watchlist-4 --scene watchlist --range 1M --size 1280x800 --data "$D" --data "$PF/TBGB.L.daily.csv" --data "$PF/USDEUR.daily.csv" --data "$PF/EURPLN.daily.csv"
case_ de-DE-EUR --range 6M --size 800x480 --locale de-DE --currency EUR
case_ ja-JP-JPY --range 1Y --size 800x480 --locale ja-JP --currency JPY
case_ zh-CN-red-up --range 6M --size 800x480 --locale zh-CN --colors red-up
case_ color-blind --range 1M --size 800x480 --palette color-blind
case_ dimmed-40 --range 1M --size 800x480 --brightness 40
case_ morph-1M-1Y --range 1M --transition 1M:1Y --fps 10 --size 800x480
printf '[chart]\ncycle-interval = 0\n[data]\nstale-after = 36500d\n[tape]\nposition = bottom\n[instrument TBE2E]\ndaily = %s\ntime-zone = America/New_York\n[instrument TBGB]\ndaily = %s\ncurrency = GBp\ntime-zone = Europe/London\n' \
  "$D" "$PF/TBGB.L.daily.csv" > "$OUT/tape.conf"
case_ tape-bottom --config "$OUT/tape.conf" --scene tape --at 3 --size 960x540 --now 2024-03-28T16:00
case_ config-line-tape --config "$OUT/tape.conf" --range 1M --size 1280x800 --now 2024-03-28T16:00

if [ ${#differ[@]} = 0 ]; then
  echo "$pictures pictures and $values value lists identical"
else
  echo "${#differ[@]} differ: ${differ[*]} ($pictures pictures, $values value lists compared)"
  exit 1
fi
