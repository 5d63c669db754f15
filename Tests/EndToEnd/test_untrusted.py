"""End-to-end tests of untrusted gallery content: items whose URL cannot be used fail on their
own row (in `vitrine list` and in the browser) instead of failing the whole gallery.

Run with `python3 Tests/EndToEnd/run.py -k Untrusted` (the binary comes from $VITRINE_BIN,
default <repo>/.build/release/vitrine).
"""

import json
import os
import re
import shlex
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase, Terminal, binary, find_row, link_demo, write_json  # noqa: E402

# (title, url, problem when the gallery is read over http)
BAD_ITEMS = [
    ("Local file", "file:///etc/passwd", "file: URL in a gallery read over http"),
    ("No host", "http:///x.png", "not a valid URL: 'http:///x.png'"),
    ("Script", "javascript:alert(1)", "unsupported URL scheme 'javascript'"),
]


class UntrustedListTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        self.root = self.tmp / "root"
        self.root.mkdir()
        link_demo(self.root, "flags/fr.png")

    def list(self, *args):
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache), LANG="C.UTF-8")
        return subprocess.run([binary(), "list", *args], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, env=env)

    def write_mixed(self):
        items = [{"title": "Good", "url": "flags/fr.png"}]
        items += [{"title": t, "url": u} for t, u, _ in BAD_ITEMS]
        items += [{"title": "Protocol-relative", "url": "//127.0.0.1:9/p.png"}, {"title": "Empty", "url": ""}]
        write_json(self.root / "mixed.json", items)

    def test_bad_rows_are_listed_with_their_problem_over_http(self):
        self.write_mixed()
        server = self.serve(self.root)
        r = self.list(server.url("mixed.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split("\t") for line in r.stdout.splitlines()]
        self.assertTrue(all(len(row) == 4 for row in rows), r.stdout)
        self.assertEqual(rows[0], ["Good", server.url("flags/fr.png"), server.url("flags/fr.png"), ""])
        for (title, _, problem), row in zip(BAD_ITEMS, rows[1:4]):
            self.assertEqual(row, [title, "", "", problem])
        # A protocol-relative URL takes the gallery's scheme; an empty one is simply missing.
        self.assertEqual(rows[4], ["Protocol-relative", "http://127.0.0.1:9/p.png", "http://127.0.0.1:9/p.png", ""])
        self.assertEqual(rows[5], ["Empty", "", "", ""])
        # Nothing on stderr: row problems are data, not errors.
        self.assertEqual(r.stderr, "")

    def test_json_output_has_a_problem_key_only_where_there_is_one(self):
        self.write_mixed()
        server = self.serve(self.root)
        r = self.list(server.url("mixed.json"), "--output", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        items = json.loads(r.stdout)
        self.assertNotIn("problem", items[0])
        self.assertEqual(items[1], {"title": "Local file", "thumbnail": "", "image": "",
                                    "problem": "file: URL in a gallery read over http"})
        self.assertEqual([i.get("problem") for i in items[1:4]], [p for _, _, p in BAD_ITEMS])

    def test_a_local_gallery_may_point_at_local_files(self):
        write_json(self.root / "local.json", [{"title": "Mine", "url": "file:///etc/hostname"},
                                              {"title": "CDN", "url": "//cdn.example.com/a.png"}])
        r = self.list(str(self.root / "local.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split("\t") for line in r.stdout.splitlines()]
        self.assertEqual(rows[0], ["Mine", "file:///etc/hostname", "file:///etc/hostname", ""])
        # No scheme to inherit: the row says so rather than making a file URL on another host.
        self.assertEqual(rows[1], ["CDN", "", "", "protocol-relative URL '//cdn.example.com/a.png' in a local gallery"])

    def test_relative_urls_in_a_data_gallery_are_row_problems(self):
        gallery = json.dumps([{"title": "Abs", "url": "http://127.0.0.1:9/a.png"}, {"title": "Rel", "url": "x.png"}])
        from urllib.parse import quote
        r = self.list("data:application/json," + quote(gallery))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split("\t") for line in r.stdout.splitlines()]
        self.assertEqual(rows[1], ["Rel", "", "", "relative URL 'x.png' in a gallery without a base (data:)"])

    def test_a_gallery_with_no_usable_item_still_fails(self):
        write_json(self.root / "bad.json", [{"title": t, "url": u} for t, u, _ in BAD_ITEMS])
        server = self.serve(self.root)
        r = self.list(server.url("bad.json"))
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertEqual(r.stderr.strip(), "vitrine: bad.json: .[0].url: file: URL in a gallery read over http")
        self.assertEqual(r.stdout, "")

    def test_a_url_field_of_the_wrong_type_fails_its_row_only(self):
        write_json(self.root / "typed.json", [{"title": "Good", "url": "flags/fr.png"},
                                              {"title": "Number", "url": 5},
                                              {"title": "List", "url": ["flags/fr.png"]}])
        r = self.list(str(self.root / "typed.json"))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split("\t") for line in r.stdout.splitlines()]
        good = (self.root / "flags/fr.png").absolute().as_uri()
        self.assertEqual(rows, [["Good", good, good, ""],
                                ["Number", "", "", ".url: not a URL string (found a number)"],
                                ["List", "", "", ".url: not a URL string (found an array)"]])
        self.assertEqual(r.stderr, "")

    def test_a_mapped_thumb_that_lands_on_a_number_fails_its_row_only(self):
        write_json(self.root / "mapped.json", {"data": [{"id": "a", "t": "flags/fr.png"}, {"id": "b", "t": 12}]})
        server = self.serve(self.root)
        r = self.list(server.url("mapped.json"), "--items", ".data[]", "--title", ".id", "--thumb", ".t",
                      "--output", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        items = json.loads(r.stdout)
        self.assertEqual(items[0]["thumbnail"], server.url("flags/fr.png"))
        self.assertEqual(items[1], {"title": "b", "thumbnail": "", "image": "",
                                    "problem": ".t: not a URL string (found a number)"})

    def test_a_gallery_whose_every_url_has_the_wrong_type_still_fails(self):
        write_json(self.root / "numbers.json", [{"title": "A", "url": 1}, {"title": "B", "url": 2}])
        r = self.list(str(self.root / "numbers.json"))
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertEqual(r.stderr.strip(), "vitrine: numbers.json: .[0].url: not a URL string (found a number)")

    def test_an_entry_of_the_wrong_type_fails_its_row_only(self):
        write_json(self.root / "feed.json", {"version": "https://jsonfeed.org/version/1.1", "items": [
            {"id": "1", "title": "Good", "image": "flags/fr.png"}, 7,
            {"id": "2", "title": "Typed", "image": "flags/fr.png", "attachments": 5}]})
        r = self.list(str(self.root / "feed.json"))
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        rows = [line.split("\t") for line in r.stdout.splitlines()]
        self.assertEqual([(row[0], row[3]) for row in rows], [
            ("Good", ""), ("Item 2", "not an object (found a number)"),
            ("Typed", ".attachments: not an array (found a number)")])

    def test_a_bad_next_link_fails_the_next_page_not_this_one(self):
        # Given a remote feed with a file: next_url and a number no Double holds in a field
        # Vitrine does not read
        (self.root / "feed.json").write_text(json.dumps({
            "version": "https://jsonfeed.org/version/1.1", "next_url": "file:///etc/passwd",
            "items": [{"id": "1", "title": "One", "image": "flags/fr.png"}]}).replace(
            '"id": "1"', '"id": "1", "width": 1e999'))
        server = self.serve(self.root)
        # When one page is listed, the link is not followed: nothing fails
        r = self.list(server.url("feed.json"))
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertEqual(r.stdout.split("\t")[0], "One")
        # When two are, page 1's items are printed, then page 2 fails with the field's name
        r = self.list(server.url("feed.json"), "--pages", "2")
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertEqual(r.stdout.split("\t")[0], "One")
        self.assertEqual(r.stderr.strip(), "vitrine: page 2: .next_url: file: URL in a gallery read over http")


class UntrustedBrowserTests(E2ETestCase):
    def test_a_bad_row_shows_the_failure_glyph_and_its_reason(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "flags/fr.png")
        write_json(root / "gallery.json", [{"title": "Good", "url": "flags/fr.png"},
                                           {"title": "Sneaky", "url": "file:///etc/passwd"},
                                           {"title": "Script", "url": "javascript:alert(1)"}])
        server = self.serve(root)
        term = self.launch([server.url("gallery.json")])
        self.wait_started(term)
        lines = self.wait_settled(term)
        text = "\n".join(lines)
        y = find_row(lines, "Sneaky")
        self.assertIsNotNone(y, text)
        detail = "\n".join(lines[y:y + 3])
        self.assertIn("✗ file: URL in a gallery read over http", detail, text)
        self.assertIn("✗ unsupported URL scheme 'javascript'", text)
        # Both count as failed; nothing local was asked for.
        self.assertRegex(lines[-1], r"loaded 1 · loading 0 · failed 2")
        self.assertTrue(all("passwd" not in req for req in server.requests()))

    def test_a_url_of_the_wrong_type_shows_its_field_on_the_row(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "flags/fr.png")
        write_json(root / "gallery.json", [{"title": "Good", "url": "flags/fr.png"},
                                           {"title": "Numbered", "url": 42}])
        term = self.launch([str(root / "gallery.json")])
        self.wait_started(term)
        lines = self.wait_settled(term)
        text = "\n".join(lines)
        y = find_row(lines, "Numbered")
        self.assertIsNotNone(y, text)
        self.assertIn("✗ .url: not a URL string (found a number)", "\n".join(lines[y:y + 3]), text)
        self.assertRegex(lines[-1], r"loaded 1 · loading 0 · failed 1")

    def test_joined_emoji_leave_nothing_behind_after_a_resize(self):
        # Given titles of emoji joined with U+200D and U+FE0F, which tmux draws as one glyph
        # while ncurses counts their parts
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "flags/fr.png")
        flag = "\U0001F3F3\uFE0F\u200D\U0001F308"
        write_json(root / "gallery.json", [{"title": "flag " + flag * 10, "url": "flags/fr.png"},
                                           {"title": "plain", "url": "flags/fr.png"}])
        term = self.launch([str(root / "gallery.json"), "--row-height", "2"], width=40, height=12)
        # (40 columns: the compact status line, "✓2 …0 ✗0" once both rows are drawn)
        term.wait_for(lambda lines: "✓2 …0" in lines[-1], 10, "both rows loaded")
        # When the window narrows and widens again
        term.resize(30, 12)
        time.sleep(0.5)
        term.resize(40, 12)
        time.sleep(0.7)
        lines = term.capture()
        # Then the title row holds the flags' parts and one ellipsis at its end, nothing after
        y = next((i for i, line in enumerate(lines) if " flag " in line), None)
        self.assertIsNotNone(y, "\n".join(lines))
        row = lines[y].rstrip()
        self.assertNotIn("\u200D", row)
        self.assertTrue(row.endswith("…"), repr(row))
        self.assertEqual(row.count("…"), 1, repr(row))


EVIL = ("\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;UFdORUQ=\x07\u009b2J\u009d0;PWNED\u009c\u202e\x7fX")
EVIL_QUOTED = "".join("%%%02X" % b for b in EVIL.encode())


def injected(data, allow_tab=False):
    """What in `data` (bytes) a terminal would interpret: ESC, C0 controls other than line feed
    (and tab in TSV), DEL, C1 controls in UTF-8 (C2 80-9F) and bidi controls. [] when clean."""
    text = data.decode("utf-8", errors="replace")
    bad = []
    for i, ch in enumerate(text):
        v = ord(ch)
        if (v < 0x20 and ch != "\n" and not (allow_tab and ch == "\t")) or 0x7F <= v <= 0x9F \
                or 0x202A <= v <= 0x202E or 0x2066 <= v <= 0x2069 or v in (0x200E, 0x200F, 0x061C):
            bad.append((i, hex(v), text[max(0, i - 20):i + 20]))
    return bad


class InjectionTests(E2ETestCase):
    """Escape sequences sent through every field a server, a gallery or a file name controls
    never reach stdout, stderr or the terminal (fault server: /evil/KIND)."""

    def setUp(self):
        super().setUp()
        self.root = self.tmp / "root"
        self.root.mkdir()
        link_demo(self.root, "flags/fr.png")
        self.server = self.serve(self.root)

    def run_vitrine(self, *args, cache=None):
        env = dict(os.environ, XDG_CACHE_HOME=str(cache or self.cache), LANG="C.UTF-8")
        return subprocess.run([binary(), *args], capture_output=True, timeout=30,
                              stdin=subprocess.DEVNULL, env=env)

    def assertClean(self, r, what, tsv=False, stdout=True):
        self.assertEqual(injected(r.stderr), [], "%s: stderr %r" % (what, r.stderr))
        if stdout:
            self.assertEqual(injected(r.stdout, allow_tab=tsv), [], "%s: stdout %r" % (what, r.stdout))

    def test_render_errors_from_every_server_field_are_clean(self):
        for kind in ("location", "status", "ctype", "headers"):
            r = self.run_vitrine("render", self.server.url("evil/%s/x.png" % kind), "--size", "10x5")
            self.assertNotEqual(r.returncode, 0, kind)
            self.assertTrue(r.stderr.startswith(b"vitrine: "), (kind, r.stderr))
            self.assertClean(r, kind)
        # The redirect is reported, its Location minus the controls.
        r = self.run_vitrine("render", self.server.url("evil/location/x.png"))
        # (the Location arrived whole: its last character is there, the controls are not)
        self.assertIn(b"redirect to gopher://127.0.0.1/", r.stderr)
        self.assertIn(b"X", r.stderr.split(b"redirect to", 1)[1])

    def test_list_output_and_errors_are_clean(self):
        for output in ("tsv", "json"):
            r = self.run_vitrine("list", self.server.url("evil/gallery.json"), "--pages", "2", "--output", output)
            self.assertClean(r, "list " + output, tsv=output == "tsv")
            # The items of page 1 are printed; page 2 (its link was EVIL) fails after them.
            self.assertIn(b"redirected", r.stdout)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(b"page 2", r.stderr)
        r = self.run_vitrine("list", self.server.url("evil/link.json"), "--pages", "2")
        self.assertClean(r, "Link header", tsv=True)
        self.assertIn(b"page 2", r.stderr)

    def test_a_local_gallerys_next_link_and_file_names_are_clean(self):
        # A relative next link that percent-decodes to escapes, in a local gallery
        (self.root / "local.json").write_text(json.dumps({
            "version": "https://jsonfeed.org/version/1.1", "title": "t",
            "items": [{"id": "1", "title": "one", "image": "flags/fr.png"}],
            "next_url": EVIL_QUOTED + ".json"}))
        r = self.run_vitrine("list", str(self.root / "local.json"), "--pages", "2")
        self.assertClean(r, "local next link", tsv=True)
        self.assertIn(b"page 2", r.stderr)
        # A file name with escapes in it, missing and present but not an image
        name = str(self.root / ("x" + EVIL + ".png"))
        for args in (["render", name], ["list", name]):
            r = self.run_vitrine(*args)
            self.assertClean(r, "missing " + args[0])
        Path(name).write_bytes(b"not an image")
        for args in (["render", name], ["list", name]):
            r = self.run_vitrine(*args)
            self.assertNotEqual(r.returncode, 0)
            self.assertClean(r, "bad file " + args[0])

    def test_cache_commands_print_a_hostile_location_clean(self):
        cache = self.tmp / ("c" + EVIL)
        (cache / "vitrine").mkdir(parents=True)
        (cache / "vitrine" / ("entry" + EVIL)).write_bytes(b"vitrine-cache 1\n" + EVIL.encode() + b"\n")
        for action in ("info", "clear"):
            r = self.run_vitrine("cache", action, cache=cache)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertClean(r, "cache " + action)

    def launch_raw(self, args):
        """Runs vitrine ARGS in tmux with every byte it writes to the pane recorded
        (pipe-pane is attached before vitrine starts). Returns (terminal, log path)."""
        go, log = self.tmp / "go", self.tmp / "pane.log"
        env = "env TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CACHE_HOME=%s HOME=%s" % (
            shlex.quote(str(self.cache)), shlex.quote(str(self.tmp)))
        vitrine = " ".join(shlex.quote(a) for a in [binary(), *args])
        command = "while [ ! -e %s ]; do sleep 0.02; done; %s %s; echo EXITED=$?; sleep 60" % (
            shlex.quote(str(go)), env, vitrine)
        term = Terminal("sh -c %s" % shlex.quote(command), 100, 30)
        self.addCleanup(term.kill)
        term.tmux("set-option", "-g", "set-clipboard", "on")
        term.tmux("pipe-pane", "-t", "e2e", "-o", "cat >> %s" % shlex.quote(str(log)))
        go.touch()
        return term, log

    # Vitrine's own terminal queries before curses starts (TerminalProbe: OSC 11 background,
    # XTVERSION, the kitty graphics query, cell and window size, DA1): not from the server.
    OWN_QUERIES = re.compile(rb"\x1b\]11;\?\x1b\\|\x1b\[>0q|\x1b_Gi=\d+,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\|\x1b\[1[46]t|\x1b\[c")

    def assertPaneClean(self, term, log):
        raw = log.read_bytes()
        # Only the probe's own queries may come before the alternate screen; after them the
        # check covers every byte.
        head, sep, tail = raw.partition(b"\x1b[?1049h")
        raw = self.OWN_QUERIES.sub(b"", head) + sep + tail
        self.assertNotIn(b"\x1b]", raw)           # no OSC (title, clipboard, hyperlink)
        self.assertNotIn(b"\x1bP", raw)           # no DCS
        for c1 in range(0x80, 0xA0):
            self.assertNotIn(bytes([0xC2, c1]), raw)
        self.assertNotIn("\u202e".encode(), raw)
        self.assertNotIn(b"\x7f", raw)
        self.assertNotIn("PWNED", term.display("#{pane_title}"))
        self.assertEqual(term.tmux("list-buffers").strip(), "")

    def test_the_browser_screen_and_its_early_errors_are_clean(self):
        # A gallery whose titles, URLs and failing rows carry EVIL
        term, log = self.launch_raw([self.server.url("evil/gallery.json")])
        self.wait_settled(term)
        term.keys("G")
        lines = self.wait_settled(term)
        self.assertIn("redirected", "\n".join(lines))
        term.keys("q")
        term.wait_text("EXITED=0")
        self.assertPaneClean(term, log)

    def test_the_browsers_error_before_curses_is_clean(self):
        term, log = self.launch_raw([self.server.url("evil/location/g.json")])
        term.wait_text("EXITED=")
        self.assertIn("redirect to gopher://127.0.0.1/", term.text().replace("\n", ""))
        self.assertPaneClean(term, log)


class ExitStatusTests(E2ETestCase):
    """One mapping from a failed load to an exit status, whichever command meets it."""

    def test_every_command_exits_alike_for_the_same_failure(self):
        root = self.tmp / "root"
        root.mkdir()
        server = self.serve(root)
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache), LANG="C.UTF-8")
        cases = {"redirect-file/etc/passwd": 69, "status/500/x": 69, "status/404/x": 66, "html/x": 65}
        for path, status in cases.items():
            for command in ("render", "list"):
                if command == "list" and path == "html/x":
                    continue  # a page is a gallery that fails to parse there, also 65
                r = subprocess.run([binary(), command, server.url(path)], capture_output=True, text=True,
                                   timeout=30, stdin=subprocess.DEVNULL, env=env)
                self.assertEqual(r.returncode, status, "%s %s: %s" % (command, path, r.stderr))


class BigGalleryProgressTests(E2ETestCase):
    """A gallery over 8 MB gets a one-line note on stderr while it is read and parsed, when
    stderr is a terminal; the line is erased once the gallery is read."""

    def write_big(self, name, megabytes):
        path = self.tmp / name
        filler = "x" * (megabytes << 20)
        write_json(path, [{"title": "A", "url": "a.png", "notes": filler}, {"title": "B", "url": "b.png"}])
        return path

    def run_with_tty_stderr(self, *args):
        import pty
        master, slave = pty.openpty()
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache), LANG="C.UTF-8")
        try:
            proc = subprocess.Popen([binary(), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=slave, env=env)
            os.close(slave)
            out, _ = proc.communicate(timeout=60)
            err = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the other side is closed
                    break
                if not chunk:
                    break
                err += chunk
        finally:
            os.close(master)
        return proc.returncode, out.decode(), err.decode()

    def test_progress_is_shown_then_erased_on_a_terminal(self):
        big = self.write_big("big.json", 9)
        status, out, err = self.run_with_tty_stderr("list", str(big))
        self.assertEqual(status, 0, err)
        self.assertEqual([l.split("\t")[0] for l in out.splitlines()], ["A", "B"])
        self.assertEqual(err, "\rreading big.json: 9 MB…\x1b[K\rparsing big.json: 9 MB…\x1b[K\r\x1b[K")

    def test_no_progress_for_small_galleries_or_without_a_terminal(self):
        small = self.write_big("small.json", 1)
        status, _, err = self.run_with_tty_stderr("list", str(small))
        self.assertEqual((status, err), (0, ""))
        big = self.write_big("big.json", 9)
        env = dict(os.environ, XDG_CACHE_HOME=str(self.cache), LANG="C.UTF-8")
        r = subprocess.run([binary(), "list", str(big)], capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL, env=env)
        self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_a_failure_after_the_note_starts_on_a_clean_line(self):
        big = self.tmp / "broken.json"
        big.write_text('[{"title": "a", "url": "a.png", "notes": "' + "x" * (9 << 20) + '"}, }]')
        status, _, err = self.run_with_tty_stderr("list", str(big))
        self.assertEqual(status, 65, err)
        self.assertTrue(err.startswith("\rreading broken.json: 9 MB…"), repr(err[:80]))
        # The note is erased before the error is printed.
        self.assertIn("\r\x1b[Kvitrine: broken.json:1:", err)


if __name__ == "__main__":
    unittest.main()
