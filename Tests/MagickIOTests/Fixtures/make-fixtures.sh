#!/usr/bin/env bash
# Regenerates the test fixtures in this folder. Needs ImageMagick 6 (`convert`), exiftool, a C
# compiler with liblcms2-dev and libheif-dev, and
# python3. The outputs are committed; rerun only to change them.
set -euo pipefail
cd "$(dirname "$0")"

# The asymmetric test picture, as a viewer must show it: 96x64, red top-left, lime top-right,
# blue bottom-left, yellow bottom-right (quadrant edges on 16-px JPEG block boundaries).
convert -size 48x32 xc:red xc:lime +append \( -size 48x32 xc:blue xc:yellow +append \) -append \
    -depth 8 quadrants.png

# Stored pixels for EXIF orientation N are the upright picture put through the inverse of N's
# transform, so that applying N shows the picture upright again.
inverse=(
    [1]=""
    [2]="-flop"
    [3]="-rotate 180"
    [4]="-flip"
    [5]="-transpose"
    [6]="-rotate 270"
    [7]="-transverse"
    [8]="-rotate 90"
)
for n in 1 2 3 4 5 6 7 8; do
    # shellcheck disable=SC2086
    convert quadrants.png ${inverse[$n]} -sampling-factor 1x1 -quality 95 "orient-$n.jpg"
    exiftool -q -overwrite_original -n -Orientation="$n" "orient-$n.jpg"
    # shellcheck disable=SC2086
    convert quadrants.png ${inverse[$n]} -compress zip "orient-$n.tif"
    exiftool -q -overwrite_original -n -Orientation="$n" "orient-$n.tif"
    # PNG (eXIf chunk) and lossless WebP (EXIF chunk): ImageMagick 6 ignores both tags.
    # shellcheck disable=SC2086
    convert quadrants.png ${inverse[$n]} "orient-$n.png"
    exiftool -q -overwrite_original -n -Orientation="$n" "orient-$n.png"
    # shellcheck disable=SC2086
    convert quadrants.png ${inverse[$n]} -define webp:lossless=true "orient-$n.webp"
    exiftool -q -overwrite_original -n -Orientation="$n" "orient-$n.webp"
done

# Orientation values outside 1...8 are taken as upright.
cp orient-1.jpg orient-invalid.jpg
exiftool -q -overwrite_original -n -Orientation=9 orient-invalid.jpg

# 40x30 PNG: left half opaque red, right half fully transparent.
convert -size 20x30 xc:red -size 20x30 xc:none +append -depth 8 alpha.png

# 96x64 truecolour RGBA PNG: the quadrants picture with alpha 255 (red), 128 (lime), 0 (blue) and
# 64 (yellow), for the alpha round trips of HEIC and AVIF output.
convert quadrants.png \( -size 48x32 xc:'gray(255)' xc:'gray(128)' +append \
    \( -size 48x32 xc:'gray(0)' xc:'gray(64)' +append \) -append \) \
    -alpha off -compose CopyOpacity -composite -depth 8 -define png:exclude-chunk=date,time PNG32:rgba-quadrants.png

# Three-frame GIF, 24x16.
convert -size 24x16 xc:red xc:lime xc:blue -loop 0 animated.gif

# 64x48 CMYK JPEG of pure cyan.
convert -size 64x48 xc:cyan -colorspace CMYK -quality 95 cmyk.jpg

# Same picture as WebP.
convert quadrants.png -quality 90 quadrants.webp

# A photo-like 320x240 JPEG (plasma plus noise), with EXIF, the source of the truncated files.
convert -seed 7 -size 320x240 plasma:fractal -attenuate 0.3 +noise Gaussian -quality 90 photo.jpg
exiftool -q -overwrite_original -Make=MagickIO -Model=Fixture -DateTimeOriginal="2026:11:21 12:00:00" photo.jpg
convert photo.jpg -depth 8 photo.png

# Bad input.
: > empty.jpg
cp quadrants.png png-named.jpg
printf 'This is not an image, whatever its name says.\n' > text.jpg
python3 -c "import random; random.seed(42); open('random.bin','wb').write(bytes(random.randrange(256) for _ in range(4096)))"
head -c "$(( $(stat -c %s photo.jpg) / 2 ))" photo.jpg > truncated.jpg
head -c "$(( $(stat -c %s photo.png) / 2 ))" photo.png > truncated.png

