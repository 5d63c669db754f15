#!/usr/bin/env python3
"""The browse core measured in the real binary (docs/PERFORMANCE.md, "Browse core").

    bench_browse.py latency BINARY [--presses N] [--rounds N]
    bench_browse.py bytes BINARY
    bench_browse.py memory BINARY [--items N]

Python 3 standard library, tmux and Tests/Fixtures/galleryserver.py on 127.0.0.1; every server
and tmux started here is stopped before exit. Prints Markdown table rows.

latency: the grid at 200x60 at its smallest size (`--view grid --grid-size 4`: 220 thumbnails
on screen) over 2,000 distinct URLs that galleryserver.py answers after 2 s each, so thumbnails
are loading the whole time. Keys l l j h k PgDn j l h h k l j PgUp k l, repeated, at random
20-100 ms pauses (a pause of 1 s every 16 keys lets answers arrive); the time
from just before `tmux send-keys` to the first `capture-pane` showing a new "N/2000" is the
latency (bench_pipeline.py's loop: two tmux client starts per sample, an upper bound). Rounds
alternate with the same loop against a bash `read -n1` + `printf` counter (the baseline).
`--views grid,list` runs the list view too in each round, same gallery and keys (h and l do
nothing in the list, so its latency for them is the timeout: only j k PgDn PgUp count there).

bytes: what reaches the terminal, counted by `tmux pipe-pane` on the pane: a gallery of the
demo's pictures (loaded, nothing animating), then per l and j (one selection move), per PgDn
(a page of the grid, its thumbnails included: 7 distinct pictures
cycling, all in the memory cache), and per ^L (ncurses repaints every cell: a full repaint), at 200x60
with the smallest and the default grid size.

memory: a 100,000-item gallery ({"title": "Item I", "url": "pictures/I.jpg"}, missing files:
every row fails at once, no network) in the list at 120x40; VmRSS and VmHWM after the first
screen, after a filter (&Item 1, Enter: 11,111 items) and after a title sort (,).
"""

import argparse
import json
import os
import random
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "Tests" / "EndToEnd"))
from bench_pipeline import Server, key_latencies, percentile, position, proc_status, summary  # noqa: E402
from harness import DEMO, Terminal, wait_until  # noqa: E402


def latency(args):
    random.seed(11)
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-bench-browse-"))
    server = Server(DEMO, tmp / "server.log", delay=2.0)
    keys = (["l", "l", "j", "h", "k", "NPage", "j", "l", "h", "h", "k", "l", "j", "PPage", "k", "l"] * args.presses)[:args.presses]
    views = args.views.split(",")
    results = {v: [] for v in views}
    loading = {}
    base = []
    loads = []
    try:
        url = server.base + "/gallery/2000.json?img=flags/fr.png"
        for r in range(args.rounds):
          for view in views:
            loads.append(os.getloadavg()[0])
            size = "--grid-size 4" if view == "grid" else ""
            cmd = "XDG_CACHE_HOME=%s exec %s --no-disk-cache --fresh --view %s %s '%s'" % (
                tmp / "cache", args.binary, view, size, url)
            term = Terminal(cmd, 200, 60)
            try:
                if not wait_until(lambda: position(term) == 1, 15):
                    raise RuntimeError("no 1/2000:\n" + term.text())
                view_keys = keys if view == "grid" else [k for k in keys if k not in "hl"]
                pairs, _ = key_latencies(term, view_keys, 16, 1.0)
                results[view] += pairs
                found = re.search(r"loading (\d+)", term.capture()[-1])
                loading[view] = found.group(1) if found else "?"
            finally:
                term.kill()
            counter = "i=1; printf '1/2000'; while IFS= read -rsn1 k; do i=$((i+1)); printf '\\r%d/2000' $i; done"
            b = Terminal("exec bash -c %s" % shlex.quote(counter), 200, 60)
            try:
                wait_until(lambda: position(b) == 1, 5)
                pairs, _ = key_latencies(b, ["j"] * len(keys))
                base += [ms for _, ms in pairs]
            finally:
                b.kill()
        print("<!-- load average (1 min) at each run's start: %s -->" % ", ".join("%.1f" % l for l in loads))
        print("| what | keys | p50 ms | p99 ms | max ms | notes |")
        print("|---|---|---|---|---|---|")
        for view in views:
            vitrine = results[view]
            all_ms = [ms for _, ms in vitrine]
            what = ("grid 200x60, 220 thumbnails on screen" if view == "grid"
                    else "list 200x60, %s" % "the default row height")
            print(summary("vitrine %s, images delayed 2 s" % what, all_ms,
                          "%d rounds alternating with the baseline; still loading at the end: %s" % (
                              args.rounds, loading.get(view, "?"))))
            print(summary("&nbsp;&nbsp;of which moves (%s)" % ("h j k l" if view == "grid" else "j k"),
                          [ms for k, ms in vitrine if k in "hjkl"]))
            print(summary("&nbsp;&nbsp;of which pages (PgDn PgUp)", [ms for k, ms in vitrine if k not in "hjkl"]))
            print("%s: ratio to the baseline of medians %.2f, of p99 %.2f" % (
                view, statistics.median(all_ms) / statistics.median(base),
                percentile(all_ms, 0.99) / percentile(base, 0.99)))
        print(summary("baseline: bash `read -n1` + `printf`, same tmux loop", base, ""))
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def pane_bytes(term, out, key, settle=0.4):
    """Bytes written to the pane for `key` (after the screen settles)."""
    before = out.stat().st_size if out.exists() else 0
    term.keys(key)
    time.sleep(settle)
    return out.stat().st_size - before


