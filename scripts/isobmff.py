"""ISO BMFF boxes (HEIF, AVIF) for the fixture generators: written whole, and walked."""
import struct


def box(kind, body):
    return struct.pack(">I", 8 + len(body)) + kind + body


def full_box(kind, version, flags, body):
    return box(kind, bytes([version]) + flags.to_bytes(3, "big") + body)


def boxes(data, start=0, end=None):
    """(type, start, body start, end) of each box in data[start:end]; a size of 0 runs to the end."""
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        size = end - start if size == 0 else size
        yield kind, start, start + 8, start + size
        start += size


def movie():
    """A `moov` box with a movie header only: where a sequence's track would be."""
    return box(b"moov", full_box(b"mvhd", 0, 0, struct.pack(">IIII", 0, 0, 1000, 0) + struct.pack(">IH", 0x10000, 0x100)
                                 + bytes(10) + struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
                                 + bytes(24) + struct.pack(">I", 2)))
