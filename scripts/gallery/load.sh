#!/usr/bin/env bash
# The gallery under load, on loopback, bounded in time: `bash scripts/gallery/load.sh [SECONDS]`
# (default 20 a run). Run by hand, never in CI. Needs Debian's wrk and Python's Pillow and numpy
# (installed when missing). Builds gallery in release, makes the corpus in /tmp/gallery-load
# (reused), then with wrk at 32 and 128 connections: uncached thumbnails of mixed sizes, cached
# ones, uploads (30% hostile: a bomb's header, text); then imgproxy's benchmark shape (a 29 MB
# 7360x4912 JPEG fitted to about 500 px) at 2 and 4 connections. For each run: requests/s, p50
# and p99 latency, the responses by status, wrk's socket errors (connect/read/write/timeout) and
# the server's peak RSS during the run (VmHWM, reset before each run). At the end: the server
# alive, its RSS against its baseline plus its memory budget.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-20}"
work=/tmp/gallery-load
port="${GALLERY_PORT:-18081}"
budget_mib=256
here=scripts/gallery

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends wrk; }
python3 -c 'import PIL, numpy' 2>/dev/null || python3 -m pip install -q Pillow numpy
python3 "$here/make_load_corpus.py" "$work"
swift build --package-path Examples -c release --product gallery 2>&1 | tail -1
bin="$(swift build --package-path Examples -c release --show-bin-path)/gallery"

cache="$work/cache"
rm -rf "$cache"
"$bin" "$work/images" --port "$port" --cache "$cache" --memory-budget "$budget_mib" 2>"$work/server.log" &
pid=$!
anchor_pid=""
trap 'kill $pid $anchor_pid 2>/dev/null || true' EXIT
wait_up() { for _ in $(seq 100); do curl -sf "http://127.0.0.1:$1/health" >/dev/null && return 0; sleep 0.2; done; return 1; }
wait_up "$port"

(cd "$work/images" && ls) >"$work/paths.txt"
echo anchor.jpg >"$work/anchor-paths.txt"
curl -sf "http://127.0.0.1:$port/" >/dev/null   # the page: every placeholder made
rss() { awk "/^$2:/ {print int(\$2 / 1024)}" "/proc/$1/status"; }
baseline=$(rss "$pid" VmRSS)
echo "baseline RSS ${baseline} MiB (after the page), memory budget ${budget_mib} MiB, ${seconds} s a run"
echo
printf "%-10s %5s %9s %9s %9s %8s  %-28s %s\n" run conns "req/s" "p50 ms" "p99 ms" "peak MiB" statuses "socket errors c/r/w/t"

run() {  # run PID PORT NAME CONNECTIONS MODE LIST [UPLOADS]
    local server=$1 p=$2 name=$3 connections=$4; shift 4
    echo 5 >"/proc/$server/clear_refs"   # resets VmHWM to the current RSS
    local line
    line=$(wrk -t2 -c"$connections" -d"${seconds}s" --timeout 60s -s "$here/load.lua" "http://127.0.0.1:$p" -- "$@" \
        | grep '^RESULT')
    local peak; peak=$(rss "$server" VmHWM)
    # shellcheck disable=SC2086
    eval "$(echo "${line#RESULT }" | tr ' ' '\n' | sed 's/^/local /')"
    printf "%-10s %5s %9s %9s %9s %8s  %-28s %s\n" "$name" "$connections" "$rps" "$p50_ms" "$p99_ms" "$peak" "$statuses" "$socket_errors"
    if echo "$statuses" | grep -qE '(^|,)5[0-9][0-9]:'; then echo "  ^ 5xx responses" >&2; fi
}

for connections in 32 128; do
    rm -rf "${cache:?}"/*
    run "$pid" "$port" uncached "$connections" uncached "$work/paths.txt"
    for path in $(cat "$work/paths.txt"); do curl -sf -o /dev/null "http://127.0.0.1:$port/thumbnails/$path?size=256"; done
    run "$pid" "$port" cached "$connections" cached "$work/paths.txt"
    run "$pid" "$port" upload "$connections" upload "$work/paths.txt" "$work/uploads"
done

kill -0 "$pid" && curl -sf "http://127.0.0.1:$port/health" >/dev/null && echo "server alive after the runs"
after=$(rss "$pid" VmRSS)
echo "RSS after the runs ${after} MiB: baseline ${baseline} + budget ${budget_mib} = $((baseline + budget_mib)) MiB ->" \
    "$([[ $after -le $((baseline + budget_mib)) ]] && echo within || echo OVER)"
echo "server log lines: $(wc -l <"$work/server.log")"
kill "$pid"; wait "$pid" 2>/dev/null || true

# imgproxy's published shape: 29 MB 7360x4912 JPEG -> 500 px (9.7 req/s on 4 vCPU), a server of
# its own over that one file, every request a new size of the same DCT scale (none cached).
"$bin" "$work/anchor" --port $((port + 1)) --cache "$work/anchor-cache" --memory-budget "$budget_mib" 2>/dev/null &
anchor_pid=$!
wait_up $((port + 1))
rm -rf "$work/anchor-cache"/*
ls -l "$work/anchor/anchor.jpg" | awk '{printf "anchor: %s bytes\n", $5}'
for connections in 2 4; do
    run "$anchor_pid" $((port + 1)) anchor "$connections" anchor "$work/anchor-paths.txt"
done
