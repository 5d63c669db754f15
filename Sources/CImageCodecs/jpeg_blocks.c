/* The 1/8-scale JPEG picture from each 8x8 block's mean and deviation (docs/PERFORMANCE.md,
   issue 14, "Seventh round: the block variance from the DCT").

   libjpeg-turbo's DCT scaling at 1/8 gives each luma block's mean of gamma-encoded values:
   at high frequency (a zone plate, fine texture) that is too dark a grey, since light adds in
   linear light. Each block's variance is in its AC coefficients: the JPEG DCT is orthonormal,
   so by Parseval's theorem sigma^2 = sum(AC^2) / 64 after dequantisation. Here the block's
   linear-light mean is estimated as (f(c - sigma) + f(c + sigma)) / 2 per channel c (f the
   sRGB decoding, sigma the luma's: a luma swing moves R, G and B equally), and written back
   as 8-bit sRGB: the picture the box filter takes.

   jpeglib hands out coefficients only through jpeg_read_coefficients, which keeps the whole
   image's (72 MB on a 4000x3000 photo). Its memory manager is public and replaceable, though,
   and on a single-scan file (baseline or extended sequential, all components interleaved in
   one scan) the coefficient controller asks for each iMCU row's blocks once, in order, with
   access_virt_barray. The methods below hand out one iMCU row per component instead of the
   whole array, and reduce row r to its statistics when row r + 1 is asked for (the last one
   after jpeg_read_coefficients returns). Files where rows would be visited again
   (progressive, or components in separate scans) are not taken here: the caller decodes
   them at 1/8 as before. */
#include "codecs.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

#define NONE ((JDIMENSION)-1)

/* One component's "virtual" block array: a window of maxaccess block rows. */
typedef struct {
    JBLOCKARRAY rows;
    JDIMENSION blocks_per_row, num_rows, max_access;
    JDIMENSION held, held_count; /* first block row in the window and how many, or NONE */
    int ci;
} ring;

typedef struct {
    jvirt_barray_ptr (*request)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*realize)(j_common_ptr);
    ring rings[MAX_COMPONENTS];
    int count;
    int revisited;       /* a row was asked for again: the statistics are incomplete */
    JDIMENSION out_w, out_h;        /* output pixels: the luma's blocks */
    int sub[MAX_COMPONENTS];        /* output pixels per block on each axis: 1 or 2 (4:2:0 chroma) */
    JSAMPLE *plane[MAX_COMPONENTS]; /* each component's 1/8-scale samples, out_w x out_h */
    float *sigma;                   /* the luma blocks' deviations, 8-bit code units */
    JDIMENSION *rows_done;          /* block rows reduced, per component */
} blocks_state;

/* sum over k = 1...63 of (c[k] q[k])^2 for one block; `q` has q[0] = 0. With SSE2 the
   products are taken in 16 bits and squared and paired by pmaddwd: exact for any file a
   JPEG encoder can write (a dequantised coefficient of 8-bit samples is within +-2176); for
   crafted coefficients beyond that the sum wraps (a wrong deviation for a garbage block,
   never undefined: the intrinsics wrap, and the sum is read unsigned). */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline float ac_energy(const JCOEF *c, const JCOEF *q) {
    __m128i sum = _mm_setzero_si128();
    for (int k = 0; k < DCTSIZE2; k += 8) {
        __m128i p = _mm_mullo_epi16(_mm_loadu_si128((const __m128i *)(c + k)), _mm_loadu_si128((const __m128i *)(q + k)));
        sum = _mm_add_epi32(sum, _mm_madd_epi16(p, p));
    }
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(1, 0, 3, 2)));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(2, 3, 0, 1)));
    return (float)(uint32_t)_mm_cvtsi128_si32(sum);
}
#else
static inline float ac_energy(const JCOEF *c, const JCOEF *q) {
    double e = 0;
    for (int k = 1; k < DCTSIZE2; k++) {
        double a = (double)c[k] * q[k];
        e += a * a;
    }
    return (float)e;
}
#endif

