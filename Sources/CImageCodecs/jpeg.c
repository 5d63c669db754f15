/* JPEG through libjpeg-turbo's jpeglib API. Errors arrive through error_exit, which must not
   return: it longjmps back here, which is why this lives in C and not in Swift. */
#include "codecs.h"
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} error_mgr;

static void on_error(j_common_ptr cinfo) {
    error_mgr *e = (error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}

/* Warnings are kept off stderr. Running out of data is fatal: jpeg_mem_src would otherwise
   pad the image with a fake EOI and hand back grey rows. */
static void on_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) on_error(cinfo);
    cinfo->err->num_warnings++;
}

static void quiet_output(j_common_ptr cinfo) { (void)cinfo; }

static void start(struct jpeg_decompress_struct *cinfo, error_mgr *jerr, const void *buf, size_t len) {
    cinfo->err = jpeg_std_error(&jerr->pub);
    jerr->pub.error_exit = on_error;
    jerr->pub.emit_message = on_message;
    jerr->pub.output_message = quiet_output;
    jerr->message[0] = 0;
    jpeg_create_decompress(cinfo);
    jpeg_mem_src(cinfo, (const unsigned char *)buf, (unsigned long)len);
}

static int orientation_of(struct jpeg_decompress_struct *cinfo) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m != NULL; m = m->next) {
        if (m->marker == JPEG_APP0 + 1) {
            int o = ccodec_exif_orientation(m->data, m->data_length);
            if (o != 1) return o;
        }
    }
    return 1;
}

int ccodec_jpeg_probe(const void *buf, size_t len, int *width, int *height, char *err, size_t errlen) {
    /* jpeg_mem_src fails on no bytes, before the setjmp below could catch it. */
    if (len == 0) {
        ccodec_set_error(err, errlen, "empty file");
        return CCODEC_CORRUPT;
    }
    struct jpeg_decompress_struct cinfo;
    error_mgr jerr;
    start(&cinfo, &jerr, buf, len);
    if (setjmp(jerr.jump)) {
        ccodec_set_error(err, errlen, jerr.message[0] ? jerr.message : "not a JPEG");
        jpeg_destroy_decompress(&cinfo);
        return CCODEC_CORRUPT;
    }
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    int o = orientation_of(&cinfo);
    int w = (int)cinfo.image_width, h = (int)cinfo.image_height;
    *width = o >= 5 ? h : w;
    *height = o >= 5 ? w : h;
    jpeg_destroy_decompress(&cinfo);
    return CCODEC_OK;
}

/* The smallest scale n/8 (n = 1...8) whose output, ceil(side * n / 8) as libjpeg computes
   it, is at least `need` on both sides. */
static int scale_for(unsigned w, unsigned h, int need_w, int need_h) {
    if (need_w <= 0 || need_h <= 0) return 8;
    for (int n = 1; n < 8; n++) {
        unsigned sw = (w * (unsigned)n + 7) / 8, sh = (h * (unsigned)n + 7) / 8;
        if ((int)sw >= need_w && (int)sh >= need_h) return n;
    }
    return 8;
}

int ccodec_jpeg_decode(const void *buf, size_t len, int need_width, int need_height,
                       int64_t max_pixels, ccodec_image *out, char *err, size_t errlen) {
    return ccodec_jpeg_decode_flags(buf, len, need_width, need_height, max_pixels, 0, out, err, errlen);
}

