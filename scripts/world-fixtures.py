#!/usr/bin/env python3
"""Writes the "world" fixtures: small files of the kinds real collections hold that are odd but
valid (a viewer shows them) or really damaged, one per class found by the sweep (scripts/sweep).

    python3 scripts/world-fixtures.py OUT-DIR

Needs ImageMagick 6 (`convert`) and libheif's `heif-enc` for the formats Python cannot write
itself; TIFF, PNG and the JPEG and GIF surgery are done here, byte by byte, so that each file has
exactly the oddity its name says. Deterministic: the same tools give the same bytes.
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

OUT = sys.argv[1] if len(sys.argv) > 1 else "."


def out(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def run(*args):
    subprocess.run(args, check=True)


def magick(*args):
    """Runs ImageMagick's convert and returns its output file's bytes."""
    with tempfile.TemporaryDirectory() as work:
        target = args[-1]
        path = os.path.join(work, "out." + target.split(".")[-1]) if ":" not in target else target.split(":")[0] + ":" + os.path.join(work, "out")
        run("convert", *args[:-1], path)
        name = path.split(":", 1)[-1] if ":" in path else path
        with open(name, "rb") as f:
            return f.read()


# The test picture: 64x48, red left half, blue right half (as RGB rows).
W, H = 64, 48


def picture_rgb(w=W, h=H):
    return [[(255, 0, 0) if x < w // 2 else (0, 0, 255) for x in range(w)] for _ in range(h)]


# --- PNG ---------------------------------------------------------------------------------------

def png_chunk(kind, data, crc_delta=0):
    crc = (zlib.crc32(kind + data) + crc_delta) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def png(chunks):
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


def png_rgb_idat(extra=b""):
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in picture_rgb())
    return zlib.compress(raw + extra, 9)


IHDR = png_chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0))
IEND = png_chunk(b"IEND", b"")

# Benign: libpng warns and drops the chunk, or ignores data after the last row.
out("png-iccp-crc.png", png([IHDR, png_chunk(b"iCCP", b"Display\x00\x00" + zlib.compress(b"\x00" * 200), crc_delta=1),
                              png_chunk(b"IDAT", png_rgb_idat()), IEND]))
out("png-text-crc.png", png([IHDR, png_chunk(b"tEXt", b"Comment\x00made by a buggy writer", crc_delta=1),
                              png_chunk(b"IDAT", png_rgb_idat()), IEND]))
out("png-trns-invalid.png", png([IHDR, png_chunk(b"tRNS", b"\x00\x01\x00\x02"), png_chunk(b"IDAT", png_rgb_idat()), IEND]))
out("png-idat-extra.png", png([IHDR, png_chunk(b"IDAT", png_rgb_idat(extra=b"\x00" * 300)), IEND]))
# Damage: the zlib stream is broken in the middle of the rows.
broken = bytearray(png_rgb_idat())
broken[len(broken) // 2] ^= 0xFF
out("png-zlib-broken.png", png([IHDR, png_chunk(b"IDAT", bytes(broken)), IEND]))

# ImageMagick writes a PNG's EXIF as a "Raw profile type exif" zTXt chunk (older versions, and
# others that copy them): hex text of "Exif\0\0" and a TIFF structure with Orientation 6. The
# stored 48x64 pixels are red on the left, blue on the right: turned upright (90 degrees clockwise)
# the picture is 64x48, red on top.
exif = b"Exif\x00\x00" + b"MM\x00\x2a\x00\x00\x00\x08\x00\x01" + struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0) + b"\x00\x00\x00\x00"
text = b"\nexif\n%8d\n" % len(exif) + exif.hex().encode() + b"\n"
rows = [[(255, 0, 0) if x < H // 2 else (0, 0, 255) for x in range(H)] for _ in range(W)]  # 48x64 stored
raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in rows)
out("png-raw-exif-6.png", png([png_chunk(b"IHDR", struct.pack(">IIBBBBB", H, W, 8, 2, 0, 0, 0)),
                                png_chunk(b"zTXt", b"Raw profile type exif\x00\x00" + zlib.compress(text)),
                                png_chunk(b"IDAT", zlib.compress(raw, 9)), IEND]))


# --- TIFF --------------------------------------------------------------------------------------

def tiff(pages, big=False, loop=False, extra_tags=(), truncate=0):
    """An uncompressed TIFF (BigTIFF when `big`) of `pages`, each a dict with rows of sample tuples,
    bits, planar, extra (ExtraSamples values) and photometric. `loop` points the last IFD back at
    the first; `extra_tags` are (tag, type, count, value) entries added to page 1; `truncate` cuts
    that many bytes from page 1's pixel data."""
    order = "<"
    data = bytearray(b"II" + (struct.pack("<HHHQ", 43, 8, 0, 0) if big else struct.pack("<HI", 42, 0)))
    ifd_offsets, link_fields = [], []
    for index, page in enumerate(pages):
        rows, bits, planar = page["rows"], page["bits"], page.get("planar", 1)
        h, w, spp = len(rows), len(rows[0]), len(rows[0][0])
        fmt = "B" if bits == 8 else "H"
        if planar == 1:
            samples = [s for row in rows for px in row for s in px]
        else:
            samples = [px[c] for c in range(spp) for row in rows for px in row]
        pixels = struct.pack(order + fmt * len(samples), *samples)
        if index == 0 and truncate:
            pixels = pixels[:-truncate]
        strip_offset = len(data)
        data += pixels
        if len(data) % 2:
            data += b"\x00"
        bits_offset = len(data)
        data += struct.pack(order + "H" * spp, *([bits] * spp))
        plane_bytes = w * h * (bits // 8)
        strip_offsets = [strip_offset] if planar == 1 else [strip_offset + c * plane_bytes for c in range(spp)]
        strip_counts = [len(pixels)] if planar == 1 else [plane_bytes] * spp
        so_offset = len(data)
        data += struct.pack(order + ("Q" if big else "I") * len(strip_offsets), *strip_offsets)
        sc_offset = len(data)
        data += struct.pack(order + ("Q" if big else "I") * len(strip_counts), *strip_counts)
        LONG8, LONG = 16, 4
        off_type = LONG8 if big else LONG
        entries = [
            (256, 4, 1, w), (257, 4, 1, h), (258, 3, spp, bits_offset if spp > (4 if big else 2) else bits),  # BigTIFF: inline up to 4
            (259, 3, 1, 1), (262, 3, 1, page.get("photometric", 2)),
            (273, off_type, len(strip_offsets), strip_offsets[0] if len(strip_offsets) == 1 else so_offset),
            (277, 3, 1, spp), (278, 4, 1, h),
            (279, off_type, len(strip_counts), strip_counts[0] if len(strip_counts) == 1 else sc_offset),
            (284, 3, 1, planar),
        ]
        if page.get("extra"):
            entries.append((338, 3, len(page["extra"]), page["extra"][0]))
        if index == 0:
            entries += list(extra_tags)
        entries.sort()
        if len(data) % 2:
            data += b"\x00"
        ifd_offsets.append(len(data))
        data += struct.pack(order + ("Q" if big else "H"), len(entries))
        for tag, kind, count, value in entries:
            if big:
                data += struct.pack("<HHQ", tag, kind, count)
                if kind == 3 and tag == 258 and 1 < count <= 4:
                    data += struct.pack("<" + "H" * count, *([bits] * count)).ljust(8, b"\x00")  # inline values
                else:
                    data += struct.pack("<H6x", value) if kind == 3 and count == 1 else struct.pack("<Q", value)
            else:
                data += struct.pack("<HHI", tag, kind, count)
                data += struct.pack("<H2x", value) if kind == 3 and count == 1 else struct.pack("<I", value)
        link_fields.append(len(data))
        data += struct.pack("<Q" if big else "<I", 0)
    for index, field in enumerate(link_fields):
        target = ifd_offsets[index + 1] if index + 1 < len(ifd_offsets) else (ifd_offsets[0] if loop else 0)
        struct.pack_into("<Q" if big else "<I", data, field, target)
    struct.pack_into("<Q" if big else "<I", data, 8 if big else 4, ifd_offsets[0])
    return bytes(data)


def rgba(bits, alpha_left, alpha_right):
    top = 65535 if bits == 16 else 255
    return [[(top, 0, 0, alpha_left) if x < W // 2 else (0, 0, top, alpha_right) for x in range(W)] for _ in range(H)]


def rgb(bits=8):
    top = 65535 if bits == 16 else 255
    return [[(top, 0, 0) if x < W // 2 else (0, 0, top) for x in range(W)] for _ in range(H)]


# Alpha as an ExtraSample: left half opaque red, right half transparent (unassociated: blue hidden
# under it; associated: premultiplied, so black).
for bits in (8, 16):
    top = 65535 if bits == 16 else 255
    for planar, layout in ((1, "contig"), (2, "planar")):
        out(f"tiff-alpha-unassoc-{bits}-{layout}.tif",
            tiff([{"rows": rgba(bits, top, 0), "bits": bits, "planar": planar, "extra": [2]}]))
    out(f"tiff-alpha-assoc-{bits}-contig.tif",
        tiff([{"rows": [[(top, 0, 0, top) if x < W // 2 else (0, 0, 0, 0) for x in range(W)] for _ in range(H)],
               "bits": bits, "extra": [1]}]))
# Benign: a private tag libtiff does not know; a tag whose count disagrees with its type; the IFD
# chain looping back to page 1 after page 2.
out("tiff-unknown-tag.tif", tiff([{"rows": rgb(), "bits": 8}], extra_tags=[(65000, 3, 1, 7)]))
out("tiff-bogus-count.tif", tiff([{"rows": rgb(), "bits": 8}], extra_tags=[(296, 3, 2, 2)]))
out("tiff-ifd-loop.tif", tiff([{"rows": rgb(), "bits": 8}, {"rows": rgb(), "bits": 8}], loop=True))
# BigTIFF (version 43, 64-bit offsets).
out("bigtiff.tif", tiff([{"rows": rgb(), "bits": 8}], big=True))
# Damage: the strip is cut short by half.
out("tiff-short-strip.tif", tiff([{"rows": rgb(), "bits": 8}], truncate=W * H * 3 // 2))


# --- JPEG --------------------------------------------------------------------------------------

base = magick("-size", f"{W}x{H}", "xc:red", "-size", f"{W}x{H}", "xc:blue", "+append", "-resize", f"{W}x{H}!",
              "-quality", "90", "-sampling-factor", "1x1", "jpg:out")
sof = base.index(b"\xff\xc0")
dqt = base.index(b"\xff\xdb")
# Benign: three stray bytes between two segments (libjpeg: "3 extraneous bytes before marker").
out("jpeg-extraneous-bytes.jpg", base[:dqt] + b"\x00\x01\x02" + base[dqt:])
# Benign, and a walk that a count of steps would give up on: 1000 comment segments and 20000
# fill bytes before the frame header.
comments = b"".join(b"\xff\xfe\x00\x10" + b"padding-segment" + b"\x00" for _ in range(1000))
out("jpeg-padding-before-sof.jpg", base[:sof] + comments + b"\xff" * 20000 + base[sof:])
# Damage: the entropy-coded data flipped every 37 bytes ("bad Huffman code", wrong pixels).
scan = base.index(b"\xff\xda")
damaged = bytearray(base)
for at in range(scan + 40, len(damaged) - 10, 37):
    if damaged[at] != 0xFF and damaged[at - 1] != 0xFF:
        damaged[at] ^= 0x55
out("jpeg-bad-huffman.jpg", bytes(damaged))


# An XMP packet that is not XML (ImageMagick: "CorruptImageProfile ... (XMP)"): metadata, not pixels.
xmp = b"http://ns.adobe.com/xap/1.0/\x00" + b"<x:xmpmeta this is <<< not XML"
out("jpeg-broken-xmp.jpg", base[:dqt] + b"\xff\xe1" + struct.pack(">H", 2 + len(xmp)) + xmp + base[dqt:])

# A greyscale JPEG carrying a broken 14-byte ICC profile (APP2), which Little CMS refuses: viewers
# ignore the profile and show the grey.
gray = magick("-size", f"{W}x{H}", "gradient:white-black", "-colorspace", "gray", "-quality", "90", "jpg:out")
at = gray.index(b"\xff\xdb")
icc = b"ICC_PROFILE\x00\x01\x01" + b"\x00\x00\x00\x0eBROKEN" + b"\x00" * 4
out("jpeg-gray-broken-icc.jpg", gray[:at] + b"\xff\xe2" + struct.pack(">H", 2 + len(icc)) + icc + gray[at:])

# --- GIF ---------------------------------------------------------------------------------------

# A 75x50 canvas whose only frame is 50x50 red at +25+0: a viewer shows it on the right, the
# left 25 columns transparent.
run("convert", "-size", "50x50", "xc:red", "-set", "page", "75x50+25+0", os.path.join(OUT, "gif-offset-frame.gif"))


# --- HEIF with alpha ---------------------------------------------------------------------------

with tempfile.TemporaryDirectory() as work:
    source = os.path.join(work, "alpha.png")
    # Left half opaque red, right half transparent with blue under it.
    run("convert", "-size", f"{W // 2}x{H}", "xc:red", "-size", f"{W // 2}x{H}", "xc:#0000ff00", "+append",
        "-depth", "8", "PNG32:" + source)
    subprocess.run(["heif-enc", "-A", "-q", "90", source, "-o", os.path.join(OUT, "avif-alpha.avif")], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["heif-enc", "-q", "90", source, "-o", os.path.join(OUT, "heic-alpha.heic")], check=True,
                   stdout=subprocess.DEVNULL)


# --- HEIF items libheif 1.15 does not check ----------------------------------------------------
# Box surgery on the HEIF files above, and a grid image written box by box: what the fuzzer found
# (an AV1 item with no data, which dav1d refuses and leaks) and what the guard must not take on
# trust (a grid canvas larger than the size the item declares).

def boxes(data, start=0, end=None):
    """(type, start, body start, end) of each box in data[start:end]."""
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        head = 8
        if size == 1:
            size, head = struct.unpack(">Q", data[start + 8:start + 16])[0], 16
        elif size == 0:
            size = end - start
        yield kind, start, start + head, start + size
        start += size


def meta_boxes(data):
    """The boxes in the meta box: {type: (start, body start, end)}."""
    for kind, _, body, end in boxes(data):
        if kind == b"meta":
            return {k: (s, b, e) for k, s, b, e in boxes(data, body + 4, end)}
    raise ValueError("no meta box")


def iloc_extents(data):
    """{item id: [(where the extent's length field is, its size, offset, length)]} (iloc v0/v1)."""
    _, at, _ = meta_boxes(data)[b"iloc"]
    version = data[at]
    sizes, more = data[at + 4], data[at + 5]
    offset_size, length_size, base_size = sizes >> 4, sizes & 15, more >> 4
    index_size = (more & 15) if version else 0
    count = struct.unpack(">H", data[at + 6:at + 8])[0]
    at += 8
    number = lambda at, size: int.from_bytes(data[at:at + size], "big")
    items = {}
    for _ in range(count):
        item = number(at, 2)
        at += 2 + (2 if version else 0) + 2
        base = number(at, base_size)
        at += base_size
        extents = []
        for _ in range(number(at, 2)):
            at += 2 + index_size
            offset = number(at, offset_size)
            at += offset_size
            extents.append((at, length_size, base + offset, number(at, length_size)))
            at += length_size
        at = at if extents else at + 2
        items[item] = extents
    return items


def without_data(data, item):
    """The file with every extent of `item` made 0 bytes long (what the fuzzer's mutation did)."""
    data = bytearray(data)
    for at, size, _, _ in iloc_extents(bytes(data))[item]:
        data[at:at + size] = bytes(size)
    return bytes(data)


def item_type(data, wanted):
    """The id of the first item of type `wanted` in iinf."""
    _, body, end = meta_boxes(data)[b"iinf"]
    first = body + (6 if data[body] == 0 else 8)
    for kind, _, infe, _ in boxes(data, first, end):
        version = data[infe]
        item = int.from_bytes(data[infe + 4:infe + (6 if version == 2 else 8)], "big")
        at = infe + (6 if version == 2 else 8) + 2
        if data[at:at + 4] == wanted:
            return item
    raise ValueError(f"no {wanted} item")


def ipco_properties(data):
    """{type: the whole box} of the first property of each type in ipco."""
    _, iprp, end = meta_boxes(data)[b"iprp"]
    ipco, ipco_end = next((b, e) for k, _, b, e in boxes(data, iprp, end) if k == b"ipco")
    found = {}
    for kind, s, _, e in boxes(data, ipco, ipco_end):
        found.setdefault(kind, data[s:e])
    return found


def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body


def full_box(kind, version, flags, body):
    return box(kind, bytes([version]) + flags.to_bytes(3, "big") + body)


def heic_grid(source, canvas, ispe, columns=1, rows=1):
    """A HEIC whose primary image is a grid of `source`'s primary (HEVC) image, `columns` x `rows`
    times (one tile item each, all pointing at the same coded data): `canvas` is the size the
    grid's data gives, `ispe` the size the grid item declares (equal in a valid file)."""
    tile = item_type(source, b"hvc1")
    properties = ipco_properties(source)
    (_, _, offset, length), = iloc_extents(source)[tile]
    coded = source[offset:offset + length]
    tile_size = struct.unpack(">II", properties[b"ispe"][12:20])
    ispe_box = lambda size: full_box(b"ispe", 0, 0, struct.pack(">II", *size))
    infe = lambda item, kind, hidden: full_box(b"infe", 2, 1 if hidden else 0, struct.pack(">HH", item, 0) + kind + b"\0")
    grid = bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", *canvas)
    tiles = list(range(1, columns * rows + 1))
    grid_item = len(tiles) + 1

    def meta(tile_offset):
        iloc = full_box(b"iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">H", len(tiles) + 1)
                        + b"".join(struct.pack(">HHHHII", tile, 0, 0, 1, tile_offset, len(coded)) for tile in tiles)
                        + struct.pack(">HHHHII", grid_item, 1, 0, 1, 0, len(grid)))
        ipco = box(b"ipco", properties[b"hvcC"] + ispe_box(tile_size) + ispe_box(ispe))
        ipma = full_box(b"ipma", 0, 0, struct.pack(">I", len(tiles) + 1)
                        + b"".join(struct.pack(">HBBB", tile, 2, 0x81, 2) for tile in tiles)
                        + struct.pack(">HBB", grid_item, 1, 3))
        return full_box(b"meta", 0, 0, b"".join([
            full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 13),
            full_box(b"pitm", 0, 0, struct.pack(">H", grid_item)),
            iloc,
            full_box(b"iinf", 0, 0, struct.pack(">H", len(tiles) + 1)
                     + b"".join(infe(tile, b"hvc1", True) for tile in tiles) + infe(grid_item, b"grid", False)),
            box(b"iprp", ipco + ipma),
            full_box(b"iref", 0, 0, box(b"dimg", struct.pack(">HH", grid_item, len(tiles))
                                        + b"".join(struct.pack(">H", tile) for tile in tiles))),
            box(b"idat", grid)]))

    ftyp = box(b"ftyp", b"heic" + bytes(4) + b"mif1heicmiaf")
    start = len(ftyp) + len(meta(0)) + 8
    return ftyp + meta(start) + box(b"mdat", coded)


def read(name):
    with open(os.path.join(OUT, name), "rb") as f:
        return f.read()


avif = read("avif-alpha.avif")
primary = struct.unpack(">H", avif[meta_boxes(avif)[b"pitm"][1] + 4:][:2])[0]
alpha = next(item for item in iloc_extents(avif) if item != primary)
# The primary image, its alpha image or its thumbnail item with no coded data.
out("avif-no-coded-data.avif", without_data(avif, primary))
out("avif-alpha-no-coded-data.avif", without_data(avif, alpha))
thumbnailed = read("embedded-thumbnail.avif")
_, iref, iref_end = meta_boxes(thumbnailed)[b"iref"]
thumbnail_item = next(struct.unpack(">H", thumbnailed[b:b + 2])[0]
                      for k, _, b, _ in boxes(thumbnailed, iref + 4, iref_end) if k == b"thmb")
out("avif-thumbnail-no-coded-data.avif", without_data(thumbnailed, thumbnail_item))
# A valid 1x1 grid (as phones store their photos, in 512x512 tiles), and one whose canvas is
# 20000x20000 while the item declares the tile's size: libheif allocates the canvas.
plain = read("orient-1.heic")
tile_size = struct.unpack(">II", ipco_properties(plain)[b"ispe"][12:20])
out("heic-grid.heic", heic_grid(plain, tile_size, tile_size))
out("heic-grid-canvas-past-ispe.heic", heic_grid(plain, (20000, 20000), tile_size))
# Four tiles, as a phone's 48: the picture twice across and twice down.
doubled = (tile_size[0] * 2, tile_size[1] * 2)
out("heic-grid-2x2.heic", heic_grid(plain, doubled, doubled, columns=2, rows=2))

# An HEVC and an AV1 image whose bitstream codes 4096x4096 (flat grey: a few KB) while the item
# declares 96x64: libde265 and dav1d decode what the bitstream says.
with tempfile.TemporaryDirectory() as work:
    flat = os.path.join(work, "flat.png")
    run("convert", "-size", "4096x4096", "xc:gray50", flat)
    for extension, flags in (("heic", []), ("avif", ["-A"])):
        coded = os.path.join(work, "coded." + extension)
        subprocess.run(["heif-enc", *flags, "-q", "10", flat, "-o", coded], check=True, stdout=subprocess.DEVNULL)
        with open(coded, "rb") as f:
            data = bytearray(f.read())
        ispe = ipco_properties(bytes(data))[b"ispe"]
        at = data.index(ispe) + 12
        assert struct.unpack(">II", data[at:at + 8]) == (4096, 4096)
        data[at:at + 8] = struct.pack(">II", 96, 64)
        out(f"{extension}-coded-past-ispe.{extension}", bytes(data))
