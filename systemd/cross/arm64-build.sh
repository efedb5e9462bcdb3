#!/usr/bin/env bash
# Cross-builds tickerboard and tickerboard-fetch for arm64 (a Raspberry Pi 3/4/5 on Raspberry Pi OS
# or Debian 13) on this x86-64 machine with Debian 13's own Swift (swiftlang 6.0.3; swift.org has no
# aarch64 toolchain that can be fetched here, and Debian's has no static stdlib, so the binaries
# need the libswiftlang package at run time).
#
# usage: systemd/cross/arm64-build.sh [--out DIR] [--tests]
#   Prints the directory that holds both aarch64 executables (default: the cache's build dir).
#   --tests: instead, builds the Swift tests for aarch64 (release, -enable-testing: a debug build runs
#   3x slower under emulation) and runs them under qemu-user inside the build tree, the sources and
#   ../shared where the tests expect them, against the same goldens as on x86-64. Its closing line
#   is Swift Testing's; the exit status is the run's.
#
# Two trees in the cache, made once with mmdebstrap and kept (a stamp names the package lists):
#   build-tree/  Debian 13 amd64 with swiftlang and the -dev packages: the compiler runs here (chroot)
#   sysroot/     Debian 13 arm64, extracted: the headers, .pc files and libraries to link against;
#                its .debs stay in sysroot/var/cache/apt/archives (build-deb.sh reads Depends there)
#   scratch/     SwiftPM's build directory, kept between runs (incremental builds)
# Cache: $TB_CROSS_CACHE (default /var/cache/tickerboard-cross). Needs root (chroot, bind mounts).
# Measured on this 2-core machine: the trees 50 s + 80 s and 5.2 GB the first time; a full build of
# both executables about 3 min, an incremental one seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${TB_CROSS_CACHE:-/var/cache/tickerboard-cross}
out="" tests=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --tests) tests=1; shift ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "arm64-build.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
    esac
