/* dladdr (find_modules_dir) is a GNU extension. */
#define _GNU_SOURCE 1
#include "CVips.h"
#include <vips/vips.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;
static atomic_int log_fd = -1;
static atomic_long warnings = 0;

/* GLib would print vips warnings (hundreds of lines for one bad PNG) to stderr, over the
   curses screen: count them, and copy them to the log file when one is set. */
static void log_handler(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)level;
    (void)data;
    atomic_fetch_add(&warnings, 1);
    int fd = atomic_load(&log_fd);
    if (fd < 0 || message == NULL) return;
    char line[1024];
    int n = snprintf(line, sizeof line, "vips: %s: %s\n", domain ? domain : "-", message);
    if (n > 0) {
        ssize_t ignored = write(fd, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
        (void)ignored;
    }
}

/* Where libvips keeps its loadable modules, found beside libvips itself; empty: unknown (then
   vips_init loads them as usual). */
static char modules_dir[PATH_MAX];
static pthread_once_t modules_once = PTHREAD_ONCE_INIT;

static int find_modules_dir(void) {
    Dl_info info;
    char lib[PATH_MAX];
    if (dladdr((void *)vips_init, &info) == 0 || info.dli_fname == NULL) return 0;
    if (realpath(info.dli_fname, lib) == NULL) return 0;
    char *slash = strrchr(lib, '/');
    if (slash == NULL) return 0;
    *slash = 0;
    int n = snprintf(modules_dir, sizeof modules_dir, "%s/vips-modules-%d.%d", lib,
                     VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION);
    if (n <= 0 || n >= (int)sizeof modules_dir || !g_file_test(modules_dir, G_FILE_TEST_IS_DIR)) {
        modules_dir[0] = 0;
        return 0;
    }
    return 1;
}

/* What vips_init would have done: open each module with GModule, whose g_module_check_init
   registers its loaders and makes it resident. GType registration is locked, so decodes on
   other threads are safe. libgmodule is loaded (libvips needs it) but not linked to us: vips.pc
   does not list it, so g_module_open is looked up at run time. */
static void do_load_modules(void) {
    if (modules_dir[0] == 0) return;
    typedef GModule *(*module_open_fn)(const gchar *, GModuleFlags);
    module_open_fn module_open = (module_open_fn)dlsym(RTLD_DEFAULT, "g_module_open");
    if (module_open == NULL) return;
    GDir *dir = g_dir_open(modules_dir, 0, NULL);
    if (dir == NULL) return;
    const char *name;
    while ((name = g_dir_read_name(dir)) != NULL) {
        if (!g_str_has_suffix(name, "." G_MODULE_SUFFIX)) continue;
        char *path = g_build_filename(modules_dir, name, NULL);
        if (module_open(path, G_MODULE_BIND_LAZY) == NULL) atomic_fetch_add(&warnings, 1);
        g_free(path);
    }
    g_dir_close(dir);
}

/* Loads the modules once, when `len` bytes at `buf` have no built-in loader (BMP, HEIC, AVIF,
   JPEG XL, PDF...). JPEG, PNG, GIF, WebP and TIFF never need them. */
static void load_modules_if_needed(const void *buf, size_t len) {
    if (modules_dir[0] == 0) return;
    if (vips_foreign_find_load_buffer(buf, len) != NULL) return;
    vips_error_clear();
    pthread_once(&modules_once, do_load_modules);
}

static void do_init(void) {
    static const char *domains[] = { "VIPS", "GLib", "GLib-GObject", "GLib-GIO", NULL };
    for (int i = 0; domains[i]; i++) {
        g_log_set_handler(domains[i], G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                          log_handler, NULL);
    }
    g_log_set_default_handler(log_handler, NULL);
    /* vips_init loads every module in <libdir>/vips-modules-X.Y (ImageMagick, poppler,
       OpenSlide, libheif, libjxl and their libraries): about 40 ms and 7 MB of RSS at every
       start, for formats a gallery rarely has. It finds libdir from $VIPSHOME, so point that
       nowhere during init (unless the user set it) and load the modules on first need
       (load_modules_if_needed). vips_init itself calls g_setenv for VIPSHOME, so this adds no
       new hazard. */
    int lazy_modules = getenv("VIPSHOME") == NULL && find_modules_dir();
    if (lazy_modules) setenv("VIPSHOME", "/nonexistent/vitrine-loads-vips-modules-on-demand", 1);
    /* VIPS_INIT is a macro over vips_init; the argument names the program for messages. */
    int status = VIPS_INIT("vitrine");
    if (lazy_modules) unsetenv("VIPSHOME");
    if (status != 0) {
        init_result = -1;
        return;
    }
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    init_result = 0;
}

