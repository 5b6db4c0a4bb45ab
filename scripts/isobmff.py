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
