#!/usr/bin/env python3
"""Draw ground-truth boxes (and optionally detections) on a photo, for checking labels by eye.

    draw_boxes.py PHOTO [-j faces.json] [--box x,y,w,h ...] [--det dets.json]
                  [--grid N] [--crop x,y,w,h] [--zoom Z] -o OUT.png

The photo is drawn upright (EXIF orientation applied, as the labels are). Boxes
from faces.json (the entry whose "file" is PHOTO's name) are drawn in green
with their index, hard faces in yellow; --box adds boxes in magenta; --det
draws detections ({"FILE": [[x,y,w,h], ...]}) in red. --grid N draws a line
every N pixels with its coordinate, to read positions off the picture.
--crop and --zoom show a part of the photo enlarged (nearest neighbour), so
that box edges can be placed to the pixel.
"""

import argparse
import json
from pathlib import Path

from PIL import Image, ImageDraw, ImageOps


def parse_box(s):
    v = [float(t) for t in s.split(",")]
    if len(v) != 4:
        raise argparse.ArgumentTypeError(f"box needs x,y,w,h: {s}")
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("photo")
    ap.add_argument("-j", "--json", help="faces.json")
    ap.add_argument("--box", type=parse_box, action="append", default=[])
    ap.add_argument("--det", help="detections JSON: {file: [[x,y,w,h], ...]}")
    ap.add_argument("--grid", type=int, default=0)
    ap.add_argument("--crop", type=parse_box)
    ap.add_argument("--zoom", type=float, default=1.0)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()

    name = Path(a.photo).name
    im = ImageOps.exif_transpose(Image.open(a.photo)).convert("RGB")
    layers = []  # (box, colour, label)
    if a.json:
        for p in json.loads(Path(a.json).read_text())["photos"]:
            if p["file"] == name:
                for i, f in enumerate(p["faces"]):
                    layers.append((f["box"], (255, 220, 0) if f.get("hard") else (0, 255, 0), str(i)))
    for i, b in enumerate(a.box):
        layers.append((b, (255, 0, 255), f"+{i}"))
    if a.det:
        for i, b in enumerate(json.loads(Path(a.det).read_text()).get(name, [])):
            layers.append((b[:4], (255, 40, 40), f"d{i}"))

    ox, oy = 0.0, 0.0
    if a.crop:
        ox, oy, cw, ch = a.crop
        im = im.crop((int(ox), int(oy), int(ox + cw), int(oy + ch)))
    z = a.zoom
    if z != 1.0:
        im = im.resize((round(im.width * z), round(im.height * z)), Image.Resampling.NEAREST)
    d = ImageDraw.Draw(im)
    if a.grid:
        g = a.grid
        start_x = int(ox // g + 1) * g
        for x in range(start_x, int(ox + im.width / z) + 1, g):
            X = (x - ox) * z
            d.line([(X, 0), (X, im.height)], fill=(0, 200, 255), width=1)
            d.text((X + 2, 2), str(x), fill=(0, 200, 255))
        start_y = int(oy // g + 1) * g
        for y in range(start_y, int(oy + im.height / z) + 1, g):
            Y = (y - oy) * z
            d.line([(0, Y), (im.width, Y)], fill=(0, 200, 255), width=1)
            d.text((2, Y + 2), str(y), fill=(0, 200, 255))
    for (x, y, w, h), col, label in layers:
        X0, Y0 = (x - ox) * z, (y - oy) * z
        X1, Y1 = (x + w - ox) * z, (y + h - oy) * z
        d.rectangle([X0, Y0, X1 - 1, Y1 - 1], outline=col, width=2 if z < 3 else 1)
        d.text((X0 + 2, Y0 + 1), label, fill=col)
    im.save(a.output)


if __name__ == "__main__":
    main()
