#!/usr/bin/env python3
"""Generate Vitrine's demo gallery into Resources/demo/.

Everything is drawn here from simple geometry and arithmetic, with the
standard library only (PNG files are written with zlib + struct), so the
output is deterministic: the same bytes on every run.

    Resources/demo/flags/xx.png       country flags (ISO 3166 alpha-2), RGB
    Resources/demo/pictures/NAME.png  larger computed pictures (one RGBA)
    Resources/demo/gallery.plist      classic "Countries" plist, relative URLs

Usage: scripts/make-demo.py [OUTPUT_DIR]   (default: Resources/demo next to
this script's parent directory)
"""

import math
import os
import struct
import sys
import zlib
from xml.sax.saxutils import escape

# ---------------------------------------------------------------- PNG writer


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def _cost(row):
    # Minimum sum of absolute differences, the usual PNG filter heuristic.
    return sum(v if v < 128 else 256 - v for v in row)


def write_png(path, width, height, rows, channels=3):
    """Write rows (bytes-like, width*channels each) as an 8-bit RGB/RGBA PNG.
    Each row gets filter 0 (none), 1 (sub) or 2 (up), whichever looks cheapest."""
    assert len(rows) == height
    bpp = channels
    raw = bytearray()
    prev = bytes(width * bpp)
    for row in rows:
        row = bytes(row)
        assert len(row) == width * bpp
        sub = bytes((a - b) & 255 for a, b in zip(row, bytes(bpp) + row[:-bpp]))
        up = bytes((a - b) & 255 for a, b in zip(row, prev))
        best = min(((_cost(row), 0, row), (_cost(sub), 1, sub), (_cost(up), 2, up)),
                   key=lambda t: (t[0], t[1]))
        raw.append(best[1])
        raw += best[2]
        prev = row
    colour_type = 6 if channels == 4 else 2
    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    data = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
            + _chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + _chunk(b"IEND", b""))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def hexrgb(s):
    s = s.lstrip("#")
    return (int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16))


# ------------------------------------------------------------- flag drawing
# A flag is a design grid (uw x uh units) and a list of shapes painted in
# order, in grid units. Shapes: ("rect", x0, y0, x1, y1, colour),
# ("disc", cx, cy, r, colour), ("poly", [(x, y), ...], colour),
# ("band", x0, y0, x1, y1, half_width, colour) (a thick line), ("star", cx, cy, R, colour).

FLAG_HEIGHT = 120


def star_points(cx, cy, R):
    r = R * 0.381966  # regular five-pointed star
    pts = []
    for i in range(10):
        a = -math.pi / 2 + i * math.pi / 5
        rad = R if i % 2 == 0 else r
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    return pts


