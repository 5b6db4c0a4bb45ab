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

// sum[i] += rows[0][i] * weights[0] + ... for rows of `type` (float, or 8-bit samples the weights
// scale): with four rows, the resampler's case, unrolled, each sum read and written once for the
// four; otherwise a row at a time.
#define MIO_ADD_WEIGHTED_ROWS(name, type)                                                                    \
    MIO_CLONES                                                                                               \
    void name(const type *const *rows, const float *weights, intptr_t n, float *restrict sum, size_t count) { \
        if (n == 4) {                                                                                        \
            const type *restrict a = rows[0], *restrict b = rows[1], *restrict c = rows[2], *restrict d = rows[3]; \
            const float wa = weights[0], wb = weights[1], wc = weights[2], wd = weights[3];                  \
            for (size_t i = 0; i < count; i++) {                                                             \
                sum[i] += (float)a[i] * wa + (float)b[i] * wb + (float)c[i] * wc + (float)d[i] * wd;         \
            }                                                                                                \
            return;                                                                                          \
        }                                                                                                    \
        for (intptr_t j = 0; j < n && j < 8; j++) {                                                          \
            const type *restrict row = rows[j];                                                              \
            const float weight = weights[j];                                                                 \
            for (size_t i = 0; i < count; i++) sum[i] += (float)row[i] * weight;                             \
        }                                                                                                    \
    }

MIO_ADD_WEIGHTED_ROWS(mio_rs_add_weighted_rows, float)
MIO_ADD_WEIGHTED_ROWS(mio_rs_add_weighted_bytes, uint8_t)

// Four floats, read from anywhere: an RGB pixel and the next pixel's red, or an RGBA pixel.
typedef float mio_four __attribute__((vector_size(16), aligned(4)));

MIO_CLONES
void mio_rs_filter_across(const float *row, float *out, const intptr_t *first, const intptr_t *count,
                          const float *weights, intptr_t span, intptr_t width, intptr_t channels) {
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
