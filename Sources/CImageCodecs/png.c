/* PNG through libspng (decodes from a buffer, checks chunk CRCs, fails on truncation).
   The zlib stream's Adler-32 is not computed: it was 18 % of a PNG's decode (3.8 M of 21.2 M
   instructions on a 512x512 RGBA image, callgrind), a pass over every inflated byte. Instead
   idat_intact() checks the CRC-32 of every IDAT chunk over the compressed bytes (about 0.2 M
   instructions there) and that none is cut short. That is stricter than libspng alone, which
   was measured not to check the last IDAT chunk's CRC and to accept a file cut inside it
   once the deflate stream had ended. */
#include "codecs.h"
#include <spng.h>
#include <stdint.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t be32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* 1 when the PNG in buf (signature already checked by the caller's sniffing and by libspng)
   has at least one IDAT chunk and every IDAT chunk is whole, with a matching CRC-32; 0 when
   one is cut short, fails its CRC, or there is none. Chunks after the image data may be
   missing or cut (no IEND loses no pixel). */
static int idat_intact(const unsigned char *p, size_t len) {
    size_t i = 8;
    int seen = 0;
    while (i + 8 <= len) {
        uint32_t n = be32(p + i);
        int idat = memcmp(p + i + 4, "IDAT", 4) == 0;
        if (!idat && seen) return 1;
        if (n > 0x7fffffffu || (uint64_t)i + 12 + n > len) return 0;
        if (idat) {
            uLong crc = crc32_z(0L, p + i + 4, (z_size_t)n + 4);
            if ((uint32_t)crc != be32(p + i + 8 + n)) return 0;
            seen = 1;
        }
        i += 12 + (size_t)n;
    }
    return seen;
}

/* libspng's error as a message for the user: the few a damaged or hostile file gives are said
   the same way on every path (whole or row by row); the rest keep libspng's own text. */
static const char *png_error_text(int rc) {
    switch (rc) {
    case SPNG_ECHUNK_CRC: return "a chunk's CRC-32 does not match (damaged file)";
    case SPNG_IO_EOF: /* the buffer ended inside a chunk (libspng: "end of stream") */
    case SPNG_EOF:
    case SPNG_EIDAT_TOO_SHORT:
    case SPNG_EIDAT_STREAM: return "truncated or damaged image data (IDAT)";
    case SPNG_EOVERFLOW:
    case SPNG_EWIDTH:
    case SPNG_EHEIGHT:
    case SPNG_EUSER_WIDTH:
    case SPNG_EUSER_HEIGHT: return "the image's width or height is too large to decode";
    default: return spng_strerror(rc);
    }
}

/* A decoder over `buf` with its header read into *ihdr; NULL with the error text when either
   fails. PNG's own limit on a side (2^31 - 1) is far beyond any pixel cap; the cap decides. */
