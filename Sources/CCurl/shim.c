#include "CCurl.h"
#include <pthread.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_result = CURLE_FAILED_INIT;

static void global_init(void) { init_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

int ccurl_global_init(void) {
    pthread_once(&init_once, global_init);
    return (int)init_result;
}

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback function) {
    return curl_easy_setopt(handle, option, function);
}

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

int ccurl_message_done(const CURLMsg *message, CURL **handle, CURLcode *result) {
    if (message == NULL || message->msg != CURLMSG_DONE) return 0;
    *handle = message->easy_handle;
    *result = message->data.result;
    return 1;
}
