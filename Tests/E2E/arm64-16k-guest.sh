#!/bin/sh
# arm64-16k-guest.sh — the in-guest half of systemd-e2e.sh's arm64-16k-pages: an arm64 guest booted
# with Debian's arm64-16k kernel (16 KiB pages, as the Raspberry Pi 5's kernel; run-vm.sh --kernel
# 16k). The arm64 package's executables ($OUT/pkg, unpacked from the .deb) start, the daemon draws a
# frame of the chart and runs its loop headless for a while, then stops on SIGTERM. A binary whose
# LOAD segments are aligned below the page size does not even start there ("ELF load command
# address/offset not page-aligned"). The host judges the picture against its own render.
P="$OUT/pkg/usr/bin"
echo "kernel: $(uname -r) page size $(getconf PAGESIZE)"
for b in tickerboard tickerboard-fetch tickerboard-mqtt; do v=$("$P/$b" --version 2>&1); rc=$?; echo "$b: $(echo "$v" | head -1) (exit $rc)"; done
"$P/tickerboard" render --data "$OUT/TBE2E.csv" --time-zone America/New_York --range 1M --size 800x480 --output "$OUT/render-16k.png" > /dev/null 2>&1
echo "render: exit $?"
printf '[chart]\ncycle-interval = 3s\n[data]\nstale-after = 36500d\n[instrument TBE2E]\ndaily = %s/TBE2E.csv\ntime-zone = America/New_York\n' "$OUT" > /tmp/16k.conf
"$P/tickerboard" run --config /tmp/16k.conf --display headless --size 800x480 --ready-file /tmp/ready --status /tmp/st.json > "$OUT/run-16k.log" 2>&1 &
D=$!
# until it has drawn a cycle's morph (two ranges shown): more than the first frame
i=0; until grep -q '"frames": [0-9][0-9][0-9]*,' /tmp/st.json 2>/dev/null && grep -q '"range": "1Y"\|"range": "6M"\|"range": "5Y"\|"range": "5D"' /tmp/st.json || [ $i -ge 2400 ]; do sleep 0.05; i=$((i + 1)); done
echo "headless: $(grep -o '"frames": [0-9]*' /tmp/st.json 2>/dev/null), $(grep -o '"range": "[^"]*"' /tmp/st.json 2>/dev/null), $(grep -o '"peak_rss_kb": [0-9]*' /tmp/st.json 2>/dev/null), alive $(kill -0 $D 2>/dev/null && echo yes || echo no)"
kill -TERM $D; wait $D; echo "run: exit $?"
