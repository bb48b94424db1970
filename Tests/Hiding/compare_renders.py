"""Whether two photoedit binaries hide the labelled faces the same way, byte for byte.

For a change to faceblur's check that must not change what it decides (which faces need a
stronger hiding, and how much): runs `apply -f faceblur -o OUT.png` with each binary on every
labelled photo (Fixtures/groundtruth, Fixtures/groundtruth-report, the 24 MP mosaic and the
upscaled set of Tests/GroundTruth/make_sets.py in .build/groundtruth/, and any --photo given),
each on its own copy, and compares the render digest `--json` reports (the SHA-256 of the
rendered pixels), the faces and the faces strengthened. Also sums the `timing: check` lines
(each check search's wall time; searches run two at a time).

    python3 Tests/Hiding/compare_renders.py --old /tmp/pe-old --new .build/release/photoedit \\
        [--photo .build/bench/photos/crowd24.jpg ...] [--json /tmp/compare.json]

Prints one line per photo (SAME or DIFF) and a total; exits 1 when any photo differs or fails.
Work files go to .build/compare-renders/. Needs PHOTOEDIT_CENTERFACE or the cached model.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(binary, photo, work):
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, os.path.basename(photo))
    if os.path.exists(src):
        shutil.rmtree(work)
        os.makedirs(work)
    shutil.copy(photo, src)
    r = subprocess.run([binary, "apply", "--timings", "--json", "-f", "faceblur", "-o", src + ".out.png", src],
                       capture_output=True, text=True)
    lines = r.stdout.strip().splitlines()
    result = json.loads(lines[-1]) if lines else {"status": "no output", "error": r.stderr.strip()[-200:]}
    checks = [float(l.split()[2].rstrip("s")) for l in r.stderr.splitlines() if l.startswith("timing: check")]
    return {"status": result.get("status"), "exit": r.returncode, "render": result.get("render"),
            "faces": result.get("faces"), "strengthened": result.get("strengthened", 0),
            "searches": len(checks), "check_seconds": round(sum(checks), 3)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--photo", action="append", default=[])
    ap.add_argument("--json")
    a = ap.parse_args()
    photos = sorted(glob.glob(os.path.join(ROOT, "Fixtures/groundtruth/*.jpg"))
                    + glob.glob(os.path.join(ROOT, "Fixtures/groundtruth-report/*.jpg"))
                    + glob.glob(os.path.join(ROOT, ".build/groundtruth/*/*.png"))) + a.photo
    work = os.path.join(ROOT, ".build/compare-renders")
    rows, differ = {}, 0
    for p in photos:
        old = run(a.old, p, os.path.join(work, "old"))
        new = run(a.new, p, os.path.join(work, "new"))
        same = old["status"] == new["status"] == "ok" and old["render"] == new["render"] \
            and old["strengthened"] == new["strengthened"]
        differ += not same
        rows[p] = {"old": old, "new": new, "same": same}
        print(f"{'SAME' if same else 'DIFF'} {os.path.relpath(p, ROOT)}: faces {old['faces']}/{new['faces']}, "
              f"strengthened {old['strengthened']}/{new['strengthened']}, searches {old['searches']}/{new['searches']}, "
              f"check {old['check_seconds']}/{new['check_seconds']} s", flush=True)
    total = {k: sum(r[k]["check_seconds"] for r in rows.values()) for k in ("old", "new")}
    print(f"{len(rows) - differ} of {len(rows)} photos render the same; check searches' summed wall time "
          f"{total['old']:.1f} s old, {total['new']:.1f} s new")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
