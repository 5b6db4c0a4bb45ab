#!/usr/bin/env bash
# Two gallery replicas behind an nginx cache, on loopback: the deployment README's "Behind a cache"
# describes, in one command.
#
#   scripts/proxy-replicas.sh start [--port N] [--gallery PATH] [--state DIR] [-- GALLERY ARGS...]
#   scripts/proxy-replicas.sh run   [same]      # in the foreground; Ctrl-C stops all three
#   scripts/proxy-replicas.sh stop  [--state DIR]
#
# nginx listens on 127.0.0.1:N (default 8090), the replicas on N+1 and N+2, each started as
# `gallery GALLERY-ARGS --host 127.0.0.1 --port N+i --cache STATE/cache-i` (so the same folder and
# flags for both: e.g. `-- ~/photos --jobs 2 --allow-loopback-sources`). nginx runs from a
# configuration written into STATE (default: $TMPDIR/magickio-proxy-replicas), never the system's,
# as a non-daemon child of this script (or, with `start`, in the background, its pid in STATE).
# GALLERY defaults to $GALLERY, else the release build, else the debug build of Examples/.
#
# What nginx does (STATE/nginx.conf):
# - /proxy/ and /thumbnails/ go through `proxy_cache`, the key being the URI and the request's
#   Accept: the gallery negotiates the format from Accept and says so with `Vary: Accept`, which
#   nginx passes on to clients (and honours itself for what it has cached). Each answer carries
#   `X-Cache-Status` (MISS, HIT, ...) and `X-Upstream` (the replica that made it; empty on a hit).
# - /proxy/ answers carry `Cache-Control: public, max-age=...`, which sets how long nginx keeps
#   them; /thumbnails/ answers say `no-cache` (a browser revalidates them with their ETag, since a
#   file in the folder may change), which nginx is told to ignore: it keeps them for a minute.
# - Everything else (the page, /info, /health, /metrics, uploads) passes through uncached, to
#   either replica. A replica that is down or answers 502-504 is skipped for the next.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

command="${1:-}"
[[ $# -gt 0 ]] && shift
port=8090
state="${TMPDIR:-/tmp}/magickio-proxy-replicas"
gallery="${GALLERY:-}"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --port) port="$2"; shift 2 ;;
        --state) state="$2"; shift 2 ;;
        --gallery) gallery="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "proxy-replicas: unknown option $1 (gallery's own flags go after --)" >&2; exit 2 ;;
    esac
done
args=("$@")

stop() {
    local pidfile pid
    for pidfile in "$state"/replica-*.pid "$state"/nginx.pid; do
        [[ -f "$pidfile" ]] || continue
        pid="$(cat "$pidfile")"
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$pidfile"
    done
}

case "$command" in
    stop) stop; exit 0 ;;
    start|run) ;;
    *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

if [[ -z "$gallery" ]]; then
    for config in release debug; do
        candidate="$root/Examples/.build/$config/gallery"
        if [[ -x "$candidate" ]]; then gallery="$candidate"; break; fi
    done
fi
if [[ -z "$gallery" || ! -x "$gallery" ]]; then
    echo "proxy-replicas: no gallery executable; build it (swift build --package-path Examples -c release --product gallery) or pass --gallery PATH" >&2
    exit 1
fi
nginx="$(command -v nginx || echo /usr/sbin/nginx)"
if [[ ! -x "$nginx" ]]; then
    echo "proxy-replicas: nginx is not installed (Debian: apt-get install -y --no-install-recommends nginx)" >&2
    exit 1
fi

stop  # what an earlier start left in the same STATE
mkdir -p "$state/temp"
# nginx's workers run as nobody when it is started as root: they must reach the cache and temp
# folders (nginx itself makes them and hands them over).
chmod 755 "$state"
replica_ports=($((port + 1)) $((port + 2)))

