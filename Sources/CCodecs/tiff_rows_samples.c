// TIFF samples ImageMagick 6.9.11's coder misreads (signed 8-bit, 24-bit) or reads on a scale of its
// own (floats: 0-1), turned into 8- or 16-bit RGB(A) rows as libvips (8.14) reads them; libtiff has
// already put them in the machine's byte order (24-bit ones too):
// - signed 8 and 16 bits (SampleFormat 2): on the unsigned scale of their width, negatives clipped
//   to 0 (libvips' cast to unsigned): 127 is 127/255, -5 is black;
// - unsigned 24 bits: the top 16 bits;
// - IEEE floating point of 16, 32 or 64 bits (SampleFormat 3), clipped to the range: grey as
//   libvips and Pillow (mode 'F') read it, 0-255 the range (255.0 is white); RGB as libvips reads
//   it, scRGB (linear light, 1.0 white), encoded with the sRGB curve; alpha 0-255 in both (libvips).

#include "CCodecs.h"
#include "tiff_rows_internal.h"

#include <math.h>
#include <pthread.h>
#include <string.h>
#include <tiffio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

int mio_tiff_misread_samples(const mio_tiff_info *info) {
    return info->sample_format == SAMPLEFORMAT_INT || info->sample_format == SAMPLEFORMAT_IEEEFP || info->bits == 24;
}

int mio_tiff_takes_samples(const mio_tiff_info *info) {
    switch (info->sample_format) {
    case SAMPLEFORMAT_INT: return info->bits == 8 || info->bits == 16;
    case SAMPLEFORMAT_IEEEFP: return info->bits == 16 || info->bits == 32 || info->bits == 64;
    default: return info->bits == 24;
    }
}

// IEEE 754 half precision to float.
static float half(uint16_t h) {
    int exponent = (h >> 10) & 0x1f;
    float mantissa = (float)(h & 0x3ff);
    float value = exponent == 0 ? ldexpf(mantissa, -24)
        : exponent == 31 ? (mantissa == 0 ? INFINITY : NAN)
        : ldexpf(mantissa + 1024.0f, exponent - 25);
    return (h & 0x8000) ? -value : value;
}

// Sample `index` of a row as a number on its own scale (an integer's value, a float's).
static double sample(const uint8_t *row, size_t index, int bits, int format) {
    const uint8_t *at = row + index * (size_t)(bits / 8);
    if (format == SAMPLEFORMAT_IEEEFP) {
        if (bits == 16) {
            uint16_t h;
            memcpy(&h, at, 2);
            return half(h);
        }
        if (bits == 32) {
            float f;
            memcpy(&f, at, 4);
            return f;
        }
        double d;
        memcpy(&d, at, 8);
        return d;
    }
    if (format == SAMPLEFORMAT_INT) {
        if (bits == 8) return (int8_t)at[0];
        int16_t s;
        memcpy(&s, at, 2);
        return s;
    }
    // 24 bits, little-endian as libtiff leaves them on this machine.
    return (double)((uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16);
}

static double clip(double v) { return v > 0 ? (v < 1 ? v : 1) : 0; }  // NaN: 0

// The sRGB curve (IEC 61966-2-1) of linear light 0...1.
static double curve(double linear) {
    return linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055;
}

// The curve at CURVE_STEPS + 1 points, read between them by straight lines (a pow a sample was
// most of a float page's thumbnail): at 65,536 steps a line is within 1/100 of a 16-bit level of
// the curve, below 0.0031308 (one straight line) exact.
enum { CURVE_STEPS = 65536 };
static float curve_table[CURVE_STEPS + 1];
static pthread_once_t curve_once = PTHREAD_ONCE_INIT;

static void make_curve(void) {
    for (int i = 0; i <= CURVE_STEPS; i++) curve_table[i] = (float)curve((double)i / CURVE_STEPS);
}

static double encoded(double linear) {  // linear in 0...1
    double at = linear * CURVE_STEPS;
    int i = (int)at;
    if (i >= CURVE_STEPS) return curve_table[CURVE_STEPS];
    if (linear <= 0.0031308) return linear * 12.92;
    return curve_table[i] + (at - i) * (curve_table[i + 1] - curve_table[i]);
}

// 0...1 of full scale for sample `s` (`alpha`: an extra sample) of a page of `colours` colours.
static double unit(int format, int bits, double s, int colours, int alpha) {
    switch (format) {
    case SAMPLEFORMAT_IEEEFP:
        if (colours == 3 && !alpha) return encoded(clip(s));
        return clip(s / 255.0);
    case SAMPLEFORMAT_INT:
        return clip(s / (bits == 8 ? 255.0 : 65535.0));
    default:
        return s / 16777215.0;
    }
}

// `v` (0 to 65535) to the nearest whole number, ties to even: lrint in the default rounding mode,
// one instruction where the compiler would call libm for each sample.
static inline long nearest(double v) {
#if defined(__SSE2__)
    return _mm_cvtsd_si64(_mm_set_sd(v));
#else
    return lrint(v);
#endif
}

// One row of `channels` channels: each sample to 0...1 of full scale, then to 8 or 16 bits. Always
// inlined, so that a caller that passes `format`, `bits`, `colours`, `channels` and `wide` as
// constants gets a loop without those choices made again for each sample.
static inline __attribute__((always_inline)) void convert_row(const mio_tiff_info *info, const uint8_t *in, uint8_t *out,
                                                              int format, int bits, int colours, int channels, int wide) {
    const int samples = info->samples;
    const int white = info->photometric == PHOTOMETRIC_MINISWHITE;
    for (uint32_t x = 0; x < info->width; x++) {
        size_t first = (size_t)x * (size_t)samples;
        for (int c = 0; c < channels; c++) {
            int alpha = c == 3;
            int s = alpha ? colours : (colours == 1 ? 0 : c);
            double v = unit(format, bits, sample(in, first + (size_t)s, bits, format), colours, alpha);
            if (white && !alpha) v = 1 - v;
            size_t at = (size_t)x * (size_t)channels + (size_t)c;
            if (wide) {
                ((uint16_t *)out)[at] = (uint16_t)nearest(v * 65535.0);
            } else {
                out[at] = (uint8_t)nearest(v * 255.0);
            }
        }
    }
}

void mio_tiff_convert_samples(const mio_tiff *t, const uint8_t *in, uint8_t *out) {
    const mio_tiff_info *info = &t->layout;
    const int colours = info->grey ? 1 : 3, wide = info->output_bytes == 2;
    if (info->sample_format == SAMPLEFORMAT_IEEEFP) pthread_once(&curve_once, make_curve);
    // 32-bit float RGB and RGBA, what raw converters and ImageMagick write: copies of the loop of
    // their own (a third of a float page's thumbnail was these choices and libm's lrint).
    if (info->sample_format == SAMPLEFORMAT_IEEEFP && info->bits == 32 && colours == 3 && wide && info->output_channels == 3) {
        convert_row(info, in, out, SAMPLEFORMAT_IEEEFP, 32, 3, 3, 1);
    } else if (info->sample_format == SAMPLEFORMAT_IEEEFP && info->bits == 32 && colours == 3 && wide && info->output_channels == 4) {
        convert_row(info, in, out, SAMPLEFORMAT_IEEEFP, 32, 3, 4, 1);
    } else {
        convert_row(info, in, out, info->sample_format, info->bits, colours, info->output_channels, wide);
    }
}
