#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H
#include <stddef.h>
#include <stdint.h>

/* Thin shims over the field's own decoders for the hot path: libjpeg-turbo (jpeglib's API,
   whose errors arrive through a longjmp that Swift cannot take), libpng, and LittleCMS for
   embedded ICC profiles. Every symbol is prefixed ccodec_. Pixels come back as 8-bit sRGB
   RGBA with straight alpha, row-major, in display orientation (EXIF applied); resampling to
   the wanted box is the caller's (Vitrine: HalfBlock's linear-light box filter). */

/* A decoded image. `pixels` is malloc'd, freed with ccodec_free. */
typedef struct {
    unsigned char *pixels;
    size_t length;      /* bytes: width * height * 4 */
    int width;          /* pixels as decoded (after DCT scaling and orientation) */
    int height;
    int source_width;   /* pixels of the whole image as displayed (orientation applied) */
    int source_height;
    int scale_eighths;  /* JPEG: the DCT scale used, in eighths (1 = 1/8 ... 8 = 1/1); PNG: 8 */
    int icc_applied;    /* 1 when an embedded ICC profile was converted to sRGB */
    int block_variance; /* JPEG: 1 when the 1/8 picture came from the coefficients
                           (ccodec_jpeg_decode_flags), 0 from libjpeg's own DCT scaling */
} ccodec_image;

/* Return codes. */
enum {
    CCODEC_OK = 0,
    CCODEC_CORRUPT = -1,      /* not decodable: truncated, corrupt, unsupported variant */
    CCODEC_TOO_MANY_PIXELS = -2 /* the header says more than max_pixels; nothing decoded */
};

/* JPEG header only: width and height in pixels as displayed (EXIF orientation 5-8 swaps
   them). Returns CCODEC_OK, or CCODEC_CORRUPT with a message in err (errlen bytes). */
int ccodec_jpeg_probe(const void *buf, size_t len, int *width, int *height, char *err, size_t errlen);

/* Decodes a JPEG with libjpeg-turbo at the smallest DCT scale (1/8, 2/8, ... 8/8) whose
   output still covers need_width x need_height pixels (display orientation; 0: full size),
   then applies the EXIF orientation (1-8) and any embedded RGB or CMYK ICC profile
   (LittleCMS, perceptual intent, to sRGB). Baseline and progressive; greyscale, YCbCr, RGB,
   CMYK and YCCK (Adobe APP14 marks inverted CMYK, as Photoshop writes it). Truncated data
   ("Premature end of JPEG file") is an error, not a grey-filled picture. An image whose
   header says more than max_pixels pixels (0: no cap) is refused before decoding. */
int ccodec_jpeg_decode(const void *buf, size_t len, int need_width, int need_height,
                       int64_t max_pixels, ccodec_image *out, char *err, size_t errlen);

/* Flags of ccodec_jpeg_decode_flags. */
enum {
    /* At the 1/8 scale, each pixel is its 8x8 block's estimated linear-light mean, from the
       block's mean and its deviation sigma (the AC coefficients' energy: sigma^2 =
       sum(AC^2) / 64 after dequantisation, the DCT being orthonormal) as
       (f(c - sigma) + f(c + sigma)) / 2 per channel, f the sRGB decoding, written back as
       sRGB. libjpeg's 1/8 output is the mean of gamma-encoded values: too dark where a block
       holds fine detail. Taken by single-scan (sequential, interleaved) greyscale and YCbCr
       files with chroma at full or half resolution; others (progressive, CMYK, ...) decode
       as without the flag. The coefficients are read one iMCU row at a time, not kept. */
    CCODEC_JPEG_BLOCK_VARIANCE = 1,
    /* The same coefficient path with sigma taken as 0: libjpeg's own 1/8 pixels (within 1 per
       channel). For tests and measurement. */
    CCODEC_JPEG_BLOCK_MEANS = 2
};

