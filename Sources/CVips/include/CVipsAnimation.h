#ifndef CVIPS_ANIMATION_H
#define CVIPS_ANIMATION_H
#include <stddef.h>
#include <stdint.h>

/* Animated GIF and WebP for the full view, kept apart from CVips.h's thumbnail path. */

/* An open animation: frames are decoded one at a time by cvips_animation_next. */
typedef struct cvips_animation_decoder cvips_animation_decoder;

/* What cvips_animation_open learns from the header, before any frame is decoded. Each frame
   is the whole canvas after the previous frames' disposal (libvips loads with n=-1 and
   composites, so disposal is libvips's, i.e. libnsgif's and libwebp's demux). */
typedef struct {
    int width;               /* one frame, in pixels, after shrink (never enlarged) */
    int height;
    int frame_count;         /* frames kept: every step-th frame of the file, from the first */
    int step;                /* 1: every frame; k: frames 0, k, 2k, ... (over the byte cap) */
    int source_width;        /* one frame of the file, in pixels */
    int source_height;
    int source_frames;       /* frames in the file */
    int loop;                /* times to play, 0: forever (the file's "loop") */
    const int *delays;       /* source_frames delays in ms as the file gives them (libvips's
                                "delay", else "gif-delay" x 10, else 100); owned by the
                                decoder, valid until cvips_animation_close */
} cvips_animation_info;

/* Opens the animated GIF or WebP in the `len` bytes at `buf` (which must stay valid and
   unchanged until cvips_animation_close) for frames fitted to max_width x max_height pixels,
   aspect kept, never enlarged (WebP shrinks on load with libwebp's scaling; GIF has no
   shrink-on-load and is resized by libvips's Lanczos 3 per frame). At most max_bytes bytes of
   frames are to be kept: when all frames at that size need more, only every step-th frame is
   kept (the caller sums the delays of the frames each stands for). Reads the headers only.
   Returns 0 with *out and *info filled; 1 when the bytes are not an animation (not GIF or
   WebP, one frame, frames of different sizes) or when all frames together have more than
   max_pixels source pixels (0: no cap): nothing is allocated, and the caller decodes a still
   image; -1 with a message in err; CVIPS_UNSUPPORTED or CVIPS_UNAVAILABLE as cvips_probe. */
int cvips_animation_open(const void *buf, size_t len, int max_width, int max_height, int64_t max_pixels,
                         int64_t max_bytes, cvips_animation_decoder **out, cvips_animation_info *info, char *err,
                         size_t errlen);

/* Decodes the next kept frame (0, step, 2 step, ... in order: a sequential load, so the whole
   animation at full size never exists in memory) into `dest`, width x height 8-bit sRGB RGBA
   (straight alpha), width * height * 4 bytes. Returns 0, or -1 with a message in err (a broken
   frame, or none left). Not thread-safe for one decoder; decoders are independent. */
int cvips_animation_next(cvips_animation_decoder *d, unsigned char *dest, char *err, size_t errlen);

/* Frees the decoder and its delays (NULL: nothing). */
void cvips_animation_close(cvips_animation_decoder *d);

#endif
