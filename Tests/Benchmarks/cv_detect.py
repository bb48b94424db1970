#!/usr/bin/env python3
"""OpenCV baseline for `photoedit detect`: times CascadeClassifier.detectMultiScale alone.

Usage: cv_detect.py IMAGE THREADS [CASCADE]

Loads IMAGE with cv2.imread (EXIF orientation applied), converts it to grey with BGR2GRAY,
sets OpenCV's thread count, and times one detectMultiScale call (scaleFactor 1.1,
minNeighbors 3, no size limits: photoedit's defaults). Prints `detect SECONDS faces N`.
"""
import sys
import time

import cv2

DEFAULT_CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"


def main() -> int:
    path, threads = sys.argv[1], int(sys.argv[2])
    cascade_path = sys.argv[3] if len(sys.argv) > 3 else DEFAULT_CASCADE
    cv2.setNumThreads(threads)
    cascade = cv2.CascadeClassifier(cascade_path)
    if cascade.empty():
        print(f"cv_detect: cannot load cascade {cascade_path}", file=sys.stderr)
        return 1
    image = cv2.imread(path)
    if image is None:
        print(f"cv_detect: cannot read {path}", file=sys.stderr)
        return 1
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    start = time.perf_counter()
    faces = cascade.detectMultiScale(grey, scaleFactor=1.1, minNeighbors=3)
    seconds = time.perf_counter() - start
    print(f"detect {seconds:.6f} faces {len(faces)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
