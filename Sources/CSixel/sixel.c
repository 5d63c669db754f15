/* libsixel through dlopen (see include/CSixel.h). The functions used are looked up once; all
   NULL, and every encode CSIXEL_UNAVAILABLE, when the library or one of them is missing. */
#include "CSixel.h"
#include <dlfcn.h>
#include <pthread.h>
#include <sixel/sixel.h>
#include <stdio.h>

static struct {
    __typeof__(&sixel_output_new) output_new;
    __typeof__(&sixel_output_unref) output_unref;
    __typeof__(&sixel_dither_new) dither_new;
    __typeof__(&sixel_dither_unref) dither_unref;
    __typeof__(&sixel_dither_set_diffusion_type) dither_set_diffusion_type;
    __typeof__(&sixel_dither_initialize) dither_initialize;
    __typeof__(&sixel_encode) encode;
} lib;
static int lib_ready;
static char unavailable[256];
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void load_sixel(void) {
    void *h = dlopen("libsixel.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        snprintf(unavailable, sizeof unavailable, "%s", why ? why : "libsixel.so.1: cannot open");
        return;
    }
#define LOOKUP(field, name) \
    if ((*(void **)&lib.field = dlsym(h, #name)) == NULL) { \
        snprintf(unavailable, sizeof unavailable, "libsixel.so.1: no symbol %s", #name); \
        return; \
    }
    LOOKUP(output_new, sixel_output_new)
    LOOKUP(output_unref, sixel_output_unref)
    LOOKUP(dither_new, sixel_dither_new)
    LOOKUP(dither_unref, sixel_dither_unref)
    LOOKUP(dither_set_diffusion_type, sixel_dither_set_diffusion_type)
    LOOKUP(dither_initialize, sixel_dither_initialize)
    LOOKUP(encode, sixel_encode)
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

const char *csixel_unavailable_reason(void) {
    pthread_once(&lib_once, load_sixel);
    return lib_ready ? NULL : unavailable;
}
