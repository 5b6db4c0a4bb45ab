#!/usr/bin/env python3
"""Writes the hostile-input families of issue 18 into DIR: small files whose decode would cost
gigabytes or minutes if a decoder allocated what they declare. Python 3 stdlib only (zlib, struct),
deterministic; each file is written by hand, container by container, so no tool's own limits shape
it. For measuring the release tools (peak RSS and CPU through /usr/bin/time) and as fuzz seeds
(`--small` writes versions under 64 KB).

Usage: scripts/hostile-fixtures.py DIR [--small] [--only NAME[,NAME...]]

The families, by file name:
  png-ztxt-1g.png        64x64 PNG whose zTXt comment inflates to 1 GiB
  png-iccp-1g.png        64x64 PNG whose iCCP profile inflates to 1 GiB
  png-text-100k.png      64x64 PNG with 100,000 tEXt chunks
  png-itxt-1g.png, png-ztxt-after-idat-1g.png, png-ztxt-64x64m.png, png-raw-profile-1g.png
                         the same gigabyte as compressed iTXt, after IDAT, in 64 comments of 64 MiB,
                         and as ImageMagick's hex "Raw profile type exif"
  webp-lossless-16383.webp  16383x16383 VP8L of one colour (a few dozen bytes: every pixel codes in 0 bits)
  webp-anim-2000.webp    2,000 ANMF frames of 2500x2500, each a one-colour VP8L
  webp-lossy-alpha-8191.webp  8191x8191 lossy WebP whose alpha plane is a one-colour VP8L stream
  webp-lossless-groups-65536.webp  1024x1024 VP8L whose entropy image names 65,536 prefix code groups
                         (libwebp allocates about 12 KB of tables a group: 812 MB)
  webp-lossy-alpha-groups-65536.webp  the same stream as a lossy 1024x1024 WebP's alpha plane
  webp-lossless-groups-300.webp  100x100 VP8L naming 300 groups (small: a group count to read)
  tiff-float64-extras.tif   2000x2000 RGB + 13 float64 extra samples, one deflate strip
  tiff-rgba16-strip.tif  4400x4400 RGBA 16-bit in one deflate strip
  tiff-100k-ifds.tif     100,000 IFDs of 1x1
  gif-10k-frames.gif     10,000 frames of 1x1
  jpeg-app15-600k.jpg    64x64 JPEG after 600,000 APP15 segments of 4 data bytes
  jpeg-app15-after-scan-600k.jpg, jpeg-com-600k.jpg, jpeg-xmp-extended-300.jpg
                         the segments after the scan, as comments, and 300 extended-XMP APP1 of 65 KB
  jpeg-arith-dc-1500.jpg 8800x8800 arithmetic-coded progressive JPEG of 1,500 DC scans
  jpeg-arith-dc-1500-short-app.jpg, jpeg-short-app-then-600k.jpg
                         the same behind an APP0 whose length is 0 (libjpeg reads on)
  tiff-duplicate-size.tif 5000x5000 grey, its size repeated as 1x1 (libtiff keeps the first)
  tiff-exif-fanout.tif   16x16 page whose directory is 4,000 EXIF pointers back at itself
  tiff-overlapping-ifds.tif 10,000 overlapping directories of 4,096 entries in 169 KB
  gif-frame-past-screen.gif a 5000x5000 frame on a 1x1 logical screen
  heif-iref-500k.heic    20,000 Exif items and 500,000 item references (libheif 1.15 looks each
                         item's references up in the whole list: minutes)
  heif-iref-10k.heic     the same within libheif's item limit: 1,000 items, 10,000 references
  heif-ipma-1m.heic      20,000 items and 1,000,000 property associations
  heif-ipma-255k.heic    1,000 items of 255 associations each (within the item limit)
  heif-exif-extents.heic 16 MB file whose Exif item is 31 extents each spanning the whole file
  heif-primary-extents.heic  the same for the primary image's coded data
  heif-hvcc-nal-6m.heic  18 MB hvcC of 6 million one-byte NAL units after the picture's own
  heif-hvcc-nal-2000.heic  the same with 2,000 (6 KB)
  heif-grid-255.heic     a grid of 255x255 references to one 96x64 tile item (65,025 HEVC decodes)
  heif-grid-992.heic     the same with 32x31 references (992, within libheif's reference limit): 3072x1984
  heif-grid-hvcc-3m.heic the 992 references to a tile whose hvcC holds 60 SEI units of 60,000 bytes
  heif-grid-fat-tile.heic  the 992 references to a tile of 1 MB of coded data (1 GB to decode)
  The HEIF families take their coded picture (96x64 HEVC) from the committed fixture
  Tests/MagickIOTests/Fixtures/orient-1.heic (scripts/world-fixtures.py wrote it with heif-enc).
"""
import argparse, os, struct, sys, zlib


