#!/usr/bin/env python3
"""Recall and false positives of photoedit's own detectors against the hand-labelled ground truth,
through the product itself: `photoedit detect --json --detector D` on every image of the three
sets (photoedit decodes, applies EXIF orientation and searches exactly as faceblur does).

    python Tests/GroundTruth/photoedit_recall.py [--sets small,mosaic,upscaled] [--derived DIR]
        [--detectors haar,haar+profile,...] [--thresholds 0.45] [--binary .build/release/photoedit]
        [--json OUT.json] [--markdown OUT.md]

Run it with the venv of measure.py (it imports measure.py's scoring and set loading, which need
numpy and cv2). Scoring is measure.py's: a face is found when a detection overlaps it with
IoU >= 0.4, one to one (greedy by IoU); every other detection is a false positive; "covered"
counts faces that faceblur's circle around some detection covers to at least 90%.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import ROOT, load_set, score  # noqa: E402

CHOICES = ["haar", "haar+profile", "centerface", "centerface+haar", "centerface+haar+profile"]


def detect(binary, detector, threshold, files):
    args = [str(binary), "detect", "--json", "-j", "1", "--detector", detector]
    if threshold is not None and "centerface" in detector:
        args += ["--threshold", str(threshold)]
    out = subprocess.run(args + [str(f) for f in files], capture_output=True, text=True)
    found = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        if r["status"] != "ok":
            sys.exit(f"{r['file']}: {r.get('error')}")
        found[r["file"]] = [[f["x"], f["y"], f["width"], f["height"]] for f in r["faces"]]
    if len(found) != len(files):
        sys.exit(f"photoedit detect failed: {out.stderr.strip()}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="small,mosaic,upscaled")
    ap.add_argument("--derived", type=Path, default=ROOT / ".build" / "groundtruth")
    ap.add_argument("--detectors", default=",".join(CHOICES))
    ap.add_argument("--thresholds", default="0.45", help="CenterFace thresholds to measure")
    ap.add_argument("--binary", type=Path, default=ROOT / ".build" / "release" / "photoedit")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path)
    a = ap.parse_args()

    settings = []
    for d in a.detectors.split(","):
        if "centerface" in d:
            settings += [(d, float(t)) for t in a.thresholds.split(",")]
        else:
            settings.append((d, None))
    results = {}
    rows = [
        "| set | detector | faces | found | false positives | covered by the circle |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in a.sets.split(","):
        folder, photos = load_set(name, a.derived)
        files = [folder / p["file"] for p in photos]
        total = sum(len(p["faces"]) for p in photos)
        for d, t in settings:
            label = d if t is None else f"{d} {t}"
            print(f"{name}: {label}", file=sys.stderr, flush=True)
            found = detect(a.binary, d, t, files)
            hits = fps = cov = 0
            per = {}
            for p, f in zip(photos, files):
                dets = found[str(f)]
                hit, _, covered, fp = score(p["faces"], dets)
                n = sum(h is not None for h in hit)
                hits, fps, cov = hits + n, fps + fp, cov + sum(covered)
                per[p["file"]] = {"found": n, "faces": len(p["faces"]), "false_positives": fp}
            results.setdefault(name, {})[label] = {
                "faces": total, "found": hits, "false_positives": fps, "covered": cov, "per_image": per}
            rows.append(f"| {name} | {label} | {total} | {hits} | {fps} | {cov} |")
    table = "\n".join(rows)
    print(table)
    if a.markdown:
        a.markdown.write_text(table + "\n")
    if a.json:
        a.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
