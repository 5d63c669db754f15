#!/usr/bin/env python3
"""Writes the ICC-profile fixtures of Tests/Fixtures/images/ (committed).

    scripts/make-icc-fixtures.py

Each is a flat 32x16 image of the code values (200, 100, 50) tagged with an RGB profile
written here from published colorimetry (ICC.1:2001-04 v2 matrix/TRC display profiles:
D50-adapted colorant XYZ, media white D50, TRC curves), so no third-party profile file is
copied in:
- p3.png (iCCP) and p3.jpg (APP2 ICC_PROFILE): Display P3 (DCI-P3 primaries, D65, sRGB curve),
  colorants as in Apple's Display P3 profile.
- adobe-rgb.jpg: Adobe RGB (1998) (gamma 563/256), colorants from its specification.
Prints each fixture's sRGB value as LittleCMS (Pillow's ImageCms) converts it, for the tests.
Needs python3-pil.
"""
import io
import os
import struct

from PIL import Image, ImageCms

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "images")


def s15(v):
    return struct.pack(">i", int(round(v * 65536)))


def xyz(x, y, z):
    return b"XYZ " + b"\0" * 4 + s15(x) + s15(y) + s15(z)


def desc(text):
    t = text.encode("ascii") + b"\0"
    return b"desc" + b"\0" * 4 + struct.pack(">I", len(t)) + t + b"\0" * 8 + b"\0" * 3 + b"\0" * 67


def text(t):
    return b"text" + b"\0" * 4 + t.encode("ascii") + b"\0"


def srgb_curve(n=1024):
    vals = []
    for i in range(n):
        v = i / (n - 1)
        lin = v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
        vals.append(int(round(lin * 65535)))
    return b"curv" + b"\0" * 4 + struct.pack(">I", n) + struct.pack(">%dH" % n, *vals)


def gamma_curve(g):
    return b"curv" + b"\0" * 4 + struct.pack(">I", 1) + struct.pack(">H", int(round(g * 256))) + b"\0\0"


def profile(name, red, green, blue, trc):
    tags = [(b"desc", desc(name)), (b"cprt", text("No copyright, use freely")),
            (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
            (b"rXYZ", xyz(*red)), (b"gXYZ", xyz(*green)), (b"bXYZ", xyz(*blue)),
            (b"rTRC", trc), (b"gTRC", trc), (b"bTRC", trc)]
    table_len = 4 + 12 * len(tags)
    offset = 128 + table_len
    entries, body = b"", b""
    for sig, data in tags:
        while (offset + len(body)) % 4:
            body += b"\0"
        entries += sig + struct.pack(">II", offset + len(body), len(data))
        body += data
    size = offset + len(body)
    header = (struct.pack(">I", size) + b"lcms" + struct.pack(">I", 0x02100000) + b"mntrRGB XYZ "
              + struct.pack(">6H", 2026, 12, 1, 0, 0, 0) + b"acsp" + b"\0" * 4 + b"\0" * 4
              + b"\0" * 8 + b"\0" * 8 + b"\0" * 4 + s15(0.9642) + s15(1.0) + s15(0.8249) + b"\0" * 4)
    header += b"\0" * (128 - len(header))
    return header + struct.pack(">I", len(tags)) + entries + body


P3 = profile("Display P3 (Vitrine test fixture)", (0.5151, 0.2412, -0.0011), (0.2920, 0.6922, 0.0419),
             (0.1571, 0.0666, 0.7841), srgb_curve())
ADOBE = profile("Adobe RGB (1998) compatible (Vitrine test fixture)", (0.6097, 0.3111, 0.0195),
                (0.2053, 0.6257, 0.0609), (0.1492, 0.0632, 0.7446), gamma_curve(563 / 256))
COLOUR = (200, 100, 50)


def main():
    for name, icc, fmt in [("p3.png", P3, "PNG"), ("p3.jpg", P3, "JPEG"), ("adobe-rgb.jpg", ADOBE, "JPEG")]:
        im = Image.new("RGB", (32, 16), COLOUR)
        path = os.path.join(OUT, name)
        if fmt == "JPEG":
            im.save(path, "JPEG", quality=95, subsampling=0, icc_profile=icc)
        else:
            im.save(path, "PNG", icc_profile=icc)
        src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        dst = ImageCms.createProfile("sRGB")
        out = ImageCms.profileToProfile(Image.open(path).convert("RGB"), src, dst,
                                        renderingIntent=ImageCms.Intent.PERCEPTUAL)
        print(name, "decoded", Image.open(path).convert("RGB").getpixel((16, 8)), "-> sRGB", out.getpixel((16, 8)))


if __name__ == "__main__":
    main()