done
say() { echo "arm64-build: $*" >&2; }
die() { echo "arm64-build: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot and bind mounts)"
# arch-test: mmdebstrap needs it for the arm64 sysroot (a Recommends only; see setup-arm64.sh).
for p in mmdebstrap arch-test qemu-user-static; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
    say "installing $p"
    apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null
done

devs=libdrm-dev,libinput-dev,libudev-dev,libfreetype-dev,libpng-dev,zlib1g-dev,libcurl4-openssl-dev,libmosquitto-dev
build_pkgs="swiftlang,pkg-config,fonts-dejavu-core,tzdata,$devs"   # fonts, zones: the tests run in this tree
sysroot_pkgs="swiftlang,libswiftlang,libc6-dev,libgcc-14-dev,libstdc++-14-dev,$devs"
mkdir -p "$cache"
exec 9> "$cache/lock"
flock 9   # one cross build at a time on this machine
tree() {   # tree NAME STAMP MMDEBSTRAP-ARGS...: (re)makes $cache/NAME unless its stamp matches
    local name=$1 stamp=$2; shift 2
    [ -d "$cache/$name" ] && [ "$(cat "$cache/$name.stamp" 2>/dev/null)" = "$stamp" ] && return 0
    say "making $name (mmdebstrap $*)"
    rm -rf "$cache/$name" "$cache/$name.new"
    local t0; t0=$(date +%s)
    mmdebstrap --quiet "$@" trixie "$cache/$name.new" >&2 || die "mmdebstrap $name failed"
    mv "$cache/$name.new" "$cache/$name"
    echo "$stamp" > "$cache/$name.stamp"
    say "$name: $(( $(date +%s) - t0 )) s, $(du -sh "$cache/$name" | cut -f1)"
}
tree build-tree "$build_pkgs" --variant=apt --include="$build_pkgs"
tree sysroot "$sysroot_pkgs" --arch=arm64 --variant=extract --skip=cleanup/apt/cache --include="$sysroot_pkgs"
# --variant=extract leaves out the merged-/usr links that libm.so's linker script reaches through
for l in lib bin sbin; do [ -e "$cache/sysroot/$l" ] || ln -s "usr/$l" "$cache/sysroot/$l"; done

bt="$cache/build-tree"
mkdir -p "$cache/scratch" "$cache/scratch-tests" "$bt/w/src" "$bt/w/shared" "$bt/sysroot" "$bt/scratch" "$bt/scratch-tests" "$bt/proc" "$bt/dev"
mounted=()
cleanup() { local i; for (( i=${#mounted[@]}-1; i>=0; i-- )); do umount -l "${mounted[$i]}" 2>/dev/null || true; done; }
trap cleanup EXIT
bind() { mount --bind "$1" "$2"; mounted+=("$2"); }
mount -t proc proc "$bt/proc"; mounted+=("$bt/proc")
bind /dev "$bt/dev"
# the sources and ../shared as they sit here (the tests look for shared/ above their #filePath)
bind "$root" "$bt/w/src"
bind "$cache/sysroot" "$bt/sysroot"
bind "$cache/scratch" "$bt/scratch"
bind "$cache/scratch-tests" "$bt/scratch-tests"
# the tests read ../shared (recorded responses, real prices, the bench reference) beside the sources
if [ -d "$root/../shared" ]; then bind "$(cd "$root/../shared" && pwd)" "$bt/w/shared"; mount -o remount,bind,ro "$bt/w/shared"; fi

# SwiftPM reads .pc files itself: PKG_CONFIG_PATH must name the arm64 ones (else it finds the build
# tree's amd64 ones and links x86 libraries). -sdk reaches the Swift frontend (SwiftPM's --sdk alone
# gives the C side only, and Glibc's module map then points at the build tree's headers).
# -no-toolchain-stdlib-rpath and the rpath: the runtime where libswiftlang installs it on the Pi,
# not the sysroot's path on this machine.
pc=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig
swift_build() {   # swift_build SCRATCH ARGS...: SwiftPM for aarch64 in the build tree
    local scratch=$1; shift
    chroot "$bt" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8 \
        PKG_CONFIG_SYSROOT_DIR=/sysroot PKG_CONFIG_PATH=$pc PKG_CONFIG_LIBDIR=$pc \
        swift build --package-path /w/src -c release --scratch-path "$scratch" \
        --triple aarch64-unknown-linux-gnu --sdk /sysroot \
        -Xswiftc -sdk -Xswiftc /sysroot -Xswiftc -resource-dir -Xswiftc /sysroot/usr/lib/swift \
        -Xswiftc -use-ld=lld -Xswiftc -no-toolchain-stdlib-rpath -Xlinker -rpath=/usr/libexec/swift/lib/swift/linux "$@" >&2
}
t0=$(date +%s)
if [ "$tests" = 1 ]; then
    swift_build /scratch-tests --build-tests -Xswiftc -enable-testing || die "swift build --build-tests for aarch64 failed"
    say "tests built in $(( $(date +%s) - t0 )) s; running them under qemu-aarch64"
    cp -f "$(command -v qemu-aarch64-static)" "$bt/usr/bin/qemu-aarch64-static"
    t0=$(date +%s)
    set +e
    chroot "$bt" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8 TZ=UTC \
        /usr/bin/qemu-aarch64-static -L /sysroot /scratch-tests/aarch64-unknown-linux-gnu/release/TickerboardPackageTests.xctest \
        --testing-library swift-testing
    rc=$?
    say "tests ran in $(( $(date +%s) - t0 )) s under qemu-aarch64, exit $rc"
    exit $rc
fi
swift_build /scratch || die "swift build for aarch64 failed"
bin="$cache/scratch/aarch64-unknown-linux-gnu/release"
for x in tickerboard tickerboard-fetch; do
    LC_ALL=C readelf -h "$bin/$x" 2>/dev/null | grep -q 'Machine:.*AArch64' || die "$bin/$x is not an aarch64 executable"
done
# The Pi 5's kernel runs with 16 KiB pages: a LOAD segment aligned to less cannot be mapped there
# ("ELF load command address/offset not page-aligned"). Every executable and the Swift runtime
# libraries they load (libswiftlang's, from the sysroot) must align theirs to 0x4000 at least.
align_ok() {   # align_ok FILE: every LOAD segment's alignment (readelf -lW's last column) >= 0x4000
    local a bad=""
    for a in $(LC_ALL=C readelf -lW "$1" | awk '$1 == "LOAD" { print $NF }'); do
        [ $((a)) -ge 16384 ] || bad="$bad $a"
    done
    [ -z "$bad" ] || { echo "$bad"; return 1; }
}
for f in "$bin/tickerboard" "$bin/tickerboard-fetch"; do
    bad=$(align_ok "$f") || die "$f: LOAD segments aligned to$bad, below the 16 KiB pages of the Pi 5's kernel"
done
# Debian's libswiftlang is not ours to relink: a misaligned one is said (docs/raspberry-pi.md's table names it).
for f in $(ls "$cache"/sysroot/usr/lib/swift/linux/lib*.so 2>/dev/null); do
    bad=$(align_ok "$f") || say "warning: $(basename "$f") (libswiftlang): LOAD segments aligned to$bad, below 16 KiB pages"
done
say "the executables' LOAD segments are aligned to 16 KiB or more (readelf -lW)"
say "built in $(( $(date +%s) - t0 )) s: $bin"
if [ -n "$out" ]; then
    mkdir -p "$out"; cp "$bin/tickerboard" "$bin/tickerboard-fetch" "$out/"; bin=$(cd "$out" && pwd)
fi
echo "$bin"