# The photo as a progressive JPEG with 4:2:0 chroma.
convert photo.jpg -interlace JPEG -sampling-factor 2x2,1x1,1x1 -quality 80 progressive.jpg

# For MagickIO's own JPEG and PNG paths (and what they hand to ImageMagick): 4:4:4 chroma; grey
# JPEG and PNG, and an interlaced PNG (ImageMagick's path); and, from a generator for exact
# chunks, tRNS, gAMA, 16-bit alpha, a 4-bit palette and an Adobe marker.
convert photo.png -sampling-factor 1x1 -quality 92 own-444.jpg
convert photo.png -colorspace Gray -quality 90 own-gray.jpg
convert photo.png -colorspace Gray own-gray.png
convert photo.png -interlace PNG own-interlaced.png
python3 ../../../scripts/own-path-fixtures.py .

# An animation whose later frames are 8x8 patches on a 24x16 red canvas (no disposal): frame 2
# as a viewer shows it is red with a blue patch at +4+4 and a lime one at +12+4. As GIF and as
# lossless animated WebP.
convert -size 24x16 xc:red \( -size 8x8 xc:blue -set page +4+4 \) \( -size 8x8 xc:lime -set page +12+4 \) \
    -set dispose none -loop 0 patches.gif
convert patches.gif -define webp:lossless=true patches.webp

# A two-page TIFF: a 16x16 red page and an 8x8 blue one.
convert -size 16x16 xc:red -size 8x8 xc:blue -compress zip pages.tif

# A 32x32 patch of (60, 180, 90) in Adobe RGB, with that profile embedded, and a copy with GPS
# tags; the profiles come from Little CMS (scripts/icc-profile.c).
work=$(mktemp -d)
cc ../../../scripts/icc-profile.c -llcms2 -o "$work/icc-profile"
"$work/icc-profile" adobe > "$work/adobe.icc"
convert -size 32x32 'xc:rgb(60,180,90)' -profile "$work/adobe.icc" -quality 95 adobe-rgb.jpg
# The photo as a PNG with that profile in an iCCP chunk (the pixels taken as Adobe RGB).
convert photo.png +profile '*' -profile "$work/adobe.icc" own-icc.png
rm -rf "$work"
cp photo.jpg gps.jpg
exiftool -q -overwrite_original -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E gps.jpg
# The same place in XMP only (exif:GPSLatitude in an XMP packet).
cp photo.jpg xmp-gps.jpg
exiftool -q -overwrite_original -XMP-exif:GPSLatitude=48.8584 -XMP-exif:GPSLongitude=2.2945 xmp-gps.jpg

# A camera-like JPEG with an EXIF thumbnail, both stored turned (orientation 6): the picture is
# the quadrants at 960x640; the 240x160 embedded thumbnail has magenta where the picture has red,
# so a test can tell which one a thumbnail came from.
work=$(mktemp -d)
convert quadrants.png -filter point -resize 960x640 -rotate 270 -quality 90 embedded-thumbnail.jpg
convert quadrants.png -fill magenta -opaque red -filter point -resize 240x160 -rotate 270 -quality 90 "$work/thumb.jpg"
exiftool -q -overwrite_original -n -Orientation=6 "-ThumbnailImage<=$work/thumb.jpg" embedded-thumbnail.jpg
rm -rf "$work"

# HEIC, as a phone writes it: the orientation in irot/imir boxes, which libheif applies when it
# decodes (so ImageMagick reports such a file upright, and MagickIO must not turn it again), and a
# thumbnail item. scripts/heif-fixture.c writes both (needs libheif-dev).
work=$(mktemp -d)
cc ../../../scripts/heif-fixture.c $(pkg-config --cflags --libs libheif) -o "$work/heif-fixture"
for n in 1 2 3 4 5 6 7 8; do
    # shellcheck disable=SC2086
    convert quadrants.png ${inverse[$n]} ppm:"$work/stored.ppm"
    "$work/heif-fixture" "$n" "$work/stored.ppm" > "orient-$n.heic"
