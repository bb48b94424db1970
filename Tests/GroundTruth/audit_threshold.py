#!/usr/bin/env python3
"""The score from which `photoedit audit` counts a face as visible, measured through the product:
CenterFace's scores on the hand-labelled photos as they are (visible faces) and on the renders
`photoedit apply --filter faceblur` (default settings) makes of them, copied without their
sidecars, as they would be published (hidden faces).

    python3 Tests/GroundTruth/audit_threshold.py [--binary .build/release/photoedit]
        [--thresholds 0.2,0.25,0.3,0.35,0.4,0.5] [--work DIR]

Standard library only. Sets: Fixtures/groundtruth (the tuning set) and Fixtures/groundtruth-report
(the report set), with their labels (faces.json, boxes [x, y, width, height] in pixels of the
upright photo). A labelled face is seen at a threshold when a detection at or above it overlaps
it with IoU >= 0.4 (measure.py's rule). A render passes at a threshold when no detection of it
reaches it (audit reports every face found, wherever it is).
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETS = ["groundtruth", "groundtruth-report"]


def iou(a, b):
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)


def detect(binary, files):
    """Every CenterFace detection at 0.05 (the lowest threshold detect takes), by file name."""
    out = subprocess.run(
        [str(binary), "detect", "--json", "--threshold", "0.05"] + [str(f) for f in files],
        capture_output=True, text=True)
    found = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        if r["status"] != "ok":
            sys.exit(f"{r['file']}: {r.get('error')}")
        found[Path(r["file"]).name] = [
            ([f["x"], f["y"], f["width"], f["height"]], f["score"]) for f in r["faces"]]
    if len(found) != len(files):
        sys.exit(f"photoedit detect failed: {out.stderr.strip()}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", type=Path, default=ROOT / ".build" / "release" / "photoedit")
    ap.add_argument("--thresholds", default="0.2,0.25,0.3,0.35,0.4,0.5")
    ap.add_argument("--work", type=Path)
    ap.add_argument("--verbose", action="store_true", help="list every detection in the renders at 0.2 or more")
    ap.add_argument("--format", choices=["jpeg", "png"], default="jpeg",
                    help="the renders' format: JPEG as the originals (--output-dir), or PNG (-o NAME.png, lossless)")
    a = ap.parse_args()
    thresholds = [float(t) for t in a.thresholds.split(",")]
    work = a.work or Path(tempfile.mkdtemp(prefix="audit-threshold-"))

    labels, originals = {}, []
    for s in SETS:
        for p in json.loads((ROOT / "Fixtures" / s / "faces.json").read_text())["photos"]:
            labels[p["file"]] = p["faces"]
            originals.append(ROOT / "Fixtures" / s / p["file"])

    # Hidden: faceblur's default renders, published without their sidecars.
    out, public = work / "out", work / "public"
    for d in (out, public):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    if a.format == "jpeg":
        runs = [[str(a.binary), "apply", "--filter", "faceblur", "--output-dir", str(out)] + [str(f) for f in originals]]
    else:
        runs = [[str(a.binary), "apply", "--filter", "faceblur", "-o", str(out / (f.stem + ".png")), str(f)] for f in originals]
    for args in runs:
        run = subprocess.run(args, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"faceblur failed ({run.returncode}): {run.stderr.strip()}")
    renders = []
    for f in sorted(out.iterdir()):
        if not f.name.endswith(".photoedit.json"):
            shutil.copyfile(f, public / f.name)
            renders.append(public / f.name)

    visible = detect(a.binary, originals)
    hidden = detect(a.binary, renders)

    faces = []  # (file, hard, best score of a detection overlapping the label)
    for name, fs in labels.items():
        for f in fs:
            best = max((s for box, s in visible[name] if iou(box, f["box"]) >= 0.4), default=0.0)
            faces.append((name, f["hard"], best))
    render_max = {name: max((s for _, s in ds), default=0.0) for name, ds in hidden.items()}
    # Detections of the originals that are no labelled face (a false positive, or a face too
    # small or too hard to label).
    others = [s for name, ds in visible.items() for box, s in ds
              if not any(iou(box, f["box"]) >= 0.4 for f in labels[name])]
    # In the renders: over a face faceblur hid (its recorded box, IoU >= 0.2 or centre inside)
    # or elsewhere.
    def hid(name, box):
        d = json.loads((out / (name + ".photoedit.json")).read_text())
        w, h = d["original"]["width"], d["original"]["height"]
        cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
        for op in d["operations"]:
            for f in op.get("derived", {}).get("faces", []):
                b = [f["x"] * w, f["y"] * h, f["width"] * w, f["height"] * h]
                if iou(box, b) >= 0.2 or (b[0] <= cx < b[0] + b[2] and b[1] <= cy < b[1] + b[3]):
                    return True
        return False
    over = [(name, s, hid(name, box)) for name, ds in hidden.items() for box, s in ds]
    if a.verbose:
        for name, ds in hidden.items():
            for box, s in ds:
                if s >= 0.2:
                    where = "over a hidden face" if hid(name, box) else "elsewhere"
                    print(f"  {name}: {s:.3f} at {[round(v) for v in box]} {where}")

    print(f"{len(originals)} photos, {len(faces)} labelled faces "
          f"({sum(1 for f in faces if not f[1])} not hard); {len(renders)} faceblur renders\n")
    print("| threshold | labelled faces seen (all) | not hard | photos flagged | other detections in photos "
          "| renders flagged | detections in renders over a hidden face | elsewhere |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for t in thresholds:
        seen = sum(1 for f in faces if f[2] >= t)
        easy = [f for f in faces if not f[1]]
        seen_easy = sum(1 for f in easy if f[2] >= t)
        photos = sum(1 for n in visible if any(s >= t for _, s in visible[n]))
        flagged = sum(1 for m in render_max.values() if m >= t)
        other = sum(1 for s in others if s >= t)
        on = sum(1 for _, s, h in over if s >= t and h)
        off = sum(1 for _, s, h in over if s >= t and not h)
        print(f"| {t:g} | {seen}/{len(faces)} | {seen_easy}/{len(easy)} | {photos}/{len(visible)} | {other} | "
              f"{flagged}/{len(renders)} | {on} | {off} |")
    photo_max = sorted((max((s for _, s in ds), default=0.0), name) for name, ds in visible.items())
    print("\nlowest highest-scores among the photos as they are (visible faces): "
          + ", ".join(f"{m:.3f} {n}" for m, n in photo_max[:3]))
    print("\nhighest score in each render (hidden faces):")
    for name, m in sorted(render_max.items(), key=lambda kv: -kv[1]):
        print(f"  {m:.3f}  {name}")
    print(f"\nwork folder: {work}")


if __name__ == "__main__":
    main()
