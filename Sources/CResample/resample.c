// The resampler's inner loops (see CResample.h).

#include "CResample.h"

// Under ThreadSanitizer the ifunc that target_clones makes crashed the test process before its
// first test (signal 11, where AddressSanitizer runs it): there, one build.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MIO_ONE_BUILD 1
#endif
#endif

#if defined(__x86_64__) && defined(__clang__) && !defined(MIO_ONE_BUILD)
// One build for any x86-64 (SSE2) and one for AVX2 with FMA; the loader picks (an ifunc).
#define MIO_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MIO_CLONES
#endif

MIO_CLONES
void mio_rs_unit8(const uint8_t *samples, float *row, size_t count) {
    for (size_t i = 0; i < count; i++) {
        row[i] = (float)samples[i] * (1.0f / 255.0f);
    }
}

MIO_CLONES
void mio_rs_unit16(const uint16_t *samples, float *row, size_t count) {
    for (size_t i = 0; i < count; i++) {
        row[i] = (float)samples[i] * (1.0f / 65535.0f);
    }
}

// Eight floats, read from anywhere. Macros, not functions: a function that takes or gives eight
// floats would change its calling convention between the two builds.
typedef float mio_eight __attribute__((vector_size(32), aligned(4)));
#define MIO_LOAD8(pointer) (*(const mio_eight *)(pointer))
// The columns the pass down takes at a time: 16 rows of them as floats fill 16 KiB, which stays in
// the processor's first cache while every sum is added to.
#define MIO_TILE 256

// Row k's samples from column c0 on as floats: a float row's own, or 8-bit samples converted
// into `tile`.
#define MIO_TILE_ROW_float(rows, k, c0, length, tile) ((rows)[k] + (c0))
#define MIO_TILE_ROW_uint8_t(rows, k, c0, length, tile) mio_tile_bytes((rows)[k] + (c0), (length), (tile) + (k) * MIO_TILE)

static inline __attribute__((always_inline)) const float *mio_tile_bytes(const uint8_t *restrict bytes, size_t length,
                                                                          float *restrict floats) {
    for (size_t i = 0; i < length; i++) floats[i] = (float)bytes[i];
    return floats;
}

