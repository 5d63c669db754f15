#!/usr/bin/env python3
"""Enter to the first frame moving, on a 300-frame GIF: how soon the full view plays.

    python3 scripts/bench_animation_start.py [--bin A] [--bin-b B] [--runs 5] [--protocols kitty,halfblock]

The GIF: 480x270, 300 frames of 40 ms (a disc moving over a gradient, made here with Pillow;
12 s a loop). Each run starts the browser on its own pseudo-terminal of 120x40 cells of 10x20
pixels (bench_animation.py's harness, output read as it comes), waits for the list, sends
Enter and times, from the Enter written:
- "playing": the status line's play mark (`▶`) first written: the animation's first frame is
  on screen (the status line is drawn in the same turn as the first frame);
- "moving" (kitty only): the second kitty transmission (`a=T`) after it, the next frame on
  screen (with half blocks curses frames cannot be told apart in the byte stream).
- with --cpu-after S: the process's CPU (utime + stime) S seconds after Enter (decode and
  playing so far; S past the slower build's whole decode compares the decode's cost).
- with --second-entry L: the first entry is left with q L s after it plays (before its last
  frame decodes), then after --settle s Enter again, timed the same way ("playing" is then the
  second entry's), and the CPU from that Enter to --cpu-after s after it (3 by default): what
  the second entry pays.
--no-disk-cache and a new process per run: every run decodes the GIF. --bin and --bin-b are
interleaved run by run; prints medians (and min, max)."""

import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_animation import Pty, REPO, make_gif  # noqa: E402

FRAMES, DELAY = 300, 40
PLAY = "▶".encode()
KITTY = b"\x1b_Ga=T"


def enter_until_playing(p, protocol, timeout):
    """Writes Enter; returns (playing s, moving s or None) after it, t0, the bytes read."""
    out = bytearray()
    os.write(p.fd, b"\r")
    t0 = time.monotonic()
    playing = moving = None
    deadline = t0 + timeout
    while time.monotonic() < deadline:
        if select.select([p.fd], [], [], 0.05)[0]:
            out += os.read(p.fd, 1 << 20)
            now = time.monotonic()
            at = out.find(PLAY)
            if playing is None and at >= 0:
                playing = now - t0
            if at >= 0 and (protocol != "kitty" or out.count(KITTY, at) >= 2):
                moving = now - t0 if protocol == "kitty" else None
                break
    if playing is None:
        raise TimeoutError("no play mark within %d s" % timeout)
    return playing, moving, t0


def measure_second(binary, protocol, gif, leave, settle, cpu_after, timeout=30):
    """The second entry: Enter, q `leave` s after playing, `settle` s, Enter again, timed."""
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("TMUX", None)
    p = Pty([binary, str(gif), "--no-disk-cache", "--no-mouse", "--pixels", protocol], env)
    try:
        p.wait_text(b"H help", 20)
        p.read_for(0.5, keep=False)
        enter_until_playing(p, protocol, timeout)
        p.read_for(leave, keep=False)
        os.write(p.fd, b"q")
        p.read_for(settle, keep=False)
        before = p.cpu_ticks()
        playing, moving, t0 = enter_until_playing(p, protocol, timeout)
        p.read_for(max(0, t0 + cpu_after - time.monotonic()), keep=False)
        cpu = (p.cpu_ticks() - before) * 1000 / os.sysconf("SC_CLK_TCK")
        return playing * 1000, (moving * 1000 if moving is not None else None), cpu
    finally:
        p.close(b"Q")


def measure(binary, protocol, gif, timeout=30, cpu_after=None):
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("TMUX", None)
    p = Pty([binary, str(gif), "--no-disk-cache", "--no-mouse", "--pixels", protocol], env)
    try:
        p.wait_text(b"H help", 20)
        p.read_for(0.5, keep=False)  # the row's thumbnail
        playing, moving, t0 = enter_until_playing(p, protocol, timeout)
        cpu = None
        if cpu_after:
            p.read_for(max(0, t0 + cpu_after - time.monotonic()), keep=False)
            cpu = p.cpu_ticks() * 1000 / os.sysconf("SC_CLK_TCK")
        return playing * 1000, (moving * 1000 if moving is not None else None), cpu
    finally:
        p.close(b"Q")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(REPO / ".build" / "release" / "vitrine"))
    ap.add_argument("--bin-b", help="a second build, interleaved with --bin's runs")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--protocols", default="kitty,halfblock")
    ap.add_argument("--cpu-after", type=float, help="also the process's CPU this many s after Enter")
    ap.add_argument("--second-entry", type=float, metavar="L",
                    help="time the second Enter; the first entry is left L s after it plays")
    ap.add_argument("--settle", type=float, default=4.0, help="s between q and the second Enter")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-anim-start-"))
    gif = tmp / "moving-480x270-300x40ms.gif"
    make_gif(gif, frames=FRAMES, lap=50, delay=DELAY)
    builds = [("A", args.bin)] + ([("B", args.bin_b)] if args.bin_b else [])
    results = {}
    for run in range(args.runs):
        for protocol in args.protocols.split(","):
            for name, binary in builds:
                if args.second_entry is not None:
                    playing, moving, cpu = measure_second(
                        binary, protocol, gif, args.second_entry, args.settle, args.cpu_after or 3.0)
                else:
                    playing, moving, cpu = measure(binary, protocol, gif, cpu_after=args.cpu_after)
                results.setdefault((protocol, name), []).append((playing, moving, cpu))
                print("  run %d %-9s %s  playing %7.1f ms  moving %s%s" % (
                    run + 1, protocol, name, playing, "%7.1f ms" % moving if moving is not None else "-",
                    "  CPU %.0f ms" % cpu if cpu is not None else ""),
                    file=sys.stderr, flush=True)
    if args.second_entry is not None:
        args.cpu_after = args.cpu_after or 3.0
        print("The second Enter (the first left %g s after playing, %g s before it):" % (args.second_entry, args.settle))
    print("Enter to the first frame of a 300-frame 480x270 GIF, %d runs, median (min-max) ms:" % args.runs)
    for name, binary in builds:
        print("  %s = %s" % (name, binary))

    def summary(xs):
        xs = [x for x in xs if x is not None]
        return "%7.1f (%.1f-%.1f)" % (statistics.median(xs), min(xs), max(xs)) if xs else "      -"

    for (protocol, name), xs in sorted(results.items()):
        print("  %-9s %s  playing %s  moving %s%s" % (
            protocol, name, summary([a for a, _, _ in xs]), summary([b for _, b, _ in xs]),
            "  CPU at %g s %s" % (args.cpu_after, summary([c for _, _, c in xs])) if args.cpu_after else ""))
    if args.bin_b:
        for protocol in args.protocols.split(","):
            a = statistics.median(x for x, _, _ in results[(protocol, "A")])
            b = statistics.median(x for x, _, _ in results[(protocol, "B")])
            print("  %-9s playing A/B %.3f" % (protocol, a / b))
    print("load average: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
