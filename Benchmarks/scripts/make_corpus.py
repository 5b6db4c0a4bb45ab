"""Builds the benchmark corpus into DIR (reused when complete): `make_corpus.py DIR [COUNT]`.

Photo-like content, fast: a few plasma-fractal bases from ImageMagick at 1000x750 (a 12 MP plasma
takes ImageMagick a minute), then per file a random crop of a base, upscaled with Pillow, some
hard-edged shapes (photos have edges, plasma has none) and fresh sensor-like noise, JPEG q90 4:2:0.
"""
import os
import shutil
import subprocess
import sys
from multiprocessing import Pool

import numpy as np
from PIL import Image, ImageDraw

DIR = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 200
BASES = 4


def base(i):
    return Image.open(os.path.join(DIR, "base", f"plasma{i}.png")).convert("RGB")


def photo(size, seed, mode="RGB", smooth=False):
    """A photo-like image of `size`: plasma, shapes, noise (none when `smooth`: a rendering's or a
    retouched picture's gradients); deterministic per seed."""
    rng = np.random.default_rng(seed)
    im = base(seed % BASES)
    w, h = im.size
    cw, ch = int(w * rng.uniform(0.6, 0.9)), int(h * rng.uniform(0.6, 0.9))
    x, y = int(rng.integers(0, w - cw)), int(rng.integers(0, h - ch))
    im = im.crop((x, y, x + cw, y + ch))
    if rng.random() < 0.5:
        im = im.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    im = im.resize(size, Image.Resampling.BICUBIC)
    draw = ImageDraw.Draw(im)
    for _ in range(12):
        x0, y0 = rng.integers(0, size[0]), rng.integers(0, size[1])
        r = int(rng.integers(size[0] // 40, size[0] // 8))
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        box = (x0 - r, y0 - r // 2, x0 + r, y0 + r // 2)
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=colour)
    pixels = np.asarray(im, dtype=np.int16)  # a copy: the type differs
    if not smooth:
        add_noise(pixels, size, rng)
    im = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    if mode == "RGBA":  # an alpha channel that matters: a soft vignette and a transparent hole
        yy, xx = np.mgrid[0 : size[1], 0 : size[0]]
        d = np.hypot((xx - size[0] / 2) / size[0], (yy - size[1] / 2) / size[1])
        alpha = np.clip(300 - d * 500, 0, 255).astype(np.uint8)
        alpha[size[1] // 3 : size[1] // 2, size[0] // 3 : size[0] // 2] = 0
        im.putalpha(Image.fromarray(alpha))
    return im


def add_noise(pixels, size, rng):
    """Adds to `pixels` in place. Fresh noise per file, made cheaply: normal noise at 1/4 size, repeated, uniform luma grain and a
    little colour grain (about 4.5 levels in all, a 12 MP JPEG of about 3 MB)."""
    coarse = rng.normal(0, 2.5, (size[1] // 2 + 1, size[0] // 2 + 1, 1)).astype(np.int16)
    luma = rng.integers(-6, 7, (size[1], size[0], 1), dtype=np.int16)
    pixels += coarse.repeat(2, 0).repeat(2, 1)[: size[1], : size[0]] + luma
    pixels += rng.integers(-3, 4, pixels.shape, dtype=np.int16)


def write(name, size, seed, **save):
    path = os.path.join(DIR, name)
    if os.path.exists(path):
        return
    im = photo(size, seed, "RGBA" if name.endswith(".png") else "RGB")
    if save.pop("bilevel", False):  # a scanned page's look: the photo thresholded to black and white
        im = im.convert("L").point(lambda v: 255 if v > 128 else 0).convert("1", dither=Image.Dither.NONE)
    im.save(path + ".tmp", format=save.pop("format"), **save)
    os.replace(path + ".tmp", path)


def write_photo(i):
    write(f"photos/photo{i:03d}.jpg", (4000, 3000), i, format="JPEG", quality=90)


def zone_plate(size):
    """cos(pi r^2 / R): the local frequency rises linearly from 0 to Nyquist at the corners."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    r2 = (xx - w / 2 + 0.5) ** 2 + (yy - h / 2 + 0.5) ** 2
    R = 2 * np.sqrt((w / 2) ** 2 + (h / 2) ** 2)  # frequency r/R cycles/px: 0.5 at the corner
    grey = (127.5 + 127.5 * np.cos(np.pi * r2 / R)).round().astype(np.uint8)
    return Image.fromarray(grey).convert("RGB")


def main():
    os.makedirs(os.path.join(DIR, "base"), exist_ok=True)
    os.makedirs(os.path.join(DIR, "photos"), exist_ok=True)
    # A policy that lets ImageMagick's own tools read the 100 MP files (Debian caps area at 128 MP,
    # memory at 256 MiB): bench.py points MAGICK_CONFIGURE_PATH here.
    with open(os.path.join(DIR, "policy.xml"), "w") as f:
        f.write('<policymap>\n'
                '  <policy domain="resource" name="memory" value="8GiB"/>\n'
                '  <policy domain="resource" name="map" value="8GiB"/>\n'
                '  <policy domain="resource" name="area" value="1GP"/>\n'
                '  <policy domain="resource" name="disk" value="16GiB"/>\n'
                '  <policy domain="resource" name="width" value="64KP"/>\n'
                '  <policy domain="resource" name="height" value="64KP"/>\n'
                '</policymap>\n')
    for i in range(BASES):
        path = os.path.join(DIR, "base", f"plasma{i}.png")
        if not os.path.exists(path):
            subprocess.run(["/usr/bin/convert", "-size", "1000x750", "-seed", str(i + 1), "plasma:fractal",
                            "-blur", "0x0.7", path], check=True)
    with Pool(os.cpu_count()) as pool:
        pool.map(write_photo, range(COUNT))
        jobs = [
            pool.apply_async(write, ("photo-24mp.jpg", (6000, 4000), 1001), dict(format="JPEG", quality=90)),
            pool.apply_async(write, ("photo-100mp.jpg", (12000, 8334), 1002), dict(format="JPEG", quality=90)),
            pool.apply_async(write, ("photo-100mp-progressive.jpg", (12000, 8334), 1002),
                             dict(format="JPEG", quality=90, progressive=True)),
            pool.apply_async(write, ("photo-25mp-rgba.png", (6000, 4200), 1003), dict(format="PNG", compress_level=3)),
            # The photo apps' case: a 100 MP RGBA PNG, whose whole decode ImageMagick's coder
            # needs about 800 MB for.
            pool.apply_async(write, ("photo-100mp-rgba.png", (12000, 8334), 1004), dict(format="PNG", compress_level=3)),
            # WebP and TIFF (issue 20): a 24 MP lossy WebP, a 24 MP RGB TIFF (LZW), and a 29 MP 1-bit
            # CCITT G4 TIFF (a scanned page's size at 600 dpi), whose whole decode is the memory case.
            pool.apply_async(write, ("photo-24mp.webp", (6000, 4000), 1005), dict(format="WEBP", quality=85)),
            pool.apply_async(write, ("photo-24mp-rgb.tif", (6000, 4000), 1006), dict(format="TIFF", compression="tiff_lzw")),
            pool.apply_async(write, ("scan-29mp-g4.tif", (4670, 6170), 1007),
                             dict(format="TIFF", compression="group4", bilevel=True)),
        ]
        for job in jobs:
            job.get()
    for name, fmt, save in (("zoneplate-jpeg.jpg", "JPEG", dict(quality=95, subsampling=0)), ("zoneplate-png.png", "PNG", {})):
        path = os.path.join(DIR, name)
        if not os.path.exists(path):
            zone_plate((4000, 3000)).save(path, format=fmt, **save)


# Issue 27: one picture as each encoder writes it. PNG (25 MP, RGBA and RGB): each of the five
# filter types on every row, and libpng's adaptive choice ("all"), as libvips' pngsave writes them
# (level 6); ImageMagick's `convert` as it is (its adaptive choice: on this noisy photo mostly
# Average, on a smooth picture mostly Paeth; Debian's ImageMagick 6.9.11 ignores
# `png:compression-filter=1..4` and writes no filter); Pillow's default (level 6, adaptive).
# TIFF (24 MP RGB): LZW and deflate with the horizontal predictor and without, as `convert` writes
# them (horizontal unless `-define tiff:predictor=1`), libvips (horizontal by default) and Pillow
# (`tiffinfo={317: 2}`; without, the main corpus' photo-24mp-rgb.tif);
# uncompressed strips as cameras write them; 16-bit LZW with the predictor, as raw converters
# write them; and 32-bit float with the floating-point predictor (3), the one layout here on
# ImageMagick's path (libtiff refuses predictor 3 on 8-bit samples).
PNG_FILTERS = ("none", "sub", "up", "avg", "paeth", "all")
ENCODINGS = (
    [(f"png-rgba-{f}-vips.png", "RGBA", False, "vips", dict(filter=f)) for f in PNG_FILTERS]
    + [(f"png-rgb-{f}-vips.png", "RGB", False, "vips", dict(filter=f)) for f in PNG_FILTERS[:5]]
    + [("png-rgba-im.png", "RGBA", False, "im", []), ("png-rgb-im.png", "RGB", False, "im", []),
       ("png-rgba-smooth-im.png", "RGBA", True, "im", []),
       ("png-rgba-pillow.png", "RGBA", False, "pillow", {}), ("png-rgb-pillow.png", "RGB", False, "pillow", {}),
       ("png-rgba-smooth-pillow.png", "RGBA", True, "pillow", {}),
       ("tif-lzw-im.tif", "RGB", False, "im", ["-compress", "lzw"]),
       ("tif-lzw-p1-im.tif", "RGB", False, "im", ["-compress", "lzw", "-define", "tiff:predictor=1"]),
       ("tif-zip-im.tif", "RGB", False, "im", ["-compress", "zip"]),
       ("tif-zip-p1-im.tif", "RGB", False, "im", ["-compress", "zip", "-define", "tiff:predictor=1"]),
       ("tif-lzw-p2-pillow.tif", "RGB", False, "pillow", dict(compression="tiff_lzw", tiffinfo={317: 2})),
       ("tif-lzw-p2-vips.tif", "RGB", False, "vips", dict(compression="lzw")),
       ("tif-zip-p2-vips.tif", "RGB", False, "vips", dict(compression="deflate")),
       ("tif-raw-camera.tif", "RGB", False, "pillow", {}),
       ("tif-16bit-lzw-p2-im.tif", "RGB", False, "im", ["-depth", "16", "-compress", "lzw", "-define", "tiff:predictor=2"]),
       ("tif-float-zip-p3-im.tif", "RGB", False, "im", ["-depth", "32", "-define", "quantum:format=floating-point",
                                                        "-compress", "zip", "-define", "tiff:predictor=3"])]
)


def source(mode, smooth, tiff):
    """The lossless picture an encoding starts from (level 1 PNG), made once."""
    name = f"source-{mode.lower()}{'-smooth' if smooth else ''}{'-tif' if tiff else ''}.png"
    path = os.path.join(DIR, "encodings", name)
    if not os.path.exists(path):
        size, seed = ((6000, 4000), 1006) if tiff else ((6000, 4200), 1003)
        photo(size, seed, mode, smooth).save(path + ".tmp", format="PNG", compress_level=1)
        os.replace(path + ".tmp", path)
    return path


def encode(entry):
    name, mode, smooth, writer, options = entry
    path = os.path.join(DIR, "encodings", name)
    if os.path.exists(path):
        return
    src = source(mode, smooth, name.endswith(".tif"))
    part = path + ".part" + os.path.splitext(name)[1]
    if writer == "im":
        subprocess.run(["/usr/bin/convert", src, *options, part], check=True, env=dict(os.environ, MAGICK_CONFIGURE_PATH=DIR))
    elif writer == "vips":
        import pyvips
        image = pyvips.Image.new_from_file(src)
        (image.pngsave if name.endswith(".png") else image.tiffsave)(part, **options)
    else:
        with Image.open(src) as im:
            im.save(part, format="PNG" if name.endswith(".png") else "TIFF", **options)
    os.replace(part, path)


def encodings():
    os.makedirs(os.path.join(DIR, "encodings"), exist_ok=True)
    for mode, smooth, tiff in {(m, s, n.endswith(".tif")) for n, m, s, _, _ in ENCODINGS}:
        source(mode, smooth, tiff)
    with Pool(os.cpu_count()) as pool:
        pool.map(encode, ENCODINGS)


def embedded_thumbnails():
    """A 12 MP HEIC with a 320x240 thumbnail item (heif-enc, as a phone stores one) and a 12 MP JPEG
    with a 160x120 EXIF thumbnail (exiftool), both from the first photo."""
    photo = os.path.join(DIR, "photos", "photo000.jpg")
    heic = os.path.join(DIR, "photo-12mp-item.heic")
    if not os.path.exists(heic):
        subprocess.run(["heif-enc", "-q", "80", "-t", "320", photo, "-o", heic + ".part"], check=True,
                       stdout=subprocess.DEVNULL)
        os.replace(heic + ".part", heic)
    jpeg = os.path.join(DIR, "photo-12mp-exif-thumbnail.jpg")
    if not os.path.exists(jpeg):
        small = jpeg + ".thumb.jpg"
        subprocess.run(["/usr/bin/convert", photo, "-thumbnail", "160x120", "-strip", small], check=True)
        shutil.copy(photo, jpeg + ".part")
        subprocess.run(["exiftool", "-q", "-overwrite_original", f"-ThumbnailImage<={small}", jpeg + ".part"], check=True)
        os.remove(small)
        os.replace(jpeg + ".part", jpeg)


if __name__ == "__main__":
    Image.MAX_IMAGE_PIXELS = None
    main()
    embedded_thumbnails()
    encodings()
