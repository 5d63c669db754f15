"""Shared machinery for Vitrine's end-to-end tests (Python 3 standard library only).

- `binary()`: the vitrine executable under test ($VITRINE_BIN, default
  <repo>/.build/release/vitrine); a missing one FAILS the test, never skips it.
- `GalleryServer`: Tests/Fixtures/galleryserver.py on 127.0.0.1, an OS-picked port,
  a request log, always stopped in tearDown.
- `Terminal`: a private tmux server (`tmux -L <unique>` with `-f /dev/null`) of a
  fixed size running one shell command, with bounded polling of the screen.
- `E2ETestCase`: a unittest.TestCase with a temp dir and cleanups for all of the above.
"""

import itertools
import os
import re
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SERVER = REPO / "Tests" / "Fixtures" / "galleryserver.py"
DEMO = REPO / "Resources" / "demo"

SPINNER_GLYPHS = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
HALF_BLOCK = "▀"
_counter = itertools.count()


def binary():
    """Path of the vitrine binary under test (not checked)."""
    return os.environ.get("VITRINE_BIN") or str(REPO / ".build" / "release" / "vitrine")


def binary_problem():
    """None when the binary is usable, else a message saying what is wrong."""
    path = binary()
    if not os.path.isfile(path):
        return ("vitrine binary not found at %s: build it with `make build` "
                "or point VITRINE_BIN at one" % path)
    if not os.access(path, os.X_OK):
        return "vitrine binary at %s is not executable" % path
    return None


def wait_until(predicate, timeout, interval=0.05):
    """Polls `predicate` every `interval` s until it returns a truthy value (returned) or
    `timeout` s pass (returns the last falsy value)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def display_width(text):
    """Terminal columns taken by `text` (East Asian wide/fullwidth = 2, combining = 0)."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def column_of(line, needle):
    """Display column where `needle` starts in `line`, or None."""
    i = line.find(needle)
    return None if i < 0 else display_width(line[:i])


def image_size(path):
    """(width, height) of a PNG or JPEG file, read from its header."""
    with open(path, "rb") as f:
        data = f.read(1 << 20)
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return struct.unpack(">II", data[16:24])
    if data.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            length = struct.unpack(">H", data[i + 2:i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                height, width = struct.unpack(">HH", data[i + 5:i + 9])
                return width, height
            i += 2 + length
    raise ValueError("cannot read the size of %s" % path)


class GalleryServer:
    """galleryserver.py on 127.0.0.1 with an OS-picked port and a request log."""

    def __init__(self, root, log, delay=0.0, max_seconds=120, extra_args=()):
        self.log = Path(log)
        self.log.touch()
        cmd = [sys.executable, str(SERVER), "--port", "0", "--root", str(root),
               "--log", str(self.log), "--max-seconds", str(max_seconds), *extra_args]
        if delay:
            cmd += ["--delay", str(delay)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     stdin=subprocess.DEVNULL)
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline().decode() if ready else ""
        m = re.match(r"PORT (\d+)", line)
        if not m:
            self.stop()
            raise RuntimeError("galleryserver.py did not print PORT (got %r)" % line)
        self.port = int(m.group(1))
        self.base = "http://127.0.0.1:%d" % self.port

    def url(self, path):
        return "%s/%s" % (self.base, path.lstrip("/"))

    def requests(self):
        """Logged request lines ("METHOD PATH")."""
        return [l for l in self.log.read_text(encoding="utf-8").splitlines() if l.strip()]

    def image_requests(self):
        """Logged requests that are not for the gallery (.json/.plist)."""
        return [l for l in self.requests() if not re.search(r"\.(json|plist)(\?|$)", l.split(" ", 1)[1])]

    def stop(self):
        stop_process(self.proc)


class Terminal:
    """A private tmux server with one fixed-size session running `command` in sh."""

    def __init__(self, command, width=100, height=30):
        self.socket = "vitrine-e2e-%d-%d-%d" % (os.getpid(), next(_counter), int(time.time() * 1000) % 100000)
        self.width, self.height = width, height
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color")
        self.env = env
        self.tmux("new-session", "-d", "-s", "e2e", "-x", str(width), "-y", str(height), command)
        self.tmux("set-option", "-t", "e2e", "remain-on-exit", "on")
        self.pane_pid = int(self.display("#{pane_pid}"))

    def tmux(self, *args, check=True):
        result = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                                env=self.env, capture_output=True, timeout=10)
        if check and result.returncode != 0:
            raise RuntimeError("tmux %s failed: %s" % (" ".join(args), result.stderr.decode(errors="replace")))
        return result.stdout.decode("utf-8", errors="replace")

    def kill(self):
        self.tmux("kill-server", check=False)
        # tmux 3.3 leaves the socket file behind; remove ours once the server is gone.
        path = os.path.join(os.environ.get("TMUX_TMPDIR") or "/tmp", "tmux-%d" % os.getuid(), self.socket)
        wait_until(lambda: subprocess.run(["tmux", "-L", self.socket, "has-session"], capture_output=True,
                                          env=self.env).returncode != 0, 2)
        try:
            os.unlink(path)
        except OSError:
            pass

    def capture(self, escapes=False):
        """The visible screen, one string per line (trailing blanks trimmed by tmux)."""
        args = ["capture-pane", "-p", "-t", "e2e"]
        if escapes:
            args.insert(1, "-e")
        return self.tmux(*args).split("\n")[: self.height]

    def text(self):
        return "\n".join(self.capture())

    def display(self, fmt):
        return self.tmux("display-message", "-p", "-t", "e2e", fmt).strip()

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "e2e", *keys)

    def literal(self, text):
        self.tmux("send-keys", "-t", "e2e", "-l", text)

    def resize(self, width, height):
        self.width, self.height = width, height
        self.tmux("resize-window", "-t", "e2e", "-x", str(width), "-y", str(height))

    def wait_for(self, predicate, timeout, what):
        """Polls the screen until predicate(lines) is truthy and returns those lines; fails
        with the last screen if `timeout` s pass first."""
        last = [None]

        def check():
            last[0] = self.capture()
            return predicate(last[0])
        result = wait_until(check, timeout, 0.05)
        if not result:
            raise AssertionError("timed out after %.1fs waiting for %s; screen was:\n%s"
                                 % (timeout, what, "\n".join(last[0] or [])))
        return last[0]

    def wait_text(self, needle, timeout=10):
        return self.wait_for(lambda lines: needle in "\n".join(lines), timeout, repr(needle))

    def status(self):
        """The last line of the screen (Vitrine's status line)."""
        return self.capture()[-1]

    def vitrine_pids(self):
        """Pids of processes below the pane's shell running the binary under test."""
        target = os.path.realpath(binary())
        found = []
        for child in _children(self.pane_pid):
            try:
                if os.path.realpath("/proc/%d/exe" % child) == target:
                    found.append(child)
            except OSError:
                pass
        return found