int cvips_init(void) {
    pthread_once(&init_once, do_init);
    return init_result;
}

void cvips_set_log_fd(int fd) { atomic_store(&log_fd, fd); }

long cvips_warning_count(void) { return atomic_load(&warnings); }

/* The error buffer is process-wide: its text is only a hint for the user. Copy it, trimmed of
   trailing newlines, and clear it. */
static void take_error(char *err, size_t errlen, const char *fallback) {
    if (err == NULL || errlen == 0) return;
    const char *text = vips_error_buffer();
    if (text == NULL || text[0] == 0) text = fallback;
    snprintf(err, errlen, "%s", text);
    size_t n = strlen(err);
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' ')) err[--n] = 0;
    /* Keep only the first line: later lines repeat the same failure. */
    char *nl = strchr(err, '\n');
    if (nl) *nl = 0;
    vips_error_clear();
}

static int header_size(VipsImage *image, int *width, int *height) {
    int w = vips_image_get_width(image);
    int h = vips_image_get_height(image);
    if (vips_image_get_orientation_swap(image)) {
        int t = w; w = h; h = t;
    }
    *width = w;
    *height = h;
    return 0;
}

int cvips_probe(const void *buf, size_t len, int *width, int *height, char *err, size_t errlen) {
    if (cvips_init() != 0) {
        take_error(err, errlen, "libvips did not start");
        return -1;
    }
    vips_error_clear();
    load_modules_if_needed(buf, len);
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) {
        take_error(err, errlen, "not an image");
        return -1;
    }
    header_size(image, width, height);
    g_object_unref(image);
    return 0;
}

/* ---- The last step of a fit without libvips's Lanczos: an exact area average in linear light.

   vips_thumbnail fits an image in its box with shrink-on-load and then vips_resize, a Lanczos3
   reduce on gamma-encoded values (in float, after premultiplying, when there is alpha). For an
   image without shrink-on-load (PNG, GIF) that is most of the decode time (512x512 RGBA to
   320x320: about 140 M instructions of about 350 M for the whole `vips thumbnail`), and averaging
   sRGB bytes darkens fine detail (a 1-px black/white checker comes out grey 127, not 188).
   Instead, such an image is decoded at its own size and averaged here: each output pixel is the
   area-weighted mean of the source pixels it covers (fractional edges weighted by their
   overlap), premultiplied by alpha, in linear light, then encoded back to 8-bit sRGB with
   round-to-nearest. Same transfer function (IEC 61966-2-1) and rounding as HalfBlock's
   LinearLight. A fully transparent output pixel is (0, 0, 0, 0): hidden colours never leak. */

/* Images with more pixels than this keep vips_thumbnail's streaming resize: decoding them whole
   would take width x height x 4 bytes at once (16 MB here, 2560 x 1600 fits). */
#define AREA_FIT_MAX_PIXELS (4096 * 1024)

static float srgb_to_linear[256];
/* linear_thresholds[v]: the linear value where the nearest sRGB code turns from v into v + 1. */
static float linear_thresholds[256];
/* encode_buckets[i]: the nearest code for linear i / ENCODE_BUCKETS, a lower bound for the
   whole bucket; the thresholds then correct it by a step or two. */
#define ENCODE_BUCKETS 4096
static unsigned char encode_buckets[ENCODE_BUCKETS];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static double decode_srgb(double v) { return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4); }

static void build_tables(void) {
    for (int i = 0; i < 256; i++) srgb_to_linear[i] = (float)decode_srgb(i / 255.0);
    for (int i = 0; i < 255; i++) linear_thresholds[i] = (float)decode_srgb((i + 0.5) / 255.0);
    linear_thresholds[255] = 2; /* a sentinel above any linear value in [0, 1) */
    int v = 0;
    for (int i = 0; i < ENCODE_BUCKETS; i++) {
        float l = (float)i / ENCODE_BUCKETS;
        while (v < 255 && l >= linear_thresholds[v]) v++;
        encode_buckets[i] = (unsigned char)v;
    }
}

