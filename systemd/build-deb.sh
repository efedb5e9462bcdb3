#!/usr/bin/env bash
# Builds the Debian package of Tickerboard, tickerboard_VERSION_ARCH.deb: a staged tree packed with
# `dpkg-deb --build --root-owner-group` (no debhelper, no source package).
#
# usage: systemd/build-deb.sh [--arch amd64|arm64] [--binary FILE] [--out DIR] [--lintian]
#                             [--version V] [--compress xz|gzip]
#
#   --arch A       the package's architecture (default: this machine's). arm64 (a Raspberry Pi) is
#                  cross-built with Debian 13's Swift by systemd/cross/arm64-build.sh (its trees are
#                  cached) and linked against Debian 13's libraries: that package is for Debian 13 /
#                  Raspberry Pi OS and depends on libswiftlang (Debian's Swift has no static stdlib)
#   --binary FILE  package FILE, a `swift build -c release --static-swift-stdlib` tickerboard, and the
#                  tickerboard-fetch beside it (the same build makes both); without it that build
#                  runs here (under `flock $TB_BUILD_LOCK` when that is set: on a shared build
#                  machine; not when the caller already holds that lock, which would deadlock)
#   --out DIR      where the .deb goes (default .build/deb)
#   --lintian      run lintian on the result (apt-get install lintian); exit 1 on an error or
#                  warning that systemd/debian/lintian-overrides does not explain
#   --version V    the package's version instead of the source's: the three executables are stamped
#                  with it (objcopy --update-section .tickerboard_version), so `--version`, the status
#                  file and Home Assistant say V. For a rebuild a fleet publishes (0.1.0+fleet2) or a
#                  test's newer package, without building again.
#   --compress C   xz (the default, smallest) or gzip (several times faster to pack)
#
# The version is written in one place, Sources/CVersion/version.c; the binary's `--version` must
# agree with it (or, with --version V, say V after stamping). The package holds (see systemd/README.md):
#   /usr/bin/tickerboard                            the daemon, stripped
#   /lib/systemd/system/tickerboard.service         the hardened unit, enabled on installation
#   /lib/udev/rules.d/70-tickerboard-backlight.rules  group video may write a backlight's brightness
#   /usr/bin/tickerboard-fetch, its unit            the fetcher (not enabled)
# Both executables must be self-contained: an ELF whose NEEDED list names the Swift runtime or whose
# RUNPATH points into a toolchain (a plain `swift build -c release` makes such binaries: they run
# only where that toolchain is installed) is refused, and so is a missing fetcher.
#   /etc/tickerboard/tickerboard.conf               the commented default config (a conffile)
#   /usr/share/tickerboard/                         the default config, no-vt.conf, the sample fetcher
#   /usr/share/doc/tickerboard/                     README.md, docs/*.md, APPLIANCE.md, screenshot, copyright, changelog.gz
#   /usr/share/man/man1/tickerboard.1.gz            the manual page (and tickerboard.conf.5 in man5)
# Maintainer scripts (systemd/debian/): postinst enables the unit and starts it only on a running
# systemd, prerm stops it on removal, postrm purge removes /var/lib/tickerboard and /etc/tickerboard.
# TB_DEB_MAINTAINER overrides the Maintainer field. The last line printed is the .deb's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
binary="" out="$root/.build/deb" lintian=0 arch=$(dpkg --print-architecture) stamp="" compress=xz
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary=${2:?--binary needs a file}; shift 2 ;;
        --binary=*) binary=${1#*=}; shift ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --out=*) out=${1#*=}; shift ;;
        --lintian) lintian=1; shift ;;
        --arch) arch=${2:?--arch needs amd64 or arm64}; shift 2 ;;
        --version) stamp=${2:?--version needs a version}; shift 2 ;;
        --version=*) stamp=${1#*=}; shift ;;
        --compress) compress=${2:?--compress needs xz or gzip}; shift 2 ;;
        --compress=*) compress=${1#*=}; shift ;;
        --arch=*) arch=${1#*=}; shift ;;
        -h|--help) sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-deb.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
say() { echo "build-deb: $*" >&2; }
die() { echo "build-deb: $*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps strip gzip readelf; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install dpkg-dev binutils)"
done

version=$(sed -n 's/^const char tb_version_stamp\[64\] = "\([^"]*\)";$/\1/p' "$root/Sources/CVersion/version.c")
case "$version" in
    [0-9]*) ;;
    *) die "Sources/CVersion/version.c: expected 'const char tb_version_stamp[64] = \"X.Y.Z\";', found \"$version\"" ;;
