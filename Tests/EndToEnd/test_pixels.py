"""End-to-end tests of real pixels in real terminals: `vitrine render --pixels auto` inside
kitty 0.26 (kitty graphics protocol) and `xterm -ti vt340` (sixel), each under its own Xvfb,
screenshotted with ImageMagick's `import -window root` and scored by PSNR against the photo
resized to the size Vitrine decodes it at (not by pixel equality: sixel is 256 colours, and the
two resamplers differ). Also kitty inside tmux, with passthrough on (pixels) and off (half
blocks, no escape garbage).

Needs the Debian packages xvfb, kitty, xterm, xfonts-base, imagemagick and mate-backgrounds
(TEST_PACKAGES in the Makefile); no display is needed, each test starts Xvfb on a free display
number (:91 and up) and stops it. Python standard library only: images go through ImageMagick
as raw RGB."""

import base64
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import binary, binary_problem, stop_process, wait_until  # noqa: E402

PHOTO = Path("/usr/share/backgrounds/mate/nature/LadyBird.jpg")  # 2560x1600
BOX = (40, 12)  # cells given to --size
SCREEN = (1024, 768)


def magick_rgb(args, width, height):
    """Runs `convert ARGS rgb:-` (8 bits a channel) and returns the bytes (width*height*3)."""
    out = subprocess.run(["convert"] + args + ["-depth", "8", "rgb:-"], capture_output=True, check=True,
                         timeout=30).stdout
    if len(out) != width * height * 3:
        raise AssertionError("convert gave %d bytes, wanted %dx%dx3" % (len(out), width, height))
    return out


def fit(width, height, max_w, max_h):
    """Vitrine's fit: aspect kept, never enlarged, each side rounded."""
    scale = min(1.0, max_w / width, max_h / height)
    return max(1, min(max_w, round(width * scale))), max(1, min(max_h, round(height * scale)))


def psnr_at(screen, expected, size, x0, y0, step=1):
    """PSNR (dB) of `expected` (w*h RGB) against the screen (1024x768 RGB) region at x0, y0."""
    w, h = size
    sw = SCREEN[0]
    total = 0
    n = 0
    for y in range(0, h, step):
        row_e = y * w * 3
        row_s = ((y0 + y) * sw + x0) * 3
        for x in range(0, w, step):
            i = row_e + 3 * x
            j = row_s + 3 * x
            for c in range(3):
                d = expected[i + c] - screen[j + c]
                total += d * d
            n += 3
    mse = total / max(1, n)
    return 99.0 if mse == 0 else 10 * __import__("math").log10(255 * 255 / mse)


def best_psnr(screen, expected, size, search=16):
    """The best PSNR over offsets 0..search in x and y (the terminal's padding and border), found
    on a coarse grid first, then scored on every pixel."""
    coarse = max((psnr_at(screen, expected, size, x, y, step=6), x, y)
                 for y in range(search + 1) for x in range(search + 1))
    _, x, y = coarse
    return max((psnr_at(screen, expected, size, xx, yy), xx, yy)
               for yy in (y - 1, y, y + 1) for xx in (x - 1, x, x + 1) if xx >= 0 and yy >= 0)


