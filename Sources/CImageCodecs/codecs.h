#ifndef CCODECS_INTERNAL_H
#define CCODECS_INTERNAL_H
#include "CImageCodecs.h"
#include <stddef.h>

/* Internal helpers shared by the decoders. */

/* The EXIF orientation (1-8) in an APP1 payload that starts "Exif\0\0", or 1. */
int ccodec_exif_orientation(const unsigned char *data, size_t len);

/* Applies `orientation` (2-8) to RGBA `*pixels` (width x height), replacing the buffer and
   swapping width/height for 5-8. Returns 0, or -1 when out of memory. */
int ccodec_orient(unsigned char **pixels, int *width, int *height, int orientation);

/* Converts `count` pixels in place with the ICC profile `icc`: RGBA8 (alpha kept) when
   `cmyk` is 0; when `cmyk` is 1 or 2 (2: Adobe inverted) reads 4-byte CMYK and writes RGBA.
   Returns 1 when converted, 0 when the profile was unusable (pixels untouched for RGB). */
int ccodec_icc_to_srgb(const unsigned char *icc, size_t icc_len, unsigned char *pixels,
                       size_t count, int cmyk);

/* Writes `fallback` or `text` into err. */
void ccodec_set_error(char *err, size_t errlen, const char *text);
#endif
