#ifndef CMAGICKWAND_SHIM_H
#define CMAGICKWAND_SHIM_H

// Debian's ImageMagick 6 is the Q16 build without HDRI. pkg-config passes these as -D flags, which
// SwiftPM drops ("prohibited flag(s)"), so they are defined here; without them the headers #warning.
#ifndef MAGICKCORE_HDRI_ENABLE
#define MAGICKCORE_HDRI_ENABLE 0
#endif
#ifndef MAGICKCORE_QUANTUM_DEPTH
#define MAGICKCORE_QUANTUM_DEPTH 16
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

#include <wand/MagickWand.h>
#include <magick/magic.h>

#endif
