#!/usr/bin/env python3
"""A model of Vitrine's 256-colour palette choice, scored like scripts/quality.sh: for trying rules
without rebuilding (docs/PERFORMANCE.md, "256 colours: SSIM's luminance term").

    quality_model_256.py --vitrine BIN --tools DIR [--tolerance T] [--share S] [--luma W] IMAGE...

Renders each IMAGE with `BIN render --size 80x40 --colors truecolor` (Vitrine's own resized
pixels, the quantiser's input), quantises those pixels to xterm indices 16-255 with the rule of
`XtermPalette.Subset` (entries within (1 + T)² of the OKLab-nearest squared distance; the
smallest (1 - S)·|ΔOKLab|² + S·|ΔsRGB|² + W·(y - y')² / (y² + y'² + 0.01²), sRGB and Rec. 709
luma in 0...1), and scores the result with DIR/ansi_quality.py against its reference grid:
PSNR linear / PSNR sRGB / SSIM / mean ΔE00, the table's format. It also prints the index the
French flag's red (237, 41, 57) takes. Defaults: the shipped rule (0.3, 0.5, 0.1). Predicted
every 256-colour figure of the 1 December table to the printed digit. Not modelled: the
refinement of grey pixels that 256 colours have by default since 2 December
(`PaletteQuantizer.greysStructured`; docs/PERFORMANCE.md, "256 colours: greys that keep their
detail"), which moves a few pixels in grey areas. Needs python3-numpy and python3-pil; run with
/usr/bin/python3.
"""
import argparse
import os
import subprocess
import sys

import numpy as np


def oklab(lin):
    m1 = np.array([[0.4122214708, 0.5363325363, 0.0514459929], [0.2119034982, 0.6806995451, 0.1073969566],
                   [0.0883024619, 0.2817188376, 0.6299787005]])
    m2 = np.array([[0.2104542553, 0.7936177850, -0.0040720468], [1.9779984951, -2.4285922050, 0.4505937099],
                   [0.0259040371, 0.7827717662, -0.8086757660]])
    return np.cbrt(lin @ m1.T) @ m2.T


def choose(px, aq, palette, tolerance, share, luma):
    """Index (16-255) for each row of px (N x 3 sRGB code values), by the shipped rule."""
    pal_ok = oklab(aq.srgb_to_linear(palette))
    weights = np.array([0.2126, 0.7152, 0.0722])
    ok = oklab(aq.srgb_to_linear(px))
    d_ok = ((ok[:, None, :] - pal_ok[None]) ** 2).sum(-1)
    d_srgb = ((px[:, None, :] - palette[None]) ** 2).sum(-1) / 255 ** 2
    y = (px @ weights)[:, None] / 255
    y_pal = (palette @ weights)[None] / 255
    cost = (1 - share) * d_ok + share * d_srgb + luma * (y - y_pal) ** 2 / (y ** 2 + y_pal ** 2 + 1e-4)
    if share == 0 or tolerance == 0:
        cost = d_ok
    cost = np.where(d_ok <= (1 + tolerance) ** 2 * d_ok.min(1, keepdims=True), cost, np.inf)
    return 16 + cost.argmin(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vitrine", required=True)
    ap.add_argument("--tools", required=True)
    ap.add_argument("--tolerance", type=float, default=0.3)
    ap.add_argument("--share", type=float, default=0.5)
    ap.add_argument("--luma", type=float, default=0.1)
    ap.add_argument("images", nargs="+")
    args = ap.parse_args()
    sys.path.insert(0, args.tools)
    import ansi_quality as aq
    palette = np.array(aq.PAL[16:], np.float64)
    red = choose(np.array([[237.0, 41, 57]]), aq, palette, args.tolerance, args.share, args.luma)[0]
    print("rule: tolerance %g, sRGB share %g, luma weight %g; French red (237,41,57) -> %d"
          % (args.tolerance, args.share, args.luma, red))
    for image in args.images:
        done = subprocess.run([args.vitrine, "render", image, "--size", "80x40", "--colors", "truecolor"],
                              capture_output=True, check=True)
        grid, _ = aq.decoded_to_grid(aq.decode_ansi(done.stdout.decode("utf-8")))
        h, w = grid.shape[:2]
        lin, _ = aq.load_source(image)
        ref = aq.reference(lin, w, h, "linear")
        out = palette[choose(grid.reshape(-1, 3), aq, palette, args.tolerance, args.share, args.luma) - 16]
        m = aq.metrics(out.reshape(grid.shape), ref)
        print("%-28s %dx%d  %.1f/%.1f/%.3f/%.2f" % (os.path.basename(image), w, h, m["psnr_linear"],
                                                   m["psnr_srgb"], m["ssim_y"], m["de2000_mean"]))


if __name__ == "__main__":
    main()
