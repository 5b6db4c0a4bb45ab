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

#include <wand/MagickWand.h>
#include <magick/magic.h>

#endif
