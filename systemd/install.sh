#!/usr/bin/env bash
# Installs Tickerboard as a systemd appliance.
#
# usage: systemd/install.sh [--prefix /usr] [--destdir DIR] [--no-build] [--binary FILE] [--enable]
#
#   builds   swift build -c release --static-swift-stdlib   (skipped with --no-build)
#   installs PREFIX/bin/tickerboard                          the daemon (static Swift runtime)
#            PREFIX/lib/systemd/system/tickerboard.service   the hardened unit (ExecStart -> PREFIX/bin)
#            /etc/tickerboard/tickerboard.conf               the commented default config, ONLY if absent;
#                                                            otherwise beside it as tickerboard.conf.dist
#            PREFIX/share/tickerboard/                       the default config, no-vt.conf, the sample fetcher
#            PREFIX/share/doc/tickerboard/                   README.md, docs/*.md, APPLIANCE.md, the screenshot
#   then     systemctl daemon-reload (real root only), and with --enable: systemctl enable --now
#
# --destdir DIR stages everything under DIR (packaging, tests) and touches no running system.
# --binary FILE installs FILE instead of .build/release/tickerboard (implies nothing is built).
set -euo pipefail
prefix=/usr
destdir=""
build=1
binary=""
enable=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
        --destdir=*) destdir=${1#*=}; shift ;;
        --no-build) build=0; shift ;;
        --binary) binary=${2:?--binary needs a file}; build=0; shift 2 ;;
        --binary=*) binary=${1#*=}; build=0; shift ;;
        --enable) enable=1; shift ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