/* The quadrant means' odd weights: 4 C(u) / 2 * mean of cos((2n + 1) u pi / 16) over n = 0-3,
   relative to the DC's, times 2^13 (u = 1, 3, 5, 7). */
#define QUADRANT_1 29692   /* 3.624509785 */
#define QUADRANT_3 (-10426) /* -1.272758580 */
#define QUADRANT_5 6967    /* 0.850430095 */
#define QUADRANT_7 (-5906) /* -0.720959822 */

static JSAMPLE clamp_sample(long v) { return (JSAMPLE)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* Reduces the block rows a ring holds to samples (and the luma's deviations). */
static void reduce_rows(j_decompress_ptr cinfo, blocks_state *s, ring *r) {
    if (r->held == NONE || s->revisited) return;
    int ci = r->ci;
    jpeg_component_info *comp = &cinfo->comp_info[ci];
    const JQUANT_TBL *qt = comp->quant_table;
    if (qt == NULL) ERREXIT1(cinfo, JERR_NO_QUANT_TABLE, comp->quant_tbl_no);
    JCOEF q16[DCTSIZE2] __attribute__((aligned(16)));
    /* Steps over 32767 only come with 16-bit tables; their products would not fit 16 bits. */
    for (int k = 0; k < DCTSIZE2; k++) q16[k] = k == 0 ? 0 : (JCOEF)(qt->quantval[k] > 32767 ? 32767 : qt->quantval[k]);
    int sub = s->sub[ci];
    JSAMPLE *plane = s->plane[ci];
    for (JDIMENSION j = 0; j < r->held_count; j++) {
        JDIMENSION br = r->held + j;
        if (br >= comp->height_in_blocks) break;
        JBLOCKROW row = r->rows[j];
        for (JDIMENSION bx = 0; bx < comp->width_in_blocks; bx++) {
            const JCOEF *c = row[bx];
            if (sub == 1) {
                /* The 1x1 IDCT: the block's mean, rounded as libjpeg's 1/8 output. */
                long dc = (long)c[0] * qt->quantval[0];
                JDIMENSION x = bx, y = br;
                if (x < s->out_w && y < s->out_h)
                    plane[(size_t)y * s->out_w + x] = clamp_sample(((dc + 4) >> 3) + 128);
                if (ci == 0 && s->sigma != NULL && x < s->out_w && y < s->out_h)
                    s->sigma[(size_t)y * s->out_w + x] = sqrtf(ac_energy(c, q16)) * 0.125f;
            } else {
                /* 4:2:0 chroma: each of the four output pixels is the mean of its 4x4
                   quadrant of the block, from the coefficients 0, 1, 3, 5 and 7 on each
                   axis (the even ones average to zero over half a block). In libjpeg's own
                   fixed point (13-bit constants, 2 bits kept between the passes), so the
                   samples are the ones its 2x2 scaled IDCT gives at 1/8. */
                int64_t ws[2][8];
                for (int u = 0; u < 8; u++) {
                    if (u != 0 && u % 2 == 0) continue;
                    int64_t z[8];
                    for (int v = 0; v < 8; v++) z[v] = (int64_t)c[v * 8 + u] * qt->quantval[v * 8 + u];
                    if (z[1] == 0 && z[3] == 0 && z[5] == 0 && z[7] == 0) {
                        ws[0][u] = ws[1][u] = z[0] * 4;
                        continue;
                    }
                    int64_t even = z[0] * 32768;
                    int64_t odd = z[1] * QUADRANT_1 + z[3] * QUADRANT_3 + z[5] * QUADRANT_5 + z[7] * QUADRANT_7;
                    ws[0][u] = (even + odd + 4096) >> 13;
                    ws[1][u] = (even - odd + 4096) >> 13;
                }
                for (int v = 0; v < 2; v++) {
                    const int64_t *w = ws[v];
                    int64_t out0, out1;
                    if (w[1] == 0 && w[3] == 0 && w[5] == 0 && w[7] == 0) {
                        out0 = out1 = (w[0] + 16) >> 5;
                    } else {
                        int64_t even = w[0] * 32768;
                        int64_t odd = w[1] * QUADRANT_1 + w[3] * QUADRANT_3 + w[5] * QUADRANT_5 + w[7] * QUADRANT_7;
                        out0 = (even + odd + 524288) >> 20;
                        out1 = (even - odd + 524288) >> 20;
                    }
                    JDIMENSION y = br * 2 + (JDIMENSION)v, x = bx * 2;
                    if (y >= s->out_h) continue;
                    if (x < s->out_w) plane[(size_t)y * s->out_w + x] = clamp_sample((long)out0 + 128);
                    if (x + 1 < s->out_w) plane[(size_t)y * s->out_w + x + 1] = clamp_sample((long)out1 + 128);
                }
            }
        }
    }
    s->rows_done[ci] = r->held + r->held_count;
    r->held = NONE;
}

static jvirt_barray_ptr ring_request(j_common_ptr common, int pool_id, boolean pre_zero,
                                     JDIMENSION blocks_per_row, JDIMENSION num_rows, JDIMENSION max_access) {
    (void)pool_id;
    (void)pre_zero; /* the window is zeroed at every access: the Huffman decoder writes only nonzero coefficients */
    blocks_state *s = (blocks_state *)common->client_data;
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    if (s->count >= cinfo->num_components) ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    ring *r = &s->rings[s->count];
    r->ci = s->count++;
    r->blocks_per_row = blocks_per_row;
    r->num_rows = num_rows;
    r->max_access = max_access;
    r->held = NONE;
    r->held_count = 0;
    r->rows = NULL;
    return (jvirt_barray_ptr)r;
}

static void ring_realize(j_common_ptr common) {
    blocks_state *s = (blocks_state *)common->client_data;
    s->realize(common); /* anything else (there are no sample arrays here) */
    for (int i = 0; i < s->count; i++) {
        ring *r = &s->rings[i];
        r->rows = (*common->mem->alloc_barray)(common, JPOOL_IMAGE, r->blocks_per_row, r->max_access);
    }
}

static JBLOCKARRAY ring_access(j_common_ptr common, jvirt_barray_ptr ptr, JDIMENSION start_row,
                               JDIMENSION num_rows, boolean writable) {
    (void)writable;
    blocks_state *s = (blocks_state *)common->client_data;
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    ring *r = (ring *)ptr;
    if (r->rows == NULL || num_rows > r->max_access || start_row + num_rows > r->num_rows ||
        start_row + num_rows < start_row)
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    if (r->held != NONE && start_row == r->held) return r->rows; /* the same row again (suspension) */
    if (start_row < s->rows_done[r->ci] || (r->held != NONE && start_row < r->held)) s->revisited = 1;
    reduce_rows(cinfo, s, r);
    for (JDIMENSION j = 0; j < num_rows; j++) memset(r->rows[j], 0, (size_t)r->blocks_per_row * sizeof(JBLOCK));
    r->held = start_row;
    r->held_count = num_rows;
    return r->rows;
}

/* spread[c * 256 + s]: the sRGB code of (f(c - s / 2) + f(c + s / 2)) / 2, for the codes c
   0...255 and deviations s / 2 of 0...127.5 codes (no block of 8-bit samples deviates more),
   f the sRGB decoding with c -+ s / 2 clipped to 0...255, rounded to the nearest code in
   sRGB as HalfBlock's LinearLight encodes. Rounding the deviation to half a
   code moves the result by at most 0.2 of a code (where the slopes differ most: c 128,
   s / 2 90). Built once: 64 KiB. */
static unsigned char spread[256 * 256];
static pthread_once_t spread_once = PTHREAD_ONCE_INIT;

/* deviation_limit[c]: the largest deviation, as `spread`'s index (half codes), that 8-bit
   samples of mean code c can have: sqrt(c (255 - c)) (the Bhatia-Davis bound for values in
   0...255; reached by two levels, 0 and 255). The luma's deviation is given to every channel,
   which is wrong where the detail is in the colour: green stripes on black (R = B = 0 in every
   pixel) came out 52,152,53 instead of 0,188,0. Capping each channel's deviation by what its
   own mean allows keeps a channel at 0 or 255 there and changes nothing where the deviation is
   possible (a grey block's own deviation is always within it). */
static unsigned char deviation_limit[256];

static double srgb_decode(double v) { return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4); }

static void build_spread(void) {
    static float half[511];   /* linear value of the half codes 0, 0.5, ... 255 */
    static float midpoint[256]; /* linear value of the code k + 0.5: where k + 1 becomes nearer */
    static unsigned char guess[4097]; /* the code at or below sqrt(linear) = i / 4096 */
    for (int i = 0; i < 511; i++) half[i] = (float)srgb_decode(i / 510.0);
    for (int k = 0; k < 255; k++) midpoint[k] = half[2 * k + 1];
    midpoint[255] = 2.0f;
    int k = 0;
    for (int i = 0; i <= 4096; i++) {
        float lin = (float)((i / 4096.0) * (i / 4096.0));
        while (k < 255 && midpoint[k] <= lin) k++;
        guess[i] = (unsigned char)k;
    }
    for (int c = 0; c < 256; c++) {
        for (int sd = 0; sd < 256; sd++) {
            int lo = 2 * c - sd, hi = 2 * c + sd;
            float lin = (half[lo < 0 ? 0 : lo] + half[hi > 510 ? 510 : hi]) * 0.5f;
            int code = guess[(int)(sqrtf(lin) * 4096.0f)];
            if (code > 0 && lin < midpoint[code - 1]) code--;
            while (code < 255 && lin >= midpoint[code]) code++;
            spread[c * 256 + sd] = (unsigned char)code;
        }
        double limit = 2.0 * sqrt((double)c * (255 - c)) + 0.5;
        deviation_limit[c] = (unsigned char)(limit > 255 ? 255 : (int)limit);
    }
}

/* `spread` for code c and deviation index sd, the deviation capped by deviation_limit[c]. */
static inline unsigned char spread_capped(int c, int sd) {
    int cap = deviation_limit[c];
    return spread[c * 256 + (sd < cap ? sd : cap)];
}

static inline int code_of(float v) { return v <= 0 ? 0 : v >= 255 ? 255 : (int)(v + 0.5f); }

/* The deviation's index in `spread`: half codes, 0...255. */
static inline int spread_index(float sigma) {
    float h = sigma * 2.0f + 0.5f;
    return h >= 255.0f ? 255 : (int)h;
}

/* Whether this header can take the block path: 8-bit, single scan, sequential, YCbCr or
   greyscale, luma at the largest sampling and chroma at half or full resolution. */
int ccodec_jpeg_blocks_eligible(j_decompress_ptr cinfo) {
    if (cinfo->progressive_mode || cinfo->data_precision != 8) return 0;
    if (cinfo->comps_in_scan != cinfo->num_components) return 0;
    if (cinfo->jpeg_color_space == JCS_GRAYSCALE) return cinfo->num_components == 1;
    if (cinfo->jpeg_color_space != JCS_YCbCr || cinfo->num_components != 3) return 0;
    const jpeg_component_info *c = cinfo->comp_info;
    if (c[0].h_samp_factor != cinfo->max_h_samp_factor || c[0].v_samp_factor != cinfo->max_v_samp_factor)
        return 0;
    /* Chroma at full resolution (4:4:4) or half on both axes (4:2:0): there libjpeg's 1/8
       output takes the chroma from a 1x1 or 2x2 scaled IDCT, which is reproduced here. For
       4:2:2 or 4:4:0 it upsamples the chroma instead; those decode as before. */
    for (int i = 1; i < 3; i++) {
        int rh = cinfo->max_h_samp_factor / c[i].h_samp_factor, rv = cinfo->max_v_samp_factor / c[i].v_samp_factor;
        if (rh * c[i].h_samp_factor != cinfo->max_h_samp_factor || rv * c[i].v_samp_factor != cinfo->max_v_samp_factor)
            return 0;
        if (rh != rv || rh > 2) return 0;
    }
    return 1;
}

/* See codecs.h. */
int ccodec_jpeg_blocks_decode(j_decompress_ptr cinfo, int use_sigma, unsigned char *pixels,
                              unsigned *width, unsigned *height) {
    pthread_once(&spread_once, build_spread);
    j_common_ptr common = (j_common_ptr)cinfo;
    blocks_state *s = (*cinfo->mem->alloc_small)(common, JPOOL_IMAGE, sizeof(blocks_state));
    memset(s, 0, sizeof *s);
    int nc = cinfo->num_components;
    s->out_w = cinfo->comp_info[0].width_in_blocks;
    s->out_h = cinfo->comp_info[0].height_in_blocks;
    size_t count = (size_t)s->out_w * s->out_h;
    for (int i = 0; i < nc; i++) {
        s->sub[i] = cinfo->max_h_samp_factor / cinfo->comp_info[i].h_samp_factor;
        s->plane[i] = (*cinfo->mem->alloc_large)(common, JPOOL_IMAGE, count);
    }
    if (use_sigma) s->sigma = (*cinfo->mem->alloc_large)(common, JPOOL_IMAGE, count * sizeof(float));
    s->rows_done = (*cinfo->mem->alloc_small)(common, JPOOL_IMAGE, sizeof(JDIMENSION) * (size_t)nc);
    memset(s->rows_done, 0, sizeof(JDIMENSION) * (size_t)nc);
    s->request = cinfo->mem->request_virt_barray;
    s->realize = cinfo->mem->realize_virt_arrays;
    JBLOCKARRAY (*access)(j_common_ptr, jvirt_barray_ptr, JDIMENSION, JDIMENSION, boolean) =
        cinfo->mem->access_virt_barray;
    void *client = cinfo->client_data;
    cinfo->client_data = s;
    cinfo->mem->request_virt_barray = ring_request;
    cinfo->mem->realize_virt_arrays = ring_realize;
    cinfo->mem->access_virt_barray = ring_access;
    /* On an error the methods stay replaced: the caller only destroys the object then. */
    jpeg_read_coefficients(cinfo);
    for (int i = 0; i < s->count; i++) reduce_rows(cinfo, s, &s->rings[i]);
    cinfo->mem->request_virt_barray = s->request;
    cinfo->mem->realize_virt_arrays = s->realize;
    cinfo->mem->access_virt_barray = access;
    cinfo->client_data = client;
    if (s->revisited || s->count != nc) return 1;
    for (int i = 0; i < nc; i++)
        if (s->rows_done[i] < cinfo->comp_info[i].height_in_blocks) return 1;

    *width = s->out_w;
    *height = s->out_h;
    unsigned char *p = pixels;
    const JSAMPLE *yp = s->plane[0];
    const float *sg = s->sigma;
    if (nc == 1) {
        for (size_t i = 0; i < count; i++, p += 4) {
            unsigned char v = sg ? spread_capped(yp[i], spread_index(sg[i])) : yp[i];
            p[0] = p[1] = p[2] = v;
            p[3] = 255;
        }
        return 0;
    }
    const JSAMPLE *cb = s->plane[1], *cr = s->plane[2];
    for (size_t i = 0; i < count; i++, p += 4) {
        float y = yp[i], b = (float)cb[i] - 128.0f, r = (float)cr[i] - 128.0f;
        int R = code_of(y + 1.402f * r), G = code_of(y - 0.344136286f * b - 0.714136286f * r),
            B = code_of(y + 1.772f * b);
        int sd = sg ? spread_index(sg[i]) : 0;
        p[0] = spread_capped(R, sd);
        p[1] = spread_capped(G, sd);
        p[2] = spread_capped(B, sd);
        p[3] = 255;
    }
    return 0;
}
