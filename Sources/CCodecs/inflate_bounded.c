#include "CCodecs.h"
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
