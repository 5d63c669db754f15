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
