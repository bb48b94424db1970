#!/usr/bin/env python3
"""Builds the libFuzzer targets (libFuzzer + AddressSanitizer) and runs each for a set time.

    python3 Tests/Fuzz/fuzz.py [--seconds 180] [--runs N] [--targets FuzzJPEG,FuzzPNG] [--no-build]

`make fuzz` runs this (FUZZ_SECONDS, FUZZ_RUNS, FUZZ_TARGETS). Each target is built into
.build/fuzz with PHOTOEDIT_FUZZ=1 (Package.swift declares the targets only then), seeded from
Fixtures/ and Tests/Fuzz/seeds/ (FuzzModel from the small models Tests/Fuzz/model_seeds.py
writes), and run one at a time under `nice -n 10` until --seconds or
--runs executions, with -timeout=10 and -rss_limit_mb=2048 so that slow or hungry inputs are
findings too. The corpus grows in .build/fuzz/corpus/TARGET between runs; a finding (crash-*,
timeout-*, oom-*, leak-*) is written to .build/fuzz/findings/TARGET/ and reproduced with
`.build/fuzz/release/TARGET FILE`. Prints each target's executions and findings; exits 1 when
there is any finding. Uses only Python's standard library.
"""
import argparse
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import model_seeds  # noqa: E402  (beside this file)

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUZZ = ROOT / "Tests/Fuzz"
BUILD = ROOT / ".build/fuzz"
CASCADES = pathlib.Path("/usr/share/opencv4/haarcascades")

# target: (dictionaries, -max_len)
TARGETS = {
    "FuzzJPEG": (["jpeg.dict"], 65536),
    "FuzzPNG": (["png.dict"], 65536),
    "FuzzMetadata": (["jpeg.dict", "png.dict"], 65536),
    "FuzzCascade": (["cascade.dict"], 131072),
    "FuzzStrokes": (["json.dict"], 16384),
    "FuzzSidecar": (["json.dict"], 16384),
    "FuzzSplice": (["jpeg.dict"], 65536),
    "FuzzModel": (["onnx.dict"], 65536),
    "FuzzWebP": (["webp.dict"], 65536),
    "FuzzHEIF": (["heif.dict"], 65536),
    "FuzzTIFF": (["tiff.dict"], 65536),
}


def fixtures(*suffixes, below=100_000):
    return sorted(p for p in (ROOT / "Fixtures").rglob("*")
                  if p.suffix.lower() in suffixes and p.stat().st_size < below)


def jpeg_segments(data):
    """(marker, payload) of a JPEG's segments up to its first scan."""
    i, out = 2, []
    while i + 4 <= len(data) and data[i] == 0xFF:
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((marker, data[i + 4:i + 2 + length]))
        if marker == 0xDA:
            break
        i += 2 + length
    return out


def png_chunks(data):
    i, out = 8, []
    while i + 12 <= len(data):
        length = struct.unpack(">I", data[i:i + 4])[0]
        out.append((data[i + 4:i + 8], data[i + 8:i + 8 + length]))
        i += 12 + length
    return out


