#!/usr/bin/env bash
# Runs scripts/proxy-replicas.sh on loopback (two gallery replicas on the bundled samples, nginx's
# cache in front) and checks what a client of it sees: a first request is a MISS and its repeat a
# HIT served by nginx, `Vary: Accept` reaches the client, another Accept gets an entry (and a
# format) of its own, and both replicas made thumbnails. Through /thumbnails/ and, when the
# gallery has it, /proxy/unsafe/... (its sources served by a Python file server on 127.0.0.1).
#
#   scripts/test-proxy-replicas.sh [--gallery PATH]    (needs nginx, curl and python3)
#
# .ci/run calls it after the gallery's own tests, with the debug build they made.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gallery="${GALLERY:-}"
[[ "${1:-}" == "--gallery" ]] && gallery="$2"
if [[ -z "$gallery" ]]; then
    for config in debug release; do
        [[ -x "$root/Examples/.build/$config/gallery" ]] && { gallery="$root/Examples/.build/$config/gallery"; break; }
    done
fi
[[ -x "$gallery" ]] || { echo "test-proxy-replicas: build the gallery first (swift build --package-path Examples)" >&2; exit 1; }

state="$(mktemp -d "${TMPDIR:-/tmp}/magickio-replicas-test.XXXXXX")"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
while ss -ltn 2>/dev/null | grep -qE "127.0.0.1:($((port + 1))|$((port + 2))) "; do port=$((port + 3)); done
samples="$root/Examples/thumbnail/Samples"
origin_pid=""
cleanup() {
    local status=$?
    if [[ $status -ne 0 ]]; then  # what the servers said, before their folder goes
        for log in "$state"/*.log "$state"/*/*.log; do
            [[ -f "$log" ]] && { echo "--- $log"; tail -20 "$log"; }
        done
    fi
    bash "$root/scripts/proxy-replicas.sh" stop --state "$state" || true
    [[ -n "$origin_pid" ]] && kill "$origin_pid" 2>/dev/null || true
    rm -rf "$state"
}
trap cleanup EXIT

proxy=""
if grep -q -- "--allow-loopback-sources" <<<"$("$gallery" --help 2>&1)"; then
    proxy=yes
    origin_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    python3 -m http.server --bind 127.0.0.1 --directory "$samples" "$origin_port" >"$state/origin.log" 2>&1 &
    origin_pid=$!
fi

bash "$root/scripts/proxy-replicas.sh" start --port "$port" --state "$state" --gallery "$gallery" -- \
    "$samples" --jobs 1 ${proxy:+--allow-loopback-sources}
base="http://127.0.0.1:$port"

passed=0 failed=0
check() {  # check NAME CONDITION...
    local name="$1"; shift
    if "$@"; then
        passed=$((passed + 1)); echo "ok: $name"
    else
        failed=$((failed + 1)); echo "FAILED: $name" >&2
    fi
}
# get URL ACCEPT: the answer's headers, lowercased names, into $headers; the status into $status.
get() {
    headers="$(curl -sS -D - -o /dev/null -H "Accept: $2" "$base$1" | tr -d '\r')"
    status="$(head -1 <<<"$headers" | awk '{print $2}')"
}
header() { grep -i "^$1:" <<<"$headers" | head -1 | cut -d' ' -f2- || true; }
is() { [[ "$1" == "$2" ]] || { echo "  got '$1', wanted '$2'" >&2; return 1; }; }
has() { [[ "$1" == *"$2"* ]] || { echo "  got '$1', wanted it to hold '$2'" >&2; return 1; }; }

upstreams=""
route() {  # route NAME PATH-OF-A-THUMBNAIL
    local name="$1" path="$2"
    get "$path" "image/jpeg"
    check "$name: first request 200" is "$status" 200
    check "$name: first request is a MISS" is "$(header x-cache-status)" MISS
    check "$name: Vary: Accept reaches the client" is "$(header vary)" Accept
    check "$name: ETag" has "$(header etag)" '"'
    upstreams+=" $(header x-upstream)"
    get "$path" "image/jpeg"
    check "$name: the repeat is a HIT (nginx)" is "$(header x-cache-status)" HIT
    check "$name: the repeat says Vary: Accept" is "$(header vary)" Accept
    check "$name: the repeat is image/jpeg" is "$(header content-type)" image/jpeg
    check "$name: no replica on a HIT" is "$(header x-upstream)" ""
    get "$path" "image/webp,image/*;q=0.8"
    check "$name: another Accept is a MISS (an entry of its own)" is "$(header x-cache-status)" MISS
    check "$name: ... and gets WebP" is "$(header content-type)" image/webp
    upstreams+=" $(header x-upstream)"
    get "$path" "image/webp,image/*;q=0.8"
    check "$name: its repeat is a HIT" is "$(header x-cache-status)" HIT
    check "$name: ... still WebP" is "$(header content-type)" image/webp
    get "$path" "image/jpeg"
    check "$name: the JPEG entry is still a HIT" is "$(header x-cache-status)" HIT
    check "$name: ... and still JPEG" is "$(header content-type)" image/jpeg
}

route "/thumbnails/" "/thumbnails/landscape.jpg?size=96"
if [[ -n "$proxy" ]]; then
    source="$(printf 'http://127.0.0.1:%s/portrait.jpg' "$origin_port" | base64 -w0 | tr '+/' '-_' | tr -d '=')"
    route "/proxy/" "/proxy/unsafe/w:96/h:96/$source"
else
    echo "skipped: /proxy/ (this gallery has no --allow-loopback-sources: no proxy route yet)"
fi
# A few more misses: round robin over the two replicas.
for size in 64 65 66 67; do
    get "/thumbnails/portrait.jpg?size=$size" "image/jpeg"
    upstreams+=" $(header x-upstream)"
done
first="$(grep -cE "127\.0\.0\.1:$((port + 1))( |$)" <<<"${upstreams// /$'\n'}" || true)"
second="$(grep -cE "127\.0\.0\.1:$((port + 2))( |$)" <<<"${upstreams// /$'\n'}" || true)"
check "both replicas made thumbnails (misses: $first and $second)" test "$first" -gt 0 -a "$second" -gt 0
get "/health" "*/*"
check "/health passes through, uncached" is "$status/$(header x-cache-status)" "200/"

echo "replicas: $passed passed, $failed failed"
[[ "$failed" -eq 0 ]]
