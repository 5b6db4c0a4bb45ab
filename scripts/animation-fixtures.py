#!/usr/bin/env python3
"""Writes the animated GIF fixtures byte by byte (LZW included), so that every frame's rectangle,
disposal, delay, transparency and the loop extension are exactly what the tests expect:

- anim-dispose.gif: 40x40, loops forever, four frames of 100, 200, 300 and 400 ms with the three
  disposals (none, background, previous) and a transparent colour (see AnimationTests);
- anim-once.gif: 16x16, no NETSCAPE2.0 extension (plays once), three interlaced frames with local
  colour tables;
- anim-thrice.gif: anim-once.gif's frames with a NETSCAPE2.0 count of 3 (four plays);
- anim-300.gif: 500x500, 300 frames of 40 ms (a full first frame, then a 16x16 square moving with
  the three disposals in turn): about 30 KB, for the memory test;
- gif-imagemagick-gamma.gif and gif-plain-twin.gif: a still picture with and without
  ImageMagick's private gamma extension (ContainerOdditiesTests);
- gif-65535x1.gif: a still picture wider than ImageMagick's width limit.

The WebP fixture is made from anim-dispose.gif by gif2webp (make-fixtures.sh).
Usage: scripts/animation-fixtures.py OUTPUT_DIR
"""
import struct
import sys
from pathlib import Path

RED, GREEN, BLUE, WHITE, BLACK, YELLOW, CYAN, MAGENTA = range(8)
PALETTE = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0), (255, 255, 0), (0, 255, 255), (255, 0, 255)]


def lzw(indices, min_code_size):
    """GIF's LZW: variable-width codes from min_code_size + 1 bits up to 12, a clear code first
    and whenever the table is full."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out, bits, nbits = bytearray(), 0, 0
    code_size, next_code, table = min_code_size + 1, end + 1, {}

    def emit(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += code_size
        while nbits >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8

    def reset():
        nonlocal code_size, next_code, table
        code_size, next_code = min_code_size + 1, end + 1
        table = {(i,): i for i in range(clear)}

    reset()
    emit(clear)
    word = (indices[0],)
    for k in indices[1:]:
        longer = word + (k,)
        if longer in table:
            word = longer
            continue
        emit(table[word])
        if next_code < 4096:
            table[longer] = next_code
            next_code += 1
            if next_code > (1 << code_size) and code_size < 12:
                code_size += 1
        else:
            emit(clear)
            reset()
        word = (k,)
    emit(table[word])
    emit(end)
    if nbits:
        out.append(bits & 0xFF)
    return bytes(out)


def sub_blocks(data):
    return b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255)) + b"\x00"


def colour_table(colours, size):
    return b"".join(bytes(c) for c in colours) + b"\x00" * (3 * (size - len(colours)))


def frame(x, y, w, h, pixels, delay_cs, disposal, transparent=None, local=None, interlaced=False):
    """A graphic control extension and an image; `pixels` row by row (palette indices)."""
    flags = disposal << 2 | (1 if transparent is not None else 0)
    gce = b"\x21\xF9\x04" + bytes([flags]) + struct.pack("<H", delay_cs) + bytes([transparent or 0]) + b"\x00"
    rows = [pixels[r * w:(r + 1) * w] for r in range(h)]
    if interlaced:
        order = list(range(0, h, 8)) + list(range(4, h, 8)) + list(range(2, h, 4)) + list(range(1, h, 2))
        rows = [rows[r] for r in order]
    stored = [i for row in rows for i in row]
    packed = 0x40 if interlaced else 0
    table = b""
    if local is not None:
        packed |= 0x80 | 2  # 8 entries
        table = colour_table(local, 8)
    descriptor = b"\x2C" + struct.pack("<HHHH", x, y, w, h) + bytes([packed]) + table
    return gce + descriptor + b"\x03" + sub_blocks(lzw(stored, 3))


def gif(width, height, frames, loop=None, palette=PALETTE, extensions=b""):
    head = b"GIF89a" + struct.pack("<HH", width, height) + bytes([0x80 | 0x70 | 2, 0, 0]) + colour_table(palette, 8)
    if loop is not None:
        head += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\x00"
    return head + extensions + b"".join(frames) + b"\x3B"


def square(w, h, colour):
    return [colour] * (w * h)


def dispose_fixture():
    white_half = [WHITE if x < 5 else BLACK for _ in range(10) for x in range(10)]  # BLACK is transparent here
    return gif(40, 40, [
        frame(0, 0, 40, 40, square(40, 40, RED), 10, 1),
        frame(0, 0, 20, 20, square(20, 20, GREEN), 20, 2),
        frame(20, 20, 20, 20, square(20, 20, BLUE), 30, 3),
        frame(20, 0, 10, 10, white_half, 40, 1, transparent=BLACK),
    ], loop=0)


def once_fixture(loop=None):
    local = [(0, 0, 0), (255, 128, 0), (0, 128, 255), (128, 0, 255)]
    frames = []
    for n in range(3):
        pixels = [(x // 4 + y // 4 + n) % 4 for y in range(16) for x in range(16)]
        frames.append(frame(0, 0, 16, 16, pixels, 5 * (n + 1), 1, local=local, interlaced=True))
    return gif(16, 16, frames, loop=loop)


def big_fixture():
    frames = [frame(0, 0, 500, 500, square(500, 500, WHITE), 4, 1)]
    for n in range(1, 300):
        x, y = (n * 37) % 484, (n * 53) % 484
        frames.append(frame(x, y, 16, 16, square(16, 16, 1 + n % 3), 4, 1 + n % 3))
    return gif(500, 500, frames, loop=0)


def gamma_fixtures():
    """32x16 quadrants, red, green, blue and mid grey (128) bottom right, with and without the
    application extension ImageMagick writes for an image whose gamma is 1 ("ImageMagick",
    "gamma=1"): its own coder then reads the frame as linear RGB and brightens it on the way to
    sRGB. No other decoder reads the extension."""
    palette = PALETTE[:3] + [(128, 128, 128)]
    pixels = [(0 if x < 16 else 1) + (0 if y < 8 else 2) for y in range(16) for x in range(32)]
    extension = b"\x21\xFF\x0BImageMagick\x07gamma=1\x00"
    return (gif(32, 16, [frame(0, 0, 32, 16, pixels, 0, 0)], palette=palette, extensions=extension),
            gif(32, 16, [frame(0, 0, 32, 16, pixels, 0, 0)], palette=palette))


def wide_fixture():
    """65535x1, left half red, right half blue: wider than ImageMagick's limit (Debian's policy:
    16,000 pixels a side); giflib makes its thumbnail."""
    return gif(65535, 1, [frame(0, 0, 65535, 1, [RED if x < 32767 else BLUE for x in range(65535)], 0, 0)])


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    (out / "anim-dispose.gif").write_bytes(dispose_fixture())
    (out / "anim-once.gif").write_bytes(once_fixture())
    # The same frames with a NETSCAPE2.0 count of 3: three repetitions after the first play, four
    # plays in all (as browsers show it).
    (out / "anim-thrice.gif").write_bytes(once_fixture(loop=3))
    (out / "anim-300.gif").write_bytes(big_fixture())
    gamma, twin = gamma_fixtures()
    (out / "gif-imagemagick-gamma.gif").write_bytes(gamma)
    (out / "gif-plain-twin.gif").write_bytes(twin)
    (out / "gif-65535x1.gif").write_bytes(wide_fixture())
