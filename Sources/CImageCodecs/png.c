/* PNG through libpng 1.6 (decodes from a buffer, checks every chunk's CRC, fails on truncation).
   libpng replaced libspng here in issue 14's sixth round: its row filters are SSE2 (a 512x512
   RGBA decode took 10.7 M instructions against libspng's 17.4 M), and Debian ships it as a
   static archive, so the release binary maps no PNG or zlib library of its own at start.
   The zlib stream's Adler-32 is not computed (PNG_IGNORE_ADLER32): it was 18 % of a PNG's
   decode, a pass over every inflated byte. Instead idat_intact() checks the CRC-32 of every
   IDAT chunk over the compressed bytes and that none is cut short, before any row is
   decoded. The header (IHDR) is read by this file, not libpng, so the pixel cap is applied
   before libpng reads any other chunk. Chunks after the image data are never read (a file
   cut after it, with no IEND, loses no pixel), and neither is the rest of the zlib stream
   once every row is decoded (see read_bytes). */
#include "codecs.h"
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char *const TEXT_IDAT = "truncated or damaged image data (IDAT)";
static const char *const TEXT_CRC = "a chunk's CRC-32 does not match (damaged file)";
static const char *const TEXT_TOO_LARGE = "the image's width or height is too large to decode";

static uint32_t be32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* 1 when the PNG in buf has at least one IDAT chunk and every IDAT chunk is whole, with a
   matching CRC-32; 0 when one is cut short, fails its CRC, or there is none. Chunks after the
   image data may be missing or cut (no IEND loses no pixel). */
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

/* The PNG signature and IHDR (PNG spec 11.2.2), read from the bytes: the first chunk, 13
   bytes, CRC-32 intact, width and height 1 to 2^31 - 1, a bit depth allowed for its colour
   type, compression and filter method 0, interlace 0 or 1. */
typedef struct {
    uint32_t width, height;
    int bit_depth, colour_type, interlaced;
} png_header;

static int read_header(const unsigned char *p, size_t len, png_header *h, char *err, size_t errlen) {
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (len < 8 || memcmp(p, signature, 8) != 0) {
        ccodec_set_error(err, errlen, "not a PNG file (no PNG signature)");
        return -1;
    }
    if (len < 33) {
        ccodec_set_error(err, errlen, "truncated file: the header (IHDR) is incomplete");
        return -1;
    }
    if (be32(p + 8) != 13 || memcmp(p + 12, "IHDR", 4) != 0) {
        ccodec_set_error(err, errlen, "the first chunk is not a 13-byte IHDR");
        return -1;
    }
    if ((uint32_t)crc32_z(0L, p + 12, 17) != be32(p + 29)) {
        ccodec_set_error(err, errlen, TEXT_CRC);
        return -1;
    }
    h->width = be32(p + 16);
    h->height = be32(p + 20);
    h->bit_depth = p[24];
    h->colour_type = p[25];
    h->interlaced = p[28];
    if (h->width > 0x7fffffffu || h->height > 0x7fffffffu) {
        ccodec_set_error(err, errlen, TEXT_TOO_LARGE);
        return -1;
    }
    if (h->width == 0 || h->height == 0) {
        ccodec_set_error(err, errlen, "the header (IHDR) gives no pixels (a zero width or height)");
        return -1;
    }
    int d = h->bit_depth, ok;
    switch (h->colour_type) {
    case 0: ok = d == 1 || d == 2 || d == 4 || d == 8 || d == 16; break;  /* grey */
    case 3: ok = d == 1 || d == 2 || d == 4 || d == 8; break;             /* palette */
    case 2: case 4: case 6: ok = d == 8 || d == 16; break;                /* RGB, grey+alpha, RGBA */
    default: ok = 0;
    }
    if (!ok || p[26] != 0 || p[27] != 0 || h->interlaced > 1) {
        ccodec_set_error(err, errlen, "the header (IHDR) has an invalid bit depth, colour type or method");
        return -1;
    }
    return 0;
}

/* The pixel cap on the header: CCODEC_TOO_MANY_PIXELS with the message, else CCODEC_OK. */
static int check_cap(const png_header *h, int64_t max_pixels, char *err, size_t errlen) {
    if (h->width > 0x7fffffffu / 4 || (max_pixels > 0 && (int64_t)h->width * (int64_t)h->height > max_pixels)) {
        snprintf(err, errlen, "%u x %u pixels is over the limit of %lld", h->width, h->height, (long long)max_pixels);
        return CCODEC_TOO_MANY_PIXELS;
    }
    return CCODEC_OK;
}

