"""End-to-end test of animation in the full view, in half blocks inside tmux: an animated GIF
(Tests/Fixtures/images/animated-rgb.gif: 48x24, red, green, blue frames of 400 ms) as a
gallery of one; the picture changes between frames while it plays, stops changing when `a`
pauses it, and plays again after a second `a`."""

import re
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


if __name__ == "__main__":
    unittest.main()