def _in_poly(pts, x, y):
    inside = False
    j = len(pts) - 1
    for i in range(len(pts)):
        xi, yi = pts[i]
        xj, yj = pts[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def _contains(shape, x, y):
    kind = shape[0]
    if kind == "rect":
        _, x0, y0, x1, y1, _c = shape
        return x0 <= x < x1 and y0 <= y < y1
    if kind == "disc":
        _, cx, cy, r, _c = shape
        return (x - cx) ** 2 + (y - cy) ** 2 < r * r
    if kind == "poly":
        return _in_poly(shape[1], x, y)
    if kind == "band":
        _, x0, y0, x1, y1, hw, _c = shape
        dx, dy = x1 - x0, y1 - y0
        return abs((x - x0) * dy - (y - y0) * dx) / math.hypot(dx, dy) < hw
    raise ValueError(kind)


def render_flag(uw, uh, shapes):
    shapes = [("poly", star_points(*s[1:4]), s[4]) if s[0] == "star" else s for s in shapes]
    h = FLAG_HEIGHT
    w = int(round(h * uw / uh))
    sx, sy = uw / w, uh / h
    cols = [hexrgb(s[-1]) for s in shapes]

    def colour_at(px, py):  # px, py in pixels (float)
        x, y = px * sx, py * sy
        for i in range(len(shapes) - 1, -1, -1):
            if _contains(shapes[i], x, y):
                return i
        return 0

    # Sample pixel corners once; a pixel whose four corners agree is flat,
    # the others are supersampled 4x4 (cheap anti-aliasing).
    corners = [[colour_at(min(cx, w - 0.001), min(cy, h - 0.001)) for cx in range(w + 1)]
               for cy in range(h + 1)]
    rows = []
    for py in range(h):
        row = bytearray()
        for px in range(w):
            c = {corners[py][px], corners[py][px + 1], corners[py + 1][px], corners[py + 1][px + 1]}
            if len(c) == 1:
                row += bytes(cols[c.pop()])
                continue
            acc = [0, 0, 0]
            for j in range(4):
                for i in range(4):
                    col = cols[colour_at(px + (i + 0.5) / 4, py + (j + 0.5) / 4)]
                    acc[0] += col[0]
                    acc[1] += col[1]
                    acc[2] += col[2]
            row += bytes((a + 8) // 16 for a in acc)
        rows.append(row)
    return w, h, rows


def vertical(uw, uh, *colours):
    n = len(colours)
    return (uw, uh, [("rect", uw * i / n, 0, uw * (i + 1) / n, uh, c) for i, c in enumerate(colours)])


def horizontal(uw, uh, *colours):
    n = len(colours)
    return (uw, uh, [("rect", 0, uh * i / n, uw, uh * (i + 1) / n, c) for i, c in enumerate(colours)])


def plus(flag, *shapes):
    uw, uh, s = flag
    return (uw, uh, s + list(shapes))


def nordic(uw, uh, field, cross_x, cross_y, cross, inner=None):
    """cross_x/cross_y: (start, end) of the vertical/horizontal bar in grid units;
    inner: optional (colour, inset) for a bordered cross (Norway, Iceland)."""
    s = [("rect", 0, 0, uw, uh, field),
         ("rect", cross_x[0], 0, cross_x[1], uh, cross),
         ("rect", 0, cross_y[0], uw, cross_y[1], cross)]
    if inner:
        c, d = inner
        s += [("rect", cross_x[0] + d, 0, cross_x[1] - d, uh, c),
              ("rect", 0, cross_y[0] + d, uw, cross_y[1] - d, c)]
    return (uw, uh, s)


W = "#FFFFFF"
K = "#000000"

FLAGS = [
    # (iso, title, (grid w, grid h, shapes))
    ("fr", "France", vertical(3, 2, "#002395", W, "#ED2939")),
    ("de", "Germany", horizontal(5, 3, K, "#DD0000", "#FFCE00")),
    ("it", "Italy", vertical(3, 2, "#009246", W, "#CE2B37")),
    ("ie", "Ireland", vertical(2, 1, "#169B62", W, "#FF883E")),
    ("be", "Belgium", vertical(15, 13, K, "#FAE042", "#ED2939")),
    ("nl", "Netherlands", horizontal(3, 2, "#AE1C28", W, "#21468B")),
    ("lu", "Luxembourg", horizontal(5, 3, "#ED2939", W, "#00A1DE")),
    ("at", "Austria", horizontal(3, 2, "#ED2939", W, "#ED2939")),
    ("ch", "Switzerland", (32, 32, [("rect", 0, 0, 32, 32, "#DA291C"),
                                    ("rect", 13, 6, 19, 26, W), ("rect", 6, 13, 26, 19, W)])),
    ("pl", "Poland", horizontal(8, 5, W, "#DC143C")),
    ("cz", "Czechia", (3, 2, [("rect", 0, 0, 3, 1, W), ("rect", 0, 1, 3, 2, "#D7141A"),
                              ("poly", [(0, 0), (1.5, 1), (0, 2)], "#11457E")])),
    ("hu", "Hungary", horizontal(2, 1, "#CD2A3E", W, "#436F4D")),
    ("ro", "Romania", vertical(3, 2, "#002B7F", "#FCD116", "#CE1126")),
    ("bg", "Bulgaria", horizontal(5, 3, W, "#00966E", "#D62612")),
    ("ua", "Ukraine", horizontal(3, 2, "#0057B7", "#FFD700")),
    ("ru", "Russia", horizontal(3, 2, W, "#0039A6", "#D52B1E")),
    ("ee", "Estonia", horizontal(11, 7, "#0072CE", K, W)),
    ("lt", "Lithuania", horizontal(5, 3, "#FDB913", "#006A44", "#C1272D")),
    ("gr", "Greece", (27, 18, [("rect", 0, 2 * i, 27, 2 * i + 2, "#0D5EAF" if i % 2 == 0 else W)
                               for i in range(9)]
                      + [("rect", 0, 0, 10, 10, "#0D5EAF"),
                         ("rect", 4, 0, 6, 10, W), ("rect", 0, 4, 10, 6, W)])),
    ("se", "Sweden", nordic(16, 10, "#006AA7", (5, 7), (4, 6), "#FECC00")),
    ("no", "Norway", nordic(22, 16, "#BA0C2F", (6, 10), (6, 10), W, ("#00205B", 1))),
    ("dk", "Denmark", nordic(37, 28, "#C8102E", (12, 16), (12, 16), W)),
    ("fi", "Finland", nordic(18, 11, W, (5, 8), (4, 7), "#002F6C")),
    ("is", "Iceland", nordic(25, 18, "#02529C", (7, 11), (7, 11), W, ("#DC1E35", 1))),
    ("jp", "日本 Japan", (3, 2, [("rect", 0, 0, 3, 2, W), ("disc", 1.5, 1, 0.6, "#BC002D")])),
    ("bd", "Bangladesh", (10, 6, [("rect", 0, 0, 10, 6, "#006A4E"), ("disc", 4.5, 3, 2, "#F42A41")])),
    ("pw", "Palau", (8, 5, [("rect", 0, 0, 8, 5, "#0099FF"), ("disc", 3.6, 2.5, 1.5, "#FFDE00")])),
    ("la", "Laos", (3, 2, [("rect", 0, 0, 3, 2, "#CE1126"), ("rect", 0, 0.5, 3, 1.5, "#002868"),
                           ("disc", 1.5, 1, 0.4, W)])),
    ("vn", "Việt Nam", (3, 2, [("rect", 0, 0, 3, 2, "#DA251D"), ("star", 1.5, 1.04, 0.6, "#FFFF00")])),
    ("so", "Somalia", (3, 2, [("rect", 0, 0, 3, 2, "#4189DD"), ("star", 1.5, 1.04, 0.5, W)])),
    ("gh", "Ghana", plus(horizontal(3, 2, "#CE1126", "#FCD116", "#006B3F"),
                         ("star", 1.5, 1.03, 0.33, K))),
    ("bf", "Burkina Faso", plus(horizontal(3, 2, "#EF2B2D", "#009E49"),
                                ("star", 1.5, 1.04, 0.33, "#FCD116"))),
    ("cl", "Chile", (3, 2, [("rect", 0, 0, 3, 1, W), ("rect", 0, 1, 3, 2, "#D52B1E"),
                            ("rect", 0, 0, 1, 1, "#0039A6"), ("star", 0.5, 0.52, 0.25, W)])),
    ("cu", "Cuba", (2, 1, [("rect", 0, i / 5, 2, (i + 1) / 5, "#002A8F" if i % 2 == 0 else W)
                           for i in range(5)]
                    + [("poly", [(0, 0), (0.866, 0.5), (0, 1)], "#CF142B"),
                       ("star", 0.29, 0.51, 0.15, W)])),
    ("jm", "Jamaica", (2, 1, [("rect", 0, 0, 2, 1, "#009B3A"),
                              ("poly", [(0, 0), (1, 0.5), (0, 1)], K),
                              ("poly", [(2, 0), (1, 0.5), (2, 1)], K),
                              ("band", 0, 0, 2, 1, 0.075, "#FED100"),
                              ("band", 0, 1, 2, 0, 0.075, "#FED100")])),
    ("tz", "Tanzania", (3, 2, [("poly", [(0, 0), (3, 0), (0, 2)], "#1EB53A"),
                               ("poly", [(3, 0), (3, 2), (0, 2)], "#00A3DD"),
                               ("band", 0, 2, 3, 0, 0.46, "#FCD116"),
                               ("band", 0, 2, 3, 0, 0.34, K)])),
    ("co", "Colombia", (3, 2, [("rect", 0, 0, 3, 1, "#FCD116"), ("rect", 0, 1, 3, 1.5, "#003893"),
                               ("rect", 0, 1.5, 3, 2, "#CE1126")])),
    ("pe", "Peru", vertical(3, 2, "#D91023", W, "#D91023")),
    ("am", "Armenia", horizontal(2, 1, "#D90012", "#0033A0", "#F2A800")),
    ("ye", "Yemen", horizontal(3, 2, "#CE1126", W, K)),
    ("ng", "Nigeria", vertical(2, 1, "#008751", W, "#008751")),
    ("td", "Chad", vertical(3, 2, "#002664", "#FECB00", "#C60C30")),
    ("ml", "Mali", vertical(3, 2, "#14B53A", "#FCD116", "#CE1126")),
    ("gn", "Guinea", vertical(3, 2, "#CE1126", "#FCD116", "#009460")),
    ("ci", "Côte d'Ivoire", vertical(3, 2, "#F77F00", W, "#009E60")),
    ("ga", "Gabon", horizontal(4, 3, "#009E60", "#FCD116", "#3A75C4")),
    ("sl", "Sierra Leone", horizontal(3, 2, "#1EB53A", W, "#0072C6")),
]

# ---------------------------------------------------------- computed pictures


def clamp8(v):
    v = int(v + 0.5)
    return 0 if v < 0 else 255 if v > 255 else v


def lerp(a, b, t):
    return tuple(x + (y - x) * t for x, y in zip(a, b))


def gradient(stops, t):
    """stops: [(position, (r, g, b)), ...] sorted by position."""
    if t <= stops[0][0]:
        return stops[0][1]
    for (p0, c0), (p1, c1) in zip(stops, stops[1:]):
        if t <= p1:
            return lerp(c0, c1, (t - p0) / (p1 - p0))
    return stops[-1][1]


def hsv(h, s, v):
    h = (h % 1.0) * 6
    i = int(h)
    f = h - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    return [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i % 6]


def mandelbrot(w=800, h=600):
    max_iter = 200
    x0, x1 = -2.35, 0.85
    scale = (x1 - x0) / w
    y0 = -scale * h / 2
    stops = [(0.0, (0, 7, 100)), (0.16, (32, 107, 203)), (0.42, (237, 255, 255)),
             (0.6425, (255, 170, 0)), (0.8575, (0, 2, 0)), (1.0, (0, 7, 100))]
    palette = [tuple(clamp8(c) for c in gradient(stops, i / 256)) for i in range(256)]
    log2 = math.log(2)
    rows = []
    for py in range(h):
        ci = y0 + (py + 0.5) * scale
        row = bytearray()
        for px in range(w):
            cr = x0 + (px + 0.5) * scale
            # Skip the main cardioid and the period-2 bulb.
            q = (cr - 0.25) ** 2 + ci * ci
            if q * (q + cr - 0.25) <= 0.25 * ci * ci or (cr + 1) ** 2 + ci * ci <= 0.0625:
                row += b"\0\0\0"
                continue
            zr = zi = 0.0
            n = 0
            while n < max_iter:
                zr2, zi2 = zr * zr, zi * zi
                if zr2 + zi2 > 256.0:
                    break
                zi = 2 * zr * zi + ci
                zr = zr2 - zi2 + cr
                n += 1
            if n == max_iter:
                row += b"\0\0\0"
                continue
            nu = n + 1 - math.log(math.log(zr * zr + zi * zi) / 2 / log2) / log2
            t = math.sqrt(max(nu, 0)) * 0.16
            t -= math.floor(t)
            row += bytes(palette[int(t * 255.999)])
        rows.append(row)
    return w, h, rows, 3


def sunset(w=1024, h=768):
    horizon = int(h * 0.62)
    sun_x, sun_r = w * 0.5, h * 0.13
    sky = [(0.0, (22, 14, 60)), (0.45, (120, 40, 110)), (0.8, (240, 110, 70)), (1.0, (255, 200, 110))]
    rows = []
    for y in range(h):
        row = bytearray()
        if y < horizon:
            base = gradient(sky, y / horizon)
            for x in range(w):
                # plasma: a few sines, kept faint so the picture stays a sunset
                p = (math.sin(x * 0.011 + y * 0.004) + math.sin(y * 0.017)
                     + math.sin(math.hypot(x - w * 0.3, y - h * 0.2) * 0.02)) / 3
                r, g, b = base[0] + 18 * p, base[1] + 10 * p, base[2] + 22 * p
                d = math.hypot(x - sun_x, y - horizon)
                if d < sun_r:
                    r, g, b = 255, 236 - 60 * (y / horizon) ** 4, 160
                else:
                    glow = math.exp(-(d - sun_r) / (sun_r * 0.9)) * 0.8
                    r, g, b = r + (255 - r) * glow, g + (200 - g) * glow, b + (120 - b) * glow
                row += bytes((clamp8(r), clamp8(g), clamp8(b)))
        else:
            t = (y - horizon) / (h - horizon)
            base = gradient([(0.0, (90, 40, 80)), (1.0, (10, 10, 40))], t)
            half = sun_r * (1.1 - 0.5 * t)
            for x in range(w):
                wave = math.sin(y * 0.9 / (0.1 + t) + math.sin(x * 0.05) * 2)
                dx = abs(x - sun_x)
                k = max(0.0, 1 - dx / half) * (0.5 + 0.5 * wave) * (1 - t * 0.7)
                r, g, b = base[0] + (255 - base[0]) * k, base[1] + (190 - base[1]) * k, base[2] + (110 - base[2]) * k
                row += bytes((clamp8(r), clamp8(g), clamp8(b)))
        rows.append(row)
    return w, h, rows, 3


def colour_wheel(size=512):
    c = size / 2
    radius = c - 4
    rows = []
    for y in range(size):
        row = bytearray()
        dy = y + 0.5 - c
        for x in range(size):
            dx = x + 0.5 - c
            d = math.hypot(dx, dy)
            alpha = radius + 0.5 - d  # one-pixel anti-aliased rim
            if alpha <= 0:
                row += b"\0\0\0\0"
                continue
            hue = (math.atan2(-dy, dx) / (2 * math.pi)) % 1.0
            r, g, b = hsv(hue, min(d / radius, 1.0), 1.0)
            row += bytes((clamp8(r * 255), clamp8(g * 255), clamp8(b * 255), clamp8(min(alpha, 1) * 255)))
        rows.append(row)
    return size, size, rows, 4


def test_chart(w=640, h=480):
    bars = [(192, 192, 192), (192, 192, 0), (0, 192, 192), (0, 192, 0),
            (192, 0, 192), (192, 0, 0), (0, 0, 192)]
    rows = []
    for y in range(h):
        row = bytearray()
        for x in range(w):
            if y < h * 0.5:                              # colour bars
                col = bars[x * 7 // w]
            elif y < h * 0.58:                           # reverse bars (blue row)
                col = bars[6 - x * 7 // w] if (6 - x * 7 // w) % 2 == 0 else (19, 19, 19)
            elif y < h * 0.66:                           # grey ramp in 16 steps
                v = (x * 16 // w) * 17
                col = (v, v, v)
            elif y < h * 0.74:                           # smooth R, G, B ramps
                third = w / 3
                v = clamp8((x % third) / third * 255)
                col = [(v, 0, 0), (0, v, 0), (0, 0, v)][min(int(x / third), 2)]
            else:
                if x < w / 4:                            # 1-px checker
                    col = (255, 255, 255) if (x + y) % 2 else (0, 0, 0)
                elif x < w / 2:                          # 2-px vertical lines
                    col = (255, 255, 255) if (x // 2) % 2 else (0, 0, 0)
                elif x < w * 3 / 4:                      # 1-px horizontal lines
                    col = (255, 255, 255) if y % 2 else (0, 0, 0)
                else:                                    # black, white, 50% grey
                    col = [(0, 0, 0), (255, 255, 255), (128, 128, 128)][int((x - w * 3 / 4) * 3 / (w / 4))]
            row += bytes(col)
        rows.append(row)
    # one-pixel white frame so cropping and off-by-one errors show
    for y in (0, h - 1):
        rows[y] = bytearray(b"\xff" * (w * 3))
    for y in range(h):
        rows[y][0:3] = rows[y][-3:] = b"\xff\xff\xff"
    return w, h, rows, 3


def tall(w=300, h=900):
    rows = []
    for y in range(h):
        row = bytearray()
        t = y / (h - 1)
        for x in range(w):
            u = x / (w - 1)
            wave = 0.04 * math.sin(u * 2 * math.pi * 2 + t * 12)
            r, g, b = hsv(t * 0.85 + wave, 0.75, 0.35 + 0.6 * (1 - abs(u - 0.5)))
            row += bytes((clamp8(r * 255), clamp8(g * 255), clamp8(b * 255)))
        rows.append(row)
    return w, h, rows, 3


def panorama(w=1200, h=300):
    # Ridge lines from sums of sines, nearest layer last.
    layers = [
        (0.45, [(0.004, 0.06, 0.3), (0.011, 0.03, 1.7), (0.027, 0.012, 0.2)], (96, 110, 150)),
        (0.60, [(0.006, 0.07, 2.1), (0.017, 0.025, 0.5), (0.041, 0.01, 1.1)], (60, 72, 110)),
        (0.75, [(0.005, 0.05, 4.0), (0.013, 0.03, 2.2), (0.053, 0.008, 0.9)], (30, 40, 66)),
        (0.88, [(0.008, 0.03, 1.3), (0.021, 0.02, 3.3), (0.071, 0.006, 2.0)], (14, 18, 32)),
    ]
    ridges = [[(base + sum(a * math.sin(f * x + p) for f, a, p in waves)) * h for x in range(w)]
              for base, waves, _ in layers]
    sky = [(0.0, (70, 120, 190)), (0.6, (180, 200, 225)), (1.0, (250, 215, 170))]
    rows = []
    for y in range(h):
        base = gradient(sky, y / (h * 0.8))
        row = bytearray()
        for x in range(w):
            col = base
            for i, (_, _, c) in enumerate(layers):
                if y >= ridges[i][x]:
                    haze = min(1.0, (y - ridges[i][x]) / (h * 0.5))
                    col = lerp(c, (c[0] * 0.6, c[1] * 0.6, c[2] * 0.6), haze)
            row += bytes(clamp8(v) for v in col)
        rows.append(row)
    return w, h, rows, 3


PICTURES = [
    ("mandelbrot", "Mandelbrot set", mandelbrot),
    ("sunset", "Plasma sunset", sunset),
    ("colour-wheel", "Colour wheel (transparent corners)", colour_wheel),
    ("test-chart", "Test chart: bars, ramps & 1-px checker", test_chart),
    ("tall", "Tall hue column (300×900)", tall),
    ("panorama", "Wide panorama (1200×300)", panorama),
]

# ------------------------------------------------------------------- output


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "Resources", "demo")
    out = os.path.normpath(out)
    entries = []
    total = 0
    for iso, title, (uw, uh, shapes) in FLAGS:
        w, h, rows = render_flag(uw, uh, shapes)
        rel = "flags/%s.png" % iso
        total += write_png(os.path.join(out, rel), w, h, rows)
        entries.append((title, rel))
    for name, title, fn in PICTURES:
        w, h, rows, ch = fn()
        rel = "pictures/%s.png" % name
        n = write_png(os.path.join(out, rel), w, h, rows, ch)
        total += n
        print("%-26s %4dx%-4d %8d bytes" % (rel, w, h, n))
        entries.append((title, rel))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
             '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
             '<plist version="1.0">', "<dict>", "\t<key>countries</key>", "\t<array>"]
    for title, rel in entries:
        lines += ["\t\t<dict>",
                  "\t\t\t<key>name</key>", "\t\t\t<string>%s</string>" % escape(title),
                  "\t\t\t<key>url</key>", "\t\t\t<string>%s</string>" % escape(rel),
                  "\t\t</dict>"]
    lines += ["\t</array>", "</dict>", "</plist>", ""]
    with open(os.path.join(out, "gallery.plist"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines))
    print("%d flags, %d pictures, %d bytes of PNG in %s" % (len(FLAGS), len(PICTURES), total, out))


if __name__ == "__main__":
    main()
