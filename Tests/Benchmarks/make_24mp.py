#!/usr/bin/env python3
"""Writes a 6000x4000 PNG for docs/centerface.md's "The ceiling": chelsea.png enlarged to fill it,
with astronaut.png pasted at five sizes (64 to 1024 px). Needs only numpy (PNGs are read and
written here with zlib). The network's work does not depend on the content (no region is
skipped); the faces are there so that post-processing has something to do.

    python3 Tests/Benchmarks/make_24mp.py /tmp/ceiling-24mp.png
"""
import struct
import sys
import zlib
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parents[2] / "Fixtures"


def read_png(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (0, 2, 6) and interlace == 0, (path, depth, color)
            channels = {0: 1, 2: 3, 6: 4}[color]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        else:  # 1 (sub), 3 (average), 4 (Paeth) depend on the pixel to the left: byte by byte
            cur = np.zeros(stride, np.int32)
            for i in range(stride):
                a = cur[i - channels] if i >= channels else 0
                b, c = prev[i], (prev[i - channels] if i >= channels else 0)
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (line[i] + p) & 255
        out[y] = cur
        prev = cur
    img = out.reshape(height, width, channels)
    if channels == 1:
        img = np.repeat(img, 3, axis=2)
    return img[:, :, :3]


def resize(img, w, h):
    ys = (np.arange(h) * img.shape[0] // h).clip(0, img.shape[0] - 1)
    xs = (np.arange(w) * img.shape[1] // w).clip(0, img.shape[1] - 1)
    return img[ys][:, xs]


def write_png(path, img):
    h, w, _ = img.shape
    raw = np.concatenate([np.zeros((h, 1), np.uint8), img.reshape(h, w * 3)], axis=1).tobytes()

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
    Path(path).write_bytes(png)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/ceiling-24mp.png"
    canvas = resize(read_png(FIXTURES / "photos/chelsea.png"), 6000, 4000).copy()
    face = read_png(FIXTURES / "faces/astronaut.png")
    x = 100
    for side in (64, 128, 256, 512, 1024):
        canvas[1500 : 1500 + side, x : x + side] = resize(face, side, side)
        x += side + 200
    write_png(out, canvas)
    print(f"{out}: 6000x4000")


main()
