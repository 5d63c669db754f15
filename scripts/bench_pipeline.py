#!/usr/bin/env python3
"""The browser-level image pipeline benchmarks (docs/PERFORMANCE.md, "Image pipeline").

    bench_pipeline.py latency BINARY [--presses N] [--delay S] [--refused]
    bench_pipeline.py memory BINARY JPEG --limit SIZE [--row-height N] [--size WxH] [--rows N]
                      [--file-urls | --data-urls] [--env NAME=VALUE ...] [--trace FILE]

Python 3 standard library, tmux and Tests/Fixtures/galleryserver.py on 127.0.0.1; every server
and tmux started here is stopped before exit. Prints Markdown table rows.

latency: 500 rows from galleryserver.py --delay 2 (each image answered after 2 s, the demo's
flags/fr.png under 500 distinct URLs). The binary runs in a private tmux (120x40); keys are sent
with `tmux send-keys` (j, PgDn down to row ~300, then k, PgUp back up) at random 20-100 ms
pauses, and the time from just before send-keys to the first `capture-pane` showing the new
"N/500" on the status line is the key-to-frame latency. That includes starting two tmux clients
per sample, so it is an upper bound; the same loop against a shell `read`/`printf` counter in
the same kind of tmux is the baseline. With --refused, one more run: 500 rows whose 200 MB
bodies (galleryserver.py /big/209715200, no delay) are refused at their headers by the 64 MiB
cap, so they would stream only if the client failed to stop them. Requests in flight come from the server's --log-times
log: +1 when a request arrives, -1 when its answer is written or the client hung up (GONE).

memory: /gallery/N.json?img=<JPEG> (N = --rows, default 10,000): N rows, each a distinct URL of
the same file, no delay. PgDn page by page to row N, each time waiting until the page's rows (and
the look-ahead) are drawn ("loading 0"), then g (back to the top); VmRSS sampled from /proc after
every page (as soon as the page is drawn), VmHWM at the end, and VmRSS once more 1 s after the
last load. `--memory-cache SIZE --no-disk-cache`, XDG_CACHE_HOME a temp dir.
Controls without http: --file-urls (the same JPEG as N distinct file: URLs, `?n=I` appended) and
--data-urls (a small PNG as N distinct data: URLs). --env sets variables for the binary (e.g.
MALLOC_ARENA_MAX=2); --trace FILE writes "row VmRSS-KiB VmHWM-KiB RssAnon-KiB" per page (the first line is the
first screen).
"""

import argparse
import base64
import json
import os
import random
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "Tests" / "EndToEnd"))
from harness import DEMO, GalleryServer, Terminal, wait_until  # noqa: E402

POSITION = re.compile(r"\b(\d+)/(\d+)\b")


class Server(GalleryServer):
    """galleryserver.py with --log-times and --log-connections on an OS-picked loopback port."""

    def __init__(self, root, log, delay=0.0, max_seconds=1800):
        super().__init__(root, log, delay=delay, max_seconds=max_seconds,
                         extra_args=["--log-times", "--log-connections"])

    def in_flight(self, limit=6):
        """Image requests in flight as the server saw them: a dict with the peak, the counts
        (arrived, answered, gone), the excursions over `limit` (how many, the longest and the
        total time above it, in ms), and the most client connections open at once
        (`conn_peak`, gallery connections included) over `conns` connections accepted."""
        events = []
        counts = {"START": 0, "END": 0, "GONE": 0}
        conns = []
        for line in self.log.read_text().splitlines():
            parts = line.split()
            if parts[0] == "CONN":
                conns.append(int(parts[1]))
                continue
            kind = parts[0] if parts[0] in ("END", "GONE") else "START"
            path, stamp = parts[-2], float(parts[-1])
            if re.search(r"\.(json|plist)(\?|$)", path):
                continue
            counts[kind] += 1
            # At equal times count departures first.
            events.append((stamp, 1 if kind == "START" else 0, 1 if kind == "START" else -1))
        running = peak = 0
        over_since, excursions = None, []
        for stamp, _, delta in sorted(events):
            running += delta
            peak = max(peak, running)
            if running > limit and over_since is None:
                over_since = stamp
            elif running <= limit and over_since is not None:
                excursions.append((stamp - over_since) * 1000)
                over_since = None
        return {"peak": peak, "arrived": counts["START"], "answered": counts["END"], "gone": counts["GONE"],
                "excursions": len(excursions), "longest_ms": max(excursions, default=0),
                "over_ms": sum(excursions), "span_s": (events[-1][0] - events[0][0]) if events else 0,
                "conn_peak": max(conns, default=0), "conns": len(conns)}