def seeds(target):
    """The seed inputs of a target, as (name, bytes)."""
    jpegs = fixtures(".jpg", ".jpeg") + [ROOT / "Tests/Inputs/testorig-100-scans.jpg"]
    pngs = fixtures(".png")
    if target in ("FuzzJPEG", "FuzzSplice"):
        return [(p.name, p.read_bytes()) for p in jpegs]
    if target == "FuzzPNG":
        return [(p.name, p.read_bytes()) for p in pngs]
    if target == "FuzzWebP":
        # Committed, made by cwebp and img2webp from the fixtures: lossy, lossless, alpha, a
        # palette, EXIF orientation 6 with ICC and XMP, an animation.
        return [(p.name, p.read_bytes()) for p in sorted((FUZZ / "seeds/webp").glob("*.webp"))]
    if target == "FuzzHEIF":
        # Committed, made by heif-enc from the fixtures: HEIC and AVIF, alpha, 10 bits, lossless,
        # a JPEG's EXIF orientation 6 with a thumbnail.
        return [(p.name, p.read_bytes()) for p in sorted((FUZZ / "seeds/heif").glob("*.hei[cf]"))
                + sorted((FUZZ / "seeds/heif").glob("*.avif"))]
    if target == "FuzzTIFF":
        # Committed, made from png/basn2c08.png by raw2tiff, tiffcp, tiffmedian and tiffset: LZW,
        # Deflate tiles, PackBits grey, JPEG, 16-bit, alpha, separate planes, a palette,
        # orientation 6, two pages, BigTIFF.
        return [(p.name, p.read_bytes()) for p in sorted((FUZZ / "seeds/tiff").glob("*.tif"))]
    if target == "FuzzMetadata":
        out = []
        for p in jpegs + [ROOT / "Fixtures/jpeg/xmp_test.jpg"]:
            data = p.read_bytes()
            out.append((f"jpeg-{p.name}", b"\x00" + data[2:]))
            for marker, payload in jpeg_segments(data):
                for selector, signature in ((1, b"Exif\0\0"), (2, b"http://ns.adobe.com/xap/1.0/\0"),
                                            (3, b"Photoshop 3.0\0")):
                    if marker in (0xE1, 0xED) and payload.startswith(signature):
                        out.append((f"{selector}-{p.name}", bytes([selector]) + payload[len(signature):]))
        for p in pngs + [ROOT / "Fixtures/faces/astronaut.png"]:
            data = p.read_bytes()
            if len(data) < 100_000:
                out.append((f"png-{p.name}", b"\x04" + data[8:]))
            for kind, payload in png_chunks(data):
                if kind in (b"iCCP", b"iTXt"):
                    out.append((f"5-{p.name}", b"\x05" + payload))
        # Stripping (selectors 1 and 3): an EXIF with GPS, Exif and Interoperability IFDs, serials
        # and a thumbnail, and a Photoshop block with IPTC records, as the tests build them.
        for p in sorted((FUZZ / "seeds/metadata").glob("*.bin")):
            out.append((p.name, p.read_bytes()))
        band = (ROOT / "Fixtures/jpeg/testorig.jpg").read_bytes()
        out.append(("bands", b"\x06" + bytes([len(band) // 32]) + band + band))
        return out
    if target == "FuzzCascade":
        out = [(p.name, p.read_bytes()) for p in sorted((FUZZ / "seeds/cascade").glob("*.xml"))]
        for name in ("haarcascade_licence_plate_rus_16stages.xml", "haarcascade_russian_plate_number.xml"):
            if (CASCADES / name).exists():
                out.append((name, (CASCADES / name).read_bytes()))
        return out
    if target == "FuzzStrokes":
        files = [ROOT / "Fixtures/recipes/strokes.json"] + sorted((FUZZ / "seeds/strokes").glob("*.json"))
        return [(p.name, p.read_bytes()) for p in files]
    if target == "FuzzSidecar":
        out = []
        for p in sorted((ROOT / "Fixtures/recipes").glob("*.json")):
            out.append((f"sidecar-{p.name}", b"\x00" + p.read_bytes()))
            out.append((f"recipe-{p.name}", b"\x01" + p.read_bytes()))
        for p in sorted((FUZZ / "seeds/journal").glob("*.json")):
            out.append((f"journal-{p.name}", b"\x02" + p.read_bytes()))
        return out
    if target == "FuzzModel":
        return model_seeds.seeds()
    raise ValueError(target)


def build(target):
    command = ["swift", "build", "-c", "release", "--scratch-path", str(BUILD), "--sanitize=fuzzer",
               "-Xswiftc", "-sanitize=fuzzer,address", "-Xcc", "-fsanitize=address",
               "-Xswiftc", "-enable-testing", "--product", target]
    env = dict(os.environ, PHOTOEDIT_FUZZ="1", PATH="/opt/swift/usr/bin:" + os.environ.get("PATH", ""))
    print(f"fuzz: building {target}", flush=True)
    run = subprocess.run(["nice", "-n", "10"] + command, cwd=ROOT, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stdout[-3000:] + run.stderr[-3000:], file=sys.stderr)
    return run.returncode == 0


def fuzz(target, seconds, runs):
    dictionaries, max_len = TARGETS[target]
    seed_dir = BUILD / "seeds" / target
    shutil.rmtree(seed_dir, ignore_errors=True)
    seed_dir.mkdir(parents=True)
    for name, data in seeds(target):
        (seed_dir / name).write_bytes(data)
    corpus = BUILD / "corpus" / target
    corpus.mkdir(parents=True, exist_ok=True)
    findings = BUILD / "findings" / target
    findings.mkdir(parents=True, exist_ok=True)
    dictionary = BUILD / f"{target}.dict"
    dictionary.write_text("".join((FUZZ / "dict" / d).read_text() for d in dictionaries))
    before = set(findings.iterdir())
    log = BUILD / f"{target}.log"
    command = [str(BUILD / "release" / target), f"-max_total_time={seconds}", "-timeout=10",
               "-rss_limit_mb=2048", "-detect_leaks=0", f"-max_len={max_len}", f"-dict={dictionary}",
               f"-artifact_prefix={findings}/", "-print_final_stats=1", str(corpus), str(seed_dir)]
    if runs:
        command.insert(2, f"-runs={runs}")
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    print(f"fuzz: running {target} for up to {seconds} s" + (f" or {runs} executions" if runs else ""),
          flush=True)
    start = time.monotonic()
    with open(log, "w") as out:
        status = subprocess.run(["nice", "-n", "10"] + command, cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT).returncode
    elapsed = time.monotonic() - start
    text = log.read_text(errors="replace")
    executions = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    peak = re.findall(r"stat::peak_rss_mb:\s*(\d+)", text)
    new = sorted(p.name for p in set(findings.iterdir()) - before)
    return {
        "target": target, "status": status, "seconds": elapsed,
        "executions": int(executions[-1]) if executions else None,
        "peak_rss_mb": int(peak[-1]) if peak else None,
        "corpus": sum(1 for _ in corpus.iterdir()), "findings": new, "log": log,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=180, help="per target")
    parser.add_argument("--runs", type=int, default=0, help="stop a target after this many executions")
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    targets = [t for t in args.targets.split(",") if t]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown targets {unknown}; known: {', '.join(TARGETS)}")
    results, failed_builds = [], []
    for target in targets:
        if not args.no_build and not build(target):
            failed_builds.append(target)
            continue
        results.append(fuzz(target, args.seconds, args.runs))
    print()
    print(f"{'target':<14} {'executions':>12} {'seconds':>8} {'exec/s':>8} {'peak MB':>8} {'corpus':>7}  findings")
    for r in results:
        rate = r["executions"] / r["seconds"] if r["executions"] and r["seconds"] else 0
        print(f"{r['target']:<14} {r['executions'] or 0:>12} {r['seconds']:>8.0f} {rate:>8.0f} "
              f"{r['peak_rss_mb'] or 0:>8} {r['corpus']:>7}  "
              + (", ".join(r["findings"]) if r["findings"] else "none"))
        if r["findings"] or (r["status"] != 0 and not r["executions"]):
            print(f"  see {r['log']}")
    for target in failed_builds:
        print(f"{target:<14} build failed")
    bad = failed_builds or any(r["findings"] or r["status"] != 0 for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
