/* libFuzzer entry for CImageCodecs (Fuzz/README.md, targets png and jpeg): the shims over
   libpng and libjpeg-turbo that every PNG and JPEG from a gallery, a server or a disk goes
   through. VITRINE_FUZZ picks the decoder. Each input is probed, decoded whole under a
   pixel cap, and then (PNG) decoded into a caller buffer and row by row, (JPEG) decoded at
   1/8 from the DCT coefficients. The paths must agree on success (PNG: on the pixels too;
   JPEG: on the size), so a disagreement aborts like a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodecs.h"

/* 4 Mpx: the fuzzer's memory limit must stay far from what a cap allows. */
#define MAX_PIXELS (4 * 1024 * 1024)

static int target_png = -1;

static void fuzz_png(const uint8_t *data, size_t size) {
    char err[256];
    int w = 0, h = 0;
    if (ccodec_png_probe(data, size, &w, &h, err, sizeof err) != CCODEC_OK) return;
    ccodec_image whole;
    memset(&whole, 0, sizeof whole);
    int rc = ccodec_png_decode(data, size, MAX_PIXELS, &whole, err, sizeof err);
    if (rc == CCODEC_OK && (whole.width != w || whole.height != h ||
                            whole.length != (size_t)w * (size_t)h * 4)) abort();
    if ((int64_t)w * h <= MAX_PIXELS && w > 0 && h > 0) {
        size_t len = (size_t)w * (size_t)h * 4;
        unsigned char *dst = malloc(len);
        ccodec_image into;
        memset(&into, 0, sizeof into);
        int rc2 = ccodec_png_decode_into(data, size, MAX_PIXELS, dst, len, &into, err, sizeof err);
        if ((rc == CCODEC_OK) != (rc2 == CCODEC_OK)) abort();
        if (rc == CCODEC_OK && memcmp(dst, whole.pixels, len) != 0) abort();
        int status = CCODEC_OK, rw = 0, rh = 0;
        ccodec_png_rows *rows = ccodec_png_rows_open(data, size, MAX_PIXELS, &rw, &rh, &status,
                                                     err, sizeof err);
        if (rows) {
            unsigned char *row = malloc((size_t)rw * 4);
            int y = 0;
            for (; y < rh; y++) {
                if (ccodec_png_rows_next(rows, row, (size_t)rw * 4, err, sizeof err) != CCODEC_OK) break;
                if (rc == CCODEC_OK && memcmp(row, whole.pixels + (size_t)y * rw * 4, (size_t)rw * 4) != 0) abort();
            }
            /* Rows decode what the whole decode decodes: a file one path accepts whole,
               the other must too. */
            if (rc == CCODEC_OK && y != rh) abort();
            if (ccodec_png_rows_next(rows, row, (size_t)rw * 4, err, sizeof err) == CCODEC_OK) abort();
            free(row);
            ccodec_png_rows_close(rows);
        }
        free(dst);
    }
    if (rc == CCODEC_OK) ccodec_free(whole.pixels);
}

static void fuzz_jpeg(const uint8_t *data, size_t size) {
    char err[256];
    int w = 0, h = 0;
    if (ccodec_jpeg_probe(data, size, &w, &h, err, sizeof err) != CCODEC_OK) return;
    /* A box as small as a thumbnail's (DCT scaling at 1/8) and the whole picture. */
    const int boxes[2][2] = {{32, 16}, {0, 0}};
    for (int i = 0; i < 2; i++) {
        ccodec_image out;
        memset(&out, 0, sizeof out);
        if (ccodec_jpeg_decode(data, size, boxes[i][0], boxes[i][1], MAX_PIXELS, &out, err,
                               sizeof err) == CCODEC_OK) {
            if (out.length != (size_t)out.width * (size_t)out.height * 4) abort();
            ccodec_free(out.pixels);
        }
    }
    /* The 1/8 picture from the DCT coefficients (render and the full view): each flag must
       succeed exactly when libjpeg's own 1/8 decode does, at the same size. */
    ccodec_image plain;
    memset(&plain, 0, sizeof plain);
    int rc = ccodec_jpeg_decode(data, size, 32, 16, MAX_PIXELS, &plain, err, sizeof err);
    const int flags[2] = {CCODEC_JPEG_BLOCK_VARIANCE, CCODEC_JPEG_BLOCK_MEANS};
    for (int i = 0; i < 2; i++) {
        ccodec_image out;
        memset(&out, 0, sizeof out);
        int rc2 = ccodec_jpeg_decode_flags(data, size, 32, 16, MAX_PIXELS, flags[i], &out, err,
                                           sizeof err);
        if ((rc == CCODEC_OK) != (rc2 == CCODEC_OK)) abort();
        if (rc2 == CCODEC_OK) {
            if (out.length != (size_t)out.width * (size_t)out.height * 4) abort();
            if (out.width != plain.width || out.height != plain.height) abort();
            ccodec_free(out.pixels);
        }
    }
    if (rc == CCODEC_OK) ccodec_free(plain.pixels);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (target_png < 0) {
        const char *t = getenv("VITRINE_FUZZ");
        target_png = !(t && strcmp(t, "jpeg") == 0);
    }
    if (target_png) fuzz_png(data, size); else fuzz_jpeg(data, size);
    return 0;
}
