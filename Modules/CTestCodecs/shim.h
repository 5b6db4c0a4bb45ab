#ifndef CTESTCODECS_SHIM_H
#define CTESTCODECS_SHIM_H

// Test-only codecs (libjpeg-turbo's libjpeg 6.2 API, zlib, libtiff and libwebp's encoder) used by
// the tests to generate large images at test time. The MagickIO library itself never depends on
// this module. All are in README's install line (libjpeg62-turbo-dev, zlib1g-dev, libtiff-dev,
// libwebp-dev).

// jpeglib.h uses FILE and size_t without including anything itself: stdio.h must come first.
#include <stdio.h>
#include <jpeglib.h>
#include <zlib.h>
#include <tiffio.h>
#include <webp/encode.h>

#endif
