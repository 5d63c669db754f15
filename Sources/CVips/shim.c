/* dladdr (find_modules_dir) is a GNU extension. */
#define _GNU_SOURCE 1
#include "CVips.h"
#include <vips/vips.h>
#include <gmodule.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* GLib and GObject are not linked either: linking them made every start map them (with
   libpcre2 and libffi, 1.1 MB of a 1x1 render's 17 MB) and run GObject's type-system
   constructor, for a render that never calls them. They are opened with dlopen on first use
   (libvips brings the same copies: one soname, one instance) and the few functions the shim
   calls go through this table; the macros below keep the call sites as GLib spells them.
   Pure helpers (prefix test, ASCII case, file tests) are plain C here. */
#define VITRINE_GLIB_API(X) \
    X(g_free) X(g_object_unref) X(g_log_set_handler) X(g_log_set_default_handler) \
    X(g_compute_checksum_for_data) X(g_malloc_n) X(g_try_malloc)
#define GLIB_FIELD(name) __typeof__(name) *name;
static struct { VITRINE_GLIB_API(GLIB_FIELD) } glib;
static pthread_once_t glib_once = PTHREAD_ONCE_INIT;
static int glib_loaded;
static char glib_error[256];

static void open_glib(void) {
    void *handle = dlopen("libgobject-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(glib_error, sizeof glib_error, "%s", why ? why : "libgobject-2.0.so.0: cannot be opened");
        return;
    }
#define GLIB_LOOKUP(sym) \
    glib.sym = (__typeof__(sym) *)dlsym(handle, #sym); \
    if (glib.sym == NULL) { snprintf(glib_error, sizeof glib_error, "libgobject-2.0.so.0: no symbol %s", #sym); return; }
    VITRINE_GLIB_API(GLIB_LOOKUP)
    glib_loaded = 1;
}

/* Opens GLib and GObject once; 0 when they are there. */
static int load_glib(void) {
    pthread_once(&glib_once, open_glib);
    return glib_loaded ? 0 : -1;
}

static int has_prefix(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }
static int is_directory(const char *path) { struct stat st; return stat(path, &st) == 0 && S_ISDIR(st.st_mode); }
static int file_exists(const char *path) { struct stat st; return stat(path, &st) == 0; }

#undef g_str_has_prefix
#define g_str_has_prefix(s, prefix) has_prefix((s), (prefix))
#define g_ascii_toupper(c) ((c) >= 'a' && (c) <= 'z' ? (c) - 'a' + 'A' : (c))
#define g_free(p) glib.g_free(p)
#define g_object_unref(o) glib.g_object_unref(o)
#define g_log_set_handler(...) glib.g_log_set_handler(__VA_ARGS__)
#define g_log_set_default_handler(...) glib.g_log_set_default_handler(__VA_ARGS__)
#define g_compute_checksum_for_data(...) glib.g_compute_checksum_for_data(__VA_ARGS__)
#define g_malloc_n(n, size) glib.g_malloc_n((n), (size))
#define g_try_malloc(size) glib.g_try_malloc(size)

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -1;
/* Why libvips is not available (dlerror's text), empty while it is. */
static char unavailable[512];

/* libvips is opened with dlopen at first use, not linked: linking it made every start load
   its tree of about 104 shared libraries (24 of the 34 ms of a 1x1 render, 22 MB), though
   JPEG and PNG never need it. Every libvips function the shim calls is looked up once into
   this table; __typeof__ keeps each pointer's type exactly the header's (variadic ones
   included, which C calls through a pointer as it would directly). GLib and GObject: the
   table above. */
#define VITRINE_VIPS_API(X) \
    X(vips_init) X(vips_version) X(vips_cache_set_max) X(vips_concurrency_set) \
    X(vips_error_buffer) X(vips_error_clear) X(vips_image_get_width) X(vips_image_get_height) \
    X(vips_image_get_orientation_swap) X(vips_image_new_from_buffer) \
    X(vips_foreign_find_load_buffer) X(vips_thumbnail_buffer) X(vips_colourspace) \
    X(vips_image_get_format) X(vips_cast_uchar) X(vips_image_get_bands) \
    X(vips_bandjoin_const1) X(vips_extract_band) X(vips_image_write_to_memory) \
    X(vips_operation_block_set) X(vips_autorot) X(vips_shrink) X(vips_extract_area) X(vips_resize) \
    X(vips_image_get_n_pages) X(vips_image_get_page_height) X(vips_image_get_array_int) X(vips_image_get_int)
#define VIPS_FIELD(name) __typeof__(name) *name;
static struct { VITRINE_VIPS_API(VIPS_FIELD) GModule *(*g_module_open)(const gchar *, GModuleFlags); } api;
static void *vips_handle;

/* The library to open: $VITRINE_LIBVIPS when set (a custom build; the tests point it at a
   missing file), else Debian's soname. */
static int open_vips(void) {
    const char *name = getenv("VITRINE_LIBVIPS");
    if (name == NULL || name[0] == 0) name = "libvips.so.42";
    if (load_glib() != 0) {
        snprintf(unavailable, sizeof unavailable, "%s", glib_error);
        return -1;
    }
    vips_handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (vips_handle == NULL) {
        const char *why = dlerror();
        snprintf(unavailable, sizeof unavailable, "%s", why ? why : name);
        return -1;
    }
#define VIPS_LOOKUP(sym) \
    api.sym = (__typeof__(sym) *)dlsym(vips_handle, #sym); \
    if (api.sym == NULL) { snprintf(unavailable, sizeof unavailable, "%s: no symbol %s", name, #sym); return -1; }
    VITRINE_VIPS_API(VIPS_LOOKUP)
    /* GModule comes with libvips; looked up through its handle (not linked to us). */
    api.g_module_open = (GModule * (*)(const gchar *, GModuleFlags))dlsym(vips_handle, "g_module_open");
    return 0;
}

/* The loaders Vitrine decodes with (class-name prefixes; each covers its _buffer/_source
   subclasses): JPEG, PNG, GIF (libnsgif), WebP, TIFF, HEIF/AVIF (libheif). Everything else
   libvips can read (ImageMagick, SVG through librsvg, PDF, OpenSlide, FITS, Matlab, CSV, ...)
   is blocked before any decode: a BMP would otherwise go to ImageMagick, and `BM` followed by
   `<svg` to librsvg. */
static const char *const allowed_loaders[] = {
    "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadNsgif", "VipsForeignLoadWebp",
    "VipsForeignLoadTiff", "VipsForeignLoadHeif", NULL,
};

/* The only module loaded: libheif's. The others (ImageMagick, poppler, OpenSlide, libjxl)
   hold loaders outside the allow-list. */
#define ALLOWED_MODULE "vips-heif." G_MODULE_SUFFIX

/* Blocks every loader, then unblocks the allowed ones (vips_operation_block_set applies to a
   class and its subclasses). Run after init and again after a module registers its loaders. */
static void apply_allow_list(void) {
    api.vips_operation_block_set("VipsForeignLoad", TRUE);
    for (int i = 0; allowed_loaders[i]; i++) api.vips_operation_block_set(allowed_loaders[i], FALSE);
}

static int loader_allowed(const char *loader) {
    for (int i = 0; allowed_loaders[i]; i++) {
        if (g_str_has_prefix(loader, allowed_loaders[i])) return 1;
    }
    return 0;
}
static atomic_int log_fd = -1;

/* GLib would print vips warnings (hundreds of lines for one bad PNG) to stderr, over the
   curses screen: copy them to the log file when one is set. */
static void log_handler(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)level;
    (void)data;
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
    if (dladdr((void *)api.vips_init, &info) == 0 || info.dli_fname == NULL) return 0;
    if (realpath(info.dli_fname, lib) == NULL) return 0;
    char *slash = strrchr(lib, '/');
    if (slash == NULL) return 0;
    *slash = 0;
    int n = snprintf(modules_dir, sizeof modules_dir, "%s/vips-modules-%d.%d", lib,
                     VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION);
    if (n <= 0 || n >= (int)sizeof modules_dir || !is_directory(modules_dir)) {
        modules_dir[0] = 0;
        return 0;
    }
    return 1;
}

/* What vips_init would have done, for the one allowed module: open it with GModule, whose
   g_module_check_init registers its loaders and makes it resident, then block again what it
   brought outside the allow-list. GType registration is locked, so decodes on other threads
   are safe. */
static void do_load_modules(void) {
    if (modules_dir[0] == 0 || api.g_module_open == NULL) return;
    char path[PATH_MAX + 64];
    int n = snprintf(path, sizeof path, "%s/%s", modules_dir, ALLOWED_MODULE);
    /* A module that fails to open leaves HEIC/AVIF unsupported: their rows say so. */
    if (n > 0 && n < (int)sizeof path && file_exists(path)) (void)api.g_module_open(path, G_MODULE_BIND_LAZY);
    apply_allow_list();
}

/* Loads the allowed module once, when `len` bytes at `buf` have no built-in loader (HEIC,
   AVIF). JPEG, PNG, GIF, WebP and TIFF never need it. */
static void load_modules_if_needed(const void *buf, size_t len) {
    if (modules_dir[0] == 0) return;
    if (api.vips_foreign_find_load_buffer(buf, len) != NULL) return;
    api.vips_error_clear();
    pthread_once(&modules_once, do_load_modules);
}

static void do_init(void) {
    if (open_vips() != 0) {
        init_result = -1;
        return;
    }
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
    /* What the VIPS_INIT macro does, through the table: refuse a library of another ABI, then
       vips_init (the argument names the program for messages). */
    int status = api.vips_version(3) - api.vips_version(5) != VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE
        ? -1 : api.vips_init("vitrine");
    if (status != 0 && unavailable[0] == 0) snprintf(unavailable, sizeof unavailable, "libvips did not start (ABI mismatch)");
    if (lazy_modules) unsetenv("VIPSHOME");
    if (status != 0) {
        init_result = -1;
        return;
    }
    api.vips_cache_set_max(0);
    api.vips_concurrency_set(1);
    init_result = 0;
}

int cvips_init(void) {
    pthread_once(&init_once, do_init);
    return init_result;
}

void cvips_set_log_fd(int fd) { atomic_store(&log_fd, fd); }

/* The error buffer is process-wide: its text is only a hint for the user. Copy it, trimmed of
   trailing newlines, and clear it. */
static void take_error(char *err, size_t errlen, const char *fallback) {
    if (err == NULL || errlen == 0) return;
    const char *text = api.vips_error_buffer();
    if (text == NULL || text[0] == 0) text = fallback;
    snprintf(err, errlen, "%s", text);
    size_t n = strlen(err);
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' ')) err[--n] = 0;
    /* Keep only the first line: later lines repeat the same failure. */
    char *nl = strchr(err, '\n');
    if (nl) *nl = 0;
    api.vips_error_clear();
}

static int header_size(VipsImage *image, int *width, int *height) {
    int w = api.vips_image_get_width(image);
    int h = api.vips_image_get_height(image);
    if (api.vips_image_get_orientation_swap(image)) {
        int t = w; w = h; h = t;
    }
    *width = w;
    *height = h;
    return 0;
}

/* The format part of a loader's class name, upper-cased: "VipsForeignLoadSvgBuffer" -> "SVG",
   "VipsForeignLoadMagick7Buffer" -> "MAGICK7". */
static void loader_format(const char *loader, char *out, size_t outlen) {
    const char *stem = g_str_has_prefix(loader, "VipsForeignLoad") ? loader + strlen("VipsForeignLoad") : loader;
    size_t n = 0;
    for (; stem[n] && n + 1 < outlen; n++) out[n] = (char)g_ascii_toupper(stem[n]);
    out[n] = 0;
    static const char *const suffixes[] = { "BUFFER", "SOURCE", "FILE", NULL };
    for (int i = 0; suffixes[i]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(out + n - k, suffixes[i]) == 0) { out[n - k] = 0; break; }
    }
}

int cvips_probe(const void *buf, size_t len, int *width, int *height, char *err, size_t errlen) {
    if (cvips_init() != 0) {
        if (err && errlen) snprintf(err, errlen, "%s", unavailable[0] ? unavailable : "libvips did not start");
        return CVIPS_UNAVAILABLE;
    }
    api.vips_error_clear();
    load_modules_if_needed(buf, len);
    /* The allow-list, checked before any decoder sees the bytes (the block set is the second
       line of defence). */
    const char *loader = api.vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) {
        take_error(err, errlen, "not an image");
        return -1;
    }
    if (!loader_allowed(loader)) {
        loader_format(loader, err, errlen);
        api.vips_error_clear();
        return CVIPS_UNSUPPORTED;
    }
    VipsImage *image = api.vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
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
    const char *loader = api.vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) { api.vips_error_clear(); return 0; }
    return g_str_has_prefix(loader, "VipsForeignLoadPng") || g_str_has_prefix(loader, "VipsForeignLoadNsgif");
}