int ccodec_png_probe(const void *buf, size_t len, int *width, int *height, char *err, size_t errlen) {
    png_header h;
    if (read_header(buf, len, &h, err, errlen) != 0) return CCODEC_CORRUPT;
    *width = (int)h.width;
    *height = (int)h.height;
    return CCODEC_OK;
}

/* One libpng decoder over a buffer. libpng reports errors through png_error, which must not
   return: on_error records the message and longjmps to the setjmp(png_jmpbuf) of the function
   that called into libpng, which is why this lives in C. */
typedef struct {
    png_structp png;
    png_infop info;
    const unsigned char *buf;
    size_t len, pos;
    uint32_t width, height, rows_read;
    int interlaced;
    /* Set by read_bytes when libpng asks for input after the last row of the last pass is
       written (to inflate the rest of the zlib stream): the decode ends there, a success. */
    int rows_complete;
    char message[160];
} reader;

static void on_error(png_structp png, png_const_charp text) {
    reader *r = png_get_error_ptr(png);
    /* The few a damaged or hostile file gives are said the same way on every path; the rest
       keep libpng's text (prefixed with the chunk's name by png_chunk_error). */
    const char *said = text;
    if (strstr(text, "CRC error") != NULL) said = TEXT_CRC;
    else if (strcmp(text, "truncated") == 0) said = "truncated file (it ends before the image data)";
    /* "IDAT: Missing PLTE before IDAT": a palette image (colour type 3) with no PLTE chunk
       before its image data (PNG spec 11.2.3); the image data itself may be fine. */
    else if (strstr(text, "Missing PLTE") != NULL)
        said = "the palette (PLTE) is missing: a palette image has no PLTE chunk before its image data";
    /* zlib's errors arrive as "IDAT: <zlib's message>" */
    else if (strncmp(text, "IDAT", 4) == 0 || strstr(text, "Not enough image data") != NULL ||
             strstr(text, "bad adaptive filter") != NULL)
        said = TEXT_IDAT;
    snprintf(r->message, sizeof r->message, "%s", said);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text; /* a benign flaw in an ancillary chunk: the pixels are not affected */
}

/* libpng's input: the next `n` bytes of the buffer, or the error "truncated". Once every
   row is written, libpng's sequential reader (png_read_finish_IDAT) would inflate the rest of
   the zlib stream to its end, however long: a small header with a huge IDAT stream cost CPU
   in proportion to the stream, not the image. Input asked for then ends the decode instead
   (r->rows_complete, a longjmp the callers treat as success): the data after the image's
   rows is ignored, not inflated, beyond what libpng already holds (one read of at most
   PNG_IDAT_READ_SIZE, 8 KiB, of compressed bytes). The row counters are libpng's own
   (png_get_current_row_number/pass_number): the row within the pass, and pass 7 after
   Adam7's last. */
static void read_bytes(png_structp png, png_bytep out, size_t n) {
    reader *r = png_get_io_ptr(png);
    if (png_get_current_pass_number(png) >= 7 ||
        (!r->interlaced && png_get_current_row_number(png) >= r->height)) {
        r->rows_complete = 1;
        png_longjmp(png, 1);
    }
    if (n > r->len - r->pos) png_error(png, "truncated");
    memcpy(out, r->buf + r->pos, n);
    r->pos += n;
}

/* Ancillary chunks this decoder has no use for: skipped unread (their CRC is still checked),
   so no text is inflated and nothing is stored. tRNS and iCCP are kept. */
static const png_byte ignored_chunks[] = "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0oFFs\0pCAL\0pHYs\0sBIT\0sCAL\0"
                                         "sPLT\0sRGB\0sTER\0tEXt\0tIME\0zTXt\0iTXt\0";

/* A reader over buf with libpng set up to give 8-bit RGBA, its header (IHDR) read by
   read_header, the pixel cap applied, the chunks up to the first IDAT read by libpng, and
   every IDAT chunk checked whole and intact. NULL with *status CCODEC_TOO_MANY_PIXELS or
   CCODEC_CORRUPT (message in err) when any of that fails. */
