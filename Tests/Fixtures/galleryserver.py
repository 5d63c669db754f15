#!/usr/bin/env python3
"""A loopback HTTP server for Vitrine's tests (Python 3 standard library only).

    galleryserver.py [--port N] [--root DIR] [--delay SECONDS] [--log FILE]
                     [--log-times] [--log-connections] [--max-seconds N]
                     [--bind 127.0.0.1]

Binds loopback only: 127.0.0.1, or another 127.x.x.x or ::1 with --bind. Prints "PORT <n>" as the first stdout line (with
--port 0 the port is picked by the OS). Exits by itself after --max-seconds
(default 600). --delay sleeps before answering any request whose path does
not end in .json or .plist (i.e. image requests). --log appends "METHOD PATH"
(the raw request target, query included) per request, flushed at once.
--log-times (with --log) appends " T" (time.monotonic(), seconds) to that line
and logs "END METHOD PATH T" when the answer is written, or
"GONE METHOD PATH T" when the client closed the connection during --delay
(the answer is then not sent); scripts/bench_pipeline.py counts requests in
flight from these. --log-connections (with --log) appends "CONN N T" each time
a connection is accepted: N is the number of client connections open at that
moment, the new one included (a connection counts as closed as soon as the
client's FIN or RST has arrived, by its kernel TCP state, even if its handler
thread has not noticed yet), T as for --log-times. GET and HEAD only.

Routes (PATH is relative to --root; KEY is any word naming a counter):
  /PATH                          the file, with ETag, Last-Modified and
                                 Cache-Control: max-age=3600 (--cache-control); 304 on a matching
                                 If-None-Match / If-Modified-Since
  /img/I/PATH                    the file at PATH (a distinct URL per item I)
  /as/FILE/ANYTHING              the file FILE (in the root) under any last path
                                 component (hostile names for saving: %2E%2E, ...)
  /gallery/N.json?img=PATH       JSON array of N items (I = 0..N-1)
                                 {"title": "Item I", "url": "/img/I/PATH"};
                                 img defaults to flags/fr.png; &abs=1 makes the
                                 URLs absolute (http://127.0.0.1:PORT/img/...)
  /paged/N.json?page=K           page K (1..N, default 1) of a paged JSON Feed:
                                 two items {"id": "K-J", "title": "Page K item J",
                                 "image": "/img/I/PATH"} (I = 2(K-1)+J, J = 0..1) and,
                                 before the last page, "next_url":
                                 "/paged/N.json?page=K+1" (relative); img= as for
                                 /gallery; &shape=custom: {"data": {"photos": [{"id",
                                 "caption": {"text"}, "file"}]}, "paging": {"next"}};
                                 &link=1: the next URL in a Link header instead
  /status/CODE/anything          status CODE (200-599) with a tiny 1x1 PNG body
  /html/anything                 200 text/html <html>...</html>
  /html-as-jpeg/anything         the same HTML labelled image/jpeg
  /truncated/PATH                first half of the file, Content-Length = half
  /slow/SECONDS/PATH             sleeps SECONDS (float) then serves PATH
  /hang/anything                 200 headers (image/png, Content-Length 1 MB),
                                 the 8-byte PNG signature, then nothing more
  /flaky/N/KEY/PATH              503 for the first N requests of KEY, then PATH
  /retry-after/SECONDS/KEY/PATH  first request of KEY: 429 with Retry-After:
                                 SECONDS; later ones serve PATH
  /redirect-loop/N               302 to /redirect-loop/N+1, forever
  /redirect-file/PATH            302 to file:///PATH (a scheme a client must not follow)
  /big/BYTES                     200 image/png, BYTES bytes (PNG signature then
                                 zeros), streamed in 64 KiB chunks
  /early-hints/N/PATH            N interim 1xx answers (103, then 102s), then PATH
  /trickle/SECONDS               200 image/png announcing 1 MB, then one byte
                                 every 0.1 s for SECONDS seconds
  /gzip-bomb/MIB                 200 image/png with Content-Encoding: gzip, a body
                                 that inflates to MIB MiB of zeros (1 KB a MiB on
                                 the wire), 16 KB every 10 ms; logs SENT k/total
  /endless/anything              200 image/png, no Content-Length (ends with the
                                 connection): the PNG signature, then zeros forever
                                 in 64 KiB chunks
  /cut/PATH                      the file's headers and full Content-Length, half
                                 of its bytes, then the connection is closed
  /many-headers/N/PATH           PATH with N extra header lines (X-Filler-I: I)
  /long-header/BYTES/PATH        PATH with one header line of BYTES bytes
  /redirect-to?url=URL           302 to URL (any host: a cross-host redirect)
  /redirect-same/PATH            302 to /PATH on this server
  With --log-headers (and --log), every request also logs
  "HEADER METHOD PATH NAME: VALUE" for each request header; with --log-times,
  /big/ and /endless/ log "CLOSED PATH T" when the client closed the connection
  /evil/KIND/anything            a hostile server: EVIL (OSC 0 title, CSI 2J, OSC 52
                                 clipboard, C1 CSI and OSC as UTF-8, RLO, DEL) in one
                                 field: KIND location (302 to gopher://127.0.0.1/EVIL),
                                 status (404 with EVIL as reason phrase), ctype (200
                                 HTML with Content-Type EVIL), headers (429 with
                                 Retry-After and X-Evil EVIL), gallery.json (a JSON
                                 Feed: EVIL in titles, URLs, file names and next_url),
                                 link.json (EVIL in a Link header's next URL)
  /bomb.png                      a valid 20000x20000 1-bit greyscale PNG
                                 (~50 KB on the wire, 400 MB once decoded to
                                 8-bit): a decompression bomb
"""

