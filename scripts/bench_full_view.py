#!/usr/bin/env python3
"""Times the browser's full view on a pseudo-terminal: Enter to the picture's last byte, per
pixel protocol, and one zoom/pan step, for a 4000x3000 JPEG on disk.

    python3 scripts/bench_full_view.py [--bin .build/release/vitrine] [--runs 15]

The browser runs on a pty of 120x40 cells of 10x20 pixels (TIOCGWINSZ), with `--pixels P`
forced, so no terminal answers are awaited; what is timed is Vitrine's side (decode, cut,
encode, write) up to the last byte of the picture read from the pty, not a terminal painting
it. Each protocol runs twice: with `--memory-cache 0` (every Enter decodes the file, as for an
image in the disk cache) and with the memory cache (every Enter after the first is a hit). The
zoom/pan step: at 1:1 (`=`, after the full-size decode arrived) `l` and `h` alternately, key to
last byte. Protocols are interleaved run by run. Prints medians and p99 in ms.

    python3 scripts/bench_full_view.py --pans-only --bin A --bin-b B [--runs 10]

times the pan steps of two builds, their browsers alive side by side and their steps
interleaved one by one (A, B, A, B, ...), and adds "key to status line": keys sent back to back,
each as soon as the status line for the one before has been drawn (curses moving to the last
row, `CSI 40;`), not waiting for the picture; a main loop busy encoding the last picture reads
the next key late. For sixel and iTerm2 it also times key to the settled picture after one step
(the second picture: iTerm2's PNG, sixel's view with a palette of its own; a build that does not
settle is skipped after one 3 s wait) with its bytes, and counts settled pictures that came
between the timed steps."""

import argparse
import base64
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PHOTO = Path("/usr/share/backgrounds/mate/nature/LadyBird.jpg")
COLS, ROWS, CW, CH = 120, 40, 10, 20

def picture_end(protocol, count=1):
    """A function (buffer, start) -> bool: the `count`th picture of the protocol after `start`
    has fully arrived (its last sequence, then DECRC, ESC 8); half blocks: the full view's
    status line with its zoom ("fit N%", shown once the decode is drawn)."""
    if protocol == "halfblock":
        return lambda buf, start: buf.find(b"fit ", start) >= 0
    opening = {"kitty": b"\x1b_Ga=T", "sixel": b"\x1bP", "iterm": b"\x1b]1337;File="}[protocol]

    def done(buf, start):
        i = start
        for _ in range(count):
            j = buf.find(opening, i)
            if protocol == "kitty":
                # A pan step inside kitty's pan region is a placement (a=p), no pixels.
                k = buf.find(b"\x1b_Ga=p", i)
                j = k if j < 0 or 0 <= k < j else j
            i = j
            if i < 0:
                return False
            i += len(opening)
        if protocol == "kitty" and buf[i - len(opening):i] != b"\x1b_Ga=p":
            header_end = buf.find(b";", i)
            if header_end < 0:
                return False
            if b"m=1" in buf[i:header_end]:
                i = buf.find(b"m=0", i)
                if i < 0:
                    return False
        return buf.find(b"\x1b8", i) >= 0
    return done


def pixel_name(protocol):
    """The `--pixels` value of a bench protocol (kitty-shm is kitty answering the probe)."""
    return "kitty" if protocol == "kitty-shm" else protocol


def contains(needle):
    return lambda buf, start: buf.find(needle, start) >= 0


KITTY_QUERY = re.compile(rb"\x1b_Gi=(\d+),[^;\x1b]*a=q,t=([dst])[^;\x1b]*;([A-Za-z0-9+/=]*)\x1b\\")
SHARED = re.compile(rb"\x1b_Ga=[tT],[^;\x1b]*,t=([st]),S=(\d+),q=2;([A-Za-z0-9+/=]+)\x1b\\")


def take_object(medium, name):
    """Reads a kitty medium object (t=s: /dev/shm/NAME, t=t: the file) whole and unlinks it, as
    kitty does; False when it cannot be opened."""
    path = "/dev/shm" + name if medium == b"s" else name
    try:
        with open(path, "rb") as f:
            f.read()
        os.unlink(path)
        return True
    except OSError:
        return False


