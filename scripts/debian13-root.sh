#!/usr/bin/env bash
# A Debian 13 (trixie) root to build and test MagickIO against ImageMagick 7, with this machine's
# Swift toolchain and package copies bound in. Debian's packages only. Run as root.
#
#   scripts/debian13-root.sh make [ROOT]          make ROOT (skips debootstrap when it exists) and
#                                                 run the README's install line in it
#   scripts/debian13-root.sh run [ROOT] -- CMD... run CMD as root inside ROOT, in this repository
#
# ROOT defaults to $MAGICKIO_DEBIAN13_ROOT or /var/tmp/magickio-trixie; it must lie outside the
# repository. `run` binds the toolchain (the directory above `swift`'s usr/bin), /opt/swift-packages
# (read-only), /proc, /dev, /sys and the repository (at the same path, so that build folders stay
# valid) in a mount namespace of its own: the mounts end with the command, whatever happens.
# Example: scripts/debian13-root.sh run -- swift build --scratch-path .build-trixie
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
mode=${1:-make}
[ $# -gt 0 ] && shift
root=${MAGICKIO_DEBIAN13_ROOT:-/var/tmp/magickio-trixie}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then root=$1; shift; fi
[ "${1:-}" = "--" ] && shift
root=$(realpath -m "$root")
case "$root/" in "$repo"/*) echo "debian13-root: $root lies inside the repository" >&2; exit 2 ;; esac
mirror=http://deb.debian.org/debian

# The Swift toolchain: swift is <toolchain>/usr/bin/swift (/opt/swift on this machine).
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
toolchain=$(dirname "$(dirname "$swift_bin")")
packages=/opt/swift-packages

# What Swift 6.3's Linux toolchain (built for Debian 12) needs at run time on Debian 13, checked
# with ldd over its binaries and by building: the C runtime and GCC's crt files and libstdc++
# headers for clang, binutils (ld.gold, the driver's default linker on Linux), libcurl, libxml2,
# libedit and sqlite (Foundation, SwiftPM), tzdata, and git for SwiftPM's dependencies.
toolchain_packages="binutils libc6-dev libgcc-14-dev libstdc++-14-dev libcurl4t64 libxml2 libedit2 libsqlite3-0 libncurses6
    pkg-config tzdata git ca-certificates"
# A C compiler (cc) builds scripts/jpeg-scans.c for the tests. (libheif's encoder plugins, which
# Debian 13 splits out of libheif1, are in README's Debian 13 line.)
debian13_packages="gcc"

make_root() {
    if [ ! -x "$root/usr/bin/apt-get" ]; then
        command -v debootstrap >/dev/null || { echo "debootstrap: apt-get install -y debootstrap" >&2; exit 2; }
        mkdir -p "$root"
        debootstrap --variant=minbase --components=main trixie "$root" "$mirror"
    fi
    cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror trixie main
deb $mirror trixie-updates main
deb http://deb.debian.org/debian-security trixie-security main
EOF
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # The README's Debian 13 install line, as written there (a user's first step; the one with
    # libheif's encoder plugins), then the toolchain's needs.
    local readme_line
    readme_line=$(grep -m1 -E '^apt-get update && apt-get install.*libheif-plugin-x265' "$repo/README.md")
    in_root env DEBIAN_FRONTEND=noninteractive sh -c "$readme_line"
    # shellcheck disable=SC2086
    in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $toolchain_packages $debian13_packages
    in_root apt-get clean
}

# Runs "$@" inside the root in a private mount namespace, the binds undone on the way out.
in_root() {
    unshare --mount --propagation private -- "$0" __inside "$root" -- "$@"
}

inside() {
    trap 'umount -R "$root$repo" "$root$packages" "$root$toolchain" "$root/sys" "$root/dev" "$root/proc" 2>/dev/null || true' EXIT
    mkdir -p "$root/proc" "$root/dev" "$root/sys" "$root$toolchain" "$root$packages" "$root$repo"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    mount --bind "$toolchain" "$root$toolchain"
    mount -o remount,bind,ro "$root$toolchain"
    if [ -d "$packages" ]; then
        mount --bind "$packages" "$root$packages"
        mount -o remount,bind,ro "$root$packages"
    fi
    mount --bind "$repo" "$root$repo"
    # The host's git mapping of github.com to the package copies (system config), and its ignores.
    : >"$root/etc/gitconfig"
    git config --system --get-regexp '^url\..*\.insteadof$' | while read -r key value; do
        git config --file "$root/etc/gitconfig" --add "$key" "$value"
    done
    git config --file "$root/etc/gitconfig" --add safe.directory '*'
    chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
        PATH="$swift_bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$repo" "$@"
}

case "$mode" in
    make)
        start=$(date +%s)
        make_root
        echo "debian13-root: $root made in $(( $(date +%s) - start )) s, $(du -sh -x "$root" | cut -f1)"
        ;;
    run)
        [ -x "$root/usr/bin/apt-get" ] || { echo "debian13-root: no root at $root; run: $0 make $root" >&2; exit 2; }
        [ $# -gt 0 ] || set -- bash
        in_root "$@"
        ;;
    __inside)
        inside "$@"
        ;;
    *)
        sed -n '2,14p' "$0" >&2
        exit 2
        ;;
esac
