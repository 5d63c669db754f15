"""End-to-end test of kitty's pan region written in slices: the real binary on a pseudo-terminal
(120x40 cells of 10x20 pixels, `--pixels kitty`, nothing answering), a real photo
(mate-backgrounds' LadyBird.jpg, 2560x1600) at 1:1 and one zoom step, whose pan region is
megabytes of base64. The test stops reading while the region goes out, so the pty fills, then
presses `q`: the browser must read the key at once (its writes to a full terminal never block
the loop), end the region after the escape sequence in flight, delete that image, and go back to
the gallery without sending the rest. An outcome check on the bytes, no timing assert."""

import base64
import fcntl
import os
import pty
import re
import resource
import select
import signal
import struct
import sys
import termios
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase, binary  # noqa: E402

PHOTO = Path("/usr/share/backgrounds/mate/nature/LadyBird.jpg")  # 2560x1600
COLS, ROWS, CW, CH = 120, 40, 10, 20


class PtyBrowser:
    """The browser on a pty of its own: bytes read so far, keys written."""

    def __init__(self, args, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(args[0], args, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, COLS * CW, ROWS * CH))
        self.buf = bytearray()
        self.status = None

    def read_for(self, seconds):
        """Reads whatever comes for `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.buf += os.read(self.fd, 1 << 20)
                except OSError:
                    return

    def read_until(self, found, timeout, what, start=0):
        """Reads until `found(bytes after start)` is true; fails after `timeout` s."""
        deadline = time.monotonic() + timeout
        # Only what a read added (and a few bytes before it) is looked at again: megabytes of
        # a region must not be searched once a read.
        look = start
        while not found(bytes(self.buf[look:])):
            if time.monotonic() > deadline:
                raise AssertionError("no %s after %d s (%d bytes read)" % (what, timeout, len(self.buf) - start))
            look = max(start, len(self.buf) - 64)
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    self.buf += os.read(self.fd, 1 << 20)
                except OSError:
                    raise AssertionError("the browser ended before %s" % what)

    def key(self, k):
        os.write(self.fd, k)

    def quit(self, timeout=20):
        """Q, then reads until the browser exits; returns its wait status."""
        self.key(b"Q")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read_for(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                break
        else:
            raise AssertionError("the browser did not exit after Q")
        return self.status

    def kill(self):
        if self.status is None:
            try:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        try:
            os.close(self.fd)
        except OSError:
            pass


class KittySlicesTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        if not PHOTO.exists():
            self.fail("%s is missing: install mate-backgrounds" % PHOTO)

    def launch_pty(self, **extra):
        env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8",
                   XDG_CACHE_HOME=str(self.cache), XDG_CONFIG_HOME=str(self.tmp / "config"), HOME=str(self.tmp),
                   **extra)
        env.pop("TMUX", None)
        b = PtyBrowser([binary(), str(PHOTO), "--no-disk-cache", "--no-mouse", "--pixels", "kitty"], env)
        self.addCleanup(b.kill)
        return b

    def test_q_while_a_region_goes_out_ends_it_and_goes_back_at_once(self):
        # Given the full view at 1:1 with its full-size decode, everything drawn and read
        b = self.launch_pty()
        b.read_until(lambda s: b"H help" in s, 20, "the gallery's status line")
        b.key(b"\r")
        b.read_until(lambda s: b"fit " in s, 20, "the full view at fit")
        b.key(b"=")
        # The full-size decode (2560x1600) arrives in the background; ^L repaints the status
        # line whole, whose zoom text ends in "…" until it has.
        for _ in range(60):
            b.read_for(0.5)
            mark = len(b.buf)
            b.key(b"\x0c")
            b.read_until(lambda s: b"of 2560x1600" in s, 20, "the status line after ^L", mark)
            b.read_for(0.5)
            if b"of 2560x1600 \xe2\x80\xa6" not in b.buf[mark:]:
                break
        else:
            self.fail("no full-size decode")
        b.read_for(1.0)
        # When + zooms a step (a new pan region: megabytes of a=t chunks) and the test stops
        # reading once it has started, so the pty fills while the region goes out
        mark = len(b.buf)
        b.key(b"+")
        b.read_until(lambda s: re.search(rb"\x1b_Ga=[tT],", s), 30, "the new region's first chunk", mark)
        time.sleep(1.0)
        # and q is pressed then
        b.key(b"q")
        b.read_until(lambda s: b"H help" in s, 30, "the gallery after q", mark)
        status = b.quit()
        self.assertTrue(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "exit status %r" % status)
        out = bytes(b.buf[mark:])

        # Then the region was cut short: after its first chunk no last chunk (m=0) came, its
        # image was deleted (a=d,d=I with its id) and never placed, and far fewer bytes than
        # the region's base64 went out before the gallery came back
        head = re.search(rb"\x1b_Ga=[tT],f=(24|32),s=(\d+),v=(\d+),i=(\d+),", out)
        self.assertIsNotNone(head, "the region's header")
        fmt, width, height, image_id = (int(x) for x in head.groups())
        full = width * height * fmt // 8 * 4 // 3
        region = out[head.start():]
        gallery = region.index(b"H help")
        delete = region.find(b"\x1b_Ga=d,d=I,i=%d," % image_id)
        self.assertGreater(delete, 0, "the cut region's image is deleted")
        self.assertLess(delete, gallery, "deleted before the gallery is drawn")
        self.assertNotIn(b"m=0;", region[:delete], "the region's last chunk never went out")
        self.assertLess(delete, full // 2, "the rest of %d bytes of base64 was not sent" % full)
        self.assertNotIn(b"a=p,i=%d," % image_id, out, "the cut region was never placed")
        # and the deletion follows a whole escape sequence (the chunk in flight was finished)
        self.assertTrue(region[:delete].endswith(b"\x1b\\"), "the chunk in flight is finished first")
        # and nothing of it came after
        self.assertNotIn(b"\x1b_Gq=2,m=", region[delete:])


    def test_a_crash_unlinks_the_shared_memory_the_terminal_did_not_read(self):
        # Given the full view at 1:1 with its pan region handed to the terminal through shared
        # memory (forced: nothing answers the probe here), and a terminal that never reads it
        b = self.launch_pty(VITRINE_KITTY_MEDIUM="shared-memory")
        b.read_until(lambda s: b"H help" in s, 20, "the gallery's status line")
        b.key(b"\r")
        b.read_until(lambda s: b"fit " in s, 20, "the full view at fit")
        mark = len(b.buf)
        b.key(b"=")
        command = re.compile(rb"\x1b_Ga=t,f=32,s=\d+,v=\d+,i=\d+,t=s,S=\d+,q=2;([A-Za-z0-9+/=]+)\x1b\\")
        b.read_until(lambda s: command.search(s), 30, "a region through shared memory", mark)
        names = [base64.b64decode(m.group(1)).decode() for m in command.finditer(bytes(b.buf[mark:]))]
        paths = ["/dev/shm" + n for n in names]
        self.assertTrue(any(os.path.exists(p) for p in paths), "no object left to read: %r" % paths)
        # When the browser crashes (SIGSEGV: the fatal signal handler; no core file)
        soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
        resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
        self.addCleanup(resource.setrlimit, resource.RLIMIT_CORE, (soft, hard))
        os.kill(b.pid, signal.SIGSEGV)
        deadline = time.monotonic() + 10
        while b.status is None and time.monotonic() < deadline:
            b.read_for(0.05)
            pid, status = os.waitpid(b.pid, os.WNOHANG)
            if pid:
                b.status = status
        # Then it dies of that signal, and no object it handed over is left in /dev/shm
        self.assertTrue(b.status is not None and os.WIFSIGNALED(b.status) and os.WTERMSIG(b.status) == signal.SIGSEGV,
                        "status %r" % b.status)
        left = [p for p in paths if os.path.exists(p)]
        for p in left:
            os.unlink(p)
        self.assertEqual(left, [], "left in /dev/shm after the crash")


if __name__ == "__main__":
    unittest.main()