esac
source_version=$version
case "$compress" in xz|gzip) ;; *) die "--compress $compress: xz or gzip" ;; esac
if [ -n "$stamp" ]; then
    # Debian's version syntax (deb-version(5)) without an epoch, and room for the NUL in 64 bytes.
    echo "$stamp" | grep -Eqx '[0-9][A-Za-z0-9.+~-]{0,62}' \
        || die "--version $stamp: a Debian version (a digit first, then letters, digits and . + ~ -; at most 63 characters; no epoch)"
    version=$stamp
fi
host_arch=$(dpkg --print-architecture)
cross=0
if [ "$arch" != "$host_arch" ]; then
    [ "$arch" = arm64 ] && [ "$host_arch" = amd64 ] || die "--arch $arch: only arm64 can be cross-built (from amd64)"
    cross=1
    sysroot=${TB_CROSS_CACHE:-/var/cache/tickerboard-cross}/sysroot
    for p in qemu-user-static binutils-aarch64-linux-gnu; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
        apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null
    done
fi
# run_target CMD...: runs an executable of the package's architecture (arm64: under qemu-user,
# its libraries from the sysroot).
run_target() { if [ "$cross" = 1 ]; then QEMU_LD_PREFIX="$sysroot" qemu-aarch64-static "$@"; else "$@"; fi; }
strip_target() { if [ "$cross" = 1 ]; then aarch64-linux-gnu-strip "$@"; else strip "$@"; fi; }
objcopy_target() { if [ "$cross" = 1 ]; then aarch64-linux-gnu-objcopy "$@"; else objcopy "$@"; fi; }
# finish ELF: strip it (Debian policy: no symbol tables or notes in shipped binaries, no debug
# package is built) and, with --version, stamp the version into its section (64 bytes, NUL-padded).
finish() {
    strip_target --strip-unneeded --remove-section=.comment --remove-section=.note "$1"
    if [ -n "$stamp" ]; then
        [ -f "$work/stamp" ] || { printf '%s' "$stamp"; head -c $(( 64 - ${#stamp} )) /dev/zero; } > "$work/stamp"
        objcopy_target --update-section .tickerboard_version="$work/stamp" "$1" \
            || die "$1: objcopy could not stamp the version into .tickerboard_version"
    fi
}
# sysroot_depends ELF...: Depends for a cross-built package, from the .debs the sysroot was made of
# (dpkg-shlibdeps needs them installed for the target): each NEEDED soname's package, at least the
# version linked against (its shlibs file's dependency where it has one).
sysroot_depends() {
    local debs="$sysroot/var/cache/apt/archives" index="$work/sysroot-files" deps="" so deb pkg ver dep
    ls "$debs"/*.deb >/dev/null 2>&1 || die "$debs: no .debs (remake the sysroot: rm -rf $sysroot)"
    for deb in "$debs"/*.deb; do dpkg-deb -c "$deb" | awk -v d="$deb" '{ n = split($6, p, "/"); print p[n] "\t" d }'; done > "$index"
    for so in $(for e in "$@"; do LC_ALL=C readelf -d "$e" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | sort -u); do
        deb=$(awk -F'\t' -v s="$so" '$1 == s { print $2; exit }' "$index")
        [ -n "$deb" ] || die "$so (NEEDED by the binaries) is in no package of the sysroot"
        pkg=$(dpkg-deb -f "$deb" Package); ver=$(dpkg-deb -f "$deb" Version)
        dep=$(dpkg-deb -I "$deb" shlibs 2>/dev/null | awk -v s="$so" '{ n = $1 ".so." $2; if (n == s || $1 ".so" == s) { $1 = ""; $2 = ""; sub(/^  */, ""); print; exit } }')
        deps="$deps${deps:+, }${dep:-$pkg (>= ${ver%-*})}"
    done
    echo "$deps" | tr ',' '\n' | sed 's/^ *//' | sort -u | paste -sd, | sed 's/,/, /g'
}

if [ -z "$binary" ] && [ "$cross" = 1 ]; then
    binary="$(bash "$here/cross/arm64-build.sh")/tickerboard"
elif [ -z "$binary" ]; then
    lock=${TB_BUILD_LOCK:-}
    build=(swift build -c release --static-swift-stdlib)   # both products: tickerboard and tickerboard-fetch
    say "building: ${build[*]}${lock:+ (under flock $lock)}"
    if [ -n "$lock" ]; then (cd "$root" && flock "$lock" "${build[@]}" >&2); else (cd "$root" && "${build[@]}" >&2); fi
    binary="$(cd "$root" && swift build -c release --static-swift-stdlib --show-bin-path)/tickerboard"
fi
[ -x "$binary" ] || die "$binary is not an executable"
fetcher="$(dirname "$binary")/tickerboard-fetch"
[ -x "$fetcher" ] || die "$fetcher: missing (build both products: swift build -c release --static-swift-stdlib)"
bridge="$(dirname "$binary")/tickerboard-mqtt"
[ -x "$bridge" ] || die "$bridge: missing (build every product: swift build -c release --static-swift-stdlib)"
# self_contained ELF: no Swift runtime in NEEDED, no RUNPATH/RPATH into a toolchain. arm64: the
# runtime is libswiftlang's, found through RUNPATH /usr/libexec/swift/lib/swift/linux (where that package puts it),
# and nothing else.
self_contained() {
    if [ "$cross" = 1 ]; then
        local dyn; dyn=$(LC_ALL=C readelf -d "$1" 2>/dev/null) || die "$1: not an ELF file (readelf -d failed)"
        LC_ALL=C readelf -h "$1" | grep -q 'Machine:.*AArch64' || die "$1 is not an aarch64 executable"
        local runpath; runpath=$(echo "$dyn" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' | tr ':' '\n' | grep -v -x -e '[$]ORIGIN' -e /usr/libexec/swift/lib/swift/linux | tr '\n' ' ' || true)
        [ -z "$runpath" ] || die "$1 has a RUNPATH/RPATH ($runpath) into the build machine"
        return 0
    fi
    local dyn; dyn=$(LC_ALL=C readelf -d "$1" 2>/dev/null) || die "$1: not an ELF file (readelf -d failed)"
    local needed; needed=$(echo "$dyn" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -E '^lib(swift|Foundation|dispatch|BlocksRuntime|_Foundation|FoundationEssentials|FoundationInternationalization)' | tr '\n' ' ' || true)
    # SwiftPM writes RUNPATH $ORIGIN even for a static build: harmless (/usr/bin), anything else is not.
    local runpath; runpath=$(echo "$dyn" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' | tr ':' '\n' | grep -v -x '[$]ORIGIN' | tr '\n' ' ' || true)
    [ -z "$needed" ] || die "$1 links the Swift runtime dynamically (NEEDED $needed): build with --static-swift-stdlib"
    [ -z "$runpath" ] || die "$1 has a RUNPATH/RPATH ($runpath) into the build machine: build with --static-swift-stdlib"
}
self_contained "$binary"
self_contained "$fetcher"
self_contained "$bridge"
reported=$(run_target "$binary" --version 2>&1 || true)
[ "$reported" = "tickerboard $source_version" ] || die "$binary --version says \"$reported\", Sources/CVersion/version.c says $source_version: rebuild it"

maintainer=${TB_DEB_MAINTAINER:-Tickerboard maintainers <maintainers@tickerboard.example.org>}
# Reproducible: every file dated at the commit being packaged.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)

work=$(mktemp -d /tmp/tickerboard-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
stage="$work/tickerboard"
umask 022
d() { install -d -m 0755 "$stage/$1"; }
f() { install -D -m "$1" "$2" "$stage/$3"; }   # f MODE SOURCE DEST

f 0755 "$binary" usr/bin/tickerboard
finish "$stage/usr/bin/tickerboard"
stripped=$(run_target "$stage/usr/bin/tickerboard" --version 2>&1 || true)
[ "$stripped" = "tickerboard $version" ] || die "the stripped binary does not say its version: \"$stripped\" (expected $version)"

f 0644 "$here/tickerboard.service" lib/systemd/system/tickerboard.service
# The backlight's brightness attribute writable by group video (the service's group), nothing more.
f 0644 "$here/70-tickerboard-backlight.rules" lib/udev/rules.d/70-tickerboard-backlight.rules
# The fetcher: shipped, not enabled (it needs instruments with providers in the config first).
f 0755 "$fetcher" usr/bin/tickerboard-fetch
finish "$stage/usr/bin/tickerboard-fetch"
f 0644 "$here/tickerboard-fetch.service" lib/systemd/system/tickerboard-fetch.service
# The Home Assistant bridge: shipped, not enabled (it needs [mqtt] in the config first).
f 0755 "$bridge" usr/bin/tickerboard-mqtt
finish "$stage/usr/bin/tickerboard-mqtt"
f 0644 "$here/tickerboard-mqtt.service" lib/systemd/system/tickerboard-mqtt.service
gzip -9n < "$here/debian/tickerboard-mqtt.1" > "$work/tickerboard-mqtt.1.gz"
f 0644 "$work/tickerboard-mqtt.1.gz" usr/share/man/man1/tickerboard-mqtt.1.gz
# The group of the control socket (created by postinst through systemd-sysusers).
f 0644 "$here/tickerboard.sysusers" usr/lib/sysusers.d/tickerboard.conf
elves=("$stage/usr/bin/tickerboard" "$stage/usr/bin/tickerboard-fetch" "$stage/usr/bin/tickerboard-mqtt")
gzip -9n < "$here/debian/tickerboard-fetch.1" > "$work/tickerboard-fetch.1.gz"
f 0644 "$work/tickerboard-fetch.1.gz" usr/share/man/man1/tickerboard-fetch.1.gz
f 0644 "$root/assets/tickerboard.conf" etc/tickerboard/tickerboard.conf
f 0644 "$root/assets/tickerboard.conf" usr/share/tickerboard/tickerboard.conf
f 0644 "$here/no-vt.conf" usr/share/tickerboard/no-vt.conf
f 0755 "$root/assets/fetch-example/fetch-prices.sh" usr/share/tickerboard/fetch-example/fetch-prices.sh
for x in tickerboard-fetch.service tickerboard-fetch.timer README.md; do
    f 0644 "$root/assets/fetch-example/$x" "usr/share/tickerboard/fetch-example/$x"
done
doc=usr/share/doc/tickerboard
f 0644 "$root/README.md" "$doc/README.md"
f 0644 "$here/README.md" "$doc/APPLIANCE.md"
# The guides the README links to (docs/NAME.md beside it).
for x in "$root"/docs/*.md; do f 0644 "$x" "$doc/docs/$(basename "$x")"; done
f 0644 "$root/assets/tickerboard-1M.png" "$doc/tickerboard-1M.png"
f 0644 "$here/debian/copyright" "$doc/copyright"
f 0644 "$here/debian/lintian-overrides" usr/share/lintian/overrides/tickerboard
# A native package's changelog: one entry per version, generated so the version lives in one place.
{
    echo "tickerboard ($version) stable; urgency=medium"
    echo
    echo "  * Tickerboard $version, built from commit $commit."
    echo "    The project's history is its git log; systemd/README.md has the notes"
    echo "    for appliance builders."
    echo
    echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$work/changelog.gz"
f 0644 "$work/changelog.gz" "$doc/changelog.gz"
gzip -9n < "$here/debian/tickerboard.1" > "$work/tickerboard.1.gz"
f 0644 "$work/tickerboard.1.gz" usr/share/man/man1/tickerboard.1.gz
# The configuration's page, generated (Tests/Docs/conf-man.py; run-all.sh fails when it is stale).
gzip -9n < "$here/debian/tickerboard.conf.5" > "$work/tickerboard.conf.5.gz"
f 0644 "$work/tickerboard.conf.5.gz" usr/share/man/man5/tickerboard.conf.5.gz

# Depends: the shared libraries the binary links (dpkg-shlibdeps reads their packages' shlibs),
# plus what it opens at run time: the DejaVu font and the tz database.
if [ "$cross" = 1 ]; then
    depends="$(sysroot_depends "${elves[@]}"), fonts-dejavu-core, tzdata"
else
    mkdir -p "$work/shlibs/debian"
    printf 'Source: tickerboard\n\nPackage: tickerboard\nArchitecture: any\n' > "$work/shlibs/debian/control"
    shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O "${elves[@]/#/-e}" 2>"$work/shlibdeps.log") \
        || { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
    depends="${shlibs#shlibs:Depends=}, fonts-dejavu-core, tzdata"
fi

d DEBIAN
size=$(du -s -k --apparent-size --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" "$here/debian/control.in" > "$stage/DEBIAN/control"
echo /etc/tickerboard/tickerboard.conf > "$stage/DEBIAN/conffiles"
for s in postinst prerm postrm; do install -m 0755 "$here/debian/$s" "$stage/DEBIAN/$s"; done
(cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"
find "$stage" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$out"
deb="$(cd "$out" && pwd)/tickerboard_${version}_${arch}.deb"
dpkg-deb --build --root-owner-group -Z"$compress" "$stage" "$deb" >&2
say "$(dpkg-deb -f "$deb" Package Version Architecture Installed-Size | tr '\n' ' ')"
say "Depends: $(dpkg-deb -f "$deb" Depends)"

if [ "$lintian" = 1 ]; then
    command -v lintian >/dev/null || die "lintian not found (apt-get install lintian)"
    # Every tag, informational ones too; the overridden ones (debian/lintian-overrides, each with its
    # reason) are counted, not shown. An error or warning that is not overridden fails the build.
    report=$(lintian --display-info --show-overrides "$deb" 2>&1 | grep -v 'running with root privileges' || true)
    say "lintian $(lintian --version | cut -d' ' -f2): $(echo "$report" | grep -c '^O: ') overridden (see debian/lintian-overrides)"
    echo "$report" | grep -v '^O: ' | grep -v '^N:' | sed '/^$/d; s/^/    /' >&2 || true
    if echo "$report" | grep -Eq '^[EW]: '; then die "lintian: errors or warnings that are not explained"; fi
fi
echo "$deb"
