#!/usr/bin/env python3
"""Writes a HEIC whose primary image is a grid of HEVC tiles, as phones store their photos (512x512
tiles, the canvas cut at the right and bottom edges), from any picture ImageMagick reads:

    python3 scripts/heic-grid.py INPUT OUTPUT [--tile 512] [--quality 50] [--irot N] [--imir AXIS]
    python3 scripts/heic-grid.py --fixtures OUT-DIR

The second writes the test fixtures: grids of the quadrants (red top left, green top right, blue
bottom left, yellow bottom right, as shown) stored turned and mirrored so that their `irot` and
`imir` show them upright, in tiles that do not fill the canvas (heic-grid-irot1-imir0.heic,
heic-grid-irot2.heic, heic-grid-irot3.heic, heic-grid-imir1.heic), and phone-48mp-grid.heic: an
8064x6048 photo's grid of 16x12 tiles of 512x512 (flat quadrants: tiles coded alike share their
data, so the file is small), stored turned a quarter clockwise with an `irot` of 1.

Each tile is cut by ImageMagick 6 (`convert`, padded black past the picture's edges) and coded by
libheif's `heif-enc` (4:2:0, with the `colr` nclx it writes, kept on each tile); the grid item
carries the canvas size (`ispe`) and, when asked, an `irot` (anticlockwise quarter turns) and an
`imir` (libheif 1.15: axis 1 mirrors each row, 0 the rows' order), in that order. Used for the
measurements of issue 30 and by nothing committed: big inputs are made at test time.
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from isobmff import box, boxes, full_box  # noqa: E402


def children(data, kind_path):
    """The body range of the first box along `kind_path` (full boxes' headers skipped for meta)."""
    start, end = 0, len(data)
    for kind in kind_path:
        for k, _, body, box_end in boxes(data, start, end):
            if k == kind:
                start, end = body + (4 if kind == b"meta" else 0), box_end
                break
        else:
            raise ValueError(f"no {kind}")
    return start, end


def coded_tile(path):
    """(properties {type: whole box}, coded data) of a one-image HEIC heif-enc wrote."""
    with open(path, "rb") as f:
        data = f.read()
    ipco = children(data, [b"meta", b"iprp", b"ipco"])
    properties = {k: data[s:e] for k, s, _, e in boxes(data, *ipco)}
    iloc, _ = children(data, [b"meta", b"iloc"])
    version, sizes, more = data[iloc], data[iloc + 4], data[iloc + 5]
    base_size = more >> 4
    assert version == 0 and sizes == 0x44 and base_size in (0, 4), "heif-enc's iloc: 4-byte offsets and lengths"
    at = iloc + 8 + 4  # past the item count, the item id and the data reference index
    base = int.from_bytes(data[at:at + base_size], "big")
    at += base_size
    assert struct.unpack(">H", data[at:at + 2])[0] == 1, "one extent"
    offset, length = struct.unpack(">II", data[at + 2:at + 10])
    offset += base
    return properties, data[offset:offset + length]


def quadrants(path, width, height):
    """The quadrants, upright, `width` x `height`."""
    w, h = width // 2, height // 2
    subprocess.run(["convert", "-size", f"{w}x{h}", "xc:red", "xc:lime", "+append", "(", "-size", f"{width - w}x{height - h}",
                    "xc:blue", "xc:yellow", "+append", ")", "-append", "-resize", f"{width}x{height}!", path], check=True)


def fixtures(out):
    """The test fixtures (see the notes at the top)."""
    here = os.path.abspath(__file__)
    # How to store the upright picture for each list of transforms: their inverses, last first.
    undo = {("irot", 1): ["-rotate", "90"], ("irot", 2): ["-rotate", "180"], ("irot", 3): ["-rotate", "270"],
            ("imir", 1): ["-flop"], ("imir", 0): ["-flip"]}
    cases = [("heic-grid-irot1-imir0.heic", [("irot", 1), ("imir", 0)], 150, 100, 64),
             ("heic-grid-irot2.heic", [("irot", 2)], 150, 100, 64),
             ("heic-grid-irot3.heic", [("irot", 3)], 150, 100, 64),
             ("heic-grid-imir1.heic", [("imir", 1)], 150, 100, 64),
             ("phone-48mp-grid.heic", [("irot", 1)], 6048, 8064, 512)]
    with tempfile.TemporaryDirectory() as work:
        for name, transforms, width, height, tile in cases:
            upright, stored = os.path.join(work, "upright.png"), os.path.join(work, "stored.png")
            quadrants(upright, width, height)
            subprocess.run(["convert", upright] + [a for t in reversed(transforms) for a in undo[t]] + ["+repage", stored], check=True)
            flags = [a for kind, value in transforms for a in (f"--{kind}", str(value))]
            subprocess.run([sys.executable, here, stored, os.path.join(out, name), "--tile", str(tile)] + flags, check=True)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--fixtures":
        return fixtures(sys.argv[2])
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--tile", type=int, default=512)
    parser.add_argument("--quality", type=int, default=50)
    parser.add_argument("--irot", type=int)
    parser.add_argument("--imir", type=int)
    args = parser.parse_args()
    width, height = map(int, subprocess.run(["identify", "-format", "%w %h", args.input], check=True,
                                            capture_output=True, text=True).stdout.split())
    columns, rows = -(-width // args.tile), -(-height // args.tile)
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["convert", args.input, "+repage", "-crop", f"{args.tile}x{args.tile}", "+repage", "-background", "black",
                        "-extent", f"{args.tile}x{args.tile}", "PNG24:" + os.path.join(work, "tile-%05d.png")], check=True)
        tiles, coded_by_pixels = [], {}
        for index in range(columns * rows):
            png = os.path.join(work, f"tile-{index:05d}.png")
            pixels = subprocess.run(["convert", png, "rgb:-"], check=True, capture_output=True).stdout
            if pixels not in coded_by_pixels:
                heic = png[:-4] + ".heic"
                subprocess.run(["heif-enc", "-q", str(args.quality), png, "-o", heic], check=True, stdout=subprocess.DEVNULL)
                coded_by_pixels[pixels] = coded_tile(heic)
            tiles.append(coded_by_pixels[pixels])

    # Properties, each distinct box once; 1-based indices.
    ipco_boxes = []

    def index_of(whole):
        if whole not in ipco_boxes:
            ipco_boxes.append(whole)
        return ipco_boxes.index(whole) + 1

    grid_item = len(tiles) + 1
    associations = []
    for item, (properties, _) in enumerate(tiles, 1):
        associations.append((item, [(True, index_of(properties[b"hvcC"]))]
                             + [(False, index_of(properties[k])) for k in (b"ispe", b"colr", b"pixi") if k in properties]))
    grid_properties = [(False, index_of(full_box(b"ispe", 0, 0, struct.pack(">II", width, height))))]
    if args.irot is not None:
        grid_properties.append((True, index_of(box(b"irot", bytes([args.irot & 3])))))
    if args.imir is not None:
        grid_properties.append((True, index_of(box(b"imir", bytes([args.imir & 1])))))
    associations.append((grid_item, grid_properties))
    wide = len(ipco_boxes) > 127
    ipma = full_box(b"ipma", 0, 1 if wide else 0, struct.pack(">I", len(associations)) + b"".join(
        struct.pack(">HB", item, len(entries)) + b"".join(
            struct.pack(">H", (0x8000 if essential else 0) | index) if wide else bytes([(0x80 if essential else 0) | index])
            for essential, index in entries)
        for item, entries in associations))
    grid = bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", width, height)
    infe = lambda item, kind, hidden: full_box(b"infe", 2, 1 if hidden else 0, struct.pack(">HH", item, 0) + kind + b"\0")

    # Tiles coded alike (flat colour) share their data.
    distinct = list(dict.fromkeys(coded for _, coded in tiles))

    def meta(data_offset):
        entries, offsets, at = [], {}, data_offset
        for coded in distinct:
            offsets[coded], at = at, at + len(coded)
        for item, (_, coded) in enumerate(tiles, 1):
            entries.append(struct.pack(">HHHHII", item, 0, 0, 1, offsets[coded], len(coded)))
        entries.append(struct.pack(">HHHHII", grid_item, 1, 0, 1, 0, len(grid)))
        return full_box(b"meta", 0, 0, b"".join([
            full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 13),
            full_box(b"pitm", 0, 0, struct.pack(">H", grid_item)),
            full_box(b"iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">H", len(entries)) + b"".join(entries)),
            full_box(b"iinf", 0, 0, struct.pack(">H", grid_item)
                     + b"".join(infe(item, b"hvc1", True) for item in range(1, grid_item)) + infe(grid_item, b"grid", False)),
            box(b"iprp", box(b"ipco", b"".join(ipco_boxes)) + ipma),
            full_box(b"iref", 0, 0, box(b"dimg", struct.pack(">HH", grid_item, len(tiles))
                                        + b"".join(struct.pack(">H", item) for item in range(1, grid_item)))),
            box(b"idat", grid)]))

    ftyp = box(b"ftyp", b"heic" + bytes(4) + b"mif1heicmiaf")
    start = len(ftyp) + len(meta(0)) + 8
    with open(args.output, "wb") as f:
        f.write(ftyp + meta(start) + box(b"mdat", b"".join(distinct)))


main()
