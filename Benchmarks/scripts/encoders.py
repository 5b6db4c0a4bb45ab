"""One picture as each encoder writes it (issue 27), MagickIO against libvips 8.18, -> 256 px in
process: `encoders.py CORPUS INPROCESS [--quick]` prints the table (bench.py includes it).

The files are make_corpus.py's `encodings/`: 25 MP PNGs with each filter type and the adaptive
choices of libvips, ImageMagick and Pillow; 24 MP TIFFs with LZW or deflate, with and without the
horizontal predictor, uncompressed, 16-bit and 32-bit float (predictor 3); and the main corpus'
25 MP PNG and 24 MP TIFF (Pillow). Each row says what the file holds, read from it: the PNG's
filter types (share of rows) and zlib level, the TIFF's compression, predictor, bits and rows a
strip. Both contenders run in turn, twice, each the median of REPEAT runs after a warm-up; the
better of the two medians counts.
"""
import collections
import glob
import os
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FILTERS = ("None", "Sub", "Up", "Average", "Paeth")
COMPRESSIONS = {1: "none", 5: "LZW", 8: "deflate", 32946: "deflate"}
PREDICTORS = {1: "no predictor", 2: "horizontal", 3: "floating point"}
WRITERS = {"vips": "libvips 8.18", "im": "ImageMagick 6.9 `convert`", "pillow": "Pillow", "camera": "Pillow, uncompressed (as cameras)"}


def png_census(path):
    """'Paeth 99%, Up 1%; zlib level 6' from the file's IDAT stream."""
    with open(path, "rb") as f:
        data = f.read()
    at, inflater, pending, counts, level, stride = 8, zlib.decompressobj(), b"", collections.Counter(), None, None
    while at < len(data):
        length, name = struct.unpack(">I4s", data[at : at + 8])
        body = data[at + 8 : at + 8 + length]
        at += 12 + length
        if name == b"IHDR":
            width, _, bits, colour = struct.unpack(">IIBB", body[:10])
            stride = width * {2: 3, 6: 4}.get(colour, 1) * bits // 8 + 1
        elif name == b"IDAT":
            if level is None:
                level = {0: "1", 1: "2-5", 2: "6", 3: "7-9"}[body[1] >> 6]
            pending += inflater.decompress(body)
            whole = len(pending) // stride * stride
            counts.update(pending[i] for i in range(0, whole, stride))
            pending = pending[whole:]
    total = sum(counts.values())
    kinds = ", ".join(f"{FILTERS[k]} {100 * n / total:.0f}%" for k, n in counts.most_common() if 100 * n / total >= 1)
    return f"{kinds}; zlib level {level}"


def tiff_census(path):
    """'LZW, horizontal, 8-bit, 48 rows a strip' from the first directory."""
    with open(path, "rb") as f:
        def read(at, size):
            f.seek(at)
            return f.read(size)
        head = read(0, 8)
        order = "<" if head[:2] == b"II" else ">"
        (offset,) = struct.unpack(order + "I", head[4:8])
        (count,) = struct.unpack(order + "H", read(offset, 2))
        entries = read(offset + 2, 12 * count)
        tags = {}
        for i in range(count):
            tag, kind, number, value = struct.unpack(order + "HHI4s", entries[12 * i : 12 * i + 12])
            if kind == 3 and number > 2:  # the first of several shorts, elsewhere
                value = read(struct.unpack(order + "I", value)[0], 2)
            tags[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), value[: 2 if kind == 3 else 4])[0]
    bits = tags.get(258, 1)
    rows = tags.get(278, 0)
    return (f"{COMPRESSIONS.get(tags.get(259, 1), tags.get(259))}, {PREDICTORS.get(tags.get(317, 1))}, {bits}-bit"
            + (f", {rows} rows a strip" if rows < 1 << 20 else ""))


def writer(name):
    return WRITERS.get(os.path.splitext(name)[0].rsplit("-", 1)[-1], "Pillow")


def run(command):
    out = subprocess.run(command, capture_output=True, text=True).stdout.splitlines()
    return out[0] if out else "error: no output"


def measure(corpus, inprocess, repeat):
    """[(file, writer, what it holds, MagickIO ms, pyvips ms, MagickIO's path)]"""
    files = sorted(glob.glob(os.path.join(corpus, "encodings", "png-*.png"))) + [os.path.join(corpus, "photo-25mp-rgba.png")]
    files += sorted(glob.glob(os.path.join(corpus, "encodings", "tif-*.tif"))) + [os.path.join(corpus, "photo-24mp-rgb.tif")]
    results = []
    for path in files:
        png = path.endswith(".png")
        mio, vips, decoder = [], [], "?"
        for _ in range(2):
            line = run([inprocess, "256", str(repeat), path] + (["--png"] if png else []))
            if "\t" in line:
                fields = line.split("\t")
                mio.append(float(fields[1].split()[0]))
                decoder = fields[-1].split()[-1]
            line = run([sys.executable, os.path.join(HERE, "inproc.py"), "vips", "256", str(repeat), "png" if png else "jpeg", path])
            if "error" not in line:
                vips.append(float(line.split()[0]))
        path_name = "ImageMagick" if "imagemagick" in decoder.lower() else f"own ({decoder})"
        results.append((os.path.basename(path), writer(os.path.basename(path)), png_census(path) if png else tiff_census(path),
                        min(mio) if mio else None, min(vips) if vips else None, path_name))
    return results


def markdown(results):
    lines = ["| file | written by | holds | MagickIO ms | libvips 8.18 ms | x libvips | MagickIO's path |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, by, holds, mio, vips, path in results:
        ratio = f"{mio / vips:.2f}x" if mio and vips else "–"
        lines.append(f"| {name} | {by} | {holds} | {mio or 0:.0f} | {vips or 0:.0f} | {ratio} | {path} |")
    return lines


if __name__ == "__main__":
    corpus, inprocess = sys.argv[1:3]
    print("\n".join(markdown(measure(corpus, inprocess, 1 if "--quick" in sys.argv else 3))))
