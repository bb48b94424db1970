#!/usr/bin/env python3
"""OpenCV baseline for `photoedit apply --filter faceblur`, end to end.

Usage: cv_faceblur.py IN OUT [CASCADE]

What a user would write with OpenCV: load the photo, detect faces at full size
(scaleFactor 1.1, minNeighbors 3, OpenCV's default threading), pixelate a circle centred
on each face (radius 1.2 x half the box width, about 10 blocks across the face, each block
the mean of its pixels), and save as JPEG at quality 90. Prints `faces N`.
"""
import sys

import cv2
import numpy as np

DEFAULT_CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"


def pixelate_circle(image: np.ndarray, cx: int, cy: int, radius: int, block: int) -> None:
    height, width = image.shape[:2]
    x0, y0 = max(cx - radius, 0), max(cy - radius, 0)
    x1, y1 = min(cx + radius + 1, width), min(cy + radius + 1, height)
    region = image[y0:y1, x0:x1]
    rh, rw = region.shape[:2]
    small = cv2.resize(region, (max(1, rw // block), max(1, rh // block)), interpolation=cv2.INTER_AREA)
    blocky = cv2.resize(small, (rw, rh), interpolation=cv2.INTER_NEAREST)
    mask = np.zeros((rh, rw), dtype=np.uint8)
    cv2.circle(mask, (cx - x0, cy - y0), radius, 255, thickness=-1)
    region[mask > 0] = blocky[mask > 0]


def main() -> int:
    source, target = sys.argv[1], sys.argv[2]
    cascade_path = sys.argv[3] if len(sys.argv) > 3 else DEFAULT_CASCADE
    cascade = cv2.CascadeClassifier(cascade_path)
    image = cv2.imread(source)
    if image is None or cascade.empty():
        print("cv_faceblur: cannot read the image or the cascade", file=sys.stderr)
        return 1
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    faces = cascade.detectMultiScale(grey, scaleFactor=1.1, minNeighbors=3)
    for x, y, w, h in faces:
        radius = int(round(0.6 * max(w, h)))
        pixelate_circle(image, int(x + w // 2), int(y + h // 2), radius, max(1, int(w) // 10))
    if not cv2.imwrite(target, image, [cv2.IMWRITE_JPEG_QUALITY, 90]):
        print(f"cv_faceblur: cannot write {target}", file=sys.stderr)
        return 1
    print(f"faces {len(faces)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