cat >"$state/nginx.conf" <<EOF
# Written by scripts/proxy-replicas.sh; nginx -c this file (not the system's configuration).
daemon off;
worker_processes 1;
pid $state/nginx.pid;
error_log $state/nginx-error.log warn;
events { worker_connections 512; }
http {
    access_log $state/nginx-access.log;
    client_body_temp_path $state/temp/body;
    proxy_temp_path $state/temp/proxy;
    fastcgi_temp_path $state/temp/fastcgi;
    uwsgi_temp_path $state/temp/uwsgi;
    scgi_temp_path $state/temp/scgi;
    client_max_body_size 64m;

    upstream gallery {
        server 127.0.0.1:${replica_ports[0]} max_fails=2 fail_timeout=5s;
        server 127.0.0.1:${replica_ports[1]} max_fails=2 fail_timeout=5s;
        keepalive 16;
    }
    proxy_cache_path $state/nginx-cache levels=1:2 keys_zone=thumbnails:10m max_size=1g inactive=1d use_temp_path=off;

    server {
        listen 127.0.0.1:$port;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host \$host;
        proxy_next_upstream error timeout http_502 http_503 http_504;
        add_header X-Upstream \$upstream_addr always;

        location / {
            proxy_pass http://gallery;
        }
        location /proxy/ {
            proxy_pass http://gallery;
            proxy_cache thumbnails;
            # The format follows Accept (Vary: Accept): one entry per URI and Accept.
            proxy_cache_key "\$request_uri|\$http_accept";
            proxy_cache_valid 200 1d;
            proxy_cache_lock on;
            proxy_cache_use_stale error timeout updating http_502 http_503 http_504;
            add_header X-Cache-Status \$upstream_cache_status always;
            add_header X-Upstream \$upstream_addr always;
        }
        location /thumbnails/ {
            proxy_pass http://gallery;
            proxy_cache thumbnails;
            proxy_cache_key "\$request_uri|\$http_accept";
            proxy_ignore_headers Cache-Control;
            proxy_cache_valid 200 1m;
            proxy_cache_lock on;
            add_header X-Cache-Status \$upstream_cache_status always;
            add_header X-Upstream \$upstream_addr always;
        }
    }
}
EOF
"$nginx" -t -q -c "$state/nginx.conf" -e "$state/nginx-error.log" 2>/dev/null \
    || "$nginx" -t -q -c "$state/nginx.conf"  # nginx before 1.19.5 has no -e

for i in 0 1; do
    setsid "$gallery" "${args[@]}" --host 127.0.0.1 --port "${replica_ports[$i]}" --cache "$state/cache-$((i + 1))" \
        >"$state/replica-$((i + 1)).log" 2>&1 &
    echo $! >"$state/replica-$((i + 1)).pid"
done
setsid "$nginx" -c "$state/nginx.conf" >"$state/nginx.log" 2>&1 &
nginx_pid=$!

# Up when each replica's /health and nginx answer.
up() {
    local p
    for p in "${replica_ports[@]}" "$port"; do
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || return 1
    done
}
for _ in $(seq 300); do
    up && break
    for i in 1 2; do
        if ! kill -0 "$(cat "$state/replica-$i.pid")" 2>/dev/null; then
            echo "proxy-replicas: replica $i exited:" >&2; tail -5 "$state/replica-$i.log" >&2; stop; exit 1
        fi
    done
    kill -0 "$nginx_pid" 2>/dev/null || { echo "proxy-replicas: nginx exited:" >&2; cat "$state/nginx.log" "$state/nginx-error.log" >&2; stop; exit 1; }
    sleep 0.1
done
up || { echo "proxy-replicas: not up after 30 s (logs in $state)" >&2; stop; exit 1; }

echo "http://127.0.0.1:$port/ (nginx; replicas on 127.0.0.1:${replica_ports[0]} and :${replica_ports[1]}; logs and cache in $state)"
if [[ "$command" == run ]]; then
    trap 'stop; exit 0' INT TERM
    wait "$nginx_pid"
    stop
fi
