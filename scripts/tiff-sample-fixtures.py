#!/usr/bin/env python3
"""Writes the fixtures of issue 30's TIFF classes, where ImageMagick 6.9.11's TIFF coder decodes
wrongly and MagickIO reads the samples itself (TIFFRows, libtiff's RGBA interface for YCbCr):

  tiff-ycbcr22-deflate.tif    YCbCr 2x2 subsampled, deflate, 16 rows a strip
  tiff-ycbcr22-unknown-tag.tif  the same with a tag libtiff warns about (65000)
  tiff-ycbcr21-tiled.tif      YCbCr 2x1 subsampled, uncompressed, 16x16 tiles
  tiff-ojpeg.tif              old-style JPEG (Compression 6), YCbCr 2x2, one strip: the JPEG is
                              ImageMagick's `convert` output (the only tool this script runs)
  tiff-rgb24-be.tif           RGB, 24 bits a sample, big-endian ("MM")
  tiff-grey-int8.tif          grey, signed 8-bit (SampleFormat 2)
  tiff-grey-int16.tif         grey, signed 16-bit
  tiff-rgb-float32.tif        RGB, 32-bit IEEE float, deflate with the floating-point predictor
  tiff-rgba-float32.tif       RGBA (ExtraSamples 2, unassociated), 32-bit float, the right half
                              half transparent
  tiff-rgb-float64.tif        RGB, 64-bit float
  tiff-grey-float16.tif       grey, 16-bit (half) float
  tiff-grey-uint64.tif        grey, 64-bit unsigned: no decoder MagickIO has reads it

Every picture is 64x48 in four quadrants of one colour each (QUADRANTS; the float ones as libvips
and Pillow read floats, with one quadrant out of range: GREY_FLOATS, RGB_FLOATS).

Usage: scripts/tiff-sample-fixtures.py [FIXTURE_DIR]  (default Tests/MagickIOTests/Fixtures)
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 64, 48
# Top left, top right, bottom left, bottom right.
QUADRANTS = [(200, 40, 40), (40, 180, 60), (50, 60, 200), (220, 200, 80)]
# Grey floats (the red of each quadrant, 0-255 as libvips and Pillow read them): the bottom right
# out of range, clipped to white.
GREY_FLOATS = [200.0, 40.0, 50.0, 300.0]
# RGB floats, scRGB as libvips reads them (linear light, 1.0 white): the quadrants' colours, the
# bottom right out of range (libvips: 255, 0, 188); alpha 0-255, the right half 127.5.
def linear(c):
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
RGB_FLOATS = [tuple(linear(c) for c in q) for q in QUADRANTS[:3]] + [(1.5, -0.2, 0.5)]
# Grey levels, signed: the top right negative (clipped to 0).
INT_GREYS = [100, -60, 20, 127]


def quadrant(x, y):
    return (0 if x < WIDTH // 2 else 1) + (0 if y < HEIGHT // 2 else 2)


def tiff(path, rows, bits, samples, fmt=1, photometric=None, compression=1, predictor=1,
         extra=(), endian="<", tile=None, rows_per_strip=16, more=()):
    """Writes one page: `rows(y0, y1, x0, x1)` gives the stored bytes of a block (already in file
    byte order); `more`: (tag, type, values) entries to add."""
    photometric = photometric if photometric is not None else (2 if samples >= 3 else 1)
    data = bytearray((b"II*\0" if endian == "<" else b"MM\0*") + bytes(4))
    offsets, counts = [], []

    def block(raw):
        if compression == 8:
            raw = zlib.compress(raw, 9)
        offsets.append(len(data))
        counts.append(len(raw))
        data.extend(raw)
        if len(data) % 2:
            data.append(0)

    if tile:
        for ty in range(0, HEIGHT, tile[1]):
            for tx in range(0, WIDTH, tile[0]):
                block(rows(ty, ty + tile[1], tx, tx + tile[0]))
    else:
        for y in range(0, HEIGHT, rows_per_strip):
            block(rows(y, min(y + rows_per_strip, HEIGHT), 0, WIDTH))
    entries = []
    kinds = {3: "H", 4: "I", 5: "I"}

    def put(tag, kind, values):
        packed = struct.pack(endian + "%d%s" % (len(values) * (2 if kind == 5 else 1), kinds[kind]),
                             *[v for value in values for v in (value if kind == 5 else (value,))])
        if len(packed) <= 4:
            entries.append((tag, kind, len(values), packed.ljust(4, b"\0")))
        else:
            at = len(data)
            data.extend(packed)
            entries.append((tag, kind, len(values), struct.pack(endian + "I", at)))

    put(256, 4, [WIDTH])
    put(257, 4, [HEIGHT])
    put(258, 3, [bits] * samples)
    put(259, 3, [compression])
    put(262, 3, [photometric])
    put(277, 3, [samples])
    put(284, 3, [1])
    if tile:
        put(322, 3, [tile[0]])
        put(323, 3, [tile[1]])
        put(324, 4, offsets)
        put(325, 4, counts)
    else:
        put(273, 4, offsets)
        put(278, 4, [rows_per_strip])
        put(279, 4, counts)
    if predictor != 1:
        put(317, 3, [predictor])
    if extra:
        put(338, 3, list(extra))
    if fmt != 1:
        put(339, 3, [fmt] * samples)
    for tag, kind, values in more:
        put(tag, kind, values)
    entries.sort()
    ifd = len(data)
    data.extend(struct.pack(endian + "H", len(entries)))
    for tag, kind, count, value in entries:
        data.extend(struct.pack(endian + "HHI", tag, kind, count) + value)
    data.extend(bytes(4))
    struct.pack_into(endian + "I", data, 4, ifd)
    with open(path, "wb") as f:
        f.write(data)


def plain(pixel, pack):
    """Rows of interleaved samples: `pixel(x, y)` gives a pixel's samples, `pack` their bytes."""
    def rows(y0, y1, x0, x1):
        return b"".join(pack(pixel(x, y)) for y in range(y0, y1) for x in range(x0, x1))
    return rows


