#!/usr/bin/env bash
# Unwritten pixels: makes each file's thumbnail twice, with glibc's malloc filling what it hands
# out with two different bytes (MALLOC_PERTURB_, inherited by the decode workers), and reports
# every file whose two thumbnails differ: a decoder that left part of its picture unwritten shows
# what the heap held there, in a worker that has served other files their pixels. (How
# libde265's cut-short slices were confirmed; HeapScrub covers those.) glibc's small-chunk cache
# is not perturbed, so a clean run bounds what is left to pictures of a few hundred bytes a plane.
#
#   bash scripts/perturb-sweep.sh [--thumbnail PATH] [--jobs N] DIR-OR-FILE...
#
# Default tool: .build/release/thumbnail (swift build -c release --product thumbnail). Prints one
# line per differing file (DIFF rc|pixels FILE), then the counts and where the differing files'
# two thumbnails are kept (WORK/17/ and WORK/238/); exits 1 when any differ.
set -euo pipefail
tool=".build/release/thumbnail"
jobs=2
while [ $# -gt 0 ]; do
    case "$1" in
        --thumbnail) tool="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { sed -n 2,13p "$0"; exit 2; }
[ -x "$tool" ] || { echo "perturb-sweep: no $tool (swift build -c release --product thumbnail)" >&2; exit 2; }
tool="$(readlink -f "$tool")"
work="$(mktemp -d)"

one() {
    local file="$1" tool="$2" work="$3" name outputs=()
    name="$(printf '%s' "$file" | md5sum | cut -c1-16)"
    for byte in 17 238; do
        local out="$work/$byte/$name"
        mkdir -p "$out"
        MALLOC_PERTURB_=$byte timeout 60 "$tool" "$file" --format png --max-pixel-size 128 --output "$out" --jobs 1 \
            >/dev/null 2>&1 && echo 0 > "$out/rc" || echo $? > "$out/rc"
    done
    local a="$work/17/$name" b="$work/238/$name"
    if ! cmp -s "$a/rc" "$b/rc"; then echo "DIFF rc $file"; return; fi
    local pa pb
    pa="$(find "$a" -name '*.png' | head -1)"; pb="$(find "$b" -name '*.png' | head -1)"
    if [ -z "$pa$pb" ]; then echo "SAME"; return; fi
    if [ -n "$pa" ] && [ -n "$pb" ] && cmp -s "$pa" "$pb"; then echo "SAME"; rm -rf "$a" "$b"; else echo "DIFF pixels $file"; fi
}
export -f one
find "$@" -type f -print0 | xargs -0 -P "$jobs" -I{} bash -c 'one "$1" "$2" "$3"' _ {} "$tool" "$work" > "$work/results"
grep '^DIFF' "$work/results" || true
echo "$(grep -c '^SAME' "$work/results" || true) same, $(grep -c '^DIFF' "$work/results" || true) differ"
if grep -q '^DIFF' "$work/results"; then echo "their thumbnails: $work/17/ and $work/238/"; exit 1; fi
rm -rf "$work"