/* Nearest 8-bit sRGB code for linear l (round to nearest in the sRGB domain). */
static inline unsigned char encode_linear(float l) {
    if (!(l > 0)) return 0;
    if (l >= 1) return 255;
    int v = encode_buckets[(int)(l * ENCODE_BUCKETS)];
    while (l >= linear_thresholds[v]) v++;
    return (unsigned char)v;
}

/* For each of `n_out` output pixels along an axis of `n_in` source pixels: the first source
   index, how many it covers, and their weights (overlap lengths in source pixels, summing to
   n_in / n_out). Arrays from area_axis_new; free with area_axis_free. */
typedef struct {
    int *first;
    int *count;
    int *offset;  /* into weight */
    float *weight;
} area_axis;

static void area_axis_free(area_axis *a) {
    g_free(a->first); g_free(a->count); g_free(a->offset); g_free(a->weight);
}

static int area_axis_new(area_axis *a, int n_in, int n_out) {
    a->first = g_try_new(int, n_out);
    a->count = g_try_new(int, n_out);
    a->offset = g_try_new(int, n_out);
    /* Each output pixel covers at most ceil(n_in / n_out) + 1 source pixels. */
    int per = n_in / n_out + 2;
    a->weight = g_try_new(float, (size_t)n_out * per);
    if (!a->first || !a->count || !a->offset || !a->weight) { area_axis_free(a); return -1; }
    double step = (double)n_in / n_out;
    int off = 0;
    for (int o = 0; o < n_out; o++) {
        double start = o * step, end = (o + 1) * step;
        if (o == n_out - 1) end = n_in;
        int j0 = (int)floor(start), j1 = (int)ceil(end);
        if (j1 > n_in) j1 = n_in;
        if (j1 <= j0) j1 = j0 + 1;
        a->first[o] = j0;
        a->count[o] = j1 - j0;
        a->offset[o] = off;
        for (int j = j0; j < j1; j++) {
            double lo = j > start ? j : start, hi = j + 1 < end ? j + 1 : end;
            a->weight[off++] = (float)(hi > lo ? hi - lo : 0);
        }
    }
    return 0;
}

/* Area-averages `src`, sw x sh straight-alpha 8-bit sRGB RGBA, to dw x dh (each at most the
   source's) as above. Returns g_malloc'ed dw * dh * 4 bytes, or NULL when out of memory. */
