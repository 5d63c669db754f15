"""End-to-end tests of `vitrine GALLERY` in a real terminal (tmux) against a loopback server.

Run with `python3 Tests/EndToEnd/run.py` (or `python3 -m unittest` from this folder).
The binary comes from $VITRINE_BIN (default <repo>/.build/release/vitrine).
"""

import os
import re
import signal
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (  # noqa: E402
    DEMO, HALF_BLOCK, SPINNER_GLYPHS, E2ETestCase, binary, column_of, display_width, find_row,
    image_size, kill_pid, link_demo, wait_until, write_json)

PICTURES = ["sunset.png", "mandelbrot.png", "colour-wheel.png", "test-chart.png", "tall.png", "panorama.png"]
TEXT_X = 19          # text column at 100 (and 60) columns: thumbnail box 16 wide + 3


def demo_root(tmp, count=30):
    """A server root with the demo pictures linked in and gallery.json of `count` items
    ("Picture I", relative URLs pictures/NAME cycling through PICTURES)."""
    root = tmp / "root"
    root.mkdir()
    link_demo(root, *("pictures/" + p for p in PICTURES), "flags/fr.png")
    items = [{"title": "Picture %d" % i, "url": "pictures/" + PICTURES[i % len(PICTURES)]} for i in range(count)]
    write_json(root / "gallery.json", items)
    return root, items


def size_text(path):
    w, h = image_size(path)
    return "%d × %d" % (w, h)


def request_indices(server):
    """Item indices I of logged /img/I/... requests, in log order."""
    out = []
    for line in server.requests():
        m = re.match(r"\w+ /img/(\d+)/", line)
        if m:
            out.append(int(m.group(1)))
    return out


