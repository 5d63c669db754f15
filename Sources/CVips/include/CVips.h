#ifndef CVIPS_H
#define CVIPS_H
#include <stddef.h>
#include <stdint.h>

/* A thin shim over libvips for Swift. Swift cannot call C variadic functions, and libvips's
   operations are all variadic (name/value option lists), so each operation Vitrine needs is
   wrapped here with a fixed signature. Every symbol is prefixed cvips_. */

/* Result of a decode: 8-bit sRGB RGBA, straight alpha, row-major. `pixels` is owned by the
   caller and freed with cvips_free. */
typedef struct {
    unsigned char *pixels;
    size_t length;      /* bytes: width * height * 4 */
    int width;          /* pixels, after orientation and shrink */
    int height;
    int source_width;   /* pixels of the original image as displayed (EXIF orientation applied) */
    int source_height;
    int whole;          /* 1: not shrunk, though larger than the box (a PNG or GIF of up to 4
                           megapixels and 8192 pixels a side, decoded whole): the caller
                           shrinks it; 0: fits the box */
} cvips_image;

/* Return codes besides 0 and -1 (-2: over the pixel cap, cvips_thumbnail_rgba). */
enum {
    CVIPS_UNSUPPORTED = -3,  /* the loader libvips would pick is outside the allow-list; err
                                holds its format ("SVG", "MAGICK") */
    CVIPS_UNAVAILABLE = -4   /* libvips could not be opened; err holds why */
};

/* Opens libvips with dlopen ($VITRINE_LIBVIPS, else libvips.so.42) and starts it, once per
   process (vips_init is not thread-safe); nothing of libvips is linked, so a process that
   never needs it never loads its ~104 libraries. Blocks every loader outside the allow-list
   (JPEG, PNG, GIF, WebP, TIFF, HEIF/AVIF) with vips_operation_block_set before any decode,
   and of libvips's modules loads only libheif's, on first need. Also installs a GLib log
   handler (vips_init is not thread-safe), installs a GLib log handler
   that keeps vips warnings off the terminal, turns the operation cache off and sets libvips's
   own thread pool to one thread (callers run decodes in parallel themselves).
   Returns 0 on success, -1 when libvips could not be opened or started. Safe from any thread. */
int cvips_init(void);

/* Where libvips/GLib warnings go: a file descriptor (>= 0) to append lines to, or -1 to drop
   them (the default). Set before cvips_init. */
void cvips_set_log_fd(int fd);

/* Reads only the image header of the `len` bytes at `buf`: width and height in pixels as
   displayed (EXIF orientation applied). Returns 0, or -1 with a message in err (errlen bytes),
   CVIPS_UNSUPPORTED or CVIPS_UNAVAILABLE. */
int cvips_probe(const void *buf, size_t len, int *width, int *height, char *err, size_t errlen);

/* Decodes the `len` bytes at `buf` (JPEG, PNG, GIF first frame, WebP, ...) to 8-bit sRGB RGBA,
   straight alpha, shrunk on load to fit max_width x max_height pixels with the aspect kept,
   never enlarged; EXIF orientation applied. Exception: PNG and GIF images of up to 4 megapixels
   and 8192 pixels a side (no shrink-on-load) that are larger than the box come back decoded
   whole, at their own size, with out->whole set: the caller shrinks them (Vitrine: HalfBlock's exact area average in
   linear light, premultiplied by alpha, which is faster than libvips's Lanczos reduce on
   gamma-encoded values and keeps a 1-px black/white checker grey 188 rather than 127). Larger
   ones and other formats use vips_thumbnail's shrink-on-load and resize. Truncated or corrupt
   data is an error, not a grey image. An image whose header says more than max_pixels pixels
   (0: no cap) is refused before decoding.
   Returns 0 with *out filled, -1 with a message in err, -2 if refused for its pixel count,
   CVIPS_UNSUPPORTED or CVIPS_UNAVAILABLE as cvips_probe. */
int cvips_thumbnail_rgba(const void *buf, size_t len, int max_width, int max_height,
                         int64_t max_pixels, cvips_image *out, char *err, size_t errlen);

/* Writes the SHA-256 of the `len` bytes at `buf` as 64 lower-case hex digits and a NUL into
   `out` (at least 65 bytes). Shimmed so the disk cache can name files by a hash without a
   hand-written SHA-256: GLib's g_compute_checksum_for_data returns memory that must go back
   through g_free, which Swift should not have to know about. Returns 0, or -1 on failure. */
int cvips_sha256_hex(const void *buf, size_t len, char *out);

/* Frees cvips_image.pixels. */
void cvips_free(void *pixels);

/* cvips_region_rgba: a region at a shrink-on-load factor, for zoom and pan. */
#include "CVipsRegion.h"

/* cvips_animation_open / _next / _close: an animated GIF or WebP frame by frame, for the full view. */
#include "CVipsAnimation.h"

#endif
