"""The gallery as an image proxy against thumbor 7.8, over HTTP on loopback (see ../README.md).

`proxy_bench.py PHOTO_DIR GALLERY THUMBOR [--count 40] [--passes 10] [--connections 8] [--jobs 2]
                [--rounds 1] [--route proxy|thumbnails] [--only gallery|thumbor] [--no-quality]
                [--keep DIR] [--perf FILE] [--gallery-arg ARG]...`

PHOTO_DIR holds the 12 MP JPEGs (Benchmarks/corpus/photos); the first COUNT are copied to a
temporary folder (removed at the end, never committed). GALLERY is the `gallery` executable,
THUMBOR the `thumbor` script of a virtual environment that has thumbor 7.8 (whose Python, with
Pillow and numpy, runs this script).

- Origin: a threaded static file server on 127.0.0.1 (`proxy_bench.py origin DIR PORT`, a process
  of its own), the files held in memory, HTTP/1.1 keep-alive. It ignores every path component but
  the last, so each request can name its source by a URL of its own (`/r<n>/photo000.jpg`): no
  cache keyed by URL, in the proxy's loader or anywhere, can answer a request.
- thumbor: `thumbor --port P --processes 2 --conf thumbor.conf`, its HTTP loader, the file storage
  of originals off (`no_storage`), no result storage, JPEG quality 85 (the gallery's);
  `/unsafe/fit-in/256x256/<source URL>`.
- gallery: `--jobs 2 --allow-loopback-sources --queue 64`;
  `/proxy/unsafe/w:256/h:256/m:fit/f:jpeg/<base64url of the source URL>`. With `--route
  thumbnails` (before the proxy route existed): `GET /thumbnails/<file>?size=256` on a copy of the
  files, with its `--cache` folder replaced by a plain file once the server is up, so that every
  cache write fails (the gallery ignores that) and nothing is served from it.
- Load: CONNECTIONS threads, each with its own keep-alive connection, taking the next URL from one
  list: a warm-up pass over the COUNT files (not timed), then PASSES passes (COUNT x PASSES
  requests, each URL distinct). requests/s = requests / wall clock of the timed passes; p50 and p99
  of the per-request latencies (request sent to last byte read). Every answer must be 200 with a
  body. CPU ms a request: user + system time of the server's process tree over the timed passes,
  over the requests (the steadier figure on a shared machine). Each round also says how many
  cores other processes (not the server, the origin or this script) kept busy meanwhile, from
  /proc/stat: a round beside someone else's build is seen as such. The gallery's `--queue 64` keeps
  the 8 connections from meeting a 429 (its default queue is 2 x jobs).
- Peak RSS: the server's whole process tree (thumbor's parent and its 2 forked workers; the gallery
  and its decode worker processes), VmRSS summed over the tree every 20 ms, the largest sum; and the
  largest single process' VmHWM.
- Quality: for each file, the server's 256 px output (decoded) against Pillow's full decode resized
  to the same size with LANCZOS (Lanczos-3): PSNR over RGB, as JPEG q85 and as PNG (thumbor
  `filters:format(png)`, the proxy `f:png`: the resize before any lossy encode).
"""
import argparse
import base64
import http.client
import http.server
import io
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

# ------------------------------------------------------------------------------------------------
# The origin, a process of its own: `proxy_bench.py origin DIR PORT`.
if len(sys.argv) > 1 and sys.argv[1] == "origin":
    folder, port = sys.argv[2], int(sys.argv[3])
    files = {name: open(os.path.join(folder, name), "rb").read() for name in os.listdir(folder)}

    class Origin(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = files.get(self.path.split("?")[0].rsplit("/", 1)[-1])
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    http.server.ThreadingHTTPServer.daemon_threads = True
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Origin).serve_forever()
    sys.exit(0)

import numpy as np  # noqa: E402 (the origin needs neither)
from PIL import Image  # noqa: E402

