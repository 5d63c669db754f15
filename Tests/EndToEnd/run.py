#!/usr/bin/env python3
"""Runs Vitrine's end-to-end tests (Tests/EndToEnd/test_*.py) with unittest.

    python3 Tests/EndToEnd/run.py [-q] [-k PATTERN ...]

The binary comes from $VITRINE_BIN (default <repo>/.build/release/vitrine); the tests fail,
not skip, when it is missing. Needs tmux, and for the real-photo test the Debian packages
mate-backgrounds and famfamfam-flag-png. The last line printed is
"N passed, N failed" (plus ", N skipped" when some were skipped); the exit status is 1 on any
failure or error, else 0.
"""

import argparse
import sys
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-q", "--quiet", action="store_true", help="one dot per test instead of names")
    ap.add_argument("-k", dest="patterns", action="append", default=[],
                    help="only tests whose name contains PATTERN (repeatable)")
    args = ap.parse_args()

    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, str(HERE))
    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = ["*%s*" % p for p in args.patterns]
    suite = loader.discover(str(HERE), pattern="test_*.py", top_level_dir=str(HERE))
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=1 if args.quiet else 2)
    start = time.monotonic()
    result = runner.run(suite)
    elapsed = time.monotonic() - start

    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    sys.stdout.flush()
    print("end-to-end suite took %.1fs" % elapsed)
    summary = "%d passed, %d failed" % (passed, failed)
    if skipped:
        summary += ", %d skipped" % skipped
    print(summary, flush=True)
    return 1 if failed or result.testsRun == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
