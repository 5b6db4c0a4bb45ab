#!/usr/bin/env python3
"""Writes the fixtures for MagickIO's own JPEG and PNG paths whose chunks need exact control:
PNGs with tRNS, gAMA, 16-bit alpha and 4-bit palettes, a PNG 65535 pixels wide, a JPEG with an
Adobe APP14 marker and one declaring 8800x8800 cut inside its first scan.
Usage: own-path-fixtures.py FIXTURE_DIR (reads photo.jpg there). Python's standard library, and
ImageMagick's convert for a large JPEG cut short."""
import math
import os
import struct
import subprocess
import sys
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(path, width, height, depth, colour, rows, extra=()):
    """rows: one bytes object per row, samples packed as stored (no filter byte)."""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    raw = b"".join(b"\x00" + row for row in rows)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    for kind, payload in extra:
        data += chunk(kind, payload)
    data += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as out:
        out.write(data)


def field(x, y, width, height):
    """A colourful picture with detail at every scale: smooth ramps, rings and a fine grid."""
    r = int(255 * x / (width - 1))
    g = int(255 * y / (height - 1))
    ring = 0.5 + 0.5 * math.cos(math.hypot(x - width / 2, y - height / 2) / 3.0)
    b = int(255 * ring)
    if (x // 4 + y // 4) % 2 == 0:
        r, g = 255 - r, 255 - g
    return r, g, b


def rgb_rows(width, height, transparent=None):
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            pixel = field(x, y, width, height)
            if transparent and (x // 20 + y // 20) % 3 == 0:
                pixel = transparent
            row += bytes(pixel)
        rows.append(bytes(row))
    return rows


def main(folder):
    width, height = 160, 120
    # RGB with one colour marked transparent by tRNS (pure blue squares).
    png(os.path.join(folder, "own-rgb-trns.png"), width, height, 8, 2,
        rgb_rows(width, height, transparent=(0, 0, 255)),
        [(b"tRNS", struct.pack(">HHH", 0, 0, 255))])
    # gAMA 1.0 (linear light): ImageMagick treats it as linear RGB and converts; the own path
    # hands it over. gAMA 1/2.2 (sRGB's) stays on the own path.
    plain = rgb_rows(width, height)
    png(os.path.join(folder, "own-gamma-linear.png"), width, height, 8, 2, plain,
        [(b"gAMA", struct.pack(">I", 100000))])
    png(os.path.join(folder, "own-gamma-srgb.png"), width, height, 8, 2, plain,
        [(b"gAMA", struct.pack(">I", 45455))])
    # 16-bit RGBA: the field, alpha a left-to-right ramp (a full 16-bit range of values).
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            r, g, b = field(x, y, width, height)
            a = int(65535 * x / (width - 1))
            row += struct.pack(">HHHH", r * 257, g * 257 + (y % 7), b * 257, a)
        rows.append(bytes(row))
    png(os.path.join(folder, "own-rgba16.png"), width, height, 16, 6, rows)
    # A 4-bit palette of 16 colours, two of them partly or fully transparent (tRNS).
    palette = [(int(255 * i / 15), int(255 * (15 - i) / 15), (i * 97) % 256) for i in range(16)]
    alphas = bytes([0, 128] + [255] * 14)
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(0, width, 2):
            first = ((x // 8) + (y // 8)) % 16
            second = ((x // 8) + (y // 5)) % 16
            row.append(first << 4 | second)
        rows.append(bytes(row))
    png(os.path.join(folder, "own-palette-trns.png"), width, height, 4, 3, rows,
        [(b"PLTE", b"".join(bytes(c) for c in palette)), (b"tRNS", alphas)])
    # 65535x1, left half red, right half blue: wider than ImageMagick's limit (Debian's policy
    # holds it to 16,000 pixels a side); the own path makes its thumbnail, the budget, not the
    # side, bounds what that costs (SideLimitsTests).
    wide = 65535
    png(os.path.join(folder, "png-65535x1.png"), wide, 1, 8, 2,
        [b"".join(bytes((255, 0, 0) if x < wide // 2 else (0, 0, 255)) for x in range(wide))])
    # An 8800x8800 JPEG cut to its first 13,000 bytes, inside its first scan: a decoder that
    # does not stop at the damage reads (and pays for) the whole declared picture.
    cut = os.path.join(folder, "jpeg-8800-cut.jpg")
    subprocess.run(["convert", "-size", "8800x8800", "xc:#808080", "-fill", "#C04020", "-draw", "circle 4400,4400 4400,100",
                    "-quality", "90", cut], check=True)
    with open(cut, "rb") as whole:
        head = whole.read(13000)
    with open(cut, "wb") as out:
        out.write(head)
    # photo.jpg with an Adobe APP14 marker (transform 1: YCbCr) after SOI: ImageMagick's coder and
    # libjpeg read Adobe files their own ways, so the own path hands it over.
    with open(os.path.join(folder, "photo.jpg"), "rb") as source:
        jpeg = source.read()
    adobe = b"Adobe" + struct.pack(">HHHB", 100, 0, 0, 1)
    segment = b"\xff\xee" + struct.pack(">H", len(adobe) + 2) + adobe
    with open(os.path.join(folder, "own-adobe.jpg"), "wb") as out:
        out.write(jpeg[:2] + segment + jpeg[2:])


if __name__ == "__main__":
    main(sys.argv[1])