// sums[j][i] += rows[0][i] * weights[j * n] + ... for rows of `type` (float, or 8-bit samples the
// weights scale). With a multiple of four rows (the resampler's case, at most 16), a tile of
// columns at a time: the rows' samples in it read (and converted) once for all the sums, and each
// sum's part brought into the first cache once for all the rows. Each four rows add to a sum as one
// expression, in order, a four whose weights for that sum are all zero skipped (adding zero
// changes no sum: none is -0, and the rows are finite, from 8- and 16-bit samples); so sixteen
// rows at once give the sums that four at a time give.
// Otherwise a row at a time.
#define MIO_ADD_WEIGHTED_ROWS(name, type)                                                                      \
    MIO_CLONES                                                                                                 \
    void name(const type *const *rows, intptr_t n, const float *weights, float *const *sums, intptr_t m,       \
              size_t count, const uint8_t *fresh) {                                                            \
        if (n % 4 == 0 && n <= 16 && m <= 16) {                                                               \
            /* The first and past the last four with a weight for each sum. */                                 \
            intptr_t from[16], to[16];                                                                         \
            for (intptr_t j = 0; j < m; j++) {                                                                 \
                from[j] = n / 4;                                                                               \
                to[j] = 0;                                                                                     \
                for (intptr_t g = 0; g < n / 4; g++) {                                                         \
                    const float *w = weights + j * n + 4 * g;                                                  \
                    if (w[0] != 0 || w[1] != 0 || w[2] != 0 || w[3] != 0) {                                    \
                        if (from[j] > g) from[j] = g;                                                          \
                        to[j] = g + 1;                                                                         \
                    }                                                                                          \
                }                                                                                              \
            }                                                                                                  \
            float tile[16 * MIO_TILE] __attribute__((aligned(64)));                                            \
            (void)tile; /* float rows are read where they are */                                              \
            for (size_t c0 = 0; c0 < count; c0 += MIO_TILE) {                                                  \
                const size_t length = count - c0 < MIO_TILE ? count - c0 : MIO_TILE;                           \
                const float *row[16];                                                                          \
                for (intptr_t k = 0; k < n; k++) row[k] = MIO_TILE_ROW_##type(rows, k, c0, length, tile);      \
                for (intptr_t j = 0; j < m; j++) {                                                             \
                    float *restrict sum = sums[j] + c0;                                                        \
                    intptr_t g = from[j];                                                                      \
                    if (fresh[j]) {                                                                            \
                        /* A sum's first four added to zero, as a zeroed sum's would be (0 + x, so */         \
                        /* that -0 is 0 as before), without a pass that zeroes it first. */                   \
                        if (g >= to[j]) {                                                                      \
                            for (size_t i = 0; i < length; i++) sum[i] = 0;                                    \
                            continue;                                                                          \
                        }                                                                                      \
                        const float *w = weights + j * n + 4 * g;                                              \
                        const float wa = w[0], wb = w[1], wc = w[2], wd = w[3];                                \
                        const float *restrict a = row[4 * g], *restrict b = row[4 * g + 1];                    \
                        const float *restrict c = row[4 * g + 2], *restrict d = row[4 * g + 3];                \
                        for (size_t i = 0; i < length; i++) {                                                  \
                            sum[i] = 0.0f + (a[i] * wa + b[i] * wb + c[i] * wc + d[i] * wd);                  \
                        }                                                                                      \
                        g++;                                                                                   \
                    }                                                                                          \
                    for (; g < to[j]; g++) {                                                                   \
                        const float *w = weights + j * n + 4 * g;                                              \
                        const float wa = w[0], wb = w[1], wc = w[2], wd = w[3];                                \
                        const float *restrict a = row[4 * g], *restrict b = row[4 * g + 1];                    \
                        const float *restrict c = row[4 * g + 2], *restrict d = row[4 * g + 3];                \
                        for (size_t i = 0; i < length; i++) {                                                  \
                            sum[i] += a[i] * wa + b[i] * wb + c[i] * wc + d[i] * wd;                           \
                        }                                                                                      \
                    }                                                                                          \
                }                                                                                              \
            }                                                                                                  \
            return;                                                                                            \
        }                                                                                                      \
        for (intptr_t j = 0; j < m; j++) {                                                                     \
            float *restrict sum = sums[j];                                                                     \
            if (fresh[j]) {                                                                                    \
                for (size_t i = 0; i < count; i++) sum[i] = 0;                                                 \
            }                                                                                                  \
            for (intptr_t k = 0; k < n && k < 16; k++) {                                                       \
                const type *restrict row = rows[k];                                                            \
                const float weight = weights[j * n + k];                                                       \
                for (size_t i = 0; i < count; i++) sum[i] += (float)row[i] * weight;                           \
            }                                                                                                  \
        }                                                                                                      \
    }

MIO_ADD_WEIGHTED_ROWS(mio_rs_add_weighted_rows, float)
MIO_ADD_WEIGHTED_ROWS(mio_rs_add_weighted_bytes, uint8_t)

// Four floats, read from anywhere: an RGB pixel and the next pixel's red, or an RGBA pixel.
typedef float mio_four __attribute__((vector_size(16), aligned(4)));
// Pairwise sums within each half: a's, then b's (vhaddps).
#define MIO_HADD8(a, b) \
    (__builtin_shufflevector(a, b, 0, 2, 8, 10, 4, 6, 12, 14) + __builtin_shufflevector(a, b, 1, 3, 9, 11, 5, 7, 13, 15))

// An RGB row into three planes, eight pixels at a time.
static inline __attribute__((always_inline)) void deinterleave3(const float *row, float *red, float *green, float *blue,
                                                                intptr_t pixels) {
    intptr_t i = 0;
    for (; i + 8 <= pixels; i += 8) {
        const mio_eight a = MIO_LOAD8(row + 3 * i), b = MIO_LOAD8(row + 3 * i + 8), c = MIO_LOAD8(row + 3 * i + 16);
        const mio_eight ab_red = __builtin_shufflevector(a, b, 0, 3, 6, 9, 12, 15, 0, 0);
        const mio_eight ab_green = __builtin_shufflevector(a, b, 1, 4, 7, 10, 13, 0, 0, 0);
        const mio_eight ab_blue = __builtin_shufflevector(a, b, 2, 5, 8, 11, 14, 0, 0, 0);
        *(mio_eight *)(red + i) = __builtin_shufflevector(ab_red, c, 0, 1, 2, 3, 4, 5, 10, 13);
        *(mio_eight *)(green + i) = __builtin_shufflevector(ab_green, c, 0, 1, 2, 3, 4, 8, 11, 14);
        *(mio_eight *)(blue + i) = __builtin_shufflevector(ab_blue, c, 0, 1, 2, 3, 4, 9, 12, 15);
    }
    for (; i < pixels; i++) {
        red[i] = row[3 * i];
        green[i] = row[3 * i + 1];
        blue[i] = row[3 * i + 2];
    }
}

