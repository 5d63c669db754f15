#include "CCurl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* libcurl is opened with dlopen at the first request, not linked: linking it made every start
   of every command (render, list, --version) load its tree of 31 shared libraries (OpenSSL,
   GnuTLS, Kerberos, LDAP, libssh2, nghttp2, ...): about 5.7 MB of the 21 MB a 1x1 render
   peaked at, and their constructors' time. Every libcurl function Vitrine calls is looked up
   once into this table; __typeof__ keeps each pointer's type exactly the header's (the
   variadic setopt/getinfo included, which C calls through a pointer as it would directly). */
#define VITRINE_CURL_API(X) \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_setopt) \
    X(curl_easy_getinfo) X(curl_easy_pause) X(curl_easy_strerror) X(curl_multi_init) \
    X(curl_multi_cleanup) X(curl_multi_setopt) X(curl_multi_add_handle) \
    X(curl_multi_remove_handle) X(curl_multi_perform) X(curl_multi_poll) X(curl_multi_wakeup) \
    X(curl_multi_timeout) X(curl_multi_info_read) X(curl_slist_append) X(curl_slist_free_all)
#define CURL_FIELD(name) __typeof__(name) *name;
static struct { VITRINE_CURL_API(CURL_FIELD) } api;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Set (release) once the table is filled and curl_global_init succeeded. */
static atomic_int loaded;
/* Why libcurl is not available (dlerror's text or the init error), empty while it is. */
static char unavailable[512];

/* $VITRINE_LIBCURL when set (the tests point it at a missing file), else Debian's soname. */
static int open_curl(void) {
    const char *name = getenv("VITRINE_LIBCURL");
    if (name == NULL || name[0] == 0) name = "libcurl.so.4";
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(unavailable, sizeof unavailable, "%s", why ? why : name);
        return -1;
    }
#define CURL_LOOKUP(sym) \
    api.sym = (__typeof__(sym) *)dlsym(handle, #sym); \
    if (api.sym == NULL) { snprintf(unavailable, sizeof unavailable, "%s: no symbol %s", name, #sym); return -1; }
    VITRINE_CURL_API(CURL_LOOKUP)
    return 0;
}

static void global_init(void) {
    if (open_curl() != 0) return;
    CURLcode code = api.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(unavailable, sizeof unavailable, "curl_global_init: %s", api.curl_easy_strerror(code));
        return;
    }
    atomic_store_explicit(&loaded, 1, memory_order_release);
}

int ccurl_global_init(void) {
    pthread_once(&init_once, global_init);
    return atomic_load_explicit(&loaded, memory_order_acquire) ? (int)CURLE_OK : (int)CURLE_FAILED_INIT;
}

const char *ccurl_unavailable_reason(void) {
    ccurl_global_init();
    return unavailable;
}

/* Every call below needs ccurl_global_init to have succeeded (HTTPClient calls it before it
   makes any handle); until then the table is empty and each returns its failure value. */
#define LOADED atomic_load_explicit(&loaded, memory_order_acquire)

CURL *ccurl_easy_init(void) { return LOADED ? api.curl_easy_init() : NULL; }

void ccurl_easy_cleanup(CURL *handle) { if (LOADED) api.curl_easy_cleanup(handle); }

CURLcode ccurl_easy_pause(CURL *handle, int bitmask) {
    return LOADED ? api.curl_easy_pause(handle, bitmask) : CURLE_FAILED_INIT;
}

const char *ccurl_easy_strerror(CURLcode code) {
    return LOADED ? api.curl_easy_strerror(code) : "libcurl is not loaded";
}

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return LOADED ? api.curl_easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return LOADED ? api.curl_easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback function) {
    return LOADED ? api.curl_easy_setopt(handle, option, function) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return LOADED ? api.curl_easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return LOADED ? api.curl_easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}

CURLM *ccurl_multi_init(void) { return LOADED ? api.curl_multi_init() : NULL; }

CURLMcode ccurl_multi_cleanup(CURLM *multi) { return LOADED ? api.curl_multi_cleanup(multi) : CURLM_INTERNAL_ERROR; }

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return LOADED ? api.curl_multi_setopt(multi, option, value) : CURLM_INTERNAL_ERROR;
}

CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle) {
    return LOADED ? api.curl_multi_add_handle(multi, handle) : CURLM_INTERNAL_ERROR;
}

CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle) {
    return LOADED ? api.curl_multi_remove_handle(multi, handle) : CURLM_INTERNAL_ERROR;
}

CURLMcode ccurl_multi_perform(CURLM *multi, int *running) {
    return LOADED ? api.curl_multi_perform(multi, running) : CURLM_INTERNAL_ERROR;
}

CURLMcode ccurl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms, int *numfds) {
    return LOADED ? api.curl_multi_poll(multi, extra_fds, extra_nfds, timeout_ms, numfds) : CURLM_INTERNAL_ERROR;
}

CURLMcode ccurl_multi_wakeup(CURLM *multi) { return LOADED ? api.curl_multi_wakeup(multi) : CURLM_INTERNAL_ERROR; }

CURLMcode ccurl_multi_timeout(CURLM *multi, long *milliseconds) {
    return LOADED ? api.curl_multi_timeout(multi, milliseconds) : CURLM_INTERNAL_ERROR;
}

CURLMsg *ccurl_multi_info_read(CURLM *multi, int *messages_left) {
    return LOADED ? api.curl_multi_info_read(multi, messages_left) : NULL;
}

struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string) {
    return LOADED ? api.curl_slist_append(list, string) : NULL;
}

void ccurl_slist_free_all(struct curl_slist *list) { if (LOADED) api.curl_slist_free_all(list); }

int ccurl_message_done(const CURLMsg *message, CURL **handle, CURLcode *result) {
    if (message == NULL || message->msg != CURLMSG_DONE) return 0;
    *handle = message->easy_handle;
    *result = message->data.result;
    return 1;
}
