#ifndef CCURL_H
#define CCURL_H
#include <curl/curl.h>
#include <stdint.h>

/* A thin shim over libcurl for Swift. curl_easy_setopt, curl_multi_setopt and
   curl_easy_getinfo are variadic (one option, then a value whose type depends on the option),
   and Swift cannot call variadic C functions: each value type Vitrine passes gets a wrapper
   with a fixed signature. Every symbol is prefixed ccurl_.
   libcurl is not linked: ccurl_global_init opens it with dlopen ($VITRINE_LIBCURL, else
   libcurl.so.4) at the first request, so a run that reads only local files never loads its
   31 libraries. Every other function here forwards to libcurl's function of the same name
   (without the c) and, before a successful ccurl_global_init, returns that function's failure
   value (NULL, CURLE_FAILED_INIT, CURLM_INTERNAL_ERROR) or does nothing. */

/* Opens libcurl and runs curl_global_init(CURL_GLOBAL_DEFAULT), once per process, behind
   pthread_once: libcurl's global set-up is not thread-safe. Returns CURLE_OK (0), or
   CURLE_FAILED_INIT when libcurl could not be opened or started (ccurl_unavailable_reason
   says why). Safe from any thread. */
int ccurl_global_init(void);

/* Why libcurl is not available (the dynamic loader's message or the init error), or "" when
   it is. Calls ccurl_global_init. */
const char *ccurl_unavailable_reason(void);

/* libcurl's handle functions, through the table (same arguments and results). */
CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
CURLcode ccurl_easy_pause(CURL *handle, int bitmask);
const char *ccurl_easy_strerror(CURLcode code);
CURLM *ccurl_multi_init(void);
CURLMcode ccurl_multi_cleanup(CURLM *multi);
CURLMcode ccurl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode ccurl_multi_perform(CURLM *multi, int *running);
CURLMcode ccurl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms, int *numfds);
CURLMcode ccurl_multi_wakeup(CURLM *multi);
CURLMcode ccurl_multi_timeout(CURLM *multi, long *milliseconds);
CURLMsg *ccurl_multi_info_read(CURLM *multi, int *messages_left);
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *string);
void ccurl_slist_free_all(struct curl_slist *list);

/* curl_easy_setopt with a long (flags, numbers, enums such as CURL_HTTP_VERSION_2TLS). */
CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
/* curl_easy_setopt with a string (copied by libcurl) or a data pointer (CURLOPT_PRIVATE,
   CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_HTTPHEADER's curl_slist). */
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
/* curl_easy_setopt with a write or header callback (CURLOPT_WRITEFUNCTION,
   CURLOPT_HEADERFUNCTION): both have curl_write_callback's signature. */
CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback function);

/* curl_easy_getinfo for a long (CURLINFO_RESPONSE_CODE, CURLINFO_OS_ERRNO,
   CURLINFO_SSL_VERIFYRESULT, CURLINFO_NUM_CONNECTS ...). */
CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
/* curl_easy_getinfo for a string owned by the handle (CURLINFO_REDIRECT_URL,
   CURLINFO_EFFECTIVE_URL); NULL when there is none. */
CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);

/* curl_multi_setopt with a long (CURLMOPT_MAX_HOST_CONNECTIONS, CURLMOPT_PIPELINING ...). */
CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/* The easy handle and result of a CURLMSG_DONE message (CURLMsg's `data` is a union, which
   Swift imports awkwardly). Returns 1 and fills both for a DONE message, else 0. */
int ccurl_message_done(const CURLMsg *message, CURL **handle, CURLcode *result);

#endif
