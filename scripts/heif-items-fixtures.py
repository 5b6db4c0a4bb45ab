#!/usr/bin/env python3
"""Writes the fixtures of HEIF files whose items relate to each other in ways libheif 1.15 gets
wrong or cannot decode (issue 30): alpha images without their own `ispe` or without the colour
image's `irot`, items stored in `idat` under a `meta` box of size 0, a `grpl` box libheif 1.15
cannot parse, a grid whose tile is also another grid's, an item predicted from another, items
coded with codecs libheif 1.15 has none for (`unci`, `avc1`), and AVIF image sequences whose
`meta` box names no primary image (no `pitm`), 10 bits a sample, as libavif's
Chimera-AV1-10bit-480x270.avif.

    python3 scripts/heif-items-fixtures.py OUT-DIR

Needs ImageMagick 6 (`convert`) and libheif's `heif-enc` for the coded pictures (one AVIF with
alpha); every box around them is written here. The picture is 96x64, quadrants: red opaque top
left, green half transparent (alpha 128) top right, blue opaque bottom left, yellow a quarter
opaque (alpha 64) bottom right.
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
QUADRANTS = [(255, 0, 0, 255), (0, 255, 0, 128), (0, 0, 255, 255), (255, 255, 0, 64)]
ALPHA_TYPE = b"urn:mpeg:mpegB:cicp:systems:auxiliary:alpha\0"


def out(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def pam():
    rows = bytearray()
    for y in range(H):
        for x in range(W):
            rows += bytes(QUADRANTS[(0 if x < W // 2 else 1) + (0 if y < H // 2 else 2)])
    return b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (W, H) + bytes(rows)


# --- ISO BMFF ----------------------------------------------------------------------------------

def coded_items(path):
    """{item id: (its property boxes in association order, its coded bytes)} of a file heif-enc
    wrote: 16-bit ids, one extent an item, 4-byte iloc fields and base offsets of 0 or 4 bytes."""
    data = open(path, "rb").read()
    meta = next((b + 4, e) for k, _, b, e in boxes(data) if k == b"meta")
    inner = {k: (b, e) for k, _, b, e in boxes(data, *meta)}
    iloc, _ = inner[b"iloc"]
    version, sizes, base_size = data[iloc], data[iloc + 4], data[iloc + 5] >> 4
    assert sizes == 0x44 and base_size in (0, 4), "4-byte fields"
    count = struct.unpack(">H", data[iloc + 6:iloc + 8])[0]
    at, located = iloc + 8, {}
    for _ in range(count):
        item = struct.unpack(">H", data[at:at + 2])[0]
        at += 2 + (2 if version else 0) + 2
        base = int.from_bytes(data[at:at + base_size], "big")
        at += base_size
        assert struct.unpack(">H", data[at:at + 2])[0] == 1, "one extent"
        offset, length = struct.unpack(">II", data[at + 2:at + 10])
        located[item] = data[base + offset:base + offset + length]
        at += 10
    iprp = inner[b"iprp"]
    ipco = next((b, e) for k, _, b, e in boxes(data, *iprp) if k == b"ipco")
    properties = [data[s:e] for _, s, _, e in boxes(data, *ipco)]
    ipma = next(b for k, _, b, _ in boxes(data, *iprp) if k == b"ipma")
    at, associated = ipma + 8, {}
    for _ in range(struct.unpack(">I", data[ipma + 4:ipma + 8])[0]):
        item, n = struct.unpack(">HB", data[at:at + 3])
        associated[item] = [properties[(i & 0x7F) - 1] for i in data[at + 3:at + 3 + n]]
        at += 3 + n
    return {item: (associated[item], located[item]) for item in located}


def is_kind(prop, kind):
    return prop[4:8] == kind


ESSENTIAL = (b"av1C", b"hvcC", b"avcC", b"uncC", b"irot", b"imir", b"clap")


def heif(items, references=(), brands=(b"avif", b"mif1", b"avif", b"miaf"), in_idat=False, meta_size0=False,
         extra_meta=b"", primary=1, hidden=(), extra_boxes=b"", mdat_size0=False):
    """A HEIF file of `items` [(id, type, properties, data)], item `primary` primary (None: no
    pitm), the items of `hidden` hidden, with `references` [(type, from, [to])]: the data in an
    mdat box after the meta box and `extra_boxes`, or in its idat box (construction method 1);
    the meta box's size 0 ("to the end of the file") when `meta_size0`, the mdat box's when
    `mdat_size0`."""
    listed = []
    for _, _, properties, _ in items:
        for prop in properties:
            if prop not in listed:
                listed.append(prop)
    ipma = b"".join(struct.pack(">HB", item, len(props))
                    + bytes((0x80 if p[4:8] in ESSENTIAL else 0) | listed.index(p) + 1 for p in props)
                    for item, _, props, _ in items)
    iref = b"".join(box(kind, struct.pack(">HH", source, len(to)) + b"".join(struct.pack(">H", t) for t in to))
                    for kind, source, to in references)

    def meta(data_offset):
        locations, at = b"", data_offset
        for item, _, _, data in items:
            locations += struct.pack(">HHHHII", item, 1 if in_idat else 0, 0, 1, at, len(data))
            at += len(data)
        body = b"".join([
            full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 13),
            full_box(b"pitm", 0, 0, struct.pack(">H", primary)) if primary is not None else b"",
            full_box(b"iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">H", len(items)) + locations),
            full_box(b"iinf", 0, 0, struct.pack(">H", len(items)) + b"".join(
                full_box(b"infe", 2, 1 if item in hidden else 0, struct.pack(">HH", item, 0) + kind + b"\0")
                for item, kind, _, _ in items)),
            full_box(b"iref", 0, 0, iref) if references else b"",
            box(b"iprp", box(b"ipco", b"".join(listed)) + full_box(b"ipma", 0, 0, struct.pack(">I", len(items)) + ipma)),
            extra_meta,
            box(b"idat", b"".join(data for *_, data in items)) if in_idat else b""])
        whole = full_box(b"meta", 0, 0, body)
        return (b"\0\0\0\0" + whole[4:]) if meta_size0 else whole

    ftyp = box(b"ftyp", brands[0] + bytes(4) + b"".join(brands[1:]))
    if in_idat:
        return ftyp + meta(0) + extra_boxes
    start = len(ftyp) + len(meta(0)) + len(extra_boxes) + 8
    mdat = box(b"mdat", b"".join(data for *_, data in items))
    return ftyp + meta(start) + extra_boxes + (bytes(4) + mdat[4:] if mdat_size0 else mdat)


def irot(quarter_turns_anticlockwise):
    return box(b"irot", bytes([quarter_turns_anticlockwise]))


def ispe(width, height):
    return full_box(b"ispe", 0, 0, struct.pack(">II", width, height))


def grid(columns, width, height):
    """A grid item's data: one row of `columns` tiles, the output width x height."""
    return struct.pack(">BBBBHH", 0, 0, 0, columns - 1, width, height)


