#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
/* libpng's simplified API (png_image, libpng 1.6.29+), for iTerm2 inline images, which carry
   image file bytes. The png_image set-up uses macros (PNG_IMAGE_VERSION, PNG_FORMAT_RGBA) that
   Swift does not import, so the two calls are wrapped here with fixed signatures. */
#include <png.h>
#include <stdlib.h>
#include <string.h>

/* Encodes width x height 8-bit RGBA pixels (straight alpha, rows top first) as a PNG.
   On success *out is a malloc'd buffer of *out_len bytes (free it with free) and 0 is returned;
   on failure -1 and message (if non-NULL) holds libpng's reason. */
static inline int cpng_encode_rgba(const unsigned char *pixels, int width, int height,
                                   unsigned char **out, size_t *out_len, char *message, size_t message_len) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = PNG_FORMAT_RGBA;
    /* Speed over size: the PNG only crosses a pty once (a 1067x800 photo: see
       docs/PERFORMANCE.md, "Real pixels"). */
    image.flags = PNG_IMAGE_FLAG_FAST;
    /* One pass into a buffer of the largest size the PNG can have (libpng's bound: the rows
       stored uncompressed plus the chunks), then shrunk: asking for the size first (a write
       with no buffer) compressed the whole image twice. */
    png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(image);
    *out = NULL;
    if (size == 0) goto fail;
    *out = (unsigned char *)malloc(size);
    if (*out == NULL) { png_image_free(&image); return -1; }
    if (!png_image_write_to_memory(&image, *out, &size, 0, pixels, 0, NULL)) { free(*out); *out = NULL; goto fail; }
    unsigned char *shrunk = (unsigned char *)realloc(*out, size ? size : 1);
    if (shrunk) *out = shrunk;
    *out_len = size;
    return 0;
fail:
    if (message && message_len) { strncpy(message, image.message, message_len - 1); message[message_len - 1] = 0; }
    png_image_free(&image);
    return -1;
}

/* Growable output for cpng_encode_fast's write callback. */
struct cpng_buffer { unsigned char *bytes; size_t length, capacity; int failed; };

static void cpng_buffer_write(png_structp png, png_bytep data, png_size_t length) {
    struct cpng_buffer *b = (struct cpng_buffer *)png_get_io_ptr(png);
    if (b->failed) return;
    if (b->length + length > b->capacity) {
        size_t grown = (b->length + length) * 2;
        unsigned char *bigger = (unsigned char *)realloc(b->bytes, grown);
        if (bigger == NULL) { b->failed = 1; return; }
        b->bytes = bigger;
        b->capacity = grown;
    }
    memcpy(b->bytes + b->length, data, length);
    b->length += length;
}

static void cpng_buffer_flush(png_structp png) { (void)png; }

/* As cpng_encode_rgba, through libpng's full API for speed: 8-bit RGB when `opaque` (every alpha
   255: the alpha channel is left out, a quarter fewer bytes to compress), else RGBA; the Up
   filter on every row (no per-row filter search) and zlib's Z_RLE strategy at level 1 (runs
   only: no match search, which photos repay little and flat pictures still compress well).
   On a 1200x780 photo: 0.35x the time and 0.41x the bytes of the simplified API's
   PNG_IMAGE_FLAG_FAST (docs/PERFORMANCE.md, "sixth part"). Errors (libpng's longjmp) return -1. */
static inline int cpng_encode_fast(const unsigned char *pixels, int width, int height, int opaque,
                                   unsigned char **out, size_t *out_len) {
    *out = NULL;
    *out_len = 0;
    if (pixels == NULL || width <= 0 || height <= 0) return -1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (png == NULL) return -1;
    png_infop info = png_create_info_struct(png);
    /* volatile: changed between setjmp and a longjmp back to it. */
    unsigned char *volatile row = NULL;
    struct cpng_buffer buffer = { NULL, 0, 0, 0 };
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        free(row);
        free(buffer.bytes);
        return -1;
    }
    buffer.capacity = (size_t)width * (size_t)height + 1024;
    buffer.bytes = (unsigned char *)malloc(buffer.capacity);
    row = (unsigned char *)malloc((size_t)width * 3);
    if (buffer.bytes == NULL || row == NULL) png_error(png, "out of memory");
    png_set_write_fn(png, &buffer, cpng_buffer_write, cpng_buffer_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_compression_level(png, 1);
    png_set_compression_strategy(png, 3 /* Z_RLE */);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) {
        const unsigned char *src = pixels + (size_t)y * (size_t)width * 4;
        if (opaque) {
            for (int x = 0; x < width; x++) {
                row[3 * x] = src[4 * x];
                row[3 * x + 1] = src[4 * x + 1];
                row[3 * x + 2] = src[4 * x + 2];
            }
            png_write_row(png, row);
        } else {
            png_write_row(png, (png_const_bytep)src);
        }
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (buffer.failed) { free(buffer.bytes); return -1; }
    *out = buffer.bytes;
    *out_len = buffer.length;
    return 0;
}

/* Decodes PNG bytes to 8-bit RGBA; *pixels is malloc'd (free it), *width/*height set. 0 on success. */
static inline int cpng_decode_rgba(const void *data, size_t len, unsigned char **pixels, int *width, int *height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    *pixels = NULL;
    if (!png_image_begin_read_from_memory(&image, data, len)) return -1;
    image.format = PNG_FORMAT_RGBA;
    size_t size = PNG_IMAGE_SIZE(image);
    *pixels = (unsigned char *)malloc(size);
    if (*pixels == NULL) { png_image_free(&image); return -1; }
    if (!png_image_finish_read(&image, NULL, *pixels, 0, NULL)) { free(*pixels); *pixels = NULL; png_image_free(&image); return -1; }
    *width = (int)image.width;
    *height = (int)image.height;
    return 0;
}
#endif
