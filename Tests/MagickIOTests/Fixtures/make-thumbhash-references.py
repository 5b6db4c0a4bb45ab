#!/usr/bin/env python3
"""Writes the ThumbHash fixtures (small PNGs, at most 100 pixels a side, so that MagickIO's
thumbnail pipeline hands their pixels to the encoder unchanged) and their reference hashes,
computed by an implementation that is not MagickIO's: the `thumbhash` package from PyPI
(`pip install thumbhash`, 0.1.2). The outputs are committed; run this by hand, never in a test.

Two things in thumbhash 0.1.2 differ from Evan Wallace's reference encoder and are put right in
the copy used here, each in one place:
- it rounds with Python's round(), which takes halves to even; the reference (and MagickIO) uses
  JavaScript's Math.round, which takes halves up: a flat colour lands exactly on such halves;
- its alpha branch reads `a_dc, a_ac, a_scale = encode_channel(...) if has_alpha else 1.0, [], 1.0`,
  which binds the whole tuple to a_dc and drops alpha's AC terms; the reference encodes them.
"""
import base64
import inspect
import json
import math
import struct
import sys
import zlib
from pathlib import Path

import thumbhash

here = Path(__file__).resolve().parent

source = inspect.getsource(thumbhash.rgba_to_thumb_hash)
broken = "a_dc, a_ac, a_scale = encode_channel(a, 5, 5) if has_alpha else 1.0, [], 1.0"
if broken not in source:
    sys.exit("thumbhash's encoder is not the 0.1.2 this script corrects")
source = source.replace(broken, "a_dc, a_ac, a_scale = encode_channel(a, 5, 5) if has_alpha else (1.0, [], 1.0)")
namespace = dict(vars(thumbhash), round=lambda x: math.floor(x + 0.5))
exec(source, namespace)
reference_encode = namespace["rgba_to_thumb_hash"]


def write_png(path, width, height, rgba):
    rows = b"".join(b"\x00" + bytes(rgba[y * width * 4:(y + 1) * width * 4]) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def picture(width, height, pixel):
    rgba = []
    for y in range(height):
        for x in range(width):
            rgba.extend(max(0, min(255, int(v))) for v in pixel(x / (width - 1), y / (height - 1)))
    return rgba


def landscape(u, v):  # a sky over a field, with a sun
    sun = math.exp(-((u - 0.7) ** 2 + (v - 0.25) ** 2) * 40)
    if v < 0.6:
        return (60 + 120 * v + 180 * sun, 120 + 100 * v + 150 * sun, 220 - 40 * v, 255)
    return (50 + 60 * u, 140 - 50 * (v - 0.6), 40, 255)


def portrait(u, v):  # stripes, dark at the top
    stripe = 1 if int(u * 6) % 2 else 0
    return (200 * v + 40 * stripe, 80 + 60 * stripe, 160 - 120 * v, 255)


def disc(u, v):  # an orange disc with a soft edge on transparency
    d = math.hypot(u - 0.5, v - 0.55) / 0.4
    alpha = 255 * max(0.0, min(1.0, (1 - d) * 4))
    return (240, 140 + 60 * v, 30, alpha)


def flat(u, v):
    return (51, 102, 153, 255)


fixtures = [
    ("thumbhash-landscape.png", 90, 60, landscape),
    ("thumbhash-portrait.png", 45, 100, portrait),
    ("thumbhash-alpha.png", 64, 64, disc),
    ("thumbhash-flat.png", 20, 20, flat),
]
references = {}
for name, width, height, pixel in fixtures:
    rgba = picture(width, height, pixel)
    write_png(here / name, width, height, rgba)
    hash_bytes = reference_encode(width, height, rgba)
    references[name] = {
        "thumbHash": base64.b64encode(bytes(hash_bytes)).decode(),
        "averageRGBA": list(thumbhash.thumb_hash_to_average_rgba(hash_bytes)),
        "aspectRatio": thumbhash.thumb_hash_to_approximate_aspect_ratio(hash_bytes),
    }
(here / "thumbhash-references.json").write_text(json.dumps(references, indent=2, sort_keys=True) + "\n")
print(json.dumps(references, indent=2, sort_keys=True))
