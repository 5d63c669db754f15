"""End-to-end tests of the remembered place, in tmux on real flags: quitting and reopening a
gallery returns to its item, view, thumbnail size, sort, filter and marks; --fresh starts at
the top; a corrupt state file is ignored with a note and replaced.

Run with `python3 Tests/EndToEnd/run.py -k Place`.
"""

import json
import os
import re
import shutil
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase  # noqa: E402

FLAGS = Path("/usr/share/flags/countries/16x11")
COUNTRIES = ["fr", "de", "it", "es", "pt", "nl", "be", "at", "ch", "se", "no", "fi"]


class PlaceTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        if not FLAGS.is_dir():
            self.fail("famfamfam-flag-png is needed (make test-deps)")
        self.pics = self.tmp / "pics"
        self.pics.mkdir()
        for i, c in enumerate(COUNTRIES, 1):
            shutil.copy(FLAGS / ("%s.png" % c), self.pics / ("flag%02d-%s.png" % (i, c)))
        self.state = self.tmp / "state"

    def open(self, *extra, started=True):
        term = self.launch([str(self.pics), *extra], width=120, env_extra={"XDG_STATE_HOME": str(self.state)})
        if started:
            self.wait_started(term)
        return term

    def places(self):
        folder = self.state / "vitrine" / "places"
        return sorted(folder.iterdir()) if folder.is_dir() else []

    def leave_somewhere(self):
        term = self.open()
        self.wait_settled(term)
        term.keys("m", "j", "j", "m")       # mark flag01 and flag03
        term.keys("S")                       # gallery order, reversed
        term.keys("5", "G")                  # the fifth shown: flag08
        term.keys("v", "+")                  # grid, one size up
        term.wait_for(lambda l: "5/12" in l[-1] and "2 marked" in l[-1] and "gallery ↓" in l[-1], 5, "the place")
        term.keys("q")
        term.wait_text("EXITED=0")
        return term

    def test_reopen_returns_to_the_remembered_place(self):
        self.leave_somewhere()
        files = self.places()
        self.assertEqual(len(files), 1)
        stored = json.loads(files[0].read_text())
        self.assertEqual(stored["location"], str(self.pics.resolve()))
        self.assertEqual(stored["place"]["view"], "grid")
        term = self.open()
        lines = term.wait_for(lambda l: "5/12" in l[-1], 5, "the remembered item")
        self.assertIn("2 marked", lines[-1])
        self.assertIn("sort: gallery ↓", lines[-1])
        body = "\n".join(lines[:-1])
        self.assertIn("flag08-at", body)
        # The grid at the size left: 16x6 boxes at 120 columns (one step up from 8x4 is 12x6),
        # several titles on one line
        self.assertTrue(any(len(re.findall(r"flag\d\d", l)) >= 4 for l in lines[:-1]), body)
        # The marks are on flag01 and flag03 still: u clears them, A marks all 12
        term.keys("u")
        term.wait_for(lambda l: "marked" not in l[-1], 5, "marks cleared")
        term.keys("q")
        term.wait_text("EXITED=0")

    def test_fresh_skips_the_place(self):
        self.leave_somewhere()
        term = self.open("--fresh")
        lines = term.wait_for(lambda l: "1/12" in l[-1], 5, "the top")
        self.assertNotIn("marked", lines[-1])
        self.assertNotIn("sort:", lines[-1])

    def test_a_corrupt_state_file_is_ignored_with_a_note_and_replaced(self):
        self.leave_somewhere()
        path = self.places()[0]
        path.write_bytes(b"\x00\xffnot json at all{")
        term = self.open(started=False)
        lines = term.wait_for(lambda l: "remembered place ignored" in l[-1], 10, "the note")
        self.assertIn("remembered place ignored, not a place file Vitrine wrote: ", lines[-1])
        term.keys("g")
        term.wait_for(lambda l: "1/12" in l[-1], 5, "the top (fresh)")
        term.keys("j", "j", "q")
        term.wait_text("EXITED=0")
        stored = json.loads(path.read_text())
        self.assertEqual(stored["place"]["view"], "list")
        # An unreadable state folder: the browser still runs, and says why it could not save
        path.chmod(0)
        os.chmod(path.parent, 0o500)
        self.addCleanup(os.chmod, path.parent, 0o700)
        if os.geteuid() != 0:
            term = self.open(started=False)
            term.wait_for(lambda l: "remembered place ignored" in l[-1], 10, "the note")
            term.keys("q")
            term.wait_text("EXITED=0")
            self.assertIn("cannot write the place", term.text())


if __name__ == "__main__":
    unittest.main()
