// A PNG's image data inflated by ISA-L and unfiltered here (see CCodecs.h): the fast path for
// 8-bit, non-interlaced RGB and RGBA, after libpng has read and checked every chunk before the
// first IDAT. It applies the rules libpng applies from there on (chunk lengths and names, every
// CRC, IDAT contiguity, the zlib header and Adler-32, not too little and not too much data, IEND)
// and stops at the first doubt, where libpng would stop or warn.
//
// Why: on a 25 MP RGBA PNG (6000x4200, 55.8 MB of IDAT, Sub/Up rows), in CPU seconds of one
// thread on the 2-core build machine: libpng's rows 0.575 s, of which zlib 1.2.13's inflate of the
// IDAT stream alone is 0.35-0.41 s; ISA-L 2.30 inflates the same stream in 0.21 s (one call or a
// row at a time), and these rows, CRCs, Adler-32, unfiltering and the reads included, take
// 0.26 s: inflate is about 80% of it, unfiltering 15%. libpng has no faster setting of its own
// (its SSE2 unfilters are on; dropping the CRC and Adler-32 checks would save about 5%).
// Those rows were Sub and Up. Paeth, which ImageMagick, Pillow and libpng choose for smooth
// pictures, took a branchy byte-at-a-time loop 33 instructions a byte, half the thumbnail's
// instructions; it now goes a pixel at a time in SSE2, two rows at once where both are Paeth.

#include "CCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>

enum { READ_SIZE = 1 << 16 };  // the most read from the file at once (the descriptor case)
// Rows inflated at a time: two Paeth rows are unfiltered together (paeth_pair_sse2), so the row
// after the one read must be there. 16 rows of a 6000-pixel RGBA picture are 384 KB; 48 are kept
// where the rows are lent (in place of PipelinedRows' 32-row ring): within the decoder's row
// buffers that DecodeEstimate.streamed counts (64 floats a pixel of width).
enum { BATCH_ROWS = 16 };
// Batches a decoder that lends its rows (mio_pngfast_lend_rows) keeps: a row lent stays where it
// is while the rows of the other batches are inflated and lent after it.
enum { LENT_BATCHES = 3 };

struct mio_pngfast {
    struct inflate_state inflate;
    const uint8_t *data;     // the file in memory, or NULL: read from fd
    int fd;
    size_t size;
    size_t offset;           // the next byte of the file to read
    size_t chunk_left;       // of the current IDAT's data, still to read
    uint32_t crc;            // of the current chunk so far
    size_t idat_limit;       // libpng's png_check_chunk_length for IDAT
    size_t chunk_limit;      // and for any other chunk
    size_t row_bytes;        // without the filter byte
    int bpp;                 // bytes a pixel: 3 or 4
    uint32_t rows_left;
    int started;             // the zlib header is read
    // Rows of row_bytes + 1 (the filter byte first): one of zeros (the row above the first), then
    // `batches` batches of BATCH_ROWS rows, filled in turn, unfiltered as they are read.
    uint8_t *rows;
    size_t batches;          // 1, or LENT_BATCHES once the decoder lends its rows
    size_t batch_index;      // the batch being read
    uint8_t *batch;          // its first row
    const uint8_t *above;    // the row above the next one to unfilter (unfiltered, its filter byte first)
    size_t batch_rows;       // the rows of the batch that were inflated whole
    size_t batch_next;       // the next of them to read, from 1
    int batch_short;         // the stream ended within the row after them
    size_t batch_done;       // the rows of the batch unfiltered already (two Paeth rows go together)
    uint8_t *buffer;         // READ_SIZE bytes, when reading from fd
    size_t release_window;   // mio_pngfast_release_behind's, or 0
    size_t page;             // the page size, read once there
    size_t released;         // the bytes of `data` let go, from its start
    char message[128];
};