/* Writes an 8-bit RGBA image's pixels into *out (taking the image's reference) with the
   source size it came from; -1 with the error text when libvips fails. Shared by the
   thumbnail and the region paths. */
static int write_rgba(VipsImage *rgba, int sw, int sh, cvips_image *out, char *err, size_t errlen) {
    size_t size = 0;
    void *pixels = api.vips_image_write_to_memory(rgba, &size);
    int w = api.vips_image_get_width(rgba);
    int h = api.vips_image_get_height(rgba);
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
    return 0;
}

int cvips_thumbnail_rgba(const void *buf, size_t len, int max_width, int max_height,
                         int64_t max_pixels, cvips_image *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    int sw = 0, sh = 0;
    int probed = cvips_probe(buf, len, &sw, &sh, err, errlen);
    if (probed != 0) return probed;
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
    if (api.vips_thumbnail_buffer((void *)buf, len, &thumb, whole ? sw : max_width,
                              "height", whole ? sh : max_height,
                              "size", VIPS_SIZE_DOWN,
                              "option_string", "fail_on=truncated",
                              NULL) != 0) {
        take_error(err, errlen, "could not decode");
        return -1;
    }

    VipsImage *srgb = NULL;
    if (api.vips_colourspace(thumb, &srgb, VIPS_INTERPRETATION_sRGB, NULL) != 0) {
        g_object_unref(thumb);
        take_error(err, errlen, "could not convert to sRGB");
        return -1;
    }
    g_object_unref(thumb);

    VipsImage *uchar = NULL;
    if (api.vips_image_get_format(srgb) != VIPS_FORMAT_UCHAR) {
        if (api.vips_cast_uchar(srgb, &uchar, NULL) != 0) {
            g_object_unref(srgb);
            take_error(err, errlen, "could not convert to 8 bits");
            return -1;
        }
        g_object_unref(srgb);
    } else {
        uchar = srgb;
    }

    VipsImage *rgba = NULL;
    int bands = api.vips_image_get_bands(uchar);
    if (bands == 3) {
        if (api.vips_bandjoin_const1(uchar, &rgba, 255.0, NULL) != 0) {
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
        if (bands < 3 || api.vips_extract_band(uchar, &cut, 0, "n", keep, NULL) != 0) {
            g_object_unref(uchar);
            take_error(err, errlen, "unsupported band layout");
            return -1;
        }
        g_object_unref(uchar);
        if (keep == 3) {
            if (api.vips_bandjoin_const1(cut, &rgba, 255.0, NULL) != 0) {
                g_object_unref(cut);
                take_error(err, errlen, "could not add alpha");
                return -1;
            }
            g_object_unref(cut);
        } else {
            rgba = cut;
        }
    }

    if (write_rgba(rgba, sw, sh, out, err, errlen) != 0) return -1;
    out->whole = whole;
    return 0;
}

int cvips_sha256_hex(const void *buf, size_t len, char *out) {
    if (out == NULL) return -1;
    out[0] = 0;
    if (load_glib() != 0) return -1;
    static const guchar empty = 0;
    gchar *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256, buf ? (const guchar *)buf : &empty, len);
    if (hex == NULL) return -1;
    int ok = strlen(hex) == 64;
    if (ok) memcpy(out, hex, 65);
    g_free(hex);
    return ok ? 0 : -1;
}

