/* Embedded ICC profiles to sRGB through LittleCMS 2, and small shared helpers.
   LittleCMS is opened with dlopen at the first profile (liblcms2.so.2, Debian's liblcms2-2):
   most images carry none, and linking it cost every start its loading and about 300 symbol
   relocations. Without it a profile is not applied, as for a profile that does not open. */
#include "codecs.h"
#include <dlfcn.h>
#include <lcms2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The LittleCMS functions used here, looked up once (pthread_once); all NULL when the
   library or one of them is missing. */
static struct {
    __typeof__(&cmsSetLogErrorHandler) SetLogErrorHandler;
    __typeof__(&cmsOpenProfileFromMem) OpenProfileFromMem;
    __typeof__(&cmsGetColorSpace) GetColorSpace;
    __typeof__(&cmsCloseProfile) CloseProfile;
    __typeof__(&cmsCreate_sRGBProfile) Create_sRGBProfile;
    __typeof__(&cmsCreateTransform) CreateTransform;
    __typeof__(&cmsDoTransform) DoTransform;
    __typeof__(&cmsDeleteTransform) DeleteTransform;
} lcms;
static int lcms_ready;
static pthread_once_t lcms_once = PTHREAD_ONCE_INIT;

/* LittleCMS reports bad profiles through a global log handler; keep it off stderr (a
   profile that does not open is simply not applied). */
static void quiet(cmsContext id, cmsUInt32Number code, const char *text) {
    (void)id; (void)code; (void)text;
}

static void load_lcms(void) {
    void *h = dlopen("liblcms2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return;
#define LOOKUP(name) \
    if ((*(void **)&lcms.name = dlsym(h, "cms" #name)) == NULL) return;
    LOOKUP(SetLogErrorHandler)
    LOOKUP(OpenProfileFromMem)
    LOOKUP(GetColorSpace)
    LOOKUP(CloseProfile)
    LOOKUP(Create_sRGBProfile)
    LOOKUP(CreateTransform)
    LOOKUP(DoTransform)
    LOOKUP(DeleteTransform)
#undef LOOKUP
    lcms.SetLogErrorHandler(quiet);
    lcms_ready = 1;
}

int ccodec_icc_to_srgb(const unsigned char *icc, size_t icc_len, unsigned char *pixels,
                       size_t count, int cmyk) {
    if (icc == NULL || icc_len < 132 || count == 0) return 0;
    pthread_once(&lcms_once, load_lcms);
    if (!lcms_ready) return 0;
    cmsHPROFILE in = lcms.OpenProfileFromMem(icc, (cmsUInt32Number)icc_len);
    if (in == NULL) return 0;
    cmsColorSpaceSignature space = lcms.GetColorSpace(in);
    if ((cmyk && space != cmsSigCmykData) || (!cmyk && space != cmsSigRgbData)) {
        lcms.CloseProfile(in);
        return 0;
    }
    cmsHPROFILE srgb = lcms.Create_sRGBProfile();
    if (srgb == NULL) {
        lcms.CloseProfile(in);
        return 0;
    }
    /* RGBA in place: alpha is an extra channel that LittleCMS leaves as it is. CMYK: Adobe's
       inverted samples are TYPE_CMYK_8_REV (255 = no ink). Perceptual intent, as libvips's
       icc_import uses for thumbnails. */
    cmsUInt32Number in_format = cmyk ? (cmyk == 2 ? TYPE_CMYK_8_REV : TYPE_CMYK_8) : TYPE_RGBA_8;
    cmsHTRANSFORM t = lcms.CreateTransform(in, in_format, srgb, TYPE_RGBA_8, INTENT_PERCEPTUAL,
                                         cmsFLAGS_NOCACHE);
    lcms.CloseProfile(in);
    lcms.CloseProfile(srgb);
    if (t == NULL) return 0;
    if (cmyk) {
        /* 4 bytes in, 4 bytes out: convert in place, one row-sized chunk at a time, and set
           alpha (LittleCMS does not write the extra channel). */
        enum { CHUNK = 4096 };
        unsigned char tmp[CHUNK * 4];
        for (size_t i = 0; i < count; i += CHUNK) {
            size_t n = count - i < CHUNK ? count - i : CHUNK;
            memcpy(tmp, pixels + i * 4, n * 4);
            lcms.DoTransform(t, tmp, pixels + i * 4, (cmsUInt32Number)n);
            for (size_t k = 0; k < n; k++) pixels[(i + k) * 4 + 3] = 255;
        }
    } else {
        lcms.DoTransform(t, pixels, pixels, (cmsUInt32Number)count);
    }
    lcms.DeleteTransform(t);
    return 1;
}

void ccodec_set_error(char *err, size_t errlen, const char *text) {
    if (err == NULL || errlen == 0) return;
    snprintf(err, errlen, "%s", text ? text : "could not decode");
    size_t n = strlen(err);
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' ')) err[--n] = 0;
}

void ccodec_free(void *pixels) { free(pixels); }
