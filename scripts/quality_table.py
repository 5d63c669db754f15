#!/usr/bin/env python3
"""Renders images with Vitrine and its peers and scores every render; prints a Markdown table.

    quality_table.py --vitrine BIN --tools DIR [--sizes 80x40,80x30] [--modes truecolor,256]
                     [--keep DIR] IMAGE...

Used by scripts/quality.sh (see there). Each render is scored by DIR/ansi_quality.py
(--json, run with this interpreter) against the linear-light box-filtered downscale of the
source: PSNR in dB on linear-light values (psnr_linear@linear) and on sRGB-encoded values
(psnr_srgb@linear), SSIM on luma and mean CIEDE2000 (all "@linear" in the scorer). Peers
run with the exact command lines of DIR/peers.sh (16 colours: chafa's line with -c 16; timg
and catimg have no 16-colour half-block output). The best value of each metric on a row is in
bold. Python 3 standard library only (the scorer needs numpy and PIL).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PEERS = ["chafa", "timg", "catimg"]
METRICS = [("psnr_linear@linear", max, "%.1f"), ("psnr_srgb@linear", max, "%.1f"),
           ("ssim_y@linear", max, "%.3f"), ("de2000_mean@linear", min, "%.2f")]


# peers.sh has no 16-colour lines: chafa's is its 256-colour line with -c 16; timg and catimg
# have no 16-colour half-block output and are left out of those rows.
CHAFA_16 = ["chafa", "-f", "symbols", "--symbols", "vhalf", "--fill", "none", "-c", "16", "--color-space", "rgb",
            "--dither", "none", "--polite", "on", "--animate", "off", "--scale", "max"]


def supports(tool, mode):
    return mode != "16" or tool in ("vitrine", "chafa")


def render(tool, vitrine, tools, mode, image, cols, rows, out_path):
    if tool == "vitrine":
        cmd = [vitrine, "render", image, "--size", "%dx%d" % (cols, rows), "--colors", mode]
    elif mode == "16":
        cmd = CHAFA_16 + ["-s", "%dx%d" % (cols, rows), image]
    else:
        cmd = ["bash", os.path.join(tools, "peers.sh"), tool, mode, image, str(cols), str(rows)]
    with open(out_path, "wb") as out:
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=300)
    if done.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), done.returncode, done.stderr.decode()[-300:]))


def score(tools, render_path, image):
    done = subprocess.run([sys.executable, os.path.join(tools, "ansi_quality.py"), "--json", render_path, image],
                          capture_output=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError("scorer failed on %s: %s" % (render_path, done.stderr.decode()[-300:]))
    return json.loads(done.stdout)


def cell(result, best):
    if result is None:
        return "-"
    parts = []
    for key, _, fmt in METRICS:
        text = fmt % result[key]
        parts.append("**%s**" % text if text == best[key] else text)
    return "/".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vitrine", required=True)
    ap.add_argument("--tools", required=True)
    ap.add_argument("--sizes", default="80x40,80x30")
    ap.add_argument("--modes", default="truecolor,256,16")
    ap.add_argument("--keep", help="keep the .ans renders in this folder")
    ap.add_argument("images", nargs="+")
    args = ap.parse_args()

    work = args.keep or tempfile.mkdtemp(prefix="vitrine-quality-")
    os.makedirs(work, exist_ok=True)
    tools = ["vitrine"] + PEERS
    print("| image | size | colours | grid (V) | Vitrine | chafa | timg | catimg |")
    print("|---|---|---|---|---|---|---|---|")
    wins = total = 0
    per_metric = {}
    for image in args.images:
        name = os.path.basename(image)
        for size in args.sizes.split(","):
            cols, rows = (int(v) for v in size.split("x"))
            for mode in args.modes.split(","):
                results = {}
                for tool in tools:
                    if not supports(tool, mode):
                        continue
                    path = os.path.join(work, "%s-%s-%s-%s.ans" % (os.path.splitext(name)[0], size, mode, tool))
                    render(tool, args.vitrine, args.tools, mode, image, cols, rows, path)
                    results[tool] = score(args.tools, path, image)
                    print("  scored %s %s %s %s" % (name, size, mode, tool), file=sys.stderr, flush=True)
                best = {}
                for key, pick, fmt in METRICS:
                    best[key] = fmt % pick(r[key] for r in results.values())
                    total += 1
                    won = (fmt % results["vitrine"][key]) == best[key]
                    wins += won
                    per_metric[key] = per_metric.get(key, 0) + won
                label = mode
                print("| %s | %s | %s | %s | %s |" % (
                    name, size, label, results["vitrine"]["grid_px"],
                    " | ".join(cell(results.get(t), best) for t in tools)), flush=True)
    print()
    print("Vitrine best (or tied) on %d of %d metrics; per metric: %s." % (wins, total, ", ".join(
        "%s %d/%d" % (key, per_metric[key], total // len(METRICS)) for key, _, _ in METRICS)))


if __name__ == "__main__":
    main()
