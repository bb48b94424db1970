"""The 24 MP crowd photo: 96 real faces of 26 to 95 pixels on a real background, 6000x4000.

Shared by bench.py (which saves it as a baseline Q90 JPEG) and
Fixtures/faces/crowd-reference.py (which measures OpenCV's boxes on its exact pixels). The Swift
test (Tests/FaceDetectionTests/CrowdPhotoTests.swift) builds the same pixels from the layout that
crowd-reference.json records, and checks the CRC-32 recorded there, so the three agree byte for
byte.

The construction, in pixels, with no resampling of the canvas itself:
- the background is Fixtures/photos/seeding_by_Clements_Engelhardt.jpg (5312x2988) at (0, 0),
  mirrored about its right edge to fill x >= 5312 and about its bottom edge to fill y >= 2988;
- 8 rows of 12 people, the back row (top) smallest: face boxes of 26, 32, 40, 48, 55, 66, 80
  and 95 pixels. Each person is a head-and-shoulders crop of Fixtures/faces/astronaut.png
  (face box 95 px at its native 512 px) or Fixtures/faces/hopper.jpg (55 px at 128 px), the
  whole source photo first shrunk, when the row needs a smaller face, exactly as
  `photoedit render SOURCE -o OUT.png --max-size N` shrinks it (a DCT-scaled decode for the
  JPEG, then photoedit's area-averaging resampler). The 95 px row is astronaut.png at native
  size, and hopper.jpg is native in the 55 px row.
- Positions follow a grid with a fixed pseudo-random jitter (an LCG with a fixed seed), so the
  layout never changes.

Only the Python standard library, `djpeg`, `vips` (PNG to PPM) and a built photoedit are used.
"""

from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

WIDTH, HEIGHT = 6000, 4000
BACKGROUND = "photos/seeding_by_Clements_Engelhardt.jpg"
# Each face source: fixture path, native size, OpenCV's face box (x, y, side) at native size
# (Fixtures/faces/opencv-reference.json, scaleFactor 1.1, minNeighbors 3).
SOURCES = {
    "astronaut": ("faces/astronaut.png", 512, (177, 66, 95)),
    "hopper": ("faces/hopper.jpg", 128, (36, 21, 55)),
}
ROW_FACES = [26, 32, 40, 48, 55, 66, 80, 95]  # face box side per row, back (top) to front
PEOPLE_PER_ROW = 12


def _lcg(seed: int):
    state = seed
    while True:
        state = (1103515245 * state + 12345) % 2**31
        yield state


def layout() -> dict:
    """The crowd's layout: canvas size, the shrunk sources, and where each person's crop goes.

    Every number is an integer; the Swift test reads them from crowd-reference.json and does no
    geometry of its own.
    """
    rand = _lcg(20250101)
    sources: list[dict] = []  # {"name", "fixture", "longestSide"}
    index: dict[tuple[str, int], int] = {}
    people: list[dict] = []
    row_gap = (HEIGHT - 500) // (len(ROW_FACES) - 1)
    slot = WIDTH // PEOPLE_PER_ROW
    for r, face in enumerate(ROW_FACES):
        centre_y = 260 + r * row_gap
        for i in range(PEOPLE_PER_ROW):
            # Rows of small faces alternate the two photos; larger faces are astronaut.png only
            # (hopper.jpg is too small to give them without enlarging).
            name = "hopper" if face <= 55 and (i + r) % 2 == 0 else "astronaut"
            fixture, native, (bx, by, bs) = SOURCES[name]
            side = native if face == bs else round(native * face / bs)
            key = (name, side)
            if key not in index:
                index[key] = len(sources)
                sources.append({"name": name, "fixture": fixture, "longestSide": side})
            k = side / native
            f = bs * k
            cx, cy = (bx + bs / 2) * k, (by + bs / 2) * k
            x0 = max(0, round(cx - 1.2 * f))
            y0 = max(0, round(cy - 1.15 * f))
            x1 = min(side, round(cx + 1.2 * f))
            y1 = min(side, round(cy + 1.75 * f))
            jitter_x = next(rand) % 201 - 100
            jitter_y = next(rand) % 81 - 40
            at_x = slot // 2 + i * slot + jitter_x - round(cx - x0)
            at_y = centre_y + jitter_y - round(cy - y0)
            people.append({"source": index[key], "crop": [x0, y0, x1 - x0, y1 - y0],
                           "at": [at_x, at_y]})
    return {"width": WIDTH, "height": HEIGHT, "background": BACKGROUND, "sources": sources,
            "people": people}


