"""End-to-end test of iTerm2 pan steps: the real binary on a pseudo-terminal (120x40 cells of
10x20 pixels, `--pixels iterm`, nothing answering), a real photo (mate-backgrounds'
LadyBird.jpg, 2560x1600) at 1:1 with its full-size decode. A pan step goes out as one OSC 1337
File= sequence carrying a JPEG, and once the keys stop the same cells get the lossless PNG of
the same pixels: one more sequence, no sooner than the settle delay (250 ms) after the key, then
nothing. ImageMagick decodes both files. Outcome checks on the bytes; the only time checked is
the settle's lower bound."""

import base64
import os
import re
import select
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase, binary  # noqa: E402
from test_kitty_slices import PtyBrowser  # noqa: E402

PHOTO = Path("/usr/share/backgrounds/mate/nature/LadyBird.jpg")  # 2560x1600
# The cursor move, then one inline image: its arguments and base64 file.
SEQUENCE = re.compile(rb"\x1b\[(\d+);(\d+)H\x1b\]1337;File=([^:\x07]*):([A-Za-z0-9+/=]*)\x07")


def decode_rgb(data, width, height):
    """The file `data` (any format ImageMagick reads) as width*height*3 bytes of RGB."""
    out = subprocess.run(["convert", "-", "-depth", "8", "rgb:-"], input=data, capture_output=True, check=True,
                         timeout=30).stdout
    if len(out) != width * height * 3:
        raise AssertionError("convert gave %d bytes, wanted %dx%dx3" % (len(out), width, height))
    return out


def psnr(a, b, step=7):
    """PSNR (dB) of two RGB byte strings of one size, over every `step`th byte."""
    n, total = 0, 0
    for i in range(0, len(a), step):
        d = a[i] - b[i]
        total += d * d
        n += 1
    return float("inf") if total == 0 else 10 * __import__("math").log10(255 * 255 * n / total)


class ITermPanTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        if not PHOTO.exists():
            self.fail("%s is missing: install mate-backgrounds" % PHOTO)

    def test_full_view_iterm_pixels_pan_step_is_jpeg_then_the_png_once_keys_stop(self):
        # Given the full view at 1:1 with its full-size decode, in iTerm2 images, all drawn and read
        env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8",
                   XDG_CACHE_HOME=str(self.cache), XDG_CONFIG_HOME=str(self.tmp / "config"), HOME=str(self.tmp))
        env.pop("TMUX", None)
        b = PtyBrowser([binary(), str(PHOTO), "--no-disk-cache", "--no-mouse", "--pixels", "iterm"], env)
        self.addCleanup(b.kill)
        b.read_until(lambda s: b"H help" in s, 20, "the gallery's status line")
        b.key(b"\r")
        b.read_until(lambda s: b"fit " in s, 20, "the full view at fit")
        b.key(b"=")
        for _ in range(60):
            b.read_for(0.5)
            mark = len(b.buf)
            b.key(b"\x0c")
            b.read_until(lambda s: b"of 2560x1600" in s, 20, "the status line after ^L", mark)
            b.read_for(0.5)
            if b"of 2560x1600 \xe2\x80\xa6" not in b.buf[mark:]:
                break
        else:
            self.fail("no full-size decode")
        b.read_for(1.5)

        # When l pans a step and no key follows for 2 s (each read's arrival time kept)
        mark = len(b.buf)
        t0 = time.monotonic()
        b.key(b"l")
        arrivals = []
        while time.monotonic() < t0 + 2.0:
            if select.select([b.fd], [], [], 0.02)[0]:
                b.buf += os.read(b.fd, 1 << 20)
                arrivals.append((len(b.buf), time.monotonic() - t0))
        out = bytes(b.buf[mark:])
        found = list(SEQUENCE.finditer(out))

        # Then two pictures came: the step's JPEG, then the PNG, at the same cell, the same size
        self.assertEqual(len(found), 2, "pictures after the step: %d" % len(found))
        files, sizes = [], []
        for m in found:
            args = dict(kv.split(b"=", 1) for kv in m.group(3).split(b";"))
            data = base64.b64decode(m.group(4))
            self.assertEqual(args[b"inline"], b"1")
            self.assertEqual(args[b"preserveAspectRatio"], b"0")
            self.assertEqual(int(args[b"size"]), len(data))
            files.append(data)
            sizes.append((args[b"width"], args[b"height"], m.group(1), m.group(2)))
        self.assertTrue(files[0].startswith(b"\xff\xd8\xff"), "the step is a JPEG")
        self.assertTrue(files[1].startswith(b"\x89PNG\r\n\x1a\n"), "then a PNG")
        self.assertEqual(sizes[0], sizes[1])
        self.assertEqual(sizes[0][:2], (b"1200px", b"780px"))
        self.assertLess(len(files[0]), len(files[1]) // 3, "the JPEG is a fraction of the PNG")
        # and the PNG ended no sooner than the settle delay after the key
        png_end = mark + found[1].end()
        png_time = next(t for end, t in arrivals if end >= png_end)
        self.assertGreaterEqual(png_time, 0.25)
        # and both show the same pixels, the JPEG within its loss (ImageMagick decodes them)
        jpeg = decode_rgb(files[0], 1200, 780)
        png = decode_rgb(files[1], 1200, 780)
        self.assertGreater(psnr(jpeg, png), 38)
        # and nothing is drawn after the PNG (the settle happens once)
        self.assertNotIn(b"\x1b]1337;", out[found[1].end():])
        status = b.quit()
        self.assertTrue(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "exit status %r" % status)


if __name__ == "__main__":
    unittest.main()
