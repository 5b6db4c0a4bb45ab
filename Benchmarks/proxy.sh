#!/usr/bin/env bash
# The gallery as an image proxy against thumbor 7.8, over HTTP on loopback (see README.md, "Image
# proxy"): `bash Benchmarks/proxy.sh [PHOTO_DIR] [proxy_bench.py options...]`.
# Installs thumbor 7.8 (and numpy) from PyPI into Benchmarks/.venv-thumbor (gitignored), builds the
# gallery in release and runs scripts/proxy_bench.py on the first 40 photos of PHOTO_DIR (default
# Benchmarks/corpus/photos, which `bash Benchmarks/run.sh` makes once).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
photos="$here/corpus/photos"
if [[ $# -gt 0 && "$1" != --* ]]; then photos="$1"; shift; fi
if [[ ! -d "$photos" ]]; then
    echo "no $photos: make the corpus once with bash Benchmarks/run.sh (or name a folder of 12 MP JPEGs)" >&2
    exit 1
fi

venv="$here/.venv-thumbor"
if ! "$venv/bin/python" -c 'import thumbor, numpy, PIL; assert thumbor.__version__.startswith("7.8")' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q "thumbor==7.8.*" numpy
fi

echo "== building the gallery (release)"
swift build --package-path "$root/Examples" -c release --product gallery 2>&1 | tail -1
gallery="$(swift build --package-path "$root/Examples" -c release --show-bin-path)/gallery"

route=proxy
"$gallery" --help 2>&1 | grep -q -- "--allow-loopback-sources" || route=thumbnails  # before the proxy route
echo "== running (route /$route/)"
"$venv/bin/python" "$here/scripts/proxy_bench.py" "$photos" "$gallery" "$venv/bin/thumbor" --route "$route" "$@"
