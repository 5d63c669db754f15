/* dladdr (find_modules_dir) is a GNU extension. */
#define _GNU_SOURCE 1
#include "CVips.h"
#include <vips/vips.h>
#include <dlfcn.h>
#include <limits.h>
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

/* PNG and GIF images with more pixels than this keep vips_thumbnail's streaming resize:
   decoding them whole for the caller's area average would take width x height x 4 bytes at
   once (16 MB here, 2560 x 1600 fits). Nor a side longer than WHOLE_MAX_SIDE: the area
   average keeps one row of width x 16 bytes (or height x output width x 16 for the columns),
   which for a 4194304 x 1 PNG was 64 MB on top of the decode (render peaked at 249 MB
   against libvips's 134). */
#define WHOLE_MAX_PIXELS (4096 * 1024)
#define WHOLE_MAX_SIDE 8192

/* True when the bytes' loader has no shrink-on-load (PNG, GIF): libvips would decode them
   whole and Lanczos-reduce them; the caller's area average does that reduction better and
   cheaper. JPEG (DCT scaling), WebP, HEIF, SVG and PDF keep vips_thumbnail, whose
   shrink-on-load means the full image never exists. */
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
    /* Small PNG and GIF images that need shrinking are decoded at their own size (no resize in
       vips_thumbnail) and handed back whole, for the caller to area-average. */
    int whole = (sw > max_width || sh > max_height) && (int64_t)sw * sh <= WHOLE_MAX_PIXELS
                && sw <= WHOLE_MAX_SIDE && sh <= WHOLE_MAX_SIDE
                && decodes_whole(buf, len);

    VipsImage *thumb = NULL;
    /* vips 8.14 ignores the fail_on argument of vips_thumbnail_buffer (upstream issue 5195) and
       returns a grey-filled image for truncated files; the loader option string does work. */
    if (vips_thumbnail_buffer((void *)buf, len, &thumb, whole ? sw : max_width,
                              "height", whole ? sh : max_height,
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
    out->pixels = pixels;
    out->length = size;
    out->width = w;
    out->height = h;
    out->source_width = sw;
    out->source_height = sh;
    out->whole = whole;
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
