#!/usr/bin/env python3
"""Times Vitrine's pixel output against img2sixel and chafa; prints Markdown tables.

    bench_pixels.py --vitrine BIN --runs N --tmp DIR --sixel-photo JPG --big-photo JPG

Used by scripts/bench-pixels.sh. Each command runs under GNU time (`/usr/bin/time -f`, CPU
time and peak RSS) with wall time taken around it; runs are interleaved round robin so a busy
moment on the shared machine hits every tool alike. Output goes to a file (its size is the
bytes column); for the sixel table each tool's last output is decoded with ImageMagick
(`convert sixel:`) and scored with `compare -metric PSNR` against the photo resized by
ImageMagick to the output's size. Standard library only.
"""
import argparse
import os
import statistics
import subprocess
import time


def run_once(cmd, out_path, stats_path):
    full = ["/usr/bin/time", "-o", stats_path, "-f", "%U %S %M"] + cmd
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        done = subprocess.run(full, stdout=out, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), done.returncode, done.stderr.decode()[-300:]))
    with open(stats_path) as f:
        user, system, rss = f.read().split()[-3:]
    return wall * 1000, (float(user) + float(system)) * 1000, int(rss) / 1024


def measure(commands, runs, tmp):
    """commands: [(name, argv)]; returns {name: (walls, cpus, rsss, bytes, out_path)}."""
    results = {name: ([], [], [], 0, os.path.join(tmp, "out-%d" % i)) for i, (name, _) in enumerate(commands)}
    stats = os.path.join(tmp, "time.txt")
    for _ in range(runs):
        for name, argv in commands:
            walls, cpus, rsss, _, out = results[name]
            wall, cpu, rss = run_once(argv, out, stats)
            walls.append(wall)
            cpus.append(cpu)
            rsss.append(rss)
    return {name: (w, c, r, os.path.getsize(o), o) for name, (w, c, r, _, o) in results.items()}


def psnr_of_sixel(sixel_path, photo, tmp):
    # Only the DCS … ST sequence: ImageMagick's reader counts the cursor moves around it
    # (vitrine's rows reserved at the cursor) as picture, 2 pixels wider.
    with open(sixel_path, "rb") as f:
        data = f.read()
    start, end = data.find(b"\x1bP"), data.rfind(b"\x1b\\")
    bare = os.path.join(tmp, "bare.six")
    with open(bare, "wb") as f:
        f.write(data[start:end + 2])
    decoded = os.path.join(tmp, "decoded.png")
    subprocess.run(["convert", "sixel:" + bare, "png:" + decoded], check=True, capture_output=True)
    size = subprocess.run(["identify", "-format", "%wx%h", decoded], check=True, capture_output=True,
                          text=True).stdout.strip()
    reference = os.path.join(tmp, "reference.png")
    subprocess.run(["convert", photo, "-resize", size + "!", "png:" + reference], check=True, capture_output=True)
    done = subprocess.run(["compare", "-metric", "PSNR", reference, decoded, "null:"], capture_output=True, text=True)
    return size, float(done.stderr.split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vitrine", required=True)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--sixel-photo", required=True)
    ap.add_argument("--big-photo", required=True)
    args = ap.parse_args()
    med = statistics.median

    # 1. Sixel encoders on one 1200x800 photo, each at the photo's own size.
    #    vitrine: 120x40 cells of the assumed 10x20 pixels = 1200x800, no resize;
    #    chafa 1.12 off a terminal assumes 8x8-pixel cells: 150x100 cells with --font-ratio 1.
    sixel = [
        ("vitrine", [args.vitrine, "render", args.sixel_photo, "--pixels", "sixel", "--size", "120x40"]),
        ("img2sixel", ["img2sixel", args.sixel_photo]),
        ("chafa", ["chafa", "-f", "sixels", "-s", "150x100", "--font-ratio", "1", "--animate", "off",
                   "--polite", "on", args.sixel_photo]),
    ]
    r = measure(sixel, args.runs, args.tmp)
    base = r["vitrine"]
    print("Sixel, 1200x800 JPEG photo, %d interleaved runs: median wall ms, median CPU ms, peak RSS MB, "
          "output bytes, output size and PSNR of the decoded sixel (ImageMagick) against the photo; "
          "ratio = peer / Vitrine wall time." % args.runs)
    print()
    print("| tool | wall ms | CPU ms | RSS MB | bytes | decoded | PSNR dB | wall ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name, _ in sixel:
        walls, cpus, rsss, size, out = r[name]
        dims, psnr = psnr_of_sixel(out, args.sixel_photo, args.tmp)
        print("| %s | %.0f | %.0f | %.1f | %d | %s | %.1f | %.2f |" % (
            name, med(walls), med(cpus), max(rsss), size, dims, psnr, med(walls) / med(base[0])))
    print()

    # 2. One 4000x3000 JPEG through each protocol, 120x40 cells (1200x800 pixels at 10x20).
    protocols = [(p, [args.vitrine, "render", args.big_photo, "--pixels", p, "--size", "120x40"]
                  + (["--colors", "truecolor"] if p == "halfblock" else []))
                 for p in ("halfblock", "kitty", "sixel", "iterm")]
    r = measure(protocols, args.runs, args.tmp)
    print("vitrine render of a 4000x3000 JPEG, 120x40 cells (1200x800 pixels), output to a file, "
          "%d interleaved runs: median wall ms, median CPU ms, peak RSS MB, output bytes." % args.runs)
    print()
    print("| --pixels | wall ms | CPU ms | RSS MB | bytes |")
    print("|---|---|---|---|---|")
    for name, _ in protocols:
        walls, cpus, rsss, size, _ = r[name]
        print("| %s | %.0f | %.0f | %.1f | %d |" % (name, med(walls), med(cpus), max(rsss), size))


if __name__ == "__main__":
    main()
