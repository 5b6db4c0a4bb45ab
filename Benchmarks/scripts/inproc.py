"""In-process timing for pyvips and Pillow, like the Swift `inprocess` tool:
`inproc.py vips|pillow MAX REPEAT jpeg|png FILE`. One untimed warm-up, then REPEAT timed runs of
open + thumbnail + encode to memory; prints `median_ms WxH` (interpreter start-up excluded).
pyvips: Image.thumbnail(path, MAX) with libvips' own threads and its operation cache off.
"""
import statistics
import sys
import time

lib, size, repeat, fmt, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]

if lib == "vips":
    import pyvips

    pyvips.cache_set_max(0)  # else the second run would be a cache hit

    def run():
        im = pyvips.Image.thumbnail(path, size)
        im.write_to_buffer(".jpg[Q=85,strip]" if fmt == "jpeg" else ".png[strip]")
        return im.width, im.height
else:
    import pillow_thumb

    def run():
        return pillow_thumb.thumbnail(path, size, fmt)[1]

run()
times = []
for _ in range(repeat):
    start = time.perf_counter()
    w, h = run()
    times.append((time.perf_counter() - start) * 1000)
print(f"{statistics.median(times):.1f} {w}x{h}")