class Browser:
    def __init__(self, binary, image, pixels, memory, answer_kitty=False):
        args = [binary, str(image), "--no-disk-cache", "--no-mouse", "--pixels", pixels]
        if not memory:
            args += ["--memory-cache", "0"]
        env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        env.pop("TMUX", None)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(args[0], args, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, COLS * CW, ROWS * CH))
        self.buf = bytearray()
        self.taken = 0  # offset up to which kitty medium objects were read
        self.answers_kitty = answer_kitty
        if answer_kitty:
            self.answer_probe()
        self.wait_for(contains(b"H help"), 20)
        time.sleep(0.3)
        self.drain()

    def answer_probe(self):
        """Answers the capability probe as kitty 0.26 on the same host does: OK to the graphics
        query and to the shared memory / temporary file queries (their objects read and
        unlinked), then DA1. Without it nothing answers (the probe's deadline)."""
        deadline = time.monotonic() + 5
        while b"\x1b[c" not in self.buf and time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.05)[0]:
                self.buf += os.read(self.fd, 1 << 16)
        reply = b""
        for m in KITTY_QUERY.finditer(self.buf):
            ok = m.group(2) == b"d" or take_object(m.group(2), base64.b64decode(m.group(3)).decode())
            reply += b"\x1b_Gi=%s;%s\x1b\\" % (m.group(1), b"OK" if ok else b"ENOENT:not found")
        os.write(self.fd, reply + b"\x1b[?62;c")

    def take_shared(self):
        """Reads and unlinks every kitty medium object named in the output so far (kitty's part)."""
        start = max(0, self.taken - 300)
        for m in SHARED.finditer(self.buf, start):
            if m.start() >= self.taken - 300 and m.end() > self.taken:
                take_object(m.group(1), base64.b64decode(m.group(3)).decode())
        self.taken = len(self.buf)

    def drain(self):
        while select.select([self.fd], [], [], 0.05)[0]:
            try:
                self.buf += os.read(self.fd, 1 << 20)
            except OSError:
                break
        self.take_shared()

    def drain_quiet(self, quiet, timeout=20):
        """Reads until `quiet` s pass without output (at most `timeout` s)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and select.select([self.fd], [], [], quiet)[0]:
            try:
                self.buf += os.read(self.fd, 1 << 20)
            except OSError:
                break
        self.take_shared()

    def wait_for(self, done, timeout, start=0):
        deadline = time.monotonic() + timeout
        check = True
        while not (check and done(self.buf, start)):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("not done after %d bytes" % (len(self.buf) - start))
            check = False
            if select.select([self.fd], [], [], left)[0]:
                chunk = os.read(self.fd, 1 << 20)
                self.buf += chunk
                # Look again only when an end could have arrived (the pty gives 4 KB reads).
                check = b"\x1b8" in self.buf[-len(chunk) - 2:] or b"fit " in self.buf[-len(chunk) - 4:] \
                    or b"\x1b[40;" in self.buf[-len(chunk) - 5:] \
                    or b"H help" in self.buf[-len(chunk) - 6:]
        if self.answers_kitty:
            self.take_shared()

    def timed(self, key, done, timeout=20):
        start = len(self.buf)
        t0 = time.perf_counter()
        os.write(self.fd, key)
        self.wait_for(done, timeout, start)
        return (time.perf_counter() - t0) * 1000

    def timed_quiet(self, key, quiet=0.05, timeout=20):
        """Key to the last byte before `quiet` s without output (half blocks: curses's frame)."""
        t0 = time.perf_counter()
        os.write(self.fd, key)
        last = None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], quiet)[0]:
                self.buf += os.read(self.fd, 1 << 20)
                last = time.perf_counter()
            elif last is not None:
                break
        return ((last or time.perf_counter()) - t0) * 1000

    def close(self):
        """Q, then read until the browser has exited. (Waiting without reading deadlocked when
        a picture was still being written: the browser blocks in write() on the full pty and
        never reads the Q. That was the pan phase's stall with no output.)"""
        os.write(self.fd, b"Q")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    os.read(self.fd, 1 << 20)
                except OSError:
                    pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                break
        else:
            raise TimeoutError("the browser did not exit after Q")
        os.close(self.fd)
        if not (os.WIFEXITED(self.status) and os.WEXITSTATUS(self.status) == 0):
            raise RuntimeError("the browser ended with status %r" % self.status)

    def wait_detail(self, protocol, timeout=30):
        """After `=`: waits until the full-size decode has arrived and been drawn, asking with ^L
        (a repaint writes the whole status line, whose zoom text ends in `…` while the decode
        loads; curses alone would only erase the `…`), then reads what follows. Without this a
        late decode drew one more picture inside the timed steps, which shifted every later
        step by one picture and left one being written at the end."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.5)
            self.drain()
            mark = len(self.buf)
            os.write(self.fd, b"\x0c")
            # (not wait_for: it looks only after a picture's end, and half blocks have none here)
            until = time.monotonic() + 10
            while b"of 4000x3000" not in self.buf[mark:] and time.monotonic() < until:
                if select.select([self.fd], [], [], 0.1)[0]:
                    self.buf += os.read(self.fd, 1 << 20)
            time.sleep(0.3)
            self.drain()
            if b"of 4000x3000 \xe2\x80\xa6" not in self.buf[mark:]:
                return
        raise TimeoutError("no full-size decode after %d s" % timeout)

    def alive(self):
        return os.waitpid(self.pid, os.WNOHANG)[0] == 0


# A picture's end: a placement (a=p) or a transmission's last chunk (m=0, or a single chunk),
# then DECRC.
PICTURE = re.compile(rb"\x1b_G(a=p,[^\x1b]*|[^\x1b;]*m=0;[^\x1b]*|a=T,(?:(?!m=)[^\x1b;])*;[^\x1b]*)\x1b\\\x1b8")


# A kitty placement (a=p) or transmit-and-place (a=T) and its image id.
PLACED = re.compile(rb"\x1b_Ga=[pT],(?:[^;\x1b]*,)?i=(\d+)")


def straight(args):
    """Straight kitty pans at 1:1 that leave the pan region, keys paced `--pace` ms apart (as
    key repeat or tapping would send them), both builds side by side. For each key: key to the
    status line drawn after it (curses moving to the status row; keys that waited are
    answered together by one), and key to the next picture end after that (a placement, or a region's last chunk)."""
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-fullview-"))
    image = tmp / "photo-4000x3000.jpg"
    subprocess.run(["convert", str(PHOTO), "-resize", "4000x3000!", "-quality", "90", str(image)], check=True)
    bins = [("A", args.bin)] + ([("B", args.bin_b)] if args.bin_b else [])
    keys = [b"l"] * 8 + [b"h"] * 16 + [b"l"] * 8
    status, picture = {}, {}
    for _ in range(args.runs):
        for name, binary in bins:
            b = Browser(binary, image, "kitty", True, answer_kitty=True)
            b.timed(b"\r", picture_end("kitty", 2))
            b.drain()
            os.write(b.fd, b"=")
            b.wait_detail("kitty")
            time.sleep(1.0)
            b.drain()
            base = len(b.buf)
            arrivals = []  # (offset after the read, time)
            sends = []
            t_next = time.perf_counter()
            pending = list(keys)
            end = None
            while True:
                now = time.perf_counter()
                if pending and now >= t_next:
                    sends.append((pending[0], now))
                    os.write(b.fd, pending.pop(0))
                    t_next += args.pace / 1000
                    if not pending:
                        end = now + 5.0
                if end is not None and now > end:
                    break
                wait = max(0, (t_next if pending else end) - now)
                if select.select([b.fd], [], [], min(wait, 0.05))[0]:
                    b.buf += os.read(b.fd, 1 << 20)
                    arrivals.append((len(b.buf) - base, time.perf_counter()))
                    b.take_shared()
            out = bytes(b.buf[base:])

            def when(offset):
                for off, t in arrivals:
                    if off >= offset:
                        return t
                return None

            # curses rewrites only the changed cells of the status line, so its position text is
            # not in the bytes whole: a status line is curses moving to its row (CSI 40;).
            shown = [when(m.end()) for m in re.finditer(rb"\x1b\[40;", out)]
            pictures = [when(m.end()) for m in PICTURE.finditer(out)]
            for key, t0 in sends:
                ts = [t for t in shown if t is not None and t >= t0]
                if not ts:
                    continue
                status.setdefault(name, []).append((ts[0] - t0) * 1000)
                ps = [t for t in pictures if t is not None and t >= ts[0]]
                if ps:
                    picture.setdefault(name, []).append((ps[0] - t0) * 1000)
            b.close()
    if os.environ.get("BENCH_VERBOSE"):
        for name, _ in bins:
            print(name, "status", " ".join("%.0f" % z for z in status.get(name, [])))
            print(name, "picture", " ".join("%.0f" % z for z in picture.get(name, [])))
    print("Straight kitty pans at 1:1 (8 l, 16 h, 8 l from the centre), keys %d ms apart; A = %s%s:" % (
        args.pace, args.bin, ", B = %s" % args.bin_b if args.bin_b else ""))
    for name, _ in bins:
        zs, ps = status.get(name, []), picture.get(name, [])
        print("  %s  key to status line p50 %6.1f p99 %6.1f max %6.1f, %d of %d over 100 ms" % (
            name, statistics.median(zs), p99(zs), max(zs), sum(1 for z in zs if z > 100), len(zs)))
        print("     key to picture     p50 %6.1f p99 %6.1f max %6.1f, %d of %d over 100 ms (n=%d)" % (
            statistics.median(ps), p99(ps), max(ps), sum(1 for z in ps if z > 100), len(ps), len(ps)))
    print("load average: %s" % " ".join("%.2f" % x for x in os.getloadavg()))


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.99 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(REPO / ".build" / "release" / "vitrine"))
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--pans-only", action="store_true")
    ap.add_argument("--bin-b", help="a second build whose pan steps are timed interleaved with --bin's")
    ap.add_argument("--protocols", default="kitty,sixel,iterm,halfblock",
                    help="comma-separated, in this order; kitty-shm (pan and zoom steps only): kitty answering the "
                         "probe as on the same host, regions through shared memory")
    ap.add_argument("--straight", action="store_true",
                    help="kitty only: straight pans at 1:1 that leave the pan region (8 l, 16 h, 8 l from the centre), "
                         "keys --pace ms apart: key to status line and key to picture")
    ap.add_argument("--pace", type=int, default=50, help="--straight: ms between keys")
    args = ap.parse_args()
    if args.straight:
        return straight(args)
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-fullview-"))
    image = tmp / "photo-4000x3000.jpg"
    subprocess.run(["convert", str(PHOTO), "-resize", "4000x3000!", "-quality", "90", str(image)], check=True)
    protocols = args.protocols.split(",")
    results = {}
    for memory in (() if args.pans_only else (False, True)):
        browsers = {p: Browser(args.bin, image, p, memory) for p in protocols}
        for _ in range(args.runs):
            for p, b in browsers.items():
                # Without a memory hit the row's thumbnail is drawn first, then the decode.
                hit = memory and len(results.get((p, memory), [])) > 0
                results.setdefault((p, memory), []).append(b.timed(b"\r", picture_end(p, 1 if hit else 2)))
                time.sleep(0.05)
                b.timed(b"q", contains(b"H help"))
                time.sleep(0.05)
        for b in browsers.values():
            b.close()
    print("Enter to the last byte, 4000x3000 JPEG, 120x40 cells of 10x20 px (ms):")
    for (p, memory), xs in results.items():
        print("  %-9s %-14s p50 %7.1f  p99 %7.1f  (n=%d)" % (p, "memory hit" if memory else "decode (file)",
                                                          statistics.median(xs), p99(xs), len(xs)))
    # One zoom/pan step at 1:1, the full-size decode in memory.
    bins = [("A", args.bin)] + ([("B", args.bin_b)] if args.bin_b else [])
    print("One pan or zoom step at 1:1 (l / h alternately; + / -), key to the last byte (ms); A = %s%s:" % (
        args.bin, ", B = %s" % args.bin_b if args.bin_b else ""))
    steps, status, sizes, kinds, settles, settle_bytes, extra, zooms, zoom_exact = {}, {}, {}, {}, {}, {}, {}, {}, {}
    for p in protocols:
        # Both builds alive, their steps interleaved.
        browsers = {}
        for name, binary in bins:
            # kitty-shm: kitty as on the same host, answering the probe so that regions go
            # through shared memory (read and unlinked here, as kitty does).
            b = Browser(binary, image, pixel_name(p), True, answer_kitty=p == "kitty-shm")
            # The decode is drawn when the status line has its zoom ("fit N%"); the thumbnail
            # before it is skipped when the decode comes first (counting two pictures stalled).
            b.timed(b"\r", contains(b"fit "))
            time.sleep(0.5)
            b.drain()
            os.write(b.fd, b"=")
            # The full-size decode (4000x3000) arrives in the background: let it land.
            b.wait_detail(p)
            browsers[name] = b
        phase = {name: len(b.buf) for name, b in browsers.items()}
        for i in range(args.runs * 4):
            key = b"l" if i % 2 == 0 else b"h"
            for name, b in browsers.items():
                if p == "halfblock":
                    steps.setdefault((p, name), []).append(b.timed_quiet(key))
                else:
                    start = len(b.buf)
                    steps.setdefault((p, name), []).append(b.timed(key, picture_end(pixel_name(p)), timeout=10))
                    sizes.setdefault((p, name), []).append(len(b.buf) - start)
                    if p == "iterm":
                        # The step's file: a JPEG's base64 starts "/9j/", a PNG's "iVBO".
                        at = b.buf.find(b"\x1b]1337;File=", start)
                        colon = b.buf.find(b":", at)
                        kinds.setdefault((p, name), []).append(bytes(b.buf[colon + 1:colon + 5]))
                if not b.alive():
                    raise RuntimeError("the %s browser exited during the pan steps" % p)
        if p in ("sixel", "iterm"):
            # Pictures written during the timed steps beyond one a step: settled pictures that
            # came between two steps (a gap over ImageView.settleDelay), which a later step
            # could have been timed by.
            opening = b"\x1bP" if p == "sixel" else b"\x1b]1337;File="
            for name, b in browsers.items():
                extra.setdefault((p, name), []).append(b.buf[phase[name]:].count(opening) - args.runs * 4)
        # Zoom steps from and to 1:1: `+` (to 150%) and `-` (back to 100%) alternately, each key
        # once the last picture is in, key to the first picture after it (the step). With
        # kitty, then one key at a time at rest: key to the second picture, the region at the
        # new zoom (a terminal-scaled placement of the region on screen comes first).
        for i in range(args.runs * 2):
            key = b"+" if i % 2 == 0 else b"-"
            for name, b in browsers.items():
                if p == "halfblock":
                    zooms.setdefault((p, name), []).append(b.timed_quiet(key))
                else:
                    zooms.setdefault((p, name), []).append(b.timed(key, picture_end(pixel_name(p)), timeout=10))
        if p in ("kitty", "kitty-shm"):
            for i in range(args.runs * 2):
                key = b"+" if i % 2 == 0 else b"-"
                for name, b in browsers.items():
                    # At rest: the last step's region fully out and placed (0.3 s without output).
                    b.drain_quiet(0.3)
                    start = len(b.buf)
                    t0 = time.perf_counter()
                    os.write(b.fd, key)
                    b.wait_for(picture_end("kitty"), 10, start)
                    first = (time.perf_counter() - t0) * 1000
                    ids = PLACED.findall(b.buf, start)
                    first_id = ids[0] if ids else None

                    def region_placed(buf, at):
                        # A placement of another image than the step's first (the new region).
                        for m in PLACED.finditer(buf, at):
                            if m.group(1) != first_id and buf.find(b"\x1b8", m.end()) >= 0:
                                return True
                        return False
                    try:
                        b.wait_for(region_placed, 5, start)
                        exact = (time.perf_counter() - t0) * 1000
                    except TimeoutError:
                        # No other image placed: the step's picture was the region.
                        exact = first
                    zoom_exact.setdefault((p, name), []).append(exact)
        # Keys back to back: each sent once the status line for the last one is drawn.
        for i in range(args.runs * 4):
            key = b"l" if i % 2 == 0 else b"h"
            for name, b in browsers.items():
                status.setdefault((p, name), []).append(b.timed(key, contains(b"\x1b[40;"), timeout=10))
        # iTerm2 with JPEG steps: key to the lossless PNG that follows once the keys stop (the
        # second picture after the key), one key at a time. Sixel with settled pictures
        # (ImageView.settleDelay after a step past the fit, the view with its own palette): the
        # same, and the settled picture's bytes (from the first picture's end to the second's).
        for name, b in browsers.items():
            if p == "iterm" and b"/9j/" not in kinds.get((p, name), []):
                continue
            if p not in ("iterm", "sixel"):
                continue
            for i in range(args.runs):
                time.sleep(0.5)
                b.drain()
                start = len(b.buf)
                try:
                    t = b.timed(b"l" if i % 2 == 0 else b"h", picture_end(p, 2), timeout=3)
                except TimeoutError:
                    # No second picture: this build does not settle.
                    break
                settles.setdefault((p, name), []).append(t)
                opening = b"\x1bP" if p == "sixel" else b"\x1b]1337;File="
                second = b.buf.find(opening, b.buf.find(opening, start) + 1)
                settle_bytes.setdefault((p, name), []).append(len(b.buf) - b.buf.rfind(b"\x1b7", start, second))
        for b in browsers.values():
            b.drain()
            b.close()
    for (p, name), xs in settles.items():
        print("  %-9s %s  key to the settled picture after one step (%s): p50 %6.1f  p99 %6.1f  (n=%d), its bytes p50 %d" % (
            p, name, "the lossless PNG" if p == "iterm" else "its own palette", statistics.median(xs), p99(xs),
            len(xs), statistics.median(settle_bytes[(p, name)])))
    for (p, name), xs in extra.items():
        print("  %-9s %s  settled pictures between the timed steps: %d" % (p, name, sum(xs)))
    for (p, name), xs in steps.items():
        ys = status[(p, name)]
        extra = ""
        if (p, name) in sizes:
            extra = "  bytes p50 %d" % statistics.median(sizes[(p, name)])
        if (p, name) in kinds:
            k = kinds[(p, name)]
            extra += "  JPEG %d / PNG %d steps" % (k.count(b"/9j/"), k.count(b"iVBO"))
        print("  %-9s %s  step p50 %6.1f  p99 %6.1f   key to status line p50 %6.1f  p99 %6.1f  (n=%d)%s" % (
            p, name, statistics.median(xs), p99(xs), statistics.median(ys), p99(ys), len(xs), extra))
    for (p, name), xs in zooms.items():
        if os.environ.get("BENCH_VERBOSE"):
            print("  %s %s zoom steps: %s" % (p, name, " ".join("%.1f" % x for x in xs)))
        line = "  %-9s %s  zoom step (+ to 150%%, - to 100%%) p50 %6.1f  p99 %6.1f  (n=%d)" % (
            p, name, statistics.median(xs), p99(xs), len(xs))
        if (p, name) in zoom_exact:
            ys = zoom_exact[(p, name)]
            line += "   key to the region at the new zoom p50 %6.1f  p99 %6.1f  (n=%d)" % (statistics.median(ys), p99(ys), len(ys))
        print(line)
    print("load average: %s" % " ".join("%.2f" % x for x in os.getloadavg()))

if __name__ == "__main__":
    main()
