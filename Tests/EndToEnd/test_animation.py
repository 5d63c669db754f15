"""End-to-end test of animation in the full view, in half blocks inside tmux: an animated GIF
(Tests/Fixtures/images/animated-rgb.gif: 48x24, red, green, blue frames of 400 ms) as a
gallery of one; the picture changes between frames while it plays, stops changing when `a`
pauses it, and plays again after a second `a`. And a 300-frame GIF (made with Pillow) starts
playing before its last frame is decoded."""

import re
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import REPO, E2ETestCase  # noqa: E402

GIF = REPO / "Tests" / "Fixtures" / "images" / "animated-rgb.gif"
# The frames' colours as tmux reports them in truecolor SGR (38;2 / 48;2).
COLOURS = {"red": "255;0;0", "green": "0;200;0", "blue": "0;0;255"}


def colours_on(screen):
    """The frame colours found in the image area (every line but the status line)."""
    text = "\n".join(screen[:-1])
    return {name for name, sgr in COLOURS.items() if re.search(r"[34]8;2;%s[m;]" % sgr, text)}


class AnimationTests(E2ETestCase):
    def watch(self, term, seconds):
        """The distinct pictures (image area with escapes) seen over `seconds`, in order."""
        seen = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            picture = tuple(term.capture(escapes=True)[:-1])
            if not seen or seen[-1] != picture:
                seen.append(picture)
            time.sleep(0.03)
        return seen

    def test_plays_pauses_and_resumes_in_half_blocks(self):
        # Given the full view of a 3-frame GIF in an 80x24 tmux, in half blocks
        term = self.launch([str(GIF), "--no-disk-cache", "--pixels", "halfblock"], width=80, height=24)
        self.wait_started(term)
        term.keys("Enter")
        term.wait_for(lambda lines: "▶ 3 frames" in lines[-1], 10, "the animation playing")

        # Then over 2 s (five frames of 400 ms) the picture changes, through all three colours
        seen = self.watch(term, 2.0)
        self.assertGreaterEqual(len(seen), 3, "the picture did not change between frames")
        # (a capture may catch tmux half way through a frame's cells: only whole frames count)
        whole = [c for c in (colours_on(list(p) + [""]) for p in seen) if len(c) == 1]
        sequence = [next(iter(c)) for i, c in enumerate(whole) if i == 0 or c != whole[i - 1]]
        self.assertEqual(set(sequence), {"red", "green", "blue"}, "frames seen: %s" % sequence)
        # Frames come in the file's order: red, green, blue, red, ...
        order = ["red", "green", "blue"]
        for a, b in zip(sequence, sequence[1:]):
            self.assertEqual(order[(order.index(a) + 1) % 3], b, "frame order: %s" % sequence)

        # When a pauses it: the status line says paused on which frame, and for 1.5 s (almost
        # four frames' time) nothing changes
        term.keys("a")
        lines = term.wait_for(lambda lines: re.search(r"⏸ [123]/3", lines[-1]), 5, "paused")
        paused = self.watch(term, 1.5)
        self.assertEqual(len(paused), 1, "the picture changed while paused")
        frame = int(re.search(r"⏸ ([123])/3", lines[-1]).group(1))
        self.assertEqual(colours_on(list(paused[0]) + [""]), {order[frame - 1]})

        # And a second a plays again
        term.keys("a")
        term.wait_for(lambda lines: "▶ 3 frames" in lines[-1], 5, "playing again")
        self.assertGreaterEqual(len(self.watch(term, 1.5)), 2, "the picture did not change after resuming")

        # Zoom is off on an animation, with a note; q goes back to the gallery
        term.keys("+")
        term.wait_for(lambda lines: "no zoom or pan on an animation" in lines[-1], 5, "the zoom note")
        term.keys("q")
        term.wait_for(lambda lines: "1/1" in lines[-1] and "H help" in lines[-1], 5, "the gallery")

    def test_plays_before_the_last_frame_is_decoded(self):
        # Given a 300-frame 480x270 GIF of 40 ms frames (a yellow disc moving over a
        # gradient): in an 80x24 half-block view every frame is resized to 82x46 pixels, which
        # takes libvips seconds for all 300 (2.3-2.6 s here, measured)
        gif = self.tmp / "moving-300.gif"
        # Debian's python3-pil is for /usr/bin/python3 (a python on PATH may be another).
        subprocess.run(["/usr/bin/python3", "-c", """
import sys
from PIL import Image, ImageDraw
frames = []
for i in range(300):
    im = Image.new("RGB", (480, 270))
    d = ImageDraw.Draw(im)
    for x in range(0, 480, 8):
        d.rectangle([x, 0, x + 7, 269], fill=(x * 255 // 480, 80, 255 - x * 255 // 480))
    cx = 40 + (i % 50) * 8
    d.ellipse([cx - 30, 105, cx + 30, 165], fill=(255, 255, 0))
    frames.append(im)
frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=40, loop=0)
""", str(gif)], check=True)
        term = self.launch([str(gif), "--no-disk-cache", "--pixels", "halfblock"], width=80, height=24)
        self.wait_started(term)
        term.keys("Enter")

        # Then it plays while the status line still counts frames decoded, and the picture
        # changes in that time: frames shown before the last one is decoded
        def decoding(lines):
            m = re.search(r"▶ 300 frames, (\d+) decoded", lines[-1])
            return m and int(m.group(1)) < 300
        term.wait_for(decoding, 15, "playing while decoding")
        pictures = set()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(pictures) < 3:
            screen = term.capture(escapes=True)
            if not re.search(r"▶ 300 frames, \d+ decoded", screen[-1]):
                break
            pictures.add(tuple(screen[:-1]))
            time.sleep(0.03)
        self.assertGreaterEqual(len(pictures), 3, "the picture did not change before every frame was decoded")

        # And when all are decoded the status line drops the count and it plays on
        term.wait_for(lambda lines: re.search(r"▶ 300 frames(?!,)", lines[-1]), 30, "every frame decoded")
        self.assertGreaterEqual(len(self.watch(term, 0.5)), 2, "the picture stopped changing")
        term.keys("q")
        term.wait_for(lambda lines: "H help" in lines[-1], 5, "the gallery")


if __name__ == "__main__":
    unittest.main()
