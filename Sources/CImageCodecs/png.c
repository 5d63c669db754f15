/* PNG through libspng (decodes from a buffer, checks CRCs and the zlib checksum, fails on
   truncation). */
#include "codecs.h"
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decoder over `buf` with its header read into *ihdr; NULL with the error text when either
   fails. PNG's own limit on a side (2^31 - 1) is far beyond any pixel cap; the cap decides. */
static spng_ctx *open_png(const void *buf, size_t len, struct spng_ihdr *ihdr, char *err, size_t errlen) {
    spng_ctx *ctx = spng_ctx_new(0);
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
        ccodec_set_error(err, errlen, spng_strerror(rc));
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

int ccodec_png_decode(const void *buf, size_t len, int64_t max_pixels, ccodec_image *out,
                      char *err, size_t errlen) {
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
        ccodec_set_error(err, errlen, rc ? spng_strerror(rc) : "unexpected decoded size");
        spng_ctx_free(ctx);
        return CCODEC_CORRUPT;
    }
    unsigned char *pixels = malloc(size);
    if (pixels == NULL) {
        ccodec_set_error(err, errlen, "out of memory");
        spng_ctx_free(ctx);
        return CCODEC_CORRUPT;
    }
    /* SPNG_DECODE_TRNS applies tRNS (palette and single-colour transparency). Gamma (gAMA) is
       not applied: sRGB is assumed, as browsers do for untagged images. */
    rc = spng_decode_image(ctx, pixels, size, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
    if (rc != 0) {
        ccodec_set_error(err, errlen, spng_strerror(rc));
        free(pixels);
        spng_ctx_free(ctx);
        return CCODEC_CORRUPT;
    }
    /* The image data was read to its end; a PNG cut short after it (no IEND) still loses no
       pixel, but one cut inside IDAT fails above. */
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
