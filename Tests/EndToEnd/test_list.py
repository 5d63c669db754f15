"""End-to-end tests of `vitrine list`: paging over a loopback server, explicit mappings, and
the untrusted-input limits, checked on stdout, stderr and the exit status.

Run with `python3 Tests/EndToEnd/run.py list` (the binary comes from $VITRINE_BIN, default
<repo>/.build/release/vitrine).
"""

import json
import os
import re
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase, binary, link_demo, write_json  # noqa: E402


class ListTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        self.root = self.tmp / "root"
        self.root.mkdir()
        link_demo(self.root, "flags/fr.png")

    def list(self, *args, timeout=30):
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache), LANG="C.UTF-8")
        return subprocess.run([binary(), "list", *args], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=env)

    def rows(self, result):
        """TSV rows as (title, thumbnail, image) tuples; the fourth column (the row's problem)
        must be there, and empty."""
        out = []
        for line in result.stdout.splitlines():
            fields = line.split("\t")
            self.assertEqual(len(fields), 4, "four TSV columns expected: %r" % line)
            self.assertEqual(fields[3], "", "no problem expected: %r" % line)
            out.append(tuple(fields[:3]))
        return out

    def page_requests(self, server):
        """The page numbers of logged /paged/ requests, in order."""
        out = []
        for line in server.requests():
            m = re.match(r"GET /paged/\d+\.json(?:\?(.*))?$", line)
            if m:
                q = dict(p.split("=", 1) for p in (m.group(1) or "").split("&") if "=" in p)
                out.append(int(q.get("page", "1")))
        return out

    # paging

    def test_three_pages_by_next_url(self):
        server = self.serve(self.root)
        r = self.list(server.url("paged/3.json"), "--pages", "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.rows(r)
        self.assertEqual([t for t, _, _ in rows],
                         ["Page %d item %d" % (k, j) for k in (1, 2, 3) for j in (0, 1)])
        # Relative URLs resolve against the page they came from.
        self.assertEqual(rows[5][2], server.url("img/5/flags/fr.png"))
        self.assertEqual(rows[5][1], rows[5][2])
        # Three pages exist: the fourth and fifth are never asked for.
        self.assertEqual(self.page_requests(server), [1, 2, 3])

    def test_pages_limits_the_fetches(self):
        server = self.serve(self.root)
        r = self.list(server.url("paged/3.json"), "--pages", "2", "--output", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        items = json.loads(r.stdout)
        self.assertEqual(len(items), 4)
        self.assertEqual(items[3], {"title": "Page 2 item 1", "thumbnail": server.url("img/3/flags/fr.png"),
                                    "image": server.url("img/3/flags/fr.png")})
        self.assertEqual(self.page_requests(server), [1, 2])
        # Without --pages, one page.
        server2 = self.serve(self.root)
        r = self.list(server2.url("paged/3.json"))
        self.assertEqual(len(self.rows(r)), 2)
        self.assertEqual(self.page_requests(server2), [1])

    def test_three_pages_with_a_mapping(self):
        server = self.serve(self.root)
        r = self.list(server.url("paged/3.json?shape=custom"), "--pages", "3",
                      "--items", ".data.photos[]", "--title", ".caption.text // .id",
                      "--image", ".file", "--thumb", '"/thumbs/\\(.id).png"', "--next", ".paging.next")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = self.rows(r)
        self.assertEqual([t for t, _, _ in rows],
                         ["Page %d item %d" % (k, j) for k in (1, 2, 3) for j in (0, 1)])
        self.assertEqual(rows[2], ("Page 2 item 0", server.url("thumbs/2-0.png"), server.url("img/2/flags/fr.png")))
        self.assertEqual(self.page_requests(server), [1, 2, 3])

    def test_a_failing_later_page_keeps_the_pages_before(self):
        server = self.serve(self.root)
        write_json(self.root / "feed.json", {
            "version": "https://jsonfeed.org/version/1.1", "next_url": "/status/503/feed2.json",
            "items": [{"title": "First", "image": "flags/fr.png"}]})
        r = self.list(server.url("feed.json"), "--pages", "3")
        self.assertEqual(r.returncode, 69, r.stderr)
        self.assertEqual([t for t, _, _ in self.rows(r)], ["First"])
        self.assertIn("page 2", r.stderr)
        self.assertIn("503", r.stderr)

    def test_a_page_loop_stops(self):
        # A feed whose next_url points back to the first page: read once each, then stop.
        server = self.serve(self.root)
        write_json(self.root / "a.json", {"version": "https://jsonfeed.org/version/1.1", "next_url": "b.json",
                                          "items": [{"title": "A", "image": "flags/fr.png"}]})
        write_json(self.root / "b.json", {"version": "https://jsonfeed.org/version/1.1", "next_url": "a.json",
                                          "items": [{"title": "B", "image": "flags/fr.png"}]})
        r = self.list(server.url("a.json"), "--pages", "10")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([t for t, _, _ in self.rows(r)], ["A", "B"])
        self.assertEqual(len(server.requests()), 2)

    # mapping errors and usage

    def test_mapping_that_matches_nothing_names_the_step(self):
        write_json(self.tmp / "api.json", {"results": [{"id": 1}], "count": 1})
        r = self.list(str(self.tmp / "api.json"), "--items", ".data.images[]")
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertEqual(r.stderr.strip(),
                         "vitrine: api.json: --items .data.images[]: .data matched nothing "
                         "(keys at top level: count, results)")
        self.assertEqual(r.stdout, "")

    def test_expression_syntax_error_points_at_the_column(self):
        r = self.list(str(self.tmp / "never-read.json"), "--title", ".a // .b[")
        self.assertEqual(r.returncode, 64, r.stderr)
        lines = r.stderr.rstrip("\n").split("\n")
        self.assertEqual(lines[0], "vitrine: --title '.a // .b[': column 9: '[' is never closed")
        self.assertEqual(lines[1], "  .a // .b[")
        self.assertEqual(lines[2], "          ^")

    def test_presets(self):
        write_json(self.tmp / "g.json", {"has_more": False, "results": [
            {"title": "A", "url": "flags/fr.png", "content": {"src": "full.png"}}]})
        r = self.list(str(self.tmp / "g.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(self.rows(r)[0][2].endswith("/full.png"), r.stdout)
        r = self.list(str(self.tmp / "g.json"), "--preset", "generic")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(self.rows(r)[0][2].endswith("/flags/fr.png"), r.stdout)
        r = self.list(str(self.tmp / "g.json"), "--preset", "myspace")
        self.assertEqual(r.returncode, 64)
        self.assertIn("unknown preset 'myspace' (valid: countriesPlist, plainArray, deviantArt,", r.stderr)
        r = self.list(str(self.tmp / "g.json"), "--preset", "reddit", "--items", ".results[]")
        self.assertEqual(r.returncode, 64)
        self.assertIn("cannot be combined", r.stderr)

    def test_an_http_url_without_a_host_is_a_usage_error(self):
        for url in ("http://", "https:///g.json"):
            r = self.list(url)
            self.assertEqual(r.returncode, 64, url)
            self.assertIn("not a valid URL: %s" % url, r.stderr)

    # untrusted input

    def test_overlong_titles_are_cut_by_display_width(self):
        write_json(self.tmp / "long.json", [{"title": "界" * 500, "url": "a.png"}, {"title": "x" * 10000, "url": "b.png"}])
        r = self.list(str(self.tmp / "long.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        titles = [t for t, _, _ in self.rows(r)]
        self.assertEqual(titles[0], "界" * 99 + "…")
        self.assertEqual(titles[1], "x" * 199 + "…")

    def test_a_gallery_over_the_size_cap_is_refused(self):
        big = self.tmp / "big.json"
        with open(big, "wb") as f:
            f.write(b'[{"title": "a", "url": "a.png"}' + b" " * ((64 << 20) + 16) + b"]")
        started = time.monotonic()
        r = self.list(str(big))
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertIn("big.json: gallery larger than the 64 MiB limit", r.stderr)
        self.assertLess(time.monotonic() - started, 10)

    def test_a_gallery_over_the_size_cap_is_refused_over_http(self):
        big = self.tmp / "big.json"
        with open(big, "wb") as f:
            f.write(b'[{"title": "a", "url": "a.png"}' + b" " * ((64 << 20) + 16) + b"]")
        server = self.serve(self.tmp)
        started = time.monotonic()
        r = self.list(server.url("big.json"))
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertIn("64 MiB", r.stderr)
        self.assertLess(time.monotonic() - started, 10)

    def test_deep_nesting_is_an_error_not_a_crash(self):
        deep = self.tmp / "deep.json"
        deep.write_text("[" * 100000 + "]" * 100000)
        r = self.list(str(deep))
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertIn("deep.json", r.stderr)


if __name__ == "__main__":
    unittest.main()