with tempfile.TemporaryDirectory() as work:
    open(os.path.join(work, "rgba.pam"), "wb").write(pam())
    subprocess.run(["convert", os.path.join(work, "rgba.pam"), "PNG32:" + os.path.join(work, "rgba.png")], check=True)
    subprocess.run(["heif-enc", "-A", "-q", "95", os.path.join(work, "rgba.png"), "-o", os.path.join(work, "rgba.avif")],
                   check=True, stdout=subprocess.DEVNULL)
    coded = coded_items(os.path.join(work, "rgba.avif"))
    # 10 bits a sample, opaque: heif-enc writes that depth from a 16-bit PNG. libheif 1.15's aom
    # encoder (aom 3.6) asserts on 10-bit 4:2:0 and 4:4:4 and fails on 10-bit alpha: 4:2:2.
    subprocess.run(["convert", os.path.join(work, "rgba.pam"), "-alpha", "off", "-depth", "16",
                    "PNG48:" + os.path.join(work, "rgb16.png")], check=True)
    subprocess.run(["heif-enc", "-A", "-b", "10", "-p", "chroma=422", "-q", "95", os.path.join(work, "rgb16.png"), "-o",
                    os.path.join(work, "rgb10.avif")], check=True, stdout=subprocess.DEVNULL)
    coded10 = coded_items(os.path.join(work, "rgb10.avif"))
