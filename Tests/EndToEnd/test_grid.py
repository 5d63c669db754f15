"""End-to-end tests of the grid, thumbnail sizes, search, filter, sort, counts and the mouse,
in a real terminal (tmux) on real photos (mate-backgrounds) and flags (famfamfam-flag-png)
served over loopback; the server's log shows what was requested.

Run with `python3 Tests/EndToEnd/run.py -k Grid` (the binary: $VITRINE_BIN, default
<repo>/.build/release/vitrine).
"""

import re
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import HALF_BLOCK, E2ETestCase, wait_until, write_json  # noqa: E402

MATE = Path("/usr/share/backgrounds/mate")
FLAGS = Path("/usr/share/flags/countries/16x11")


def click(term, x, y):
    """A press and its release at cell (x, y), apart as a terminal sends them (ncurses 6.4
    keeps only the first of several reports that arrive in one read)."""
    for button in (0, 3):
        term.tmux("send-keys", "-t", "e2e", "-H", *x10_mouse(button, x, y))
        time.sleep(0.03)


def x10_mouse(button, x, y):
    """The bytes of an X10 mouse report (what ncurses asks tmux for under TERM=tmux-256color):
    ESC [ M, then 32+button, 33+column, 33+line, as hex for `tmux send-keys -H`."""
    return ["1b", "5b", "4d"] + ["%02x" % v for v in (32 + button, 33 + x, 33 + y)]


