#!/usr/bin/env python3
"""Writes the synthetic images of the quality table (scripts/quality.sh) into OUT_DIR.

    make-quality-images.py OUT_DIR

- colorchecker.png: the 24 patches of the X-Rite ColorChecker Classic (sRGB D65 values as
  published by BabelColor, 2012 averages), 6x4 patches of 80x80 pixels.
- flag-colours.png: 24 colours of national flags (France, Germany, Italy, the UK, the USA,
  Japan, Sweden, the EU, Brazil, Canada, Greece, India, the Netherlands), same layout.
- zone-plate-4000x3000.jpg: a zone plate (cos(pi r^2 / 2R), R = 2500 px, so the frequency
  reaches 0.5 cycles per pixel at r = R) filling a 4000x3000 baseline JPEG, quality 90: fine
  detail that a downscale averaging gamma-encoded values, or a decode at too coarse a DCT
  scale, turns into the wrong grey or into moire.
Deterministic: the same bytes on every run. Needs python3-numpy and python3-pil.
"""
import os
import sys

import numpy as np
from PIL import Image

CHECKER = [(115, 82, 68), (194, 150, 130), (98, 122, 157), (87, 108, 67), (133, 128, 177),
           (103, 189, 170), (214, 126, 44), (80, 91, 166), (193, 90, 99), (94, 60, 108),
           (157, 188, 64), (224, 163, 46), (56, 61, 150), (70, 148, 73), (175, 54, 60),
           (231, 199, 31), (187, 86, 149), (8, 133, 161), (243, 243, 242), (200, 200, 200),
           (160, 160, 160), (122, 122, 121), (85, 85, 85), (52, 52, 52)]
FLAGS = [(0, 35, 149), (237, 41, 57), (255, 255, 255), (0, 0, 0), (221, 0, 0), (255, 206, 0),
         (0, 146, 70), (206, 43, 55), (1, 33, 105), (200, 16, 46), (60, 59, 110), (178, 34, 52),
         (188, 0, 45), (0, 106, 167), (254, 204, 0), (0, 51, 153), (0, 156, 59), (255, 223, 0),
         (216, 43, 29), (0, 56, 147), (255, 153, 51), (19, 136, 8), (174, 28, 40), (33, 70, 139)]


def patches(colors, path, cols=6, size=80):
    rows = (len(colors) + cols - 1) // cols
    a = np.zeros((rows * size, cols * size, 3), np.uint8)
    for i, c in enumerate(colors):
        r, k = divmod(i, cols)
        a[r * size:(r + 1) * size, k * size:(k + 1) * size] = c
    Image.fromarray(a).save(path, optimize=False)


def zone_plate(path, w=4000, h=3000, radius=2500.0):
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    r2 = (x - w / 2 + 0.5) ** 2 + (y - h / 2 + 0.5) ** 2
    v = 0.5 + 0.5 * np.cos(np.pi * r2 / (2 * radius))
    grey = np.clip(np.rint(v * 255), 0, 255).astype(np.uint8)
    Image.fromarray(np.stack([grey] * 3, -1)).save(path, quality=90, subsampling=0)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    patches(CHECKER, os.path.join(out, "colorchecker.png"))
    patches(FLAGS, os.path.join(out, "flag-colours.png"))
    zone_plate(os.path.join(out, "zone-plate-4000x3000.jpg"))


if __name__ == "__main__":
    main()
