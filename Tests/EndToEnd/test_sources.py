"""End-to-end tests of galleries that are not gallery files: a folder of real photos and
flags with non-images mixed in, several arguments, a text list of paths and URLs (from a file,
over http and on standard input, with the browser then drawing on /dev/tty), and a single image.

Run with `python3 Tests/EndToEnd/run.py -k Sources`.
"""

import os
import re
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase, binary  # noqa: E402

FLAGS = Path("/usr/share/flags/countries/16x11")
PHOTOS = Path("/usr/share/backgrounds/mate/nature")


class SourcesTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        if not FLAGS.is_dir() or not PHOTOS.is_dir():
            self.fail("famfamfam-flag-png and mate-backgrounds are needed (make test-deps)")
        self.pics = self.tmp / "pics"
        (self.pics / "sub").mkdir(parents=True)
        # Real images, one named without an extension and one in a subfolder; non-images with
        # image-like names; a hidden image.
        shutil.copy(PHOTOS / "LadyBird.jpg", self.pics / "photo10.jpg")
        shutil.copy(FLAGS / "fr.png", self.pics / "photo2")
        shutil.copy(FLAGS / "de.png", self.pics / "sub" / "deep.png")
        shutil.copy(FLAGS / "it.png", self.pics / ".hidden.png")
        (self.pics / "notes.jpg").write_text("not a picture\n")
        (self.pics / "readme.txt").write_text("hello\n")

    def list(self, *args, stdin=None):
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache), LANG="C.UTF-8")
        return subprocess.run([binary(), "list", *args], capture_output=True, text=True, timeout=30,
                              input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL, env=env,
                              cwd=str(self.tmp))

    def titles(self, result):
        self.assertEqual(result.returncode, 0, result.stderr)
        return [line.split("\t")[0] for line in result.stdout.splitlines()]

    def test_folder_by_magic_bytes_in_natural_order(self):
        self.assertEqual(self.titles(self.list(str(self.pics))), ["photo2", "photo10"])
        self.assertEqual(self.titles(self.list("-R", str(self.pics))), ["photo2", "photo10", "sub/deep"])

    def test_empty_folder_fails_with_a_hint(self):
        empty = self.tmp / "empty"
        empty.mkdir()
        r = self.list(str(empty))
        self.assertEqual(r.returncode, 66)
        self.assertIn("no images in this folder (-R looks in subfolders too)", r.stderr)

    def test_text_list_from_a_file_over_http_and_on_stdin(self):
        lines = "# my picks\n%s\n\npics/photo2\n" % (FLAGS / "fr.png")
        (self.tmp / "picks.txt").write_text(lines)
        self.assertEqual(self.titles(self.list(str(self.tmp / "picks.txt"))), ["fr", "photo2"])
        # On stdin, relative paths resolve against the working directory.
        self.assertEqual(self.titles(self.list("-", stdin=lines)), ["fr", "photo2"])
        # Over http, relative lines resolve against the list's URL; a file: line fails its row.
        served = self.tmp / "www"
        served.mkdir()
        shutil.copy(FLAGS / "fr.png", served / "fr.png")
        (served / "list.txt").write_text("fr.png\nfile:///etc/passwd\n")
        server = self.serve(served)
        r = self.list(server.url("list.txt"))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split("\t") for line in r.stdout.splitlines()]
        self.assertEqual(rows[0][2], server.url("fr.png"))
        self.assertEqual(rows[1][3], "line 2: file: URL in a gallery read over http")

    def test_several_arguments_mixed(self):
        gallery = self.tmp / "g.json"
        gallery.write_text('[{"title": "From JSON", "url": "pics/photo2"}]')
        r = self.list(str(self.pics / "photo10.jpg"), str(gallery), str(self.pics), "missing.png")
        self.assertEqual(self.titles(r), ["photo10", "From JSON", "photo2", "photo10", "missing"])

    def test_browser_on_a_folder_marks_nothing_but_images(self):
        term = self.launch([str(self.pics)])
        self.wait_started(term)
        lines = self.wait_settled(term)
        self.assertRegex(lines[-1], r"pics/\s+1/2 ")
        self.assertIn("loaded 2", lines[-1])
        term.keys("q")
        term.wait_text("EXITED=0")

    def test_browser_reads_a_list_on_stdin_and_draws_on_the_tty(self):
        # `find | vitrine -`: stdin is a pipe, so keys come from /dev/tty; stdout is a file.
        out = self.tmp / "stdout.txt"
        term = self.launch(["-"], pipe_in="cd %s && find pics -type f | sort" % self.tmp, redirect_out=out)
        self.wait_started(term)
        lines = self.wait_settled(term)
        # find lists hidden files too: .hidden.png, photo10.jpg, photo2 and sub/deep.png load;
        # notes.jpg and readme.txt fail as not images.
        self.assertRegex(lines[-1], r"standard input\s+1/6 ")
        self.assertIn("loaded 4", lines[-1])
        self.assertIn("failed 2", lines[-1])
        self.assertIn("not an image", "\n".join(lines))
        term.keys("j")
        term.wait_for(lambda l: re.search(r" 2/6 ", l[-1]), 5, "the selection to move (keys from /dev/tty)")
        term.keys("q")
        term.wait_text("EXITED=0")
        self.assertEqual(out.read_text(), "", "nothing is drawn on a redirected stdout")

    def test_dash_with_a_terminal_on_stdin_is_a_usage_error(self):
        term = self.launch(["-"])
        term.wait_text("EXITED=64")
        self.assertIn("reads a list of images from standard input, which is a terminal", term.text())


if __name__ == "__main__":
    unittest.main()