/* As ccodec_jpeg_decode, with `flags` (CCODEC_JPEG_BLOCK_*; 0: the same as ccodec_jpeg_decode).
   out->block_variance says which path made the pixels. */
int ccodec_jpeg_decode_flags(const void *buf, size_t len, int need_width, int need_height,
                             int64_t max_pixels, int flags, ccodec_image *out, char *err, size_t errlen);

/* PNG header only (IHDR): width and height in pixels. */
int ccodec_png_probe(const void *buf, size_t len, int *width, int *height, char *err, size_t errlen);

/* Decodes a whole PNG with libpng to 8-bit RGBA: 1-16 bits, grey, grey+alpha, palette (tRNS
   applied), RGB, RGBA, Adam7 interlaced; an embedded RGB ICC profile (iCCP) is converted to
   sRGB. CRC errors and truncation are errors (the zlib stream's Adler-32 is not checked: each IDAT
   chunk's CRC-32 already covers the compressed bytes). Once the last row is decoded the rest
   of the zlib stream is ignored, not inflated (at most 8 KiB of it already read is): the cost
   is bounded by the image's size, not the stream's. Refused before decoding when
   the header says more than max_pixels pixels (0: no cap). */
int ccodec_png_decode(const void *buf, size_t len, int64_t max_pixels, ccodec_image *out,
                      char *err, size_t errlen);

/* As ccodec_png_decode, into the caller's `dst` of exactly width * height * 4 bytes (from
   ccodec_png_probe): no second buffer and no copy. out->pixels is dst on success; never
   pass it to ccodec_free. A dstlen that does not match the header is CCODEC_CORRUPT. */
int ccodec_png_decode_into(const void *buf, size_t len, int64_t max_pixels, unsigned char *dst,
                           size_t dstlen, ccodec_image *out, char *err, size_t errlen);

/* Row-by-row PNG decoding (libpng, png_read_row), for a caller that resizes as rows
   arrive and never holds the whole image. ccodec_png_rows_open reads the header, applies the
   pixel cap, and checks every IDAT chunk whole and CRC-32 intact before any row. It returns
   NULL with *status CCODEC_OK when the image must be decoded whole instead (Adam7 interlaced,
   or an iCCP profile to convert: use ccodec_png_decode), NULL with CCODEC_TOO_MANY_PIXELS or
   CCODEC_CORRUPT (message in err) when it cannot be decoded. Rows are 8-bit RGBA (tRNS
   applied), width * 4 bytes, top to bottom; ccodec_png_rows_next fails with CCODEC_CORRUPT
   on damaged data and after the last row. */
typedef struct ccodec_png_rows ccodec_png_rows;
ccodec_png_rows *ccodec_png_rows_open(const void *buf, size_t len, int64_t max_pixels, int *width,
                                      int *height, int *status, char *err, size_t errlen);
int ccodec_png_rows_next(ccodec_png_rows *rows, unsigned char *row, size_t rowlen, char *err,
                         size_t errlen);
void ccodec_png_rows_close(ccodec_png_rows *rows);

/* Encodes opaque 8-bit RGBA pixels (width x height, row-major; the alpha byte is ignored) as a
   baseline JFIF JPEG with libjpeg-turbo's compressor: `quality` 1-100 (libjpeg's scaled
   standard tables), `subsample` 0 for 4:4:4 chroma or 1 for 4:2:0, `fast_dct` 1 for the fast
   integer forward DCT (JDCT_IFAST) or 0 for the accurate one (JDCT_ISLOW), Huffman tables
   the standard ones (no optimisation pass). *out is malloc'd (free it with ccodec_free),
   *out_len its bytes. Returns CCODEC_OK, or CCODEC_CORRUPT (libjpeg's error, out of memory,
   a side over 65,500 or not positive). */
int ccodec_jpeg_encode(const unsigned char *pixels, int width, int height, int quality,
                       int subsample, int fast_dct, unsigned char **out, size_t *out_len);

/* Frees ccodec_image.pixels. */
void ccodec_free(void *pixels);

#endif
