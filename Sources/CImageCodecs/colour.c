/* Embedded ICC profiles to sRGB through LittleCMS 2, and small shared helpers. */
#include "codecs.h"
#include <lcms2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

/* LittleCMS reports bad profiles through a global log handler; keep it off stderr (a
   profile that does not open is simply not applied). */
static void quiet(cmsContext id, cmsUInt32Number code, const char *text) {
    (void)id; (void)code; (void)text;
}

static void install_quiet(void) { cmsSetLogErrorHandler(quiet); }

int ccodec_icc_to_srgb(const unsigned char *icc, size_t icc_len, unsigned char *pixels,
                       size_t count, int cmyk) {
    if (icc == NULL || icc_len < 132 || count == 0) return 0;
    pthread_once(&quiet_once, install_quiet);
    cmsHPROFILE in = cmsOpenProfileFromMem(icc, (cmsUInt32Number)icc_len);
    if (in == NULL) return 0;
    cmsColorSpaceSignature space = cmsGetColorSpace(in);
    if ((cmyk && space != cmsSigCmykData) || (!cmyk && space != cmsSigRgbData)) {
        cmsCloseProfile(in);
        return 0;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    if (srgb == NULL) {
        cmsCloseProfile(in);
        return 0;
    }
    /* RGBA in place: alpha is an extra channel that LittleCMS leaves as it is. CMYK: Adobe's
       inverted samples are TYPE_CMYK_8_REV (255 = no ink). Perceptual intent, as libvips's
       icc_import uses for thumbnails. */
    cmsUInt32Number in_format = cmyk ? (cmyk == 2 ? TYPE_CMYK_8_REV : TYPE_CMYK_8) : TYPE_RGBA_8;
    cmsHTRANSFORM t = cmsCreateTransform(in, in_format, srgb, TYPE_RGBA_8, INTENT_PERCEPTUAL,
                                         cmsFLAGS_NOCACHE);
    cmsCloseProfile(in);
    cmsCloseProfile(srgb);
    if (t == NULL) return 0;
    if (cmyk) {
        /* 4 bytes in, 4 bytes out: convert in place, one row-sized chunk at a time, and set
           alpha (LittleCMS does not write the extra channel). */
        enum { CHUNK = 4096 };
        unsigned char tmp[CHUNK * 4];
        for (size_t i = 0; i < count; i += CHUNK) {
            size_t n = count - i < CHUNK ? count - i : CHUNK;
            memcpy(tmp, pixels + i * 4, n * 4);
            cmsDoTransform(t, tmp, pixels + i * 4, (cmsUInt32Number)n);
            for (size_t k = 0; k < n; k++) pixels[(i + k) * 4 + 3] = 255;
        }
    } else {
        cmsDoTransform(t, pixels, pixels, (cmsUInt32Number)count);
    }
    cmsDeleteTransform(t);
    return 1;
}

void ccodec_set_error(char *err, size_t errlen, const char *text) {
    if (err == NULL || errlen == 0) return;
    snprintf(err, errlen, "%s", text ? text : "could not decode");
    size_t n = strlen(err);
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' ')) err[--n] = 0;
}

void ccodec_free(void *pixels) { free(pixels); }
