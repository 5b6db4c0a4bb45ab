#!/usr/bin/env python3
"""Writes the metadata bombs of issue 18 (and variations) into DIR, for measuring the tools:
64x64 pictures whose metadata costs a decoder far more than the file's size.

usage: make-metadata-bombs.py DIR    (needs ImageMagick's `convert` for the base JPEG)
"""
import os
import struct
import subprocess
import sys
import zlib

GIB = 1 << 30


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def zeros_deflated(count, prefix=b""):
    """zlib's stream of `prefix` then `count` zero bytes at the best compression (about 1000:1)."""
    d = zlib.compressobj(9)
    block = bytes(1 << 20)
    out = [d.compress(prefix)]
    while count > 0:
        n = min(count, len(block))
        out.append(d.compress(block[:n]))
        count -= n
    out.append(d.flush())
    return b"".join(out)


def icc_header(size):
    """A valid ICC header (an RGB display profile declaring `size` bytes, no tags): libpng checks
    it, then allocates the declared size whole and inflates into it."""
    h = bytearray(132)
    struct.pack_into(">I", h, 0, size)
    h[8:12] = bytes([2, 0x10, 0, 0])
    h[12:24] = b"mntrRGB XYZ "
    h[36:40] = b"acsp"
    struct.pack_into(">iii", h, 68, 0x0000F6D6, 0x00010000, 0x0000D32D)
    return bytes(h)


def png(extra=(), trailing=()):
    raw = b""
    for y in range(64):
        raw += b"\0" + b"".join(bytes([220, 30, 30] if x < 32 else [30, 200, 40]) if y < 32
                                else bytes([40, 50, 210] if x < 32 else [250, 250, 250]) for x in range(64))
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0))
    out += b"".join(extra) + chunk(b"IDAT", zlib.compress(raw, 9)) + b"".join(trailing) + chunk(b"IEND", b"")
    return out


def segment(code, payload):
    return bytes([0xFF, code]) + struct.pack(">H", len(payload) + 2) + payload


def main(directory):
    os.makedirs(directory, exist_ok=True)

    def write(name, data):
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)

    gig = zeros_deflated(GIB)
    write("ztxt-1g.png", png([chunk(b"zTXt", b"Comment\0\0" + gig)]))
    write("iccp-1g.png", png([chunk(b"iCCP", b"ICC\0\0" + zeros_deflated(GIB - 132, icc_header(GIB)))]))
    write("itxt-1g.png", png([chunk(b"iTXt", b"Description\0\1\0\0\0" + gig)]))
    write("ztxt-after-idat-1g.png", png(trailing=[chunk(b"zTXt", b"Comment\0\0" + gig)]))
    mib64 = zeros_deflated(64 << 20)
    write("ztxt-64x64m.png", png([chunk(b"zTXt", b"Comment%d\0\0" % i + mib64) for i in range(64)]))
    d = zlib.compressobj(9)
    raw_profile = d.compress(b"\nexif\n%d\n" % (GIB // 2)) + b"".join(d.compress(b"0" * (1 << 20)) for _ in range(GIB >> 20)) + d.flush()
    write("raw-profile-1g.png", png([chunk(b"zTXt", b"Raw profile type exif\0\0" + raw_profile)]))
    write("text-100k.png", png([chunk(b"tEXt", b"k\0%d" % i) for i in range(100_000)]))

    base_png = os.path.join(directory, "base.png")
    write("base.png", png())
    base_jpg = os.path.join(directory, "base.jpg")
    subprocess.run(["convert", base_png, "-quality", "95", base_jpg], check=True)
    with open(base_jpg, "rb") as f:
        base = f.read()
    write("app15-600k.jpg", base[:2] + segment(0xEF, b"\0\0\0\0") * 600_000 + base[2:])
    write("com-600k.jpg", base[:2] + segment(0xFE, b"A") * 600_000 + base[2:])
    xmp = segment(0xE1, b"http://ns.adobe.com/xmp/extension/\0" + b" " * 65_000)
    write("xmp-ext-300.jpg", base[:2] + xmp * 300 + base[2:])
    write("app15-after-scan-600k.jpg", base[:-2] + segment(0xEF, b"\0\0\0\0") * 600_000 + base[-2:])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "metadata-bombs")
