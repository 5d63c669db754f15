"""The browser pages through a gallery: a 'loading more' row near the end fetches the next
page, a failed page says why and `r` retries it."""

import json
import re
import unittest

from harness import E2ETestCase, link_demo


def write_feed(root, page, pages, next_url=None):
    """A JSON Feed 1.1 page of 6 items; `next_url` defaults to the following page."""
    items = [{"id": "%d-%d" % (page, i), "title": "Page %d item %d" % (page, i),
              "image": "flags/%s.png" % flag}
             for i, flag in enumerate(["fr", "de", "it", "ie", "be", "nl"])]
    feed = {"version": "https://jsonfeed.org/version/1.1", "title": "Paged feed", "items": items}
    if page < pages:
        feed["next_url"] = next_url or "page%d.json" % (page + 1)
    (root / ("page%d.json" % page)).write_text(json.dumps(feed), encoding="utf-8")


class PagingTests(E2ETestCase):
    def test_pages_load_near_the_end(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, *["flags/%s.png" % f for f in ["fr", "de", "it", "ie", "be", "nl"]])
        for page in (1, 2, 3):
            write_feed(root, page, 3)
        server = self.serve(root)
        term = self.launch([server.url("page1.json")])
        self.wait_started(term)
        # Six items fit in a screen and a half: page 2 is asked for at once, page 3 only on G.
        term.wait_for(lambda lines: re.search(r" 1/12\+ ", lines[-1]), 10, "page 2 appended (1/12+)")
        self.assertNotIn("GET /page3.json", server.requests())
        term.keys("G")
        term.wait_for(lambda lines: re.search(r" \d+/18 ", lines[-1]), 10, "page 3 appended (…/18)")
        term.keys("G")
        lines = term.wait_for(lambda lines: " 18/18 " in lines[-1], 10, "the last item selected")
        self.assertIn("Page 3 item 5", "\n".join(lines))
        self.assertNotIn("Loading more", "\n".join(lines))
        pages = [r for r in server.requests() if r.endswith(".json")]
        self.assertEqual(pages, ["GET /page1.json", "GET /page2.json", "GET /page3.json"])

    def test_failed_page_shows_why_and_r_retries(self):
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, *["flags/%s.png" % f for f in ["fr", "de", "it", "ie", "be", "nl"]])
        write_feed(root, 1, 2, next_url="/flaky/1/feed/page2.json")
        write_feed(root, 2, 2)
        server = self.serve(root)
        term = self.launch([server.url("page1.json")])
        self.wait_started(term)
        term.keys("G")
        lines = term.wait_for(lambda lines: any("Could not load page 2" in l for l in lines), 10,
                              "the failed page row")
        self.assertIn("✗ HTTP 503", "\n".join(lines))
        self.assertRegex(lines[-1], r" \d+/6\+ ")
        term.keys("r")
        term.wait_for(lambda lines: re.search(r" \d+/12 ", lines[-1]), 10, "page 2 appended after r")
        term.keys("G")
        term.wait_for(lambda lines: " 12/12 " in lines[-1], 10, "12/12")


if __name__ == "__main__":
    unittest.main()