import argparse
import email.utils
import json
import mimetypes
import os
import select
import socket
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

PNG_SIG = b"\x89PNG\r\n\x1a\n"
HTML = b"<html><head><title>Not an image</title></head><body>Sorry, this is a web page.</body></html>\n"
# Terminal injection: window title (OSC 0), clear screen (CSI 2J), clipboard (OSC 52), C1 CSI
# and OSC sent as UTF-8 (U+009B, U+009D, ST U+009C), right-to-left override, DEL.
EVIL = b"\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;UFdORUQ=\x07\xc2\x9b2J\xc2\x9d0;PWNED\xc2\x9c\xe2\x80\xae\x7fX"
COUNTERS = {}
LOCK = threading.Lock()


def png(width, height, bit_depth, raw_rows):
    """A greyscale PNG; raw_rows yields filtered scanlines (filter byte included)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    z = zlib.compressobj(9)
    idat = b"".join(z.compress(r) for r in raw_rows) + z.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, 0, 0, 0, 0)
    return PNG_SIG + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


TINY_PNG = png(1, 1, 8, [b"\x00\x80"])
_bomb = []


def bomb():
    with LOCK:
        if not _bomb:
            row = bytes(1 + 20000 // 8)
            _bomb.append(png(20000, 20000, 1, (row for _ in range(20000))))
        return _bomb[0]


_gzip_bombs = {}


def gzip_bomb(mib):
    """`mib` MiB of zeros, gzip-compressed (about 1 KB per MiB), made once per size.

    Each MiB is compressed after a full flush (an empty history), so every MiB after the
    first compresses to the same bytes: those are repeated, and the trailer (CRC-32, length)
    is written for the whole. 2 GiB takes about a second instead of 14."""
    with LOCK:
        if mib not in _gzip_bombs:
            chunk = bytes(1 << 20)
            z = zlib.compressobj(9, zlib.DEFLATED, 31)
            first = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
            unit = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
            tail = z.flush()[:-8]
            crc = 0
            for _ in range(mib):
                crc = zlib.crc32(chunk, crc)
            _gzip_bombs[mib] = (first + unit * (mib - 1) + tail
                                + struct.pack("<II", crc, (mib << 20) & 0xFFFFFFFF))
        return _gzip_bombs[mib]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY: headers and body go out in two writes; with Nagle the body waited for the
    # client's delayed ACK of the headers (40 ms per request on a kept-alive connection).
    disable_nagle_algorithm = True
    server_version = "galleryserver/1"

    def log_message(self, fmt, *args):  # quiet; errors go through log_error
        pass

    def log_error(self, fmt, *args):
        sys.stderr.write("galleryserver: %s\n" % (fmt % args))

    def do_HEAD(self):
        self.do_GET()

    def log_line(self, prefix=""):
        cfg = self.server.cfg
        stamp = " %.6f" % time.monotonic() if cfg.log_times else ""
        with LOCK:
            cfg.log.write("%s%s %s%s\n" % (prefix, self.command, self.path, stamp))
            cfg.log.flush()

    def do_GET(self):
        cfg = self.server.cfg
        if cfg.log:
            self.log_line()
            if cfg.log_headers:
                with LOCK:
                    for name, value in self.headers.items():
                        cfg.log.write("HEADER %s %s %s: %s\n" % (self.command, self.path, name, value))
                    cfg.log.flush()
        if not (cfg.log and cfg.log_times):
            return self.answer()
        gone = False
        try:
            gone = self.answer()
        finally:
            self.log_line("GONE " if gone else "END ")

    def client_gone(self, seconds):
        """Waits `seconds`; True as soon as the client closes the connection."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if select.select([self.connection], [], [], left)[0]:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        return True
                except OSError:
                    return True
                time.sleep(left)  # bytes of a next request: just wait
                return False

    def answer(self):
        cfg = self.server.cfg
        url = urlsplit(self.path)
        path = unquote(url.path)
        if cfg.delay and not path.endswith((".json", ".plist")):
            if cfg.log_times:
                if self.client_gone(cfg.delay):
                    self.close_connection = True
                    return True
            else:
                time.sleep(cfg.delay)
        parts = path.lstrip("/").split("/")
        head, n = parts[0], len(parts)
        try:
            if head == "status" and n >= 2 and parts[1].isdigit() and 200 <= int(parts[1]) <= 599:
                code = int(parts[1])
                body = b"" if code in (204, 304) else TINY_PNG
                self.reply(code, "image/png", body)
            elif head in ("html", "html-as-jpeg"):
                self.reply(200, "text/html; charset=utf-8" if head == "html" else "image/jpeg", HTML)
            elif head == "truncated" and n >= 2:
                data = self.read_file("/".join(parts[1:]))
                if data is not None:
                    self.reply(200, self.guess_type(parts[-1]), data[: len(data) // 2])
            elif head == "slow" and n >= 3:
                time.sleep(float(parts[1]))
                self.serve_file("/".join(parts[2:]))
            elif head == "img" and n >= 3:
                self.serve_file("/".join(parts[2:]))
            elif head == "as" and n >= 3:
                self.serve_file(parts[1])
            elif head == "hang":
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(1 << 20))
                self.end_headers()
                self.wfile.write(PNG_SIG)
                self.wfile.flush()
                while True:
                    time.sleep(3600)  # the --max-seconds timer ends the process
            elif head == "flaky" and n >= 4:
                if self.count(parts[2]) <= int(parts[1]):
                    self.reply(503, "text/plain", b"flaky: try again\n")
                else:
                    self.serve_file("/".join(parts[3:]))
            elif head == "retry-after" and n >= 4:
                if self.count(parts[2]) == 1:
                    self.reply(429, "text/plain", b"slow down\n", {"Retry-After": parts[1]})
                else:
                    self.serve_file("/".join(parts[3:]))
            elif head == "redirect-loop" and n == 2 and parts[1].isdigit():
                self.reply(302, "text/plain", b"again\n",
                           {"Location": "/redirect-loop/%d" % (int(parts[1]) + 1)})
            elif head == "redirect-file" and n >= 2:
                self.reply(302, "text/plain", b"elsewhere\n", {"Location": "file:///" + "/".join(parts[1:])})
            elif head == "big" and n == 2 and parts[1].isdigit():
                self.stream_big(int(parts[1]))
            elif head == "early-hints" and n >= 3 and parts[1].isdigit():
                # N interim answers (103 Early Hints, then 102 Processing), then PATH as usual
                for i in range(min(int(parts[1]), 1000)):
                    self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </x.css>; rel=preload\r\n\r\n" if i == 0
                                     else b"HTTP/1.1 102 Processing\r\n\r\n")
                self.wfile.flush()
                self.serve_file("/".join(parts[2:]))
            elif head == "trickle" and n == 2 and parts[1].isdigit():
                # 200 image/png announcing 1 MB, then one byte every 0.1 s for SECONDS s
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(1 << 20))
                self.end_headers()
                for i in range(int(parts[1]) * 10):
                    self.wfile.write(PNG_SIG[i % len(PNG_SIG):][:1])
                    self.wfile.flush()
                    time.sleep(0.1)
                self.close_connection = True
            elif head == "gzip-bomb" and n == 2 and parts[1].isdigit() and 1 <= int(parts[1]) <= 4096:
                self.stream_gzip_bomb(int(parts[1]))
            elif head == "endless":
                self.stream_big(None)
            elif head == "cut" and n >= 2:
                data = self.read_file("/".join(parts[1:]))
                if data is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", self.guess_type(parts[-1]))
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
            elif head == "many-headers" and n >= 3 and parts[1].isdigit():
                self.extra_headers = {"X-Filler-%d" % i: str(i) for i in range(int(parts[1]))}
                self.serve_file("/".join(parts[2:]))
            elif head == "long-header" and n >= 3 and parts[1].isdigit():
                self.extra_headers = {"X-Long": "x" * int(parts[1])}
                self.serve_file("/".join(parts[2:]))
            elif head == "redirect-to":
                self.reply(302, "text/plain", b"elsewhere\n", {"Location": parse_qs(url.query).get("url", ["/"])[0]})
            elif head == "redirect-same" and n >= 2:
                self.reply(302, "text/plain", b"here\n", {"Location": "/" + "/".join(parts[1:])})
            elif head == "evil" and n >= 2:
                self.evil(parts[1])
            elif path == "/bomb.png":
                self.reply(200, "image/png", bomb())
            elif head == "gallery" and n == 2 and parts[1].endswith(".json") and parts[1][:-5].isdigit():
                q = parse_qs(url.query)
                img = q.get("img", ["flags/fr.png"])[0].lstrip("/")
                base = "http://%s:%d" % (self.server.server_address[0], self.server.server_port) if q.get("abs") == ["1"] else ""
                items = [{"title": "Item %d" % i, "url": "%s/img/%d/%s" % (base, i, img)}
                         for i in range(int(parts[1][:-5]))]
                self.reply(200, "application/json", json.dumps(items, indent=1).encode())
            elif head == "paged" and n == 2 and parts[1].endswith(".json") and parts[1][:-5].isdigit():
                self.paged(int(parts[1][:-5]), parse_qs(url.query))
            else:
                self.serve_file(path.lstrip("/"))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except ValueError:
            self.reply(400, "text/plain", b"bad request\n")

    # -- helpers

    def paged(self, pages, q):
        k = int(q.get("page", ["1"])[0])
        if not 1 <= k <= pages:
            return self.reply(404, "text/plain", b"no such page\n")
        img = q.get("img", ["flags/fr.png"])[0].lstrip("/")
        extra = "".join("&%s=%s" % (key, q[key][0]) for key in ("img", "shape", "link") if key in q)
        nxt = "/paged/%d.json?page=%d%s" % (pages, k + 1, extra) if k < pages else None
        ids = [(2 * (k - 1) + j, "%d-%d" % (k, j)) for j in range(2)]
        if q.get("shape") == ["custom"]:
            body = {"data": {"photos": [{"id": key, "caption": {"text": "Page %d item %s" % (k, key[-1])},
                                         "file": "/img/%d/%s" % (i, img)} for i, key in ids]},
                    "paging": {"next": nxt}}
        else:
            body = {"version": "https://jsonfeed.org/version/1.1", "title": "Paged",
                    "items": [{"id": key, "title": "Page %d item %s" % (k, key[-1]), "image": "/img/%d/%s" % (i, img)}
                              for i, key in ids]}
            if nxt and q.get("link") != ["1"]:
                body["next_url"] = nxt
        headers = {"Link": '<%s>; rel="next"' % nxt} if nxt and q.get("link") == ["1"] else None
        self.reply(200, "application/json", json.dumps(body).encode(), headers)

    def evil(self, kind):
        text = EVIL.decode("latin-1")  # header values go out as these bytes
        quoted = "".join("%%%02X" % b for b in EVIL)
        if kind == "location":
            self.reply(302, "text/plain", b"elsewhere\n", {"Location": "gopher://127.0.0.1/" + text})
        elif kind == "status":
            self.send_response(404, text)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif kind == "ctype":
            self.reply(200, text, HTML)
        elif kind == "headers":
            self.reply(429, "text/plain", b"slow down\n", {"Retry-After": text, "X-Evil": text})
        elif kind == "gallery.json":
            evil = EVIL.decode("utf-8")
            body = {"version": "https://jsonfeed.org/version/1.1", "title": evil,
                    "items": [{"id": "1", "title": evil + "title", "image": "/evil/status/" + quoted + ".png"},
                              {"id": "2", "title": "redirected", "image": "/evil/location/x.png"},
                              {"id": "3", "title": "typed", "image": "/evil/ctype/x.png"},
                              {"id": "4", "title": "busy", "image": "/evil/headers/x.png"},
                              {"id": "5", "title": "", "image": "/nothing/" + quoted + ".png"}],
                    "next_url": "/evil/" + quoted + ".json"}
            self.reply(200, "application/json", json.dumps(body).encode())
        elif kind == "link.json":
            body = [{"title": "a", "url": "/nothing/a.png"}]
            self.reply(200, "application/json", json.dumps(body).encode(),
                       {"Link": '</evil/%s.json>; rel="next"' % quoted})
        else:
            self.reply(404, "text/plain", b"no such evil\n")

    def count(self, key):
        with LOCK:
            COUNTERS[key] = COUNTERS.get(key, 0) + 1
            return COUNTERS[key]

    def reply(self, code, ctype, body, headers=None):
        self.send_response(code)
        for k, v in getattr(self, "extra_headers", {}).items():
            self.send_header(k, v)
        self.extra_headers = {}
        if code not in (204, 304):
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD" and code not in (204, 304):
            self.wfile.write(body)

    def guess_type(self, name):
        if name.endswith(".plist"):
            return "application/x-plist"
        if name.endswith(".json"):
            return "application/json"
        return mimetypes.guess_type(name)[0] or "application/octet-stream"

    def local_path(self, rel):
        """rel joined to the root, or None if it tries to leave it. Symlinks
        inside the root are followed (serve-real-photos.sh relies on that)."""
        if any(p in ("..", ".") for p in rel.split("/")) or "\0" in rel:
            return None
        full = os.path.join(self.server.cfg.root, rel)
        return full if os.path.isfile(full) else None

    def read_file(self, rel):
        full = self.local_path(rel)
        if full is None:
            self.reply(404, "text/plain", b"not found\n")
            return None
        with open(full, "rb") as f:
            return f.read()

    def serve_file(self, rel):
        full = self.local_path(rel)
        if full is None:
            return self.reply(404, "text/plain", b"not found\n")
        st = os.stat(full)
        etag = '"%x-%x"' % (st.st_mtime_ns, st.st_size)
        mtime = int(st.st_mtime)
        headers = {"ETag": etag, "Last-Modified": email.utils.formatdate(mtime, usegmt=True)}
        if self.server.cfg.cache_control:
            headers["Cache-Control"] = self.server.cfg.cache_control
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        if inm is not None:
            tags = [t.strip().removeprefix("W/") for t in inm.split(",")]
            fresh = "*" in tags or etag in tags
        elif ims is not None:
            try:
                fresh = email.utils.parsedate_to_datetime(ims).timestamp() >= mtime
            except (TypeError, ValueError):
                fresh = False
        else:
            fresh = False
        if fresh:
            return self.reply(304, "", b"", headers)
        with open(full, "rb") as f:
            self.reply(200, self.guess_type(full), f.read(), headers)

    def stream_gzip_bomb(self, mib):
        """A gzip body (Content-Encoding) that inflates to `mib` MiB, sent 16 KB every 10 ms;
        logs `SENT /gzip-bomb/N k/total` (bytes on the wire) when the client took it all or
        hung up."""
        body = gzip_bomb(mib)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        sent = 0
        try:
            while sent < len(body):
                self.wfile.write(body[sent:sent + 16384])
                self.wfile.flush()
                sent = min(len(body), sent + 16384)
                time.sleep(0.01)
        finally:
            cfg = self.server.cfg
            if cfg.log:
                with LOCK:
                    cfg.log.write("SENT %s %d/%d\n" % (self.path, sent, len(body)))
                    cfg.log.flush()

    def stream_big(self, size):
        """`size` bytes (None: endless, no Content-Length), the PNG signature then zeros."""
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        if size is None:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        if self.command == "HEAD":
            return
        first = PNG_SIG if size is None else PNG_SIG[:size]
        left = None if size is None else size - len(first)
        zeros = bytes(65536)
        try:
            self.wfile.write(first)
            while left is None or left > 0:
                k = len(zeros) if left is None else min(left, len(zeros))
                self.wfile.write(zeros[:k])
                if left is not None:
                    left -= k
        except (BrokenPipeError, ConnectionResetError):
            cfg = self.server.cfg
            if cfg.log and cfg.log_times:
                with LOCK:
                    cfg.log.write("CLOSED %s %.6f\n" % (self.path, time.monotonic()))
                    cfg.log.flush()
            raise


