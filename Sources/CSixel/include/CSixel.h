#ifndef CSIXEL_H
#define CSIXEL_H
/* The sixel encoder: libsixel (Debian libsixel1, headers from libsixel-dev), opened with dlopen
   ($VITRINE_LIBSIXEL when set and not empty, else libsixel.so.1) at the first encode, so that a
   start-up that draws no sixel (every `render` in half blocks, every browser session on a
   terminal without sixel) does not load and relocate it. */
#include <stddef.h>

/** Receives the encoder's output: `size` bytes at `data`; returns `size`. */
typedef int (*csixel_write_function)(char *data, int size, void *priv);

/** What `csixel_encode` returns. */
enum {
    CSIXEL_OK = 0,
    /** libsixel.so.1 (or one of the functions used) is not installed. */
    CSIXEL_UNAVAILABLE = 1,
    /** libsixel failed (out of memory, bad arguments). */
    CSIXEL_FAILED = 2,
};

/**
 * `rgb` (width x height pixels, 3 bytes each, rows packed, top first) as one complete sixel
 * sequence (DCS ... q ... ST, 7-bit) handed to `write` in pieces: a palette of up to `colors`
 * (1-256) chosen by libsixel's median cut ("auto" largest-dimension and representative-colour
 * methods, auto quality) and Atkinson error diffusion. `rgb` is read and may be modified by the
 * dither. Thread-safe: the library is opened once (pthread_once); each call has its own dither
 * and output objects.
 */
int csixel_encode(unsigned char *rgb, int width, int height, int colors,
                  csixel_write_function write, void *priv);

/**
 * The palette libsixel's median cut chooses for `rgb` (as csixel_encode's: up to `colors`, 1-256,
 * auto methods and quality), written to `palette` (room for 3 x `colors` bytes, R G B each) for
 * an encoder of Vitrine's own that maps later pictures to it. Returns the number of colours, 0
 * when libsixel is missing or fails. `rgb` may be modified. Thread-safe as csixel_encode.
 */
int csixel_palette(unsigned char *rgb, int width, int height, int colors, unsigned char *palette);

/**
 * NULL when libsixel is loaded (opening it first if no encode has), else why it is not: the
 * dlopen error or the missing symbol, a static string of at most 255 bytes.
 */
const char *csixel_unavailable_reason(void);

#endif