Image.MAX_IMAGE_PIXELS = None
HERE = os.path.abspath(__file__)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(port, path, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", path)
            r = c.getresponse()
            r.read()
            c.close()
            if r.status < 500:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"nothing answers on 127.0.0.1:{port}{path}")


def tree(pid):
    """pid and its descendants, from /proc/*/stat."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_seconds(pid):
    """User + system CPU of the process tree, with what its members reaped (utime, stime, cutime, cstime)."""
    ticks = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += sum(int(x) for x in fields[11:15])
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds():
    """CPU time the whole machine spent busy (all cores), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class RSSSampler(threading.Thread):
    """The largest VmRSS summed over the process tree, and the largest VmHWM of one process in it."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak_sum, self.peak_one, self.most = pid, 0, 0, 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            pids = tree(self.pid)
            self.peak_sum = max(self.peak_sum, sum(status_kib(p, "VmRSS") for p in pids))
            self.peak_one = max([self.peak_one] + [status_kib(p, "VmHWM") for p in pids])
            self.most = max(self.most, len(pids))
            self.stop.wait(0.02)


def load(port, urls, connections, headers=None):
    """Sends the URLs over `connections` keep-alive connections; returns (wall s, latencies s)."""
    lock, latencies, failures = threading.Lock(), [], []
    todo = iter(list(enumerate(urls)))

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while True:
            with lock:
                item = next(todo, None)
            if item is None:
                break
            _, url = item
            start = time.perf_counter()
            try:
                conn.request("GET", url, headers=headers or {})
                response = conn.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as error:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                with lock:
                    failures.append(f"{url}: {error}")
                continue
            elapsed = time.perf_counter() - start
            with lock:
                if response.status != 200 or not body:
                    failures.append(f"{url}: {response.status} {body[:200]!r}")
                latencies.append(elapsed)
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    if failures:
        raise RuntimeError(f"{len(failures)} request(s) failed, first: {failures[0]}")
    return wall, latencies


def fetch(port, url, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", url, headers=headers or {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"{url}: {response.status} {body[:300]!r}")
    return response, body


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


class Server:
    """A server under test: how to start it and the URL of a file for it."""

    def __init__(self, name, argv, port, health, url, env=None, after_start=None):
        self.name, self.argv, self.port, self.health, self.url = name, argv, port, health, url
        self.env, self.after_start, self.process = env, after_start, None

    def start(self, log):
        self.process = subprocess.Popen(self.argv, stdout=log, stderr=log, env=dict(os.environ, **(self.env or {})),
                                        start_new_session=True)
        wait_http(self.port, self.health)
        if self.after_start:
            self.after_start()

    def stop(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("photos")
    ap.add_argument("gallery")
    ap.add_argument("thumbor")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--passes", type=int, default=10)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1, help="alternating rounds; the median of each server's")
    ap.add_argument("--route", choices=["proxy", "thumbnails"], default="proxy")
    ap.add_argument("--only", choices=["gallery", "thumbor"])
    ap.add_argument("--no-quality", action="store_true")
    ap.add_argument("--gallery-arg", action="append", default=[], metavar="ARG",
                    help="one more argument for the gallery (repeatable), e.g. --gallery-arg=--isolation=in-process")
    ap.add_argument("--keep", help="leave the servers' logs and outputs in this folder")
    ap.add_argument("--perf", metavar="FILE", help="`perf record -g` of the gallery's process tree (999 Hz) into FILE "
                    "during its timed passes of the first round: `perf report -i FILE --sort pid,dso`")
    args = ap.parse_args()

    work = args.keep or tempfile.mkdtemp(prefix="magickio-proxy-bench-")
    os.makedirs(work, exist_ok=True)
    photos = sorted(f for f in os.listdir(args.photos) if f.lower().endswith(".jpg"))[: args.count]
    if len(photos) < args.count:
        sys.exit(f"{args.photos} has {len(photos)} JPEGs, fewer than --count {args.count}")
    files = os.path.join(work, "files")
    os.makedirs(files, exist_ok=True)
    for name in photos:
        shutil.copyfile(os.path.join(args.photos, name), os.path.join(files, name))

    origin_port, thumbor_port, gallery_port = free_port(), free_port(), free_port()
    origin = subprocess.Popen([sys.executable, HERE, "origin", files, str(origin_port)])
    wait_http(origin_port, "/" + photos[0])

    def source(n, name):
        return f"http://127.0.0.1:{origin_port}/r{n}/{name}"

    conf = os.path.join(work, "thumbor.conf")
    with open(conf, "w") as f:
        f.write("LOADER = 'thumbor.loaders.http_loader'\n"
                "STORAGE = 'thumbor.storages.no_storage'\n"   # originals not kept
                "RESULT_STORAGE = None\n"                      # results not kept
                "ALLOW_UNSAFE_URL = True\n"
                "ALLOWED_SOURCES = []\n"
                "QUALITY = 85\n"
                "AUTO_WEBP = False\n")
    thumbor = Server(
        "thumbor 7.8", [args.thumbor, "--ip", "127.0.0.1", "--port", str(thumbor_port), "--processes", str(args.jobs),
                        "--conf", conf, "--log-level", "error"],
        thumbor_port, "/healthcheck",
        lambda n, name, png=False: f"/unsafe/fit-in/256x256/{'filters:format(png)/' if png else ''}{source(n, name)}")

    cache = os.path.join(work, "gallery-cache")
    if args.route == "proxy":
        def gallery_url(n, name, png=False):
            encoded = base64.urlsafe_b64encode(source(n, name).encode()).decode().rstrip("=")
            return f"/proxy/unsafe/w:256/h:256/m:fit/f:{'png' if png else 'jpeg'}/{encoded}"
        extra, after = ["--allow-loopback-sources", "--queue", "64"], None
    else:
        def gallery_url(n, name, png=False):
            if png:
                raise ValueError("/thumbnails/ writes no PNG")
            return f"/thumbnails/{name}?size=256"

        def after():  # every cache write fails from now on: nothing is served from the cache
            shutil.rmtree(cache)
            open(cache, "w").close()
        extra = []
    gallery = Server("MagickIO gallery", [args.gallery, files, "--host", "127.0.0.1", "--port", str(gallery_port),
                                          "--jobs", str(args.jobs), "--cache", cache, *extra, *args.gallery_arg],
                     gallery_port, "/health", gallery_url, after_start=after)
    gallery.short, thumbor.short = "gallery", "thumbor"
    servers = [s for s in (gallery, thumbor) if not args.only or s.short == args.only]

    n_requests = args.count * args.passes
    print(f"# proxy benchmark: {args.count} x 12 MP JPEG -> 256 px fit, {n_requests} requests over "
          f"{args.connections} connections, {args.rounds} round(s)")
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average at start "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; route {args.route}", flush=True)
    results = {s.name: [] for s in servers}
    counter = [0]

    def urls(server, passes):
        out = []
        for _ in range(passes):
            counter[0] += 1
            out.extend(server.url(counter[0], name) for name in photos)
        return out

    quality = {}
    try:
        for r in range(args.rounds):
            for server in (servers if r % 2 == 0 else servers[::-1]):
                with open(os.path.join(work, f"{server.short}.log"), "a") as log:
                    server.start(log)
                    sampler = RSSSampler(server.process.pid)
                    sampler.start()
                    try:
                        load(server.port, urls(server, 1), args.connections)  # warm-up
                        load_before = os.getloadavg()[0]
                        perf = None
                        if args.perf and r == 0 and server is gallery:
                            pids = ",".join(str(p) for p in tree(server.process.pid))  # its decode workers are up
                            perf = subprocess.Popen(["perf", "record", "-q", "-F", "999", "-g", "-p", pids, "-o", args.perf],
                                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                            time.sleep(1)
                        def ours():  # the server, the origin and this script (the client)
                            t = os.times()
                            return cpu_seconds(server.process.pid) + cpu_seconds(origin.pid) + t.user + t.system
                        cpu_before, ours_before, busy_before = cpu_seconds(server.process.pid), ours(), machine_busy_seconds()
                        wall, lat = load(server.port, urls(server, args.passes), args.connections)
                        cpu = (cpu_seconds(server.process.pid) - cpu_before) / len(lat) * 1000
                        others = max(0.0, (machine_busy_seconds() - busy_before) - (ours() - ours_before)) / wall
                        if perf:
                            perf.send_signal(signal.SIGINT)
                            perf.wait()
                        lat.sort()
                        row = dict(rps=len(lat) / wall, p50=lat[len(lat) // 2] * 1000,
                                   p99=lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
                                   rss=sampler.peak_sum / 1024, one=sampler.peak_one / 1024, procs=sampler.most,
                                   load=load_before, cpu=cpu, others=others)
                        results[server.name].append(row)
                        print(f"  {server.name} round {r + 1}: {row['rps']:.1f} req/s, p50 {row['p50']:.0f} ms, "
                              f"p99 {row['p99']:.0f} ms, CPU {row['cpu']:.1f} ms a request, peak RSS {row['rss']:.0f} MiB summed over "
                              f"{row['procs']} processes (largest one {row['one']:.0f} MiB), load {load_before:.2f}, "
                              f"other processes {row['others']:.2f} cores",
                              flush=True)
                        if r == 0 and not args.no_quality:
                            quality[server.name] = measure_quality(server, files, photos, work, args.route)
                    finally:
                        sampler.stop.set()
                        server.stop()
    finally:
        origin.terminate()
        origin.wait()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    print()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average at the end "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print("| server | requests/s | p50 ms | p99 ms | CPU ms a request | peak RSS MiB (tree summed; largest process) | PSNR dB JPEG q85 min / mean | PSNR dB PNG min / mean |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    med = {}
    for server in servers:
        rows = results[server.name]
        m = {k: statistics.median(row[k] for row in rows) for k in ("rps", "p50", "p99", "cpu", "rss", "one")}
        med[server.name] = m
        q = quality.get(server.name, {})
        print(f"| {server.name} | {m['rps']:.1f} | {m['p50']:.0f} | {m['p99']:.0f} | {m['cpu']:.1f} | {m['rss']:.0f} ({max(r['procs'] for r in rows)} processes); "
              f"{m['one']:.0f} | {q.get('jpeg', '–')} | {q.get('png', '–')} |")
    if len(servers) == 2:
        g, t = med[gallery.name], med[thumbor.name]
        print(f"| gallery / thumbor | **{g['rps'] / t['rps']:.2f}x** | {g['p50'] / t['p50']:.2f}x | {g['p99'] / t['p99']:.2f}x "
              f"| {g['cpu'] / t['cpu']:.2f}x | {g['rss'] / t['rss']:.2f}x; {g['one'] / t['one']:.2f}x | | |")
        met = g["rps"] >= 1.2 * t["rps"] and g["p99"] < t["p99"] and g["rss"] < t["rss"]
        print()
        print(f"Target (issue 31: >= 1.2x requests/s, lower p99, lower peak RSS): {'met' if met else 'not met'}")


def measure_quality(server, files, photos, work, route):
    """PSNR min / mean of the server's outputs, as JPEG and as PNG, against Pillow LANCZOS."""
    out = {}
    for kind in ("jpeg", "png"):
        if kind == "png" and route == "thumbnails" and "gallery" in server.name:
            continue
        scores = []
        for name in photos:
            _, body = fetch(server.port, server.url(10_000 + len(scores), name, png=(kind == "png")))
            got = Image.open(io.BytesIO(body)).convert("RGB")
            with Image.open(os.path.join(files, name)) as im:
                ref = im.convert("RGB").resize(got.size, Image.Resampling.LANCZOS)
            scores.append(psnr(np.asarray(got), np.asarray(ref)))
        out[kind] = f"{min(scores):.1f} / {statistics.mean(scores):.1f} ({got.size[0]}x{got.size[1]})"
    return out


if __name__ == "__main__":
    main()