class Server(ThreadingHTTPServer):
    daemon_threads = True
    open_connections = None  # set of sockets, with --log-connections

    def process_request(self, request, client_address):
        cfg = self.cfg
        if cfg.log and cfg.log_connections:
            with LOCK:
                for sock in list(self.open_connections):
                    if self.peer_closed(sock):
                        self.open_connections.discard(sock)
                self.open_connections.add(request)
                cfg.log.write("CONN %d %.6f\n" % (len(self.open_connections), time.monotonic()))
                cfg.log.flush()
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        if self.open_connections is not None:
            with LOCK:
                self.open_connections.discard(request)
        super().shutdown_request(request)

    @staticmethod
    def peer_closed(sock):
        """True when the client has closed `sock`: the kernel's TCP state (the first byte of
        TCP_INFO) is no longer ESTABLISHED (1), e.g. CLOSE_WAIT after a FIN, CLOSE after a
        reset, whether or not unread request bytes are still queued."""
        try:
            return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0] != 1
        except OSError:
            return True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description="Loopback gallery server for Vitrine's tests.")
    ap.add_argument("--port", type=int, default=0, help="0 = any free port (default)")
    ap.add_argument("--root", default=".", help="directory of files to serve (default: .)")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds before answering image requests")
    ap.add_argument("--log", help="append 'METHOD PATH' per request to this file")
    ap.add_argument("--log-times", action="store_true",
                    help="with --log: add a monotonic time, log END/GONE per answer")
    ap.add_argument("--log-connections", action="store_true",
                    help="with --log: log 'CONN N T' per accepted connection (N open at that moment)")
    ap.add_argument("--cache-control", default="max-age=3600",
                    help="Cache-Control of served files ('' for none, as static hosts send)")
    ap.add_argument("--log-headers", action="store_true",
                    help="with --log: log 'HEADER METHOD PATH NAME: VALUE' per request header")
    ap.add_argument("--max-seconds", type=float, default=600.0, help="exit after this long (default 600)")
    ap.add_argument("--bind", default="127.0.0.1", help="a loopback address: 127.x.x.x or ::1 (default 127.0.0.1)")
    cfg = ap.parse_args()
    if not ((cfg.bind.startswith("127.") and cfg.bind.count(".") == 3) or cfg.bind == "::1"):
        ap.error("refusing to bind %s: this test server binds loopback (127.x.x.x, ::1) only" % cfg.bind)
    if cfg.bind == "::1":
        Server.address_family = socket.AF_INET6
    cfg.root = os.path.abspath(cfg.root)
    if not os.path.isdir(cfg.root):
        ap.error("--root %s is not a directory" % cfg.root)
    cfg.log = open(cfg.log, "a", encoding="utf-8") if cfg.log else None
    server = Server((cfg.bind, cfg.port), Handler)
    server.cfg = cfg
    server.open_connections = set()
    print("PORT %d" % server.server_port, flush=True)

    def stop():
        time.sleep(cfg.max_seconds)
        os._exit(0)
    threading.Thread(target=stop, daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
