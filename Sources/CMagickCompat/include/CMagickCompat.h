#ifndef CMAGICKCOMPAT_H
#define CMAGICKCOMPAT_H

// One call for the MagickWand features whose C API differs between ImageMagick 6 (Debian 12) and
// 7 (Debian 13): the Swift code in Sources/MagickIO/Wand calls these on both lines, and the
// version is chosen when this file is compiled (MagickLibVersion, from the header pkg-config finds).
// CMagickWand's shim header (by path: SwiftPM gives a C target the module map, not its folder).
#include <stddef.h>
#include "../../../Modules/CMagickWand/shim.h"

#if MagickLibVersion >= 0x700
typedef FilterType CMCFilter;
#else
typedef FilterTypes CMCFilter;
#endif

/// Called once for each exception, with its severity and its "reason (description)" text.
typedef void (*CMCExceptionVisitor)(void *context, ExceptionType severity, const char *message);

/// Resizes the current image with `filter` and no extra blur (`MagickResizeImage`, whose blur
/// argument ImageMagick 7 dropped).
MagickBooleanType cmc_resize_image(MagickWand *wand, size_t columns, size_t rows, CMCFilter filter);

/// The image's red, green and blue primaries and white point (x, y each), as 8 values; and set.
void cmc_get_primaries(MagickWand *wand, double values[8]);
void cmc_set_primaries(MagickWand *wand, const double values[8]);

/// The names of the current image's artifacts, each followed by a newline (free()d by the caller;
/// NULL when none).
char *cmc_artifact_names(MagickWand *wand);

/// Visits each exception in the wand's list, oldest first, without clearing them. ImageMagick 7
/// keeps every exception of a read there (its images carry none); 6 keeps the most severe only
/// that matters there (MagickGetException), so nothing is visited. Visits nothing, either, when the
/// wand does not look like ImageMagick 7.1's (see CMagickCompat.c).
void cmc_wand_exception_list(MagickWand *wand, CMCExceptionVisitor visit, void *context);

/// Visits the exceptions a coder left on the current image, at least warnings, and clears them:
/// each one of its list, or the image's own when the list is empty and `whole_if_none` is set.
/// ImageMagick 6 only: 7's images carry no exception (they are the wand's), so nothing is visited.
void cmc_take_image_exceptions(MagickWand *wand, MagickBooleanType whole_if_none, CMCExceptionVisitor visit,
                               void *context);

/// Gives the wand's current image the size `columns` x `rows` (`SetImageExtent`) and zeroes its
/// pixels (`ResetImagePixels`: black; opaque on ImageMagick 6, whose opacity is 0 there): a 1x1
/// image made by MagickNewImage becomes one of any size, with the wand's settings, for a memset,
/// not MagickNewImage's fill, pixel by pixel. On failure the image keeps its size, and the reason
/// is written to `reason`.
MagickBooleanType cmc_set_image_extent(MagickWand *wand, size_t columns, size_t rows, char *reason, size_t reason_size);

/// The Q16 quanta ImageMagick's float import makes of `count` floats 0...1:
/// `ClampToQuantum(QuantumRange * v)` in double, 0 at or below 0 (and for NaN), 65535 at or above
/// 1, else the nearest quantum, ties up.
void cmc_float_quanta(const float *floats, unsigned short *quanta, size_t count);

/// The quanta of ``cmc_float_quanta`` for `pixels` pixels of `channels` (1...1024) floats each,
/// the first pixel's written from `first`, each next one `step` quanta on from the one before
/// (negative: back): a row placed where a turn moves it.
void cmc_place_float_quanta(const float *floats, size_t pixels, size_t channels, unsigned short *first, ptrdiff_t step);

/// Writes row `y` of the wand's current image from `columns` pixels of `channels` (3: RGB, 4:
/// RGBA) floats 0...1, each sample the quantum `MagickImportImagePixels` (FloatPixel) makes of it,
/// `ClampToQuantum(QuantumRange * v)` in double (Q16 without HDRI; 6.9, or 7.1.1-16 and later,
/// whose imports compute it so), written straight into the pixel cache: the same
/// pixels without the import's work a sample. False, and the caller runs the import, unless the
/// image is `columns` wide, holds row `y`, is DirectClass and has (blended) alpha exactly when
/// `channels` is 4 (the import's own cases), or when the row cannot be had or synced.
MagickBooleanType cmc_import_float_row(MagickWand *wand, ssize_t y, size_t columns, size_t channels, const float *row);

/// Adds to the wand an image of `columns` x `rows` from `pixels` in `map` order, as
/// MagickConstituteImage makes it (AcquireImage without the wand's settings, with alpha when the
/// map has an A, the pixels zeroed, then imported), but in `colorspace` (set before the import, as
/// ImageMagick imports a K channel into a CMYK image only) and, when ImageMagick cannot make it,
/// false with its reason in `reason`: ImageMagick 6's ConstituteImage destroys the image it could
/// not size and then asserts on it, which ends the process.
MagickBooleanType cmc_constitute_image(MagickWand *wand, size_t columns, size_t rows, const char *map, StorageType storage,
                                       const void *pixels, ColorspaceType colorspace, char *reason, size_t reason_size);

/// Whether MagickIO is built with ImageMagick 7's headers (1) or 6's (0).
MagickBooleanType cmc_is_imagemagick_7(void);

/// Checks the current image's XMP profile as a read does after its coder: ImageMagick 7's
/// ReadImage reads every image's `xmp:*` properties, whose parser leaves its warnings (a packet
/// that is not XML) in the wand. ImageMagick 6 checks the packet when the profile is set
/// (SetImageProfile), so nothing is done there.
void cmc_check_xmp(MagickWand *wand);

/// ImageMagick's name for `bytes` from its magic table (no coder runs), or NULL. The name is
/// ImageMagick's own (not to be freed).
const char *cmc_magic_name(const unsigned char *bytes, size_t length);

/// Why the ImageMagick loaded cannot be used with the headers MagickIO was built with (another
/// quantum depth, or HDRI where the headers were read without it: the pixel types and the image
/// struct would differ), or NULL when it can.
const char *cmc_build_mismatch(void);

#endif
