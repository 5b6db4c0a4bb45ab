#!/usr/bin/env bash
# Starts `gallery` over the bundled samples and takes two screenshots of its page with headless
# Chromium (Debian's `chromium`): the placeholders alone (the page as served, its thumbnail URLs
# pointed at a closed port, so only the ThumbHashes its script decodes are painted), then the page
# itself once the thumbnails have loaded. Run by hand: `bash scripts/gallery/screenshot.sh [OUT]`
# (default /tmp/gallery-screenshots); GALLERY_BIN=path uses a gallery already built instead of a
# release build. Loopback only. It also lists the format each thumbnail is served in to
# Chromium's image `Accept` (AVIF where this libheif writes it) with its `Vary`.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-/tmp/gallery-screenshots}"
port="${GALLERY_PORT:-18080}"
mkdir -p "$out"

command -v chromium >/dev/null || {
    apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium
}
bin="${GALLERY_BIN:-}"
if [ -z "$bin" ]; then
    swift build --package-path Examples -c release --product gallery 2>&1 | tail -1
    bin="$(swift build --package-path Examples -c release --show-bin-path)/gallery"
fi

cache="$(mktemp -d)"
"$bin" --port "$port" --cache "$cache" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$cache"' EXIT
for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
    sleep 0.2
done

shoot() {  # shoot PNG URL
    timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,420 \
        --virtual-time-budget=5000 --screenshot="$1" "$2" 2>/dev/null
}

# 1. Placeholders first: what the page shows before any thumbnail has arrived.
curl -sf "http://127.0.0.1:$port/" | sed "s|src=\"/thumbnails/|src=\"http://127.0.0.1:9/thumbnails/|" >"$out/placeholders.html"
shoot "$out/placeholders.png" "file://$out/placeholders.html"
# 2. Then the thumbnails, from the live server.
shoot "$out/thumbnails.png" "http://127.0.0.1:$port/"
# 3. What the browser was sent: Chromium asks for images with this Accept.
accept="image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
curl -sf "http://127.0.0.1:$port/" | grep -o 'src="/thumbnails/[^"]*"' | sed 's/^src="//; s/"$//' |
    while read -r path; do
        printf '%s\t%s\n' "$path" "$(curl -sf -o /dev/null -D - -H "Accept: $accept" "http://127.0.0.1:$port$path" |
            tr -d '\r' | grep -i -E '^(content-type|vary):' | tr '\n' ' ')"
    done | tee "$out/formats.txt"
ls -l "$out"/*.png