static unsigned char *area_fit_rgba(const unsigned char *src, int sw, int sh, int dw, int dh) {
    pthread_once(&tables_once, build_tables);
    area_axis ax = {0}, ay = {0};
    if (area_axis_new(&ax, sw, dw) != 0) return NULL;
    if (area_axis_new(&ay, sh, dh) != 0) { area_axis_free(&ax); return NULL; }
    /* Horizontal pass: per source row, dw pixels of (alpha, alpha * linear r, g, b), summed
       weights (not yet divided). */
    float *mid = g_try_new(float, (size_t)dw * sh * 4);
    unsigned char *out = g_try_malloc((size_t)dw * dh * 4);
    if (!mid || !out) {
        g_free(mid); g_free(out); area_axis_free(&ax); area_axis_free(&ay);
        return NULL;
    }
    /* One source row as premultiplied linear (alpha, alpha * r, g, b), converted once. */
    float *line = g_try_new(float, (size_t)sw * 4);
    if (!line) {
        g_free(mid); g_free(out); area_axis_free(&ax); area_axis_free(&ay);
        return NULL;
    }
    for (int y = 0; y < sh; y++) {
        const unsigned char *p = src + (size_t)y * sw * 4;
        for (int x = 0; x < sw; x++, p += 4) {
            float a = p[3] * (1.0f / 255);
            line[x * 4] = a;
            line[x * 4 + 1] = a * srgb_to_linear[p[0]];
            line[x * 4 + 2] = a * srgb_to_linear[p[1]];
            line[x * 4 + 3] = a * srgb_to_linear[p[2]];
        }
        float *m = mid + (size_t)y * dw * 4;
        for (int o = 0; o < dw; o++) {
            float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            const float *w = ax.weight + ax.offset[o];
            const float *l = line + (size_t)ax.first[o] * 4;
            for (int k = 0; k < ax.count[o]; k++, l += 4) {
                s0 += w[k] * l[0]; s1 += w[k] * l[1]; s2 += w[k] * l[2]; s3 += w[k] * l[3];
            }
            m[o * 4] = s0; m[o * 4 + 1] = s1; m[o * 4 + 2] = s2; m[o * 4 + 3] = s3;
        }
    }
    g_free(line);
    /* Vertical pass (whole rows at a time), then divide by the area, unpremultiply, encode. */
    float area = (float)(((double)sw / dw) * ((double)sh / dh));
    float *acc = g_try_new(float, (size_t)dw * 4);
    if (!acc) {
        g_free(mid); g_free(out); area_axis_free(&ax); area_axis_free(&ay);
        return NULL;
    }
    for (int o = 0; o < dh; o++) {
        const float *w = ay.weight + ay.offset[o];
        unsigned char *q = out + (size_t)o * dw * 4;
        memset(acc, 0, sizeof(float) * dw * 4);
        for (int k = 0; k < ay.count[o]; k++) {
            const float *m = mid + (size_t)(ay.first[o] + k) * dw * 4;
            float wk = w[k];
            for (int i = 0; i < dw * 4; i++) acc[i] += wk * m[i];
        }
        for (int x = 0; x < dw; x++) {
            float sa = acc[x * 4], sr = acc[x * 4 + 1], sg = acc[x * 4 + 2], sb = acc[x * 4 + 3];
            long alpha = lrintf(sa / area * 255);
            if (alpha <= 0 || sa <= 0) {
                q[x * 4] = q[x * 4 + 1] = q[x * 4 + 2] = q[x * 4 + 3] = 0;
                continue;
            }
            q[x * 4] = encode_linear(sr / sa);
            q[x * 4 + 1] = encode_linear(sg / sa);
            q[x * 4 + 2] = encode_linear(sb / sa);
            q[x * 4 + 3] = (unsigned char)(alpha > 255 ? 255 : alpha);
        }
    }
    g_free(acc);
    g_free(mid);
    area_axis_free(&ax);
    area_axis_free(&ay);
    return out;
}

/* The largest size with the aspect of sw x sh that fits max_w x max_h, never enlarged, at
   least 1 x 1. */
static void fit_size(int sw, int sh, int max_w, int max_h, int *fw, int *fh) {
    double scale = fmin((double)max_w / sw, (double)max_h / sh);
    if (scale >= 1) { *fw = sw; *fh = sh; return; }
    long w = lrint(sw * scale), h = lrint(sh * scale);
    *fw = (int)(w < 1 ? 1 : w > max_w ? max_w : w);
    *fh = (int)(h < 1 ? 1 : h > max_h ? max_h : h);
}

/* True when the bytes' loader has no shrink-on-load (PNG, GIF): libvips would decode them
   whole and Lanczos-reduce them; the area average does that reduction better and cheaper.
   JPEG (DCT scaling), WebP, HEIF, SVG and PDF keep vips_thumbnail, whose shrink-on-load means
   the full image never exists. */
static int decodes_whole(const void *buf, size_t len) {
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) { vips_error_clear(); return 0; }
    return g_str_has_prefix(loader, "VipsForeignLoadPng") || g_str_has_prefix(loader, "VipsForeignLoadNsgif");
}

