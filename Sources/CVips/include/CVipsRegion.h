#ifndef CVIPS_REGION_H
#define CVIPS_REGION_H
#include <stddef.h>
#include <stdint.h>

/* Region decoding for the full view's zoom and pan, kept apart from CVips.h's thumbnail path.
   Included at the end of CVips.h, after cvips_image. */

/* Decodes the part left, top, width x height (source pixels, EXIF orientation applied) of the
   `len` bytes at `buf`, shrunk on load by `shrink` (1, 2, 4 or 8: libjpeg's DCT scaling for JPEG,
   a box average after the decode for other formats), and resamples it to out_width x out_height
   pixels (Lanczos 3 when shrinking, nearest neighbour when enlarging, so pixels stay crisp
   past 1:1), as 8-bit sRGB RGBA, straight alpha. The region is clamped to the image. An image
   whose header says more than max_pixels pixels (0: no cap) is refused before decoding.
   Returns 0 with *out filled (source_width/height: the whole image's size), -1 with a message
   in err, -2 if refused for its pixel count. */
int cvips_region_rgba(const void *buf, size_t len, int shrink, int left, int top, int width, int height,
                      int out_width, int out_height, int64_t max_pixels, cvips_image *out, char *err, size_t errlen);

#endif