def _children(pid):
    out = []
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        return out
    for k in kids:
        out.append(k)
        out.extend(_children(k))
    return out


class E2ETestCase(unittest.TestCase):
    """A temp dir, servers and terminals that are always cleaned up."""

    maxDiff = None

    def setUp(self):
        problem = binary_problem()
        if problem:
            self.fail(problem)
        self.tmp = Path(tempfile.mkdtemp(prefix="vitrine-e2e-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.cache = self.tmp / "cache"
        self.cache.mkdir()

    def serve(self, root, delay=0.0):
        server = GalleryServer(root, self.tmp / ("server-%d.log" % next(_counter)), delay=delay)
        self.addCleanup(server.stop)
        return server

    def launch(self, args, width=100, height=30, truecolor=True, before="BEFORE-VITRINE-MARKER", env_extra=None,
               pipe_in=None, redirect_out=None):
        """Runs vitrine ARGS in a fresh tmux; returns the Terminal. The shell prints
        `before` first and `EXITED=<status>` after vitrine ends. `env_extra` adds variables;
        `pipe_in`: a shell command whose output is piped into vitrine's stdin; `redirect_out`:
        a file its stdout goes to."""
        env = {"TERM": "tmux-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "XDG_CACHE_HOME": str(self.cache), "XDG_CONFIG_HOME": str(self.tmp / "config"),
               "HOME": str(self.tmp), **(env_extra or {})}
        if truecolor:
            env["COLORTERM"] = "truecolor"
        assigns = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())
        unset = "" if truecolor else "unset COLORTERM; "
        vitrine = " ".join(shlex.quote(a) for a in [binary(), *args])
        if redirect_out:
            vitrine += " >%s" % shlex.quote(str(redirect_out))
        feed = "%s | " % pipe_in if pipe_in else ""
        command = ("%sprintf '%%s\\n' %s; %senv %s %s; echo EXITED=$?; sleep 60"
                   % (unset, shlex.quote(before), feed, assigns, vitrine))
        term = Terminal("sh -c %s" % shlex.quote(command), width, height)
        self.addCleanup(term.kill)
        return term

    def wait_started(self, term, timeout=10):
        """Waits for the status line (Vitrine's table is up)."""
        return term.wait_for(lambda lines: re.search(r"\d+/\d+\+? .*H help", lines[-1]), timeout,
                             "the status line")

    def wait_settled(self, term, timeout=15):
        """Waits until the status line says nothing is loading."""
        return term.wait_for(lambda lines: "loading 0 " in lines[-1], timeout, "'loading 0' in the status line")


def stop_process(proc):
    """Ends a server or terminal the tests started: SIGTERM, then SIGKILL after 5 s; closes the
    pipes the test held to it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe:
            pipe.close()


def write_json(path, items):
    import json
    Path(path).write_text(json.dumps(items, ensure_ascii=False, indent=1), encoding="utf-8")


def link_demo(root, *relpaths):
    """Symlinks Resources/demo/REL into root/REL for each REL."""
    for rel in relpaths:
        dest = Path(root) / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not dest.exists():
            dest.symlink_to(DEMO / rel)


def find_row(lines, title):
    """Index of the screen line whose text column shows exactly `title` (first match)."""
    for i, line in enumerate(lines):
        if re.search(r"(^|\s)%s\s*$" % re.escape(title), line):
            return i
    return None


def kill_pid(pid, sig=signal.SIGTERM):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
