"""Vitrine creates nothing it does not use: with HOME, the XDG folders and TMPDIR in a
private folder, browsing a local gallery and an http gallery leaves files only in the disk
cache ($XDG_CACHE_HOME/vitrine) and the state folder ($XDG_STATE_HOME/vitrine); no
Foundation URLCache folder (~/.cache/org.swift.foundation.URLCache), nothing in TMPDIR."""

import os
import unittest

from harness import E2ETestCase, link_demo, write_json

FLAGS = ["fr", "de", "it", "ie", "be", "nl"]


class FootprintTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        self.home = self.tmp / "home"
        self.home.mkdir()
        self.dirs = {
            "HOME": self.home,
            "XDG_CACHE_HOME": self.home / ".cache",
            "XDG_STATE_HOME": self.home / ".local" / "state",
            "XDG_CONFIG_HOME": self.home / ".config",
            "XDG_DATA_HOME": self.home / ".local" / "share",
            "XDG_RUNTIME_DIR": self.home / "run",
            "TMPDIR": self.home / "tmp",
        }
        # The folders a desktop session has before Vitrine runs: they are not Vitrine's doing.
        for name in ("XDG_RUNTIME_DIR", "TMPDIR"):
            self.dirs[name].mkdir(mode=0o700)
        self.root = self.tmp / "root"
        self.root.mkdir()
        link_demo(self.root, *["flags/%s.png" % f for f in FLAGS])
        write_json(self.root / "gallery.json", [{"title": "Flag %s" % f, "url": "flags/%s.png" % f} for f in FLAGS])

    def created(self):
        """Every path under the private HOME, relative, except the folders set up above."""
        found = set()
        for top, dirs, files in os.walk(self.home):
            for name in dirs + files:
                found.add(os.path.relpath(os.path.join(top, name), self.home))
        return found - {"run", "tmp"}

    def browse(self, gallery):
        env = {k: str(v) for k, v in self.dirs.items()}
        term = self.launch([gallery], env_extra=env)
        self.wait_started(term)
        lines = self.wait_settled(term)
        self.assertIn("failed 0", lines[-1])
        term.keys("j", "q")
        term.wait_for(lambda lines: any("EXITED=0" in l for l in lines), 10, "EXITED=0")

    def assert_only_own_folders(self, allowed_tops):
        created = self.created()
        allowed = [".cache/vitrine", ".local/state/vitrine"]
        parents = {".cache", ".local", ".local/state"}
        stray = sorted(p for p in created
                       if p not in parents and not any(p == a or p.startswith(a + "/") for a in allowed))
        self.assertEqual(stray, [], "created outside the disk cache and the state folder")
        self.assertFalse(any("org.swift.foundation.URLCache" in p for p in created), sorted(created))
        for top in allowed_tops:
            self.assertTrue(any(p == top or p.startswith(top + "/") for p in created),
                            "%s was not used at all (is the test looking in the right place?)" % top)

    def test_local_gallery(self):
        self.browse(str(self.root / "gallery.json"))
        # A local gallery's images are read from disk: nothing to cache, but the place is kept.
        self.assert_only_own_folders([".local/state/vitrine"])
        self.assertEqual(os.listdir(self.dirs["TMPDIR"]), [])

    def test_http_gallery(self):
        server = self.serve(self.root)
        self.browse(server.url("gallery.json"))
        self.assert_only_own_folders([".cache/vitrine", ".local/state/vitrine"])
        self.assertEqual(os.listdir(self.dirs["TMPDIR"]), [])


if __name__ == "__main__":
    unittest.main()
