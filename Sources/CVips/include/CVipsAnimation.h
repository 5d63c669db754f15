#ifndef CVIPS_ANIMATION_H
#define CVIPS_ANIMATION_H
#include <stddef.h>
#include <stdint.h>

/* Animated GIF and WebP for the full view, kept apart from CVips.h's thumbnail path. */

/* The frames of an animation, as libvips composites them (loaded with n=-1: each frame is the
   whole canvas after the previous frames' disposal, so disposal is libvips's, i.e. libnsgif's
   and libwebp's demux). */
typedef struct {
    unsigned char *pixels;   /* frame_count frames of width x height 8-bit sRGB RGBA (straight
                                alpha), one after another; free with cvips_free */
    size_t length;           /* bytes: frame_count * width * height * 4 */
    int width;               /* one frame, in pixels, after shrink (never enlarged) */
    int height;
    int frame_count;         /* frames kept: every step-th frame of the file, from the first */
    int step;                /* 1: every frame; k: frames 0, k, 2k, ... (over the byte cap) */
    int source_width;        /* one frame of the file, in pixels */
    int source_height;
    int source_frames;       /* frames in the file */
    int loop;                /* times to play, 0: forever (the file's "loop") */
    int *delays;             /* source_frames delays in ms as the file gives them (libvips's
                                "delay", else "gif-delay" x 10, else 100); free with cvips_free */
} cvips_animation;

/* Decodes every frame of an animated GIF or WebP in the `len` bytes at `buf`, each fitted to
   max_width x max_height pixels with the aspect kept and never enlarged (WebP shrinks on load
   with libwebp's scaling; GIF has no shrink-on-load and is resized by libvips's Lanczos 3 per
   frame). At most max_bytes bytes of frames are kept: when all frames at that size need more,
   only every step-th frame is kept (the caller sums the delays of the frames each stands for).
   Frames are taken one at a time from a sequential load, so the whole animation at full size
   never exists in memory.
   Returns 0 with *out filled; 1 when the bytes are not an animation (not GIF or WebP, one
   frame, frames of different sizes) or when all frames together have more than max_pixels
   source pixels (0: no cap): nothing is allocated, and the caller decodes a still image; -1
   with a message in err; CVIPS_UNSUPPORTED or CVIPS_UNAVAILABLE as cvips_probe. */
int cvips_animation_rgba(const void *buf, size_t len, int max_width, int max_height, int64_t max_pixels,
                         int64_t max_bytes, cvips_animation *out, char *err, size_t errlen);

#endif
