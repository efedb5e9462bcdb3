#!/usr/bin/env bash
# Counts the guest instructions a Linux program executes, under qemu-user with the TCG plugin
# Tests/Bench/insn-count.c: e.g. the daemon's instructions per frame on arm64 (run the bench with
# two frame counts; the difference over the frame difference is the per-frame count).
#
# usage: Tests/Bench/insn-count.sh [--arch aarch64|x86_64] [--sysroot DIR] [--inline] -- PROGRAM ARGS...
#   --arch     the guest architecture (default aarch64); runs qemu-aarch64 or qemu-x86_64
#   --sysroot  the guest's root for its dynamic loader and libraries (qemu -L DIR): guest opens of
#              /lib/..., /usr/... look there first (so an absolute RUNPATH such as the Swift
#              runtime's /usr/libexec/swift/lib/swift/linux resolves inside it)
#   --inline   count with an inline add instead of a helper call (a few % faster; not exact when
#              guest threads run at the same time); the default is a per-vCPU atomic count, exact
#              for threaded guests. The plugin costs about 7% over plain qemu (morph bench).
# The program's stdout and stderr pass through; the closing line, on stderr, is "INSNS <count>".
# The exit status is the program's (128+N if a signal N killed it: then there is no count, qemu
# 7.2 does not run the plugin's exit hook, and the closing line is "INSNS unknown").
#
# Needs root the first time: installs qemu-user (the dynamic build; the static one cannot load
# plugins) and a C compiler if missing, then fetches QEMU's qemu-plugin.h (Debian ships it in no
# package) from the Debian source package of the installed qemu into the cache, through a private
# apt configuration (the host's sources are left alone), and builds the plugin there, once per
# hash of the plugin source and header.
# Cache: $TB_INSN_CACHE (default /var/cache/tickerboard-insn).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src="$here/insn-count.c"
cache=${TB_INSN_CACHE:-/var/cache/tickerboard-insn}
arch=aarch64 sysroot="" inline=""
say() { echo "insn-count: $*" >&2; }
die() { echo "insn-count: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=${2:?--arch needs aarch64 or x86_64}; shift 2 ;;
        --sysroot) sysroot=${2:?--sysroot needs a directory}; shift 2 ;;
        --inline) inline=",inline=on"; shift ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        --) shift; break ;;
        -*) die "unknown option \"$1\" (see --help)" ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || die "no program given (usage: insn-count.sh [--arch aarch64|x86_64] [--sysroot DIR] -- PROGRAM ARGS...)"
