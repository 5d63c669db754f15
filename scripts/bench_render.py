#!/usr/bin/env python3
"""Times `vitrine render` against chafa, timg and catimg; prints a Markdown table.

    bench_render.py --vitrine BIN --tools DIR [--runs N] [--size 80x40] [--mode truecolor]
                    NAME=IMAGE ...

Used by scripts/bench-render.sh. Every command runs under GNU time (`/usr/bin/time -f`),
which reports the child's peak resident set (ru_maxrss, kB) and CPU time; wall time is taken
around it with a monotonic clock. Runs are interleaved (round robin over the tools, N rounds)
so a busy moment on a shared machine hits every tool alike. Each tool starts the same way:
`bash -c 'exec …'` for Vitrine, and the peers' own `bash peers.sh`, which execs the tool, so
the numbers include one bash start each (about 1-2 ms, under 4 MB of RSS). Output goes to a
pipe that is read and thrown away, as a terminal would take it. Standard library only.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PEERS = ["chafa", "timg", "catimg"]


def command(tool, vitrine, tools, image, cols, rows, mode, limits=None):
    if tool == "jpeg1/8":
        return [limits["jpeg1/8"], image]
    if tool == "vipsthumbnail":
        # Vitrine's own decode box for the render (4 pixels per half-block pixel).
        return [limits["vipsthumbnail"], "-s", "%dx%d" % (cols * 4, rows * 8), "-o", limits["out"] + "/%s.v", image]
    if tool == "vitrine":
        return ["bash", "-c", 'exec "$@"', "-", vitrine, "render", image, "--size", "%dx%d" % (cols, rows), "--colors", mode]
    return ["bash", os.path.join(tools, "peers.sh"), tool, mode, image, str(cols), str(rows)]


def run_once(cmd, stats_path):
    full = ["/usr/bin/time", "-o", stats_path, "-f", "%U %S %M"] + cmd
    start = time.perf_counter()
    done = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    with open(stats_path) as f:
        fields = f.read().split()[-3:]
    if done.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), done.returncode, done.stderr.decode()[-300:]))
    user, system, rss = float(fields[0]), float(fields[1]), int(fields[2])
    return wall * 1000, (user + system) * 1000, rss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vitrine", required=True)
    ap.add_argument("--tools", required=True)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--size", default="80x40")
    ap.add_argument("--mode", default="truecolor")
    ap.add_argument("--jpeg-limit", help="jpeg_scale8 binary (scripts/jpeg_scale8.c): libjpeg-turbo at 1/8, JPEGs only")
    ap.add_argument("--vipsthumbnail", help="vipsthumbnail binary, run at Vitrine's decode box")
    ap.add_argument("images", nargs="+", help="NAME=PATH")
    args = ap.parse_args()
    cols, rows = (int(v) for v in args.size.split("x"))
    tools = ["vitrine"] + PEERS
    limits = {"out": tempfile.mkdtemp(prefix="vitrine-bench-out-")}
    extra = []
    if args.jpeg_limit:
        limits["jpeg1/8"] = args.jpeg_limit
        extra.append("jpeg1/8")
    if args.vipsthumbnail:
        limits["vipsthumbnail"] = args.vipsthumbnail
        extra.append("vipsthumbnail")
    stats_path = tempfile.mktemp(prefix="vitrine-bench-")

    print("%s cells, %s, %d interleaved runs per cell; median wall ms / median CPU (user+sys) ms / "
          "peak RSS MB; ratio = peer / Vitrine (above 1: Vitrine is faster or smaller)." % (args.size, args.mode, args.runs))
    print()
    head = "| image | Vitrine | chafa | timg | catimg | wall ratio (chafa/timg/catimg) | RSS ratio (chafa/timg/catimg) |"
    rule = "|---|---|---|---|---|---|---|"
    for t in extra:
        head += " %s | Vitrine ÷ %s, wall |" % (t, t)
        rule += "---|---|"
    print(head)
    print(rule)
    for spec in args.images:
        name, path = spec.split("=", 1)
        here = tools + [t for t in extra if t != "jpeg1/8" or path.lower().endswith((".jpg", ".jpeg"))]
        samples = {t: [] for t in here}
        for tool in here:  # warm the page cache once
            run_once(command(tool, args.vitrine, args.tools, path, cols, rows, args.mode, limits), stats_path)
        for _ in range(args.runs):
            for tool in here:
                samples[tool].append(run_once(command(tool, args.vitrine, args.tools, path, cols, rows, args.mode, limits), stats_path))
        med = {t: [statistics.median(s[i] for s in samples[t]) for i in range(3)] for t in here}
        cells = ["%.0f / %.0f / %.0f" % tuple(med[t]) for t in tools]
        wall = "/".join("%.2f" % (med[t][0] / med["vitrine"][0]) for t in PEERS)
        rss = "/".join("%.2f" % (med[t][2] / med["vitrine"][2]) for t in PEERS)
        line = "| %s | %s | %s | %s |" % (name, " | ".join(cells), wall, rss)
        for t in extra:
            if t in med:
                line += " %.0f / %.0f / %.1f | %.2f |" % (med[t][0], med[t][1], med[t][2], med["vitrine"][0] / med[t][0])
            else:
                line += " - | - |"
        print(line, flush=True)
    os.unlink(stats_path)


if __name__ == "__main__":
    main()
