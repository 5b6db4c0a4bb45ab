#!/usr/bin/env python3
"""Writes TIFF files of a given storage layout, for the cost model's TIFF tests: what ImageMagick's
TIFF coder allocates depends on the samples, their depth and format, the planes, the strips or
tiles and the compression, not on the pixel count alone (MagickIO's TIFFLayout).

    tiff-layouts.py LAYOUT WIDTH HEIGHT OUT.tif

LAYOUT is one of:
  float64-extra   RGB and 13 extra samples, float64, one deflate strip (a 500 KB file at 2000x2000
                  that costs ImageMagick a gigabyte)
  rgba16-strip    16-bit RGBA (unassociated alpha), one deflate strip
  rgb8-strip      8-bit RGB, one uncompressed strip
  rgb8-generic    8-bit RGB, deflate, no RowsPerStrip tag (ImageMagick reads it through libtiff's RGBA
                  interface)
  rgb8-tiled      8-bit RGB, 256x256 deflate tiles
  rgba16-planar   16-bit RGBA in separate planes, 16 rows a strip, deflate
  gray32f-pred3   32-bit float grey, 64 rows a strip, deflate with the floating-point predictor

The picture is a smooth ramp (zero for floating point), written strip by strip, so a big file is
made in little memory.
"""
import struct
import sys
import zlib

LAYOUTS = {
    # samples, bits, sample format, planar, rows per strip (None: no tag; 0: whole image), tile,
    # compression, predictor, extra samples
    "float64-extra": (16, 64, 3, False, 0, None, 8, 1, [0] * 13),
    "rgba16-strip": (4, 16, 1, False, 0, None, 8, 1, [2]),
    "rgb8-strip": (3, 8, 1, False, 0, None, 1, 1, []),
    "rgb8-generic": (3, 8, 1, False, None, None, 8, 1, []),
    "rgb8-tiled": (3, 8, 1, False, None, 256, 8, 1, []),
    "rgba16-planar": (4, 16, 1, True, 16, None, 8, 1, [2]),
    "gray32f-pred3": (1, 32, 3, False, 64, None, 8, 3, []),
}


def row_bytes(width, y, samples, bits, fmt, x0=0):
    """One row (or a part from x0) of `samples` interleaved samples."""
    if fmt == 3:
        return bytes(width * samples * bits // 8)
    if bits == 8:
        ramp = bytes((x0 + x + y) & 0xFF for x in range(256))
        count = width * samples
        return (ramp * (count // 256 + 1))[:count]
    ramp = b"".join(struct.pack("<H", ((x0 + x + y) * 257) & 0xFFFF) for x in range(256))
    count = width * samples * 2
    return (ramp * (count // 512 + 1))[:count]


def compressed(chunks, compression):
    if compression == 1:
        return b"".join(chunks)
    z = zlib.compressobj(9)
    return b"".join(z.compress(c) for c in chunks) + z.flush()


def main():
    layout, width, height, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    samples, bits, fmt, planar, rows, tile, compression, predictor, extra = LAYOUTS[layout]
    blocks = []  # the compressed strips or tiles, in TIFF's order
    if tile:
        for ty in range(0, height, tile):
            for tx in range(0, width, tile):
                chunks = [row_bytes(tile, ty + r, samples, bits, fmt, tx) for r in range(tile)]
                blocks.append(compressed(chunks, compression))
    else:
        per_strip = height if not rows else rows
        for plane in range(samples if planar else 1):
            for y0 in range(0, height, per_strip):
                n = min(per_strip, height - y0)
                spp = 1 if planar else samples
                blocks.append(compressed((row_bytes(width, y0 + r + plane, spp, bits, fmt) for r in range(n)),
                                         compression))
    data = bytearray(b"II*\0" + struct.pack("<I", 0))
    offsets = []
    for block in blocks:
        offsets.append(len(data))
        data += block
        if len(data) % 2:
            data += b"\0"

    def array(values, kind):
        """An out-of-line array's offset (written now)."""
        at = len(data)
        data.extend(struct.pack("<%d%s" % (len(values), kind), *values))
        if len(data) % 2:
            data.append(0)
        return at

    entries = []  # (tag, type, count, inline bytes or offset)

    def put(tag, kind, values):
        size = {3: 2, 4: 4}[kind] * len(values)
        packed = struct.pack("<%d%s" % (len(values), "H" if kind == 3 else "I"), *values)
        if size <= 4:
            entries.append((tag, kind, len(values), packed.ljust(4, b"\0")))
        else:
            entries.append((tag, kind, len(values), struct.pack("<I", array(values, "H" if kind == 3 else "I"))))

    put(256, 4, [width])
    put(257, 4, [height])
    put(258, 3, [bits] * samples)
    put(259, 3, [compression])
    put(262, 3, [2 if samples >= 3 else 1])
    if not tile:
        put(273, 4, offsets)
    put(277, 3, [samples])
    if rows is not None and not tile:
        put(278, 4, [rows or height])
    if not tile:
        put(279, 4, [len(b) for b in blocks])
    put(284, 3, [2 if planar else 1])
    if predictor != 1:
        put(317, 3, [predictor])
    if tile:
        put(322, 3, [tile])
        put(323, 3, [tile])
        put(324, 4, offsets)
        put(325, 4, [len(b) for b in blocks])
    if extra:
        put(338, 3, extra)
    put(339, 3, [fmt] * samples)
    entries.sort()
    ifd = len(data)
    data += struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        data += struct.pack("<HHI", tag, kind, count) + value
    data += struct.pack("<I", 0)
    struct.pack_into("<I", data, 4, ifd)
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
