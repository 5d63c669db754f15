"""The per-host limit holds for connections on the wire, not only for the pipeline's own count:
a row scrolled away mid-download gives its slot to the next row only once the HTTP client reports
the cancelled transfer finished (it closes the connection before it does)."""

import random
import re
import time
import unittest

from harness import E2ETestCase, GalleryServer, link_demo


class ConnectionLimitTests(E2ETestCase):
    def scroll_and_count(self, extra_args, limit):
        """Pages down through 400 slow rows (each image answered after 0.3 s) faster than they
        load, then back to the top; returns (peak connections open at once as the server saw
        them, requests abandoned mid-download, connections accepted)."""
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "flags/fr.png")
        server = GalleryServer(root, self.tmp / "server.log", delay=0.3,
                               extra_args=["--log-times", "--log-connections"])
        self.addCleanup(server.stop)
        term = self.launch(["--no-disk-cache", *extra_args, server.url("/gallery/400.json")], 100, 30)
        self.wait_started(term)
        rng = random.Random(7)
        for key in ["NPage"] * 30 + ["PPage"] * 10:
            term.keys(key)
            time.sleep(rng.uniform(0.02, 0.15))
        self.wait_settled(term, 30)
        lines = server.requests()
        conns = [int(l.split()[1]) for l in lines if l.startswith("CONN ")]
        gone = [l for l in lines if l.startswith("GONE ")]
        # The test means something only if rows really were cancelled mid-download.
        self.assertGreater(len(gone), 20, "too few downloads were abandoned to test anything")
        self.assertTrue(conns, "the server logged no connections")
        return max(conns), len(gone), len(conns)

    def test_default_limit_of_six_holds_on_the_wire(self):
        peak, gone, accepted = self.scroll_and_count([], 6)
        self.assertLessEqual(peak, 6, "%d connections open at once (%d abandoned, %d accepted)"
                             % (peak, gone, accepted))

    def test_a_lower_limit_holds_on_the_wire(self):
        peak, gone, accepted = self.scroll_and_count(["--max-per-host", "2"], 2)
        self.assertLessEqual(peak, 2, "%d connections open at once (%d abandoned, %d accepted)"
                             % (peak, gone, accepted))


if __name__ == "__main__":
    unittest.main()