static reader *open_reader(const void *buf, size_t len, int64_t max_pixels, png_header *h, int *status,
                           char *err, size_t errlen) {
    *status = CCODEC_CORRUPT;
    if (read_header(buf, len, h, err, errlen) != 0) return NULL;
    if ((*status = check_cap(h, max_pixels, err, errlen)) != CCODEC_OK) return NULL;
    *status = CCODEC_CORRUPT;
    reader *r = calloc(1, sizeof *r);
    if (r == NULL) {
        ccodec_set_error(err, errlen, "out of memory");
        return NULL;
    }
    r->buf = buf;
    r->len = len;
    r->width = h->width;
    r->height = h->height;
    r->interlaced = h->interlaced;
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r, on_error, on_warning);
    if (r->png != NULL) r->info = png_create_info_struct(r->png);
    if (r->png == NULL || r->info == NULL) {
        png_destroy_read_struct(r->png ? &r->png : NULL, NULL, NULL);
        free(r);
        ccodec_set_error(err, errlen, "out of memory");
        return NULL;
    }
    if (setjmp(png_jmpbuf(r->png))) {
        ccodec_set_error(err, errlen, r->message[0] ? r->message : "unreadable PNG");
        png_destroy_read_struct(&r->png, &r->info, NULL);
        free(r);
        return NULL;
    }
    /* Every chunk's CRC is checked, ancillary ones too (an error, as for critical chunks). */
    png_set_crc_action(r->png, PNG_CRC_DEFAULT, PNG_CRC_ERROR_QUIT);
    png_set_option(r->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    /* The cap above decides the size, not libpng's default of a million pixels a side. Ancillary
       chunks of untrusted files: at most 8 MiB each once inflated (an ICC profile). */
    png_set_user_limits(r->png, 0x7fffffff, 0x7fffffff);
    png_set_chunk_malloc_max(r->png, 8u << 20);
    png_set_keep_unknown_chunks(r->png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(r->png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks,
                                (int)(sizeof ignored_chunks - 1) / 5);
    png_set_read_fn(r->png, r, read_bytes);
    png_read_info(r->png, r->info);
    if (!idat_intact((const unsigned char *)buf, len)) {
        ccodec_set_error(err, errlen, TEXT_IDAT);
        png_destroy_read_struct(&r->png, &r->info, NULL);
        free(r);
        return NULL;
    }
    /* To 8-bit RGBA, straight alpha: palette to RGB, grey below 8 bits to 8, tRNS to an alpha
       channel, 16 bits to their high byte, grey to RGB, opaque alpha added where there is none.
       Gamma (gAMA) is not applied: sRGB is assumed, as browsers do for untagged images. */
    if (h->colour_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r->png);
    if (h->colour_type == PNG_COLOR_TYPE_GRAY && h->bit_depth < 8) png_set_expand_gray_1_2_4_to_8(r->png);
    if (png_get_valid(r->png, r->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(r->png);
    if (h->bit_depth == 16) png_set_strip_16(r->png);
    if (h->colour_type == PNG_COLOR_TYPE_GRAY || h->colour_type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(r->png);
    png_set_add_alpha(r->png, 0xff, PNG_FILLER_AFTER);
    if (h->interlaced) (void)png_set_interlace_handling(r->png);
    png_read_update_info(r->png, r->info);
    if (png_get_rowbytes(r->png, r->info) != (size_t)h->width * 4) {
        ccodec_set_error(err, errlen, "unexpected decoded row size");
        png_destroy_read_struct(&r->png, &r->info, NULL);
        free(r);
        return NULL;
    }
    *status = CCODEC_OK;
    return r;
}

static void close_reader(reader *r) {
    if (r == NULL) return;
    png_destroy_read_struct(&r->png, &r->info, NULL);
    free(r);
}

/* The embedded ICC profile (iCCP, inflated by libpng) or NULL. */
static const unsigned char *icc_profile(reader *r, size_t *length) {
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_len = 0;
    if (png_get_iCCP(r->png, r->info, &name, &compression, &profile, &profile_len) == 0 || profile == NULL ||
        profile_len == 0)
        return NULL;
    *length = profile_len;
    return profile;
}

/* Decodes every row of r into pixels (width * height * 4 bytes), passes and all. */
static int read_all(reader *r, unsigned char *pixels, char *err, size_t errlen) {
    png_bytep *rows = malloc((size_t)r->height * sizeof *rows);
    if (rows == NULL) {
        ccodec_set_error(err, errlen, "out of memory");
        return CCODEC_CORRUPT;
    }
    for (uint32_t y = 0; y < r->height; y++) rows[y] = pixels + (size_t)y * r->width * 4;
    /* volatile: set before setjmp and read after a longjmp. */
    png_bytep *volatile held = rows;
    if (setjmp(png_jmpbuf(r->png))) {
        free(held);
        if (r->rows_complete) return CCODEC_OK; /* every row written; the rest is not read */
        ccodec_set_error(err, errlen, r->message[0] ? r->message : "unreadable PNG");
        return CCODEC_CORRUPT;
    }
    png_read_image(r->png, rows);
    free(held);
    return CCODEC_OK;
}

/* Checks the pixel cap and decodes into `dst` (or a malloc'd buffer when dst is NULL) to
   RGBA8; on success fills *out (pixels = the buffer used). */
static int decode_png(const void *buf, size_t len, int64_t max_pixels, unsigned char *dst, size_t dstlen,
                      ccodec_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    png_header h;
    int status;
    if (read_header(buf, len, &h, err, errlen) != 0) return CCODEC_CORRUPT;
    out->source_width = (int)h.width;
    out->source_height = (int)h.height;
    reader *r = open_reader(buf, len, max_pixels, &h, &status, err, errlen);
    if (r == NULL) return status;
    size_t size = (size_t)h.width * h.height * 4;
    if (dst != NULL && dstlen != size) {
        ccodec_set_error(err, errlen, "the buffer does not match the image's size");
        close_reader(r);
        return CCODEC_CORRUPT;
    }
    unsigned char *pixels = dst != NULL ? dst : malloc(size);
    if (pixels == NULL) {
        ccodec_set_error(err, errlen, "out of memory");
        close_reader(r);
        return CCODEC_CORRUPT;
    }
    if (read_all(r, pixels, err, errlen) != CCODEC_OK) {
        if (pixels != dst) free(pixels);
        close_reader(r);
        return CCODEC_CORRUPT;
    }
    size_t icc_len = 0;
    const unsigned char *icc = icc_profile(r, &icc_len);
    int converted = icc != NULL ? ccodec_icc_to_srgb(icc, icc_len, pixels, (size_t)h.width * h.height, 0) : 0;
    close_reader(r);
    out->pixels = pixels;
    out->length = size;
    out->width = (int)h.width;
    out->height = (int)h.height;
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
    reader *r;
    int done;
};

ccodec_png_rows *ccodec_png_rows_open(const void *buf, size_t len, int64_t max_pixels, int *width,
                                      int *height, int *status, char *err, size_t errlen) {
    png_header h;
    *status = CCODEC_CORRUPT;
    if (read_header(buf, len, &h, err, errlen) != 0) return NULL;
    *width = (int)h.width;
    *height = (int)h.height;
    reader *r = open_reader(buf, len, max_pixels, &h, status, err, errlen);
    if (r == NULL) return NULL;
    /* Adam7 comes in passes, and an ICC profile converts the whole image: both whole. */
    size_t icc_len = 0;
    if (h.interlaced || icc_profile(r, &icc_len) != NULL) {
        close_reader(r);
        *status = CCODEC_OK;
        return NULL;
    }
    ccodec_png_rows *rows = malloc(sizeof *rows);
    if (rows == NULL) {
        ccodec_set_error(err, errlen, "out of memory");
        close_reader(r);
        *status = CCODEC_CORRUPT;
        return NULL;
    }
    rows->r = r;
    rows->done = 0;
    *status = CCODEC_OK;
    return rows;
}

int ccodec_png_rows_next(ccodec_png_rows *rows, unsigned char *row, size_t rowlen, char *err, size_t errlen) {
    reader *r = rows->r;
    if (rows->done || rowlen != (size_t)r->width * 4) {
        ccodec_set_error(err, errlen, rows->done ? "no more rows" : "the row buffer does not match the width");
        return CCODEC_CORRUPT;
    }
    if (setjmp(png_jmpbuf(r->png))) {
        rows->done = 1;
        if (r->rows_complete) return CCODEC_OK; /* the last row is written; the rest is not read */
        ccodec_set_error(err, errlen, r->message[0] ? r->message : "unreadable PNG");
        return CCODEC_CORRUPT;
    }
    png_read_row(r->png, row, NULL);
    if (++r->rows_read == r->height) rows->done = 1;
    return CCODEC_OK;
}

void ccodec_png_rows_close(ccodec_png_rows *rows) {
    if (rows == NULL) return;
    close_reader(rows->r);
    free(rows);
}
