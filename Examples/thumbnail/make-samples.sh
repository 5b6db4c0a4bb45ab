#!/usr/bin/env bash
# Regenerates the sample images `thumbnail` runs on when given no input (bundled as the target's
# `Samples` resource). Needs ImageMagick 6 (`convert`) and exiftool. The outputs are committed;
# rerun only to change them. Each image stays well under 150 KB.
set -euo pipefail
cd "$(dirname "$0")"

mkdir -p Samples
rm -f Samples/*

# A photo-like landscape JPEG, 1200x800 (plasma, softened, plus sensor-like noise), with a little
# EXIF for the thumbnails to strip.
convert -seed 1 -size 1200x800 plasma:fractal -blur 0x1 -attenuate 0.2 +noise Gaussian \
    -quality 85 Samples/landscape.jpg
exiftool -q -overwrite_original -Make=MagickIO -Model=Sample \
    -DateTimeOriginal="2026:11:21 12:00:00" Samples/landscape.jpg

# A portrait photo as cameras store one: the upright picture is 600x900 with a white arrow pointing
# up; its pixels are stored turned to 900x600 and EXIF Orientation 6 says "turn 90° clockwise".
convert -seed 2 -size 600x900 plasma:fractal -blur 0x1 -attenuate 0.2 +noise Gaussian \
    -fill white -stroke black -strokewidth 4 \
    -draw "polygon 300,80 430,250 350,250 350,460 250,460 250,250 170,250" \
    -rotate 270 -quality 85 Samples/portrait.jpg
exiftool -q -overwrite_original -n -Orientation=6 Samples/portrait.jpg

# A 600x600 PNG with alpha: two discs on a fully transparent background.
convert -size 600x600 xc:none \
    -fill '#1e88e5' -stroke '#0d47a1' -strokewidth 12 -draw "circle 300,300 300,40" \
    -fill '#ffca28' -stroke none -draw "circle 300,300 300,180" \
    -depth 8 Samples/logo.png

# A small animated GIF, 160x120: a ball crossing the frame in six frames.
frames=()
for x in 20 44 68 92 116 140; do
    frames+=( \( -size 160x120 xc:'#f5f5f5' -fill '#e53935' -draw "circle $x,60 $x,42" \) )
done
convert -delay 12 -loop 0 "${frames[@]}" Samples/animation.gif

ls -l Samples
