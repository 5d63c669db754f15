/* EXIF orientation: reading the tag from an APP1 payload and applying it to RGBA pixels. */
#include "codecs.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned get16(const unsigned char *p, int little) {
    return little ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
}

static uint32_t get32(const unsigned char *p, int little) {
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                  : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Exif payload: "Exif\0\0", then a TIFF header ("II*\0" little-endian or "MM\0*"), the offset
   of IFD0, and IFD0's entries of 12 bytes (tag, type, count, value). Orientation is tag
   0x0112, a SHORT (type 3) whose value sits in the entry's first two value bytes (TIFF 6.0,
   EXIF 2.32 section 4.6.4). Every offset is bounds-checked: the bytes are untrusted. */
int ccodec_exif_orientation(const unsigned char *data, size_t len) {
    if (data == NULL || len < 14 || memcmp(data, "Exif\0\0", 6) != 0) return 1;
    const unsigned char *tiff = data + 6;
    size_t n = len - 6;
    int little;
    if (memcmp(tiff, "II*\0", 4) == 0) little = 1;
    else if (memcmp(tiff, "MM\0*", 4) == 0) little = 0;
    else return 1;
    uint32_t ifd = get32(tiff + 4, little);
    if (ifd < 8 || (size_t)ifd + 2 > n) return 1;
    unsigned entries = get16(tiff + ifd, little);
    for (unsigned i = 0; i < entries; i++) {
        size_t at = (size_t)ifd + 2 + (size_t)i * 12;
        if (at + 12 > n) return 1;
        if (get16(tiff + at, little) != 0x0112) continue;
        if (get16(tiff + at + 2, little) != 3) return 1;
        unsigned v = get16(tiff + at + 8, little);
        return v >= 1 && v <= 8 ? (int)v : 1;
    }
    return 1;
}

/* Orientation o maps a displayed pixel (x, y) of the w' x h' result to a stored pixel of the
   w x h source (EXIF 2.32, tag 0x0112: 1 top-left, 2 top-right (mirrored), 3 bottom-right
   (rotated 180), 4 bottom-left, 5 left-top (transposed), 6 right-top (stored rotated 90
   counter-clockwise: display turns it clockwise), 7 right-bottom, 8 left-bottom). */
int ccodec_orient(unsigned char **pixels, int *width, int *height, int o) {
    int w = *width, h = *height;
    if (o < 2 || o > 8) return 0;
    int ow = o >= 5 ? h : w, oh = o >= 5 ? w : h;
    const uint32_t *src = (const uint32_t *)*pixels;
    uint32_t *dst = malloc((size_t)ow * (size_t)oh * 4);
    if (dst == NULL) return -1;
    for (int y = 0; y < oh; y++) {
        for (int x = 0; x < ow; x++) {
            int sx, sy;
            switch (o) {
            case 2: sx = w - 1 - x; sy = y; break;
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;
            case 4: sx = x; sy = h - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = h - 1 - x; break;
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;
            default: sx = w - 1 - y; sy = x; break; /* 8 */
            }
            dst[(size_t)y * ow + x] = src[(size_t)sy * w + sx];
        }
    }
    free(*pixels);
    *pixels = (unsigned char *)dst;
    *width = ow;
    *height = oh;
    return 0;
}
