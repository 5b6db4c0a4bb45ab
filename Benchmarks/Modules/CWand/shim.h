// MagickWand for the `stages` tool, which calls it directly to time each step of the pipeline.
// Same macros and include order as MagickIO's own shim (see Modules/CMagickWand/shim.h there).
#ifndef CWAND_SHIM_H
#define CWAND_SHIM_H
#define MAGICKCORE_HDRI_ENABLE 0
#define MAGICKCORE_QUANTUM_DEPTH 16
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <time.h>
#include <sys/types.h>
#include <sys/select.h>
#include <wand/MagickWand.h>
#endif