// Eight outputs of one plane at a time, each a dot product of `chunks` times eight taps (the
// weights past a pixel's count are zeros, times samples that are finite: the rows come from 8- and
// 16-bit samples), the eight sums reduced together; `chunks` a constant
// where the span is a common one, so that the loop over them unrolls.
#define MIO_PLANE_BLOCKS(chunks)                                                                        \
    for (; x + 8 <= width; x += 8) {                                                                    \
        mio_eight sums[8];                                                                              \
        for (int k = 0; k < 8; k++) {                                                                   \
            const float *source = plane + first[x + k], *weight = weights + (x + k) * span;             \
            mio_eight sum = MIO_LOAD8(source) * MIO_LOAD8(weight);                                      \
            for (intptr_t tap = 8; tap < (chunks) * 8; tap += 8) {                                      \
                sum += MIO_LOAD8(source + tap) * MIO_LOAD8(weight + tap);                               \
            }                                                                                           \
            sums[k] = sum;                                                                              \
        }                                                                                               \
        const mio_eight low = MIO_HADD8(MIO_HADD8(sums[0], sums[1]), MIO_HADD8(sums[2], sums[3]));      \
        const mio_eight high = MIO_HADD8(MIO_HADD8(sums[4], sums[5]), MIO_HADD8(sums[6], sums[7]));     \
        const mio_eight total = __builtin_shufflevector(low, high, 0, 1, 2, 3, 8, 9, 10, 11)           \
                              + __builtin_shufflevector(low, high, 4, 5, 6, 7, 12, 13, 14, 15);        \
        for (int k = 0; k < 8; k++) out[(x + k) * 3 + channel] = total[k];                              \
    }

MIO_CLONES
void mio_rs_filter_across(const float *row, float *out, const intptr_t *first, const intptr_t *count,
                          const float *weights, intptr_t span, intptr_t width, intptr_t channels,
                          intptr_t input, float *planes) {
    if (channels == 3 && span % 8 == 0) {
        // RGB: a row of 12-byte pixels fills three of four lanes and is read across cache lines;
        // as three planes, each output is a dot product eight lanes wide.
        const intptr_t stride = input + span;
        deinterleave3(row, planes, planes + stride, planes + 2 * stride, input);
        for (intptr_t channel = 0; channel < 3; channel++) {
            const float *plane = planes + channel * stride;
            intptr_t x = 0;
            switch (span) {
            case 8: MIO_PLANE_BLOCKS(1) break;
            case 16: MIO_PLANE_BLOCKS(2) break;
            case 24: MIO_PLANE_BLOCKS(3) break;
            case 32: MIO_PLANE_BLOCKS(4) break;
            default: MIO_PLANE_BLOCKS(span / 8) break;
            }
            for (; x < width; x++) {
                const float *source = plane + first[x], *weight = weights + x * span;
                float sum = 0;
                for (intptr_t tap = 0; tap < count[x]; tap++) sum += source[tap] * weight[tap];
                out[x * 3 + channel] = sum;
            }
        }
        return;
    }
    for (intptr_t x = 0; x < width; x++) {
        const float *source = row + channels * first[x];
        const float *weight = weights + x * span;
        // Two sums, even and odd taps, so that each multiply-add need not wait for the last.
        mio_four sum = {0, 0, 0, 0}, odd = {0, 0, 0, 0};
        const intptr_t taps = count[x];
        intptr_t tap = 0;
        for (; tap + 1 < taps; tap += 2) {
            sum += *(const mio_four *)source * weight[tap];
            odd += *(const mio_four *)(source + channels) * weight[tap + 1];
            source += 2 * channels;
        }
        if (tap < taps) sum += *(const mio_four *)source * weight[tap];
        sum += odd;
        out[0] = sum[0];
        out[1] = sum[1];
        out[2] = sum[2];
        if (channels == 4) out[3] = sum[3];
        out += channels;
    }
}

MIO_CLONES
void mio_rs_clamp(float *values, size_t count) {
    for (size_t i = 0; i < count; i++) {
        float v = values[i];
        v = v < 0 ? 0 : v;
        values[i] = v > 1 ? 1 : v;
    }
}