class BrowserTests(E2ETestCase):

    # 1
    def test_spinner_first_then_thumbnails(self):
        root, items = demo_root(self.tmp)
        server = self.serve(root, delay=1.5)
        term = self.launch([server.url("gallery.json")])
        # Before the delayed images arrive: an animated braille spinner and "loading…".
        glyphs, places = set(), set()

        def spinning():
            lines = term.capture()
            for y, line in enumerate(lines[:-1]):
                for c in SPINNER_GLYPHS:
                    if c in line:
                        glyphs.add(c)
                        places.add((y, column_of(line, c)))
            return len(glyphs) >= 2 and "loading…" in "\n".join(lines)
        wait_until(spinning, 1.4, 0.05)
        self.assertTrue(glyphs, "no spinner glyph (%s) while loading; screen:\n%s" % (SPINNER_GLYPHS, term.text()))
        self.assertGreaterEqual(len(glyphs), 2, "spinner did not animate (only saw %s)" % glyphs)
        # One spinner per visible row, in the middle of its thumbnail box (line 1 of the
        # row's 4-line box, column 1 + 16/2).
        self.assertEqual({y for y, x in places}, {1, 6, 11, 16, 21}, "spinner lines: %s" % sorted(places))
        self.assertEqual({x for y, x in places}, {9}, "spinner columns: %s" % sorted(places))
        # Then the real sizes and colour half blocks.
        expected = size_text(DEMO / "pictures" / PICTURES[0])
        self.assertEqual(expected, "1024 × 768")
        term.wait_text(expected, timeout=10)
        self.wait_settled(term, timeout=10)
        screen = term.text()
        for i in range(5):  # the 5 visible rows
            self.assertIn(size_text(DEMO / "pictures" / PICTURES[i]), screen)
        self.assertFalse(any(c in SPINNER_GLYPHS for c in screen), "spinner left on screen:\n" + screen)
        self.assertNotIn("loading…", screen)
        colour = "\n".join(term.capture(escapes=True))
        self.assertIn(HALF_BLOCK, colour)
        self.assertRegex(colour, r"\x1b\[(?:[0-9;]*;)?38;2;\d+;\d+;\d+(?:;[0-9;]*)?m",
                         "no truecolor foreground escapes with COLORTERM=truecolor")
        self.assertIn("loaded 6 · loading 0 · failed 0", term.status())

    def test_demo_gallery_without_argument(self):
        import plistlib
        with open(DEMO / "gallery.plist", "rb") as f:
            demo = plistlib.load(f)
        countries = demo["countries"]
        term = self.launch([])
        lines = term.wait_for(lambda lines: re.search(r"1/%d .*H help" % len(countries), lines[-1]), 10,
                              "the demo gallery (%d items)" % len(countries))
        self.wait_settled(term)
        lines = term.capture()
        first = countries[0]
        y = find_row(lines, first["name"])
        self.assertEqual(y, 0, "first demo item %r not at the top:\n%s" % (first["name"], "\n".join(lines)))
        self.assertIn(os.path.basename(first["url"]), lines[1])
        self.assertIn(size_text(DEMO / first["url"]), lines[2])
        self.assertIn("failed 0", lines[-1])

    # 1b: without COLORTERM the 256-colour terminfo is used
    def test_thumbnails_256_colours_without_colorterm(self):
        root, items = demo_root(self.tmp, count=6)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")], truecolor=False)
        self.wait_started(term)
        self.wait_settled(term)
        colour = "\n".join(term.capture(escapes=True))
        self.assertIn(HALF_BLOCK, colour)
        self.assertRegex(colour, r"\x1b\[(?:[0-9;]*;)?38;5;\d+", "no 256-colour escapes")
        self.assertNotRegex(colour, r"38;2;\d+;\d+;\d+", "truecolor used without COLORTERM")

    # 1c: --colors truecolor without COLORTERM takes the direct-colour terminfo entry itself
    def test_colors_truecolor_option_without_colorterm(self):
        root, items = demo_root(self.tmp, count=6)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json"), "--colors", "truecolor"], truecolor=False)
        self.wait_started(term)
        self.wait_settled(term)
        colour = "\n".join(term.capture(escapes=True))
        self.assertIn(HALF_BLOCK, colour)
        self.assertRegex(colour, r"\x1b\[(?:[0-9;]*;)?38;2;\d+;\d+;\d+(?:;[0-9;]*)?m",
                         "--colors truecolor drew no truecolor escapes")

    # 2
    def test_lazy_loading_requests_only_rows_near_the_viewport(self):
        server = self.serve(DEMO)
        term = self.launch([server.url("gallery/1000.json?img=flags/fr.png")])
        self.wait_started(term)
        self.wait_settled(term)
        time.sleep(0.3)  # any stray extra request would show up in the log by now
        self.assertEqual(sorted(request_indices(server)), list(range(6)),
                         "start-up should request rows 0-4 (visible) and 5 (look-ahead)")
        self.assertIn("1/1000", term.status())

        max_wanted = 5
        for page in range(1, 4):
            term.keys("NPage")
            term.wait_for(lambda lines, p=page: ("%d/1000" % (p * 5 + 1)) in lines[-1]
                          and "loading 0 " in lines[-1], 10, "page %d loaded" % page)
            top = page * 5
            self.assertEqual(find_row(term.capture(), "Item %d" % top), 0, "row %d not at the top" % top)
            max_wanted = top + 5  # visible top..top+4, plus one look-ahead row
        time.sleep(0.3)
        seen = request_indices(server)
        self.assertTrue(seen and max(seen) <= max_wanted,
                        "requested rows beyond the viewport + look-ahead (max %d): %s" % (max_wanted, sorted(set(seen))))
        self.assertEqual(sorted(set(seen)), list(range(max_wanted + 1)))
        self.assertEqual(len(seen), len(set(seen)), "an image was requested twice: %s" % sorted(seen))
        before_end = len(seen)

        term.keys("G")
        term.wait_for(lambda lines: "1000/1000" in lines[-1] and "loading 0 " in lines[-1], 10, "the last page loaded")
        time.sleep(0.3)
        lines = term.capture()
        self.assertIsNotNone(find_row(lines, "Item 999"))
        self.assertEqual(find_row(lines, "Item 995"), 0)
        new = request_indices(server)[before_end:]
        self.assertTrue(new, "nothing requested at the end")
        self.assertTrue(all(994 <= i <= 999 for i in new),
                        "after G only rows 994-999 (visible + look-ahead) should load: %s" % sorted(new))
        self.assertLess(len(request_indices(server)), 40, "far too many requests for 4 pages")

    # 3
    def test_same_url_is_requested_once(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "pictures/sunset.png")
        write_json(root / "gallery.json", [{"title": "Same %d" % i, "url": "pictures/sunset.png"} for i in range(20)])
        server = self.serve(root, delay=0.7)
        # Row height 3: rows 0-8 visible + 1 look-ahead all wait on the same slow load.
        term = self.launch([server.url("gallery.json"), "--row-height", "3"])
        self.wait_started(term)
        term.wait_for(lambda lines: "loaded 10 · loading 0 " in lines[-1], 10, "the first 10 rows loaded")
        term.keys("G")
        term.wait_for(lambda lines: "20/20" in lines[-1] and "loaded 20 · loading 0 · failed 0" in lines[-1], 10,
                      "all 20 rows loaded")
        time.sleep(0.3)
        self.assertEqual(server.image_requests(), ["GET /pictures/sunset.png"])
        self.assertIn("1024 × 768", term.text())

    # 4
    def test_failure_rows(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "pictures/sunset.png", "flags/fr.png")
        write_json(root / "gallery.json", [
            {"title": "Good sunset", "url": "pictures/sunset.png"},
            {"title": "Missing one", "url": "status/404/x.png"},
            {"title": "Web page", "url": "html-as-jpeg/y.jpg"},
            {"title": "Good flag", "url": "flags/fr.png"},
        ])
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        self.wait_settled(term)
        lines = term.capture()

        def detail(title):
            y = find_row(lines, title)
            self.assertIsNotNone(y, "row %r not on screen:\n%s" % (title, "\n".join(lines)))
            return lines[y + 1], lines[y + 2]
        self.assertIn("sunset.png", detail("Good sunset")[0])
        self.assertIn("1024 × 768", detail("Good sunset")[1])
        self.assertIn("x.png", detail("Missing one")[0])
        self.assertIn("✗ HTTP 404", detail("Missing one")[1])
        self.assertIn("✗ not an image", detail("Web page")[1])
        self.assertIn("180 × 120", detail("Good flag")[1])
        self.assertIn("loaded 2 · loading 0 · failed 2", lines[-1])
        # The failure glyph stands in the middle of the thumbnail box of the failed rows.
        for title in ("Missing one", "Web page"):
            y = find_row(lines, title)
            self.assertEqual(column_of(lines[y + 1], "✗"), 9, "no ✗ in the thumbnail box: %r" % lines[y + 1])

    # 4b
    def test_retry_reloads_the_selected_row(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "flags/fr.png", "pictures/sunset.png")
        write_json(root / "gallery.json", [
            {"title": "Flaky once", "url": "flaky/4/e2e-retry/flags/fr.png"},
            {"title": "Good one", "url": "pictures/sunset.png"},
            {"title": "Flaky twice", "url": "flaky/2/e2e-auto/flags/fr.png"},
        ])
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        # 503 is transient: the pipeline tries twice more (0.5 s, then 1 s later) on its own.
        # "Flaky twice" succeeds on its third request; "Flaky once" is still failing then.
        lines = term.wait_for(lambda lines: "loaded 2 · loading 0 · failed 1" in lines[-1], 10,
                              "one failed and two loaded rows after automatic retries")
        self.assertEqual(sum("/flaky/2/" in l for l in server.requests()), 3)
        self.assertEqual(sum("/flaky/4/" in l for l in server.requests()), 3)
        y = find_row(lines, "Flaky once")
        self.assertIn("✗ HTTP 503", lines[y + 2])
        # r asks again: the 4th request still fails and its retry (the 5th) succeeds.
        term.keys("r")
        lines = term.wait_for(lambda lines: "loaded 3 · loading 0 · failed 0" in lines[-1], 10,
                              "the retried row loaded")
        self.assertIn("180 × 120", lines[find_row(lines, "Flaky once") + 2])
        self.assertEqual(sum("/flaky/4/" in l for l in server.requests()), 5)
        # r on a loaded row is a fresh download (a new request, even if only conditional).
        term.keys("j")
        term.wait_for(lambda lines: "2/3" in lines[-1], 5, "2/3")
        term.keys("r")
        self.assertTrue(wait_until(lambda: sum("/pictures/sunset.png" in l for l in server.requests()) == 2, 5),
                        "r did not fetch the loaded row again: %s" % server.requests())
        lines = term.wait_for(lambda lines: "loaded 3 · loading 0 · failed 0" in lines[-1], 10, "reloaded row")
        self.assertIn("1024 × 768", lines[find_row(lines, "Good one") + 2])

    # keys
    def test_navigation_keys(self):
        root, items = demo_root(self.tmp, count=30)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        steps = [("Space", 6, 5), ("b", 1, 0), ("End", 30, 25), ("Home", 1, 0), ("G", 30, 25), ("g", 1, 0),
                 ("Down", 2, 0), ("j", 3, 0), ("Up", 2, 0), ("k", 1, 0), ("NPage", 6, 5), ("PPage", 1, 0),
                 ("C-d", 3, 0), ("C-u", 1, 0), ("C-f", 6, 5), ("C-b", 1, 0)]
        for key, position, top in steps:
            term.keys(key)
            lines = term.wait_for(lambda lines, p=position: re.search(r"\s%d/30\s" % p, lines[-1]), 5,
                                  "%d/30 after %s" % (position, key))
            self.assertEqual(find_row(lines, "Picture %d" % top), 0,
                             "after %s row %d should be at the top:\n%s" % (key, top, "\n".join(lines)))
            y = find_row(lines, "Picture %d" % (position - 1))
            self.assertTrue(y is not None and lines[y].startswith("▌"), "selected row not marked after " + key)

    def test_late_terminal_replies_are_not_keys(self):
        # A terminal that answers the start-up probe after its deadline (a loaded machine)
        # sends the answers to curses: device attributes, XTVERSION, kitty's and OSC 11's
        # replies must not act as keys (`?`, digits, `c` ...); the key after them still does.
        root, items = demo_root(self.tmp, count=30)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        self.wait_settled(term)
        for reply in ["\x1b[?1;2c", "\x1b[>41;379;0c", "\x1bP>|xterm(379)\x1b\\", "\x1b_Gi=31;OK\x1b\\",
                      "\x1b]11;rgb:0000/0000/0000\x1b\\"]:
            term.literal(reply + "j")
        lines = term.wait_for(lambda lines: re.search(r"\s6/30\s", lines[-1]), 5, "6/30 after five j")
        text = "\n".join(lines)
        self.assertNotIn("matching", text)
        self.assertNotIn("Vitrine keys", text)
        self.assertNotIn("rgb:", text)

    def test_help_overlay(self):
        root, items = demo_root(self.tmp, count=6)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        self.wait_settled(term)
        term.keys("H")
        lines = term.wait_for(lambda lines: "Vitrine keys" in "\n".join(lines), 5, "the help overlay")
        text = "\n".join(lines)
        for words in ("move", "first / last", "open the full view", "quit"):
            self.assertIn(words, text)
        term.keys("x")
        lines = term.wait_for(lambda lines: "Vitrine keys" not in "\n".join(lines), 5, "the help to close")
        self.assertIsNotNone(find_row(lines, "Picture 1"), "table not redrawn after the help:\n" + "\n".join(lines))
        self.assertIn("800 × 600", lines[find_row(lines, "Picture 1") + 2])
        self.assertTrue(term.vitrine_pids())

    def test_idle_uses_no_cpu(self):
        root, items = demo_root(self.tmp, count=12)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        self.wait_settled(term)
        pid = term.vitrine_pids()[0]

        def cpu_ticks():
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime + stime
        time.sleep(0.2)
        before = cpu_ticks()
        time.sleep(1.5)
        used = cpu_ticks() - before
        hz = os.sysconf("SC_CLK_TCK")
        self.assertLessEqual(used, max(2, hz // 50), "idle browser used %d ticks (1/%d s) in 1.5 s" % (used, hz))

    # 5
    def test_full_view_next_and_back(self):
        root, items = demo_root(self.tmp, count=12)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        self.wait_settled(term)
        term.keys("j")
        term.wait_for(lambda lines: "2/12" in lines[-1], 5, "selection on row 2")
        term.keys("Enter")
        url1 = server.url("pictures/" + PICTURES[1])
        lines = term.wait_for(lambda lines: "Picture 1" in lines[-1] and "800 × 600" in lines[-1], 10,
                              "the full view of Picture 1")
        self.assertIn(url1, lines[-1])
        self.assertIn("2/12", lines[-1])
        art = term.capture()[:-1]
        art_lines = [l for l in art if l.count(HALF_BLOCK) > 0]
        cells = sum(l.count(HALF_BLOCK) for l in art)
        # 800x600 fitted into 100x29 cells: 77x29 cells of art.
        self.assertGreaterEqual(len(art_lines), 25, "full view is not mostly half-block art:\n" + "\n".join(art))
        self.assertGreater(cells, 0.5 * 100 * 29, "too few half blocks (%d)" % cells)
        self.assertNotIn("Picture 0", "\n".join(art), "table still drawn under the full view")

        term.keys("n")
        lines = term.wait_for(lambda lines: "Picture 2" in lines[-1] and "512 × 512" in lines[-1], 10,
                              "the full view of Picture 2 after n")
        self.assertIn(server.url("pictures/" + PICTURES[2]), lines[-1])
        self.assertIn("3/12", lines[-1])

        term.keys("q")
        lines = term.wait_for(lambda lines: re.search(r"gallery\.json\s+3/12", lines[-1]), 5, "the table with 3/12")
        y = find_row(lines, "Picture 2")
        self.assertIsNotNone(y, "selected item not on screen")
        self.assertTrue(lines[y].startswith("▌"), "row of Picture 2 is not marked selected:\n" + "\n".join(lines))
        self.assertTrue(term.vitrine_pids(), "q in the full view must not quit")

        # p goes back, Esc and Backspace also return to the table (← pans in the full view).
        term.keys("Enter")
        term.wait_for(lambda lines: "Picture 2" in lines[-1] and "n/p" in lines[-1], 10, "full view of Picture 2")
        term.keys("p")
        term.wait_for(lambda lines: "Picture 1" in lines[-1] and "800 × 600" in lines[-1], 10, "Picture 1 after p")
        term.keys("Escape")
        term.wait_for(lambda lines: re.search(r"gallery\.json\s+2/12", lines[-1]), 5, "the table with 2/12 after Esc")
        term.keys("Enter")
        term.wait_for(lambda lines: "Picture 1" in lines[-1] and "n/p" in lines[-1], 10, "full view again")
        term.keys("BSpace")
        term.wait_for(lambda lines: re.search(r"gallery\.json\s+2/12", lines[-1]), 5, "the table after Backspace")

    # 6a
    def test_quit_restores_the_terminal(self):
        root, items = demo_root(self.tmp, count=6)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        self.assertNotIn("BEFORE-VITRINE-MARKER", term.text(), "not on the alternate screen")
        self.assertEqual(term.display("#{alternate_on}"), "1")
        self.assertEqual(len(term.vitrine_pids()), 1)
        term.keys("q")
        term.wait_text("EXITED=0", timeout=5)
        screen = term.text()
        self.assertIn("BEFORE-VITRINE-MARKER", screen, "normal screen not restored")
        self.assertNotIn("H help", screen, "the browser's screen is still showing")
        self.assertTrue(wait_until(lambda: not term.vitrine_pids(), 3), "vitrine still running")
        self.assertEqual(term.display("#{alternate_on}"), "0")
        self.assertEqual(term.display("#{cursor_flag}"), "1")

    # 6b
    def test_sigterm_restores_the_terminal(self):
        self._signal_restores(signal.SIGTERM, 143)

    # 6c
    def test_sigint_restores_the_terminal(self):
        self._signal_restores(signal.SIGINT, 130)

    # 6d
    def test_sighup_restores_the_terminal(self):
        self._signal_restores(signal.SIGHUP, 129)

    def _signal_restores(self, sig, status):
        root, items = demo_root(self.tmp, count=6)
        server = self.serve(root, delay=5)  # still loading (spinner ticking) when the signal comes
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        pids = term.vitrine_pids()
        self.assertEqual(len(pids), 1, "cannot find the vitrine process")
        kill_pid(pids[0], sig)
        term.wait_text("EXITED=%d" % status, timeout=5)
        self.assertIn("BEFORE-VITRINE-MARKER", term.text())
        self.assertTrue(wait_until(lambda: not term.vitrine_pids(), 3), "vitrine still running")
        self.assertEqual(term.display("#{alternate_on}"), "0", "alternate screen still on after %s" % sig.name)
        self.assertEqual(term.display("#{cursor_flag}"), "1", "cursor hidden after %s" % sig.name)

    # 7
    def run_direct(self, *args):
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache), LANG="C.UTF-8")
        return subprocess.run([binary(), *args], capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, env=env)

    def test_bad_input_statuses(self):
        broken = self.tmp / "broken.json"
        broken.write_text('[\n  {"title": "a", "url": "a.png"},\n  {"title": "b", "url": }\n]\n', encoding="utf-8")
        r = self.run_direct(str(broken))
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertRegex(r.stderr, r"broken\.json:3:(\d+):", "message must name the file and line:column")
        column = int(re.search(r"broken\.json:3:(\d+):", r.stderr).group(1))
        self.assertEqual(column, '  {"title": "b", "url": }'.index("}") + 1, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, "one-line message expected: %r" % r.stderr)

        missing = self.tmp / "no-such-gallery.json"
        r = self.run_direct(str(missing))
        self.assertEqual(r.returncode, 66, r.stderr)
        self.assertIn("no-such-gallery.json", r.stderr)

        r = self.run_direct("--bogus")
        self.assertEqual(r.returncode, 64, r.stderr)
        self.assertIn("--bogus", r.stderr)
        self.assertEqual(r.stdout, "")

        r = self.run_direct("--row-height", "1", str(broken))
        self.assertEqual(r.returncode, 64, r.stderr)

    def test_gallery_fetch_failures(self):
        server = self.serve(DEMO)
        r = self.run_direct(server.url("status/404/gallery.json"))
        self.assertEqual(r.returncode, 66, r.stderr)
        self.assertIn("404", r.stderr)
        r = self.run_direct(server.url("status/500/gallery.json"))
        self.assertEqual(r.returncode, 69, r.stderr)
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            closed_port = s.getsockname()[1]
        r = self.run_direct("http://127.0.0.1:%d/gallery.json" % closed_port)
        self.assertEqual(r.returncode, 69, r.stderr)
        r = self.run_direct("ftp://127.0.0.1/gallery.json")
        self.assertEqual(r.returncode, 64, r.stderr)
        empty = self.tmp / "empty.json"
        empty.write_text("[]\n")
        r = self.run_direct(str(empty))
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertIn("empty.json", r.stderr)

    # small screens
    def test_screen_shorter_than_a_row(self):
        # A viewport shorter than one row must not crash (it did: SIGILL, exit 132).
        root, items = demo_root(self.tmp, count=12)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        self.wait_settled(term)
        term.keys("j")
        term.wait_for(lambda lines: "2/12" in lines[-1], 5, "2/12")
        term.resize(100, 5)  # 4 lines for rows of 5
        time.sleep(0.5)
        lines = term.capture()
        self.assertNotIn("EXITED=", "\n".join(lines), "vitrine died when the screen got shorter than a row:\n"
                         + "\n".join(lines))
        term.wait_for(lambda lines: len(lines) == 5 and "2/12" in lines[-1], 5, "the status line on line 5")
        self.assertIn("Picture 1", "\n".join(lines))
        term.resize(100, 30)
        lines = term.wait_for(lambda lines: len(lines) == 30 and "2/12" in lines[-1], 5, "status back on line 30")
        self.assertIsNotNone(find_row(lines, "Picture 1"))

    def test_row_taller_than_the_screen(self):
        # --row-height 40 in a 30-line terminal must not crash (it did: SIGILL, exit 132).
        root, items = demo_root(self.tmp, count=3)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json"), "--row-height", "40"])
        lines = term.wait_for(lambda lines: "EXITED=" in "\n".join(lines) or re.search(r"1/3 .*H help", lines[-1]),
                              10, "the browser or its exit")
        self.assertNotIn("EXITED=", "\n".join(lines), "vitrine died:\n" + "\n".join(lines))
        self.assertIsNotNone(find_row(lines, "Picture 0"))
        term.keys("j")
        lines = term.wait_for(lambda lines: "2/3" in lines[-1], 5, "2/3 after j")
        self.assertIsNotNone(find_row(lines, "Picture 1"))

    # 8
    def test_untrusted_titles(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "flags/fr.png", "pictures/sunset.png")
        cjk = "日本語のタイトル 東京"
        write_json(root / "gallery.json", [
            {"title": cjk + " END", "url": "flags/fr.png"},
            {"title": "\u001b[31mRED\u001b[0m plain", "url": "pictures/sunset.png"},
            {"title": "\u001b]0;pwned\u0007Safe title", "url": "flags/fr.png"},
            {"title": "Wide " + "漢字" * 60, "url": "flags/fr.png"},
        ])
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        self.wait_settled(term)
        lines = term.capture()
        text = "\n".join(lines)
        self.assertNotEqual(term.display("#{pane_title}"), "pwned", "an OSC in a title set the pane title")
        self.assertNotIn("pwned", text)
        self.assertNotIn("[31m", text)
        self.assertNotIn("]0;", text)
        self.assertIsNotNone(find_row(lines, "RED plain"), "sanitised title missing:\n" + text)
        self.assertIsNotNone(find_row(lines, "Safe title"))
        # No red from the title: the ESC[31m was not passed through.
        colour = term.capture(escapes=True)
        red_line = colour[find_row(lines, "RED plain")]
        self.assertNotRegex(red_line, r"\x1b\[(?:[0-9;]*;)?(31|38;5;1|38;2;\d+;0;0)m\s*RED")
        # CJK title: present, starting at the text column, followed by END at the right column.
        y = find_row(lines, cjk + " END")
        self.assertIsNotNone(y, "CJK title missing:\n" + text)
        self.assertEqual(column_of(lines[y], cjk), TEXT_X)
        self.assertEqual(column_of(lines[y], "END"), TEXT_X + display_width(cjk + " "))
        self.assertEqual(column_of(lines[y + 1], "fr.png"), TEXT_X)
        for title in ("RED plain", "Safe title"):
            yy = find_row(lines, title)
            self.assertEqual(column_of(lines[yy], title), TEXT_X, "title %r misaligned" % title)
            size = "1024 × 768" if title == "RED plain" else "180 × 120"
            self.assertEqual(column_of(lines[yy + 2], size), TEXT_X, "size of %r misaligned" % title)
        # A title too wide for the screen is cut with an ellipsis inside the screen.
        yw = next(i for i, l in enumerate(lines) if "Wide 漢字" in l)
        self.assertTrue(lines[yw].rstrip().endswith("…"), "long title not ellipsised: %r" % lines[yw])
        self.assertLessEqual(display_width(lines[yw].rstrip()), 100)
        self.assertEqual(column_of(lines[yw + 1], "fr.png"), TEXT_X)
        # Every line fits the 100 columns; the status line's right part ends at column 99.
        for line in lines:
            self.assertLessEqual(display_width(line), 100, "line overflows: %r" % line)
        self.assertEqual(display_width(lines[-1].rstrip()), 99, "status line misaligned: %r" % lines[-1])

    # 9
    def test_real_photos(self):
        mate = Path("/usr/share/backgrounds/mate")
        flags = Path("/usr/share/flags/countries/16x11")
        if not (mate / "nature" / "LadyBird.jpg").is_file():
            self.fail("missing %s: apt-get install mate-backgrounds" % (mate / "nature" / "LadyBird.jpg"))
        if not (flags / "fr.png").is_file():
            self.fail("missing %s: apt-get install famfamfam-flag-png" % (flags / "fr.png"))
        root = self.tmp / "root"
        (root / "mate").mkdir(parents=True)
        (root / "flags").mkdir()
        chosen = [mate / "nature" / "LadyBird.jpg", mate / "abstract" / "Elephants_5640x3172.jpg"]
        items = []
        for path in chosen:
            (root / "mate" / path.name).symlink_to(path)
            items.append({"title": path.stem, "url": "mate/" + path.name, "size": size_text(path)})
        for code in ["fr", "de", "jp", "br", "us", "gb", "ca", "in", "za", "np"]:
            src = flags / (code + ".png")
            self.assertTrue(src.is_file(), "missing %s (package famfamfam-flag-png)" % src)
            (root / "flags" / src.name).symlink_to(src)
            items.append({"title": "Flag %s" % code.upper(), "url": "flags/" + src.name, "size": size_text(src)})
        self.assertEqual(items[0]["size"], "2560 × 1600")
        self.assertEqual(items[1]["size"], "5640 × 3172")
        write_json(root / "gallery.json", [{"title": i["title"], "url": i["url"]} for i in items])
        server = self.serve(root)
        # 40 lines, rows of 3: all 12 items on one screen.
        term = self.launch([server.url("gallery.json"), "--row-height", "3"], height=40)
        self.wait_started(term)
        term.wait_for(lambda lines: "loaded 12 · loading 0 · failed 0" in lines[-1], 30, "all 12 real images loaded")
        lines = term.capture()
        for item in items:
            y = find_row(lines, item["title"])
            self.assertIsNotNone(y, "%s not on screen" % item["title"])
            self.assertIn(item["size"], lines[y + 2], "%s: wrong size line %r" % (item["title"], lines[y + 2]))
        colour = "\n".join(term.capture(escapes=True))
        self.assertIn(HALF_BLOCK, colour)
        self.assertEqual(len(server.image_requests()), 12)

    # 10
    def test_resize_keeps_selection(self):
        root, items = demo_root(self.tmp, count=30)
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        for _ in range(7):
            term.keys("j")
        lines = term.wait_for(lambda lines: "8/30" in lines[-1], 5, "selection on row 8")
        self.assertEqual(find_row(lines, "Picture 7"), 5 * (7 - 3), "row 8 expected 5th on screen")
        self.wait_settled(term)

        term.resize(60, 20)
        lines = term.wait_for(lambda lines: len(lines) == 20 and re.match(r" gallery\.json\s+8/30 ", lines[-1]),
                              5, "the status line at the new bottom (line 20)")
        self.assertEqual(term.display("#{window_width}x#{window_height}"), "60x20")
        y = find_row(lines, "Picture 7")
        self.assertIsNotNone(y, "selected item scrolled off after resize:\n" + "\n".join(lines))
        self.assertLessEqual(y + 4, 19, "selected row not fully visible")
        self.assertTrue(lines[y].startswith("▌"), "selection mark lost")
        self.assertEqual(column_of(lines[y], "Picture 7"), TEXT_X)
        for line in lines:
            self.assertLessEqual(display_width(line), 60, "line wider than the new screen: %r" % line)
        # 19 lines / 5 = 3 rows on screen now.
        titles = [l for l in lines[:-1] if re.search(r"Picture \d+\s*$", l)]
        self.assertEqual(len(titles), 3, "\n".join(lines))
        self.wait_settled(term)

        # Bigger again: still selected, more rows, status at line 40.
        term.resize(100, 40)
        lines = term.wait_for(lambda lines: len(lines) == 40 and "8/30" in lines[-1], 5, "status at line 40")
        self.assertIsNotNone(find_row(lines, "Picture 7"))
        titles = [l for l in lines[:-1] if re.search(r"Picture \d+\s*$", l)]
        self.assertEqual(len(titles), 7, "\n".join(lines))
        self.wait_settled(term)
        # Moving still works after the resizes.
        term.keys("j")
        term.wait_for(lambda lines: "9/30" in lines[-1], 5, "9/30 after j")


if __name__ == "__main__":
    unittest.main()