static int fail(mio_pngfast *png, const char *text) {
    if (png->message[0] == 0) snprintf(png->message, sizeof png->message, "%s", text);
    return -1;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

// `length` bytes at the read offset: in place, or read into `into` (which has room for them).
static const uint8_t *take(mio_pngfast *png, size_t length, uint8_t *into) {
    if (length > png->size - png->offset) return NULL;
    const uint8_t *bytes = png->data != NULL ? png->data + png->offset : into;
    if (png->data == NULL) {
        size_t done = 0;
        while (done < length) {
            ssize_t got = pread(png->fd, into + done, length - done, (off_t)(png->offset + done));
            if (got <= 0) return NULL;
            done += (size_t)got;
        }
    }
    png->offset += length;
    return bytes;
}

// The CRC after a chunk's data, against what was computed.
static int check_crc(mio_pngfast *png) {
    uint8_t stored[4];
    const uint8_t *bytes = take(png, 4, stored);
    if (bytes == NULL) return fail(png, "unexpected end of file");
    if (be32(bytes) != png->crc) return fail(png, "CRC error");
    return 0;
}

// The next chunk's header, checked as png_read_chunk_header checks it; its CRC starts.
static int chunk_header(mio_pngfast *png, uint32_t *length, uint8_t name[4]) {
    uint8_t header[8];
    const uint8_t *bytes = take(png, 8, header);
    if (bytes == NULL) return fail(png, "unexpected end of file");
    *length = be32(bytes);
    memcpy(name, bytes + 4, 4);
    if (*length > 0x7fffffffu) return fail(png, "PNG unsigned integer out of range");
    for (int i = 0; i < 4; i++) {
        uint8_t c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return fail(png, "invalid chunk type");
    }
    size_t limit = memcmp(name, "IDAT", 4) == 0 ? png->idat_limit : png->chunk_limit;
    if (*length > limit) return fail(png, "chunk data is too large");
    png->crc = crc32_gzip_refl(0, name, 4);
    return 0;
}

// Lets go of the mapped pages before the read offset, a window at a time. Only called where
// nothing before the offset is still read: ISA-L has taken all it was given (it keeps what it holds
// back in its own state).
static void release_behind(mio_pngfast *png) {
    if (png->release_window == 0) return;
    const size_t upto = png->offset / png->page * png->page;
    if (upto < png->released + png->release_window) return;
    if (madvise((void *)(png->data + png->released), upto - png->released, MADV_DONTNEED) == 0) png->released = upto;
}

// More compressed bytes for ISA-L: the rest of this IDAT, or the next IDAT's (after the CRC of
// this one). A chunk other than IDAT before the stream ends is libpng's "Not enough image data".
static int feed(mio_pngfast *png) {
    release_behind(png);
    while (png->chunk_left == 0) {
        if (check_crc(png) != 0) return -1;
        uint32_t length = 0;
        uint8_t name[4];
        if (chunk_header(png, &length, name) != 0) return -1;
        if (memcmp(name, "IDAT", 4) != 0) return fail(png, "Not enough image data");
        png->chunk_left = length;
    }
    size_t length = png->chunk_left < READ_SIZE ? png->chunk_left : READ_SIZE;
    const uint8_t *bytes = take(png, length, png->buffer);
    if (bytes == NULL) return fail(png, "unexpected end of file");
    png->crc = crc32_gzip_refl(png->crc, bytes, length);
    png->chunk_left -= length;
    png->inflate.next_in = (uint8_t *)bytes;
    png->inflate.avail_in = (uint32_t)length;
    return 0;
}

// The zlib header, as libpng and zlib check it: method 8, a window of at most 32 KiB, the check
// bits, no preset dictionary. Like libpng, the inflate allows distances of up to 32 KiB whatever
// window the header names.
static int zlib_header(mio_pngfast *png) {
    uint8_t header[2];
    for (int i = 0; i < 2; i++) {
        while (png->inflate.avail_in == 0) {
            if (feed(png) != 0) return -1;
        }
        header[i] = *png->inflate.next_in++;
        png->inflate.avail_in -= 1;
    }
    if ((header[0] & 15) != 8 || (header[0] >> 4) > 7 || ((header[0] << 8) | header[1]) % 31 != 0 || (header[1] & 0x20)) {
        return fail(png, "invalid zlib header");
    }
    png->started = 1;
    return 0;
}

// Inflates until `length` bytes are out at `out`, or the stream ends (then returns the bytes out).
static long inflate_into(mio_pngfast *png, uint8_t *out, size_t length) {
    png->inflate.next_out = out;
    png->inflate.avail_out = (uint32_t)length;
    while (png->inflate.avail_out > 0 && png->inflate.block_state != ISAL_BLOCK_FINISH) {
        uint32_t in_before = png->inflate.avail_in, out_before = png->inflate.avail_out;
        int status = isal_inflate(&png->inflate);
        if (status == ISAL_INCORRECT_CHECKSUM) return fail(png, "incorrect data check");
        if (status < 0 || status == ISAL_NEED_DICT) return fail(png, "invalid compressed data");
        if (png->inflate.avail_out == out_before && png->inflate.block_state != ISAL_BLOCK_FINISH) {
            // Nothing out: ISA-L needs more input (it may hold some back until then).
            if (png->inflate.avail_in == 0) {
                if (feed(png) != 0) return -1;
            } else if (png->inflate.avail_in == in_before) {
                return fail(png, "inflate made no progress");
            }
        }
    }
    return (long)(length - png->inflate.avail_out);
}

size_t mio_pngfast_state_bytes(void) { return sizeof(mio_pngfast) + READ_SIZE; }

void mio_pngfast_release_behind(mio_pngfast *png, size_t window) {
    if (png->data == NULL || window == 0) return;
    png->page = (size_t)sysconf(_SC_PAGESIZE);
    png->release_window = (window + png->page - 1) / png->page * png->page;
}

size_t mio_pngfast_released(const mio_pngfast *png) { return png->released; }

mio_pngfast *mio_pngfast_create(const uint8_t *data, int fd, size_t size, size_t offset, uint32_t width,
                                uint32_t height, int channels, size_t chunk_limit) {
    if ((channels != 3 && channels != 4) || width == 0 || height == 0 || offset < 8 || offset > size) return NULL;
    // ISA-L counts bytes out in 32 bits.
    if (((uint64_t)width * (uint64_t)channels + 1) * BATCH_ROWS >= UINT32_MAX) return NULL;
    mio_pngfast *png = calloc(1, sizeof *png);
    if (png == NULL) return NULL;
    png->data = data;
    png->fd = fd;
    png->size = size;
    png->bpp = channels;
    png->row_bytes = (size_t)width * (size_t)channels;
    png->rows_left = height;
    png->chunk_limit = chunk_limit < 0x7fffffffu ? chunk_limit : 0x7fffffffu;
    // png_check_chunk_length's IDAT limit (for 8-bit, non-interlaced rows).
    size_t row_factor = png->row_bytes + 1;
    size_t idat_limit = height > UINT32_MAX / row_factor ? 0x7fffffffu : (size_t)height * row_factor;
    size_t factor = row_factor > 32566 ? 32566 : row_factor;
    idat_limit += 6 + 5 * (idat_limit / factor + 1);
    idat_limit = idat_limit < 0x7fffffffu ? idat_limit : 0x7fffffffu;
    png->idat_limit = png->chunk_limit < idat_limit ? idat_limit : png->chunk_limit;
    png->batches = 1;
    png->rows = calloc(1 + BATCH_ROWS, png->row_bytes + 1);
    png->above = png->rows;
    png->batch_next = 1;
    png->buffer = data == NULL ? malloc(READ_SIZE) : NULL;
    if (png->rows == NULL || (data == NULL && png->buffer == NULL)) {
        mio_pngfast_destroy(png);
        return NULL;
    }
    isal_inflate_init(&png->inflate);
    png->inflate.crc_flag = ISAL_ZLIB_NO_HDR_VER;
    // libpng stopped just after the first IDAT's header: its length and name are the 8 bytes before.
    png->offset = offset - 8;
    uint8_t header[8];
    const uint8_t *bytes = take(png, 8, header);
    if (bytes == NULL || memcmp(bytes + 4, "IDAT", 4) != 0) {
        mio_pngfast_destroy(png);
        return NULL;
    }
    png->chunk_left = be32(bytes);
    if (png->chunk_left > png->idat_limit) {  // libpng refuses it (its open checks it with its own limit)
        mio_pngfast_destroy(png);
        return NULL;
    }
    png->crc = crc32_gzip_refl(0, bytes + 4, 4);
    return png;
}

void mio_pngfast_destroy(mio_pngfast *png) {
    if (png == NULL) return;
    free(png->rows);
    free(png->buffer);
    free(png);
}

static inline uint8_t paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

// The five PNG filters undone in place on `row` (n bytes) against `up`, for `bpp` bytes a pixel.
static inline void unfilter(int filter, uint8_t *restrict row, const uint8_t *restrict up, size_t n, int bpp) {
    switch (filter) {
    case 1:
        if (bpp == 4) {  // a pixel at a time as four bytes without carries between them
            uint32_t left = 0;
            for (size_t i = 0; i < n; i += 4) {
                uint32_t x;
                memcpy(&x, row + i, 4);
                x = ((x & 0x7f7f7f7fu) + (left & 0x7f7f7f7fu)) ^ ((x ^ left) & 0x80808080u);
                memcpy(row + i, &x, 4);
                left = x;
            }
            break;
        }
        for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
        break;
    case 2:
        for (size_t i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + up[i]);
        break;
    case 3:
        for (int i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + (up[i] >> 1));
        for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + up[i]) >> 1));
        break;
    case 4:
        for (int i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + up[i]);  // Paeth with a = c = 0 is b
        for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + paeth(row[i - bpp], up[i], up[i - bpp]));
        break;
    default:
        break;
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>

