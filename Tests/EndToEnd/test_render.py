"""End-to-end tests of `vitrine render` on the image fixtures (Tests/Fixtures/images/, made by
scripts/make-fixtures.sh): the real binary, its stdout decoded back into half-block pixels,
its exit status and message, and its peak memory."""

import os
import re
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import REPO, E2ETestCase, binary  # noqa: E402

FIXTURES = REPO / "Tests" / "Fixtures" / "images"
SGR = re.compile(r"\x1b\[([0-9;]*)m")
RED, LIME, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)


# Spawns the command given after the report file's path and writes its rusage's peak RSS
# (kB) there. A child's ru_maxrss includes the memory of the process it was forked from (Linux
# keeps the pre-exec high-water mark), so a test process grown to 150 MB made every render
# "use" 150 MB: this small interpreter, started with no site packages, is the parent instead.
PEAK_RSS_LAUNCHER = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


def run_render(*args, env=None):
    """Runs `vitrine render ARGS`; returns (status, stdout text, stderr text, peak RSS in MB).
    Output goes to temporary files; the peak RSS is the render's own (see PEAK_RSS_LAUNCHER),
    at most the launcher's few MB above it when the render is smaller still."""
    import tempfile
    environment = dict(os.environ, **(env or {}))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as report:
        cmd = [sys.executable, "-S", "-I", "-c", PEAK_RSS_LAUNCHER, report.name, binary(), "render"]
        cmd += [str(a) for a in args]
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=environment)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError("vitrine render %s did not finish in 60 s" % " ".join(map(str, args)))
        out.seek(0)
        err.seek(0)
        peak = int(report.read() or 0)
        status = proc.returncode if proc.returncode < 128 else proc.returncode - 256
        return status, out.read().decode("utf-8"), err.read().decode("utf-8"), peak / 1024


def decode(text):
    """Half-block ANSI (truecolor, as `vitrine render` writes it) to rows of pixels: a list of
    pixel rows, two per text line, each a list of (r, g, b) or None for the default colour."""
    rows = []
    for line in text.split("\n")[:-1]:
        fg = bg = None
        top, bottom = [], []
        pos = 0
        while pos < len(line):
            m = SGR.match(line, pos)
            if m:
                params = [int(p) for p in m.group(1).split(";") if p] or [0]
                i = 0
                while i < len(params):
                    p = params[i]
                    if p == 0:
                        fg = bg = None
                    elif p == 39:
                        fg = None
                    elif p == 49:
                        bg = None
                    elif p in (38, 48) and params[i + 1] == 2:
                        color = tuple(params[i + 2:i + 5])
                        if p == 38:
                            fg = color
                        else:
                            bg = color
                        i += 4
                    i += 1
                pos = m.end()
                continue
            ch = line[pos]
            if ch == "\u2580":
                top.append(fg), bottom.append(bg)
            elif ch == "\u2584":
                top.append(bg), bottom.append(fg)
            elif ch == " ":
                top.append(bg), bottom.append(bg)
            else:
                raise AssertionError("unexpected glyph %r" % ch)
            pos += 1
        rows += [top, bottom]
    return rows


def nearest(color):
    """Names a corner colour by its dominant channel: white, black, red, lime or blue. Tolerant
    of JPEG noise and of CMYK ink colours (libvips converts CMYK through a press profile, so
    pure cyan + magenta prints as a dark blue, 26,39,123, not 0,0,255)."""
    if color is None:
        return "default"
    if min(color) > 200:
        return "white"
    if max(color) < 60:
        return "black"
    return ["red", "lime", "blue"][color.index(max(color))]


def write_png(path, width, height, pixel):
    """Writes an 8-bit RGBA PNG; pixel(x, y) gives (r, g, b, a)."""
    import struct
    import zlib
    raw = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
                           + chunk(b"IEND", b""))


def corners(pixels):
    return [nearest(pixels[0][0]), nearest(pixels[0][-1]), nearest(pixels[-1][0]), nearest(pixels[-1][-1])]


