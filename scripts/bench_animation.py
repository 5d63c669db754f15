#!/usr/bin/env python3
"""CPU per frame while an animated GIF plays: Vitrine's full view against timg, per protocol.

    python3 scripts/bench_animation.py [--bin .build/release/vitrine] [--seconds 10] [--runs 3]

Each program runs on its own pseudo-terminal of 120x40 cells of 10x20 pixels (TIOCGWINSZ)
whose output this script reads and throws away (a terminal that keeps up). The GIF: 480x270,
30 frames of 40 ms (25 fps), a disc moving over a gradient (made here with Pillow). CPU is
utime + stime from /proc/PID/stat over `--seconds` of playing (after a second to settle);
frames are the pictures written in that time (kitty `a=T` sent or `a=p` placed again, sixel
DCS, iTerm2 OSC 1337), and
for half blocks the schedule's count (seconds / 40 ms: curses frames cannot be told apart in
the byte stream). timg (`-p k|i|h`, `-g120x39`, looping forever) is the peer: it has no sixel.
Programs and protocols are interleaved run by run; prints medians."""

import argparse
import os
import pty
import select
import statistics
import struct
import fcntl
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COLS, ROWS, CW, CH = 120, 40, 10, 20
FRAMES, DELAY = 30, 40
TICK = os.sysconf("SC_CLK_TCK")
MARKS = {"kitty": b"\x1b_Ga=T", "sixel": b"\x1bP", "iterm": b"\x1b]1337;File="}


def make_gif(path, frames=FRAMES, lap=None, delay=DELAY):
    """A 480x270 GIF of `frames` frames of `delay` ms: a disc crossing a gradient in `lap`
    frames (default: all of them), 10 pixels lower on each later lap."""
    lap = lap or frames
    subprocess.run(["/usr/bin/python3", "-c", """
import sys
from PIL import Image, ImageDraw
frames = []
for i in range(%d):
    im = Image.new("RGB", (480, 270))
    d = ImageDraw.Draw(im)
    for x in range(0, 480, 8):
        d.rectangle([x, 0, x + 7, 269], fill=(x * 255 // 480, 80, 255 - x * 255 // 480))
    cx = 40 + (i %% %d) * 400 // %d
    d.ellipse([cx - 30, 105 + i // %d * 10, cx + 30, 165 + i // %d * 10], fill=(255, 255, 0))
    frames.append(im)
frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=%d, loop=0)
""" % (frames, lap, lap, lap, lap, delay), str(path)], check=True)


class Pty:
    def __init__(self, args, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(args[0], args, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, COLS * CW, ROWS * CH))
        self.buf = bytearray()

    def read_for(self, seconds, keep=True):
        """Reads everything for `seconds`; returns the bytes (or their count when not kept)."""
        out = bytearray()
        count = 0
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if select.select([self.fd], [], [], left)[0]:
                try:
                    chunk = os.read(self.fd, 1 << 20)
                except OSError:
                    break
                count += len(chunk)
                if keep:
                    out += chunk
        return out if keep else count

    def wait_text(self, needle, timeout):
        deadline = time.monotonic() + timeout
        while needle not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no %r" % needle)
            if select.select([self.fd], [], [], 0.1)[0]:
                self.buf += os.read(self.fd, 1 << 20)

    def cpu_ticks(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def close(self, key=None):
        if key:
            os.write(self.fd, key)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            self.read_for(0.05, keep=False)
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
        else:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def measure(program, protocol, binary, gif, seconds):
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.pop("TMUX", None)
    if program.startswith("vitrine"):
        args = [binary, str(gif), "--no-disk-cache", "--no-mouse", "--pixels", protocol]
        p = Pty(args, env)
        p.wait_text(b"H help", 20)
        os.write(p.fd, b"\r")
        p.wait_text(b"frames", 20)
    else:
        flag = {"kitty": "k", "iterm": "i", "halfblock": "h"}[protocol]
        p = Pty(["timg", "-p" + flag, "-g%dx%d" % (COLS, ROWS - 1), "--loops=-1", str(gif)], env)
    p.read_for(1.0, keep=False)
    before = p.cpu_ticks()
    t0 = time.monotonic()
    data = p.read_for(seconds)
    elapsed = time.monotonic() - t0
    ticks = p.cpu_ticks() - before
    p.close(b"Q" if program.startswith("vitrine") else None)
    if protocol == "halfblock":
        frames = elapsed * 1000 / DELAY
    elif protocol == "kitty":
        # A frame is sent (a=T) the first time, then only placed again (a=p) when kept.
        frames = data.count(MARKS["kitty"]) + data.count(b"\x1b_Ga=p")
    else:
        frames = data.count(MARKS[protocol])
    return ticks * 1000 / TICK, frames, len(data), elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(REPO / ".build" / "release" / "vitrine"))
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--protocols", default="kitty,sixel,iterm,halfblock")
    ap.add_argument("--bin-b", help="a second build (\"vitrine-b\"), interleaved with --bin's runs")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-anim-"))
    gif = tmp / "moving-480x270-30x40ms.gif"
    make_gif(gif)
    protocols = args.protocols.split(",")
    results = {}
    for _ in range(args.runs):
        for protocol in protocols:
            for program in ("vitrine", "vitrine-b", "timg"):
                if (program == "timg" and protocol == "sixel") or (program == "vitrine-b" and not args.bin_b):
                    continue
                binary = args.bin_b if program == "vitrine-b" else args.bin
                cpu_ms, frames, nbytes, elapsed = measure(program, protocol, binary, gif, args.seconds)
                results.setdefault((program, protocol), []).append((cpu_ms, frames, nbytes, elapsed))
                print("  %-8s %-9s cpu %7.0f ms  frames %6.1f  %6.2f ms/frame  %8.0f bytes/frame" % (
                    program, protocol, cpu_ms, frames, cpu_ms / max(1, frames), nbytes / max(1, frames)),
                    file=sys.stderr, flush=True)
    print("CPU per frame while a 480x270 GIF plays (30 frames x 40 ms), %g s per run, %d runs, median:"
          % (args.seconds, args.runs))
    if args.bin_b:
        print("  vitrine = %s, vitrine-b = %s" % (args.bin, args.bin_b))
    for (program, protocol), xs in sorted(results.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        per_frame = statistics.median(c / max(1, f) for c, f, _, _ in xs)
        fps = statistics.median(f / e for _, f, _, e in xs)
        cpu = statistics.median(c / e / 10 for c, _, _, e in xs)
        nbytes = statistics.median(b / max(1, f) for _, f, b, _ in xs)
        print("  %-9s %-8s %6.2f ms CPU/frame  %5.1f frames/s  %5.1f%% CPU  %8.0f bytes/frame" % (
            protocol, program, per_frame, fps, cpu, nbytes))
    print("load average: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


if __name__ == "__main__":
    main()
