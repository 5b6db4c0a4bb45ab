"""Makes the gallery load test's inputs in DIR: `make_load_corpus.py DIR` (Pillow and numpy).

- DIR/images: photo-like JPEGs of mixed sizes (1, 6 and 12 MP) and two PNGs;
- DIR/anchor/anchor.jpg: imgproxy's published benchmark shape, a 7360x4912 JPEG of about 29 MB;
- DIR/uploads: an upload body (a 1 MP JPEG), a bomb's header (its first 8 KiB, claiming 65000x65000)
  and text.
Deterministic; reused when complete.
"""
import io
import os
import sys

import numpy as np
from PIL import Image, ImageDraw

DIR = sys.argv[1]


def photo(width, height, seed, grain):
    """Smooth colour fields, hard-edged shapes and sensor-like grain: JPEG sizes like a photo's."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)
    im = Image.fromarray(small).resize((width, height), Image.Resampling.BICUBIC)
    draw = ImageDraw.Draw(im)
    for _ in range(20):
        x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
        r = int(rng.integers(width // 40, width // 8))
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)((x - r, y - r // 2, x + r, y + r // 2), fill=colour)
    pixels = np.asarray(im, dtype=np.int16)
    pixels += rng.integers(-grain, grain + 1, (height, width, 1), dtype=np.int16)
    pixels += rng.integers(-grain // 3, grain // 3 + 1, pixels.shape, dtype=np.int16)
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def save(path, im, **options):
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        im.save(path + ".tmp", format=options.pop("format"), **options)
        os.replace(path + ".tmp", path)
        print(path, os.path.getsize(path) >> 10, "KiB")


sizes = [(1200, 800)] * 8 + [(3000, 2000)] * 8 + [(4000, 3000)] * 6
for index, (w, h) in enumerate(sizes):
    path = os.path.join(DIR, "images", f"photo-{w}x{h}-{index:02}.jpg")
    if not os.path.exists(path):
        save(path, photo(w, h, index, 8), format="JPEG", quality=88)
for index in range(2):
    path = os.path.join(DIR, "images", f"graphic-{index}.png")
    if not os.path.exists(path):
        save(path, photo(2000, 1500, 100 + index, 2), format="PNG")

# The anchor: the quality chosen so that the file lands near imgproxy's 29 MB.
anchor = os.path.join(DIR, "anchor", "anchor.jpg")
if not os.path.exists(anchor):
    im = photo(7360, 4912, 7, 32)
    best = None
    for quality in (90, 93, 95, 96, 97, 98, 99):
        buffer = io.BytesIO()
        im.save(buffer, format="JPEG", quality=quality, subsampling=0)
        if best is None or abs(buffer.tell() - 29e6) < abs(best.tell() - 29e6):
            best = buffer
    os.makedirs(os.path.dirname(anchor), exist_ok=True)
    with open(anchor, "wb") as f:
        f.write(best.getvalue())
    print(anchor, os.path.getsize(anchor) >> 20, "MiB")

uploads = os.path.join(DIR, "uploads")
good = os.path.join(uploads, "good.jpg")
if not os.path.exists(good):
    save(good, photo(1280, 960, 42, 8), format="JPEG", quality=88)
    data = bytearray(open(good, "rb").read())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = (65000).to_bytes(2, "big") * 2
    # The header and a little scan data: refused once the header is in, the whole body already sent
    # (a bigger body is refused as early, and its connection closed: the tests cover that).
    open(os.path.join(uploads, "bomb.jpg"), "wb").write(bytes(data[:8192]))
    open(os.path.join(uploads, "text.txt"), "wb").write(b"this is not an image\n" * 50)