int ccodec_jpeg_decode_flags(const void *buf, size_t len, int need_width, int need_height,
                             int64_t max_pixels, int flags, ccodec_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (len == 0) {
        ccodec_set_error(err, errlen, "empty file");
        return CCODEC_CORRUPT;
    }
    struct jpeg_decompress_struct cinfo;
    error_mgr jerr;
    /* volatile: changed after setjmp and read after a longjmp. */
    unsigned char *volatile pixels = NULL;
    JOCTET *volatile icc = NULL;
    start(&cinfo, &jerr, buf, len);
    if (setjmp(jerr.jump)) {
        ccodec_set_error(err, errlen, jerr.message[0] ? jerr.message : "could not decode JPEG");
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        free(icc);
        return CCODEC_CORRUPT;
    }
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);  /* EXIF */
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);  /* ICC profile, in chunks */
    jpeg_read_header(&cinfo, TRUE);
    int orientation = orientation_of(&cinfo);
    unsigned iw = cinfo.image_width, ih = cinfo.image_height;
    int swap = orientation >= 5;
    out->source_width = (int)(swap ? ih : iw);
    out->source_height = (int)(swap ? iw : ih);
    if (max_pixels > 0 && (int64_t)iw * (int64_t)ih > max_pixels) {
        snprintf(err, errlen, "%u x %u pixels is over the limit of %lld", iw, ih, (long long)max_pixels);
        jpeg_destroy_decompress(&cinfo);
        return CCODEC_TOO_MANY_PIXELS;
    }
    unsigned int icc_len = 0;
    JOCTET *icc_data = NULL;
    if (jpeg_read_icc_profile(&cinfo, &icc_data, &icc_len)) icc = icc_data;

    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    int inverted = cmyk && cinfo.saw_Adobe_marker;
    int n = scale_for(iw, ih, swap ? need_height : need_width, swap ? need_width : need_height);
    unsigned ow, oh;
    int blocks = 0;
    if (n == 1 && (flags & (CCODEC_JPEG_BLOCK_VARIANCE | CCODEC_JPEG_BLOCK_MEANS)) &&
        ccodec_jpeg_blocks_eligible(&cinfo)) {
        /* The 1/8 picture from the coefficients, with each block's deviation (jpeg_blocks.c). */
        ow = cinfo.comp_info[0].width_in_blocks;
        oh = cinfo.comp_info[0].height_in_blocks;
        pixels = malloc((size_t)ow * 4 * oh);
        if (pixels == NULL) {
            ccodec_set_error(err, errlen, "out of memory");
            jpeg_destroy_decompress(&cinfo);
            free(icc);
            return CCODEC_CORRUPT;
        }
        int use_sigma = (flags & CCODEC_JPEG_BLOCK_VARIANCE) != 0;
        if (ccodec_jpeg_blocks_decode(&cinfo, use_sigma, pixels, &ow, &oh) != 0) {
            /* Rows came twice (more scans than the first announced): decode it as before. */
            jpeg_destroy_decompress(&cinfo);
            free(pixels);
            free(icc);
            return ccodec_jpeg_decode_flags(buf, len, need_width, need_height, max_pixels, 0, out, err, errlen);
        }
        jpeg_finish_decompress(&cinfo);
        jpeg_destroy_decompress(&cinfo);
        blocks = 1;
    } else {
        cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
        cinfo.scale_num = (unsigned)n;
        cinfo.scale_denom = 8;
        /* The quality a thumbnail needs: the accurate integer IDCT and fancy upsampling are
           libjpeg-turbo's defaults; keep them. */
        jpeg_start_decompress(&cinfo);
        ow = cinfo.output_width;
        oh = cinfo.output_height;
        if (cinfo.output_components != 4 || ow == 0 || oh == 0) {
            ccodec_set_error(err, errlen, "unsupported JPEG layout");
            jpeg_destroy_decompress(&cinfo);
            free(icc);
            return CCODEC_CORRUPT;
        }
        size_t stride = (size_t)ow * 4;
        pixels = malloc(stride * oh);
        if (pixels == NULL) {
            ccodec_set_error(err, errlen, "out of memory");
            jpeg_destroy_decompress(&cinfo);
            free(icc);
            return CCODEC_CORRUPT;
        }
        while (cinfo.output_scanline < oh) {
            JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
            jpeg_read_scanlines(&cinfo, &row, 1);
        }
        jpeg_finish_decompress(&cinfo);
        jpeg_destroy_decompress(&cinfo);
    }

    size_t count = (size_t)ow * oh;
    int converted = 0;
    if (icc != NULL) converted = ccodec_icc_to_srgb(icc, icc_len, pixels, count, cmyk ? (inverted ? 2 : 1) : 0);
    free(icc);
    if (cmyk && !converted) {
        /* No usable profile: the naive conversion, R = (1 - C)(1 - K). Adobe's inverted CMYK
           stores 255 - ink, so there R = C' K' / 255. */
        unsigned char *p = pixels;
        for (size_t i = 0; i < count; i++, p += 4) {
            unsigned c = p[0], m = p[1], y = p[2], k = p[3];
            if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
            p[0] = (unsigned char)((c * k + 127) / 255);
            p[1] = (unsigned char)((m * k + 127) / 255);
            p[2] = (unsigned char)((y * k + 127) / 255);
            p[3] = 255;
        }
    }
    int w = (int)ow, h = (int)oh;
    unsigned char *result = pixels;
    if (orientation != 1 && ccodec_orient(&result, &w, &h, orientation) != 0) {
        free(result);
        ccodec_set_error(err, errlen, "out of memory");
        return CCODEC_CORRUPT;
    }
    out->pixels = result;
    out->length = (size_t)w * (size_t)h * 4;
    out->width = w;
    out->height = h;
    out->scale_eighths = n;
    out->icc_applied = converted;
    out->block_variance = blocks;
    return CCODEC_OK;
}
