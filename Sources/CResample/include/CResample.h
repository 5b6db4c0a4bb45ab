#ifndef CRESAMPLE_H
#define CRESAMPLE_H

// The resampler's inner loops (Sources/MagickIO/Thumbnail/Resampler.swift): C so that each is
// built twice, once for any x86-64 and once for AVX2 with FMA, and the one the processor runs is
// chosen when the library loads (target_clones). The arithmetic is the Swift resampler's: floats
// 0...1, a Lanczos-3 sum down, then across. libc only.

#include <stddef.h>
#include <stdint.h>

/// `count` 8-bit samples to floats 0...1 (`x * (1 / 255)`).
void mio_rs_unit8(const uint8_t *samples, float *row, size_t count);

/// `count` native-endian 16-bit samples to floats 0...1 (`x * (1 / 65535)`).
void mio_rs_unit16(const uint16_t *samples, float *row, size_t count);

/// For each of the `m` sums: `sums[j][i] += rows[0][i] * weights[j * n] + ... + rows[n - 1][i] *
/// weights[j * n + n - 1]` for `count` floats, `n` at most 16. A sum whose `fresh[j]` is nonzero
/// holds nothing yet (whatever its memory holds is not read): it is written as if it were zeros,
/// its first rows' part added to 0, so that each float is the one a zeroed sum would hold.
void mio_rs_add_weighted_rows(const float *const *rows, intptr_t n, const float *weights, float *const *sums, intptr_t m,
                              size_t count, const uint8_t *fresh);

/// ``mio_rs_add_weighted_rows`` for `count` 8-bit samples (weights scaled by 1/255 for floats 0...1).
void mio_rs_add_weighted_bytes(const uint8_t *const *rows, intptr_t n, const float *weights, float *const *sums,
                               intptr_t m, size_t count, const uint8_t *fresh);

/// Filters `row` across into `out`, `width` output pixels of `channels` (3 or 4) floats: output
/// pixel x is the sum over its `count[x]` taps t of `row[(first[x] + t) * channels + c] *
/// weights[x * span + t]`. An RGB row of `input` pixels whose `span` is a multiple of 8 (the
/// weights past a pixel's count zeros) is filtered as three planes, written into `planes`:
/// `3 * (input + span)` floats, whose last `span` of each plane are zeros the call never writes.
/// Otherwise (RGBA; RGB of another span) a pixel is read as four floats: `row` has one float to
/// spare after its last pixel.
void mio_rs_filter_across(const float *row, float *out, const intptr_t *first, const intptr_t *count,
                          const float *weights, intptr_t span, intptr_t width, intptr_t channels,
                          intptr_t input, float *planes);

/// Clamps `count` floats to 0...1.
void mio_rs_clamp(float *values, size_t count);

#endif
