"""Pillow's best thumbnail, as a command: `pillow_thumb.py OUTDIR SIZE jpeg|png FILE...`.

Also imported by inproc.py. draft() asks libjpeg for the smallest DCT scale that still leaves twice
the target on each axis (aspect-aware; thumbnail()'s own draft uses a square box, which decodes a
24 MP photo at full size for 1024 px), then thumbnail() box-reduces to within 2x (reducing_gap) and
finishes with LANCZOS. JPEG q85 (Pillow's default 4:2:0, no optimize), PNG at Pillow's default level.
"""
import io
import os
import sys

from PIL import Image

Image.MAX_IMAGE_PIXELS = None  # the corpus has 100 MP files; Pillow would warn at 89 MP


def fitted(width, height, size):
    scale = size / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def thumbnail(path, size, fmt):
    """The encoded thumbnail of `path` (bytes) and its size."""
    with Image.open(path) as im:
        w, h = fitted(*im.size, size)
        im.draft("RGB", (2 * w, 2 * h))
        im.thumbnail((size, size), Image.Resampling.LANCZOS, reducing_gap=2.0)
        if fmt == "jpeg" and im.mode != "RGB":
            im = im.convert("RGB")
        out = io.BytesIO()
        im.save(out, "JPEG", quality=85) if fmt == "jpeg" else im.save(out, "PNG")
        return out.getvalue(), im.size


if __name__ == "__main__":
    outdir, size, fmt = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    for path in sys.argv[4:]:
        data, _ = thumbnail(path, size, fmt)
        name = os.path.splitext(os.path.basename(path))[0] + (".jpg" if fmt == "jpeg" else ".png")
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
