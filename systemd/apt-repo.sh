#!/usr/bin/env bash
# Makes (or updates) a signed apt repository of Tickerboard packages, the way a fleet upgrades its
# walls: `apt upgrade` on each, or unattended-upgrades. Debian's own tools: apt-ftparchive (apt-utils)
# for the indexes, gpg for the signatures (InRelease and Release.gpg), so apt checks every package
# against the key the walls were given and nothing else.
#
# usage: systemd/apt-repo.sh --out DIR --gpg-home DIR [--key ID] [--new-key] [--url URL]
#                            [--suite S] DEB...
#
#   --out DIR       the repository (created when missing). DEBs join its pool/ (a version already
#                   there with other contents is refused: apt would see two packages with one name
#                   and version); every version stays, apt installs the newest
#   --gpg-home DIR  the GnuPG home with the signing key (keep it off the walls)
#   --key ID        the key to sign with (default: the only secret key in --gpg-home)
#   --new-key       make a signing key in --gpg-home first (ed25519, no passphrase, no expiry): for
#                   a first repository or a test; a fleet's real key is made once and kept safe
#   --url URL       where the walls reach DIR (default file://DIR): written into tickerboard.sources
#   --suite S       the suite and codename (default stable)
#
# Writes beside the indexes, for the walls: tickerboard-archive-keyring.gpg (the public key; install
# it as /usr/share/keyrings/tickerboard-archive-keyring.gpg) and tickerboard.sources (the entry for
# /etc/apt/sources.list.d/, Signed-By that keyring). docs/fleets-and-home-assistant.md has the steps.
set -euo pipefail
out="" gpghome="" key="" newkey=0 url="" suite=stable debs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --gpg-home) gpghome=${2:?--gpg-home needs a directory}; shift 2 ;;
        --key) key=${2:?--key needs a key id}; shift 2 ;;
        --new-key) newkey=1; shift ;;
        --url) url=${2:?--url needs a URL}; shift 2 ;;
        --suite) suite=${2:?--suite needs a name}; shift 2 ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "apt-repo.sh: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
        *) debs+=("$1"); shift ;;
    esac
done
die() { echo "apt-repo: $*" >&2; exit 1; }
say() { echo "apt-repo: $*" >&2; }
[ -n "$out" ] || die "--out DIR is needed (see --help)"
[ -n "$gpghome" ] || die "--gpg-home DIR is needed (see --help)"
for tool in apt-ftparchive gpg dpkg-deb gzip; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install apt-utils gpg gpg-agent dpkg-dev)"
done
echo "$suite" | grep -Eqx '[A-Za-z0-9][A-Za-z0-9.+_-]*' || die "--suite $suite: letters, digits and . + _ -"
mkdir -p "$out" "$gpghome"; chmod 0700 "$gpghome"
out=$(cd "$out" && pwd)
url=${url:-file://$out}
export GNUPGHOME=$gpghome
g() { gpg --batch --quiet --no-tty "$@"; }

if [ "$newkey" = 1 ]; then
    g --passphrase '' --quick-gen-key "Tickerboard archive signing key (apt-repo.sh) <archive@tickerboard.invalid>" ed25519 sign never
fi
if [ -z "$key" ]; then
    keys=$(g --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10 }')
    [ -n "$keys" ] || die "no secret key in $gpghome (make one with --new-key, or import the fleet's)"
    [ "$(echo "$keys" | wc -l)" = 1 ] || die "$(echo "$keys" | wc -l) secret keys in $gpghome: say which with --key"
    key=$keys
fi

# The pool: pool/main/t/tickerboard/NAME_VERSION_ARCH.deb, as Debian's archive lays it out.
pool=pool/main/t/tickerboard
mkdir -p "$out/$pool"
for deb in "${debs[@]}"; do
    [ -f "$deb" ] || die "$deb: no such file"
    pkg=$(dpkg-deb -f "$deb" Package) ver=$(dpkg-deb -f "$deb" Version) arch=$(dpkg-deb -f "$deb" Architecture) \
        || die "$deb: not a Debian package"
    name="${pkg}_${ver}_${arch}.deb"
    if [ -f "$out/$pool/$name" ]; then
        cmp -s "$deb" "$out/$pool/$name" || die "$name is in the repository already with other contents: give the new build a new version (build-deb.sh --version)"
        say "$name: already there"
    else
        cp "$deb" "$out/$pool/$name.tmp" && mv "$out/$pool/$name.tmp" "$out/$pool/$name"
        say "added $name"
    fi
done

# The indexes, written aside and moved in last: a wall updating meanwhile sees the old set or the new.
dist="dists/$suite"
new="$out/.$suite.new"
rm -rf "$new"; mkdir -p "$new"
archs=$(for d in "$out/$pool"/*.deb; do [ -e "$d" ] && dpkg-deb -f "$d" Architecture; done | sort -u | tr '\n' ' ')
[ -n "$archs" ] || die "the pool is empty: name at least one .deb"
for a in $archs; do
    mkdir -p "$new/main/binary-$a"
    (cd "$out" && apt-ftparchive --arch "$a" packages "$pool") > "$new/main/binary-$a/Packages"
    gzip -9n < "$new/main/binary-$a/Packages" > "$new/main/binary-$a/Packages.gz"
done
(cd "$new" && apt-ftparchive \
    -o APT::FTPArchive::Release::Origin=Tickerboard \
    -o APT::FTPArchive::Release::Label=Tickerboard \
    -o APT::FTPArchive::Release::Suite="$suite" \
    -o APT::FTPArchive::Release::Codename="$suite" \
    -o APT::FTPArchive::Release::Architectures="${archs% }" \
    -o APT::FTPArchive::Release::Components=main \
    -o APT::FTPArchive::Release::Description="Tickerboard packages" \
    release .) > "$out/.Release.tmp"
mv "$out/.Release.tmp" "$new/Release"
g --local-user "$key" --clearsign --digest-algo SHA512 -o "$new/InRelease" "$new/Release"
g --local-user "$key" --armor --detach-sign --digest-algo SHA512 -o "$new/Release.gpg" "$new/Release"
mkdir -p "$out/dists"
rm -rf "$out/$dist.old"
[ -d "$out/$dist" ] && mv "$out/$dist" "$out/$dist.old"
mv "$new" "$out/$dist"
rm -rf "$out/$dist.old"

# What the walls need: the public key and the sources entry (deb822, Signed-By: this key only).
g --export "$key" > "$out/tickerboard-archive-keyring.gpg"
cat > "$out/tickerboard.sources" <<EOF
Types: deb
URIs: $url
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/tickerboard-archive-keyring.gpg
EOF
say "$dist: $(for a in $archs; do echo "$a $(grep -c '^Package: ' "$out/$dist/main/binary-$a/Packages")"; done | paste -sd, | sed 's/,/, /g') package(s), signed by $key"
echo "$out"