/* Pixels only ever come from libvips, which loaded GLib. */
void cvips_free(void *pixels) { if (pixels != NULL) g_free(pixels); }

/* cvips_region_rgba (include/CVipsRegion.h): a region of an image at a shrink-on-load factor,
   for the full view's zoom and pan, through the same dlopen table as the thumbnail path. */
/* Replaces *image with the result of an operation (unrefs the input); 0 on success. */
static int region_step(VipsImage **image, int rc, VipsImage *next) {
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
    const char *loader = api.vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) api.vips_error_clear();
    int jpeg = loader != NULL && g_str_has_prefix(loader, "VipsForeignLoadJpeg");
    char options[64];
    /* Random access: autorot of a rotated JPEG fails "out of order read" with sequential. */
    if (jpeg && shrink > 1) snprintf(options, sizeof options, "shrink=%d,fail_on=truncated", shrink);
    else snprintf(options, sizeof options, "fail_on=truncated");
    VipsImage *image = api.vips_image_new_from_buffer(buf, len, options, "access", VIPS_ACCESS_RANDOM, NULL);
    if (image == NULL) { take_error(err, errlen, "could not decode"); return -1; }
    VipsImage *next = NULL;
    if (region_step(&image, api.vips_autorot(image, &next, NULL), next) != 0) goto fail;
    if (!jpeg && shrink > 1) {
        if (region_step(&image, api.vips_shrink(image, &next, (double)shrink, (double)shrink, NULL), next) != 0) goto fail;
    }
    /* The factor actually applied (JPEG's DCT scaling rounds sizes up). */
    double fx = (double)sw / api.vips_image_get_width(image);
    double fy = (double)sh / api.vips_image_get_height(image);
    int iw = api.vips_image_get_width(image), ih = api.vips_image_get_height(image);
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
        if (region_step(&image, api.vips_extract_area(image, &next, l, t, w, h, NULL), next) != 0) goto fail;
    }
    if (w != out_width || h != out_height) {
        double hs = (double)out_width / w, vs = (double)out_height / h;
        VipsKernel kernel = (hs > 1 || vs > 1) ? VIPS_KERNEL_NEAREST : VIPS_KERNEL_LANCZOS3;
        if (region_step(&image, api.vips_resize(image, &next, hs, "vscale", vs, "kernel", kernel, NULL), next) != 0) goto fail;
    }
    if (region_step(&image, api.vips_colourspace(image, &next, VIPS_INTERPRETATION_sRGB, NULL), next) != 0) goto fail;
    if (api.vips_image_get_format(image) != VIPS_FORMAT_UCHAR) {
        if (region_step(&image, api.vips_cast_uchar(image, &next, NULL), next) != 0) goto fail;
    }
    int bands = api.vips_image_get_bands(image);
    if (bands > 4 || bands == 2 || bands == 1) {
        /* sRGB conversion gives 3 or 4 bands; keep the first 3 (or 4) of anything else. */
        if (bands < 3) goto fail;
        if (region_step(&image, api.vips_extract_band(image, &next, 0, "n", 4, NULL), next) != 0) goto fail;
        bands = 4;
    }
    if (bands == 3) {
        if (region_step(&image, api.vips_bandjoin_const1(image, &next, 255.0, NULL), next) != 0) goto fail;
    }
    return write_rgba(image, sw, sh, out, err, errlen);
