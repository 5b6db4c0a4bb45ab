#!/usr/bin/env python3
"""MagickIO's attention (or entropy) crop against libvips' on a folder of photos.

    pip install pyvips pyvips-binary pillow
    swift build -c release --product thumbnail
    Benchmarks/scripts/smartcrop_compare.py PHOTO_DIR --thumbnail .build/release/thumbnail \
        --out /tmp/smartcrop [--crop attention] [--size 256]

For each photo both libraries make a SIZE x SIZE fill thumbnail. MagickIO's window is the
`"crop"` its `thumbnail --json` reports (in the upright source's pixels). libvips' is the one its
`thumbnail(..., crop=...)` takes: the photo shrunk to cover the box (the same shrink thumbnail
makes), then `smartcrop` with the same `interesting`, whose `attention_x`/`attention_y` (8.17 and
later) or the crop's position give the window, scaled back to source pixels. Prints one line per
photo (IoU of the two windows), the share with IoU >= 0.7, and writes contact sheets (the photo
with both windows drawn, libvips' thumbnail, MagickIO's) to OUT/sheet-N.png for looking at.
The photos are never copied anywhere but OUT.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import pyvips
from PIL import Image, ImageDraw

EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".heic", ".avif")


def iou(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    h = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = w * h
    union = aw * ah + bw * bh - inter
    return inter / union if union else 0.0


def vips_window(path, size, crop):
    """libvips' crop window in the upright source's pixels, and its thumbnail (PIL)."""
    full = pyvips.Image.new_from_file(path).autorot()
    width, height = full.width, full.height
    # The cover shrink thumbnail makes before it crops.
    if width * size >= height * size and width / height >= 1:
        scaled = pyvips.Image.thumbnail(path, 10_000_000, height=size, size="down")
    else:
        scaled = pyvips.Image.thumbnail(path, size, height=10_000_000, size="down")
    scaled = scaled.copy_memory()  # read more than once below
    cw, ch = min(size, scaled.width), min(size, scaled.height)
    _, opts = scaled.smartcrop(cw, ch, interesting=crop, attention_x=True, attention_y=True)
    if crop == "attention":
        left = min(max(opts["attention_x"] - cw // 2, 0), scaled.width - cw)
        top = min(max(opts["attention_y"] - ch // 2, 0), scaled.height - ch)
    else:
        # Entropy reports no position: find the window by matching the crop in the scaled image.
        left, top = locate(scaled, scaled.smartcrop(cw, ch, interesting=crop), cw, ch)
    thumb = pyvips.Image.thumbnail(path, size, height=size, crop=crop)
    sx, sy = width / scaled.width, height / scaled.height
    window = (round(left * sx), round(top * sy), round(cw * sx), round(ch * sy))
    return window, to_pil(thumb), (width, height)


def locate(scaled, cropped, cw, ch):
    best = None
    for left in range(scaled.width - cw + 1):
        for top in range(scaled.height - ch + 1):
            diff = (scaled.crop(left, top, cw, ch) - cropped).abs().avg()
            if best is None or diff < best[0]:
                best = (diff, left, top)
            if diff == 0:
                return left, top
    return best[1], best[2]


def to_pil(image):
    image = image.colourspace("srgb")
    if image.bands == 4:
        image = image.flatten(background=255)
    if image.bands == 1:
        image = image.bandjoin([image, image])
    return Image.frombytes("RGB", (image.width, image.height), image.cast("uchar").write_to_memory())


def magickio_windows(thumbnail, photos, size, crop, out):
    result = subprocess.run(
        [thumbnail, *photos, "--size", f"{size}x{size}", "--mode", "fill", "--crop", crop, "--json",
         "--output", out, "--format", "png", "--time-limit", "0"],
        capture_output=True, text=True)
    windows = {}
    for line in result.stdout.splitlines():
        item = json.loads(line)
        if "crop" in item:
            c = item["crop"]
            windows[item["input"]] = ((c["x"], c["y"], c["width"], c["height"]), item["output"])
        elif "output" in item:
            windows[item["input"]] = (None, item["output"])
    return windows


def sheet(rows, size, path):
    label = 14
    pane = size + 8
    canvas = Image.new("RGB", (3 * pane + 8, len(rows) * (pane + label) + 8), "white")
    draw = ImageDraw.Draw(canvas)
    for i, (name, source, vips_rect, ours_rect, vips_thumb, ours_thumb, score) in enumerate(rows):
        y = 8 + i * (pane + label)
        draw.text((8, y), f"{name}  IoU {score:.2f}   left: both windows (red libvips, green MagickIO)", fill="black")
        y += label
        upright, source = source
        scale = size / max(upright)
        small = source.resize((max(1, round(upright[0] * scale)), max(1, round(upright[1] * scale))))
        shown = ImageDraw.Draw(small)
        for rect, colour in ((vips_rect, "red"), (ours_rect, "lime")):
            if rect:
                x, yy, w, h = (v * scale for v in rect)
                shown.rectangle([x, yy, x + w - 1, yy + h - 1], outline=colour, width=2)
        canvas.paste(small, (8, y))
        canvas.paste(vips_thumb, (8 + pane, y))
        canvas.paste(ours_thumb, (8 + 2 * pane, y))
    canvas.save(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--thumbnail", default=".build/release/thumbnail")
    parser.add_argument("--out", default="/tmp/smartcrop")
    parser.add_argument("--crop", default="attention", choices=["attention", "entropy"])
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--per-sheet", type=int, default=6)
    parser.add_argument("--differing", action="store_true", help="sheets only of photos with IoU < 0.7")
    args = parser.parse_args()

    photos = sorted(os.path.join(args.folder, f) for f in os.listdir(args.folder)
                    if f.lower().endswith(EXTENSIONS))
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        ours = magickio_windows(args.thumbnail, photos, args.size, args.crop, scratch)
        rows, same, compared = [], 0, 0
        print(f"libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}, crop={args.crop}, "
              f"{args.size}x{args.size}")
        for photo in photos:
            if photo not in ours:
                print(f"{os.path.basename(photo)}: MagickIO failed", file=sys.stderr)
                continue
            ours_rect, ours_file = ours[photo]
            vips_rect, vips_thumb, upright = vips_window(photo, args.size, args.crop)
            if ours_rect is None:
                continue  # a square photo: nothing cropped by either
            score = iou(ours_rect, vips_rect)
            compared += 1
            same += score >= 0.7
            print(f"{os.path.basename(photo)}\t{upright[0]}x{upright[1]}\tIoU {score:.2f}\t"
                  f"libvips {vips_rect}\tMagickIO {ours_rect}")
            if args.differing and score >= 0.7:
                continue
            source = (upright, to_pil(pyvips.Image.thumbnail(photo, 512, height=512)))
            rows.append((os.path.basename(photo), source, vips_rect, ours_rect, vips_thumb,
                         Image.open(ours_file).convert("RGB"), score))
        for n in range(0, len(rows), args.per_sheet):
            sheet(rows[n:n + args.per_sheet], args.size, os.path.join(args.out, f"sheet-{n // args.per_sheet + 1}.png"))
        print(f"same region (IoU >= 0.7): {same} of {compared}")


if __name__ == "__main__":
    main()
