/* cvips_region_rgba (include/CVipsRegion.h): a region of an image at a shrink-on-load factor,
   for the full view's zoom and pan. Separate from shim.c's thumbnail path. */
#include "CVips.h"
#include <vips/vips.h>
#include <stdio.h>
#include <string.h>

/* The process-wide error buffer's first line, then cleared (its text is only a hint). */
static void region_error(char *err, size_t errlen, const char *fallback) {
    if (err == NULL || errlen == 0) return;
    const char *text = vips_error_buffer();
    snprintf(err, errlen, "%s", (text && text[0]) ? text : fallback);
    char *nl = strchr(err, '\n');
    if (nl) *nl = 0;
    vips_error_clear();
}

/* Replaces *image with the result of an operation (unrefs the input); 0 on success. */
static int step(VipsImage **image, int rc, VipsImage *next) {
    if (rc != 0) return -1;
    g_object_unref(*image);
    *image = next;
    return 0;
}

int cvips_region_rgba(const void *buf, size_t len, int shrink, int left, int top, int width, int height,
                      int out_width, int out_height, int64_t max_pixels, cvips_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    int sw = 0, sh = 0;
    if (cvips_probe(buf, len, &sw, &sh, err, errlen) != 0) return -1;
    if (max_pixels > 0 && (int64_t)sw * (int64_t)sh > max_pixels) {
        snprintf(err, errlen, "%d x %d pixels is over the limit of %lld", sw, sh, (long long)max_pixels);
        return -2;
    }
    if (shrink != 2 && shrink != 4 && shrink != 8) shrink = 1;
    if (out_width < 1) out_width = 1;
    if (out_height < 1) out_height = 1;
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) vips_error_clear();
    int jpeg = loader != NULL && g_str_has_prefix(loader, "VipsForeignLoadJpeg");
    char options[64];
    /* Random access: autorot of a rotated JPEG fails "out of order read" with sequential. */
    if (jpeg && shrink > 1) snprintf(options, sizeof options, "shrink=%d,fail_on=truncated", shrink);
    else snprintf(options, sizeof options, "fail_on=truncated");
    VipsImage *image = vips_image_new_from_buffer(buf, len, options, "access", VIPS_ACCESS_RANDOM, NULL);
    if (image == NULL) { region_error(err, errlen, "could not decode"); return -1; }
    VipsImage *next = NULL;
    if (step(&image, vips_autorot(image, &next, NULL), next) != 0) goto fail;
    if (!jpeg && shrink > 1) {
        if (step(&image, vips_shrink(image, &next, (double)shrink, (double)shrink, NULL), next) != 0) goto fail;
    }
    /* The factor actually applied (JPEG's DCT scaling rounds sizes up). */
    double fx = (double)sw / vips_image_get_width(image);
    double fy = (double)sh / vips_image_get_height(image);
    int iw = vips_image_get_width(image), ih = vips_image_get_height(image);
    int l = (int)(left / fx), t = (int)(top / fy);
    int w = (int)(width / fx + 0.5), h = (int)(height / fy + 0.5);
    if (l < 0) l = 0;
    if (t < 0) t = 0;
    if (l > iw - 1) l = iw - 1;
    if (t > ih - 1) t = ih - 1;
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    if (l + w > iw) w = iw - l;
    if (t + h > ih) h = ih - t;
    if (l != 0 || t != 0 || w != iw || h != ih) {
        if (step(&image, vips_extract_area(image, &next, l, t, w, h, NULL), next) != 0) goto fail;
    }
    if (w != out_width || h != out_height) {
        double hs = (double)out_width / w, vs = (double)out_height / h;
        VipsKernel kernel = (hs > 1 || vs > 1) ? VIPS_KERNEL_NEAREST : VIPS_KERNEL_LANCZOS3;
        if (step(&image, vips_resize(image, &next, hs, "vscale", vs, "kernel", kernel, NULL), next) != 0) goto fail;
    }
    if (step(&image, vips_colourspace(image, &next, VIPS_INTERPRETATION_sRGB, NULL), next) != 0) goto fail;
    if (vips_image_get_format(image) != VIPS_FORMAT_UCHAR) {
        if (step(&image, vips_cast_uchar(image, &next, NULL), next) != 0) goto fail;
    }
    int bands = vips_image_get_bands(image);
    if (bands > 4 || bands == 2 || bands == 1) {
        /* sRGB conversion gives 3 or 4 bands; keep the first 3 (or 4) of anything else. */
        if (bands < 3) goto fail;
        if (step(&image, vips_extract_band(image, &next, 0, "n", 4, NULL), next) != 0) goto fail;
        bands = 4;
    }
    if (bands == 3) {
        if (step(&image, vips_bandjoin_const1(image, &next, 255.0, NULL), next) != 0) goto fail;
    }
    size_t size = 0;
    void *pixels = vips_image_write_to_memory(image, &size);
    int ow = vips_image_get_width(image), oh = vips_image_get_height(image);
    g_object_unref(image);
    if (pixels == NULL) { region_error(err, errlen, "could not decode"); return -1; }
    if (size != (size_t)ow * (size_t)oh * 4) {
        g_free(pixels);
        snprintf(err, errlen, "decoder returned %zu bytes for %d x %d", size, ow, oh);
        return -1;
    }
    out->pixels = pixels;
    out->length = size;
    out->width = ow;
    out->height = oh;
    out->source_width = sw;
    out->source_height = sh;
    return 0;
fail:
    g_object_unref(image);
    region_error(err, errlen, "could not decode the region");
    return -1;
}