def position(term):
    """The last "N/M" on the screen, as N (None if none)."""
    found = POSITION.findall(term.text())
    return int(found[-1][0]) if found else None


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(q * len(values) + 0.999999) - 1))]


def key_latencies(term, keys, dwell_every=0, dwell=0.0):
    """Milliseconds from send-keys to the first capture showing a new position, per key; after
    every `dwell_every` keys, an unmeasured pause of `dwell` s (so answers arrive meanwhile)."""
    samples, captures = [], 0
    for i, key in enumerate(keys):
        if dwell_every and i and i % dwell_every == 0:
            time.sleep(dwell)
        before = position(term)
        start = time.perf_counter()
        term.keys(key)
        while True:
            now_pos = position(term)
            captures += 1
            if now_pos is not None and now_pos != before:
                break
            if time.perf_counter() - start > 10:
                raise RuntimeError("no change on screen 10 s after %r (at %s)" % (key, before))
        samples.append((key, (time.perf_counter() - start) * 1000))
        time.sleep(random.uniform(0.02, 0.1))
    return samples, captures


def summary(name, samples, extra=""):
    return "| %s | %d | %.1f | %.1f | %.1f | %s |" % (
        name, len(samples), statistics.median(samples), percentile(samples, 0.99), max(samples), extra)


def scroll_session(command, keys, dwell):
    """Runs `command` (a vitrine on a 500-row gallery) in a 120x40 tmux and measures `keys`;
    returns (samples as (key, ms), captures, last status line)."""
    term = Terminal(command, 120, 40)
    try:
        if not wait_until(lambda: position(term) == 1, 15):
            raise RuntimeError("the browser did not show 1/500:\n" + term.text())
        # A pause of `dwell` s every 24 keys lets answers arrive between bursts of scrolling.
        pairs, captures = key_latencies(term, keys, 24, dwell)
        final = term.text().splitlines()[-1].strip()
        term.keys("q")
        wait_until(lambda: "/500" not in term.text(), 5)
        return pairs, captures, final
    finally:
        term.kill()