fail:
    g_object_unref(image);
    take_error(err, errlen, "could not decode the region");
    return -1;
}

/* cvips_animation_open / _next / _close (include/CVipsAnimation.h): the frames of an animated
   GIF or WebP, one at a time. */

/* The fitted size of w x h in max_w x max_h, aspect kept, never enlarged, at least 1x1. */
static void fit_box(int w, int h, int max_w, int max_h, int *fw, int *fh) {
    double sx = (double)max_w / w, sy = (double)max_h / h;
    double s = sx < sy ? sx : sy;
    if (s >= 1) { *fw = w; *fh = h; return; }
    int a = (int)(w * s + 0.5), b = (int)(h * s + 0.5);
    *fw = a < 1 ? 1 : (a > max_w ? max_w : a);
    *fh = b < 1 ? 1 : (b > max_h ? max_h : b);
}

/* One frame of `strip` (frames of page_height rows stacked), resized to fw x fh and converted
   to 8-bit sRGB RGBA, copied to `dest`. Does not take `strip`'s reference. 0 on success. */
static int animation_frame(VipsImage *strip, int page, int page_height, int fw, int fh, unsigned char *dest) {
    VipsImage *image = NULL, *next = NULL;
    int w = api.vips_image_get_width(strip);
    if (api.vips_extract_area(strip, &image, 0, page * page_height, w, page_height, NULL) != 0) return -1;
    if (w != fw || page_height != fh) {
        if (region_step(&image, api.vips_resize(image, &next, (double)fw / w, "vscale", (double)fh / page_height, NULL), next) != 0) goto fail;
    }
    if (region_step(&image, api.vips_colourspace(image, &next, VIPS_INTERPRETATION_sRGB, NULL), next) != 0) goto fail;
    if (api.vips_image_get_format(image) != VIPS_FORMAT_UCHAR) {
        if (region_step(&image, api.vips_cast_uchar(image, &next, NULL), next) != 0) goto fail;
    }
    int bands = api.vips_image_get_bands(image);
    if (bands > 4) {
        if (region_step(&image, api.vips_extract_band(image, &next, 0, "n", 4, NULL), next) != 0) goto fail;
        bands = 4;
    }
    if (bands < 3) goto fail;
    if (bands == 3) {
        if (region_step(&image, api.vips_bandjoin_const1(image, &next, 255.0, NULL), next) != 0) goto fail;
    }
    size_t size = 0;
    void *pixels = api.vips_image_write_to_memory(image, &size);
    int ok = pixels != NULL && size == (size_t)fw * (size_t)fh * 4 && api.vips_image_get_width(image) == fw
             && api.vips_image_get_height(image) == fh;
    if (ok) memcpy(dest, pixels, size);
    if (pixels) g_free(pixels);
    g_object_unref(image);
    return ok ? 0 : -1;
fail:
    g_object_unref(image);
    return -1;
}

