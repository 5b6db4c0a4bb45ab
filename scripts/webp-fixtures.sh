#!/usr/bin/env bash
# Writes the fixtures for MagickIO's own WebP path (libwebp's rows) from the PNG and JPEG
# fixtures beside them, with cwebp (webp package; not installed on CI, so the small results are
# committed): lossy and lossless, with and without alpha, an odd size, an ICC profile, and a
# lossy file cut short.
# Usage: scripts/webp-fixtures.sh [FIXTURE_DIR]  (default Tests/MagickIOTests/Fixtures)
set -euo pipefail
cd "${1:-$(dirname "$0")/../Tests/MagickIOTests/Fixtures}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cwebp -quiet -q 85 photo.png -o webp-lossy.webp
# Lossless at a third of the photo's area: a photo barely compresses losslessly.
convert photo.png -resize 176x132 "$work/small.png"
cwebp -quiet -lossless "$work/small.png" -o webp-lossless.webp
# Alpha: a lossy picture with its ALPH chunk (VP8X), and a lossless one (VP8L's own alpha).
cwebp -quiet -q 85 -alpha_q 100 own-rgba16.png -o webp-lossy-alpha.webp
cwebp -quiet -lossless -exact alpha.png -o webp-lossless-alpha.webp
# Meta prefix codes: libwebp's encoder gives this picture two prefix code groups and a 10-bit
# colour cache (WebPPrefixCodeTests reads them).
cwebp -quiet -lossless -m 6 own-rgba16.png -o webp-lossless-groups.webp
# Odd sides: the scaled sizes and the rescaler's last rows.
convert photo.png -crop 161x97+37+51 +repage "$work/odd.png"
cwebp -quiet -q 90 "$work/odd.png" -o webp-odd.webp
# An Adobe RGB profile in an ICCP chunk (VP8X), converted to sRGB by both paths.
convert adobe-rgb.jpg -resize 96x96 "$work/adobe.png"
cwebp -quiet -q 90 -metadata icc "$work/adobe.png" -o webp-icc.webp
# The lossy file cut at two thirds inside a container that agrees (the RIFF and VP8 sizes
# rewritten): the damage reaches the decoders, not only ImageMagick's read of the RIFF chunk.
python3 - webp-lossy.webp webp-truncated.webp <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
cut = bytearray(data[: len(data) * 2 // 3 // 2 * 2])
cut[4:8] = struct.pack("<I", len(cut) - 8)
cut[16:20] = struct.pack("<I", len(cut) - 20)
open(sys.argv[2], "wb").write(cut)
PY
