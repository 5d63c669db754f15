"""End-to-end tests of the terminal probe in tmux (no X needed): `vitrine doctor` and
`vitrine render --pixels auto` on a real tty, inside a private tmux server with passthrough off
(its default): the queries' answers never show on the screen, the decision is half blocks and
says why, and nothing that looks like an escape sequence reaches the pane."""

import re
import shlex
import shutil
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import REPO, E2ETestCase, Terminal, binary  # noqa: E402

PHOTO = REPO / "Tests" / "Fixtures" / "images" / "orientation-1.jpg"
# What the replies would look like if they leaked: DA1, XTVERSION, a kitty reply, OSC 11.
LEAK = re.compile(r"\?1;2c|>\|tmux|_Gi=|11;rgb|\^\[|\x1b")


class DoctorInTmuxTests(E2ETestCase):
    def test_doctor_reports_tmux_without_passthrough(self):
        # Given vitrine doctor on a real tty inside tmux, allow-passthrough off
        term = self.launch(["doctor"], before="START")
        # When it has answered
        lines = term.wait_for(lambda l: any(x.startswith("EXITED=") for x in l), 10, "doctor to exit")
        text = "\n".join(lines)
        # Then the decision and its reason are on screen, the replies are not
        self.assertIn("EXITED=0", text)
        self.assertIn("pixels: halfblock (inside tmux and tmux's allow-passthrough is off", text)
        self.assertIn("answers: complete", text)
        self.assertIn("window: 100x30 cells", text)
        self.assertIsNone(LEAK.search(text), text)
        self.assertIsNone(LEAK.search(term.tmux("capture-pane", "-p", "-e", "-t", "e2e").replace("\x1b[", "")), text)

    def test_render_auto_in_tmux_is_half_blocks_and_clean(self):
        term = self.launch(["render", str(PHOTO), "--size", "16x6"], before="START")
        lines = term.wait_for(lambda l: any(x.startswith("EXITED=") for x in l), 10, "render to exit")
        text = "\n".join(lines)
        self.assertIn("EXITED=0", text)
        # Half-block art: coloured cells (this 4-colour quad is mostly spaces on a background)
        self.assertRegex("\n".join(term.capture(escapes=True)), r"\x1b\[[0-9;]*48;[25];")
        self.assertNotIn("tmux;", text)
        self.assertIsNone(LEAK.search(text), text)

    def test_forced_pixels_without_passthrough_say_tmux_drops_them(self):
        # Given --pixels kitty forced inside tmux with allow-passthrough off (its default)
        hint = "tmux drops kitty graphics (set -g allow-passthrough on)"
        term = self.launch(["doctor", "--pixels", "kitty"], before="START")
        lines = term.wait_for(lambda l: any(x.startswith("EXITED=") for x in l), 10, "doctor to exit")
        text = "".join(lines)
        # Then doctor keeps the protocol and says why it will not show (lines joined: it wraps)
        self.assertIn("pixels: kitty (--pixels kitty; tmux's allow-passthrough is off: " + hint + ")", text)
        # And the browser's full view says it on the status line, before the title
        gallery = self.tmp / "gal"
        gallery.mkdir()
        shutil.copy(PHOTO, gallery / "photo.jpg")
        term = self.launch([str(gallery), "--pixels", "kitty", "--no-disk-cache", "--no-mouse"])
        self.wait_started(term)
        term.keys("Enter")
        status = term.wait_for(lambda l: "n/p q" in l[-1], 10, "the full view")[-1]
        self.assertTrue(status.startswith(" " + hint + "  photo"), status)
        # Nothing of the dropped escapes reaches the pane
        self.assertIsNone(LEAK.search(term.tmux("capture-pane", "-p", "-t", "e2e")), status)

    def test_passthrough_set_on_the_window_only_is_seen(self):
        # Given allow-passthrough on for the window only (set -w; the global value stays off)
        vitrine = shlex.quote(binary())
        # (kitty forced: the detached tmux has no outer terminal to answer the probe)
        command = ("tmux set -w allow-passthrough on; env TERM=tmux-256color HOME=%s %s doctor --pixels kitty; "
                   "echo EXITED=$?; sleep 60"
                   % (shlex.quote(str(self.tmp)), vitrine))
        term = Terminal("sh -c %s" % shlex.quote(command))
        self.addCleanup(term.kill)
        self.assertEqual(term.tmux("show", "-gv", "allow-passthrough").strip(), "off")
        lines = term.wait_for(lambda l: any(x.startswith("EXITED=") for x in l), 10, "doctor to exit")
        text = "".join(lines)
        # Then doctor sees passthrough on in its pane: the pictures will be wrapped, nothing is dropped
        self.assertIn("EXITED=0", text)
        self.assertIn("tmux passthrough: yes", text)
        self.assertNotIn("allow-passthrough is off", text)
        self.assertNotIn("tmux drops", text)

    def test_forced_pixels_render_says_tmux_drops_them(self):
        # Given render with --pixels kitty forced inside tmux, allow-passthrough off
        hint = "vitrine: tmux drops kitty graphics (set -g allow-passthrough on)"
        term = self.launch(["render", str(PHOTO), "--pixels", "kitty", "--size", "16x6"], before="START")
        lines = term.wait_for(lambda l: any(x.startswith("EXITED=") for x in l), 10, "render to exit")
        text = "".join(lines)
        # Then it still exits 0 (the protocol is kept: a tmux may draw it) and says why nothing shows
        self.assertIn("EXITED=0", text)
        self.assertIn(hint, text)
        # And with half blocks (nothing forced) it says nothing of the kind
        term = self.launch(["render", str(PHOTO), "--size", "16x6"], before="START")
        lines = term.wait_for(lambda l: any(x.startswith("EXITED=") for x in l), 10, "render to exit")
        self.assertNotIn("tmux drops", "".join(lines))

    def test_probe_costs_one_round_trip_not_the_deadline(self):
        # tmux answers DA1 at once: doctor reports the time the answers took
        term = self.launch(["doctor"])
        lines = term.wait_text("answers:", 10)
        found = re.search(r"answers: complete in (\d+) ms", "\n".join(lines))
        self.assertIsNotNone(found, "\n".join(lines))
        self.assertLess(int(found.group(1)), 100)


if __name__ == "__main__":
    unittest.main()
