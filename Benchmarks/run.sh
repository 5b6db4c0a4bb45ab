#!/usr/bin/env bash
# The side-by-side benchmark in one command: `bash Benchmarks/run.sh [--quick]` (see README.md).
# Installs what is missing, builds MagickIO's `thumbnail` and the benchmark tools in release, makes
# the corpus in Benchmarks/corpus (once), runs every contender and writes Benchmarks/results/latest.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
quick=""
[[ "${1:-}" == "--quick" ]] && quick="--quick"

# Tools: Debian packages, then a virtual environment (Benchmarks/.venv, gitignored) with pyvips and
# the pyvips-binary wheel (libvips 8.18, the baseline), Pillow and numpy from PyPI. Debian's own
# libvips 8.14 runs as `vipsthumbnail`.
if ! command -v vipsthumbnail >/dev/null || ! command -v djpeg >/dev/null || [[ ! -x /usr/bin/convert ]] \
    || [[ ! -x /usr/bin/time ]] || ! python3 -c 'import venv, ensurepip' 2>/dev/null || ! command -v heif-enc >/dev/null \
    || ! command -v exiftool >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends libvips-tools libjpeg-turbo-progs imagemagick python3-venv time \
        libheif-examples libimage-exiftool-perl
fi
python="$here/.venv/bin/python"
if ! "$python" -c 'import pyvips, PIL, numpy; assert pyvips.version(0) * 100 + pyvips.version(1) >= 818' 2>/dev/null; then
    python3 -m venv "$here/.venv"
    "$python" -m pip install -q --upgrade pyvips pyvips-binary Pillow numpy
fi

# Builds. A build can trip over sources edited while it runs, or over a file list that changed
# since the last one: retry, forgetting the cached build description.
build() {  # build DIR ARGS...
    local dir="$1" log; shift
    log="$(mktemp)"
    for attempt in 1 2 3; do
        if (cd "$dir" && swift build -c release "$@" >"$log" 2>&1); then
            tail -1 "$log"; rm -f "$log"; return 0
        fi
        grep -E "error" "$log" | head -3
        rm -f "$dir/.build/release.yaml" "$dir"/.build/*/release/description.json
        sleep 5
    done
    return 1
}
echo "== building"
build "$root" --product thumbnail
build "$here"
thumbnail="$(cd "$root" && swift build -c release --show-bin-path)/thumbnail"
bin="$(cd "$here" && swift build -c release --show-bin-path)"

echo "== corpus (Benchmarks/corpus, reused when complete)"
count=200; [[ -n "$quick" ]] && count=20
"$python" "$here/scripts/make_corpus.py" "$here/corpus" "$count"

echo "== running"
"$python" "$here/scripts/bench.py" "$here/corpus" "$here/results" "$thumbnail" "$bin/inprocess" "$bin/stages" $quick
echo "== written to Benchmarks/results/latest.md"
