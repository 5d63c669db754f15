"""The network layer against hostile servers on loopback: headers stay with their host across
redirects, and refused, endless or inflating bodies cannot grow the browser's memory."""

import json
import os
import re
import subprocess
import time
import unittest

from harness import E2ETestCase, GalleryServer, binary, link_demo, wait_until


def vm_hwm_kib(pid):
    """Peak resident memory of `pid` (VmHWM), in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM for %d" % pid)


class NetworkTests(E2ETestCase):
    def server(self, root, bind="127.0.0.1", extra=()):
        server = GalleryServer(root, self.tmp / ("server-%s.log" % bind), extra_args=["--bind", bind, *extra])
        server.base = "http://%s:%d" % (bind, server.port)
        self.addCleanup(server.stop)
        return server

    def test_headers_for_one_host_never_reach_another_after_a_redirect(self):
        # Given a gallery on 127.0.0.1 whose first row redirects to 127.0.0.2, and a token for .1
        root = self.tmp / "root"
        link_demo(root, "flags/fr.png")
        first = self.server(root, extra=["--log-headers"])
        second = self.server(root, "127.0.0.2", extra=["--log-headers"])
        (root / "g.json").write_text(json.dumps([
            {"title": "Moved", "url": "/redirect-to?url=%s" % second.url("flags/fr.png")},
            {"title": "Here", "url": "/flags/fr.png"}]))
        (root / "h.json").write_text(json.dumps([{"title": "There", "url": "/flags/fr.png"}]))
        token = ["--header", "127.0.0.1: Authorization: Bearer e2e-secret"]

        # When the browser opens it, and `list` reads a gallery redirected to 127.0.0.2
        term = self.launch([*token, "--no-disk-cache", first.url("g.json")], 100, 30)
        self.wait_started(term)
        self.wait_settled(term)
        listed = subprocess.run([binary(), "list", *token, first.url("redirect-to?url=%s" % second.url("h.json"))],
                                capture_output=True, text=True, timeout=20)

        # Then both rows drew, the list worked, and 127.0.0.2 never saw the token
        self.assertIn("loaded 2 ", term.status())
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn("There", listed.stdout)
        seen_first = [l for l in first.requests() if "Authorization: Bearer e2e-secret" in l]
        self.assertGreaterEqual(len(seen_first), 3, first.requests())
        seen_second = second.requests()
        self.assertTrue(any("GET /flags/fr.png" in l for l in seen_second))
        self.assertTrue(any("GET /h.json" in l for l in seen_second))
        self.assertFalse([l for l in seen_second if "authorization" in l.lower()], seen_second)
        self.assertTrue(any("User-Agent: vitrine/" in l for l in seen_second))

    def test_http_proxy_and_no_proxy_are_honoured(self):
        # Given a server that also answers proxy requests (absolute-form targets), and a gallery
        # URL on 127.0.0.2:9, where nothing listens
        root = self.tmp / "root"
        root.mkdir()
        (root / "g.json").write_text(json.dumps([{"title": "Proxied", "url": "/x.png"}]))
        proxy = self.server(root)
        target = "http://127.0.0.2:9/g.json"
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}

        # When vitrine lists it through http_proxy, the proxy is asked for the absolute URL
        via = subprocess.run([binary(), "list", target], capture_output=True, text=True, timeout=20,
                             env=dict(env, http_proxy=proxy.base))
        self.assertEqual(via.returncode, 0, via.stderr)
        self.assertIn("Proxied", via.stdout)
        self.assertIn("GET %s" % target, proxy.requests())
        # And with no_proxy naming the host, it goes direct (and finds nothing there)
        direct = subprocess.run([binary(), "list", target], capture_output=True, text=True, timeout=20,
                                env=dict(env, http_proxy=proxy.base, no_proxy="127.0.0.2"))
        self.assertNotEqual(direct.returncode, 0)
        self.assertIn("connection refused", direct.stderr)
        self.assertEqual(proxy.requests().count("GET %s" % target), 1)

    def test_refused_and_endless_bodies_keep_memory_bounded(self):
        # Given six rows announcing 4 GB each and six endless bodies, all on one host
        root = self.tmp / "root"
        root.mkdir()
        server = self.server(root)
        items = [{"title": "Huge %d" % i, "url": "/big/4294967296?row=%d" % i} for i in range(6)]
        items += [{"title": "Endless %d" % i, "url": "/endless/%d" % i} for i in range(6)]
        (root / "g.json").write_text(json.dumps(items))

        # When the browser shows them all
        term = self.launch(["--no-disk-cache", server.url("g.json")], 100, 60)
        self.wait_started(term)
        term.wait_for(lambda lines: "failed 12" in lines[-1], 60, "twelve failed rows")

        # Then every row failed as too large, and the process peaked under 300 MB
        text = "\n".join(term.capture())
        self.assertGreaterEqual(text.count("file too large"), 6, text)
        pids = term.vitrine_pids()
        self.assertTrue(pids)
        peak = vm_hwm_kib(pids[0])
        self.assertLess(peak, 300 * 1024, "VmHWM %d MiB" % (peak // 1024))

    def test_a_gzip_bomb_fails_its_row_and_memory_stays_low(self):
        # Given a row whose 2.1 MB gzip body inflates to 2 GiB
        root = self.tmp / "root"
        root.mkdir()
        server = self.server(root)
        (root / "g.json").write_text(json.dumps([{"title": "Bomb", "url": "/gzip-bomb/2048"}]))

        term = self.launch(["--no-disk-cache", server.url("g.json")], 100, 30)
        self.wait_started(term)
        term.wait_for(lambda lines: "failed 1 " in lines[-1] + " ", 30, "the failed row")

        # Then it fails as too large, the server was not read to the end, memory stayed low
        self.assertIn("file too large", "\n".join(term.capture()))
        sent = wait_until(lambda: [l for l in server.requests() if l.startswith("SENT /gzip-bomb/")], 5)
        self.assertTrue(sent)
        done, total = map(int, sent[0].split()[-1].split("/"))
        self.assertLess(done, total)
        peak = vm_hwm_kib(term.vitrine_pids()[0])
        self.assertLess(peak, 200 * 1024, "VmHWM %d MiB" % (peak // 1024))


class RevisitTests(E2ETestCase):
    """A second visit costs no round trips: a server that sends Last-Modified and no max-age
    (Python's http.server, nginx, most static hosts) and answers images after 1.5 s."""

    def revisit(self, age_seconds):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "flags/fr.png")
        png = (root / "flags" / "fr.png").resolve().read_bytes()
        for i in range(8):
            path = root / ("p%d.png" % i)
            path.write_bytes(png)
            stamp = time.time() - age_seconds
            os.utime(path, (stamp, stamp))
        (root / "g.json").write_text(json.dumps([{"title": "Flag %d" % i, "url": "/p%d.png" % i} for i in range(8)]))
        server = GalleryServer(root, self.tmp / "server.log", delay=1.5, extra_args=["--cache-control", "", "--log-headers"])
        self.addCleanup(server.stop)
        first = self.launch([server.url("g.json")], 100, 40)
        self.wait_started(first)
        first.wait_for(lambda lines: "loaded 8 " in lines[-1], 20, "eight loaded rows")
        first.keys("q")
        wait_until(lambda: "EXITED=" in "\n".join(first.capture()), 5)
        before = len(server.requests())
        time.sleep(2.5)  # the stale case: the heuristic lifetime (about 1.2 s) runs out
        start = time.monotonic()
        second = self.launch([server.url("g.json")], 100, 40)
        second.wait_for(lambda lines: "loaded 8 " in lines[-1], 20, "eight loaded rows")
        drawn = time.monotonic() - start
        return drawn, lambda: [l for l in server.requests()[before:] if not l.startswith("HEADER ")
                               and "/p" in l]

    def test_a_fresh_by_heuristic_image_is_drawn_from_disk_with_no_request(self):
        # Last modified a day ago: fresh for 2.4 hours
        drawn, later = self.revisit(86400)
        self.assertLess(drawn, 1.5, "the second visit took %.2f s" % drawn)
        time.sleep(0.5)
        self.assertEqual(later(), [])

    def test_a_stale_image_is_drawn_at_once_and_revalidated_behind(self):
        # Last modified 10 s before the first visit: fresh for 1 s, stale on the second visit
        drawn, later = self.revisit(10)
        self.assertLess(drawn, 1.5, "the second visit took %.2f s" % drawn)
        # and every image was revalidated with a conditional request
        self.assertTrue(wait_until(lambda: len([l for l in later() if l.startswith("GET /p")]) >= 8, 5), later())


if __name__ == "__main__":
    unittest.main()