class GridTests(E2ETestCase):

    def real_gallery(self):
        """Every mate photo ("LadyBird (nature)"), then every flag ("Flag FR", fr.png): a
        server root and the items in gallery order."""
        for path in (MATE / "nature" / "LadyBird.jpg", FLAGS / "fr.png"):
            if not path.is_file():
                self.fail("missing %s: apt-get install mate-backgrounds famfamfam-flag-png" % path)
        root = self.tmp / "root"
        (root / "mate").mkdir(parents=True)
        (root / "flags").mkdir()
        items = []
        for path in sorted(MATE.glob("*/*")):
            if path.suffix not in (".jpg", ".png"):
                continue
            name = "%s-%s" % (path.parent.name, path.name)
            (root / "mate" / name).symlink_to(path)
            items.append({"title": "%s (%s)" % (path.stem, path.parent.name), "url": "mate/" + name})
        for path in sorted(FLAGS.glob("*.png")):
            (root / "flags" / path.name).symlink_to(path)
            items.append({"title": "Flag %s" % path.stem.upper(), "url": "flags/" + path.name})
        write_json(root / "gallery.json", items)
        return root, items

    def start(self, args, width=100, height=30):
        root, items = self.real_gallery()
        server = self.serve(root)
        term = self.launch([server.url("gallery.json"), "--no-disk-cache", *args], width=width, height=height)
        self.wait_started(term)
        return server, term, items

    def position(self, term):
        m = re.search(r"\s(\d+)/(\d+)\s", term.status())
        return (int(m.group(1)), int(m.group(2))) if m else None

    def wait_position(self, term, position, what):
        return term.wait_for(lambda lines: re.search(r"\s%d/\d+\s" % position, lines[-1]), 10,
                             "%s at %d" % (what, position))

    def settled_requests(self, server, term, timeout=30):
        self.wait_settled(term, timeout)
        time.sleep(0.3)
        return server.image_requests()

    def test_grid_toggle_sizes_and_what_is_requested(self):
        server, term, items = self.start([])
        first = self.settled_requests(server, term)
        # The list: 5 rows on screen of 5 lines, plus one of look-ahead
        self.assertEqual(len(first), 6, first)
        term.keys("v")
        # The grid at 100x30, 16x8-cell boxes in 20x9 slots: 5 per row, 3 rows
        lines = term.wait_for(lambda lines: sum(it["title"][:9] in lines[8] for it in items[:5]) >= 3, 10,
                              "five titles on line 8")
        grid = self.settled_requests(server, term)
        paths = [r.split(" ", 1)[1] for r in grid]
        # 15 on screen plus a row of 5 below: the first 20 items, each asked for once at the
        # grid's box; the 6 from the list again (another box), nothing else
        wanted = ["/" + it["url"] for it in items[:20]]
        self.assertEqual(sorted(set(paths)), sorted(wanted), paths)
        self.assertEqual(len(paths), 6 + 20, paths)
        art = "\n".join(term.capture(escapes=True))
        self.assertIn(HALF_BLOCK, art)
        self.assertEqual(self.position(term), (1, len(items)))

        # Smaller: 12x6 boxes, 7 per row, 4 rows (28) plus a row of look-ahead
        term.keys("-")
        term.wait_for(lambda lines: sum(1 for it in items[:7] if it["title"][:6] in lines[6]) >= 5, 10,
                      "seven titles on line 6")
        wanted = {"/" + it["url"] for it in items[:35]}

        def new_paths():
            return {r.split(" ", 1)[1] for r in server.image_requests()[len(grid):]}
        wait_until(lambda: new_paths() >= wanted and "loading 0 " in term.capture()[-1], 30)
        self.settled_requests(server, term)
        after_minus = server.image_requests()
        self.assertEqual(sorted(new_paths()), sorted(wanted))
        # Back to the size that is loaded: answered from the memory cache, no request at all
        term.keys("+")
        term.wait_for(lambda lines: sum(it["title"][:9] in lines[8] for it in items[:5]) >= 3, 10, "the 16x8 grid")
        self.assertEqual(len(self.settled_requests(server, term)), len(after_minus))

        # Moves in two dimensions: l, j, then a count
        term.keys("l")
        self.wait_position(term, 2, "l")
        term.keys("j")
        self.wait_position(term, 7, "j")
        term.keys("2", "j")
        self.wait_position(term, 17, "2j")
        term.keys("G")
        self.wait_position(term, len(items), "G")
        lines = self.wait_settled(term)
        # At the end only the last screens' items were requested (nothing in between)
        asked = {r.split(" ", 1)[1] for r in server.image_requests()}
        middle = {"/" + it["url"] for it in items[60:len(items) - 40]}
        self.assertFalse(asked & middle, "items never near the screen were requested: %s" % sorted(asked & middle)[:5])
        self.assertTrue(term.vitrine_pids())

    def test_view_grid_option_and_grid_fills_a_wide_screen(self):
        server, term, items = self.start(["--view", "grid", "--grid-size", "4"], width=200, height=60)
        lines = self.wait_settled(term, 60)
        # 8x4 boxes in 10x5 slots: 20 per row, 11 rows; titles on line 4 across the width
        self.assertRegex(lines[4], r"^\s*\S")
        self.assertGreater(len(lines[4].rstrip()), 180, lines[4])
        self.assertGreaterEqual(len(server.image_requests()), 220)

    def test_search_filter_sort_and_jumps(self):
        server, term, items = self.start(["--view", "grid"])
        total = len(items)
        flags_f = [i for i, it in enumerate(items) if it["title"].startswith("Flag F")]
        self.assertGreaterEqual(len(flags_f), 3)
        # Incremental search with smart case: "Flag F" matches case exactly
        term.keys("/")
        term.literal("Flag F")
        lines = term.wait_for(lambda lines: lines[-1].startswith("/Flag F"), 5, "the search prompt")
        self.assertIn("%d matching" % len(flags_f), lines[-1])
        # The first match is selected while typing: its slot carries the selection mark
        term.wait_for(lambda lines: any(l.startswith(" ▌") for l in lines[:-1]), 5, "the selection on screen")
        term.keys("Enter")
        self.wait_position(term, flags_f[0] + 1, "the first match")
        term.keys("n")
        self.wait_position(term, flags_f[1] + 1, "n")
        term.keys("N")
        self.wait_position(term, flags_f[0] + 1, "N")
        term.keys("N")
        lines = self.wait_position(term, flags_f[-1] + 1, "N wrapping to the last match")
        self.assertIn("wrapped", lines[-1])
        # Matches are underlined (SGR 4) on screen
        screen = "\n".join(term.capture(escapes=True))
        self.assertRegex(screen, r"\x1b\[[0-9;]*4[0-9;]*m[^\x1b]*Flag F", "no underlined match")

        # A filter: only the elephants, in the grid and the list; the status says so
        term.keys("&")
        term.literal("elephant")
        term.keys("Enter")
        elephants = [it for it in items if "elephant" in it["title"].lower()]
        lines = term.wait_for(lambda lines: "& elephant: %d of %d" % (len(elephants), total) in lines[-1], 5,
                              "the filter in the status line")
        self.assertIn("/%d " % len(elephants), lines[-1])
        body = "\n".join(lines[:-1])
        self.assertIn("Elephants", body)
        self.assertNotIn("Flag", body)
        term.keys("v")
        lines = term.wait_for(lambda lines: sum("(abstract)" in l for l in lines[:-1]) == len(elephants), 5,
                              "the filtered list")
        self.assertNotIn("Flag", "\n".join(lines[:-1]))
        term.keys("Escape")
        term.wait_for(lambda lines: ("/%d " % total) in lines[-1] and "&" not in lines[-1], 5, "the filter cleared")

        # Sort by title (natural order), reversed, and back
        term.keys(",")
        lines = term.wait_for(lambda lines: "sort: title ↑" in lines[-1], 5, "the title sort")
        first_title = sorted((it["title"] for it in items), key=str.lower)[0]
        term.keys("g")
        lines = self.wait_position(term, 1, "g")
        self.assertTrue(lines[0].endswith(first_title) or first_title in lines[0], lines[0])
        term.keys("S")
        term.wait_for(lambda lines: "sort: title ↓" in lines[-1], 5, "the reversed sort")
        term.keys(",", ",", ",")
        term.wait_for(lambda lines: "sort: gallery ↓" in lines[-1], 5, "gallery order, reversed")
        term.keys("S")
        term.wait_for(lambda lines: "sort:" not in lines[-1], 5, "gallery order again")

        # Counts and jumps
        term.keys("5", "0", "G")
        self.wait_position(term, 50, "50G")
        term.keys("5", "j")
        self.wait_position(term, 55, "5j")
        term.keys("5", "0", "%")
        self.wait_position(term, (50 * total + 99) // 100, "50%")
        term.keys("g")
        self.wait_position(term, 1, "g")

    def test_mouse_wheel_click_and_double_click(self):
        server, term, items = self.start(["--view", "grid"])
        self.assertEqual(term.display("#{mouse_standard_flag}"), "1", "mouse reports not asked for")
        self.wait_settled(term)
        before = set(server.image_requests())
        # A click on the third slot of the second row (20x9 slots): item 8
        click(term, 45, 10)
        self.wait_position(term, 8, "a click")
        # Wheel down three notches: three rows scroll, and their items are requested
        for _ in range(3):
            term.tmux("send-keys", "-t", "e2e", "-H", *x10_mouse(65, 10, 10))
            time.sleep(0.03)
        lines = term.wait_for(lambda lines: items[15]["title"][:9] in lines[8], 10, "row 3 at the top")
        self.wait_settled(term)
        self.assertIn("GET /" + items[25]["url"], set(server.image_requests()) - before)
        self.assertGreaterEqual(self.position(term)[0], 16, "the selection stays on screen")
        # A double click opens the full view
        click(term, 5, 1)
        click(term, 5, 1)
        lines = term.wait_for(lambda lines: "n/p q" in lines[-1], 10, "the full view")
        self.assertIn(items[15]["title"], lines[-1])
        term.keys("q")
        self.wait_position(term, 16, "back in the grid")

    def test_no_mouse_leaves_the_mouse_to_the_terminal(self):
        server, term, items = self.start(["--view", "grid", "--no-mouse"])
        # The terminal is never asked for mouse reports: its own selection works as always
        self.assertEqual(term.display("#{mouse_any_flag}"), "0", "mouse reports asked for with --no-mouse")
        term.keys("l")
        self.wait_position(term, 2, "l")
        self.assertEqual(term.display("#{mouse_any_flag}"), "0")

    def test_help_lists_the_grid_keys(self):
        server, term, items = self.start(["--view", "grid"], height=14)
        term.keys("H")
        lines = term.wait_for(lambda lines: "Vitrine keys" in "\n".join(lines), 5, "the help")
        text = "\n".join(lines)
        self.assertIn("move left / right", text)
        self.assertNotIn("quit from anywhere", text, "a 14-line screen cannot show every key at once")
        for _ in range(30):
            term.keys("j")
        term.wait_for(lambda lines: "quit from anywhere" in "\n".join(lines), 5, "the help scrolled to its end")
        term.keys("x")
        term.wait_for(lambda lines: "Vitrine keys" not in "\n".join(lines), 5, "the help closed")


if __name__ == "__main__":
    unittest.main()
