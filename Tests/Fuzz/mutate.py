#!/usr/bin/env python3
"""Feeds photoedit mutated copies of the JPEG, PNG, WebP and TIFF fixtures and reports any crash.

    python3 Tests/Fuzz/mutate.py [--seed N] [--count N] [--bin .build/release/photoedit]

Each round takes a fixture under Fixtures/ (or a WebP or TIFF seed of Tests/Fuzz/seeds/), changes it (flipped bytes, cut or inserted runs,
truncation), and runs `render -o out.jpg`, `detect`, and `render -o out.png --max-size 50` on it.
A run must end with one of photoedit's documented exit statuses (0, 1, 65, 66, 73) within a
minute; anything else (a signal, another status, a hang) is a finding, and the mutated file is
kept under .build/fuzz/ to reproduce it. Uses only Python's standard library.
"""
import argparse
import pathlib
import random
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
STATUSES = {0, 1, 65, 66, 73}


def mutate(data: bytearray, rng: random.Random) -> bytearray:
    for _ in range(rng.choice([1, 2, 4, 16, 64])):
        pos = rng.randrange(len(data))
        op = rng.random()
        if op < 0.6:
            data[pos] = rng.randrange(256)
        elif op < 0.8:
            del data[pos:pos + rng.randrange(1, 64)]
        elif op < 0.9:
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
        else:
            data = data[:pos]
        if not data:
            data = bytearray(b"\xff")
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--bin", default=str(ROOT / ".build/release/photoedit"))
    args = parser.parse_args()
    seeds = sorted(p for p in (ROOT / "Fixtures").rglob("*")
                   if p.suffix.lower() in (".jpg", ".jpeg", ".png") and p.stat().st_size < 400_000)
    seeds += sorted((ROOT / "Tests/Fuzz/seeds/webp").glob("*.webp"))
    seeds += sorted((ROOT / "Tests/Fuzz/seeds/tiff").glob("*.tif"))
    work = ROOT / ".build/fuzz"
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    findings = 0
    for i in range(args.count):
        source = rng.choice(seeds)
        data = mutate(bytearray(source.read_bytes()), rng)
        suffix = source.suffix.lower() if source.suffix.lower() in (".png", ".webp", ".tif") else ".jpg"
        photo = work / f"in-{args.seed}{suffix}"
        photo.write_bytes(data)
        for command in (["render", str(photo), "-o", str(work / f"out-{args.seed}.jpg"), "--force"],
                        ["detect", str(photo)],
                        ["render", str(photo), "-o", str(work / f"out-{args.seed}.png"), "--force",
                         "--max-size", "50"]):
            try:
                run = subprocess.run([args.bin] + command, capture_output=True, timeout=60)
                status = run.returncode
                detail = run.stderr.decode(errors="replace").strip()[-200:]
            except subprocess.TimeoutExpired:
                status, detail = "hang", "no exit within 60 s"
            if status not in STATUSES:
                findings += 1
                kept = work / f"finding-{args.seed}-{i}{suffix}"
                kept.write_bytes(data)
                print(f"finding: {command[0]} exited {status} on a mutation of {source.name}; "
                      f"kept as {kept}: {detail}", flush=True)
    print(f"fuzz: {args.count} mutated files, {findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
