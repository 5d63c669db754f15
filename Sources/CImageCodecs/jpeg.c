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

/* Only the error manager: nothing here can fail. Creating the decompressor and attaching the
   buffer come after the caller's setjmp (`open_source`), because both can raise an error
   (jpeg_mem_src refuses an empty buffer) and an error before setjmp would longjmp through an
   unset jmp_buf. The zeroed struct makes jpeg_destroy_decompress safe on every path. */
static void start(struct jpeg_decompress_struct *cinfo, error_mgr *jerr) {
    memset(cinfo, 0, sizeof *cinfo);
    cinfo->err = jpeg_std_error(&jerr->pub);
    jerr->pub.error_exit = on_error;
    jerr->pub.emit_message = on_message;
    jerr->pub.output_message = quiet_output;
    jerr->message[0] = 0;
}

static void open_source(struct jpeg_decompress_struct *cinfo, const void *buf, size_t len) {
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
    start(&cinfo, &jerr);
    if (setjmp(jerr.jump)) {
        ccodec_set_error(err, errlen, jerr.message[0] ? jerr.message : "not a JPEG");
        jpeg_destroy_decompress(&cinfo);
        return CCODEC_CORRUPT;
    }
    open_source(&cinfo, buf, len);
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
    start(&cinfo, &jerr);
    if (setjmp(jerr.jump)) {
        ccodec_set_error(err, errlen, jerr.message[0] ? jerr.message : "could not decode JPEG");
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        free(icc);
        return CCODEC_CORRUPT;
    }
    open_source(&cinfo, buf, len);
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

/* Compressor errors: as the decoder's, a longjmp back to ccodec_jpeg_encode. The output
   buffer is ours from the start, 4 bytes a pixel and 64 KiB: more than a JPEG of the picture
   needs below quality 100 (a pan step at 90 is 0.1-0.4 bytes a pixel); random noise at 100,
   4:4:4 measured 4.1, and past the buffer jpeg_mem_dest moves the output to a larger one of its
   own (malloc'd: returned instead, ours freed). An error frees ours; one raised after such a
   move would leave libjpeg's copy unfreed (only out of memory can raise one mid-way). */
int ccodec_jpeg_encode(const unsigned char *pixels, int width, int height, int quality,
                       int subsample, int fast_dct, unsigned char **out, size_t *out_len) {
    *out = NULL;
    *out_len = 0;
    if (pixels == NULL || width <= 0 || height <= 0 || width > 65500 || height > 65500) return CCODEC_CORRUPT;
    struct jpeg_compress_struct cinfo;
    error_mgr jerr;
    unsigned long capacity = (unsigned long)width * (unsigned long)height * 4 + 65536;
    unsigned char *const buffer = malloc(capacity);
    if (buffer == NULL) return CCODEC_CORRUPT;
    unsigned long length = capacity;
    /* As the decoder's: the struct zeroed and the error manager set before setjmp, the
       compressor created after it (its creation can raise an error too), so every error path
       longjmps to a set jmp_buf and jpeg_destroy_compress is safe on each. */
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&jerr.pub);
    jerr.pub.error_exit = on_error;
    jerr.pub.emit_message = on_message;
    jerr.pub.output_message = quiet_output;
    jerr.message[0] = 0;
    unsigned char *target = buffer;
    if (setjmp(jerr.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return CCODEC_CORRUPT;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &target, &length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBX; /* the alpha byte is skipped: callers send opaque pixels */
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    cinfo.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
    /* 4:4:4 (every component 1x1) or libjpeg's default 4:2:0 (luma 2x2). */
    if (!subsample) {
        for (int c = 0; c < cinfo.num_components; c++) {
            cinfo.comp_info[c].h_samp_factor = 1;
            cinfo.comp_info[c].v_samp_factor = 1;
        }
    }
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * 4;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    if (target != buffer) {
        /* Cannot happen with this capacity; if it did, the library's copy is the output. */
        free(buffer);
    }
    *out = target;
    *out_len = (size_t)length;
    return CCODEC_OK;
}