static spng_ctx *open_png(const void *buf, size_t len, struct spng_ihdr *ihdr, char *err, size_t errlen) {
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_IGNORE_ADLER32);
    if (ctx == NULL) {
        ccodec_set_error(err, errlen, "out of memory");
        return NULL;
    }
    /* Ancillary chunks (text, ICC profiles) of untrusted files: at most 8 MiB each and 32 MiB
       in all, so a PNG cannot make the decoder hold more than its pixels. */
    spng_set_chunk_limits(ctx, 8u << 20, 32u << 20);
    int rc = spng_set_png_buffer(ctx, buf, len);
    if (rc == 0) rc = spng_get_ihdr(ctx, ihdr);
    if (rc != 0) {
        ccodec_set_error(err, errlen, png_error_text(rc));
        spng_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

int ccodec_png_probe(const void *buf, size_t len, int *width, int *height, char *err, size_t errlen) {
    struct spng_ihdr ihdr;
    spng_ctx *ctx = open_png(buf, len, &ihdr, err, errlen);
    if (ctx == NULL) return CCODEC_CORRUPT;
    *width = (int)ihdr.width;
    *height = (int)ihdr.height;
    spng_ctx_free(ctx);
    return CCODEC_OK;
}

/* Checks the pixel cap and decodes into `dst` (or a malloc'd buffer when dst is NULL) to
   RGBA8; on success fills *out (pixels = the buffer used). */
static int decode_png(const void *buf, size_t len, int64_t max_pixels, unsigned char *dst, size_t dstlen,
                      ccodec_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    struct spng_ihdr ihdr;
    spng_ctx *ctx = open_png(buf, len, &ihdr, err, errlen);
    if (ctx == NULL) return CCODEC_CORRUPT;
    out->source_width = (int)ihdr.width;
    out->source_height = (int)ihdr.height;
    if (ihdr.width > 0x7fffffff / 4 || ihdr.height > 0x7fffffff ||
        (max_pixels > 0 && (int64_t)ihdr.width * (int64_t)ihdr.height > max_pixels)) {
        snprintf(err, errlen, "%u x %u pixels is over the limit of %lld", ihdr.width, ihdr.height,
                 (long long)max_pixels);
        spng_ctx_free(ctx);
        return CCODEC_TOO_MANY_PIXELS;
    }
    size_t size = 0;
    int rc = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &size);
    if (rc != 0 || size != (size_t)ihdr.width * ihdr.height * 4) {
        ccodec_set_error(err, errlen, rc ? png_error_text(rc) : "unexpected decoded size");
        spng_ctx_free(ctx);
        return CCODEC_CORRUPT;
    }
    unsigned char *pixels = dst;
    if (dst != NULL && dstlen != size) {
        ccodec_set_error(err, errlen, "the buffer does not match the image's size");
        spng_ctx_free(ctx);
        return CCODEC_CORRUPT;
    }
    if (pixels == NULL) pixels = malloc(size);
    if (pixels == NULL) {
        ccodec_set_error(err, errlen, "out of memory");
        spng_ctx_free(ctx);
        return CCODEC_CORRUPT;
    }
    /* Every IDAT chunk whole and CRC-32 intact before any pixel is decoded, as row by row
       (ccodec_png_rows_open): a PNG cut short after the image data (no IEND) still loses no
       pixel, but one cut inside IDAT, or with a damaged IDAT, fails here with the same text on
       both paths (decoding first, a cut file failed as libspng's "end of stream"). */
    if (!idat_intact((const unsigned char *)buf, len)) {
        ccodec_set_error(err, errlen, "truncated or damaged image data (IDAT)");
        if (pixels != dst) free(pixels);
        spng_ctx_free(ctx);
        return CCODEC_CORRUPT;
    }
    /* SPNG_DECODE_TRNS applies tRNS (palette and single-colour transparency). Gamma (gAMA) is
       not applied: sRGB is assumed, as browsers do for untagged images. */
    rc = spng_decode_image(ctx, pixels, size, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
    if (rc != 0) {
        ccodec_set_error(err, errlen, png_error_text(rc));
        if (pixels != dst) free(pixels);
        spng_ctx_free(ctx);
        return CCODEC_CORRUPT;
    }
    struct spng_iccp iccp;
    int converted = 0;
    if (spng_get_iccp(ctx, &iccp) == 0 && iccp.profile != NULL && iccp.profile_len > 0) {
        converted = ccodec_icc_to_srgb((const unsigned char *)iccp.profile, iccp.profile_len, pixels,
                                       (size_t)ihdr.width * ihdr.height, 0);
    }
    spng_ctx_free(ctx);
    out->pixels = pixels;
    out->length = size;
    out->width = (int)ihdr.width;
    out->height = (int)ihdr.height;
    out->scale_eighths = 8;
    out->icc_applied = converted;
    return CCODEC_OK;
}

int ccodec_png_decode(const void *buf, size_t len, int64_t max_pixels, ccodec_image *out,
                      char *err, size_t errlen) {
    return decode_png(buf, len, max_pixels, NULL, 0, out, err, errlen);
}

int ccodec_png_decode_into(const void *buf, size_t len, int64_t max_pixels, unsigned char *dst,
                           size_t dstlen, ccodec_image *out, char *err, size_t errlen) {
    if (dst == NULL) {
        memset(out, 0, sizeof *out);
        ccodec_set_error(err, errlen, "no buffer");
        return CCODEC_CORRUPT;
    }
    return decode_png(buf, len, max_pixels, dst, dstlen, out, err, errlen);
}

struct ccodec_png_rows {
    spng_ctx *ctx;
    size_t row_bytes;
    int done;
};

ccodec_png_rows *ccodec_png_rows_open(const void *buf, size_t len, int64_t max_pixels, int *width,
                                      int *height, int *status, char *err, size_t errlen) {
    *status = CCODEC_CORRUPT;
    struct spng_ihdr ihdr;
    spng_ctx *ctx = open_png(buf, len, &ihdr, err, errlen);
    if (ctx == NULL) return NULL;
    *width = (int)ihdr.width;
    *height = (int)ihdr.height;
    if (ihdr.width > 0x7fffffff / 4 || ihdr.height > 0x7fffffff ||
        (max_pixels > 0 && (int64_t)ihdr.width * (int64_t)ihdr.height > max_pixels)) {
        snprintf(err, errlen, "%u x %u pixels is over the limit of %lld", ihdr.width, ihdr.height,
                 (long long)max_pixels);
        spng_ctx_free(ctx);
        *status = CCODEC_TOO_MANY_PIXELS;
        return NULL;
    }
    /* Adam7 comes in passes, and an ICC profile converts the whole image: both whole. */
    struct spng_iccp iccp;
    int icc = ihdr.interlace_method != 0 ? 0 : spng_get_iccp(ctx, &iccp);
    if (icc == 0) {
        spng_ctx_free(ctx);
        *status = CCODEC_OK;
        return NULL;
    }
    /* Reading up to the first IDAT for the profile failed (a damaged PLTE, say): that error,
       not the decoder's later "bad state". */
    if (icc != SPNG_ECHUNKAVAIL) {
        ccodec_set_error(err, errlen, png_error_text(icc));
        spng_ctx_free(ctx);
        return NULL;
    }
    /* Every IDAT chunk whole and CRC-checked before the first row is handed out. */
    if (!idat_intact((const unsigned char *)buf, len)) {
        ccodec_set_error(err, errlen, "truncated or damaged image data (IDAT)");
        spng_ctx_free(ctx);
        return NULL;
    }
    int rc = spng_decode_image(ctx, NULL, 0, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS | SPNG_DECODE_PROGRESSIVE);
    ccodec_png_rows *r = rc == 0 ? malloc(sizeof *r) : NULL;
    if (r == NULL) {
        ccodec_set_error(err, errlen, rc ? png_error_text(rc) : "out of memory");
        spng_ctx_free(ctx);
        return NULL;
    }
    r->ctx = ctx;
    r->row_bytes = (size_t)ihdr.width * 4;
    r->done = 0;
    *status = CCODEC_OK;
    return r;
}

int ccodec_png_rows_next(ccodec_png_rows *r, unsigned char *row, size_t rowlen, char *err, size_t errlen) {
    if (r->done || rowlen != r->row_bytes) {
        ccodec_set_error(err, errlen, r->done ? "no more rows" : "the row buffer does not match the width");
        return CCODEC_CORRUPT;
    }
    int rc = spng_decode_row(r->ctx, row, rowlen);
    if (rc == SPNG_EOI) {
        r->done = 1;
        return CCODEC_OK;
    }
    if (rc != 0) {
        ccodec_set_error(err, errlen, png_error_text(rc));
        r->done = 1;
        return CCODEC_CORRUPT;
    }
    return CCODEC_OK;
}

void ccodec_png_rows_close(ccodec_png_rows *r) {
    if (r == NULL) return;
    spng_ctx_free(r->ctx);
    free(r);
}
