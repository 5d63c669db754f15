/* libsixel through dlopen (see include/CSixel.h). The functions used are looked up once; all
   NULL, and every encode CSIXEL_UNAVAILABLE, when the library or one of them is missing. */
#include "CSixel.h"
#include <dlfcn.h>
#include <pthread.h>
#include <sixel/sixel.h>
#include <stdio.h>
#include <stdlib.h>

static struct {
    __typeof__(&sixel_output_new) output_new;
    __typeof__(&sixel_output_unref) output_unref;
    __typeof__(&sixel_dither_new) dither_new;
    __typeof__(&sixel_dither_unref) dither_unref;
    __typeof__(&sixel_dither_set_diffusion_type) dither_set_diffusion_type;
    __typeof__(&sixel_dither_initialize) dither_initialize;
    __typeof__(&sixel_encode) encode;
    __typeof__(&sixel_dither_get_palette) dither_get_palette;
    __typeof__(&sixel_dither_get_num_of_palette_colors) dither_get_num_of_palette_colors;
} lib;
static int lib_ready;
static char unavailable[256];
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* $VITRINE_LIBSIXEL when set and not empty (the tests point it at a missing file), else
   Debian's soname. */
static void load_sixel(void) {
    const char *file = getenv("VITRINE_LIBSIXEL");
    if (file == NULL || file[0] == 0) file = "libsixel.so.1";
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        snprintf(unavailable, sizeof unavailable, "%s", why ? why : file);
        return;
    }
#define LOOKUP(field, name) \
    if ((*(void **)&lib.field = dlsym(h, #name)) == NULL) { \
        snprintf(unavailable, sizeof unavailable, "%s: no symbol %s", file, #name); \
        return; \
    }
    LOOKUP(output_new, sixel_output_new)
    LOOKUP(output_unref, sixel_output_unref)
    LOOKUP(dither_new, sixel_dither_new)
    LOOKUP(dither_unref, sixel_dither_unref)
    LOOKUP(dither_set_diffusion_type, sixel_dither_set_diffusion_type)
    LOOKUP(dither_initialize, sixel_dither_initialize)
    LOOKUP(encode, sixel_encode)
    LOOKUP(dither_get_palette, sixel_dither_get_palette)
    LOOKUP(dither_get_num_of_palette_colors, sixel_dither_get_num_of_palette_colors)
#undef LOOKUP
    lib_ready = 1;
}

int csixel_encode(unsigned char *rgb, int width, int height, int colors,
                  csixel_write_function write, void *priv) {
    pthread_once(&lib_once, load_sixel);
    if (!lib_ready) return CSIXEL_UNAVAILABLE;
    if (rgb == NULL || width <= 0 || height <= 0 || write == NULL) return CSIXEL_FAILED;
    sixel_output_t *output = NULL;
    if (lib.output_new(&output, write, priv, NULL) != SIXEL_OK || output == NULL) return CSIXEL_FAILED;
    sixel_dither_t *dither = NULL;
    if (lib.dither_new(&dither, colors, NULL) != SIXEL_OK || dither == NULL) {
        lib.output_unref(output);
        return CSIXEL_FAILED;
    }
    lib.dither_set_diffusion_type(dither, SIXEL_DIFFUSE_ATKINSON);
    SIXELSTATUS status = lib.dither_initialize(dither, rgb, width, height, SIXEL_PIXELFORMAT_RGB888,
                                               SIXEL_LARGE_AUTO, SIXEL_REP_AUTO, SIXEL_QUALITY_AUTO);
    if (status == SIXEL_OK) status = lib.encode(rgb, width, height, 0, dither, output);
    lib.dither_unref(dither);
    lib.output_unref(output);
    return status == SIXEL_OK ? CSIXEL_OK : CSIXEL_FAILED;
}

int csixel_palette(unsigned char *rgb, int width, int height, int colors, unsigned char *palette) {
    pthread_once(&lib_once, load_sixel);
    if (!lib_ready || rgb == NULL || palette == NULL || width <= 0 || height <= 0) return 0;
    if (colors < 1) colors = 1;
    if (colors > 256) colors = 256;
    sixel_dither_t *dither = NULL;
    if (lib.dither_new(&dither, colors, NULL) != SIXEL_OK || dither == NULL) return 0;
    int count = 0;
    if (lib.dither_initialize(dither, rgb, width, height, SIXEL_PIXELFORMAT_RGB888, SIXEL_LARGE_AUTO,
                              SIXEL_REP_AUTO, SIXEL_QUALITY_AUTO) == SIXEL_OK) {
        unsigned char *chosen = lib.dither_get_palette(dither);
        count = lib.dither_get_num_of_palette_colors(dither);
        if (chosen == NULL || count < 1) count = 0;
        if (count > colors) count = colors;
        for (int i = 0; i < count * 3; i++) palette[i] = chosen[i];
    }
    lib.dither_unref(dither);
    return count;
}

const char *csixel_unavailable_reason(void) {
    pthread_once(&lib_once, load_sixel);
    return lib_ready ? NULL : unavailable;
}
