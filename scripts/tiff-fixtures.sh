#!/usr/bin/env bash
# Writes the fixtures for MagickIO's own TIFF path (libtiff's rows) from the PNG and JPEG fixtures
# beside them, with ImageMagick's convert and libtiff's tiffcp (not installed on CI, so the small
# results are committed): one file for each layout the path takes (8- and 16-bit RGB and RGBA,
# associated and unassociated alpha, grey with and without alpha, min-is-white and min-is-black,
# palettes, 1-bit G3 and G4; none, LZW with the predictor, deflate, JPEG, PackBits; strips and
# tiles whose edges overhang, contiguous and planar), an ICC profile, one that stays on
# ImageMagick's path (CMYK), and an LZW file cut short.
# Usage: scripts/tiff-fixtures.sh [FIXTURE_DIR]  (default Tests/MagickIOTests/Fixtures)
set -euo pipefail
cd "${1:-$(dirname "$0")/../Tests/MagickIOTests/Fixtures}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Odd sides (100x75), so that strips end short and tiles overhang both edges.
convert photo.png -resize 100x75! "$work/rgb.png"
convert own-rgba16.png -resize 100x75! "$work/rgba16.png"
convert "$work/rgb.png" -colorspace gray "$work/grey.png"
strip=(-define tiff:rows-per-strip=16)
tiles=(-define tiff:tile-geometry=32x32)

convert "$work/rgb.png" "${strip[@]}" -compress none "$work/rgb8.tif"
tiffcp -c lzw:2 -r 16 "$work/rgb8.tif" tiff-rgb8-lzw.tif
convert "$work/rgb.png" "${tiles[@]}" -compress none tiff-rgb8-tiled.tif
convert "$work/rgb.png" -depth 16 "${strip[@]}" -interlace plane -compress zip tiff-rgb16-planar.tif
convert "$work/rgba16.png" -depth 16 "${strip[@]}" -compress zip tiff-rgba16-deflate.tif
convert "$work/rgba16.png" -depth 8 "${tiles[@]}" -interlace plane -compress zip tiff-rgba8-tiled-planar.tif
convert "$work/rgba16.png" -depth 8 "${strip[@]}" -define tiff:alpha=associated -compress rle tiff-rgba8-assoc-packbits.tif
convert "$work/grey.png" -depth 8 "${strip[@]}" -define quantum:polarity=min-is-white -compress rle tiff-grey8-miniswhite.tif
convert "$work/grey.png" -depth 16 "${tiles[@]}" -compress zip tiff-grey16-tiled.tif
convert "$work/rgba16.png" -colorspace gray -depth 8 "${strip[@]}" -compress lzw tiff-greya8-lzw.tif
convert "$work/grey.png" -depth 4 "${strip[@]}" -compress lzw tiff-grey4.tif
convert "$work/rgb.png" -colors 200 -type palette "${strip[@]}" -compress lzw tiff-palette8.tif
convert "$work/rgb.png" -colors 12 -type palette -depth 4 "${strip[@]}" -compress none tiff-palette4.tif
convert "$work/rgb.png" -monochrome -compress group4 tiff-g4-miniswhite.tif
convert "$work/rgb.png" -monochrome "${strip[@]}" -define quantum:polarity=min-is-black -compress fax tiff-g3-minisblack.tif
convert "$work/rgb.png" "${strip[@]}" -compress none "$work/for-jpeg.tif"
tiffcp -c jpeg:90 -r 16 "$work/for-jpeg.tif" tiff-jpeg-ycbcr.tif
tiffcp -c jpeg:90 -t -w 32 -l 32 "$work/for-jpeg.tif" tiff-jpeg-tiled.tif
# An Adobe RGB profile (TIFFTAG_ICCPROFILE), converted to sRGB by both paths.
convert adobe-rgb.jpg -resize 96x96 "${strip[@]}" -compress lzw tiff-icc.tif
# CMYK stays on ImageMagick's path.
convert "$work/rgb.png" -colorspace cmyk "${strip[@]}" -compress lzw tiff-cmyk.tif
# The LZW file cut at two thirds: its last strips are missing.
python3 - tiff-rgb8-lzw.tif tiff-lzw-truncated.tif <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
ifd = int.from_bytes(data[4:8], "little")
assert data[:2] == b"II" and ifd > len(data) // 2, "tiffcp writes the directory after the strips"
# Keep the header and the directory (moved to just after the cut), drop the last third of the strips.
cut = len(data) * 2 // 3 // 2 * 2
directory = data[ifd:]
out = bytearray(data[:cut]) + directory
out[4:8] = cut.to_bytes(4, "little")
count = int.from_bytes(directory[:2], "little")
for i in range(count):
    at = cut + 2 + 12 * i
    tag, kind, n = int.from_bytes(out[at:at + 2], "little"), int.from_bytes(out[at + 2:at + 4], "little"), int.from_bytes(out[at + 4:at + 8], "little")
    size = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8}.get(kind, 1) * n
    if size > 4:
        offset = int.from_bytes(out[at + 8:at + 12], "little")
        if offset >= ifd:  # out-of-line values after the directory move with it
            out[at + 8:at + 12] = (offset - ifd + cut).to_bytes(4, "little")
open(sys.argv[2], "wb").write(out)
PY
