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

struct jpeg_decompress_struct;

/* Whether a JPEG whose header has been read can take ccodec_jpeg_blocks_decode: 8-bit,
   sequential, all components in the first scan, greyscale or YCbCr with the luma at the
   largest sampling and the chroma at full or half resolution on each axis. */
int ccodec_jpeg_blocks_eligible(struct jpeg_decompress_struct *cinfo);

/* The 1/8-scale picture from the coefficients (jpeg_blocks.c): after jpeg_read_header on an
   eligible file, reads it whole with jpeg_read_coefficients through a memory manager that
   keeps one iMCU row, and writes RGBA (8-bit sRGB, alpha 255), *width x *height pixels (one
   per luma block: cinfo->comp_info[0].width_in_blocks x height_in_blocks, which are
   ceil(image side / 8); `pixels` must hold that many), into `pixels`. With use_sigma each
   pixel is the sRGB code of its block's estimated linear-light mean, (f(c - s) + f(c + s)) / 2
   per channel with s the luma block's deviation; without, the block's mean as libjpeg's own
   1/8 decode gives it (within 1). Returns 0, or 1 when a row came twice: then `pixels` is
   not written and the caller decodes the file another way (a guard: libjpeg itself fails a
   second scan after one that held every component, "Didn't expect more than one scan"). Errors go to cinfo->err's error_exit, as for any jpeglib call. */
int ccodec_jpeg_blocks_decode(struct jpeg_decompress_struct *cinfo, int use_sigma, unsigned char *pixels,
                              unsigned *width, unsigned *height);

/* Writes `fallback` or `text` into err. */
void ccodec_set_error(char *err, size_t errlen, const char *text);
#endif
