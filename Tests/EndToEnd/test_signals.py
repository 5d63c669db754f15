"""End-to-end tests: every signal whose default action ends the process gives the terminal back
whole (termios, alternate screen, cursor, keypad-transmit mode, mouse reporting) and the
process still dies of that signal.

Run with `python3 Tests/EndToEnd/run.py -k Signal`.
"""

import os
import shlex
import signal
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import E2ETestCase, Terminal, binary, link_demo, wait_until, write_json  # noqa: E402

# Quit cleanly through the main loop, then re-raised.
TERMINATION = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM",
               "SIGPROF", "SIGIO", "SIGPWR", "SIGSTKFLT", "SIGXCPU", "SIGXFSZ", "SIGRTMIN", "SIGRTMAX"]
# Restored in the handler itself (faults and traps).
FATAL = ["SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGTRAP", "SIGSYS"]


class SignalRestoreTests(E2ETestCase):
    def setUp(self):
        super().setUp()
        root = self.tmp / "root"
        root.mkdir()
        link_demo(root, "flags/fr.png")
        self.gallery = root / "gallery.json"
        write_json(self.gallery, [{"title": "Item %d" % i, "url": "flags/fr.png"} for i in range(8)])

    def launch(self):
        env = "env TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CACHE_HOME=%s HOME=%s" % (
            shlex.quote(str(self.cache)), shlex.quote(str(self.tmp)))
        # No core files in the tree (SIGQUIT, SIGSEGV, ... dump core by default).
        command = "ulimit -c 0; printf 'BEFORE\\n'; %s %s %s; echo EXITED=$?; sleep 60" % (
            env, shlex.quote(binary()), shlex.quote(str(self.gallery)))
        term = Terminal("sh -c %s" % shlex.quote(command), 80, 24)
        self.addCleanup(term.kill)
        return term

    def stty(self, term):
        tty = term.display("#{pane_tty}")
        return subprocess.run(["stty", "-a", "-F", tty], capture_output=True, text=True, timeout=5).stdout.split()

    def check(self, name):
        sig = getattr(signal, name)
        term = self.launch()
        term.wait_for(lambda lines: "H help" in lines[-1], 10, "the status line")
        # Given the browser up: alternate screen, keypad-transmit on, cbreak and no echo
        self.assertEqual(term.display("#{alternate_on}"), "1", name)
        self.assertTrue(wait_until(lambda: term.display("#{keypad_cursor_flag}") == "1", 3), name)
        self.assertIn("-icanon", self.stty(term), name)
        pids = term.vitrine_pids()
        self.assertEqual(len(pids), 1, name)
        # When the signal arrives
        os.kill(pids[0], sig)
        # Then the process dies of it and the terminal is as it was
        term.wait_text("EXITED=%d" % (128 + sig), timeout=10)
        flags = {f: term.display("#{%s}" % f) for f in (
            "alternate_on", "cursor_flag", "keypad_cursor_flag", "keypad_flag", "mouse_any_flag",
            "mouse_button_flag", "mouse_standard_flag", "mouse_sgr_flag")}
        self.assertEqual(flags, {"alternate_on": "0", "cursor_flag": "1", "keypad_cursor_flag": "0",
                                 "keypad_flag": "0", "mouse_any_flag": "0", "mouse_button_flag": "0",
                                 "mouse_standard_flag": "0", "mouse_sgr_flag": "0"}, name)
        modes = self.stty(term)
        for mode in ("icanon", "echo", "icrnl", "isig"):
            self.assertIn(mode, modes, "%s: stty %s after %s" % (name, mode, " ".join(modes)))
        self.assertIn("BEFORE", term.text(), name)

    def test_termination_signals_quit_cleanly_and_die_of_the_signal(self):
        for name in TERMINATION:
            with self.subTest(signal=name):
                self.check(name)

    def test_fatal_signals_restore_in_the_handler_and_die_of_the_signal(self):
        for name in FATAL:
            with self.subTest(signal=name):
                self.check(name)


if __name__ == "__main__":
    unittest.main()
