#!/usr/bin/env python3
"""Sets the EXIF Orientation tag (1-8) of a JPEG file in place (standard library only).

    set-exif-orientation.py FILE.jpg N

ImageMagick 6 does not write the tag for a fresh image, so scripts/make-fixtures.sh adds it
with this: any existing APP1 "Exif" segment is dropped and a minimal one is inserted after
SOI, holding IFD0 with the one entry 0x0112 Orientation (SHORT) = N (big-endian TIFF header,
EXIF 2.32 / TIFF 6.0).
"""
import struct
import sys


def main():
    path, orientation = sys.argv[1], int(sys.argv[2])
    if not 1 <= orientation <= 8:
        sys.exit("orientation must be 1-8")
    data = open(path, "rb").read()
    if data[:2] != b"\xff\xd8":
        sys.exit("%s: not a JPEG" % path)
    # Walk the marker segments before the scan and drop existing Exif APP1 segments.
    i, kept = 2, []
    while i + 4 <= len(data) and data[i] == 0xFF and data[i + 1] not in (0xDA, 0xD9):
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        segment = data[i:i + 2 + length]
        if not (data[i + 1] == 0xE1 and segment[4:10] == b"Exif\0\0"):
            kept.append(segment)
        i += 2 + length
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8)
    tiff += struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0)
    payload = b"Exif\0\0" + tiff
    app1 = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    # JFIF's APP0 must stay first when present; Exif follows it.
    head = [s for s in kept if s[1] == 0xE0]
    rest = [s for s in kept if s[1] != 0xE0]
    with open(path, "wb") as f:
        f.write(b"\xff\xd8" + b"".join(head) + app1 + b"".join(rest) + data[i:])


if __name__ == "__main__":
    main()