def read_ppm(path: Path) -> tuple[int, int, bytes]:
    """An 8-bit binary PPM (P6): width, height and RGB bytes; comments allowed in the header."""
    data = path.read_bytes()
    fields: list[bytes] = []
    pos = 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError(f"{path}: not an 8-bit P6 PPM")
    width, height = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + width * height * 3]
    if len(pixels) != width * height * 3:
        raise ValueError(f"{path}: truncated PPM")
    return width, height, pixels


def _run(argv: list[str]) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {proc.stderr.strip()}")


def _decoded(path: Path, work: Path, name: str) -> tuple[int, int, bytes]:
    """A JPEG or PNG decoded to RGB as photoedit decodes it (djpeg for JPEG: the same
    libjpeg-turbo, same defaults; vips for PNG: values as stored)."""
    ppm = work / f"{name}.ppm"
    if path.suffix.lower() in (".jpg", ".jpeg"):
        with open(ppm, "wb") as out:
            proc = subprocess.run(["djpeg", "-ppm", str(path)], stdout=out, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            raise RuntimeError(f"djpeg {path} failed: {proc.stderr.decode(errors='replace')}")
    else:
        _run(["vips", "copy", str(path), str(ppm)])
    return read_ppm(ppm)


def build(fixtures: Path, photoedit: str, work: Path) -> bytearray:
    """The crowd's RGB bytes (WIDTH x HEIGHT x 3), made in `work` (a scratch folder)."""
    work.mkdir(parents=True, exist_ok=True)
    plan = layout()
    bw, bh, bg = _decoded(fixtures / plan["background"], work, "background")
    canvas = bytearray(WIDTH * HEIGHT * 3)
    row_bytes = WIDTH * 3
    for y in range(HEIGHT):
        sy = y if y < bh else 2 * bh - 1 - y
        src = bg[sy * bw * 3:(sy + 1) * bw * 3]
        # Columns past the photo mirror it: x -> 2 bw - 1 - x.
        extra = WIDTH - bw
        mirrored = bytearray(src[(bw - extra) * 3:][::-1])
        mirrored[0::3], mirrored[2::3] = mirrored[2::3], mirrored[0::3]  # BGR back to RGB
        canvas[y * row_bytes:(y + 1) * row_bytes] = src + mirrored
    images = []
    for n, source in enumerate(plan["sources"]):
        fixture = fixtures / source["fixture"]
        _, native, _ = SOURCES[source["name"]]
        if source["longestSide"] == native:
            images.append(_decoded(fixture, work, f"source{n}"))
        else:
            png = work / f"source{n}.png"
            png.unlink(missing_ok=True)
            _run([photoedit, "render", str(fixture), "-o", str(png), "--max-size",
                  str(source["longestSide"]), "--force"])
            images.append(_decoded(png, work, f"source{n}"))
    for person in plan["people"]:
        sw, sh, pixels = images[person["source"]]
        x0, y0, w, h = person["crop"]
        ax, ay = person["at"]
        assert 0 <= ax and ax + w <= WIDTH and 0 <= ay and ay + h <= HEIGHT, person
        assert x0 + w <= sw and y0 + h <= sh, person
        for j in range(h):
            s = ((y0 + j) * sw + x0) * 3
            d = ((ay + j) * WIDTH + ax) * 3
            canvas[d:d + w * 3] = pixels[s:s + w * 3]
    return canvas


def crc32(canvas: bytes) -> int:
    return zlib.crc32(canvas) & 0xFFFFFFFF


def write_ppm(path: Path, canvas: bytes) -> None:
    with open(path, "wb") as out:
        out.write(f"P6\n{WIDTH} {HEIGHT}\n255\n".encode())
        out.write(canvas)
