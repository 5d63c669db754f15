"""End-to-end tests of the actions on marked items, in tmux on real photos over loopback:
save (byte-identical files, collision-safe names, hostile names, a cancelled batch leaves
nothing partial), copy (OSC 52 into tmux's buffer), open (a recording opener, in the terminal
and detached; an http image as a file Vitrine wrote).

Run with `python3 Tests/EndToEnd/run.py -k Actions`.
"""

import os
import shutil
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase, write_json  # noqa: E402

PHOTOS = Path("/usr/share/backgrounds/mate/nature")
NAMES = ["LadyBird.jpg", "Aqua.jpg", "Dune.jpg", "Storm.jpg"]


class ActionsTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        if not PHOTOS.is_dir():
            self.fail("mate-backgrounds is needed (make test-deps)")
        self.www = self.tmp / "www"
        self.www.mkdir()
        for name in NAMES:
            shutil.copy(PHOTOS / name, self.www / name)
        self.saves = self.tmp / "saved"
        self.saves.mkdir()
        self.runtime = self.tmp / "runtime"
        self.runtime.mkdir(mode=0o700)

    def start(self, items, extra=(), env=None):
        write_json(self.www / "g.json", items)
        server = self.serve(self.www)
        env = dict({"XDG_RUNTIME_DIR": str(self.runtime), "XDG_STATE_HOME": str(self.tmp / "state")}, **(env or {}))
        term = self.launch([server.url("g.json"), "--save-dir", str(self.saves), *extra], width=140,
                           env_extra=env)
        self.wait_started(term)
        return server, term

    def photos(self):
        return [{"title": n.split(".")[0], "url": n} for n in NAMES]

    def test_mark_three_and_save_byte_identical_collision_safe(self):
        # A file already named like the first: it is kept, the save gets "LadyBird (1).jpg"
        (self.saves / "LadyBird.jpg").write_bytes(b"already here")
        server, term = self.start(self.photos())
        self.wait_settled(term, 60)
        term.keys("m", "j", "j", "m", "j", "m")
        term.wait_for(lambda l: "3 marked" in l[-1], 5, "three marks")
        term.keys("s")
        lines = term.wait_for(lambda l: "saved 3 to" in l[-1], 60, "the summary")
        self.assertNotIn("failed", lines[-1])
        self.assertEqual((self.saves / "LadyBird.jpg").read_bytes(), b"already here")
        for saved, source in [("LadyBird (1).jpg", "LadyBird.jpg"), ("Dune.jpg", "Dune.jpg"), ("Storm.jpg", "Storm.jpg")]:
            self.assertEqual((self.saves / saved).read_bytes(), (self.www / source).read_bytes(), saved)
        self.assertEqual(sorted(os.listdir(self.saves)), ["Dune.jpg", "LadyBird (1).jpg", "LadyBird.jpg", "Storm.jpg"])
        # Saving the same again: new names, never an overwrite
        term.keys("s")
        term.wait_for(lambda l: len(os.listdir(self.saves)) == 7 and "saved 3 to" in l[-1], 60, "the second save")
        self.assertEqual(sorted(os.listdir(self.saves)),
                         ["Dune (1).jpg", "Dune.jpg", "LadyBird (1).jpg", "LadyBird (2).jpg", "LadyBird.jpg",
                          "Storm (1).jpg", "Storm.jpg"])
        self.assertEqual((self.saves / "Storm (1).jpg").read_bytes(), (self.www / "Storm.jpg").read_bytes())

    def test_hostile_names_save_safely_and_failures_are_summarised(self):
        long = "n" * 1000 + ".jpg"
        items = [
            {"title": "dotdot", "url": "as/Aqua.jpg/%2E%2E"},
            {"title": "passwd", "url": "as/Aqua.jpg/%2Fetc%2Fpasswd"},
            {"title": "long", "url": "as/Aqua.jpg/" + long},
            {"title": "escape", "url": "as/Aqua.jpg/x%1B%5B2J%1B%5D0%3BPWNED%07.jpg"},
            {"title": "missing", "url": "status/404/gone.jpg"},
            {"title": "html", "url": "html/page.jpg"},
        ]
        server, term = self.start(items)
        self.wait_settled(term, 60)
        term.keys("A")
        term.wait_for(lambda l: "6 marked" in l[-1], 5, "all marked")
        term.keys("s")
        lines = term.wait_for(lambda l: "saved 4 to" in l[-1], 60, "the summary")
        self.assertIn("failed 2", lines[-1])
        self.assertIn("HTTP 404", lines[-1])
        names = sorted(os.listdir(self.saves))
        self.assertEqual(len(names), 4, names)
        aqua = (self.www / "Aqua.jpg").read_bytes()
        for name in names:
            self.assertFalse(name.startswith("."), name)
            self.assertLessEqual(len(name.encode()), 200, name)
            self.assertFalse(any(ord(c) < 0x20 or ord(c) == 0x7F for c in name), repr(name))
            self.assertEqual((self.saves / name).read_bytes(), aqua, name)
        self.assertIn("image.jpg", names)
        self.assertIn("_etc_passwd.jpg", names)
        self.assertIn("x_[2J_]0;PWNED_.jpg", names)
        self.assertTrue(any(n.startswith("nnnn") and n.endswith(".jpg") for n in names))
        # Nothing was written outside the folder
        self.assertEqual(sorted(os.listdir(self.tmp / "saved")), names)
        self.assertFalse((self.tmp / "etc").exists())

    def test_a_cancelled_batch_keeps_what_finished_and_leaves_nothing_partial(self):
        items = [{"title": "p%d" % i, "url": "slow/1.5/%s" % NAMES[i % 4]} for i in range(8)]
        server, term = self.start(items, ["--no-disk-cache"])
        term.keys("A", "s")
        term.wait_for(lambda l: "saving" in l[-1] and "Esc cancels" in l[-1], 10, "the progress")
        term.keys("Escape")
        lines = term.wait_for(lambda l: "cancelled" in l[-1], 20, "the cancelled summary")
        names = sorted(os.listdir(self.saves))
        self.assertLess(len(names), 8, lines[-1])
        self.assertFalse([n for n in names if n.startswith(".")], names)
        for name in names:
            source = name.split(" (")[0].replace(".jpg", "") + ".jpg"
            self.assertEqual((self.saves / name).read_bytes(), (self.www / source).read_bytes(), name)

    def test_quitting_mid_batch_leaves_nothing_partial(self):
        items = [{"title": "p%d" % i, "url": "slow/0.8/%s" % NAMES[i % 4]} for i in range(6)]
        server, term = self.start(items, ["--no-disk-cache"])
        term.keys("A", "s")
        term.wait_for(lambda l: "saving" in l[-1], 10, "the progress")
        term.keys("q")
        term.wait_text("EXITED=0", 15)
        names = sorted(os.listdir(self.saves))
        self.assertFalse([n for n in names if n.startswith(".")], names)
        for name in names:
            source = name.split(" (")[0].replace(".jpg", "") + ".jpg"
            self.assertEqual((self.saves / name).read_bytes(), (self.www / source).read_bytes(), name)

    def test_copy_reaches_tmux_buffer_with_osc52(self):
        server, term = self.start(self.photos())
        term.tmux("set-option", "-g", "set-clipboard", "on")
        term.keys("j", "y")
        lines = term.wait_for(lambda l: "copied" in l[-1], 5, "the copied note")
        self.assertIn(server.url("Aqua.jpg"), lines[-1])
        self.assertEqual(term.tmux("show-buffer"), server.url("Aqua.jpg"))
        term.keys("m", "j", "m", "y")
        term.wait_for(lambda l: "copied 2 items" in l[-1], 5, "two copied")
        self.assertEqual(term.tmux("show-buffer"), server.url("Aqua.jpg") + "\n" + server.url("Dune.jpg"))

    def recorder(self, body):
        script = self.tmp / "opener.sh"
        script.write_text("#!/bin/sh\n" + body)
        script.chmod(0o755)
        return script

    def test_open_in_the_terminal_with_a_recording_opener(self):
        log = self.tmp / "opened.txt"
        opener = self.recorder('for a; do printf "%%s\\n" "$a" >> %s; done\nprintf "IN-OPENER\\n"\nread answer\n' % log)
        server, term = self.start(self.photos(), env={"VITRINE_OPENER": str(opener), "VITRINE_OPENER_MODE": "terminal"})
        self.wait_settled(term, 60)
        term.keys("j", "o")
        term.wait_text("IN-OPENER", 20)
        self.assertNotIn("H help", term.capture()[-1], "curses gave the screen to the opener")
        term.keys("Enter")
        term.wait_for(lambda l: "back from the viewer" in l[-1], 10, "the browser back")
        opened = log.read_text().splitlines()
        self.assertEqual(len(opened), 1)
        self.assertFalse(opened[0].startswith("http"), "never the remote URL")
        self.assertTrue(opened[0].startswith(str(self.runtime / "vitrine" / "open")), opened[0])
        self.assertEqual(Path(opened[0]).read_bytes(), (self.www / "Aqua.jpg").read_bytes())
        term.keys("q")
        term.wait_text("EXITED=0")

    def test_open_detached_and_no_opener_at_all(self):
        log = self.tmp / "opened.txt"
        opener = self.recorder('tty > %s.tty 2>&1\nfor a; do printf "%%s\\n" "$a" >> %s; done\n' % (log, log))
        server, term = self.start(self.photos(), env={"VITRINE_OPENER": str(opener), "VITRINE_OPENER_MODE": "detached"})
        self.wait_settled(term, 60)
        term.keys("m", "j", "m", "o")
        term.wait_for(lambda l: "opened 2 files" in l[-1], 20, "opened")
        self.assertTrue(self.wait_file(log, 2))
        opened = log.read_text().splitlines()
        self.assertEqual([Path(p).read_bytes() for p in opened],
                         [(self.www / n).read_bytes() for n in NAMES[:2]])
        self.assertIn("not a tty", Path(str(log) + ".tty").read_text())
        term.keys("q")
        term.wait_text("EXITED=0")
        # No VITRINE_OPENER and no xdg-open on PATH: said clearly
        term2 = self.launch([server.url("g.json")], env_extra={"PATH": "/nonexistent"})
        self.wait_started(term2)
        term2.keys("o")
        term2.wait_for(lambda l: "no viewer to open with" in l[-1], 5, "the no-viewer note")

    def wait_file(self, path, lines):
        import time
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if path.exists() and len(path.read_text().splitlines()) >= lines:
                return True
            time.sleep(0.05)
        return False


if __name__ == "__main__":
    unittest.main()
