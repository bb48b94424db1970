#!/usr/bin/env python3
"""Writes crowd-reference.json: the 24 MP crowd photo's layout, the CRC-32 of its RGB bytes, and
the boxes OpenCV's detectMultiScale finds on exactly those pixels, in the order OpenCV returns
them with one thread (cv2.setNumThreads(1): with more threads OpenCV's raw boxes come in the
order its threads finish, so its groups may come out in another order).

The photo is made by Tests/Benchmarks/crowd.py (see its docstring); the Swift test builds the
same pixels from the layout recorded here and checks the CRC-32 before comparing boxes.

Run from the repository's top folder after a release build (`make build`), with
opencv-python-headless<5 (4.14 was used; `Tests/Benchmarks/setup.sh` makes .build/bench/venv)
and Debian's opencv-data, djpeg and vips:
    .build/bench/venv/bin/python Fixtures/faces/crowd-reference.py
"""
import json
import sys
import tempfile
from pathlib import Path

import cv2
import numpy

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "Benchmarks"))
import crowd  # noqa: E402

CASCADE = "haarcascade_frontalface_default.xml"
# (scaleFactor, minNeighbors): the defaults, and the raw windows before grouping.
SETTINGS = [(1.1, 3), (1.1, 0)]


def main() -> int:
    with tempfile.TemporaryDirectory() as work:
        canvas = crowd.build(ROOT / "Fixtures", str(ROOT / ".build" / "release" / "photoedit"),
                             Path(work))
    rgb = numpy.frombuffer(bytes(canvas), dtype=numpy.uint8).reshape(crowd.HEIGHT, crowd.WIDTH, 3)
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    cv2.setNumThreads(1)
    cascade = cv2.CascadeClassifier("/usr/share/opencv4/haarcascades/" + CASCADE)
    runs = []
    for scale_factor, min_neighbors in SETTINGS:
        boxes = cascade.detectMultiScale(grey, scaleFactor=scale_factor, minNeighbors=min_neighbors)
        runs.append({"settings": {"scaleFactor": scale_factor, "minNeighbors": min_neighbors},
                     "boxes": [list(map(int, b)) for b in boxes]})
        print(f"scaleFactor {scale_factor}, minNeighbors {min_neighbors}: {len(boxes)} boxes")
    out = {"opencv": cv2.__version__, "cascade": CASCADE, "threads": 1,
           "crc32": crowd.crc32(canvas), "layout": crowd.layout(), "runs": runs}
    path = Path(__file__).with_name("crowd-reference.json")
    with open(path, "w") as f:
        json.dump(out, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
