#!/usr/bin/env python3
"""Writes cascade-reference.json: OpenCV's raw (minNeighbors 0) and grouped (minNeighbors 3)
detectMultiScale boxes, scaleFactor 1.1, for Debian's other cascade kinds (trees, tilted
features, a non-square window, the old XML format) on two fixture photos.

Run from this folder with opencv-python-headless<5 (4.14 was used) and Debian's opencv-data:
    python3 cascade-reference.py
"""
import json
import cv2

CASCADES = {
    "haarcascade_eye_tree_eyeglasses.xml": "trees, tilted features",
    "haarcascade_fullbody.xml": "tilted features, 14x28 window",
    "haarcascade_upperbody.xml": "tilted features, 22x18 window",
    "haarcascade_frontalface_alt2.xml": "two-node trees",
    "haarcascade_licence_plate_rus_16stages.xml": "old opencv-haar-classifier format, 64x16 window",
    "haarcascade_smile.xml": "36x18 window (grouped only: 48227 raw boxes on xmp_test)",
}
PHOTOS = {"astronaut.png": "astronaut.png", "xmp_test.jpg": "../jpeg/xmp_test.jpg"}

cv2.setNumThreads(1)
out = {"opencv": cv2.__version__, "scaleFactor": 1.1, "cascades": {}}
for name, what in CASCADES.items():
    c = cv2.CascadeClassifier("/usr/share/opencv4/haarcascades/" + name)
    entry = {"what": what, "photos": {}}
    for photo, path in PHOTOS.items():
        grey = cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2GRAY)
        runs = {}
        for mn in ([3] if "smile" in name else [0, 3]):
            r = c.detectMultiScale(grey, 1.1, mn)
            runs[str(mn)] = sorted(r.tolist()) if len(r) else []
        entry["photos"][photo] = runs
    out["cascades"][name] = entry
with open("cascade-reference.json", "w") as f:
    json.dump(out, f, sort_keys=True, separators=(",", ":"))
    f.write("\n")