colour_properties, colour = coded[1]
alpha_properties, alpha = coded[2]
assert any(is_kind(p, b"auxC") for p in alpha_properties), "heif-enc wrote item 2 as the alpha image"
ALPHA_OF_1 = [(b"auxl", 2, [1])]

# The alpha image without its own ispe (cavif-rs before its fix; libavif's alpha_noispe.avif):
# libheif 1.15 leaves the alpha out. Shown 96x64 with the quadrants' alpha.
out("avif-alpha-noispe.avif", heif([(1, b"av01", colour_properties, colour),
                                    (2, b"av01", [p for p in alpha_properties if not is_kind(p, b"ispe")], alpha)],
                                   ALPHA_OF_1))
# The colour image turned a quarter anticlockwise, its alpha image not (libavif 1.3.0 wrote it so;
# libavif's abc_color_irot_alpha_NOirot.avif): libavif applies the colour image's turn to both.
# Shown 64x96: green (alpha 128) top left, red (opaque) bottom left, yellow (64) top right, blue
# (opaque) bottom right.
out("avif-alpha-noirot.avif", heif([(1, b"av01", colour_properties + [irot(1)], colour),
                                    (2, b"av01", alpha_properties, alpha)], ALPHA_OF_1))
# Both turned (libavif's abc_color_irot_alpha_irot.avif): shown as the one above.
out("avif-alpha-irot.avif", heif([(1, b"av01", colour_properties + [irot(1)], colour),
                                  (2, b"av01", alpha_properties + [irot(1)], alpha)], ALPHA_OF_1))
# Both items' data in the meta box's idat, the meta box's size 0 (libavif's
# draw_points_idat_metasize0.avif): the quadrants with their alpha.
out("avif-idat-meta-size0.avif", heif([(1, b"av01", colour_properties, colour), (2, b"av01", alpha_properties, alpha)],
                                      ALPHA_OF_1, in_idat=True, meta_size0=True))
# A pyramid entity group (pymd, as libheif 1.21's heif-enc writes it: layer descriptions after the
# entity ids), which libheif 1.15 reads past its group and fails on; the smaller layer refers to
# the larger with 'base' (libavif's pyramid_pymd.avif). Item 1 decodes by itself: the quadrants.
pymd = full_box(b"pymd", 0, 0, struct.pack(">III", 1, 2, 1) + struct.pack(">I", 3)
                + struct.pack(">HH", 96, 64) + struct.pack(">HHH", 2, 0, 0) + struct.pack(">HHH", 1, 0, 0))
out("avif-pyramid-group.avif", heif([(1, b"av01", colour_properties, colour), (3, b"av01", colour_properties, colour)],
                                    [(b"base", 1, [3])], extra_meta=box(b"grpl", pymd)))
# A colour grid (items 3 and 4) and an alpha grid (items 5 and 4) sharing tile 4 (libavif's
# color_grid_alpha_grid_tile_shared_in_dimg.avif, which libavif refuses): refused.
colour_tile = [p for p in colour_properties if not is_kind(p, b"colr")]
alpha_tile = [p for p in alpha_properties if not is_kind(p, b"auxC")]
grid_data = grid(2, 2 * W, H)
out("avif-grid-shared-tile.avif", heif([(1, b"grid", [ispe(2 * W, H)], grid_data), (3, b"av01", colour_tile, colour),
                                        (4, b"av01", colour_tile, colour),
                                        (2, b"grid", [ispe(2 * W, H)] + [p for p in alpha_properties if is_kind(p, b"auxC")],
                                         grid_data),
                                        (5, b"av01", alpha_tile, alpha)],
                                       [(b"dimg", 1, [3, 4]), (b"dimg", 2, [5, 4]), (b"auxl", 2, [1])]))