// Sub, Average and Paeth a pixel at a time, its 3 or 4 bytes side by side in one register (the
// row's pixels depend on each other; a pixel's bytes do not), as libpng's SSE2 unfilters do. The
// scalar Paeth above branches on every byte; on a photo's noise those branches are a coin toss.
// A pixel is read and written as exactly `bpp` bytes: nothing outside the row is touched.
// (Three bytes are put together in a general register: a 3-byte memcpy through memory made
// the compiler write the pieces to the stack and read them back whole, a stall a pixel.)
static inline __attribute__((always_inline)) __m128i load_pixel(const uint8_t *p, int bpp) {
    uint32_t v;
    if (bpp == 4) {
        memcpy(&v, p, 4);
    } else {
        uint16_t low;
        memcpy(&low, p, 2);
        v = low | (uint32_t)p[2] << 16;
    }
    return _mm_cvtsi32_si128((int)v);
}

static inline __attribute__((always_inline)) void store_pixel(uint8_t *p, __m128i v, int bpp) {
    uint32_t x = (uint32_t)_mm_cvtsi128_si32(v);
    if (bpp == 4) {
        memcpy(p, &x, 4);
    } else {
        uint16_t low = (uint16_t)x;
        memcpy(p, &low, 2);
        p[2] = (uint8_t)(x >> 16);
    }
}

