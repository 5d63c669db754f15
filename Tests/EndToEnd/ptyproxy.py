"""Runs a command on a pseudo-terminal of its own inside the terminal this script runs in, and
passes bytes both ways, so a test can type into a real graphical terminal (kitty, xterm under
Xvfb) from outside: keys come from the terminal and from a FIFO; everything the command writes
goes to the terminal and is also appended to a transcript file.

    python3 ptyproxy.py FIFO TRANSCRIPT -- COMMAND [ARG...]

The inner pty gets the outer one's size in cells and pixels (TIOCGWINSZ) and follows resizes.
The outer terminal is put in raw mode, so the terminal's answers to queries (DA1, OSC 11, the
kitty graphics query) reach the command untouched. Standard library only.

Holding: while a file TRANSCRIPT.hold exists, its content is a regular expression (bytes); the
first output read after it appeared that matches it (within that read and the 4 KB before it)
is passed on, then the proxy stops reading the command's output until the file is removed, so
the terminal shows what came up to that point (a test's screenshot of a picture that the next
bytes would replace) however fast the command goes on."""

import fcntl
import os
import re
import select
import signal
import struct
import sys
import termios
import tty


def copy_size(src, dst):
    try:
        size = fcntl.ioctl(src, termios.TIOCGWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
        fcntl.ioctl(dst, termios.TIOCSWINSZ, size)
    except OSError:
        pass


def main():
    fifo, transcript = sys.argv[1], sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1:]
    pid, master = os.forkpty()
    if pid == 0:
        os.execvp(command[0], command)
    copy_size(0, master)
    os.kill(pid, signal.SIGWINCH)
    signal.signal(signal.SIGWINCH, lambda *_: (copy_size(0, master), os.kill(pid, signal.SIGWINCH)))
    saved = termios.tcgetattr(0)
    tty.setraw(0)
    keys = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    # A writer of our own keeps the FIFO from reporting end-of-file between the test's writes.
    keep = os.open(fifo, os.O_WRONLY)
    log = open(transcript, "ab", buffering=0)
    hold_path = transcript + ".hold"
    pattern, tail, holding = None, b"", False
    try:
        while True:
            if pattern is not None and not os.path.exists(hold_path):
                holding, pattern, tail = False, None, b""
            try:
                ready, _, _ = select.select([0, keys] if holding else [master, 0, keys], [], [],
                                            0.05 if holding or pattern is not None else None)
            except InterruptedError:
                continue
            if master in ready:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                log.write(data)
                view = memoryview(data)
                while view:
                    n = os.write(1, view)
                    view = view[n:]
                if pattern is None and os.path.exists(hold_path):
                    with open(hold_path, "rb") as f:
                        pattern = re.compile(f.read())
                    tail = b""
                elif pattern is not None:
                    if pattern.search(tail + data):
                        holding = True
                    tail = (tail + data)[-4096:]
            elif pattern is None and not holding and os.path.exists(hold_path):
                with open(hold_path, "rb") as f:
                    pattern = re.compile(f.read())
                tail = b""
            for fd in (0, keys):
                if fd in ready:
                    data = os.read(fd, 4096)
                    if data:
                        os.write(master, data)
    finally:
        termios.tcsetattr(0, termios.TCSAFLUSH, saved)
        os.close(keep)
        _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else 0)


if __name__ == "__main__":
    main()
