#!/usr/bin/env python3
"""libvips baseline for `photoedit apply --filter vignette` (pyvips, streaming).

Usage: vips_vignette.py IN OUT [INTENSITY] [RADIUS]

Multiplies every pixel by max(0, 1 - intensity * (d / R)^2), where d is the distance to the
image centre and R is radius x half the diagonal, and saves a 4:2:0 JPEG at quality 90.
"""
import sys

import pyvips


def main() -> int:
    source, target = sys.argv[1], sys.argv[2]
    intensity = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    radius = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    image = pyvips.Image.new_from_file(source, access="sequential")
    width, height = image.width, image.height
    reach = radius * 0.5 * (width * width + height * height) ** 0.5
    xy = pyvips.Image.xyz(width, height) - [width / 2.0, height / 2.0]
    d2 = (xy[0] * xy[0] + xy[1] * xy[1]) / (reach * reach)
    factor = (1.0 - intensity * d2).relational_const("more", 0.0).ifthenelse(1.0 - intensity * d2, 0.0)
    out = (image * factor).cast("uchar")
    out.jpegsave(target, Q=90, subsample_mode="on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