case "$arch" in aarch64|x86_64) ;; arm64) arch=aarch64 ;; amd64) arch=x86_64 ;; *) die "unsupported --arch \"$arch\" (aarch64 or x86_64)" ;; esac
[ -z "$sysroot" ] || [ -d "$sysroot" ] || die "sysroot $sysroot is not a directory"
prog=$1; shift
case "$prog" in */*) ;; *) p=$(command -v -- "$prog") || die "program \"$prog\" not found in PATH"; prog=$p ;; esac
[ -f "$prog" ] || die "program $prog does not exist"
[ -r "$src" ] || die "plugin source $src is missing"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
installed qemu-user || missing+=(qemu-user)
command -v cc >/dev/null || missing+=(gcc)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "needs root to install ${missing[*]} (or install them first)"
    say "installing ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || die "apt-get install ${missing[*]} failed"
fi
qemu=/usr/bin/qemu-$arch
[ -x "$qemu" ] || die "$qemu is missing (is qemu-user installed?)"

mkdir -p "$cache" || die "cannot create the cache $cache (needs root the first time, or set TB_INSN_CACHE)"
exec 9> "$cache/lock"
flock 9   # one setup at a time; released before the program runs

# The header of the installed qemu's upstream version (e.g. 7.2 from 1:7.2+dfsg-7+deb12u18+b3).
srcver=$(dpkg-query -W -f='${source:Version}' qemu-user)
upver=${srcver#*:}; upver=${upver%%[-+~]*}
hdir="$cache/qemu-$upver"
if [ ! -s "$hdir/qemu-plugin.h" ]; then
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || die "cannot tell the Debian release from /etc/os-release"
    say "fetching qemu-plugin.h from the Debian source package qemu $srcver ($codename)"
    tmp=$(mktemp -d /var/tmp/tb-insn-src.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/lists/partial" "$tmp/archives/partial" "$tmp/parts" "$tmp/dl"
    key=/usr/share/keyrings/debian-archive-keyring.gpg
    [ -r "$key" ] || die "$key is missing (package debian-archive-keyring)"
    {
        echo "deb-src [signed-by=$key] http://deb.debian.org/debian $codename main"
        echo "deb-src [signed-by=$key] http://deb.debian.org/debian $codename-updates main"
        echo "deb-src [signed-by=$key] http://deb.debian.org/debian-security $codename-security main"
    } > "$tmp/sources.list"
    apt_priv=(-q -o "Dir::Etc::sourcelist=$tmp/sources.list" -o "Dir::Etc::sourceparts=$tmp/parts"
              -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp" -o "Dir::Cache::archives=$tmp/archives"
              -o APT::Sandbox::User=root)
    apt-get "${apt_priv[@]}" update >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; die "apt-get update (deb-src, private lists) failed"; }
    # the installed version if the archive still has it, else the newest (same upstream is checked below)
    ( cd "$tmp/dl" && { apt-get "${apt_priv[@]}" source --download-only "qemu=$srcver" || apt-get "${apt_priv[@]}" source --download-only qemu; } ) \
        >>"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; die "apt-get source --download-only qemu failed"; }
    orig=$(ls "$tmp"/dl/qemu_*.orig.tar.* 2>/dev/null | head -1)
    [ -n "$orig" ] || die "no qemu orig tarball was downloaded"
    got=${orig##*/qemu_}; got=${got%%[-+~]*}; got=${got%.orig.tar.*}
    [ "$got" = "$upver" ] || die "the archive's qemu source is $got, the installed qemu is $upver: the plugin API may differ"
    tar -xaf "$orig" -C "$tmp" --no-same-owner --wildcards --no-anchored --strip-components=3 '*/include/qemu/qemu-plugin.h' \
        || die "qemu-plugin.h not found in ${orig##*/}"
    grep -q 'define QEMU_PLUGIN_VERSION' "$tmp/qemu-plugin.h" || die "the extracted qemu-plugin.h has no QEMU_PLUGIN_VERSION"
    mkdir -p "$hdir"
    echo "include/qemu/qemu-plugin.h from ${orig##*/} (Debian source qemu $srcver), fetched $(date -u +%FT%TZ)" > "$hdir/SOURCE"
    mv "$tmp/qemu-plugin.h" "$hdir/qemu-plugin.h"
    rm -rf "$tmp"; trap - EXIT
    say "header: $hdir/qemu-plugin.h (QEMU_PLUGIN_VERSION $(sed -n 's/.*define QEMU_PLUGIN_VERSION *//p' "$hdir/qemu-plugin.h"))"
fi

hash=$(cat "$src" "$hdir/qemu-plugin.h" | sha256sum | cut -c1-16)
so="$cache/insn-count-$hash.so"
if [ ! -s "$so" ]; then
    say "building the plugin $so"
    cc -O2 -Wall -shared -fPIC -I "$hdir" -o "$so.tmp" "$src" || { rm -f "$so.tmp"; die "compiling $src failed"; }
    mv "$so.tmp" "$so"
fi
exec 9>&-

out=$(mktemp /tmp/tb-insn-count.XXXXXX)
trap 'rm -f "$out"' EXIT
rc=0
qargs=()
[ -z "$sysroot" ] || qargs+=(-L "$sysroot")
"$qemu" "${qargs[@]}" -plugin "$so,outfile=$out$inline" -- "$prog" "$@" || rc=$?
count=$(sed -n 's/^INSNS \([0-9][0-9]*\)$/\1/p' "$out")
if [ -z "$count" ]; then
    say "the plugin wrote no count (qemu failed to start, or the program did not exit normally; exit $rc)"
    echo "INSNS unknown" >&2
    [ "$rc" != 0 ] || rc=1
    exit "$rc"
fi
echo "INSNS $count" >&2
exit "$rc"