static inline __attribute__((always_inline)) __m128i abs16(__m128i x) {
    return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x));
}

static inline __attribute__((always_inline)) __m128i select16(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

static inline __attribute__((always_inline)) void unfilter_sse2(int filter, uint8_t *restrict row, const uint8_t *restrict up,
                                                               size_t n, int bpp) {
    const __m128i zero = _mm_setzero_si128();
    __m128i a = zero;  // the pixel to the left, unfiltered
    switch (filter) {
    case 1:
        for (size_t i = 0; i < n; i += bpp) {
            a = _mm_add_epi8(load_pixel(row + i, bpp), a);
            store_pixel(row + i, a, bpp);
        }
        break;
    case 3: {
        // floor((a + b) / 2): _mm_avg_epu8 rounds up, so take back the odd sums' half.
        const __m128i one = _mm_set1_epi8(1);
        for (size_t i = 0; i < n; i += bpp) {
            __m128i b = load_pixel(up + i, bpp);
            __m128i average = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
            a = _mm_add_epi8(load_pixel(row + i, bpp), average);
            store_pixel(row + i, a, bpp);
        }
        break;
    }
    case 4: {
        // In 16-bit lanes: pa = |b - c|, pb = |a - c|, pc = |a + b - 2c|; a where pa is the least,
        // else b where pb is, else c (the order of PNG's ties). On the first pixel a = c = 0 and
        // pb = 0: b (or a when b = 0, the same byte), as the specification's rule gives.
        __m128i c = zero;
        for (size_t i = 0; i < n; i += bpp) {
            __m128i b = _mm_unpacklo_epi8(load_pixel(up + i, bpp), zero);
            __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
            __m128i pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
            __m128i least = _mm_min_epi16(_mm_min_epi16(pa, pb), pc);
            __m128i predictor = select16(_mm_cmpeq_epi16(least, pa), a, select16(_mm_cmpeq_epi16(least, pb), b, c));
            // Bytewise, so the sum wraps as PNG's does and the high bytes stay 0.
            a = _mm_add_epi8(_mm_unpacklo_epi8(load_pixel(row + i, bpp), zero), predictor);
            store_pixel(row + i, _mm_packus_epi16(a, a), bpp);
            c = b;
        }
        break;
    }
    default:
        unfilter(filter, row, up, n, bpp);
        break;
    }
}

// Paeth on two rows at once, `row` (r) and `next` (r + 1) below it, against `up` (r - 1): a
// row's pixels wait on one another, each through a chain of about ten dependent instructions,
// so one row at a time leaves the core mostly idle. Here the two rows go as a wavefront in one
// register, pixel x of r in the low half and pixel x - 1 of r + 1 in the high half, whose b is
// r's pixel just made and whose c is r's pixel before it: two pixels for one chain.
static inline __attribute__((always_inline)) void paeth_pair_sse2(uint8_t *restrict row, uint8_t *restrict next,
                                                                 const uint8_t *restrict up, size_t n, int bpp) {
    const __m128i zero = _mm_setzero_si128();
    // Pixel 0 of r: a = c = 0, so its predictor is b. The high half starts at r + 1's pixel -1,
    // with a = c = 0 to its left.
    __m128i c = _mm_unpacklo_epi8(load_pixel(up, bpp), zero);
    __m128i a = _mm_and_si128(_mm_add_epi8(_mm_unpacklo_epi8(load_pixel(row, bpp), zero), c), _mm_set_epi32(0, 0, -1, -1));
    store_pixel(row, _mm_packus_epi16(a, a), bpp);
    for (size_t i = bpp; i <= n; i += bpp) {
        // At i == n only the high half's pixel (r + 1's last) is left; the low half reads nothing.
        __m128i b_low = i < n ? load_pixel(up + i, bpp) : zero;
        __m128i x_low = i < n ? load_pixel(row + i, bpp) : zero;
        __m128i b = _mm_unpacklo_epi64(_mm_unpacklo_epi8(b_low, zero), a);
        __m128i x = _mm_unpacklo_epi8(_mm_unpacklo_epi32(x_low, load_pixel(next + i - bpp, bpp)), zero);
        __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
        __m128i pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
        __m128i least = _mm_min_epi16(_mm_min_epi16(pa, pb), pc);
        __m128i predictor = select16(_mm_cmpeq_epi16(least, pa), a, select16(_mm_cmpeq_epi16(least, pb), b, c));
        a = _mm_add_epi8(x, predictor);
        __m128i bytes = _mm_packus_epi16(a, a);
        if (i < n) store_pixel(row + i, bytes, bpp);
        store_pixel(next + i - bpp, _mm_srli_si128(bytes, 4), bpp);
        c = b;
    }
}
#define UNFILTER unfilter_sse2
#define PAETH_PAIR paeth_pair_sse2
#else
#define UNFILTER unfilter
#endif

int mio_pngfast_lend_rows(mio_pngfast *png) {
    if (png->batches != 1 || png->batch_rows != 0 || png->message[0] != 0) return -1;
    const size_t stride = png->row_bytes + 1;
    // The one batch goes first, so that the two are never held at once.
    free(png->rows);
    png->rows = calloc(1 + LENT_BATCHES * BATCH_ROWS, stride);
    if (png->rows != NULL) {
        png->batches = LENT_BATCHES;
    } else if ((png->rows = calloc(1 + BATCH_ROWS, stride)) == NULL) {
        png->above = NULL;
        return fail(png, "out of memory");
    }
    png->above = png->rows;
    return png->batches == LENT_BATCHES ? 0 : -1;
}

size_t mio_pngfast_rows_kept(const mio_pngfast *png) { return (png->batches - 1) * BATCH_ROWS; }

const uint8_t *mio_pngfast_next_row(mio_pngfast *png) {
    if (png->message[0] != 0) return NULL;
    if (png->rows_left == 0) return fail(png, "no rows left"), NULL;
    if (!png->started && zlib_header(png) != 0) return NULL;
    const size_t stride = png->row_bytes + 1;
    if (png->batch_next > png->batch_rows) {
        // The next rows, as many as are left up to BATCH_ROWS (never more: the stream must end
        // after the last), into the next batch. The last row read is the row above them: where it
        // lies when there are other batches, else copied first to the row of zeros' place.
        if (png->batch_short) return fail(png, "Not enough image data"), NULL;
        if (png->batch_rows > 0) {
            png->batch_index = (png->batch_index + 1) % png->batches;
            if (png->batches == 1) {
                memcpy(png->rows, png->above, stride);
                png->above = png->rows;
            }
        }
        png->batch = png->rows + stride + png->batch_index * BATCH_ROWS * stride;
        size_t want = png->rows_left < BATCH_ROWS ? png->rows_left : BATCH_ROWS;
        long got = inflate_into(png, png->batch, want * stride);
        if (got < 0) return NULL;
        png->batch_rows = (size_t)got / stride;
        png->batch_next = 1;
        png->batch_done = 0;
        png->batch_short = (size_t)got < want * stride;
        if (png->batch_rows == 0) return fail(png, "Not enough image data"), NULL;
    }
    uint8_t *current = png->batch + (png->batch_next - 1) * stride;
    int filter = current[0];
    if (filter > 4) return fail(png, "bad adaptive filter value"), NULL;
    uint8_t *pixels = current + 1;
    const uint8_t *up = png->above + 1;
    if (png->batch_done < png->batch_next) {
        // A constant bpp lets the compiler unroll each filter's loop.
#if defined(PAETH_PAIR)
        if (filter == 4 && png->batch_next < png->batch_rows && current[stride] == 4) {
            if (png->bpp == 4) {
                PAETH_PAIR(pixels, pixels + stride, up, png->row_bytes, 4);
            } else {
                PAETH_PAIR(pixels, pixels + stride, up, png->row_bytes, 3);
            }
            png->batch_done = png->batch_next + 1;
        } else
#endif
        {
            if (png->bpp == 4) {
                UNFILTER(filter, pixels, up, png->row_bytes, 4);
            } else {
                UNFILTER(filter, pixels, up, png->row_bytes, 3);
            }
            png->batch_done = png->batch_next;
        }
    }
    png->above = current;
    png->batch_next += 1;
    png->rows_left -= 1;
    return pixels;
}

int mio_pngfast_read_row(mio_pngfast *png, uint8_t *row) {
    const uint8_t *pixels = mio_pngfast_next_row(png);
    if (pixels == NULL) return -1;
    memcpy(row, pixels, png->row_bytes);
    return 0;
}

int mio_pngfast_finish(mio_pngfast *png) {
    if (png->message[0] != 0) return -1;
    if (png->rows_left != 0) return fail(png, "rows left unread");
    // The stream must end here (its Adler-32 checked by ISA-L), with nothing more inflated and no
    // byte after it in the IDAT: libpng's "Too much image data" and "Extra compressed data".
    uint8_t spare[64];
    long extra = inflate_into(png, spare, sizeof spare);
    if (extra < 0) return -1;
    if (extra > 0 || png->inflate.block_state != ISAL_BLOCK_FINISH) return fail(png, "Too much image data");
    if (png->inflate.avail_in > 0 || png->chunk_left > 0 || png->inflate.read_in_length >= 8) {
        return fail(png, "Extra compressed data");
    }
    if (check_crc(png) != 0) return -1;
    // The chunks up to IEND, as png_read_end(png, NULL) reads them: each one's header and CRC
    // checked, its data skipped; IHDR out of place, IEND with data and a missing IEND refused.
    for (;;) {
        uint32_t length = 0;
        uint8_t name[4];
        if (chunk_header(png, &length, name) != 0) return -1;
        if (memcmp(name, "IHDR", 4) == 0) return fail(png, "IHDR out of place");
        size_t left = length;
        while (left > 0) {
            size_t step = left < READ_SIZE ? left : READ_SIZE;
            const uint8_t *bytes = take(png, step, png->buffer);
            if (bytes == NULL) return fail(png, "unexpected end of file");
            png->crc = crc32_gzip_refl(png->crc, bytes, step);
            left -= step;
        }
        if (check_crc(png) != 0) return -1;
        if (memcmp(name, "IEND", 4) == 0) return length == 0 ? 0 : fail(png, "IEND with data");
    }
}

const char *mio_pngfast_message(const mio_pngfast *png) { return png->message; }