PICTURES = ["sunset.png", "mandelbrot.png", "colour-wheel.png", "test-chart.png", "tall.png", "panorama.png"]


def bytes_(args):
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-bench-browse-"))
    root = tmp / "root"
    (root / "pictures").mkdir(parents=True)
    # 7 distinct pictures (the six demo pictures and a flag), cycling: neighbours differ, and
    # 20 slots a row is not a multiple of 7, so the rows of a page differ from the last page's.
    for name in PICTURES:
        (root / "pictures" / name).symlink_to(DEMO / "pictures" / name)
    (root / "pictures" / "fr.png").symlink_to(DEMO / "flags" / "fr.png")
    pictures = PICTURES + ["fr.png"]
    (root / "gallery.json").write_text(json.dumps(
        [{"title": "Picture %d" % i, "url": "pictures/" + pictures[i % 7]} for i in range(2000)]))
    server = Server(root, tmp / "server.log")
    try:
        print("| grid size | per l (move) | per j (move) | per PgDn (page) | per ^L (full repaint) | move / full | page / full |")
        print("|---|---|---|---|---|---|---|")
        for size in (4, 8):
            url = server.base + "/gallery.json"
            cmd = "XDG_CACHE_HOME=%s exec %s --view grid --grid-size %d '%s'" % (tmp / "cache", args.binary, size, url)
            term = Terminal(cmd, 200, 60)
            try:
                wait_until(lambda: "loading 0 " in term.capture()[-1], 30)
                out = tmp / ("pane-%d.out" % size)
                term.tmux("pipe-pane", "-o", "-t", "e2e", "cat >> %s" % shlex.quote(str(out)))
                time.sleep(0.3)
                moves_l = [pane_bytes(term, out, "l") for _ in range(8)]
                moves_j = [pane_bytes(term, out, "j") for _ in range(8)]
                # A page: the key and every thumbnail of the new page drawn (memory-cache hits:
                # one frame), until the pane is quiet
                pages = [pane_bytes(term, out, "NPage", settle=0.8) for _ in range(4)]
                full = [pane_bytes(term, out, "C-l") for _ in range(3)]
                ml, mj, p, f = (statistics.median(x) for x in (moves_l, moves_j, pages, full))
                print("| %d (%dx%d cells) | %d B | %d B | %d B | %d B | %.3f | %.3f |" % (
                    size, 2 * size, size, ml, mj, p, f, max(ml, mj) / f, p / f))
            finally:
                term.kill()
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def memory(args):
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-bench-browse-"))
    try:
        g = tmp / "g.json"
        g.write_text("[" + ",\n".join('{"title": "Item %d", "url": "pictures/%d.jpg"}' % (i, i)
                                      for i in range(args.items)) + "]\n")
        term = Terminal("XDG_CACHE_HOME=%s exec %s --no-disk-cache --fresh %s" % (tmp / "cache", args.binary, g), 120, 40)
        try:
            pid = int(term.display("#{pane_pid}"))
            wait_until(lambda: re.search(r"1/%d\b" % args.items, term.capture()[-1]), 30)
            time.sleep(1)
            rows = [("first screen", proc_status(pid))]
            term.keys("&")
            term.literal("Item 1")
            term.keys("Enter")
            wait_until(lambda: "& Item 1:" in term.capture()[-1], 20)
            time.sleep(0.5)
            rows.append(("filter &Item 1 (%s)" % re.search(r"& Item 1: [^ ]+ of \d+", term.capture()[-1]).group(0), proc_status(pid)))
            term.keys(",")
            wait_until(lambda: "sort: title" in term.capture()[-1], 20)
            time.sleep(0.5)
            rows.append(("and sort by title", proc_status(pid)))
            term.keys("Escape")
            wait_until(lambda: "&" not in term.capture()[-1], 20)
            time.sleep(0.5)
            rows.append(("filter cleared, sort kept (100,000 sorted)", proc_status(pid)))
            print("| %d items | VmRSS MB | VmHWM MB |" % args.items)
            print("|---|---|---|")
            for name, st in rows:
                print("| %s | %.1f | %.1f |" % (name, st["VmRSS"], st["VmHWM"]))
        finally:
            term.kill()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    lat = sub.add_parser("latency")
    lat.add_argument("binary")
    lat.add_argument("--presses", type=int, default=80)
    lat.add_argument("--rounds", type=int, default=2)
    lat.add_argument("--views", default="grid", help="grid, list or grid,list")
    by = sub.add_parser("bytes")
    by.add_argument("binary")
    mem = sub.add_parser("memory")
    mem.add_argument("binary")
    mem.add_argument("--items", type=int, default=100_000)
    args = ap.parse_args()
    args.binary = os.path.realpath(args.binary)
    {"latency": latency, "bytes": bytes_, "memory": memory}[args.mode](args)


if __name__ == "__main__":
    main()
