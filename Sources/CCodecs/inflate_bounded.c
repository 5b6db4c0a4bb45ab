// A zlib stream inflated only to count its bytes (see CCodecs.h): the output goes into a small
// scratch buffer that is overwritten, so a stream that claims or inflates to gigabytes costs
// 32 KiB of memory and stops, CPU included, as soon as its count passes the cap.

#include "CCodecs.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

long mio_inflate_bounded(const uint8_t *in, size_t in_length, uint8_t *out, size_t out_capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return -1;
    stream.next_in = (Bytef *) in;
    stream.avail_in = (uInt) (in_length > 0xFFFFFFFFu ? 0xFFFFFFFFu : in_length);
    stream.next_out = out;
    stream.avail_out = (uInt) (out_capacity > 0xFFFFFFFFu ? 0xFFFFFFFFu : out_capacity);
    int status = inflate(&stream, Z_FINISH);
    long written = (long) stream.total_out;
    inflateEnd(&stream);
    // Z_BUF_ERROR: the output is full or the input ran out; both keep what was inflated.
    if (status != Z_STREAM_END && status != Z_BUF_ERROR && status != Z_OK) return written > 0 ? written : -1;
    return written;
}

struct mio_inflate {
    z_stream stream;
    uint64_t total;
    int done;
    unsigned char scratch[32768];
};

mio_inflate *mio_inflate_create(void) {
    mio_inflate *inflater = calloc(1, sizeof *inflater);
    if (inflater == NULL) return NULL;
    if (inflateInit(&inflater->stream) != Z_OK) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

void mio_inflate_destroy(mio_inflate *inflater) {
    if (inflater == NULL) return;
    inflateEnd(&inflater->stream);
    free(inflater);
}

int mio_inflate_count(mio_inflate *inflater, const uint8_t *data, size_t length, uint64_t cap, uint64_t *total) {
    if (inflater->done) {
        *total = inflater->total;
        return inflater->done;
    }
    inflater->stream.next_in = (Bytef *)data;
    inflater->stream.avail_in = (uInt)length;
    while (inflater->total <= cap) {
        inflater->stream.next_out = inflater->scratch;
        inflater->stream.avail_out = sizeof inflater->scratch;
        int status = inflate(&inflater->stream, Z_NO_FLUSH);
        inflater->total += sizeof inflater->scratch - inflater->stream.avail_out;
        if (status == Z_STREAM_END) {
            inflater->done = 1;
            break;
        }
        if (status == Z_BUF_ERROR || (status == Z_OK && inflater->stream.avail_in == 0 && inflater->stream.avail_out > 0)) {
            break;  // wants more input
        }
        if (status != Z_OK) {
            inflater->done = -1;
            break;
        }
    }
    if (inflater->done == 0 && inflater->total > cap) inflater->done = 2;
    *total = inflater->total;
    return inflater->done;
}
