"""Reads and writes the 8-bit RGB(A) PNG files that headless Chromium's screenshots are (zlib only, no
imaging library): pixels as rows of bytes, a count of drawn pixels, and a crop written back as RGB."""
import struct
import zlib


def read(path):
    """(width, height, channels, rows): rows[y] is a bytearray of width * channels bytes."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(path + " is not a PNG")
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunk[:13])
            if depth != 8 or interlace != 0 or color not in (2, 6):
                raise ValueError(path + ": not 8-bit RGB(A), non-interlaced")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                ul = previous[i - channels] if i >= channels else 0
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def drawn_pixels(rows, channels):
    """Pixels that are not near white."""
    count = 0
    for line in rows:
        for x in range(0, len(line), channels):
            if line[x] < 200 or line[x + 1] < 200 or line[x + 2] < 200:
                count += 1
    return count


def write_crop(path, image, x, y, w, h):
    """Writes the w x h pixels at (x, y) of image (as read() returns it) to path as an RGB PNG."""
    width, height, channels, rows = image
    x, y = max(0, x), max(0, y)
    w, h = min(w, width - x), min(h, height - y)
    raw = bytearray()
    for line in rows[y:y + h]:
        raw.append(0)
        for i in range(x * channels, (x + w) * channels, channels):
            raw += line[i:i + 3]

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))
