#!/usr/bin/env python3
"""Writes the fixtures of containers whose oddities are not damage (issue 21): HEIF images turned
or cropped by `irot`/`imir`/`clap` properties listed before their `ispe` (as libavif writes them,
which libheif 1.15 sizes wrongly), AVIF image sequences with and without a primary still item,
OS/2 BMPs whose file-size field holds the headers' size or whose OS/2 2.x header ImageMagick
misreads, 32-bit BMPs whose fourth byte is or is not alpha, and a JPEG whose EXIF thumbnail is broken.

    python3 scripts/container-fixtures.py OUT-DIR

Needs ImageMagick 6 (`convert`) and libheif's `heif-enc` for the coded pictures; every box, header
and field around them is written here, byte by byte. The stored picture is always the quadrants
(red top left, green top right, blue bottom left, yellow bottom right), 96x64 (whole HEVC
blocks: heif-enc writes a grid for a picture of part blocks), so a test can say
where each colour must end up.
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from isobmff import box, boxes, full_box, movie  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
W, H = 96, 64
QUADRANTS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]


def out(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def quadrant(x, y, w=W, h=H):
    return (0 if x < w // 2 else 1) + (0 if y < h // 2 else 2)


def ppm(w=W, h=H):
    rows = bytearray()
    for y in range(h):
        for x in range(w):
            rows += bytes(QUADRANTS[quadrant(x, y, w, h)])
    return b"P6\n%d %d\n255\n" % (w, h) + bytes(rows)


# --- ISO BMFF ----------------------------------------------------------------------------------

def coded_item(path):
    """(the primary item's type, its configuration property box, its coded bytes) of a file
    heif-enc wrote: one image item, no alpha, no thumbnail."""
    data = open(path, "rb").read()
    meta = next((b + 4, e) for k, _, b, e in boxes(data) if k == b"meta")
    inner = {k: (s, b, e) for k, s, b, e in boxes(data, *meta)}
    _, iloc, _ = inner[b"iloc"]
    version, sizes, base_size = data[iloc], data[iloc + 4], data[iloc + 5] >> 4
    assert (sizes, struct.unpack(">H", data[iloc + 6:iloc + 8])[0]) == (0x44, 1), "one item, 4-byte fields"
    at = iloc + 8 + 2 + (2 if version else 0) + 2  # item id, construction method, data reference
    base = int.from_bytes(data[at:at + base_size], "big")
    at += base_size
    assert struct.unpack(">H", data[at:at + 2])[0] == 1, "one extent"
    offset, length = struct.unpack(">II", data[at + 2:at + 10])
    offset += base
    _, iprp, iprp_end = inner[b"iprp"]
    ipco = next((b, e) for k, _, b, e in boxes(data, iprp, iprp_end) if k == b"ipco")
    config = next(data[s:e] for k, s, _, e in boxes(data, *ipco) if k in (b"av1C", b"hvcC"))
    kind = b"av01" if config[4:8] == b"av1C" else b"hvc1"
    return kind, config, data[offset:offset + length]


def heif(kind, config, coded, size, properties, brands, extra_boxes=b"", primary=True):
    """A HEIF file with one image item of `kind`: its configuration, then `properties` (whole
    boxes, associated in this order, transforms marked essential), its `ispe` of `size` where
    `properties` holds the marker None; without `primary`, no pitm names it."""
    ispe = full_box(b"ispe", 0, 0, struct.pack(">II", *size))
    listed = [config] + [ispe if p is None else p for p in properties]
    essential = lambda p: p[4:8] in (b"av1C", b"hvcC", b"irot", b"imir", b"clap")
    ipma = full_box(b"ipma", 0, 0, struct.pack(">IHB", 1, 1, len(listed))
                    + bytes((0x80 if essential(p) else 0) | i + 1 for i, p in enumerate(listed)))

    def meta(offset):
        return full_box(b"meta", 0, 0, b"".join([
            full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 13),
            full_box(b"pitm", 0, 0, struct.pack(">H", 1)) if primary else b"",
            full_box(b"iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">HHHHHII", 1, 1, 0, 0, 1, offset, len(coded))),
            full_box(b"iinf", 0, 0, struct.pack(">H", 1) + full_box(b"infe", 2, 0, struct.pack(">HH", 1, 0) + kind + b"\0")),
            box(b"iprp", box(b"ipco", b"".join(listed)) + ipma)]))

    ftyp = box(b"ftyp", brands[0] + bytes(4) + b"".join(brands[1:]))
    start = len(ftyp) + len(meta(0)) + len(extra_boxes) + 8
    return ftyp + meta(start) + extra_boxes + box(b"mdat", coded)


def irot(quarter_turns_anticlockwise):
    return box(b"irot", bytes([quarter_turns_anticlockwise]))


def imir(axis):
    return box(b"imir", bytes([axis]))


def clap(width, height, horizontal_offset, vertical_offset):
    """A clean aperture of width x height whose centre is the offsets (in pixels) from the
    picture's centre."""
    return box(b"clap", struct.pack(">IIIIiIiI", width, 1, height, 1, horizontal_offset, 1, vertical_offset, 1))


AVIF = [b"avif", b"mif1", b"avif", b"miaf", b"MA1B"]
HEIC = [b"heic", b"mif1", b"heic", b"miaf"]
# libavif's sequences (Link-U's star-8bpc.avifs): brands avis, msf1, miaf, MA1B only.
AVIS = [b"avis", b"avis", b"msf1", b"miaf", b"MA1B"]

with tempfile.TemporaryDirectory() as work:
    stored = os.path.join(work, "stored.ppm")
    open(stored, "wb").write(ppm())
    for name, flags in (("av1", ["-A"]), ("hevc", [])):
        subprocess.run(["convert", stored, "PNG24:" + os.path.join(work, "stored.png")], check=True)
        subprocess.run(["heif-enc", *flags, "-q", "95", os.path.join(work, "stored.png"), "-o",
                        os.path.join(work, name + ".heif")], check=True, stdout=subprocess.DEVNULL)
    av1 = coded_item(os.path.join(work, "av1.heif"))
    hevc = coded_item(os.path.join(work, "hevc.heif"))

# Turned a quarter anticlockwise (irot 1), the transform listed before ispe as libavif lists it:
# shown 64x96, green top left, red bottom left, yellow top right, blue bottom right.
out("avif-irot90-first.avif", heif(*av1, (W, H), [irot(1), None], AVIF))
# The same with ispe first (libheif sizes this one right): shown the same.
out("avif-irot90.avif", heif(*av1, (W, H), [None, irot(1)], AVIF))
# Three quarters anticlockwise (irot 3): shown 64x96, blue top left, red top right.
out("avif-irot270-first.avif", heif(*av1, (W, H), [irot(3), None], AVIF))
# The clean aperture of the top-left 48x32 (its centre 24 left and 16 up of the picture's): all red.
out("avif-clap-first.avif", heif(*av1, (W, H), [clap(48, 32, -24, -16), None], AVIF))
# The top half (96x32), then turned a quarter anticlockwise: 32x96, green on top, red below.
out("avif-clap-irot-first.avif", heif(*av1, (W, H), [clap(96, 32, 0, -16), irot(1), None], AVIF))
# Mirrored (imir), then turned a quarter anticlockwise: shown 64x96.
out("avif-imir-irot-first.avif", heif(*av1, (W, H), [imir(1), irot(1), None], AVIF))
# HEIC alike: a quarter anticlockwise, irot before ispe.
out("heic-irot90-first.heic", heif(*hevc, (W, H), [irot(1), None], HEIC))
# Its slice cut short, as the fuzzer found it (in the file above): 40 bytes of 0xFF after the slice
# NAL unit's eighth byte, the item's extent as long as before (its last 40 bytes left out). libde265
# decodes the first block (64x64) to grey and leaves the rest of its picture unwritten, and libheif
# 1.15 reports success: the rest must read the same on every decode (zeros, HeapScrub), never what
# the heap held.
kind, config, coded = hevc
out("heic-slice-cut-short.heic", heif(kind, config, (coded[:12] + b"\xff" * 40 + coded[12:])[:len(coded)], (W, H),
                                      [None], HEIC))

# An AVIF image sequence as libavif writes one: brands avis/msf1/miaf/MA1B (none libheif 1.15
# accepts), a movie box, and the first frame as the primary still item.
out("avifs-with-still.avifs", heif(*av1, (W, H), [None], AVIS, extra_boxes=movie()))
# A sequence and nothing else: no meta box, no still item.
ftyp = box(b"ftyp", AVIS[0] + bytes(4) + b"".join(AVIS[1:]))
out("avifs-sequence-only.avifs", ftyp + movie() + box(b"mdat", av1[2]))
# A sequence whose meta box lists an image item but no primary item (no pitm), as libavif's
# Chimera-AV1-10bit-480x270.avif: no still image either.
out("avifs-item-no-primary.avifs", heif(*av1, (W, H), [None], AVIS, extra_boxes=movie(), primary=False))


# --- OS/2 BMPs ---------------------------------------------------------------------------------
# 8 bits a pixel, a 4-colour palette (the quadrants), 32x16, rows bottom-up. bmpsuite's q/ files:
# the file-size field holding the headers' size (pal8os2-sz, pal8os2v2-sz, pal8os2v2-40sz), or
# that and a cursor's hotspot in the reserved fields (pal8os2-hs). libvips and browsers show them.

BW, BH = 32, 16


def bmp(info, palette_entry_size, size_field=None, reserved=(0, 0), cut=0, first=0):
    """The quadrants at palette indices `first` on (the entries before them black)."""
    palette = bytes(palette_entry_size * first)
    palette += b"".join(bytes((b, g, r)) + bytes(palette_entry_size - 3) for r, g, b in QUADRANTS)
    palette += bytes(palette_entry_size * (256 - first - len(QUADRANTS)))
    stride = (BW + 3) // 4 * 4
    pixels = b"".join(bytes(first + quadrant(x, y, BW, BH) for x in range(BW)) + bytes(stride - BW)
                      for y in reversed(range(BH)))
    offset = 14 + len(info) + len(palette)
    total = offset + len(pixels)
    head = b"BM" + struct.pack("<IHHI", total if size_field is None else size_field, *reserved, offset)
    data = head + info + palette + pixels
    return data[:len(data) - cut]


os2v1 = struct.pack("<IHHHH", 12, BW, BH, 1, 8)
# OS/2 2.x: the Windows 3 fields, then 24 bytes of its own (units, reserved, recording, rendering,
# two sizes, colour encoding, identifier), all 0.
os2v2 = struct.pack("<IiiHHIIiiII", 64, BW, BH, 1, 8, 0, 0, 2835, 2835, 256, 0) + bytes(24)
os2v2_40 = struct.pack("<IiiHHIIiiII", 40, BW, BH, 1, 8, 0, 0, 2835, 2835, 256, 0)
out("bmp-os2.bmp", bmp(os2v1, 3))
out("bmp-os2-size-field.bmp", bmp(os2v1, 3, size_field=14 + 12))
out("bmp-os2-hotspot.bmp", bmp(os2v1, 3, size_field=14 + 12, reserved=(21, 16)))
out("bmp-os2v2.bmp", bmp(os2v2, 4))
out("bmp-os2v2-size-field.bmp", bmp(os2v2, 4, size_field=14 + 64))
out("bmp-os2v2-40.bmp", bmp(os2v2_40, 4))
# An OS/2 2.x header cut after the bit count (16 bytes, as bmpsuite's pal8os2v2-16). ImageMagick
# reads the Windows fields after it all the same, from the palette: its first six entries are
# black, so that they read as no compression and no colour count, as bmpsuite's do.
out("bmp-os2v2-16.bmp", bmp(struct.pack("<IiiHH", 16, BW, BH, 1, 8), 4, first=6))
out("bmp-os2v2-40-size-field.bmp", bmp(os2v2_40, 4, size_field=14 + 40))
# Real damage beside the same oddity: the last 5 rows' pixels are missing.
out("bmp-os2-size-field-truncated.bmp", bmp(os2v1, 3, size_field=14 + 12, cut=5 * BW))


# OS/2 2.x headers ImageMagick 6.9.11 misreads, which MagickIO hands it as a Windows 3 header:
# its palette is read 24 bytes early after a 64-byte header (bmp-os2v2.bmp, as bmpsuite's
# pal8os2v2), and after a 16-byte header whose palette starts with the quadrants (no black entries
# to read as 0s) the palette is read as the header's missing fields. OS/2 2.x's own Huffman 1D
# coding (3) is not decoded: unsupportedFormat.
out("bmp-os2v2-16-no-black.bmp", bmp(struct.pack("<IiiHH", 16, BW, BH, 1, 8), 4))
out("bmp-os2v2-huffman.bmp", bmp(struct.pack("<IiiHHIIiiII", 64, BW, BH, 1, 8, 3, 0, 2835, 2835, 256, 0) + bytes(24), 4))


def bmp32(alpha):
    """32x16, 32 bits a pixel, BI_RGB (a 40-byte header): the quadrants, the fourth byte of each
    pixel alpha(x, y). ImageMagick and browsers take that byte as alpha unless it is 0 everywhere."""
    info = struct.pack("<IiiHHIIiiII", 40, BW, BH, 1, 32, 0, BW * BH * 4, 2835, 2835, 0, 0)
    pixels = b"".join(bytes(tuple(reversed(QUADRANTS[quadrant(x, y, BW, BH)])) + (alpha(x, y),))
                      for y in reversed(range(BH)) for x in range(BW))
    offset = 14 + len(info)
    return b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + info + pixels


# The right half transparent, the left opaque; and the same with every fourth byte 0 (opaque).
out("bmp-rgb32-alpha-byte.bmp", bmp32(lambda x, y: 255 if x < BW // 2 else 0))
out("bmp-rgb32-zero-byte.bmp", bmp32(lambda x, y: 0))


# --- A JPEG whose EXIF thumbnail is broken ------------------------------------------------------
# The quadrants at 96x64; its EXIF thumbnail is a JPEG's first 300 bytes and then garbage, which
# libjpeg cannot decode: a thumbnail asked to use it must come from the picture instead.
with tempfile.TemporaryDirectory() as work:
    picture, thumb = os.path.join(work, "picture.jpg"), os.path.join(work, "thumb.jpg")
    open(os.path.join(work, "stored.ppm"), "wb").write(ppm())
    subprocess.run(["convert", os.path.join(work, "stored.ppm"), "-quality", "95", picture], check=True)
    subprocess.run(["convert", os.path.join(work, "stored.ppm"), "-fill", "magenta", "-opaque", "red",
                    "-resize", "48x32", "-quality", "90", thumb], check=True)
    good = open(thumb, "rb").read()
    open(thumb, "wb").write(good[:300] + bytes((i * 37 + 11) & 0xFF for i in range(len(good) - 300)))
    subprocess.run(["exiftool", "-q", "-overwrite_original", f"-ThumbnailImage<={thumb}", picture], check=True)
    out("embedded-thumbnail-broken.jpg", open(picture, "rb").read())
