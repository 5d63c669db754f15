"""End-to-end tests of `vitrine pick`: the picker draws on /dev/tty while its stdout goes to a
pipe or a file, and quitting prints the marked items (else the selected one) there, one per
line, as `nsxiv -o` does; ^C prints nothing; with no terminal at all it exits 64.

Run with `python3 Tests/EndToEnd/run.py -k Pick`.
"""

import os
import shlex
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase, Terminal, binary, write_json  # noqa: E402

FLAGS = Path("/usr/share/flags/countries/16x11")
PHOTOS = Path("/usr/share/backgrounds/mate/nature")


class PickTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        if not FLAGS.is_dir() or not PHOTOS.is_dir():
            self.fail("famfamfam-flag-png and mate-backgrounds are needed (make test-deps)")
        self.pics = self.tmp / "pics"
        self.pics.mkdir()
        for i, name in enumerate(["fr", "de", "it", "es"], 1):
            shutil.copy(FLAGS / ("%s.png" % name), self.pics / ("flag%d.png" % i))
        shutil.copy(PHOTOS / "LadyBird.jpg", self.pics / "flag5 photo.jpg")

    def env(self):
        return {"TERM": "tmux-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                "XDG_CACHE_HOME": str(self.cache), "XDG_STATE_HOME": str(self.tmp / "state"),
                "HOME": str(self.tmp), "COLORTERM": "truecolor"}

    def pick_into_pipe(self, args, out):
        """Runs `vitrine pick ARGS | cat > out` in tmux; the shell prints EXITED=<vitrine's
        status> on the terminal (fd 3) when vitrine ends."""
        assigns = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in self.env().items())
        vitrine = " ".join(shlex.quote(a) for a in [binary(), "pick", *args])
        # The shells trap SIGINT (^C reaches the whole foreground group) so they live to
        # report; vitrine gets the default disposition back at exec.
        command = ("trap true INT; exec 3>&1; { trap true INT; env %s %s; echo EXITED=$? >&3; } | cat > %s; sleep 60"
                   % (assigns, vitrine, shlex.quote(str(out))))
        term = Terminal("sh -c %s" % shlex.quote(command), 100, 30)
        self.addCleanup(term.kill)
        return term

    def test_marked_items_go_to_a_pipe_as_paths_in_gallery_order(self):
        out = self.tmp / "picked.txt"
        term = self.pick_into_pipe([str(self.pics)], out)
        lines = self.wait_started(term)
        self.assertIn("pick: q prints, ^C cancels", lines[-1])
        self.wait_settled(term)
        # Mark the fifth (a path with a space), then the second: printed in gallery order.
        term.keys("G", "m", "g", "j", "m")
        term.wait_for(lambda l: "2 marked" in l[-1], 5, "two marks")
        term.keys("q")
        term.wait_text("EXITED=0")
        self.assertEqual(out.read_text(), "%s\n%s\n" % (self.pics / "flag2.png", self.pics / "flag5 photo.jpg"))

    def test_a_second_pick_starts_with_no_marks(self):
        out = self.tmp / "picked.txt"
        term = self.pick_into_pipe([str(self.pics)], out)
        self.wait_started(term)
        term.keys("m", "j", "m", "j")
        term.wait_for(lambda l: "2 marked" in l[-1] and " 3/5 " in l[-1], 5, "two marks")
        term.keys("q")
        term.wait_text("EXITED=0")
        self.assertEqual(len(out.read_text().splitlines()), 2)
        # Reopened: back at the third item, no marks, so q prints that item alone
        out2 = self.tmp / "picked2.txt"
        term2 = self.pick_into_pipe([str(self.pics)], out2)
        lines = term2.wait_for(lambda l: " 3/5 " in l[-1], 10, "the remembered item")
        self.assertNotIn("marked", lines[-1])
        term2.keys("q")
        term2.wait_text("EXITED=0")
        self.assertEqual(out2.read_text(), "%s\n" % (self.pics / "flag3.png"))

    def test_the_selected_item_of_an_http_gallery_prints_as_its_url(self):
        www = self.tmp / "www"
        www.mkdir()
        shutil.copy(FLAGS / "fr.png", www / "fr.png")
        shutil.copy(FLAGS / "de.png", www / "de.png")
        write_json(www / "g.json", [{"title": "France", "url": "fr.png"}, {"title": "Germany", "url": "de.png"}])
        server = self.serve(www)
        out = self.tmp / "picked.txt"
        term = self.launch(["pick", server.url("g.json")], redirect_out=out,
                           env_extra={"XDG_STATE_HOME": str(self.tmp / "state")})
        self.wait_started(term)
        term.keys("j")
        term.wait_for(lambda l: " 2/2 " in l[-1], 5, "the second item")
        # Q quits from anywhere: from the full view too, and it also prints the choice.
        term.keys("Enter")
        term.wait_for(lambda l: "Germany" in l[-1] and "2/2" in l[-1], 10, "the full view")
        term.keys("Q")
        term.wait_text("EXITED=0")
        self.assertEqual(out.read_text(), server.url("de.png") + "\n")

    def test_ctrl_c_prints_nothing(self):
        out = self.tmp / "picked.txt"
        term = self.pick_into_pipe([str(self.pics)], out)
        self.wait_started(term)
        term.keys("m")
        term.wait_for(lambda l: "1 marked" in l[-1], 5, "a mark")
        term.keys("C-c")
        term.wait_text("EXITED=130")
        self.assertEqual(out.read_text(), "")

    def test_no_terminal_at_all_is_status_64_with_a_reason(self):
        # A new session has no controlling terminal: /dev/tty cannot be opened.
        r = subprocess.run([binary(), "pick", str(self.pics)], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=30, start_new_session=True, env=dict(os.environ, **self.env()))
        self.assertEqual(r.returncode, 64, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("pick draws its screen on the terminal, and this process has none", r.stderr)

    def test_pick_needs_a_gallery(self):
        r = subprocess.run([binary(), "pick"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 64)
        self.assertIn("pick needs a GALLERY", r.stderr)


if __name__ == "__main__":
    unittest.main()