# MARK: - PNG

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_image(width=64, height=64, extra=b""):
    """An 8-bit RGB PNG of one grey, with `extra` chunks before IDAT."""
    raw = b"".join(b"\0" + b"\x80" * (3 * width) for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra
            + png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


def deflate_zeros(total, byte=b"\0", prefix=b""):
    """zlib stream of `prefix`, then `total` copies of `byte`, made 1 MiB at a time."""
    compressor = zlib.compressobj(9)
    block = byte * (1 << 20)
    out = [compressor.compress(prefix)]
    left = total
    while left > 0:
        n = min(left, len(block))
        out.append(compressor.compress(block[:n]))
        left -= n
    out.append(compressor.flush())
    return b"".join(out)


def png_ztxt(inflated):
    return png_image(extra=png_chunk(b"zTXt", b"Comment\0\0" + deflate_zeros(inflated, b"A")))


def icc_header(length):
    """An ICC profile header libpng accepts (size, class, colour space, PCS, 'acsp', D50), no tags."""
    header = bytearray(132)
    struct.pack_into(">II", header, 0, length, 0)
    struct.pack_into(">I4s4s4s", header, 8, 0x02100000, b"mntr", b"RGB ", b"XYZ ")
    header[36:40] = b"acsp"
    struct.pack_into(">iii", header, 68, 0xF6D6, 0x10000, 0xD32D)
    return bytes(header)


def png_iccp(inflated):
    """The profile declares `inflated` bytes in its header and inflates to as many (zeros after it)."""
    return png_image(extra=png_chunk(b"iCCP", b"icc\0\0" + deflate_zeros(inflated - 132, prefix=icc_header(inflated))))


def png_itxt(inflated):
    return png_image(extra=png_chunk(b"iTXt", b"Description\0\1\0\0\0" + deflate_zeros(inflated, b"A")))


def png_ztxt_after_idat(inflated):
    """The comment after the image data, where a reader that stops at IDAT never looks."""
    image = png_image()
    return image[:-12] + png_chunk(b"zTXt", b"Comment\0\0" + deflate_zeros(inflated, b"A")) + image[-12:]


def png_ztxt_many(count, inflated):
    """`count` comments of `inflated` bytes each: no one chunk is big, together they are."""
    stream = deflate_zeros(inflated, b"A")
    return png_image(extra=b"".join(png_chunk(b"zTXt", b"Comment%d\0\0" % i + stream) for i in range(count)))


def png_raw_profile(inflated):
    """ImageMagick's "Raw profile type exif" text chunk, whose hex text ImageMagick decodes to a profile."""
    stream = deflate_zeros(inflated, b"0", prefix=b"\nexif\n%d\n" % (inflated // 2))
    return png_image(extra=png_chunk(b"zTXt", b"Raw profile type exif\0\0" + stream))


def png_text(count):
    return png_image(extra=b"".join(png_chunk(b"tEXt", b"Comment\0%d" % i) for i in range(count)))


# MARK: - WebP

class BitWriter:
    """LSB-first bits, as VP8L reads them."""

    def __init__(self):
        self.out = bytearray()
        self.bits, self.count = 0, 0

    def put(self, value, width):
        self.bits |= value << self.count
        self.count += width
        while self.count >= 8:
            self.out.append(self.bits & 0xFF)
            self.bits >>= 8
            self.count -= 8

    def bytes(self):
        return bytes(self.out) + (bytes([self.bits]) if self.count else b"")


def vp8l_one_colour(width, height, argb=(255, 200, 30, 60)):
    """A VP8L bitstream whose five prefix codes each have a single symbol: every pixel takes 0 bits."""
    w = BitWriter()
    w.put(0x2F, 8)
    w.put(width - 1, 14)
    w.put(height - 1, 14)
    w.put(1, 1)  # alpha is used
    w.put(0, 3)  # version
    w.put(0, 1)  # no transform
    w.put(0, 1)  # no colour cache
    w.put(0, 1)  # no meta prefix codes
    alpha, red, green, blue = argb
    for symbol in (green, red, blue, alpha):
        w.put(1, 1)  # simple code
        w.put(0, 1)  # one symbol
        w.put(1, 1)  # of 8 bits
        w.put(symbol, 8)
    w.put(1, 1); w.put(0, 1); w.put(0, 1); w.put(0, 1)  # distance code: symbol 0, 1 bit
    return w.bytes()


def vp8l_simple_code(w, symbol):
    """A prefix code of one symbol, which every pixel takes in 0 bits."""
    w.put(1, 1)  # simple code
    w.put(0, 1)  # one symbol
    if symbol < 2:
        w.put(0, 1); w.put(symbol, 1)
    else:
        w.put(1, 1); w.put(symbol, 8)


def vp8l_byte_code(w, alphabet):
    """A normal prefix code over `alphabet` giving symbols 0-255 8 bits each (symbol n's code is
    n) and the rest none: the code length code codes length 0 as bit 0 and length 8 as bit 1."""
    w.put(0, 1)  # normal code
    w.put(12 - 4, 4)  # 12 code length code lengths, up to symbol 8 in their stored order
    for symbol in (17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8):
        w.put(1 if symbol in (0, 8) else 0, 3)
    w.put(0, 1)  # every length stored
    for symbol in range(alphabet):
        w.put(1 if symbol < 256 else 0, 1)


def vp8l_put_symbol(w, symbol):
    """An 8-bit symbol of `vp8l_byte_code`, its code's first bit first."""
    for bit in range(7, -1, -1):
        w.put((symbol >> bit) & 1, 1)


def vp8l_groups(width, height, groups, header=True, argb=(255, 40, 120, 200)):
    """A VP8L bitstream whose entropy image (a group a 4x4 block) names `groups` prefix code
    groups, each of five one-symbol codes: libwebp allocates every group's tables (about 12 KB a
    group) though every pixel codes in 0 bits. The entropy image's green and red are coded 8
    bits each. Without `header`, the stream of an ALPH chunk (the plane is the green)."""
    w = BitWriter()
    if header:
        w.put(0x2F, 8); w.put(width - 1, 14); w.put(height - 1, 14); w.put(1, 1); w.put(0, 3)
    w.put(0, 1)  # no transform
    w.put(0, 1)  # no colour cache
    w.put(1, 1)  # meta prefix codes
    w.put(0, 3)  # of 4x4 blocks
    blocks = ((width + 3) // 4) * ((height + 3) // 4)
    w.put(0, 1)  # the entropy image: no colour cache; green and red of 8 bits, the rest one symbol
    vp8l_byte_code(w, 280)
    vp8l_byte_code(w, 256)
    for _ in range(3):
        vp8l_simple_code(w, 0)
    for block in range(blocks):
        group = block % groups
        vp8l_put_symbol(w, group & 0xFF)  # green: the index's low byte
        vp8l_put_symbol(w, group >> 8)  # red: its high byte
    alpha, red, green, blue = argb
    for _ in range(groups):
        for symbol in (green, red, blue, alpha, 0):
            vp8l_simple_code(w, symbol)
    return w.bytes()


def webp_lossless_groups(size, groups):
    return riff(riff_chunk(b"VP8L", vp8l_groups(size, size, groups)))


def webp_lossy_alpha_groups(size, groups):
    """A lossy WebP whose ALPH chunk is `vp8l_groups`' stream (opaque), its VP8 frame's
    partitions zeros (a grey picture)."""
    alpha = b"\x01" + vp8l_groups(size, size, groups, header=False, argb=(255, 0, 255, 0))
    return riff(riff_chunk(b"VP8X", bytes([0x10, 0, 0, 0]) + u24(size - 1) + u24(size - 1))
                + riff_chunk(b"ALPH", alpha) + riff_chunk(b"VP8 ", vp8_zeros(size)))


def vp8_zeros(size, first=16384, tokens=65536):
    """A key frame of `size` x `size` whose two partitions are zeros: libwebp decodes a grey picture."""
    return (struct.pack("<I", 0x10 | (first << 5))[:3] + b"\x9d\x01\x2a" + struct.pack("<HH", size, size)
            + bytes(first + tokens))


def riff(chunks):
    body = b"WEBP" + chunks
    return b"RIFF" + struct.pack("<I", len(body)) + body


def riff_chunk(kind, data):
    return kind + struct.pack("<I", len(data)) + data + (b"\0" if len(data) & 1 else b"")


def u24(value):
    return struct.pack("<I", value)[:3]


def webp_lossy_alpha(size):
    """A `size` x `size` lossy WebP (VP8X) whose ALPH chunk is a one-colour VP8L stream (libwebp
    decodes a lossless alpha plane into a whole-image ARGB buffer, 4 bytes a pixel, beside the
    plane), its VP8 frame a header and zeros."""
    alpha = b"\x01" + vp8l_one_colour(size, size)[5:]  # compression 1; the stream without its 5-byte header
    partition = bytes(64)
    frame = (struct.pack("<I", 0x10 | (len(partition) << 5))[:3] + b"\x9d\x01\x2a"
             + struct.pack("<HH", size, size) + partition)
    vp8x = bytes([0x10, 0, 0, 0]) + u24(size - 1) + u24(size - 1)
    return riff(riff_chunk(b"VP8X", vp8x) + riff_chunk(b"ALPH", alpha) + riff_chunk(b"VP8 ", frame))


def webp_lossless(size):
    return riff(riff_chunk(b"VP8L", vp8l_one_colour(size, size)))


def webp_animation(frames, size):
    vp8x = bytes([0x12, 0, 0, 0]) + u24(size - 1) + u24(size - 1)  # animation + alpha
    anim = struct.pack("<IH", 0, 0)
    frame = riff_chunk(b"VP8L", vp8l_one_colour(size, size))
    anmf = riff_chunk(b"ANMF", u24(0) + u24(0) + u24(size - 1) + u24(size - 1) + u24(100) + b"\0" + frame)
    return riff(riff_chunk(b"VP8X", vp8x) + riff_chunk(b"ANIM", anim) + anmf * frames)


# MARK: - TIFF

def tiff(pages):
    """A little-endian classic TIFF; `pages` is a list of (entries, strip) where entries maps
    tag -> (type, [values]) (or is a list of (tag, type, [values]), duplicates kept in order) and
    the strip's offset and byte count are filled in."""
    sizes = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8}
    formats = {1: "B", 2: "B", 3: "H", 4: "I"}
    out = bytearray(b"II*\0\0\0\0\0")
    link = 4
    for entries, strip in pages:
        strip_offset = len(out)
        out += strip
        if len(out) & 1:
            out += b"\0"
        if isinstance(entries, dict):
            entries = [(tag, kind, vals) for tag, (kind, vals) in entries.items()]
        entries = sorted(entries + [(273, 4, [strip_offset]), (279, 4, [len(strip)])], key=lambda e: e[0])
        # Out-of-line values first, then the directory.
        values = {}
        for index, (tag, kind, vals) in enumerate(entries):
            data = struct.pack("<%d%s" % (len(vals), formats[kind]), *vals)
            if len(data) > 4:
                values[index] = len(out)
                out += data + (b"\0" if len(data) & 1 else b"")
        directory = len(out)
        struct.pack_into("<I", out, link, directory)
        out += struct.pack("<H", len(entries))
        for index, (tag, kind, vals) in enumerate(entries):
            data = struct.pack("<%d%s" % (len(vals), formats[kind]), *vals)
            field = struct.pack("<I", values[index]) if index in values else data.ljust(4, b"\0")
            out += struct.pack("<HHI", tag, kind, len(vals)) + field
        link = len(out)
        out += b"\0\0\0\0"
    return bytes(out)


def tiff_tags(width, height, bits, samples, photometric, compression=1, extra=(), sample_format=None):
    tags = {256: (4, [width]), 257: (4, [height]), 258: (3, list(bits)), 259: (3, [compression]),
            262: (3, [photometric]), 277: (3, [samples]), 278: (4, [height]), 284: (3, [1])}
    if extra:
        tags[338] = (3, list(extra))
    if sample_format:
        tags[339] = (3, list(sample_format))
    return tags


def tiff_float64_extras():
    samples = 16
    strip = deflate_zeros(2000 * 2000 * samples * 8)
    return tiff([(tiff_tags(2000, 2000, [64] * samples, samples, 2, 8, [0] * 13, [3] * samples), strip)])


def tiff_rgba16():
    strip = deflate_zeros(4400 * 4400 * 8)
    return tiff([(tiff_tags(4400, 4400, [16] * 4, 4, 2, 8, [2]), strip)])


def tiff_ifds(count):
    page = (tiff_tags(1, 1, [8], 1, 1), b"\x80")
    return tiff([page] * count)


def tiff_duplicate_size():
    """5000x5000 grey in one deflate strip, then ImageWidth and ImageLength again as 1: libtiff
    keeps the first of a tag, so a reader that keeps the last estimates a 1x1 page."""
    tags = [(tag, kind, vals) for tag, (kind, vals) in tiff_tags(5000, 5000, [8], 1, 1, 8).items()]
    return tiff([(tags + [(256, 4, [1]), (257, 4, [1])], deflate_zeros(5000 * 5000))])


def tiff_exif_fanout(entries=4096):
    """A 16x16 grey page whose directory is filled with EXIF-directory pointers (34665) back at
    itself: a walker that follows each pointer reads 4,096 x 4,096 entries."""
    tags = [(tag, kind, vals) for tag, (kind, vals) in tiff_tags(16, 16, [8], 1, 1).items()]
    fan = [(34665, 4, [8])] * (entries - len(tags) - 2)
    image = bytearray(tiff([(tags + fan, b"\x80" * 256)]))
    # The page's directory follows its strip; point the EXIF entries at it.
    directory = struct.unpack_from("<I", image, 4)[0]
    for index in range(struct.unpack_from("<H", image, directory)[0]):
        at = directory + 2 + 12 * index
        if struct.unpack_from("<H", image, at)[0] == 34665:
            struct.pack_into("<I", image, at + 8, directory)
    return bytes(image)


def tiff_overlapping_ifds(count=10000, entries=4096):
    """`count` directories of `entries` entries each in a few hundred KB: directory k starts 12
    bytes after directory k-1, every entry's last two bytes read as the next one's count, and
    entry k + `entries` holds directory k's link."""
    first = 8
    out = bytearray(b"II*\0" + struct.pack("<I", first)) + struct.pack("<H", entries)
    for m in range(count + entries):
        if m < entries:
            tag, kind, value = ((256, 3, 16) if m == 0 else (257, 3, 16) if m == 1 else (0xFFF0, 3, 0))
        else:
            k = m - entries
            link = first + 12 * (k + 1) if k < count - 1 else 0
            tag, kind, value = link & 0xFFFF, link >> 16, 0
        out += struct.pack("<HHIH", tag, kind, 1, value) + struct.pack("<H", entries)
    return bytes(out + b"\0" * 16)


# MARK: - GIF

def gif_frames(count):
    head = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\0\0\0"
    # Graphic control (10 ms), image descriptor, LZW minimum code size 2: clear, index 0, end.
    frame = b"\x21\xf9\x04\x00\x01\x00\x00\x00" + b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"
    return head + loop + frame * count + b"\x3b"


def lzw_constant(pixels, min_code_size=2):
    """GIF's LZW of `pixels` zeros, in data sub-blocks. A run of zeros is coded as ever longer
    strings: the dictionary holds runs 1..longest (run n >= 2 is code end + n - 1), and a clear
    code starts it again before it fills."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    bits, shift = 0, 0

    def emit(code, width):
        nonlocal bits, shift
        bits |= code << shift
        shift += width

    width, longest, next_code, left = min_code_size + 1, 1, end + 1, pixels
    emit(clear, width)
    while left > 0:
        take = min(longest, left)
        emit(0 if take == 1 else end + take - 1, width)
        left -= take
        if left == 0:
            break
        if next_code == 4095:
            emit(clear, width)
            width, longest, next_code = min_code_size + 1, 1, end + 1
            continue
        # As giflib: the width grows once the codes in use reach it (the decoder, a code behind,
        # grows it then too), and the dictionary gains this string and the next zero.
        if next_code == (1 << width) and width < 12:
            width += 1
        next_code += 1
        if take == longest:
            longest += 1
    emit(end, width)
    data = bits.to_bytes((shift + 7) // 8, "little")
    blocks = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
    return bytes([min_code_size]) + blocks + b"\0"


def gif_frame_past_screen(size=5000):
    """A 1x1 logical screen with one frame of `size` x `size`: ImageMagick decodes the frame at
    its own size."""
    head = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, size, size, 0) + lzw_constant(size * size)
    return head + frame + b"\x3b"


# MARK: - JPEG

def jpeg_grey(width=64, height=64):
    """A baseline 8-bit greyscale JPEG of one grey: every block codes DC difference 0, no AC."""
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\0" + b"\x01" * 64
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    # DC table: one code of length 1 for category 0; AC table: one code of length 1 for EOB.
    dht = (b"\xff\xc4" + struct.pack(">H", 3 + 16 + 1) + b"\x00" + b"\x01" + b"\0" * 15 + b"\x00"
           + b"\xff\xc4" + struct.pack(">H", 3 + 16 + 1) + b"\x10" + b"\x01" + b"\0" * 15 + b"\x00")
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00" + b"\x00\x3f\x00"
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    bits = "00" * blocks  # DC code 0, then EOB code 0, per block
    bits += "1" * (-len(bits) % 8)
    data = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)).replace(b"\xff", b"\xff\x00")
    return b"\xff\xd8" + dqt + sof + dht + sos + data + b"\xff\xd9"


def jpeg_app_segments(count, marker=0xEF, payload=b"abcd"):
    segment = bytes([0xFF, marker]) + struct.pack(">H", 2 + len(payload)) + payload
    grey = jpeg_grey()
    return grey[:2] + segment * count + grey[2:]


def jpeg_segments_after_scan(count, marker=0xEF, payload=b"abcd"):
    segment = bytes([0xFF, marker]) + struct.pack(">H", 2 + len(payload)) + payload
    grey = jpeg_grey()
    return grey[:-2] + segment * count + grey[-2:]


def jpeg_xmp_extended(count):
    """`count` extended-XMP APP1 segments of 65,000 bytes each (the most a segment holds)."""
    return jpeg_app_segments(count, 0xE1, b"http://ns.adobe.com/xmp/extension/\0" + b" " * 65_000)


def jpeg_short_segment_then(count, segment=b"\xff\xef\x00\x06abcd"):
    """An APP0 whose length says 0 (libjpeg reads on from the next byte), then `count` segments."""
    grey = jpeg_grey()
    at = grey.index(b"\xff\xc4")
    return grey[:at] + b"\xff\xe0\x00\x00" + segment * count + grey[at:]


def jpeg_arith_dc_scans_short_app(size, scans):
    """As jpeg_arith_dc_scans, with an APP0 of length 0 after the first scan."""
    whole = jpeg_arith_dc_scans(size, scans)
    sos = whole.index(b"\xff\xda")
    second = whole.index(b"\xff\xda", sos + 2)
    return whole[:second] + b"\xff\xe0\x00\x00" + whole[second:]


def jpeg_arith_dc_scans(size, scans):
    """Arithmetic-coded progressive (SOF10) greyscale: `scans` DC-first scans, each with a few
    bytes of data; the arithmetic decoder reads zeros past them, so each scan visits every block."""
    sof = b"\xff\xca" + struct.pack(">HBHHB", 11, 8, size, size, 1) + b"\x01\x11\x00"
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\0" + b"\x01" * 64
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00" + b"\x00\x00\x00" + b"\x00" * 8
    return b"\xff\xd8" + dqt + sof + sos * scans + b"\xff\xd9"


# MARK: -

# MARK: - HEIF (ISO BMFF)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from isobmff import box as bmff_box, boxes as bmff_children, full_box as bmff_full_box  # noqa: E402


def heic_picture():
    """(hvcC box, coded bytes) of the 96x64 primary of the committed fixture orient-1.heic."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "MagickIOTests", "Fixtures", "orient-1.heic")
    data = open(path, "rb").read()
    meta = next((b + 4, e) for k, _, b, e in bmff_children(data) if k == b"meta")
    inner = {k: (b, e) for k, _, b, e in bmff_children(data, *meta)}
    iloc, _ = inner[b"iloc"]
    version, base_size = data[iloc], data[iloc + 5] >> 4
    at = iloc + 8 + 2 + (2 if version else 0) + 2  # one item, one extent
    base = int.from_bytes(data[at:at + base_size], "big")
    offset, length = struct.unpack(">II", data[at + base_size + 2:at + base_size + 10])
    offset += base
    ipco = next((b, e) for k, _, b, e in bmff_children(data, *inner[b"iprp"]) if k == b"ipco")
    hvcc = next(data[s:e] for k, s, _, e in bmff_children(data, *ipco) if k == b"hvcC")
    return hvcc, data[offset:offset + length]


def heif_file(items, properties, associations, references=(), primary=1, payload=b"", idat=b"", size=None):
    """A HEIC. `items`: (id, type, extents, hidden), each extent (base, offset, length) with base
    "mdat" (from the payload's start), "file" (from the file's) or "idat"; `properties`: ipco's
    boxes; `associations`: (id, [1-based property index, ...]) for ipma (15-bit indices when any is
    over 127; the first property, the picture's hvcC, marked essential); `references`: (type, from, [to, ...]) for iref. The mdat payload is padded so the
    file is `size` bytes when given."""
    wide = any(i > 127 for _, indices in associations for i in indices)
    ipma = bytearray(struct.pack(">I", len(associations)))
    for item, indices in associations:
        ipma += struct.pack(">HB", item, len(indices))
        ipma += b"".join(struct.pack(">H", i | (0x8000 if i == 1 else 0)) if wide else bytes([i | (0x80 if i == 1 else 0)])
                         for i in indices)
    iref = b"".join(bmff_box(kind, struct.pack(">HH", source, len(to)) + b"".join(struct.pack(">H", t) for t in to))
                    for kind, source, to in references)

    def meta(mdat_start, file_size):
        iloc = bytearray(bytes([0x44, 0x00]) + struct.pack(">H", len(items)))
        for item, _, extents, _ in items:
            method = 1 if extents and extents[0][0] == "idat" else 0
            iloc += struct.pack(">HHHH", item, method, 0, len(extents))
            for base, offset, length in extents:
                start = {"mdat": mdat_start, "file": 0, "idat": 0}[base] + offset
                iloc += struct.pack(">II", start, file_size if length is None else length)
        infe = b"".join(bmff_full_box(b"infe", 2, 1 if hidden else 0, struct.pack(">HH", item, 0) + kind + b"\0")
                        for item, kind, _, hidden in items)
        return bmff_full_box(b"meta", 0, 0, b"".join([
            bmff_full_box(b"hdlr", 0, 0, b"\0" * 4 + b"pict" + b"\0" * 13),
            bmff_full_box(b"pitm", 0, 0, struct.pack(">H", primary)),
            bmff_full_box(b"iloc", 1, 0, bytes(iloc)),
            bmff_full_box(b"iinf", 0, 0, struct.pack(">H", len(items)) + infe),
            bmff_box(b"iprp", bmff_box(b"ipco", b"".join(properties)) + bmff_full_box(b"ipma", 0, 1 if wide else 0, bytes(ipma))),
            bmff_full_box(b"iref", 0, 0, iref) if references else b"",
            bmff_box(b"idat", idat) if idat else b""]))

    ftyp = bmff_box(b"ftyp", b"heic" + bytes(4) + b"mif1heicmiaf")
    mdat_start = len(ftyp) + len(meta(0, 0)) + 8
    if size is not None:
        payload += bytes(max(size - mdat_start - len(payload), 0))
    total = mdat_start + len(payload)
    return ftyp + meta(mdat_start, total) + bmff_box(b"mdat", payload)


def ispe(width, height):
    return bmff_full_box(b"ispe", 0, 0, struct.pack(">II", width, height))


EXIF_BLOCK = b"\0\0\0\0" + b"MM\0*\0\0\0\x08\0\0\0\0\0\0"  # offset to the TIFF header, an empty IFD0


def heif_references(items, references):
    """The picture as the primary item, then `items - 1` Exif items, and `references` cdsc
    references from them to the picture, one box each."""
    hvcc, coded = heic_picture()
    exif = [(i, b"Exif", [("idat", 0, len(EXIF_BLOCK))], False) for i in range(2, items + 1)]
    refs = [(b"cdsc", 2 + n % (items - 1), [1]) for n in range(references)]
    return heif_file([(1, b"hvc1", [("mdat", 0, len(coded))], False)] + exif, [hvcc, ispe(96, 64)],
                     [(1, [1, 2])], refs, payload=coded, idat=EXIF_BLOCK)


def heif_associations(items, each):
    """The picture, then `items - 1` Exif items each associated with `each` properties."""
    hvcc, coded = heic_picture()
    exif = [(i, b"Exif", [("idat", 0, len(EXIF_BLOCK))], False) for i in range(2, items + 1)]
    associations = [(1, [1, 2])] + [(i, [2] * each) for i in range(2, items + 1)]
    return heif_file([(1, b"hvc1", [("mdat", 0, len(coded))], False)] + exif, [hvcc, ispe(96, 64)],
                     associations, payload=coded, idat=EXIF_BLOCK)


def heif_extents(exif):
    """A 16 MB file whose Exif item (`exif`) or primary picture is 31 extents each spanning the
    whole file."""
    hvcc, coded = heic_picture()
    whole = [("file", 0, None)] * 31
    picture = whole if not exif else [("mdat", 0, len(coded))]
    items = [(1, b"hvc1", picture, False)] + ([(2, b"Exif", whole, False)] if exif else [])
    return heif_file(items, [hvcc, ispe(96, 64)], [(1, [1, 2])],
                     [(b"cdsc", 2, [1])] if exif else (), payload=coded, size=16 << 20)


def heif_hvcc_nal_flood(arrays=92, units=65535):
    """The picture's hvcC followed by `arrays` arrays of `units` one-byte NAL units."""
    hvcc, coded = heic_picture()
    body = bytearray(hvcc[8:])
    count_at = 22  # after the 22 fixed bytes of the record comes numOfArrays
    body[count_at] = body[count_at] + arrays
    flood = (bytes([0x27]) + struct.pack(">H", units) + b"\0\x01\x4e" * units) * arrays
    return heif_file([(1, b"hvc1", [("mdat", 0, len(coded))], False)], [bmff_box(b"hvcC", bytes(body) + flood), ispe(96, 64)],
                     [(1, [1, 2])], payload=coded)


def heif_grid(columns, rows, hvcc_units=0, tile_padding=0):
    """A grid of `columns` x `rows` tiles, each a reference to the one tile item (the 96x64
    picture): as many decodes as references. `hvcc_units`: that many 60,000-byte SEI NAL units
    added to the tile's hvcC (handed to the decoder with every tile); `tile_padding`: bytes added
    to the tile's coded data."""
    hvcc, coded = heic_picture()
    if hvcc_units:
        body = bytearray(hvcc[8:])
        body[22] += 1
        unit = struct.pack(">H", 60000) + b"\x4e\x01" + b"\xff" * 59998
        hvcc = bmff_box(b"hvcC", bytes(body) + bytes([0x27]) + struct.pack(">H", hvcc_units) + unit * hvcc_units)
    coded += bytes(tile_padding)
    grid = bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", 96 * columns, 64 * rows)
    items = [(1, b"hvc1", [("mdat", 0, len(coded))], True), (2, b"grid", [("idat", 0, len(grid))], False)]
    return heif_file(items, [hvcc, ispe(96, 64), ispe(96 * columns, 64 * rows)], [(1, [1, 2]), (2, [3])],
                     [(b"dimg", 2, [1] * (columns * rows))], primary=2, payload=coded, idat=grid)


FAMILIES = {
    "png-ztxt-1g.png": (lambda: png_ztxt(1 << 30), lambda: png_ztxt(64 << 20)),
    "png-iccp-1g.png": (lambda: png_iccp(1 << 30), lambda: png_iccp(64 << 20)),
    "png-text-100k.png": (lambda: png_text(100_000), lambda: png_text(2_500)),
    "png-itxt-1g.png": (lambda: png_itxt(1 << 30), lambda: png_itxt(64 << 20)),
    "png-ztxt-after-idat-1g.png": (lambda: png_ztxt_after_idat(1 << 30), lambda: png_ztxt_after_idat(64 << 20)),
    "png-ztxt-64x64m.png": (lambda: png_ztxt_many(64, 64 << 20), None),
    "png-raw-profile-1g.png": (lambda: png_raw_profile(1 << 30), lambda: png_raw_profile(64 << 20)),
    "webp-lossless-16383.webp": (lambda: webp_lossless(16383), lambda: webp_lossless(16383)),
    "webp-anim-2000.webp": (lambda: webp_animation(2000, 2500), lambda: webp_animation(1400, 500)),
    "tiff-float64-extras.tif": (tiff_float64_extras, None),
    "tiff-rgba16-strip.tif": (tiff_rgba16, None),
    "tiff-100k-ifds.tif": (lambda: tiff_ifds(100_000), lambda: tiff_ifds(400)),
    "gif-10k-frames.gif": (lambda: gif_frames(10_000), lambda: gif_frames(2_500)),
    "jpeg-app15-600k.jpg": (lambda: jpeg_app_segments(600_000), lambda: jpeg_app_segments(7_000)),
    "jpeg-app15-after-scan-600k.jpg": (lambda: jpeg_segments_after_scan(600_000), lambda: jpeg_segments_after_scan(7_000)),
    "jpeg-com-600k.jpg": (lambda: jpeg_app_segments(600_000, 0xFE, b"A"), lambda: jpeg_app_segments(10_000, 0xFE, b"A")),
    "jpeg-xmp-extended-300.jpg": (lambda: jpeg_xmp_extended(300), None),
    "jpeg-arith-dc-1500.jpg": (lambda: jpeg_arith_dc_scans(8800, 1500), lambda: jpeg_arith_dc_scans(8800, 1500)),
    "jpeg-arith-dc-1500-short-app.jpg": (lambda: jpeg_arith_dc_scans_short_app(8800, 1500),
                                         lambda: jpeg_arith_dc_scans_short_app(8800, 1500)),
    "jpeg-short-app-then-600k.jpg": (lambda: jpeg_short_segment_then(600_000), lambda: jpeg_short_segment_then(6_000)),
    "tiff-duplicate-size.tif": (tiff_duplicate_size, None),
    "tiff-exif-fanout.tif": (tiff_exif_fanout, tiff_exif_fanout),
    "tiff-overlapping-ifds.tif": (tiff_overlapping_ifds, lambda: tiff_overlapping_ifds(400, 512)),
    "gif-frame-past-screen.gif": (gif_frame_past_screen, lambda: gif_frame_past_screen(2000)),
    "webp-lossy-alpha-8191.webp": (lambda: webp_lossy_alpha(8191), lambda: webp_lossy_alpha(8191)),
    "webp-lossless-groups-65536.webp": (lambda: webp_lossless_groups(1024, 65536), lambda: webp_lossless_groups(256, 4096)),
    "webp-lossy-alpha-groups-65536.webp": (lambda: webp_lossy_alpha_groups(1024, 65536), None),
    "webp-lossless-groups-300.webp": (lambda: webp_lossless_groups(100, 300), lambda: webp_lossless_groups(100, 300)),
    "heif-iref-500k.heic": (lambda: heif_references(20_000, 500_000), lambda: heif_references(1_100, 1_100)),
    "heif-iref-10k.heic": (lambda: heif_references(1_000, 10_000), None),
    "heif-ipma-1m.heic": (lambda: heif_associations(20_000, 50), lambda: heif_associations(1_100, 2)),
    "heif-ipma-255k.heic": (lambda: heif_associations(1_000, 255), None),
    "heif-exif-extents.heic": (lambda: heif_extents(True), None),
    "heif-primary-extents.heic": (lambda: heif_extents(False), None),
    "heif-hvcc-nal-6m.heic": (heif_hvcc_nal_flood, None),
    "heif-hvcc-nal-2000.heic": (lambda: heif_hvcc_nal_flood(1, 2000), lambda: heif_hvcc_nal_flood(1, 2000)),
    "heif-grid-255.heic": (lambda: heif_grid(255, 255), None),
    "heif-grid-992.heic": (lambda: heif_grid(32, 31), None),
    "heif-grid-hvcc-3m.heic": (lambda: heif_grid(32, 31, hvcc_units=60), None),
    "heif-grid-fat-tile.heic": (lambda: heif_grid(32, 31, tile_padding=1 << 20), None),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("--small", action="store_true", help="fuzz-seed versions under 64 KB (families without one are skipped)")
    parser.add_argument("--only", default="", help="comma-separated file names")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    for name, (full, small) in FAMILIES.items():
        if only and name not in only:
            continue
        make = small if args.small else full
        if make is None:
            continue
        data = make()
        if args.small and len(data) > 65536:
            sys.exit(f"{name}: the small version is {len(data)} bytes")
        with open(os.path.join(args.dir, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