# The primary image coded by prediction from item 3 ('pred'): libheif 1.15 decodes its data alone,
# which makes noise. Refused.
out("avif-predicted.avif", heif([(1, b"av01", colour_properties, colour), (3, b"av01", colour_properties, colour)],
                                [(b"pred", 1, [3])]))
# Codecs libheif 1.15 has no decoder for: uncompressed (ISO 23001-17 'unci', 8x8 RGB, 8 bits a
# component) and AVC ('avc1'). Refused as unsupported, the codec named.
components = box(b"cmpd", struct.pack(">IHHH", 3, 4, 5, 6))  # red, green, blue
uncc = full_box(b"uncC", 0, 0, struct.pack(">I", 0) + struct.pack(">I", 3) + b"".join(
    struct.pack(">HBBB", i, 7, 0, 0) for i in range(3)) + bytes([0, 0, 0, 0]) + struct.pack(">IIIII", 0, 0, 0, 0, 0))
out("heif-unci.heif", heif([(1, b"unci", [components, uncc, ispe(8, 8)], bytes(8 * 8 * 3))], brands=(b"mif1", b"mif1")))
avcc = box(b"avcC", bytes([1, 0x42, 0, 0x1E, 0xFF, 0xE0, 0]))
out("heif-avc1.heif", heif([(1, b"avc1", [avcc, ispe(W, H)], b"\0\0\0\x02\x65\x88")], brands=(b"avci", b"mif1", b"avci")))

# AVIF image sequences (brands avis/msf1/miaf/MA1B, a movie box) whose meta box names no primary
# image, as libavif's Chimera-AV1-10bit-480x270.avif: one 10-bit colour item, opaque (4:2:2).
# libheif 1.15 refuses a file without pitm; MagickIO shows the item as the twin with its pitm
# shows it: the quadrants, opaque, 10 bits a sample.
AVIS = (b"avis", b"avis", b"msf1", b"miaf", b"MA1B")
colour10_properties, colour10 = coded10[1]
SEQUENCE = [(1, b"av01", colour10_properties, colour10)]
out("avifs-10bit-pitm.avif", heif(SEQUENCE, brands=AVIS, extra_boxes=movie()))
out("avifs-10bit-no-pitm.avif", heif(SEQUENCE, brands=AVIS, extra_boxes=movie(), primary=None))
# The same with the mdat box last and of size 0 ("to the end of the file"): shown to libheif with
# its size, as the meta box naming the primary image follows it.
out("avifs-10bit-no-pitm-mdat-size0.avif", heif(SEQUENCE, brands=AVIS, extra_boxes=movie(), primary=None,
                                                mdat_size0=True))
# A colour item (1) and its alpha item (2), 8 bits, no pitm: the alpha item is the colour item's
# part, so item 1 is shown, with its alpha (the quadrants with their alpha).
out("avifs-alpha-no-pitm.avif", heif([(1, b"av01", colour_properties, colour), (2, b"av01", alpha_properties, alpha)],
                                     ALPHA_OF_1, brands=AVIS, extra_boxes=movie(), primary=None))
# Refused as unsupported: two colour items (1 and 3) and no pitm; the one item hidden.
out("avifs-two-items-no-pitm.avif", heif(SEQUENCE + [(3, b"av01", colour10_properties, colour10)], brands=AVIS,
                                         extra_boxes=movie(), primary=None))
out("avifs-hidden-item-no-pitm.avif", heif(SEQUENCE, brands=AVIS, extra_boxes=movie(), primary=None, hidden=(1,)))