int cvips_thumbnail_rgba(const void *buf, size_t len, int max_width, int max_height,
                         int64_t max_pixels, cvips_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    int sw = 0, sh = 0;
    if (cvips_probe(buf, len, &sw, &sh, err, errlen) != 0) return -1;
    if (max_pixels > 0 && (int64_t)sw * (int64_t)sh > max_pixels) {
        snprintf(err, errlen, "%d x %d pixels is over the limit of %lld", sw, sh, (long long)max_pixels);
        return -2;
    }
    if (max_width < 1) max_width = 1;
    if (max_height < 1) max_height = 1;
    int fit_w = 0, fit_h = 0;
    fit_size(sw, sh, max_width, max_height, &fit_w, &fit_h);
    /* Small PNG and GIF images that need shrinking are decoded at their own size (no resize in
       vips_thumbnail) and area-averaged below. */
    int area_fit = (fit_w < sw || fit_h < sh) && (int64_t)sw * sh <= AREA_FIT_MAX_PIXELS
                   && decodes_whole(buf, len);

    VipsImage *thumb = NULL;
    /* vips 8.14 ignores the fail_on argument of vips_thumbnail_buffer (upstream issue 5195) and
       returns a grey-filled image for truncated files; the loader option string does work. */
    if (vips_thumbnail_buffer((void *)buf, len, &thumb, area_fit ? sw : max_width,
                              "height", area_fit ? sh : max_height,
                              "size", VIPS_SIZE_DOWN,
                              "option_string", "fail_on=truncated",
                              NULL) != 0) {
        take_error(err, errlen, "could not decode");
        return -1;
    }

    VipsImage *srgb = NULL;
    if (vips_colourspace(thumb, &srgb, VIPS_INTERPRETATION_sRGB, NULL) != 0) {
        g_object_unref(thumb);
        take_error(err, errlen, "could not convert to sRGB");
        return -1;
    }
    g_object_unref(thumb);

    VipsImage *uchar = NULL;
    if (vips_image_get_format(srgb) != VIPS_FORMAT_UCHAR) {
        if (vips_cast_uchar(srgb, &uchar, NULL) != 0) {
            g_object_unref(srgb);
            take_error(err, errlen, "could not convert to 8 bits");
            return -1;
        }
        g_object_unref(srgb);
    } else {
        uchar = srgb;
    }

    VipsImage *rgba = NULL;
    int bands = vips_image_get_bands(uchar);
    if (bands == 3) {
        if (vips_bandjoin_const1(uchar, &rgba, 255.0, NULL) != 0) {
            g_object_unref(uchar);
            take_error(err, errlen, "could not add alpha");
            return -1;
        }
        g_object_unref(uchar);
    } else if (bands == 4) {
        rgba = uchar;
    } else {
        /* sRGB conversion gives 3 or 4 bands; anything else keeps the first 3 (or 4). */
        VipsImage *cut = NULL;
        int keep = bands > 4 ? 4 : 3;
        if (bands < 3 || vips_extract_band(uchar, &cut, 0, "n", keep, NULL) != 0) {
            g_object_unref(uchar);
            take_error(err, errlen, "unsupported band layout");
            return -1;
        }
        g_object_unref(uchar);
        if (keep == 3) {
            if (vips_bandjoin_const1(cut, &rgba, 255.0, NULL) != 0) {
                g_object_unref(cut);
                take_error(err, errlen, "could not add alpha");
                return -1;
            }
            g_object_unref(cut);
        } else {
            rgba = cut;
        }
    }

    size_t size = 0;
    void *pixels = vips_image_write_to_memory(rgba, &size);
    int w = vips_image_get_width(rgba);
    int h = vips_image_get_height(rgba);
    g_object_unref(rgba);
    if (pixels == NULL) {
        take_error(err, errlen, "could not decode");
        return -1;
    }
    if (size != (size_t)w * (size_t)h * 4) {
        g_free(pixels);
        snprintf(err, errlen, "decoder returned %zu bytes for %d x %d", size, w, h);
        return -1;
    }
    if (area_fit && (w > fit_w || h > fit_h)) {
        if (w != sw || h != sh) fit_size(w, h, max_width, max_height, &fit_w, &fit_h);
        unsigned char *fitted = area_fit_rgba(pixels, w, h, fit_w, fit_h);
        g_free(pixels);
        if (fitted == NULL) {
            snprintf(err, errlen, "out of memory shrinking %d x %d to %d x %d", w, h, fit_w, fit_h);
            return -1;
        }
        pixels = fitted;
        w = fit_w;
        h = fit_h;
        size = (size_t)w * (size_t)h * 4;
    }
    out->pixels = pixels;
    out->length = size;
    out->width = w;
    out->height = h;
    out->source_width = sw;
    out->source_height = sh;
    return 0;
}

int cvips_sha256_hex(const void *buf, size_t len, char *out) {
    if (out == NULL) return -1;
    out[0] = 0;
    static const guchar empty = 0;
    gchar *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256, buf ? (const guchar *)buf : &empty, len);
    if (hex == NULL) return -1;
    int ok = strlen(hex) == 64;
    if (ok) memcpy(out, hex, 65);
    g_free(hex);
    return ok ? 0 : -1;
}

void cvips_free(void *pixels) { g_free(pixels); }
