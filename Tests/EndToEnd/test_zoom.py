"""End-to-end test of the full view's zoom and pan, in half blocks inside tmux: a real photo
(mate-backgrounds' LadyBird.jpg, 2560x1600) as a gallery of one, Enter, then zoom and pan keys;
the status line's zoom text and the drawn cells change with each step."""

import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import HALF_BLOCK, E2ETestCase  # noqa: E402

PHOTO = Path("/usr/share/backgrounds/mate/nature/LadyBird.jpg")  # 2560x1600


class ZoomPanTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        if not PHOTO.exists():
            self.fail("%s is missing: install mate-backgrounds" % PHOTO)

    def test_zoom_and_pan_in_half_blocks(self):
        # Given the full view of a 2560x1600 photo in a 100x30 tmux (half blocks: tmux here has
        # no passthrough)
        term = self.launch([str(PHOTO), "--no-disk-cache", "--pixels", "halfblock"], width=100, height=30)
        self.wait_started(term)
        term.keys("Enter")
        lines = term.wait_for(lambda lines: "fit " in lines[-1] and "1/1" in lines[-1], 10, "the full view at fit")
        # 2560x1600 in 100x29 cells: the fitted render is 93 columns wide (fit 4%)
        self.assertIn("fit 4%", lines[-1])
        fit_art = term.capture()[:-1]
        self.assertGreater(sum(l.count(HALF_BLOCK) for l in fit_art), 0.5 * 100 * 29)

        # When = goes to 1:1: the middle 100x58 pixels of the photo, one per half block
        term.keys("=")
        lines = term.wait_for(lambda lines: re.search(r"100% · \d+,\d+ 100x58 of 2560x1600", lines[-1])
                              and "…" not in lines[-1].split("of 2560x1600")[1][:3], 15, "1:1 with the detail decode")
        self.assertIn("100% · 1230,771 100x58 of 2560x1600", lines[-1])
        one_to_one = term.capture(escapes=True)[:-1]

        # And l pans right an eighth of the screen (12 columns = 12 pixels at 1:1), j down 3 rows
        # (6 pixels): the status says where, and the picture changed
        term.keys("l")
        term.wait_for(lambda lines: "100% · 1242,771 " in lines[-1], 5, "the pan right")
        term.keys("j")
        term.wait_for(lambda lines: "100% · 1242,777 " in lines[-1], 5, "the pan down")
        self.assertNotEqual(term.capture(escapes=True)[:-1], one_to_one, "the pan did not move the picture")

        # + zooms in a step (150%), - back to 100%, 0 fits again
        term.keys("+")
        term.wait_for(lambda lines: re.search(r"150% · \d+,\d+ 66x38 of 2560x1600", lines[-1]), 5, "150%")
        term.keys("-")
        term.wait_for(lambda lines: "100% · " in lines[-1], 5, "back to 100%")
        term.keys("0")
        term.wait_for(lambda lines: "fit 4%" in lines[-1], 5, "fit again")
        # q goes back to the gallery
        term.keys("q")
        term.wait_for(lambda lines: "1/1" in lines[-1] and "H help" in lines[-1], 5, "the gallery")


if __name__ == "__main__":
    unittest.main()
