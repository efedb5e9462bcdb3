#!/bin/sh
# Sample price fetcher for Tickerboard: downloads one CSV per symbol and replaces the data file
# ATOMICALLY (write a temporary file in the same directory, check it, then rename it over the old
# one), so the daemon, which watches the directory with inotify, never sees a half-written file.
#
# Run by tickerboard-fetch.service (started by tickerboard-fetch.timer); any program that writes
# files the same way works as well. Settings come from the environment:
#   TICKERBOARD_SYMBOLS    symbols to fetch, separated by spaces         (default: AAPL)
#   TICKERBOARD_FETCH_URL  URL template, %s is the symbol as written; %l is it in lower case
#                          (default: https://stooq.com/q/d/l/?s=%l.us&i=d, daily bars:
#                          Date,Open,High,Low,Close,Volume)
#   TICKERBOARD_DATA_DIR   where the files go (default: $STATE_DIRECTORY, else /var/lib/tickerboard)
# A file:// URL reads a local file, which is how to try this without a network.
# Each symbol SYM becomes DATA_DIR/SYM.csv: name it in /etc/tickerboard/tickerboard.conf with
#   [instrument SYM]
#   daily = SYM.csv
set -eu

symbols=${TICKERBOARD_SYMBOLS:-AAPL}
template=${TICKERBOARD_FETCH_URL:-https://stooq.com/q/d/l/?s=%l.us&i=d}
dir=${TICKERBOARD_DATA_DIR:-${STATE_DIRECTORY:-/var/lib/tickerboard}}
status=0

for symbol in $symbols; do
    case "$symbol" in
        *[!A-Za-z0-9._^=-]*|'') echo "fetch: skipping odd symbol \"$symbol\"" >&2; status=1; continue ;;
    esac
    lower=$(printf '%s' "$symbol" | tr 'A-Z' 'a-z')
    url=$(printf '%s' "$template" | sed -e "s|%s|$symbol|g" -e "s|%l|$lower|g")
    # The temporary file starts with a dot and lives in the same directory, so the final mv is a
    # rename(2) within one file system: atomic. The daemon ignores names it was not told about.
    tmp="$dir/.$symbol.csv.tmp"
    if ! curl --fail --silent --show-error --location --max-time 60 --output "$tmp" "$url"; then
        echo "fetch: $symbol: download failed; keeping the old file" >&2
        rm -f "$tmp"; status=1; continue
    fi
    # Refuse an error page or an empty answer: a CSV header and at least one row.
    header=$(head -n 1 "$tmp" | tr -d '\r')
    rows=$(wc -l < "$tmp")
    case "$header" in
        Date,*|Datetime,*|date,*) ;;
        *) echo "fetch: $symbol: not a price CSV (first line \"$header\"); keeping the old file" >&2
           rm -f "$tmp"; status=1; continue ;;
    esac
    if [ "$rows" -lt 2 ]; then
        echo "fetch: $symbol: no rows; keeping the old file" >&2
        rm -f "$tmp"; status=1; continue
    fi
    chmod 0644 "$tmp"
    mv -f "$tmp" "$dir/$symbol.csv"
    echo "fetch: $symbol: $((rows - 1)) rows"
done
exit "$status"