def latency(args):
    random.seed(3)
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-bench-"))
    server = base = None
    half = args.presses // 2
    keys = (["j", "j", "j", "NPage"] * half)[:half] + (["k", "k", "k", "PPage"] * half)[:args.presses - half]
    try:
        rows = []

        def report(name, pairs, captures, final):
            samples = [ms for _, ms in pairs]
            rows.append(summary(name, samples, "%.1f captures per key; last status: `%s`" % (
                captures / len(samples), re.sub(r"\s{2,}", "  ", final))))
            rows.append(summary("&nbsp;&nbsp;of which j/k", [ms for k, ms in pairs if k in ("j", "k")]))
            rows.append(summary("&nbsp;&nbsp;of which PgDn/PgUp", [ms for k, ms in pairs if k in ("NPage", "PPage")]))

        server = Server(DEMO, tmp / "server.log", delay=args.delay)
        url = server.base + "/gallery/500.json?img=flags/fr.png"
        report("vitrine, 500 rows over http, every image delayed %g s" % args.delay,
               *scroll_session("XDG_CACHE_HOME=%s exec %s --no-disk-cache '%s'" % (tmp / "cache", args.binary, url),
                               keys, args.delay + 0.5))
        time.sleep(0.2)
        flight = server.in_flight()
        if args.keep_log:
            shutil.copy(tmp / "server.log", args.keep_log)
        server.stop()
        server = None

        if args.refused:
            server = Server(DEMO, tmp / "refused.log")
            refused = tmp / "refused.json"
            refused.write_text(json.dumps([{"title": "Item %d" % i, "url": server.base + "/big/209715200?row=%d" % i}
                                           for i in range(500)]))
            report("vitrine, 500 rows of refused 200 MB bodies over http",
                   *scroll_session("XDG_CACHE_HOME=%s exec %s --no-disk-cache '%s'" % (tmp / "cache", args.binary, refused),
                                   keys, 0.5))
            server.stop()
            server = None

        # Control: the same rows with the same picture as 500 distinct data: URLs (no network).
        png = base64.b64encode((DEMO / "flags" / "fr.png").read_bytes()).decode()
        local = tmp / "local.json"
        local.write_text(json.dumps([{"title": "Item %d" % i, "url": "data:image/png;n=%d;base64,%s" % (i, png)}
                                     for i in range(500)]))
        report("control: the same 500 rows as data: URLs (no network)",
               *scroll_session("XDG_CACHE_HOME=%s exec %s --no-disk-cache '%s'" % (tmp / "cache", args.binary, local),
                               keys, 0.5))

        # Baseline: the same loop against a trivial program that prints a counter per key.
        counter = "i=1; printf '1/500'; while IFS= read -rsn1 k; do i=$((i+1)); printf '\\r%d/500' $i; done"
        base = Terminal("exec bash -c %s" % shlex.quote(counter), 120, 40)
        wait_until(lambda: position(base) == 1, 5)
        base_pairs, base_captures = key_latencies(base, ["j"] * args.presses)
        base_samples = [ms for _, ms in base_pairs]
        capture_ms = []
        for _ in range(200):
            t = time.perf_counter()
            base.text()
            capture_ms.append((time.perf_counter() - t) * 1000)
        print("| what | keys | p50 ms | p99 ms | max ms | notes |")
        print("|---|---|---|---|---|---|")
        print("\n".join(rows))
        print(summary("baseline: bash `read -n1` + `printf` counter, same tmux loop", base_samples,
                      "%.1f captures per key" % (base_captures / len(base_samples))))
        print("| one `tmux capture-pane` alone | %d | %.1f | %.1f | %.1f | |" % (
            len(capture_ms), statistics.median(capture_ms), percentile(capture_ms, 0.99), max(capture_ms)))
        print()
        print("Image requests (server log, one host 127.0.0.1): %(arrived)d arrived, %(answered)d answered, "
              "%(gone)d abandoned by the client (row scrolled away); peak in flight %(peak)d; above 6 "
              "%(excursions)d times, for %(over_ms).1f ms in all out of %(span_s).1f s (longest %(longest_ms).1f ms); "
              "connections: %(conns)d accepted, at most %(conn_peak)d open at once" % flight)
    finally:
        if base:
            base.kill()
        if server:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def proc_status(pid):
    fields = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon"):
                fields[key] = int(value.split()[0]) / 1024  # MiB
    return fields