def ycbcr(h, v):
    """Rows of YCbCr data units (h x v luma samples, then Cb and Cr), ITU-R BT.601, full range."""
    def convert(r, g, b):
        y = 0.299 * r + 0.587 * g + 0.114 * b
        return y, (b - y) / 1.772 + 128, (r - y) / 1.402 + 128

    def rows(y0, y1, x0, x1):
        out = bytearray()
        for by in range(y0, y1, v):
            for bx in range(x0, x1, h):
                units = [convert(*QUADRANTS[quadrant(min(x, WIDTH - 1), min(y, HEIGHT - 1))])
                         for y in range(by, by + v) for x in range(bx, bx + h)]
                out.extend(round(u[0]) for u in units)
                out.append(round(sum(u[1] for u in units) / len(units)))
                out.append(round(sum(u[2] for u in units) / len(units)))
        return bytes(out)
    return rows


def ojpeg(path, work):
    """One strip of old-style JPEG: the JFIF stream as the strip and as JPEGInterchangeFormat."""
    ppm = os.path.join(work, "q.ppm")
    with open(ppm, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (WIDTH, HEIGHT))
        f.write(bytes(c for y in range(HEIGHT) for x in range(WIDTH) for c in QUADRANTS[quadrant(x, y)]))
    jpg = os.path.join(work, "q.jpg")
    subprocess.run(["convert", ppm, "-quality", "95", "-sampling-factor", "2x2", "-strip", jpg], check=True)
    stream = open(jpg, "rb").read()
    # The strip is the whole stream; the interchange-format tags point to it too (its offset,
    # 8, is where `tiff` writes the first block).
    tiff(path, lambda y0, y1, x0, x1: stream, 8, 3, photometric=6, compression=6, rows_per_strip=HEIGHT,
         more=[(513, 4, [8]), (514, 4, [len(stream)]), (530, 3, [2, 2])])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "MagickIOTests", "Fixtures")
    at = lambda name: os.path.join(out, name)
    rgb = lambda x, y: QUADRANTS[quadrant(x, y)]
    floats = lambda x, y: RGB_FLOATS[quadrant(x, y)]
    tiff(at("tiff-ycbcr22-deflate.tif"), ycbcr(2, 2), 8, 3, photometric=6, compression=8,
         more=[(530, 3, [2, 2]), (532, 5, [(0, 1), (255, 1), (128, 1), (255, 1), (128, 1), (255, 1)])])
    # The same with a private tag libtiff does not know: a warning about the directory.
    tiff(at("tiff-ycbcr22-unknown-tag.tif"), ycbcr(2, 2), 8, 3, photometric=6, compression=8,
         more=[(530, 3, [2, 2]), (65000, 3, [1])])
    tiff(at("tiff-ycbcr21-tiled.tif"), ycbcr(2, 1), 8, 3, photometric=6, tile=(16, 16), more=[(530, 3, [2, 1])])
    with tempfile.TemporaryDirectory() as work:
        ojpeg(at("tiff-ojpeg.tif"), work)
    tiff(at("tiff-rgb24-be.tif"), plain(lambda x, y: [c * 65793 for c in rgb(x, y)],
                                        lambda p: b"".join(c.to_bytes(3, "big") for c in p)), 24, 3, endian=">")
    grey8 = lambda x, y: INT_GREYS[quadrant(x, y)]
    tiff(at("tiff-grey-int8.tif"), plain(grey8, lambda p: struct.pack("<b", p)), 8, 1, fmt=2)
    tiff(at("tiff-grey-int16.tif"), plain(lambda x, y: grey8(x, y) * 257 if grey8(x, y) > 0 else grey8(x, y) * 256,
                                          lambda p: struct.pack("<h", p)), 16, 1, fmt=2)
    # The floating-point predictor (3): each row's bytes split by significance, then differenced.
    def predicted(y0, y1, x0, x1):
        out = bytearray()
        for y in range(y0, y1):
            raw = b"".join(struct.pack(">3f", *floats(x, y)) for x in range(x0, x1))
            count = len(raw) // 4
            planes = bytearray(raw[i * 4 + b] for b in range(4) for i in range(count))
            out.extend([planes[0]] + [(planes[i] - planes[i - 3]) & 0xFF if i >= 3 else planes[i] for i in range(1, len(planes))])
        return bytes(out)
    tiff(at("tiff-rgb-float32.tif"), predicted, 32, 3, fmt=3, compression=8, predictor=3)
    tiff(at("tiff-rgba-float32.tif"), plain(lambda x, y: list(floats(x, y)) + [255.0 if x < WIDTH // 2 else 127.5],
                                            lambda p: struct.pack("<4f", *p)), 32, 4, fmt=3, extra=[2])
    tiff(at("tiff-rgb-float64.tif"), plain(floats, lambda p: struct.pack("<3d", *p)), 64, 3, fmt=3, compression=8)
    tiff(at("tiff-grey-float16.tif"), plain(lambda x, y: GREY_FLOATS[quadrant(x, y)], lambda p: struct.pack("<e", p)), 16, 1, fmt=3)
    tiff(at("tiff-grey-uint64.tif"), plain(lambda x, y: rgb(x, y)[0] << 56, lambda p: struct.pack("<Q", p)), 64, 1)


if __name__ == "__main__":
    main()
