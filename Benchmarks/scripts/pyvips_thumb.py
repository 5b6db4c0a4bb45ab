"""libvips 8.18 (pyvips with the pyvips-binary wheel) as a command, for the batch and the quality
outputs: `pyvips_thumb.py OUTDIR SIZE jpeg|png FILE...`. `Image.thumbnail` (shrink-on-load, then
libvips' Lanczos-3 reduce), JPEG q85 without metadata, or PNG; cache off. Run with
VIPS_CONCURRENCY=1 for one process per core.
"""
import os
import sys

import pyvips

pyvips.cache_set_max(0)
outdir, size, fmt = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for path in sys.argv[4:]:
    name = os.path.splitext(os.path.basename(path))[0]
    im = pyvips.Image.thumbnail(path, size)
    im.write_to_file(os.path.join(outdir, name + (".jpg[Q=85,strip]" if fmt == "jpeg" else ".png[strip]")))