struct cvips_animation_decoder {
    VipsImage *strip;   /* every frame, page_height rows each, loaded sequentially */
    int page_height;    /* of one frame in `strip` */
    int next;           /* the next kept frame to decode, 0..frame_count */
    int *delays;        /* the info's delays, freed by close */
    cvips_animation_info info;
};

int cvips_animation_open(const void *buf, size_t len, int max_width, int max_height, int64_t max_pixels,
                         int64_t max_bytes, cvips_animation_decoder **out, cvips_animation_info *info, char *err,
                         size_t errlen) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    int sw = 0, sh = 0;
    int probed = cvips_probe(buf, len, &sw, &sh, err, errlen);
    if (probed != 0) return probed;
    const char *loader = api.vips_foreign_find_load_buffer(buf, len);
    if (loader == NULL) { api.vips_error_clear(); return 1; }
    int gif = g_str_has_prefix(loader, "VipsForeignLoadNsgif");
    int webp = g_str_has_prefix(loader, "VipsForeignLoadWebp");
    if (!gif && !webp) return 1;
    if (max_width < 1) max_width = 1;
    if (max_height < 1) max_height = 1;

    /* The header of every frame: count, height of one, delays, loop. */
    VipsImage *header = api.vips_image_new_from_buffer(buf, len, "n=-1", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (header == NULL) { api.vips_error_clear(); return 1; }
    int n = api.vips_image_get_n_pages(header);
    int ph = api.vips_image_get_page_height(header);
    int w = api.vips_image_get_width(header);
    if (n <= 1 || ph <= 0 || (int64_t)ph * n != api.vips_image_get_height(header)
        || (max_pixels > 0 && (int64_t)w * ph * n > max_pixels)) {
        g_object_unref(header);
        api.vips_error_clear();
        return 1;
    }
    int *delays = g_malloc_n((gsize)n, sizeof(int));
    int *given = NULL, count = 0, gif_delay = 0;
    if (api.vips_image_get_array_int(header, "delay", &given, &count) == 0 && count > 0) {
        for (int i = 0; i < n; i++) delays[i] = given[i < count ? i : count - 1];
    } else {
        int d = api.vips_image_get_int(header, "gif-delay", &gif_delay) == 0 ? gif_delay * 10 : 100;
        for (int i = 0; i < n; i++) delays[i] = d;
    }
    int loop = 0;
    if (api.vips_image_get_int(header, "loop", &loop) != 0) loop = 0;
    api.vips_error_clear();
    g_object_unref(header);

    int fw = 0, fh = 0;
    fit_box(w, ph, max_width, max_height, &fw, &fh);
    int64_t frame_bytes = (int64_t)fw * fh * 4;
    int64_t total = frame_bytes * n;
    int step = 1;
    if (max_bytes > 0 && total > max_bytes) step = (int)((total + max_bytes - 1) / max_bytes);
    if (step > n) step = n;
    int kept = (n + step - 1) / step;

    /* The frames: WebP shrinks on load (libwebp scales while decoding), GIF decodes at its size.
       Nothing is decoded here: each cvips_animation_next pulls one more frame through the
       sequential load, which composites it over the frames before (disposal included). */
    char options[96];
    if (webp && fw < w) snprintf(options, sizeof options, "n=-1,scale=%.6f,fail_on=truncated", (double)fw / w);
    else snprintf(options, sizeof options, "n=-1,fail_on=truncated");
    VipsImage *strip = api.vips_image_new_from_buffer(buf, len, options, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (strip == NULL) {
        take_error(err, errlen, "could not decode the animation");
        g_free(delays);
        return -1;
    }
    int strip_ph = api.vips_image_get_page_height(strip);
    if (api.vips_image_get_n_pages(strip) != n || strip_ph <= 0) {
        snprintf(err, errlen, "the animation's frames changed size on load");
        g_object_unref(strip);
        g_free(delays);
        return -1;
    }
    cvips_animation_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) {
        snprintf(err, errlen, "out of memory");
        g_object_unref(strip);
        g_free(delays);
        return -1;
    }
    d->strip = strip;
    d->page_height = strip_ph;
    d->delays = delays;
    d->info.width = fw;
    d->info.height = fh;
    d->info.frame_count = kept;
    d->info.step = step;
    d->info.source_width = w;
    d->info.source_height = ph;
    d->info.source_frames = n;
    d->info.loop = loop;
    d->info.delays = delays;
    *info = d->info;
    *out = d;
    return 0;
}

int cvips_animation_next(cvips_animation_decoder *d, unsigned char *dest, char *err, size_t errlen) {
    if (d->next >= d->info.frame_count) {
        snprintf(err, errlen, "no frame left");
        return -1;
    }
    int page = d->next * d->info.step;
    if (animation_frame(d->strip, page, d->page_height, d->info.width, d->info.height, dest) != 0) {
        take_error(err, errlen, "could not decode an animation frame");
        return -1;
    }
    d->next += 1;
    return 0;
}

void cvips_animation_close(cvips_animation_decoder *d) {
    if (d == NULL) return;
    if (d->strip != NULL) g_object_unref(d->strip);
    g_free(d->delays);
    free(d);
}