class Xvfb:
    """An Xvfb server on the first free display number from 91."""

    def __init__(self):
        self.proc = None
        for n in range(91, 160):
            if os.path.exists("/tmp/.X%d-lock" % n) or os.path.exists("/tmp/.X11-unix/X%d" % n):
                continue
            proc = subprocess.Popen(["Xvfb", ":%d" % n, "-screen", "0", "%dx%dx24" % SCREEN, "-nolisten", "tcp"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if wait_until(lambda: os.path.exists("/tmp/.X11-unix/X%d" % n) or proc.poll() is not None, 10) \
                    and proc.poll() is None:
                self.proc, self.display = proc, ":%d" % n
                return
            proc.kill()
            proc.wait()
        raise AssertionError("no free X display between :91 and :159")

    def screenshot(self):
        return magick_rgb_import(self.display)

    def stop(self):
        if self.proc:
            stop_process(self.proc)


def magick_rgb_import(display):
    out = subprocess.run(["import", "-display", display, "-window", "root", "-depth", "8", "rgb:-"],
                         capture_output=True, check=True, timeout=30).stdout
    if len(out) != SCREEN[0] * SCREEN[1] * 3:
        raise AssertionError("import gave %d bytes" % len(out))
    return out


@unittest.skipUnless(os.environ.get("VITRINE_NO_X_TESTS") is None, "VITRINE_NO_X_TESTS is set")
class RealPixelTests(unittest.TestCase):
    def setUp(self):
        problem = binary_problem()
        if problem:
            self.fail(problem)
        for tool in ("Xvfb", "kitty", "xterm", "import", "convert", "tmux"):
            if not shutil.which(tool):
                self.fail("%s is missing: `make test-deps` installs it (Makefile TEST_PACKAGES)" % tool)
        if not PHOTO.exists():
            self.fail("%s is missing: install mate-backgrounds" % PHOTO)
        self.tmp = Path(tempfile.mkdtemp(prefix="vitrine-pixels-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.x = Xvfb()
        self.addCleanup(self.x.stop)

    def start_terminal(self, argv):
        env = dict(os.environ, DISPLAY=self.x.display, LIBGL_ALWAYS_SOFTWARE="1")
        env.pop("TMUX", None)
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL)
        self.addCleanup(stop_process, proc)
        return proc

    def script(self, pixels_args=()):
        """A shell script for the terminal: doctor's report to a file, render the photo, mark done,
        then wait (the window must stay up for the screenshot)."""
        vitrine = shlex.quote(binary())
        doctor = self.tmp / "doctor.txt"
        done = self.tmp / "done"
        render = " ".join([vitrine, "render", shlex.quote(str(PHOTO)), "--size", "%dx%d" % BOX]
                          + list(pixels_args))
        path = self.tmp / "run.sh"
        path.write_text("printf '\\033[H\\033[2J'\n%s doctor > %s 2>&1\n%s 2> %s\ntouch %s\nsleep 60\n" % (
            vitrine, doctor, render, self.tmp / "render.err", done))
        return path, doctor, done

    def rendered_score(self, doctor, done, shots=12, enough=99):
        """Waits for the script, then screenshots until the picture scores `enough` dB (at most
        `shots` screenshots, 0.25 s apart); returns (best psnr dB, the doctor report). With
        VITRINE_PIXEL_SCORES=DIR the score is printed and the last screenshot saved in DIR."""
        self.assertTrue(wait_until(done.exists, 30), "the render did not finish in 30 s: %s" %
                        (self.tmp / "render.err").read_text() if (self.tmp / "render.err").exists() else "")
        report = doctor.read_text()
        cell = next(line for line in report.splitlines() if line.startswith("cell:"))
        cw, ch = (int(v) for v in cell.split()[1].split("x"))
        size = fit(2560, 1600, BOX[0] * cw, BOX[1] * ch)
        expected = magick_rgb([str(PHOTO), "-resize", "%dx%d!" % size], *size)
        best = (0.0, 0, 0)
        for _ in range(shots):
            time.sleep(0.25)
            best = max(best, best_psnr(self.x.screenshot(), expected, size))
            if best[0] > enough:
                break
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("\n  PSNR %.1f dB at offset %d,%d" % best, file=sys.stderr)
            subprocess.run(["import", "-display", self.x.display, "-window", "root",
                            os.environ["VITRINE_PIXEL_SCORES"] + "/" + self.id().split(".")[-1] + ".png"])
        return best[0], report

    def test_kitty_graphics_in_kitty(self):
        # Given kitty 0.26 under Xvfb, software GL
        script, doctor, done = self.script()
        self.start_terminal(["kitty", "--config", "NONE", "-o", "window_padding_width=0", "sh", str(script)])
        # When vitrine render runs with --pixels auto (the default)
        score, report = self.rendered_score(doctor, done, enough=40)
        # Then it found the kitty graphics protocol and the screen shows the photo's real pixels
        # (51.5 dB seen: the differences are the two resamplers')
        self.assertIn("pixels: kitty", report)
        self.assertGreater(score, 40, "PSNR %.1f dB against the photo\n%s" % (score, report))

    def test_sixel_in_xterm_vt340(self):
        script, doctor, done = self.script()
        self.start_terminal(["xterm", "-ti", "vt340", "-xrm", "XTerm*decTerminalID: vt340",
                             "-xrm", "XTerm*numColorRegisters: 256", "-e", "sh", str(script)])
        score, report = self.rendered_score(doctor, done, enough=27)
        self.assertIn("pixels: sixel", report)
        # 256 colours, dithered: lower than kitty's exact pixels (31.1 dB seen), far above half
        # blocks (18.7 dB)
        self.assertGreater(score, 27, "PSNR %.1f dB against the photo\n%s" % (score, report))

    def test_half_blocks_score_far_lower(self):
        # The control that makes the thresholds above mean "real pixels": the same photo in the
        # same kitty as half blocks (2 pixels a cell) scores well under them (18.7 dB seen).
        script, doctor, done = self.script(["--pixels", "halfblock", "--colors", "truecolor"])
        self.start_terminal(["kitty", "--config", "NONE", "-o", "window_padding_width=0", "sh", str(script)])
        score, report = self.rendered_score(doctor, done, shots=4)
        self.assertLess(score, 24, "half blocks scored %.1f dB" % score)

    def tmux_script(self, passthrough):
        inner, doctor, done = self.script()
        conf = self.tmp / "tmux.conf"
        conf.write_text("set -g status off\nset -g allow-passthrough %s\n" % ("on" if passthrough else "off"))
        socket = "vitrine-pixels-%d" % os.getpid()
        self.addCleanup(subprocess.run, ["tmux", "-L", socket, "kill-server"], stderr=subprocess.DEVNULL)
        outer = self.tmp / "tmux.sh"
        outer.write_text("exec tmux -L %s -f %s new-session 'sh %s'\n" % (socket, conf, inner))
        return outer, doctor, done

    def test_kitty_through_tmux_passthrough(self):
        script, doctor, done = self.tmux_script(passthrough=True)
        self.start_terminal(["kitty", "--config", "NONE", "-o", "window_padding_width=0", "sh", str(script)])
        score, report = self.rendered_score(doctor, done, enough=40)
        self.assertIn("pixels: kitty", report)
        self.assertIn("tmux passthrough: yes", report)
        self.assertGreater(score, 40, "PSNR %.1f dB through tmux\n%s" % (score, report))

    def test_tmux_without_passthrough_falls_back_to_half_blocks(self):
        script, doctor, done = self.tmux_script(passthrough=False)
        self.start_terminal(["kitty", "--config", "NONE", "-o", "window_padding_width=0", "sh", str(script)])
        score, report = self.rendered_score(doctor, done, shots=4)
        self.assertIn("pixels: halfblock (inside tmux and tmux's allow-passthrough is off", report)
        self.assertLess(score, 24)

    # The browser's full view: the photo as a gallery of one, Enter, screenshot, q, screenshot.
    # Keys reach the browser through ptyproxy.py (its own pty inside the terminal, fed from a
    # FIFO); its transcript says when the picture's bytes went out.

    def hold_output_after(self, transcript, pattern):
        """Makes ptyproxy stop passing the browser's output on after the next bytes that match
        `pattern` (a bytes regular expression), until the returned path is unlinked."""
        hold = Path(str(transcript) + ".hold")
        hold.write_bytes(pattern)
        self.addCleanup(lambda: hold.unlink(missing_ok=True))
        return hold

    def kitty_zoom_in_held_at_draft(self, keys, transcript, cols, rows):
        """Types + in kitty's full view and holds the browser's output after the zoom step's
        draft: the placement of the image on screen scaled by kitty to the area's `cols` x
        `rows - 1` cells (fails when none comes). Returns the transcript's length before the
        key, its bytes after it, the placement's pattern (group 1: the image id) and the hold
        file (unlink it to let the output go on)."""
        start = len(transcript.read_bytes())
        scaled = re.compile(rb"\x1b_Ga=p,i=(\d+),p=1,x=\d+,y=\d+,w=\d+,h=\d+,c=%d,r=%d,C=1,q=2\x1b\\" % (cols, rows - 1))
        hold = self.hold_output_after(transcript, scaled.pattern)
        os.write(keys, b"+")
        self.assertTrue(wait_until(lambda: scaled.search(transcript.read_bytes()[start:]), 10), "no scaled placement")
        return start, transcript.read_bytes()[start:], scaled, hold

    def browser_script(self, extra=(), image=PHOTO, env=""):
        vitrine = shlex.quote(binary())
        fifo = self.tmp / "keys"
        os.mkfifo(fifo)
        transcript, doctor, done = self.tmp / "transcript", self.tmp / "doctor.txt", self.tmp / "done"
        command = " ".join([vitrine, shlex.quote(str(image)), "--no-mouse", "--no-disk-cache"] + list(extra))
        proxy = shlex.quote(str(Path(__file__).resolve().parent / "ptyproxy.py"))
        path = self.tmp / "browse.sh"
        exports = "export %s\n" % env if env else ""
        path.write_text("printf '\\033[H\\033[2J'\n%s%s doctor > %s 2>&1\npython3 %s %s %s -- %s 2> %s\ntouch %s\nsleep 60\n" % (
            exports, vitrine, doctor, proxy, fifo, transcript, command, self.tmp / "browse.err", done))
        return path, fifo, transcript, doctor, done

    def browse_full_view(self, terminal_argv, marker, enough, threshold):
        script, fifo, transcript, doctor, done = self.browser_script()
        self.start_terminal(terminal_argv + ["sh", str(script)])
        self.assertTrue(wait_until(lambda: transcript.exists() and b"LadyBird" in transcript.read_bytes(), 30),
                        "the browser did not start: %s" % ((self.tmp / "browse.err").read_text()
                                                           if (self.tmp / "browse.err").exists() else ""))
        report = doctor.read_text()
        keys = os.open(str(fifo), os.O_WRONLY)
        self.addCleanup(os.close, keys)
        time.sleep(0.5)
        # When Enter opens the full view
        start = len(transcript.read_bytes())
        os.write(keys, b"\r")
        self.assertTrue(wait_until(lambda: marker in transcript.read_bytes()[start:], 20),
                        "no picture bytes after Enter\n%s" % report)
        cell = next(line for line in report.splitlines() if line.startswith("cell:"))
        cw, ch = (int(v) for v in cell.split()[1].split("x"))
        window = next(line for line in report.splitlines() if line.startswith("window:"))
        cols, rows = (int(v) for v in window.split()[1].split("x"))
        # The area is the screen above the status line; the picture is centred in it.
        size = fit(2560, 1600, cols * cw, (rows - 1) * ch)
        used_cols, used_rows = -(-size[0] // cw), -(-size[1] // ch)
        x0, y0 = (cols - used_cols) // 2 * cw, (rows - 1 - used_rows) // 2 * ch
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("\n  window %dx%d cells of %dx%d, picture %dx%d at %d,%d" % (cols, rows, cw, ch, size[0], size[1], x0, y0),
                  file=sys.stderr)
        expected = magick_rgb([str(PHOTO), "-resize", "%dx%d!" % size], *size)
        best = (0.0, 0, 0)
        for _ in range(12):
            time.sleep(0.25)
            shot = self.x.screenshot()
            best = max(best, best_psnr_near(shot, expected, size, x0, y0))
            if best[0] > enough:
                break
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("\n  full view PSNR %.1f dB at offset %d,%d" % best, file=sys.stderr)
        # Then the screen shows the photo's real pixels in the full view
        self.assertGreater(best[0], threshold, "PSNR %.1f dB in the full view\n%s" % (best[0], report))
        _, bx, by = best
        self.assertGreater(1 - dominant_share(shot, size, bx, by), 0.8, "the picture is mostly one colour")
        # When q goes back to the gallery, nothing of the picture stays on screen
        start = len(transcript.read_bytes())
        os.write(keys, b"q")
        self.assertTrue(wait_until(lambda: b"Ga=d" in transcript.read_bytes()[start:] or b"\x1b[" in
                                   transcript.read_bytes()[start:], 10))
        time.sleep(1.0)
        after = self.x.screenshot()
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            subprocess.run(["import", "-display", self.x.display, "-window", "root",
                            os.environ["VITRINE_PIXEL_SCORES"] + "/" + self.id().split(".")[-1] + "-after-q.png"])
        gone = psnr_at(after, expected, size, bx, by, step=2)
        self.assertLess(gone, 16, "the picture stayed after q (PSNR %.1f dB)" % gone)
        # The region is now mostly the terminal's background (the gallery's one row at the top).
        self.assertGreater(dominant_share(after, size, bx, by), 0.6)
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")
        return report

    def tmux_window_switch(self, focus_events):
        """kitty running tmux (allow-passthrough on) with the browser in window 0 and a shell's
        text in window 1: Enter shows the photo; select-window 1 takes it off the screen;
        select-window 0 puts it back by id (a=p, no pixels sent again); q leaves nothing."""
        script, fifo, transcript, doctor, done = self.browser_script()
        conf = self.tmp / "tmux.conf"
        conf.write_text("set -g status off\nset -g allow-passthrough on\nset -g focus-events %s\n"
                        % ("on" if focus_events else "off"))
        socket = "vitrine-switch-%d" % os.getpid()
        self.addCleanup(subprocess.run, ["tmux", "-L", socket, "kill-server"], stderr=subprocess.DEVNULL)
        outer = self.tmp / "tmux.sh"
        outer.write_text("exec tmux -L %s -f %s new-session 'sh %s'\n" % (socket, conf, script))
        self.start_terminal(["kitty", "--config", "NONE", "-o", "window_padding_width=0", "-o",
                             "remember_window_size=no", "-o", "initial_window_width=80c", "-o",
                             "initial_window_height=30c", "sh", str(outer)])
        self.assertTrue(wait_until(lambda: transcript.exists() and b"LadyBird" in transcript.read_bytes(), 30),
                        "the browser did not start: %s" % ((self.tmp / "browse.err").read_text()
                                                           if (self.tmp / "browse.err").exists() else ""))
        report = doctor.read_text()
        self.assertIn("tmux passthrough: yes", report)

        def tmux(*args):
            subprocess.run(["tmux", "-L", socket] + list(args), check=True, timeout=10)

        # Window 1: a shell's text, so the picture left over it would be plain to see.
        tmux("new-window", "-d", "sh -c 'for i in $(seq 1 40); do echo text line $i; done; sleep 60'")
        keys = os.open(str(fifo), os.O_WRONLY)
        self.addCleanup(os.close, keys)
        time.sleep(0.5)
        start = len(transcript.read_bytes())
        os.write(keys, b"\r")
        self.assertTrue(wait_until(lambda: b"\x1b_Ga=T" in transcript.read_bytes()[start:], 20), "no picture after Enter")
        cell = next(line for line in report.splitlines() if line.startswith("cell:"))
        cw, ch = (int(v) for v in cell.split()[1].split("x"))
        window = next(line for line in report.splitlines() if line.startswith("window:"))
        cols, rows = (int(v) for v in window.split()[1].split("x"))
        size = fit(2560, 1600, cols * cw, (rows - 1) * ch)
        used_cols, used_rows = -(-size[0] // cw), -(-size[1] // ch)
        x0, y0 = (cols - used_cols) // 2 * cw, (rows - 1 - used_rows) // 2 * ch
        expected = magick_rgb([str(PHOTO), "-resize", "%dx%d!" % size], *size)

        def score(shots=12, enough=40):
            # Centred in the area, or at the top: inside tmux 3.3 the passthrough lands at the
            # outer terminal's cursor, which tmux has not moved to the pane's yet (the
            # placement's row is not what this test is about).
            best = (0.0, x0, y0)
            for _ in range(shots):
                time.sleep(0.25)
                shot = self.x.screenshot()
                best = max([best] + [best_psnr_near(shot, expected, size, x0, y) for y in sorted({y0, 0})])
                if best[0] > enough:
                    break
            return best

        def save(label):
            if os.environ.get("VITRINE_PIXEL_SCORES"):
                subprocess.run(["import", "-display", self.x.display, "-window", "root", "%s/%s-%s.png" % (
                    os.environ["VITRINE_PIXEL_SCORES"], self.id().split(".")[-1], label)])

        shown = score()
        save("shown")
        self.assertGreater(shown[0], 35, "PSNR %.1f dB in the full view\n%s" % (shown[0], report))
        _, bx, by = shown

        # When another tmux window is selected
        sent = len(transcript.read_bytes())
        tmux("select-window", "-t", ":1")
        # Then the placement is deleted (its data kept) and the other window's text shows
        self.assertTrue(wait_until(lambda: b"a=d,d=i" in transcript.read_bytes()[sent:], 5),
                        "no placement deleted after the window switch")
        time.sleep(0.7)
        save("other-window")
        gone = psnr_at(self.x.screenshot(), expected, size, bx, by, step=2)
        self.assertLess(gone, 16, "the picture stayed over the other window (PSNR %.1f dB)" % gone)
        # When the browser's window is selected again
        back_at = len(transcript.read_bytes())
        tmux("select-window", "-t", ":0")
        # Then the picture is back, placed by id: no pixels sent again
        self.assertTrue(wait_until(lambda: b"a=p,i=" in transcript.read_bytes()[back_at:], 5),
                        "the picture was not placed again")
        back = score()
        save("back")
        self.assertGreater(back[0], 35, "PSNR %.1f dB after switching back" % back[0])
        self.assertNotIn(b"a=T", transcript.read_bytes()[back_at:])
        # And q leaves nothing, then quits
        os.write(keys, b"q")
        time.sleep(1.0)
        after = psnr_at(self.x.screenshot(), expected, size, bx, by, step=2)
        self.assertLess(after, 16, "the picture stayed after q (PSNR %.1f dB)" % after)
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")
        # Focus reporting was turned off again on the way out.
        self.assertIn(b"\x1b[?1004l", transcript.read_bytes())

    def test_full_view_kitty_tmux_window_switch_asks_tmux(self):
        # tmux's focus-events off (its default): the browser asks tmux while the picture is up.
        self.tmux_window_switch(focus_events=False)

    def test_full_view_kitty_tmux_window_switch_with_focus_events(self):
        # focus-events on: tmux sends the pane CSI O and CSI I; neither acts as a key.
        self.tmux_window_switch(focus_events=True)

    def test_full_view_kitty_graphics_in_kitty(self):
        report = self.browse_full_view(
            ["kitty", "--config", "NONE", "-o", "window_padding_width=0", "-o", "remember_window_size=no",
             "-o", "initial_window_width=80c", "-o", "initial_window_height=30c"], b"\x1b_Ga=T", enough=40, threshold=35)
        self.assertIn("pixels: kitty", report)

    def test_full_view_kitty_pans_by_placement(self):
        # kitty on the same host reads shared memory: regions go as t=s, one short command each
        out = self.kitty_pans()
        self.assertIn("kitty medium: shared-memory", out["report"])
        regions = re.findall(rb"\x1b_Ga=t,f=32,s=\d+,v=\d+,i=\d+,t=s,S=\d+,q=2;([A-Za-z0-9+/=]+)\x1b\\", out["bytes"])
        self.assertGreaterEqual(len(regions), 2, "the regions went through shared memory")
        first = out["bytes"].index(b"\x1b_Ga=t,f=32,")
        chunked = re.search(rb"\x1b_G([^;\x1b]*)m=1;", out["bytes"][first:])
        self.assertFalse(chunked, "a region went as base64 chunks: %r" % (chunked and chunked.group(1)))
        # and nothing is left behind in /dev/shm: kitty unlinked what it read, Vitrine the rest
        for name in regions:
            path = "/dev/shm" + base64.b64decode(name).decode()
            self.assertFalse(os.path.exists(path), "%s left behind" % path)

    def test_full_view_kitty_pans_direct_path(self):
        # VITRINE_KITTY_MEDIUM=direct forces the pty path (as over ssh): regions as base64 chunks
        out = self.kitty_pans(env="VITRINE_KITTY_MEDIUM=direct")
        self.assertIn("kitty medium: direct (VITRINE_KITTY_MEDIUM=direct)", out["report"])
        self.assertFalse(b",t=s" in out["bytes"], "shared memory used although direct was forced")
        region = re.search(rb"\x1b_Ga=t,f=24,s=\d+,v=\d+,i=\d+,q=2,m=1;", out["bytes"])
        self.assertTrue(region, "no region as a=t base64 chunks")
        self.assertTrue(b"\x1b_Gq=2,m=0;" in out["bytes"][region.start():], "no region's last base64 chunk")

    def kitty_pans(self, env=""):
        """The photo at 1:1 in kitty, panned inside its pan region and then across its edge, the
        screen scored after each; returns the doctor report and the transcript's bytes."""
        # Given the photo at 1:1 in the full view in kitty (80x30 cells)
        script, fifo, transcript, doctor, done = self.browser_script(env=env)
        self.start_terminal(["kitty", "--config", "NONE", "-o", "window_padding_width=0", "-o",
                             "remember_window_size=no", "-o", "initial_window_width=80c", "-o",
                             "initial_window_height=30c", "sh", str(script)])
        self.assertTrue(wait_until(lambda: transcript.exists() and b"LadyBird" in transcript.read_bytes(), 30),
                        "the browser did not start")
        report = doctor.read_text()
        self.assertIn("pixels: kitty", report)
        keys = os.open(str(fifo), os.O_WRONLY)
        self.addCleanup(os.close, keys)
        time.sleep(0.5)
        os.write(keys, b"\r")
        self.assertTrue(wait_until(lambda: b"\x1b_Ga=T" in transcript.read_bytes(), 20), "no picture after Enter")
        cw, ch = (int(v) for v in next(l for l in report.splitlines() if l.startswith("cell:")).split()[1].split("x"))
        cols, rows = (int(v) for v in next(l for l in report.splitlines() if l.startswith("window:")).split()[1].split("x"))
        area_w, area_h = cols * cw, (rows - 1) * ch
        W, H = 2560, 1600
        # Vitrine's viewport at 1:1 (Viewport.frame): the centre, clamped; an l moves it an
        # eighth of the columns.
        centre = [W / 2, H / 2]

        def clamp():
            for i, (size, half) in enumerate(((W, area_w / 2), (H, area_h / 2))):
                centre[i] = size / 2 if half * 2 >= size else min(max(centre[i], half), size - half)

        def region():
            w, h = min(W, area_w), min(H, area_h)
            x = min(max(0, math.floor(centre[0] - w / 2 + 0.5)), W - w)
            y = min(max(0, math.floor(centre[1] - h / 2 + 0.5)), H - h)
            return x, y, w, h

        def shows(label):
            x, y, w, h = region()
            used_c, used_r = -(-w // cw), -(-h // ch)
            x0, y0 = (cols - used_c) // 2 * cw, (rows - 1 - used_r) // 2 * ch
            expected = magick_rgb([str(PHOTO), "-crop", "%dx%d+%d+%d" % (w, h, x, y), "+repage"], w, h)
            best = (0.0, 0, 0)
            for _ in range(16):
                time.sleep(0.25)
                best = max(best, best_psnr_near(self.x.screenshot(), expected, (w, h), x0, y0))
                if best[0] > 40:
                    break
            if os.environ.get("VITRINE_PIXEL_SCORES"):
                subprocess.run(["import", "-display", self.x.display, "-window", "root",
                                os.environ["VITRINE_PIXEL_SCORES"] + "/pan-%s.png" % label.replace(" ", "-")])
                print("\n  %s: region %d,%d %dx%d PSNR %.1f dB" % ((label, x, y, w, h) + best[:1]), file=sys.stderr)
            self.assertGreater(best[0], 35, "%s: PSNR %.1f dB for the crop %d,%d %dx%d" % (label, best[0], x, y, w, h))

        # When = zooms to 1:1 (the full-size decode comes, then its pan region is sent); = is
        # ignored while the decode loads (the thumbnail is shown), so it is typed until the
        # status line says 100%
        for _ in range(20):
            mark = len(transcript.read_bytes())
            os.write(keys, b"=")
            if wait_until(lambda: b"100%" in transcript.read_bytes()[mark:], 1):
                break
        clamp()
        shows("1:1")
        # And l pans three times
        start = len(transcript.read_bytes())
        for _ in range(3):
            os.write(keys, b"l")
            centre[0] += max(1, cols // 8) * cw
            clamp()
            time.sleep(0.2)
        # Then each step is a placement of a part of the image kitty has (no pixels sent) and
        # the screen shows the right crop
        self.assertTrue(wait_until(lambda: transcript.read_bytes()[start:].count(b"a=p,i=") >= 3, 10),
                        "no placements for the pan steps")
        steps = transcript.read_bytes()[start:]
        self.assertNotIn(b"a=T", steps, "a pan step inside the region sent pixels")
        self.assertIn(b",x=", steps)
        shows("3 steps")
        # When l pans on past the region (a step an eighth of the area, the region a whole
        # area beyond it): a new region is sent and the screen shows the right crop
        start = len(transcript.read_bytes())
        for _ in range(10):
            os.write(keys, b"l")
            centre[0] += max(1, cols // 8) * cw
            clamp()
            time.sleep(0.1)
        # (A region goes out transmit-only, a=t, in slices between keys, then is placed.)
        self.assertTrue(wait_until(lambda: re.search(rb"\x1b_Ga=[tT],", transcript.read_bytes()[start:]), 10),
                        "no new region")
        shows("13 steps")
        os.write(keys, b"q")
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")
        return {"report": report, "bytes": transcript.read_bytes()}

    XTERM_VT340 = ["xterm", "-ti", "vt340", "-xrm", "XTerm*decTerminalID: vt340", "-xrm",
                   "XTerm*numColorRegisters: 256", "-geometry", "80x30", "-e"]

    KITTY_80x30 = ["kitty", "--config", "NONE", "-o", "window_padding_width=0", "-o", "remember_window_size=no",
                   "-o", "initial_window_width=80c", "-o", "initial_window_height=30c"]

    def open_full_view(self, terminal_argv, marker, env="", image=PHOTO):
        """Starts the browser on `image` (the photo) in a terminal (`env`: exports for it) and
        opens its full view (Enter, until `marker`, the protocol's first bytes, is in the
        transcript). Returns (keys fd, transcript path, doctor's report, done path, (columns,
        rows), (cell width, height))."""
        script, fifo, transcript, doctor, done = self.browser_script(env=env, image=image)
        self.start_terminal(terminal_argv + ["sh", str(script)])
        name = Path(image).stem.encode()
        self.assertTrue(wait_until(lambda: transcript.exists() and name in transcript.read_bytes(), 30),
                        "the browser did not start")
        report = doctor.read_text()
        keys = os.open(str(fifo), os.O_WRONLY)
        self.addCleanup(os.close, keys)
        time.sleep(0.5)
        os.write(keys, b"\r")
        self.assertTrue(wait_until(lambda: marker in transcript.read_bytes(), 20), "no picture after Enter\n%s" % report)
        cell = next(l for l in report.splitlines() if l.startswith("cell:")).split()[1].split("x")
        window = next(l for l in report.splitlines() if l.startswith("window:")).split()[1].split("x")
        return keys, transcript, report, done, tuple(int(v) for v in window), tuple(int(v) for v in cell)

    def zoom_to_actual_size(self, keys, transcript):
        """Types = until the status line says 100% (= is ignored while the decode loads)."""
        for _ in range(20):
            mark = len(transcript.read_bytes())
            os.write(keys, b"=")
            if wait_until(lambda: b"100%" in transcript.read_bytes()[mark:], 1):
                return
        self.fail("the full view did not zoom to 1:1")

    def assert_shows_crop(self, label, x, y, w, h, window, cell, threshold, enough):
        """The screen shows the photo's crop x,y w×h at 1:1, centred above the status line."""
        (cols, rows), (cw, ch) = window, cell
        used_c, used_r = -(-w // cw), -(-h // ch)
        x0, y0 = (cols - used_c) // 2 * cw, (rows - 1 - used_r) // 2 * ch
        expected = magick_rgb([str(PHOTO), "-crop", "%dx%d+%d+%d" % (w, h, x, y), "+repage"], w, h)
        best = (0.0, 0, 0)
        for _ in range(16):
            time.sleep(0.25)
            best = max(best, best_psnr_near(self.x.screenshot(), expected, (w, h), x0, y0))
            if best[0] > enough:
                break
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("\n  %s: region %d,%d %dx%d PSNR %.1f dB" % ((label, x, y, w, h) + best[:1]), file=sys.stderr)
        self.assertGreater(best[0], threshold, "%s: PSNR %.1f dB for the crop %d,%d %dx%d" % (label, best[0], x, y, w, h))

    def test_full_view_sixel_pans_in_xterm_vt340(self):
        # Given the photo at 1:1 in the full view in xterm -ti vt340 (80x30 cells)
        keys, transcript, report, done, window, cell = self.open_full_view(self.XTERM_VT340, b"\x1bP")
        self.assertIn("pixels: sixel", report)
        (cols, rows), (cw, ch) = window, cell
        W, H = 2560, 1600
        w, h = min(W, cols * cw), min(H, (rows - 1) * ch)
        mark = len(transcript.read_bytes())
        self.zoom_to_actual_size(keys, transcript)
        x, y = (W - w + 1) // 2, (H - h + 1) // 2
        # (The step's picture from the pan region, then, 250 ms after it, the settled one: two
        # sixels. Main before the region scored 35.0 dB here, the region's step alone 33.4.)
        self.assertTrue(wait_until(lambda: transcript.read_bytes()[mark:].count(b"\x1bP") >= 2, 10), "no settled 1:1")
        time.sleep(1.0)
        self.assert_shows_crop("1:1 settled", x, y, w, h, window, cell, threshold=34.9, enough=36)
        # When l pans three times (an eighth of the columns each, 100 ms apart: no settle
        # between them)
        start = len(transcript.read_bytes())
        for _ in range(3):
            os.write(keys, b"l")
            x = min(W - w, x + max(1, cols // 8) * cw)
            time.sleep(0.1)
        self.assertTrue(wait_until(lambda: transcript.read_bytes()[start:].count(b"\x1bP") >= 1, 10), "no sixel for the pans")
        # Then, past the settle, the screen shows the crop panned to with a palette of its own
        # (main scored 34.6 dB, the region's step 33.8), drawn over the step, and no picture
        # blanked the cells first (ECH of the area's width)
        self.assertTrue(wait_until(lambda: transcript.read_bytes()[start:].count(b"\x1bP") >= 2, 10), "no settled picture")
        time.sleep(1.0)
        self.assert_shows_crop("3 steps settled", x, y, w, h, window, cell, threshold=34.5, enough=36)
        self.assertNotIn(b"\x1b[%dX" % (-(-w // cw)), transcript.read_bytes()[start:], "a picture blanked the cells")
        os.write(keys, b"q")
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")

    def test_full_view_sixel_zoom_step_drafts_from_the_region(self):
        # Given the photo at 1:1 in the full view in xterm -ti vt340 (80x30 cells), settled
        keys, transcript, report, done, window, cell = self.open_full_view(self.XTERM_VT340, b"\x1bP")
        (cols, rows), (cw, ch) = window, cell
        area_w, area_h = cols * cw, (rows - 1) * ch
        mark = len(transcript.read_bytes())
        self.zoom_to_actual_size(keys, transcript)
        self.assertTrue(wait_until(lambda: transcript.read_bytes()[mark:].count(b"\x1bP") >= 2, 10), "no settled 1:1")
        time.sleep(1.0)
        # When + zooms to 150%: the first sixel is the draft scaled from the 1:1 region's
        # indices; the browser's output is held there (ptyproxy), before the settled picture
        start = len(transcript.read_bytes())
        hold = self.hold_output_after(transcript, rb"\x1b\\")
        os.write(keys, b"+")
        self.assertTrue(wait_until(lambda: b"\x1b\\" in transcript.read_bytes()[start:].partition(b"\x1bP")[2], 10),
                        "no sixel after +")
        (x, y, w, h), shown, expected = centre_at_150(area_w, area_h)
        time.sleep(0.5)
        self.assertEqual(transcript.read_bytes()[start:].count(b"\x1bP"), 1, "the settled picture came before the screenshot")
        draft = best_psnr_near(self.x.screenshot(), expected, shown, 0, 0)
        # Then the screen shows the crop at 150%, coarser than the settled picture
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("\n  sixel draft at 150%%: region %d,%d %dx%d PSNR %.1f dB" % (x, y, w, h, draft[0]), file=sys.stderr)
        self.assertGreater(draft[0], 26, "the draft: PSNR %.1f dB for the crop %d,%d %dx%d at 150%%" % (draft[0], x, y, w, h))
        # And once its output goes on, the settled picture (resampled from the decode, its own
        # palette) is drawn over it
        hold.unlink()
        self.assertTrue(wait_until(lambda: transcript.read_bytes()[start:].count(b"\x1bP") >= 2, 10), "no settled 150%")
        time.sleep(1.0)
        settled = best_psnr_near(self.x.screenshot(), expected, shown, 0, 0)
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("  sixel settled at 150%%: PSNR %.1f dB" % settled[0], file=sys.stderr)
        self.assertGreater(settled[0], max(32, draft[0]), "the settled 150%%: PSNR %.1f dB" % settled[0])
        os.write(keys, b"q")
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")

    def test_full_view_kitty_picture_after_a_cut_region(self):
        # Given the photo at 1:1 in the full view in kitty (80x30 cells), regions sent directly
        # (base64 in slices, as over ssh: only that path can cut a region part-way)
        keys, transcript, report, done, (cols, rows), (cw, ch) = self.open_full_view(
            self.KITTY_80x30, b"\x1b_Ga=T", env="VITRINE_KITTY_MEDIUM=direct")
        os.write(keys, b"=")
        self.assertTrue(wait_until(lambda: b"100%" in transcript.read_bytes(), 10), "no 1:1")
        time.sleep(5)
        # When + zooms (a new pan region goes out, megabytes of a=t chunks) and 0 fits before
        # it is all out: the region is cut after a whole chunk
        start = len(transcript.read_bytes())
        os.write(keys, b"+")
        self.assertTrue(wait_until(lambda: b"\x1b_Ga=t," in transcript.read_bytes()[start:], 20), "no region")
        os.write(keys, b"0")
        cut = re.compile(rb"\x1b_Gq=2,m=0\x1b\\\x1b_Ga=d,d=I,i=\d+")
        self.assertTrue(wait_until(lambda: cut.search(transcript.read_bytes()[start:]), 20), "the region was not cut")
        # Then the fit picture that follows is on screen (kitty 0.26 keeps a load open across a
        # delete: without the empty last chunk that ends it, the next image's chunks went into
        # the cut one and nothing showed)
        size = fit(2560, 1600, cols * cw, (rows - 1) * ch)
        used_cols, used_rows = -(-size[0] // cw), -(-size[1] // ch)
        x0, y0 = (cols - used_cols) // 2 * cw, (rows - 1 - used_rows) // 2 * ch
        expected = magick_rgb([str(PHOTO), "-resize", "%dx%d!" % size], *size)
        best = (0.0, 0, 0)
        for _ in range(16):
            time.sleep(0.25)
            best = max(best, best_psnr_near(self.x.screenshot(), expected, size, x0, y0))
            if best[0] > 40:
                break
        self.assertGreater(best[0], 35, "PSNR %.1f dB for the fit after a cut region" % best[0])
        os.write(keys, b"q")
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")

    def test_full_view_kitty_zoom_step_drafts_from_the_region(self):
        # Given the photo at 1:1 in the full view in kitty (80x30 cells), regions sent directly
        # (base64 in slices: the region at a new zoom comes after the draft in the output)
        keys, transcript, report, done, (cols, rows), (cw, ch) = self.open_full_view(
            self.KITTY_80x30, b"\x1b_Ga=T", env="VITRINE_KITTY_MEDIUM=direct")
        self.zoom_to_actual_size(keys, transcript)
        time.sleep(5)
        # When + zooms to 150%: the region on screen is placed again at once with the new
        # view's part scaled by kitty to the view's cells (c=, r=); the browser's output is held
        # there (ptyproxy), before the region at 150% is out
        area_w, area_h = cols * cw, (rows - 1) * ch
        start, drafted, scaled, hold = self.kitty_zoom_in_held_at_draft(keys, transcript, cols, rows)
        draft_id = scaled.search(drafted).group(1)
        (x, y, w, h), shown, expected = centre_at_150(area_w, area_h)
        time.sleep(0.5)
        draft = best_psnr_near(self.x.screenshot(), expected, shown, 0, 0)
        self.assertFalse(re.search(rb"\x1b_Ga=p,i=(?!%s,)" % draft_id, transcript.read_bytes()[start + len(drafted):]),
                         "the region at 150% was placed before the screenshot")
        # Then the screen shows the crop at 150% (kitty's scaling of the 1:1 region)
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("\n  draft at 150%%: region %d,%d %dx%d PSNR %.1f dB" % (x, y, w, h, draft[0]), file=sys.stderr)
        self.assertGreater(draft[0], 30, "the draft: PSNR %.1f dB for the crop %d,%d %dx%d at 150%%" % (draft[0], x, y, w, h))
        # And once its output goes on, the region at 150% (resampled from the decode) is placed
        # over it
        hold.unlink()
        exact = re.compile(rb"\x1b_Ga=p,i=(?!%s,)\d+,p=1,x=\d+,y=\d+,w=\d+,h=\d+,C=1" % draft_id)
        self.assertTrue(wait_until(lambda: exact.search(transcript.read_bytes()[start:]), 30), "no region at 150%")
        best = (0.0, 0, 0)
        for _ in range(16):
            time.sleep(0.25)
            best = max(best, best_psnr_near(self.x.screenshot(), expected, shown, 0, 0))
            if best[0] > 40:
                break
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("  region at 150%%: PSNR %.1f dB" % best[0], file=sys.stderr)
        self.assertGreater(best[0], 33, "the region at 150%%: PSNR %.1f dB" % best[0])
        os.write(keys, b"q")
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")

    def test_full_view_kitty_zoom_step_draft_into_other_cells(self):
        # Given a 6000x500 panorama at 1:1 in the full view in kitty (80x30 cells: 500 pixels
        # are rows 2-26 of the 29 above the status line), regions sent directly
        wide = self.tmp / "wide.jpg"
        subprocess.run(["convert", str(PHOTO), "-resize", "6000x500!", "-quality", "95", str(wide)], check=True)
        keys, transcript, report, done, (cols, rows), (cw, ch) = self.open_full_view(
            self.KITTY_80x30, b"\x1b_Ga=T", env="VITRINE_KITTY_MEDIUM=direct", image=wide)
        self.zoom_to_actual_size(keys, transcript)
        time.sleep(5)
        # When + zooms to 150% (the picture now fills all 29 rows); the browser's output is held
        # after the draft (ptyproxy)
        # Then the region on screen is placed at once in the new cells, scaled by kitty (it
        # was taken off before the refresh: blank cells until 6.5 MB of region were out)
        _, seen, scaled, hold = self.kitty_zoom_in_held_at_draft(keys, transcript, cols, rows)
        self.assertNotIn(b"a=d,", seen[:scaled.search(seen).start()], "the image was deleted first")
        area_w, area_h = cols * cw, (rows - 1) * ch
        (x, y, w, h), shown, expected = centre_at_150(area_w, area_h, 6000, 500, image=wide)
        time.sleep(0.5)
        draft = best_psnr_near(self.x.screenshot(), expected, shown, 0, 0)
        if os.environ.get("VITRINE_PIXEL_SCORES"):
            print("\n  draft at 150%%: region %d,%d %dx%d PSNR %.1f dB at %d,%d" % ((x, y, w, h) + draft), file=sys.stderr)
        self.assertGreater(draft[0], 30, "the draft: PSNR %.1f dB for the crop %d,%d %dx%d at 150%%" % (draft[0], x, y, w, h))
        hold.unlink()
        os.write(keys, b"q")
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")

    def test_full_view_kitty_ctrl_l_sends_the_picture_again(self):
        # Given the photo in the full view in kitty (80x30 cells), at fit and then at 1:1
        keys, transcript, report, done, (cols, rows), (cw, ch) = self.open_full_view(self.KITTY_80x30, b"\x1b_Ga=T")
        size = fit(2560, 1600, cols * cw, (rows - 1) * ch)
        used_cols, used_rows = -(-size[0] // cw), -(-size[1] // ch)
        x0, y0 = (cols - used_cols) // 2 * cw, (rows - 1 - used_rows) // 2 * ch
        fitted = magick_rgb([str(PHOTO), "-resize", "%dx%d!" % size], *size)
        W, H = 2560, 1600
        w, h = min(W, cols * cw), min(H, (rows - 1) * ch)
        x, y = (W - w + 1) // 2, (H - h + 1) // 2
        actual = magick_rgb([str(PHOTO), "-crop", "%dx%d+%d+%d" % (w, h, x, y), "+repage"], w, h)

        def shows(expected, size, x0, y0):
            best = (0.0, 0, 0)
            for _ in range(16):
                time.sleep(0.25)
                best = max(best, best_psnr_near(self.x.screenshot(), expected, size, x0, y0))
                if best[0] > 40:
                    break
            return best[0]

        time.sleep(1.0)
        self.assertGreater(shows(fitted, size, x0, y0), 35, "the fit before ^L")
        for label, expected, shape, at in (("fit", fitted, size, (x0, y0)), ("1:1", actual, (w, h), (0, 0))):
            if label == "1:1":
                self.zoom_to_actual_size(keys, transcript)
                time.sleep(3.0)
                self.assertGreater(shows(expected, shape, *at), 35, "1:1 before ^L")
            # When ^L repaints the screen (curses clears it with ED 2, which deletes kitty's
            # images with their data)
            os.write(keys, b"\x0c")
            time.sleep(1.0)
            # Then the picture is on screen again (placed again by id, kitty 0.26 showed nothing)
            score = shows(expected, shape, *at)
            if os.environ.get("VITRINE_PIXEL_SCORES"):
                print("\n  %s after ^L: PSNR %.1f dB" % (label, score), file=sys.stderr)
            self.assertGreater(score, 35, "%s after ^L: PSNR %.1f dB" % (label, score))
        os.write(keys, b"q")
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")

    def test_full_view_sixel_in_xterm_vt340(self):
        report = self.browse_full_view(
            ["xterm", "-ti", "vt340", "-xrm", "XTerm*decTerminalID: vt340", "-xrm", "XTerm*numColorRegisters: 256",
             "-geometry", "80x30", "-e"], b"\x1bP", enough=27, threshold=25)
        self.assertIn("pixels: sixel", report)

    def test_full_view_sixel_next_item_takes_the_old_picture_off_first(self):
        # Given a gallery of a flat two-colour PNG and a heavy noise GIF (640x480 each, so the
        # GIF's thumbnail preview would fit the same cells), the PNG in the full view in xterm
        # -ti vt340
        gallery = self.tmp / "gal"
        gallery.mkdir()
        subprocess.run(["convert", "-size", "320x480", "xc:#00924a", "-size", "320x480", "xc:#ce2b37", "+append",
                        str(gallery / "a-flat.png")], check=True)
        noise = ["(", "-size", "640x480", "xc:gray", "+noise", "Random", ")"]
        subprocess.run(["convert", "-delay", "10"] + noise * 6 + ["-loop", "0", str(gallery / "b-noise.gif")], check=True)
        script, fifo, transcript, doctor, done = self.browser_script(image=gallery)
        self.start_terminal(self.XTERM_VT340 + ["sh", str(script)])
        self.assertTrue(wait_until(lambda: transcript.exists() and b"b-noise" in transcript.read_bytes(), 30),
                        "the browser did not start")
        keys = os.open(str(fifo), os.O_WRONLY)
        self.addCleanup(os.close, keys)
        time.sleep(1.0)
        os.write(keys, b"\r")
        self.assertTrue(wait_until(lambda: b"\x1bP" in transcript.read_bytes(), 20), "no picture after Enter")
        time.sleep(1.0)
        # When n steps to the GIF
        start = len(transcript.read_bytes())
        os.write(keys, b"n")
        self.assertTrue(wait_until(lambda: b"\x1bP" in transcript.read_bytes()[start:], 30), "no picture after n")
        after = transcript.read_bytes()[start:]
        # Then the PNG's cells are blanked (ECH) before any picture of the GIF is drawn (not
        # left on screen under the new status line until the GIF's first sixel frame is encoded)
        # (Vitrine's blanking: save the cursor, one ECH per row of the picture's cells, restore)
        ech = re.search(rb"\x1b7(?:\x1b\[\d+;\d+H\x1b\[\d+X){5,}\x1b8", after)
        self.assertIsNotNone(ech, "the old picture was never taken off")
        self.assertLess(ech.start(), after.index(b"\x1bP"), "the next picture was drawn over the old one")
        os.write(keys, b"q")
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")

    def test_full_view_animation_in_kitty(self):
        # Given an animated GIF (48x24: red, green, blue frames of 400 ms) in the full view in
        # kitty, whose frames are kept in the terminal after the first loop
        gif = Path(__file__).resolve().parent.parent / "Fixtures" / "images" / "animated-rgb.gif"
        script, fifo, transcript, doctor, done = self.browser_script(image=gif)
        self.start_terminal(["kitty", "--config", "NONE", "-o", "window_padding_width=0", "-o",
                             "remember_window_size=no", "-o", "initial_window_width=80c", "-o",
                             "initial_window_height=30c", "sh", str(script)])
        self.assertTrue(wait_until(lambda: transcript.exists() and b"animated-rgb" in transcript.read_bytes(), 30),
                        "the browser did not start")
        keys = os.open(str(fifo), os.O_WRONLY)
        self.addCleanup(os.close, keys)
        time.sleep(0.5)
        os.write(keys, b"\r")
        self.assertTrue(wait_until(lambda: b"\x1b_Ga=T" in transcript.read_bytes(), 20), "no picture after Enter")

        frames = {"red": (255, 0, 0), "green": (0, 200, 0), "blue": (0, 0, 255)}

        def counts(shot):
            # Pixels near each frame's colour, sampled every 4th pixel both ways (the frame is
            # 48x24 pixels: 72 samples).
            found = dict.fromkeys(frames, 0)
            for y in range(0, SCREEN[1], 4):
                row = y * SCREEN[0] * 3
                for x in range(0, SCREEN[0], 4):
                    j = row + 3 * x
                    r, g, b = shot[j], shot[j + 1], shot[j + 2]
                    for name, (fr, fg, fb) in frames.items():
                        if abs(r - fr) < 40 and abs(g - fg) < 40 and abs(b - fb) < 40:
                            found[name] += 1
            return found

        def colour():
            found = counts(self.x.screenshot())
            name = max(found, key=found.get)
            return name if found[name] > 30 else None

        # Then over 3 s (more than two loops) the screen shows all three frames, in order
        seen = []
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            c = colour()
            if c and (not seen or seen[-1] != c):
                seen.append(c)
            time.sleep(0.05)
        self.assertEqual(set(seen), {"red", "green", "blue"}, "frames seen: %s" % seen)
        order = ["red", "green", "blue"]
        for a, b in zip(seen, seen[1:]):
            self.assertEqual(order[(order.index(a) + 1) % 3], b, "frame order: %s" % seen)
        # And the second loop placed kept frames instead of sending them again
        self.assertIn(b"a=p,i=", transcript.read_bytes())
        # When a pauses: the same frame for 1.5 s
        os.write(keys, b"a")
        time.sleep(0.5)
        paused = {colour() for _ in range(6) if time.sleep(0.25) is None}
        self.assertEqual(len(paused), 1, "the picture changed while paused: %s" % paused)
        self.assertIn(next(iter(paused)), order)
        # When q goes back, no frame is left on screen
        os.write(keys, b"q")
        time.sleep(1.0)
        left = counts(self.x.screenshot())
        self.assertLess(left["green"] + left["blue"], 10, "a frame stayed after q: %s" % left)
        os.write(keys, b"q")
        self.assertTrue(wait_until(done.exists, 10), "the browser did not quit")


def centre_at_150(area_w, area_h, W=2560, H=1600, image=PHOTO):
    """`image`'s (W x H) view at 150% from its centre in an area of `area_w` x `area_h` pixels, as
    Viewport.frame has it (the source region of the area / 1.5 around the centre): that region
    (x, y, w, h), its size on screen, and ImageMagick's crop of it enlarged to that size."""
    w, h = area_w * 2 // 3, area_h * 2 // 3
    x, y = math.floor(W / 2 - w / 2 + 0.5), math.floor(H / 2 - h / 2 + 0.5)
    shown = (min(area_w, math.floor(w * 1.5 + 0.5)), min(area_h, math.floor(h * 1.5 + 0.5)))
    expected = magick_rgb([str(image), "-crop", "%dx%d+%d+%d" % (w, h, x, y), "+repage", "-resize",
                           "%dx%d!" % shown], *shown)
    return (x, y, w, h), shown, expected


def best_psnr_near(screen, expected, size, x0, y0, search=12):
    """The best PSNR for offsets within `search` pixels of (x0, y0): coarse, then exact."""
    coarse = max((psnr_at(screen, expected, size, x, y, step=6), x, y)
                 for y in range(max(0, y0 - search), y0 + search + 1, 2)
                 for x in range(max(0, x0 - search), x0 + search + 1, 2))
    _, x, y = coarse
    return max((psnr_at(screen, expected, size, xx, yy, step=2), xx, yy)
               for yy in range(y - 2, y + 3) for xx in range(x - 2, x + 3) if xx >= 0 and yy >= 0)


def dominant_share(screen, size, x0, y0):
    """The share of the region's pixels (sampled every 4th) that have its most common colour."""
    counts = {}
    n = 0
    for y in range(0, size[1], 4):
        for x in range(0, size[0], 4):
            j = ((y0 + y) * SCREEN[0] + x0 + x) * 3
            key = bytes(screen[j:j + 3])
            counts[key] = counts.get(key, 0) + 1
            n += 1
    return max(counts.values()) / max(1, n)


if __name__ == "__main__":
    unittest.main()