done
# The quadrants at 960x640 stored turned (orientation 6), with a 240x160 thumbnail item, stored
# turned the same way, that has magenta where the picture has red.
convert quadrants.png -filter point -resize 960x640 -rotate 270 ppm:"$work/main.ppm"
convert quadrants.png -fill magenta -opaque red -filter point -resize 240x160 -rotate 270 ppm:"$work/thumb.ppm"
"$work/heif-fixture" 6 "$work/main.ppm" "$work/thumb.ppm" > embedded-thumbnail.heic
# The same in AVIF, at 480x320 with a 120x80 item, stored turned the other way (orientation 8).
convert quadrants.png -filter point -resize 480x320 -rotate 90 ppm:"$work/main.ppm"
convert quadrants.png -fill magenta -opaque red -filter point -resize 120x80 -rotate 90 ppm:"$work/thumb.ppm"
"$work/heif-fixture" -a 8 "$work/main.ppm" "$work/thumb.ppm" > embedded-thumbnail.avif
# A 64x64 patch of (60, 180, 90) in Adobe RGB with a 32x32 item of it, both tagged with the profile.
cc ../../../scripts/icc-profile.c -llcms2 -o "$work/icc-profile"
"$work/icc-profile" adobe > "$work/adobe.icc"
convert -size 64x64 'xc:rgb(60,180,90)' -depth 8 ppm:"$work/main.ppm"
convert -size 32x32 'xc:rgb(60,180,90)' -depth 8 ppm:"$work/thumb.ppm"
"$work/heif-fixture" -p "$work/adobe.icc" 1 "$work/main.ppm" "$work/thumb.ppm" > adobe-rgb-item.heic
rm -rf "$work"

# A phone-sized HEIC: 4032x3024 quadrants stored turned (orientation 6 in irot, and restated by an
# EXIF Orientation tag, as phones write both), with a 320x240 thumbnail item (magenta for red).
# Flat colours keep the file small; libde265 still decodes all 12 MP.
work=$(mktemp -d)
cc ../../../scripts/heif-fixture.c $(pkg-config --cflags --libs libheif) -o "$work/heif-fixture"
convert quadrants.png -filter point -resize 4032x3024! -rotate 270 ppm:"$work/main.ppm"
convert quadrants.png -fill magenta -opaque red -filter point -resize 320x240! -rotate 270 ppm:"$work/thumb.ppm"
"$work/heif-fixture" -e 6 6 "$work/main.ppm" "$work/thumb.ppm" > phone-12mp.heic
# A newer phone's 24 MP photo (5712x4284, an iPhone 15's default), stored the same way, no item:
# what ImageMagick's pixel cache alone (8 bytes a pixel) cannot take within the default budget.
convert quadrants.png -filter point -resize 5712x4284! -rotate 270 ppm:"$work/main.ppm"
"$work/heif-fixture" -e 6 6 "$work/main.ppm" > phone-24mp.heic
# A 48 MP photo (8064x6048) as one HEVC image, 4:2:0 as heif-enc writes it (no irot): libheif's
# planar RGB is taken for its rows (issue 30).
convert quadrants.png -filter point -resize 8064x6048! PNG24:"$work/main.png"
heif-enc -q 50 "$work/main.png" -o phone-48mp.heic > /dev/null
rm -rf "$work"

# Grids of HEVC tiles turned and mirrored by the grid's irot and imir, whose tiles do not fill
# the canvas, and a 48 MP phone photo's grid of 512x512 tiles (flat quadrants, 16 KB): decoded a
# row of tiles at a time (issue 30).
python3 ../../../scripts/heic-grid.py --fixtures .

# Odd-but-valid and damaged files of the kinds real collections hold, one per class the sweep
# found (scripts/world-fixtures.py says what each one is).
python3 ../../../scripts/world-fixtures.py .

# Containers whose oddities are not damage, and the damage beside them (issue 21): HEIF images
# turned and cropped by properties listed before their size, AVIF image sequences, OS/2 BMPs with
# the headers' size in the file-size field, a JPEG whose EXIF thumbnail is broken.
python3 ../../../scripts/container-fixtures.py .

# HEIF files whose items relate in ways libheif 1.15 gets wrong or cannot decode (issue 30):
# alpha images it leaves out, items in idat under a meta box of size 0, a grpl box, shared tiles,
# predicted items, codecs it has none for, and AVIF sequences whose meta box names no primary image.
python3 ../../../scripts/heif-items-fixtures.py .

# Animations (AnimationTests): GIFs written byte by byte with known rectangles, disposals, delays
# and loop extensions, and gif2webp's animated WebP of the first (frames blended and disposed).
python3 ../../../scripts/animation-fixtures.py .
gif2webp -quiet anim-dispose.gif -o anim-dispose.webp
