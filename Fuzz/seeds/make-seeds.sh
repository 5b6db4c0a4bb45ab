#!/usr/bin/env bash
# Regenerates the fuzzer's extra seeds: formats the test fixtures lack, tiny so that libFuzzer
# mutates them cheaply. Needs ImageMagick 6 (`convert`) with its HEIC/AVIF coders.
set -euo pipefail
cd "$(dirname "$0")"
picture=(-size 8x12 xc:red -size 8x12 xc:blue +append)
convert "${picture[@]}" -quality 50 tiny.heic
convert "${picture[@]}" -quality 50 tiny.avif
convert "${picture[@]}" BMP3:tiny.bmp
convert "${picture[@]}" -define webp:lossless=true tiny-lossless.webp
convert "${picture[@]}" -alpha set -channel A -evaluate set 50% +channel -quality 80 tiny-alpha.webp
convert "${picture[@]}" -quality 60 tiny-lossy.webp
