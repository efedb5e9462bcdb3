#!/usr/bin/env bash
# Removes what systemd/install.sh installed.
#
# usage: systemd/uninstall.sh [--prefix /usr] [--destdir DIR] [--purge]
#
# Stops and disables the service (real root only), removes the binary, the unit, PREFIX/share/tickerboard,
# the documentation and /etc/tickerboard/tickerboard.conf.dist. Keeps the user's
# /etc/tickerboard/tickerboard.conf and the price data in /var/lib/tickerboard unless --purge.
set -euo pipefail
prefix=/usr
destdir=""
purge=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
        --destdir=*) destdir=${1#*=}; shift ;;
        --purge) purge=1; shift ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "uninstall.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
destdir=${destdir%/}
live=0
if [ -z "$destdir" ] && [ -d /run/systemd/system ] && [ "$(id -u)" = 0 ]; then live=1; fi

if [ "$live" = 1 ]; then
    systemctl disable --now tickerboard.service 2>/dev/null || true
    systemctl disable --now tickerboard-fetch.timer 2>/dev/null || true
    systemctl disable --now tickerboard-fetch.service 2>/dev/null || true
fi
rm -f "$destdir$prefix/bin/tickerboard" "$destdir$prefix/lib/systemd/system/tickerboard.service" \
      "$destdir$prefix/bin/tickerboard-fetch" "$destdir$prefix/lib/systemd/system/tickerboard-fetch.service" \
      "$destdir/etc/tickerboard/tickerboard.conf.dist" "$destdir$prefix/lib/udev/rules.d/70-tickerboard-backlight.rules"
rm -rf "$destdir$prefix/share/tickerboard" "$destdir$prefix/share/doc/tickerboard"
if [ "$purge" = 1 ]; then
    rm -rf "$destdir/etc/tickerboard" "$destdir/var/lib/tickerboard" "$destdir/var/lib/private/tickerboard"
    echo "uninstall: removed, including /etc/tickerboard and /var/lib/tickerboard (--purge)"
else
    rmdir "$destdir/etc/tickerboard" 2>/dev/null || true
    echo "uninstall: removed; kept /etc/tickerboard/tickerboard.conf and /var/lib/tickerboard (use --purge to remove them)"
fi
[ "$live" = 1 ] && systemctl daemon-reload
exit 0
