#!/usr/bin/env python3
"""The PNG fixtures of the ISA-L image-data path (PNGInflateTests), written byte by byte so that
each filter type, the IDAT split and each kind of damage is exactly what the test says:
`scripts/png-inflate-fixtures.py [DIR]` (default Tests/MagickIOTests/Fixtures), stdlib only.

The picture is 37x23 (odd: no filter loop ends on a round width); its pixel at (x, y) is
R = (7x + 13y) & 255, G = (3x + 29y) & 255, B = (x * y) & 255, A = (11x + 5y + 40) & 255.
The noise fixtures (`pnginflate-noise-*`) are 37x41, three batches of the fast path's 16 rows,
whose rows take turns at full noise, a flat field with a little noise (ties between Paeth's
distances) and a gradient with some: every branch of Sub, Average and Paeth, one row at a time
and two Paeth rows together, which the parity test holds to libpng's rows.
"""
import os
import struct
import sys
import zlib

W, H = 37, 23
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "MagickIOTests", "Fixtures")


def pixel(x, y, channels):
    rgba = ((7 * x + 13 * y) & 255, (3 * x + 29 * y) & 255, (x * y) & 255, (11 * x + 5 * y + 40) & 255)
    return rgba[:channels]


def rows(channels):
    return [bytes(v for x in range(W) for v in pixel(x, y, channels)) for y in range(H)]


NOISE_H = 41


def noise(x, y, c):
    h = (((x * 73856093) ^ (y * 19349663) ^ (c * 83492791)) * 2654435761) & 0xFFFFFFFF
    return (h >> 24, 128 + (h >> 30), (7 * x + 13 * y + (h >> 29)) & 255)[y % 3]


def noise_rows(channels):
    return [bytes(noise(x, y, c) for x in range(W) for c in range(channels)) for y in range(NOISE_H)]


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def filtered(row, up, kind, bpp):
    out = bytearray([kind])
    for i, v in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = up[i]
        c = up[i - bpp] if i >= bpp else 0
        predictor = (0, a, b, (a + b) // 2, paeth(a, b, c))[kind]
        out.append((v - predictor) & 255)
    return bytes(out)


def raw(channels, kinds, picture=rows):
    """The filtered scanlines, row y with filter kinds[y % len(kinds)]."""
    out, up = bytearray(), bytes(W * channels)
    for y, row in enumerate(picture(channels)):
        out += filtered(row, up, kinds[y % len(kinds)], channels)
        up = row
    return bytes(out)


def chunk(name, data, crc=None):
    crc = zlib.crc32(name + data) if crc is None else crc
    return struct.pack(">I", len(data)) + name + data + struct.pack(">I", crc & 0xFFFFFFFF)


def png(channels, stream, idat_sizes=None, after=b"", iend=True, mangle=None, height=H):
    """A PNG of `stream` in IDATs of `idat_sizes` bytes (the rest in the last), `after` between the
    last IDAT and IEND; `mangle(list of chunks)` may damage the chunks."""
    ihdr = struct.pack(">IIBBBBB", W, height, 8, 6 if channels == 4 else 2, 0, 0, 0)
    pieces, at = [], 0
    for size in idat_sizes or []:
        pieces.append(stream[at:at + size])
        at += size
    pieces.append(stream[at:])
    chunks = [chunk(b"IHDR", ihdr)] + [chunk(b"IDAT", p) for p in pieces]
    if mangle:
        mangle(chunks)
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks) + after + (chunk(b"IEND", b"") if iend else b"")


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    # Each filter type forced on every row, RGB and RGBA; then all five in turn over many IDATs,
    # one of them empty and the first one byte long (the zlib header split between two).
    for channels, colour in ((3, "rgb"), (4, "rgba")):
        for kind in range(5):
            write(f"pnginflate-filter{kind}-{colour}.png", png(channels, zlib.compress(raw(channels, [kind]), 9)))
    # Noise with Sub, Average, Paeth on every row, and a mix: Paeth pairs and Paeth rows alone,
    # across the batches' edges.
    for channels, colour in ((3, "rgb"), (4, "rgba")):
        for name, kinds in (("filter1", [1]), ("filter3", [3]), ("filter4", [4]), ("mixed", [4, 4, 3, 4, 4, 4, 1, 4, 0, 2, 4])):
            write(f"pnginflate-noise-{name}-{colour}.png",
                  png(channels, zlib.compress(raw(channels, kinds, noise_rows), 9), height=NOISE_H))
    stream = zlib.compress(raw(4, [0, 1, 2, 3, 4]), 9)
    sizes = [1, 40, 0, 97, 13]
    write("pnginflate-idats.png", png(4, stream, sizes, after=chunk(b"tEXt", b"Comment\x00after the data")
                                      + chunk(b"prVt", b"an unknown ancillary chunk")))
    # Damage, each where libpng stops or warns.
    def bad_crc(chunks):  # the CRC of the third IDAT
        chunks[3] = chunks[3][:-4] + bytes(b ^ 0xFF for b in chunks[3][-4:])
    write("pnginflate-bad-crc.png", png(4, stream, sizes, mangle=bad_crc))
    bad_adler = stream[:-4] + bytes(b ^ 0x55 for b in stream[-4:])
    write("pnginflate-bad-adler.png", png(4, bad_adler, sizes))
    whole = png(4, stream, sizes)
    write("pnginflate-truncated.png", whole[: len(whole) * 2 // 3])
    too_little = zlib.compress(raw(4, [1])[: (W * 4 + 1) * (H - 1)], 9)
    write("pnginflate-too-little.png", png(4, too_little))
    too_much = zlib.compress(raw(4, [1]) + bytes(W * 4 + 1), 9)
    write("pnginflate-too-much.png", png(4, too_much))
    write("pnginflate-trailing.png", png(4, stream + b"\x00\x01\x02\x03"))
    bad_filter = bytearray(raw(3, [2]))
    bad_filter[(W * 3 + 1) * 5] = 5  # row 5's filter byte
    write("pnginflate-bad-filter.png", png(3, zlib.compress(bytes(bad_filter), 9)))
    write("pnginflate-no-iend.png", png(3, zlib.compress(raw(3, [4]), 9), iend=False))


if __name__ == "__main__":
    main()
