"""The disk cache seen from outside: a second launch draws from disk with zero requests,
--offline works with the server gone, --reload downloads again, `vitrine cache` reports."""

import os
import subprocess
import time
import unittest

from harness import E2ETestCase, binary, link_demo, write_json

FLAGS = ["fr", "de", "it", "ie", "be", "nl", "at", "se"]


class DiskCacheTests(E2ETestCase):
    def make_gallery(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, *["flags/%s.png" % f for f in FLAGS])
        write_json(root / "gallery.json", [{"title": "Flag %s" % f, "url": "flags/%s.png" % f} for f in FLAGS])
        return root

    def run_once(self, url, *args):
        term = self.launch([url, *args])
        self.wait_started(term)
        lines = self.wait_settled(term)
        term.keys("q")
        term.wait_for(lambda lines: any("EXITED=0" in l for l in lines), 5, "EXITED=0")
        return lines

    def cache_command(self, *args):
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache))
        return subprocess.run([binary(), "cache", *args], capture_output=True, text=True, env=env, timeout=20)

    def test_second_launch_and_offline_use_the_disk(self):
        root = self.make_gallery()
        server = self.serve(root)
        url = server.url("gallery.json")
        # 30-line terminal: rows 0-4 on screen plus one look-ahead row are fetched.
        first = self.run_once(url)
        self.assertIn("loaded 6 · loading 0 · failed 0", first[-1])
        self.assertEqual(len(server.image_requests()), 6)
        info = self.cache_command("info")
        self.assertEqual(info.returncode, 0, info.stderr)
        self.assertIn("entries: 7", info.stdout)  # six images and the gallery

        # Second launch: the server's answers carry max-age, so nothing is asked again.
        second = self.run_once(url)
        self.assertIn("loaded 6 · loading 0 · failed 0", second[-1])
        self.assertEqual(len(server.image_requests()), 6)

        # Offline, with the server gone: the gallery and the six stored rows come from disk;
        # a row that was never fetched says so.
        server.stop()
        term = self.launch([url, "--offline"])
        self.wait_started(term)
        self.wait_settled(term)
        term.keys("G")
        lines = term.wait_for(lambda lines: "failed 1" in lines[-1] or "failed 2" in lines[-1], 10,
                              "the uncached rows failed")
        self.assertIn("not cached (offline)", "\n".join(lines))
        self.assertIn("loaded 6", lines[-1])

    def test_list_offline_reads_the_stored_gallery(self):
        root = self.make_gallery()
        server = self.serve(root)
        url = server.url("gallery.json")
        self.run_once(url)
        server.stop()
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache))
        online = subprocess.run([binary(), "list", url], capture_output=True, text=True, env=env, timeout=30)
        self.assertEqual(online.returncode, 69, online.stderr)
        self.assertIn("--offline opens the copy in the disk cache", online.stderr)
        offline = subprocess.run([binary(), "list", url, "--offline"], capture_output=True, text=True, env=env,
                                 timeout=30)
        self.assertEqual(offline.returncode, 0, offline.stderr)
        self.assertEqual(len(offline.stdout.splitlines()), len(FLAGS))
        self.assertTrue(offline.stdout.startswith("Flag fr\t"), offline.stdout)

    def test_reload_downloads_again_and_clear_empties(self):
        root = self.make_gallery()
        server = self.serve(root)
        url = server.url("gallery.json")
        self.run_once(url)
        self.assertEqual(len(server.image_requests()), 6)
        self.run_once(url, "--reload")
        self.assertEqual(len(server.image_requests()), 12)
        cleared = self.cache_command("clear")
        self.assertEqual(cleared.returncode, 0, cleared.stderr)
        self.assertIn("removed 7 entries", cleared.stdout)
        self.assertIn("entries: 0", self.cache_command("info").stdout)
        self.run_once(url, "--no-disk-cache")
        self.assertEqual(len(server.image_requests()), 18)
        self.assertIn("entries: 0", self.cache_command("info").stdout)

    def test_a_damaged_entry_heals_on_the_next_launch(self):
        # Given a first launch that stored the six rows on screen
        root = self.make_gallery()
        server = self.serve(root)
        url = server.url("gallery.json")
        self.run_once(url)
        self.assertEqual(len(server.image_requests()), 6)
        # When one bit flips in the body of the entry for fr.png (fresh for an hour)
        entries = [p for p in (self.cache / "vitrine").iterdir() if len(p.name) == 64]
        # (by its header line's URL: the stored gallery's body names fr.png too)
        fr = next(p for p in entries if b'fr.png"' in p.read_bytes().split(b"\n")[1])
        data = bytearray(fr.read_bytes())
        data[-40] ^= 0x04
        fr.write_bytes(bytes(data))
        # Then the next launch shows every row, having asked for that one image again
        lines = self.run_once(url)
        self.assertIn("loaded 6 · loading 0 · failed 0", lines[-1])
        self.assertNotIn("corrupt", "\n".join(lines))
        again = server.image_requests()[6:]
        self.assertEqual([r.split(" ")[1] for r in again], ["/flags/fr.png"])
        # And the launch after that asks for nothing
        self.run_once(url)
        self.assertEqual(len(server.image_requests()), 7)


if __name__ == "__main__":
    unittest.main()