case "$prefix" in /*) ;; *) echo "install.sh: --prefix must be absolute" >&2; exit 2 ;; esac
destdir=${destdir%/}

root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$build" = 1 ]; then
    (cd "$root" && swift build -c release --static-swift-stdlib)
fi
binary=${binary:-$root/.build/release/tickerboard}
if [ ! -x "$binary" ]; then
    echo "install.sh: $binary is missing; build it (drop --no-build) or pass --binary FILE" >&2
    exit 1
fi

bindir=$destdir$prefix/bin
unitdir=$destdir$prefix/lib/systemd/system
sharedir=$destdir$prefix/share/tickerboard
docdir=$destdir$prefix/share/doc/tickerboard
confdir=$destdir/etc/tickerboard

say() { echo "install: $*"; }

install -d -m 0755 "$bindir" "$unitdir" "$sharedir/fetch-example" "$docdir" "$confdir"
install -m 0755 "$binary" "$bindir/tickerboard"
say "$prefix/bin/tickerboard"

# The unit names the installed paths.
sed -e "s|/usr/bin/tickerboard|$prefix/bin/tickerboard|g" \
    -e "s|/usr/share/doc/tickerboard|$prefix/share/doc/tickerboard|g" \
    "$root/systemd/tickerboard.service" > "$unitdir/tickerboard.service.tmp"
chmod 0644 "$unitdir/tickerboard.service.tmp"
mv -f "$unitdir/tickerboard.service.tmp" "$unitdir/tickerboard.service"
say "$prefix/lib/systemd/system/tickerboard.service"
# Group video (the service's) may write a panel backlight's brightness.
install -D -m 0644 "$root/systemd/70-tickerboard-backlight.rules" "$destdir$prefix/lib/udev/rules.d/70-tickerboard-backlight.rules"
say "$prefix/lib/udev/rules.d/70-tickerboard-backlight.rules"

# The fetcher, when it was built beside the daemon (swift build -c release builds both): installed,
# not enabled (it needs instruments with providers in the config first).
fetcher="$(dirname "$binary")/tickerboard-fetch"
if [ -x "$fetcher" ]; then
    install -m 0755 "$fetcher" "$bindir/tickerboard-fetch"
    say "$prefix/bin/tickerboard-fetch"
    sed -e "s|/usr/bin/tickerboard-fetch|$prefix/bin/tickerboard-fetch|g" \
        -e "s|/usr/share/doc/tickerboard|$prefix/share/doc/tickerboard|g" \
        "$root/systemd/tickerboard-fetch.service" > "$unitdir/tickerboard-fetch.service.tmp"
    chmod 0644 "$unitdir/tickerboard-fetch.service.tmp"
    mv -f "$unitdir/tickerboard-fetch.service.tmp" "$unitdir/tickerboard-fetch.service"
    say "$prefix/lib/systemd/system/tickerboard-fetch.service"
fi

# The Home Assistant bridge, when built (installed, not enabled: it needs [mqtt] first).
bridge="$(dirname "$binary")/tickerboard-mqtt"
if [ -x "$bridge" ]; then
    install -m 0755 "$bridge" "$bindir/tickerboard-mqtt"
    say "$prefix/bin/tickerboard-mqtt"
    sed -e "s|/usr/bin/tickerboard-mqtt|$prefix/bin/tickerboard-mqtt|g" \
        -e "s|/usr/share/doc/tickerboard|$prefix/share/doc/tickerboard|g" \
        "$root/systemd/tickerboard-mqtt.service" > "$unitdir/tickerboard-mqtt.service.tmp"
    chmod 0644 "$unitdir/tickerboard-mqtt.service.tmp"
    mv -f "$unitdir/tickerboard-mqtt.service.tmp" "$unitdir/tickerboard-mqtt.service"
    say "$prefix/lib/systemd/system/tickerboard-mqtt.service"
fi
# The control socket's group (tickerboard.service names it): sysusers.d, created now on a live system.
install -D -m 0644 "$root/systemd/tickerboard.sysusers" "$destdir$prefix/lib/sysusers.d/tickerboard.conf"
say "$prefix/lib/sysusers.d/tickerboard.conf"
if [ -z "$destdir" ]; then
    systemd-sysusers tickerboard.conf 2>/dev/null || getent group tickerboard-control >/dev/null || groupadd --system tickerboard-control
fi

# Never overwrite a user's config.
if [ -e "$confdir/tickerboard.conf" ]; then
    install -m 0644 "$root/assets/tickerboard.conf" "$confdir/tickerboard.conf.dist"
    say "/etc/tickerboard/tickerboard.conf exists, kept; the new default is tickerboard.conf.dist beside it"
else
    install -m 0644 "$root/assets/tickerboard.conf" "$confdir/tickerboard.conf"
    say "/etc/tickerboard/tickerboard.conf (commented defaults)"
fi

install -m 0644 "$root/assets/tickerboard.conf" "$sharedir/tickerboard.conf"
install -m 0644 "$root/systemd/no-vt.conf" "$sharedir/no-vt.conf"
install -m 0755 "$root/assets/fetch-example/fetch-prices.sh" "$sharedir/fetch-example/fetch-prices.sh"
for f in tickerboard-fetch.service tickerboard-fetch.timer README.md; do
    sed -e "s|/usr/share/tickerboard|$prefix/share/tickerboard|g" "$root/assets/fetch-example/$f" \
        > "$sharedir/fetch-example/$f"
    chmod 0644 "$sharedir/fetch-example/$f"
done
say "$prefix/share/tickerboard/ (default config, no-vt.conf drop-in, sample fetcher)"

install -m 0644 "$root/README.md" "$docdir/README.md"
install -m 0644 "$root/systemd/README.md" "$docdir/APPLIANCE.md"
install -d -m 0755 "$docdir/docs"
install -m 0644 "$root"/docs/*.md "$docdir/docs/"
[ -e "$root/assets/tickerboard-1M.png" ] && install -m 0644 "$root/assets/tickerboard-1M.png" "$docdir/tickerboard-1M.png"
say "$prefix/share/doc/tickerboard/"

if [ -z "$destdir" ] && [ -d /run/systemd/system ] && [ "$(id -u)" = 0 ]; then
    systemctl daemon-reload
    if [ "$enable" = 1 ]; then
        systemctl enable --now tickerboard.service
        say "enabled and started; logs: journalctl -u tickerboard -f"
    else
        say "next: systemctl enable --now tickerboard   (logs: journalctl -u tickerboard -f)"
    fi
fi
