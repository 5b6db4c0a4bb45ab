#ifndef CMAGICKWAND_SHIM_H
#define CMAGICKWAND_SHIM_H

// MagickWand from ImageMagick 7 (MagickWand/MagickWand.h: Debian 13) or 6 (wand/MagickWand.h:
// Debian 12), whichever pkg-config's include paths lead to; the libraries come from pkg-config too.
// Both Debian builds are Q16 without HDRI. pkg-config passes that as -D flags, which SwiftPM drops
// ("prohibited flag(s)"), so they are defined here; without them ImageMagick 6's headers #warning
// and 7's #error. A build of another quantum depth or with HDRI lays its pixels out differently:
// MagickIO refuses it at start-up (cmc_build_mismatch, Sources/CMagickCompat).
#ifndef MAGICKCORE_HDRI_ENABLE
#define MAGICKCORE_HDRI_ENABLE 0
#endif
#ifndef MAGICKCORE_QUANTUM_DEPTH
#define MAGICKCORE_QUANTUM_DEPTH 16
#endif
#ifndef MAGICKCORE_CHANNEL_MASK_DEPTH
#define MAGICKCORE_CHANNEL_MASK_DEPTH 32
#endif

// MagickCore's config header defines _GNU_SOURCE. If it came first, glibc's <sys/select.h> would
// declare fd_set differently here than in the Swift overlay's modules ("fds_bits ... is not present
// in definition of fd_set"). Including the system headers first fixes glibc's feature set.
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <time.h>
#include <sys/types.h>
#include <sys/select.h>

#if __has_include(<MagickWand/MagickWand.h>)
#include <MagickWand/MagickWand.h>
#include <MagickCore/magic.h>
#else
#include <wand/MagickWand.h>
#include <magick/magic.h>
#endif

#endif
