"""Where the review page puts the photos whose faces faceblur missed (issue 38, "triage").

For each labelled set (report: Fixtures/groundtruth-report, held out; tune:
Fixtures/groundtruth) and each faceblur setting (defaults, detector=haar), it
copies the photos, runs `photoedit apply --filter faceblur[:...] -r`, then
`photoedit review`, and reads the page's order (`data-photo`, in the order the
page opens) and flags (`data-flags`). A photo "has a miss" when one of its
labelled faces has less than half its pixels changed (any channel by more
than 8) between the original and the render. It prints, per set and setting,
the photos with misses, the places the page gives them, how many the second
look flags, and the page's "to look at first" count.

    /work/venv-hiding/bin/python Tests/Hiding/measure_triage.py \
        --photoedit .build/release/photoedit [--work .build/triage]

Needs Pillow and numpy (the venv of Tests/Hiding/README.md) and the CenterFace
model (`make model`, or PHOTOEDIT_CENTERFACE).
"""
import argparse, json, os, re, shutil, subprocess

import numpy as np
from PIL import Image, ImageOps

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SETS = {'report': 'Fixtures/groundtruth-report', 'tune': 'Fixtures/groundtruth'}
SETTINGS = {'default': 'faceblur', 'haar': 'faceblur:detector=haar'}


def upright(path):
    return np.asarray(ImageOps.exif_transpose(Image.open(path)).convert('RGB')).astype(int)


def missed_faces(original, render, faces):
    missed = 0
    for face in faces:
        x, y, w, h = face['box']
        a, b = original[y:y + h, x:x + w], render[y:y + h, x:x + w]
        if a.size and (np.abs(a - b).max(axis=2) > 8).mean() < 0.5:
            missed += 1
    return missed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--photoedit', default=os.path.join(ROOT, '.build/release/photoedit'))
    ap.add_argument('--work', default=os.path.join(ROOT, '.build/triage'))
    args = ap.parse_args()
    env = dict(os.environ)
    env.setdefault('PHOTOEDIT_CENTERFACE', os.path.expanduser('~/.cache/photoedit/centerface.onnx'))
    for set_name, folder in SETS.items():
        folder = os.path.join(ROOT, folder)
        labels = {p['file']: p for p in json.load(open(os.path.join(folder, 'faces.json')))['photos']}
        for setting, spec in SETTINGS.items():
            work = os.path.join(args.work, f'{set_name}-{setting}')
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(os.path.join(work, 'p'))
            for f in labels:
                shutil.copy(os.path.join(folder, f), os.path.join(work, 'p', f))
            subprocess.run([args.photoedit, 'apply', '-q', '--filter', spec, '-r', work + '/p'],
                           env=env, capture_output=True)
            review = subprocess.run([args.photoedit, 'review', work + '/p', '-o', work + '/page.html'],
                                    env=env, capture_output=True, text=True)
            html = open(work + '/page.html').read()
            page = re.findall(r'data-photo="([^"]+)"[^>]*?data-flags="([^"]*)"', html)
            missed = {}
            for f, p in labels.items():
                kept = os.path.join(work, 'p', f + '.original')
                original = upright(kept if os.path.exists(kept) else os.path.join(folder, f))
                missed[f] = missed_faces(original, upright(os.path.join(work, 'p', f)), p['faces'])
            places = [i + 1 for i, (f, _) in enumerate(page) if missed[f]]
            seen = [f for f, flags in page if 'face-visible' in flags.split()]
            print(f'{set_name} {setting}: {len(page)} photos, {sum(1 for v in missed.values() if v)} with a miss '
                  f'({sum(missed.values())} faces), at places {places}; second look flags {len(seen)} '
                  f'({sum(1 for f in seen if missed[f])} with a miss); '
                  + review.stdout.strip().split(': ', 1)[-1].split(';')[0])


if __name__ == '__main__':
    main()