def memory(args):
    width, height = (int(x) for x in args.size.split("x"))
    tmp = Path(tempfile.mkdtemp(prefix="vitrine-bench-"))
    server = term = None
    try:
        rows = args.rows
        if args.data_urls:
            # Control: N rows of the demo's flags/fr.png as distinct data: URLs (no http).
            png = base64.b64encode((DEMO / "flags" / "fr.png").read_bytes()).decode()
            url = tmp / "local.json"
            url.write_text(json.dumps([{"title": "Item %d" % i, "url": "data:image/png;n=%d;base64,%s" % (i, png)}
                                       for i in range(rows)]))
        elif args.file_urls:
            # Control: the same JPEG as N distinct file: URLs (the query makes each URL distinct).
            photo = Path(os.path.abspath(args.jpeg)).as_uri()
            url = tmp / "local.json"
            url.write_text(json.dumps([{"title": "Item %d" % i, "url": "%s?n=%d" % (photo, i)} for i in range(rows)]))
        else:
            os.symlink(os.path.abspath(args.jpeg), tmp / "photo.jpg")
            server = Server(tmp, tmp / "server.log")
            url = server.base + "/gallery/%d.json?img=photo.jpg" % rows
        env = " ".join(shlex.quote(e) for e in args.env)
        cmd = "%s XDG_CACHE_HOME=%s exec %s --no-disk-cache --memory-cache %s --row-height %d '%s'" % (
            ("export %s;" % env) if env else "", tmp / "cache", args.binary, args.limit, args.row_height, url)
        term = Terminal(cmd, width, height)
        pid = int(term.display("#{pane_pid}"))
        if not wait_until(lambda: os.readlink("/proc/%d/exe" % pid) == os.path.realpath(args.binary), 5):
            raise RuntimeError("pane pid %d is not %s" % (pid, args.binary))

        def settled():
            text = term.text()
            return "loading 0" in text and position(term)

        start = time.monotonic()
        if not wait_until(settled, 30, 0.01):
            raise RuntimeError("first screen did not load:\n" + term.text())
        first = proc_status(pid)
        base = first["VmRSS"]
        peak_rss, samples, pages = base, [], 0
        pos = position(term)
        trace = open(args.trace, "w") if args.trace else None
        if trace:
            trace.write("%d %.0f %.0f %.0f\n" % (pos, base * 1024, first["VmHWM"] * 1024, first["RssAnon"] * 1024))
        while pos < rows:
            term.keys("NPage")
            pages += 1
            if not wait_until(lambda: (p := position(term)) != pos and p and "loading 0" in term.text(), 60, 0.005):
                raise RuntimeError("page after %d did not load:\n%s" % (pos, term.text()))
            pos = position(term)
            status = proc_status(pid)
            rss = status["VmRSS"]
            peak_rss = max(peak_rss, rss)
            samples.append((pos, rss))
            if trace:
                trace.write("%d %.0f %.0f %.0f\n" % (pos, rss * 1024, status["VmHWM"] * 1024, status["RssAnon"] * 1024))
                trace.flush()
        at_end = proc_status(pid)["VmRSS"]
        status_end = term.text().splitlines()[-1].strip()
        term.keys("g")
        wait_until(lambda: position(term) == 1 and "loading 0" in term.text(), 60, 0.01)
        back = proc_status(pid)
        time.sleep(1)
        settled_status = proc_status(pid)
        settled = settled_status["VmRSS"]
        if trace:
            trace.write("back %.0f\n" % (back["VmRSS"] * 1024))
            trace.close()
        seconds = time.monotonic() - start
        requests = sum(1 for l in (tmp / "server.log").read_text().splitlines() if l.startswith("GET /img/")) \
            if server else 0
        term.keys("q")
        wait_until(lambda: not os.path.exists("/proc/%d" % pid), 5)
        every = []
        for target in (rows // 5, 2 * rows // 5, 3 * rows // 5, 4 * rows // 5, rows):
            p, rss = next((p, rss) for p, rss in samples if p >= target)
            every.append("%.0f" % rss)
        print("| %s | %d (%s) | %.0f | %.0f | %.0f | %.0f | %.0f | %d | %.0f s | %s |" % (
            args.limit, args.row_height, args.size, base, peak_rss, at_end, back["VmRSS"], back["VmHWM"], requests,
            seconds, " ".join(every)))
        print("<!-- %d pages; VmRSS 1 s after the last load: %.0f MiB (RssAnon %.0f; at the first screen %.0f"
              " of %.0f); status at the end: %s -->"
              % (pages, settled, settled_status["RssAnon"], first["RssAnon"], base, status_end))
    finally:
        if term:
            term.kill()
        if server:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    lat = sub.add_parser("latency")
    lat.add_argument("binary")
    lat.add_argument("--presses", type=int, default=240)
    lat.add_argument("--delay", type=float, default=2.0)
    lat.add_argument("--keep-log", help="copy the server's request log here")
    lat.add_argument("--refused", action="store_true", help="also 500 rows of refused 200 MB bodies")
    mem = sub.add_parser("memory")
    mem.add_argument("binary")
    mem.add_argument("jpeg")
    mem.add_argument("--limit", required=True)
    mem.add_argument("--row-height", type=int, default=5)
    mem.add_argument("--size", default="120x100")
    mem.add_argument("--rows", type=int, default=10000, help="gallery rows (default 10000)")
    controls = mem.add_mutually_exclusive_group()
    controls.add_argument("--data-urls", action="store_true", help="control: data: URLs of a small PNG, no http")
    controls.add_argument("--file-urls", action="store_true", help="control: file: URLs of the same JPEG, no http")
    mem.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="environment for the binary")
    mem.add_argument("--trace", help="write 'row VmRSS-bytes' per page to this file")
    args = ap.parse_args()
    args.binary = os.path.abspath(args.binary)
    latency(args) if args.mode == "latency" else memory(args)


if __name__ == "__main__":
    main()