class RenderFixtureTests(E2ETestCase):

    def render_ok(self, name, *args):
        status, out, err, _ = run_render(FIXTURES / name, "--colors", "truecolor", *args)
        self.assertEqual(status, 0, "%s: %s" % (name, err))
        self.assertEqual(err, "")
        return decode(out)

    def test_orientations_display_upright(self):
        for n in range(1, 9):
            with self.subTest(orientation=n):
                pixels = self.render_ok("orientation-%d.jpg" % n, "--size", "16x16")
                # quad is 64x48: 16 columns by 6 rows (12 pixel rows), landscape whatever the tag
                self.assertEqual((len(pixels[0]), len(pixels)), (16, 12))
                self.assertEqual(corners(pixels), ["red", "lime", "blue", "white"])

    def test_formats_show_quad(self):
        for name in ["cmyk.jpg", "progressive.jpg", "rgb16.png", "interlaced.png"]:
            with self.subTest(name=name):
                pixels = self.render_ok(name, "--size", "8x8")
                self.assertEqual((len(pixels[0]), len(pixels)), (8, 6))
                self.assertEqual(corners(pixels), ["red", "lime", "blue", "white"])

    def test_transparency_uses_the_terminal_background_or_the_chosen_one(self):
        for name, left in [("palette-trns.png", RED), ("grey-alpha.png", (128, 128, 128))]:
            with self.subTest(name=name):
                pixels = self.render_ok(name, "--size", "8x8")
                self.assertEqual(pixels[0][0], left)
                self.assertIsNone(pixels[0][-1])        # SGR 49: the terminal's own background
                pixels = self.render_ok(name, "--size", "8x8", "--background", "255,255,255")
                self.assertEqual(pixels[0][-1], WHITE)

    def test_animated_gif_shows_its_first_frame(self):
        pixels = self.render_ok("animated.gif", "--size", "8x4")
        self.assertEqual({c for row in pixels for c in row}, {RED})

    def test_extreme_sizes(self):
        pixels = self.render_ok("1x1.png", "--size", "80x24")
        self.assertEqual((len(pixels[0]), len(pixels)), (48, 48))
        self.assertEqual({c for row in pixels for c in row}, {(255, 128, 0)})
        pixels = self.render_ok("wide-4000x1.png", "--size", "80x24")
        self.assertEqual((len(pixels[0]), len(pixels)), (80, 2))
        self.assertEqual((nearest(pixels[0][0]), nearest(pixels[0][-1])), ("red", "blue"))
        pixels = self.render_ok("tall-1x4000.png", "--size", "80x24")
        self.assertEqual((len(pixels[0]), len(pixels)), (1, 48))
        self.assertEqual((nearest(pixels[0][0]), nearest(pixels[-1][0])), ("red", "blue"))
        pixels = self.render_ok("odd-height-20x15.png", "--size", "20x20")
        self.assertEqual((len(pixels[0]), len(pixels)), (20, 16))
        self.assertEqual(corners(pixels), ["red", "blue", "lime", "lime"])

    def test_size_is_bounded(self):
        # The largest box renders a 1x1 PNG scaled up in bounded memory
        status, out, err, rss = run_render(FIXTURES / "1x1.png", "--size", "1000x1000")
        self.assertEqual(status, 0, err)
        self.assertEqual(out.count("\n"), 500)  # a square picture: 1000 columns, 500 rows
        self.assertLess(rss, 400, "peak RSS %.0f MB" % rss)
        # A larger box is a usage error that says the range
        for size in ("1001x10", "10x1001", "10000x10000", "0x5", "-1x5", "axb"):
            status, out, err, _ = run_render(FIXTURES / "1x1.png", "--size", size)
            self.assertEqual(status, 64, size)
            self.assertIn("1x1 to 1000x1000", err)

    def test_shrinking_a_png_averages_in_linear_light(self):
        # Given 512x512 PNGs larger than the decode box at 64x32 (256x256), so the decoder must
        # shrink them before the renderer does: a 1-px black/white checker, and a checker of
        # opaque white and fully transparent pixels whose hidden colour is red. Each half-block
        # pixel covers 8x8 source pixels, half of them white: the exact answer is linear 0.5
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            grey = Path(tmp) / "checker.png"
            write_png(grey, 512, 512, lambda x, y: (255, 255, 255, 255) if (x + y) % 2 else (0, 0, 0, 255))
            half = Path(tmp) / "half-transparent.png"
            write_png(half, 512, 512, lambda x, y: (255, 255, 255, 255) if (x + y) % 2 else (255, 0, 0, 0))
            # When rendered at 64x32
            pixels = self.render_ok(grey, "--size", "64x32")
            # Then every pixel is linear 0.5, sRGB 188 (averaging sRGB bytes would give 127)
            self.assertEqual((len(pixels[0]), len(pixels)), (64, 64))
            self.assertEqual({c for row in pixels for c in row}, {(188, 188, 188)})
            # And white at alpha 0.5 over black is the same grey, with no red from the hidden
            # colour (a straight-alpha average would give a pink, darker grey)
            pixels = self.render_ok(half, "--size", "64x32", "--background", "0,0,0")
            self.assertEqual({c for row in pixels for c in row}, {(188, 188, 188)})
            # And on a terminal known to be white (default:R,G,B), the same half-transparent
            # white is composited onto white in linear light: white, never SGR 49
            pixels = self.render_ok(half, "--size", "64x32", "--background", "default:255,255,255")
            self.assertEqual({c for row in pixels for c in row}, {WHITE})

    def test_known_terminal_background_leaves_full_transparency_to_the_terminal(self):
        # palette-trns.png: left half opaque red, right half fully transparent
        pixels = self.render_ok("palette-trns.png", "--size", "8x8", "--background", "default:40,40,40")
        self.assertEqual(pixels[0][0], RED)
        self.assertIsNone(pixels[0][-1])            # SGR 49, not (40, 40, 40)

    def test_no_colour_mode_has_no_escapes(self):
        status, out, err, _ = run_render(FIXTURES / "orientation-1.jpg", "--size", "16x16", "--colors", "none")
        self.assertEqual(status, 0, err)
        self.assertNotIn("\x1b", out)
        self.assertEqual(len(out.splitlines()), 6)

    def test_decompression_bomb_is_refused_quickly_in_little_memory(self):
        start = time.monotonic()
        status, out, err, rss = run_render(FIXTURES / "huge-12000x12000.png", "--size", "80x40")
        elapsed = time.monotonic() - start
        self.assertEqual(status, 65)                   # EX_DATAERR
        self.assertEqual(out, "")
        self.assertIn("12000 x 12000 pixels", err)
        self.assertIn("limit", err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertLess(rss, 64, "peak RSS %.0f MB" % rss)   # peers use 0.6-1.5 GB on it
        self.assertLess(elapsed, 5)

    def test_broken_files_fail_with_a_reason(self):
        cases = [
            ("bad/truncated.jpg", 65, "corrupt image"),
            ("bad/html-as.png", 65, "not an image (HTML page)"),
            ("bad/zero-bytes.png", 65, "not an image (empty body)"),
            ("no-such-file.png", 66, "no such file"),
        ]
        for name, code, reason in cases:
            with self.subTest(name=name):
                status, out, err, _ = run_render(FIXTURES / name)
                self.assertEqual(status, code, err)
                self.assertEqual(out, "")
                self.assertIn(reason, err)
                self.assertTrue(err.startswith("vitrine: "), err)


class LibvipsOnDemandTests(E2ETestCase):
    """libvips is opened with dlopen on the first image that needs it (GIF, WebP, TIFF,
    HEIF/AVIF, big PNGs); JPEG and PNG never load it, and without it those rows fail alone."""

    def loaded_libraries(self, name):
        # glibc's loader names every library it opens on stderr under LD_DEBUG=libs.
        status, out, err, _ = run_render(FIXTURES / name, "--size", "8x8", "--colors", "truecolor",
                                         env={"LD_DEBUG": "libs"})
        self.assertEqual(status, 0, err[-500:])
        return set(re.findall(r"calling init: (\S+)", err))

    def test_jpeg_and_png_never_load_libvips(self):
        for name in ["progressive.jpg", "1x1.png", "p3.jpg"]:
            with self.subTest(name=name):
                libs = self.loaded_libraries(name)
                # libc: the listing works (libjpeg and libpng are linked into the release
                # binary, so they are no longer shared objects of their own)
                self.assertTrue(any("libc.so" in l for l in libs), libs)
                self.assertFalse(any("libvips" in l for l in libs), sorted(libs))

    def test_a_png_or_jpeg_render_maps_only_libc_and_libm(self):
        # libjpeg, libpng, zlib, ncursesw and the unwinder are linked into the release binary
        # (each shared object cost a start about 0.1 ms; docs/PERFORMANCE.md, issue 14).
        for name in ["1x1.png", "progressive.jpg", "interlaced.png"]:
            with self.subTest(name=name):
                libs = {Path(l).name for l in self.loaded_libraries(name) if "python" not in l}
                self.assertIn("libc.so.6", libs)
                others = {l for l in libs if l not in ("libc.so.6", "libm.so.6") and not l.startswith("ld-linux")}
                self.assertEqual(others, set(), sorted(libs))

    def test_gif_loads_libvips_without_imagemagick(self):
        libs = self.loaded_libraries("animated.gif")
        self.assertTrue(any("libvips.so" in l for l in libs), sorted(libs))
        self.assertFalse(any("Magick" in l or "vips-magick" in l for l in libs), sorted(libs))

    def test_avif_loads_only_the_heif_module(self):
        libs = self.loaded_libraries("red-32x16.avif")
        self.assertTrue(any("vips-heif" in l for l in libs), sorted(libs))
        self.assertFalse(any(m in l for l in libs for m in ("vips-magick", "vips-poppler", "vips-openslide", "vips-jxl")),
                         sorted(libs))

    def test_missing_libvips_fails_only_what_needs_it(self):
        env = {"VITRINE_LIBVIPS": "/nonexistent/libvips.so.42"}
        status, out, err, _ = run_render(FIXTURES / "animated.gif", "--size", "8x8", env=env)
        self.assertEqual(status, 69, err)  # unavailable: the library, not the data
        self.assertEqual(out, "")
        self.assertIn("cannot decode GIF: libvips is not available", err)
        self.assertEqual(len(err.splitlines()), 1, err)
        status, out, err, _ = run_render(FIXTURES / "progressive.jpg", "--size", "8x8", env=env)
        self.assertEqual((status, err), (0, ""))

    def test_a_local_render_loads_neither_libcurl_nor_glib(self):
        # libcurl (31 libraries: OpenSSL, GnuTLS, Kerberos, ...) and GLib/GObject are opened
        # with dlopen at first need; a JPEG or PNG file on disk needs neither.
        for name in ["1x1.png", "progressive.jpg", "p3.png"]:
            with self.subTest(name=name):
                libs = self.loaded_libraries(name)
                for unwanted in ("libcurl", "libssl", "libcrypto", "libgnutls", "libglib", "libgobject"):
                    self.assertFalse(any(unwanted in l for l in libs), "%s loaded: %s" % (unwanted, sorted(libs)))

    def test_missing_libcurl_fails_only_what_needs_it(self):
        (self.tmp / "www").mkdir()
        (self.tmp / "www" / "1x1.png").write_bytes((FIXTURES / "1x1.png").read_bytes())
        server = self.serve(self.tmp / "www")
        env = {"VITRINE_LIBCURL": "/nonexistent/libcurl.so.4"}
        status, out, err, _ = run_render(server.url("1x1.png"), "--size", "8x8", env=env)
        self.assertNotEqual(status, 0, err)
        self.assertEqual(out, "")
        self.assertIn("libcurl is not available", err)
        self.assertIn("/nonexistent/libcurl.so.4", err)
        self.assertEqual(server.image_requests(), [])
        status, out, err, _ = run_render(FIXTURES / "1x1.png", "--size", "8x8", env=env)
        self.assertEqual((status, err), (0, ""))
        # And with libcurl there, the same URL renders.
        status, out, err, _ = run_render(server.url("1x1.png"), "--size", "8x8", "--colors", "truecolor")
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(out.startswith("\x1b["), out[:40])

    def test_libsixel_override_names_the_library_opened(self):
        # $VITRINE_LIBSIXEL names the libsixel to open (as $VITRINE_LIBCURL does libcurl's):
        # a missing one fails the sixel render with its path, the default draws a DCS.
        env = {"VITRINE_LIBSIXEL": "/nonexistent/libsixel.so.1"}
        status, out, err, _ = run_render(FIXTURES / "1x1.png", "--pixels", "sixel", "--size", "8x4", env=env)
        self.assertNotEqual(status, 0, err)
        self.assertEqual(out, "")
        self.assertIn("libsixel is not available", err)
        self.assertIn("/nonexistent/libsixel.so.1", err)
        status, out, err, _ = run_render(FIXTURES / "1x1.png", "--pixels", "sixel", "--size", "8x4")
        self.assertEqual((status, err), (0, ""))
        self.assertIn("\x1bP", out)
        self.assertTrue(out.rstrip().endswith("\x1b[1B\r") or "\x1b\\" in out, repr(out[-40:]))

    def test_bmp_is_an_unsupported_format(self):
        status, out, err, _ = run_render(FIXTURES / "quad.bmp", "--size", "8x8")
        self.assertEqual(status, 65, err)
        self.assertIn("unsupported image format (BMP)", err)


if __name__ == "__main__":
    unittest.main()
